"""user_* tools: ask the human a question in the page, or show them a note."""

from typing import Annotated, Any, Literal

from pydantic import Field

from bridge import errors
from bridge.dispatch import Dispatcher
from bridge.human import ask
from bridge.tools.base import Tool, acting
from bridge.tools.page import PageId


async def user_ask(
    d: Dispatcher,
    question: Annotated[str, Field(min_length=1, max_length=2000, description="What to ask, in one or two lines.")],
    kind: Annotated[Literal["confirm", "choice", "text", "pick"], Field(
        description="confirm (yes/no), choice (one of `choices`), text (free text), pick (the human clicks an "
                    "element; the answer has its ref, selector, text and source).")] = "confirm",
    choices: Annotated[list[str] | None, Field(max_length=12, description="Options for kind=choice.")] = None,
    pageId: PageId = None,
    wait: Annotated[float, Field(gt=0, le=300, description="Seconds to block for the answer.")] = 60,
) -> dict[str, Any]:
    """Ask the human, shown inside their page. Blocks up to `wait` seconds; after that returns a ticket and the
    answer lands in `inbox` (kind 'answer', with the questionId)."""
    if kind == "choice" and not choices:
        raise errors.BridgeError("kind=choice needs `choices` (2 to 12 options).", code="bad_arguments")
    target = d.resolve(pageId)
    q, answered = await ask(d, target, kind, question, choices if kind == "choice" else None, wait=wait)
    if answered:
        d.questions.forget(q)
        return {"questionId": q.id, "answer": q.answer, "via": q.via}
    return {"questionId": q.id, "status": "pending",
            "hint": f"No answer within {wait:g} s. The question stays in the page; read the answer later with "
                    f"inbox(kinds=['answer'])."}


async def user_notify(
    d: Dispatcher,
    message: Annotated[str, Field(min_length=1, max_length=2000, description="The note to show.")],
    level: Annotated[Literal["info", "success", "warning", "error"], Field(description="How it looks.")] = "info",
    durationMs: Annotated[int, Field(ge=1000, le=120_000, description="How long it stays.")] = 5000,
    pageId: PageId = None,
) -> dict[str, Any]:
    """Show a short non-blocking note (progress, done, a reply) as a toast in the human's page."""
    target, out = await d.call_page(d.resolve(pageId).inst.id + "/host", "notify",
                                    {"message": message, "level": level, "durationMs": durationMs}, 10)
    return {"pageId": target.page_id, "shown": True}


TOOLS = [
    Tool(user_ask, acting("Ask the human", destructive=False)),
    Tool(user_notify, acting("Notify the human", destructive=False)),
]
