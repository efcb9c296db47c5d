"""Questions shown to the human in their page: ask (bounded wait), re-show after a reload, dismiss."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from bridge import errors
from bridge.dispatch import Dispatcher, Target
from bridge.human.elicit import offer
from bridge.progress import reporting
from bridge.questions import Kind, Question
from bridge.registry import Instance

log = logging.getLogger("bridge.human")


async def ask(d: Dispatcher, target: Target, kind: Kind, text: str, choices: list[str] | None = None,
              detail: str = "", wait: float = 60.0) -> tuple[Question, bool]:
    """Show a question in the target's tab and wait (bounded) for the answer: (question, answered in time)."""
    q = d.questions.ask(kind, text, target.inst.id, choices, detail)
    try:
        await d.call_page(f"{target.inst.id}/host", "ask", q.frame(), 10)
    except errors.BridgeError:
        d.questions.forget(q)
        raise
    d.audit.human("question", f"{target.inst.id}/host", questionId=q.id, question=kind, text=text)
    client = offer(d.questions, q, d.settings.stateless)
    try:
        what = "the human to answer the consent prompt" if kind == "consent" else f"the human to answer {text[:80]!r}"
        async with reporting(f"{what} in {target.inst.id}/host", wait):
            await asyncio.wait_for(asyncio.shield(q.future), wait)
        return q, True
    except TimeoutError:
        return q, False
    except asyncio.CancelledError:
        # The tool call was cancelled: nobody will read the answer, so the card leaves the page.
        if q.open:
            d.audit.human("question", f"{target.inst.id}/host", questionId=q.id, question=kind, outcome="cancelled")
            d.spawn(dismiss(d, q))
        raise
    finally:
        if client is not None:
            client.cancel()  # answered in the page or the cockpit (or over): the client's form closes
            # Wait for the SDK's courtesy notifications/cancelled to go out on the call's stream before the
            # result closes that stream (bounded).
            await asyncio.wait({client}, timeout=2)
            if q.via == "client":  # answered by the client: the card leaves the page
                d.spawn(_take_down(d, q))


async def _take_down(d: Dispatcher, q: Question) -> None:
    try:
        await d.call_page(f"{q.instance_id}/host", "ask", {"dismiss": q.id}, 5)
    except errors.BridgeError:
        pass


def settle_from_cockpit(d: Dispatcher, q: Question, value: Any) -> bool:
    """The human answered `q` in a cockpit (this one, or another replica's): settle it, tell the agent, and take the
    question off the page. False if it was answered meanwhile."""
    if d.questions.answer(q.id, None, value, "cockpit") is None:
        return False
    if q.kind != "consent":
        shown = value if isinstance(value, str) else json.dumps(value)
        d.inbox.add("answer", f"{q.text} → {shown[:200]}", f"{q.instance_id}/host",
                    {"questionId": q.id, "answer": value, "via": "cockpit"}, source="human")
    d.spawn(_take_down(d, q))  # the same question may still show in the page
    return True


async def show_open_questions(d: Dispatcher, inst: Instance) -> None:
    """A tab came back (reload, reconnect): show it the questions still waiting for its human."""
    for q in d.questions.open_for(inst.id):
        if q.human_only:
            continue
        try:
            await d.call_page(f"{inst.id}/host", "ask", q.frame(), 10)
        except errors.BridgeError as exc:
            log.info("could not re-show question %s on %s: %s", q.id, inst.id, exc)


async def dismiss(d: Dispatcher, q: Question) -> None:
    """Take an unanswered question off the page (best effort) and forget it."""
    d.questions.forget(q)
    try:
        await d.call_page(f"{q.instance_id}/host", "ask", {"dismiss": q.id}, 5)
    except errors.BridgeError:
        pass
