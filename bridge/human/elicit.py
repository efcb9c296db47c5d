"""A question to the human also offered to the MCP client, when it declared form elicitation: the first answer
from the page, the cockpit or the client wins, and the others close.

Only 2025-11-25 sessions can be asked mid-call (a server->client request related to the tool call); a 2026-07-28
client, a stateless bridge and JSON-response mode have no back channel for that, so there the question stays in
the page and the cockpit. `pick` questions need the page (the human clicks an element) and are never offered."""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Literal

from mcp.types import ClientCapabilities, ElicitationCapability
from pydantic import BaseModel, Field, create_model

from bridge.server.progress import REQUEST
from bridge.human.questions import Question, Questions

log = logging.getLogger("bridge.human")


def client_can_answer(ctx: Any) -> bool:
    """The tool call's client is a 2025-era session that declared elicitation (form mode)."""
    if ctx is None or not (ctx.protocol_version or "") or (ctx.protocol_version or "") >= "2026":
        return False
    try:
        return bool(ctx.session.check_client_capability(ClientCapabilities(elicitation=ElicitationCapability())))
    except Exception:  # no session behind this context (stateless): nobody to ask
        return False


def schema_for(q: Question) -> type[BaseModel] | None:
    """The form a client shows for `q` (one field, `answer`), or None when only the page can answer it."""
    if q.kind == "confirm":
        return create_model("Confirm", answer=(bool, Field(description=q.text)))
    if q.kind in ("choice", "consent") and q.choices:
        choice = Literal[tuple(q.choices)]  # type: ignore[valid-type]
        return create_model("Choice", answer=(choice, Field(description=q.text)))
    if q.kind == "text":
        return create_model("Text", answer=(str, Field(description=q.text, max_length=8000)))
    return None


def offer(questions: Questions, q: Question, stateless: bool) -> asyncio.Task[None] | None:
    """Ask the current tool call's client too, in the background; its accepted answer settles `q` (via "client").
    Returns the task (cancel it once `q` is settled otherwise), or None when the client cannot be asked."""
    ctx = REQUEST.get()
    schema = schema_for(q)
    if stateless or schema is None or not client_can_answer(ctx):
        return None
    message = q.text + (f"\n\n{q.detail}" if q.detail else "") + "\n\n(Also shown in the developer's page.)"

    async def ask_client() -> None:
        try:
            result = await ctx.elicit(message, schema)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the client refused or went away: the page still has the question
            log.info("elicitation for %s failed: %s", q.id, exc)
            return
        if getattr(result, "action", None) == "accept" and result.data is not None:
            questions.answer(q.id, None, result.data.answer, "client")

    return asyncio.get_running_loop().create_task(ask_client())
