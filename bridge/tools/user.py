"""user_* tools: ask the human a question in the page, or show them a note. Each gets the `Page` its pageId names
and talks to that page's tab.

user_notify is its command's params (`notify`); user_ask is not the `ask` command's (that is the bridge's plumbing
for question cards, bridge/human/asking.py): it takes a question and waits for the answer."""

from typing import Annotated, Any, Literal

from pydantic import Field

from bridge import errors
from bridge.pages.commands import NotifyParams
from bridge.tools.base import Tool, acting
from bridge.tools.outputs import obj
from bridge.tools.page.handle import Page


async def user_ask(
    page: Page,
    question: Annotated[str, Field(min_length=1, max_length=2000)],
    kind: Annotated[Literal["confirm", "choice", "text", "pick"], Field(
        description="pick: the human clicks an element.")] = "confirm",
    choices: Annotated[list[str] | None, Field(max_length=12)] = None,
    wait: Annotated[float, Field(gt=0, le=300)] = 60,
) -> dict[str, Any]:
    """Ask the human in their page; after `wait` s you get a ticket and the answer comes to `inbox`."""
    if kind == "choice" and not choices:
        raise errors.BridgeError("kind=choice needs `choices` (2 to 12 options).", code="invalid_argument")
    q, answered = await page.ask(kind, question, choices if kind == "choice" else None, wait)
    if answered:
        page.forget_question(q)
        return {"questionId": q.id, "answer": q.answer, "via": q.via}
    q.ticketed = True
    return {"questionId": q.id, "status": "pending",
            "hint": f"No answer within {wait:g} s. The question stays in the page; read the answer later with "
                    f"inbox(kinds=['answer'])."}


async def user_notify(page: Page, params: NotifyParams) -> dict[str, Any]:
    """Show a toast in the human's page."""
    tab = page.tab
    await tab.call("notify", params, 10)
    return {"pageId": tab.page_id, "shown": True}


TOOLS = [
    Tool(user_ask, acting("Ask the human", destructive=False),
         output=obj("answer:any", "via:str", "status:str", "hint:str", questionId="str")),
    Tool(user_notify, acting("Notify the human", destructive=False), output=obj(pageId="str", shown="bool")),
]
