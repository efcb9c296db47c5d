"""Events a page sends (answers, messages, picked elements, open_file): into the inbox, marked as from the page."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any, Protocol

from bridge.pages import sourcemap
from bridge.pages.protocol import EventMsg
from bridge.pages.registry import Instance

if TYPE_CHECKING:
    from bridge.audit import Audit
    from bridge.human.asking import Asking
    from bridge.human.editor import OpenFile
    from bridge.human.inbox import Inbox
    from bridge.human.questions import Questions
    from bridge.server.background import Background
    from bridge.shared.seam import Shared

log = logging.getLogger("bridge.human")

#: Seconds after the bridge's own act in a tab ends during which that tab's answers are not taken: none, since the
#: act's trusted input (the extension's) reaches the page, and its answer the bridge, before the act's result does
#: (the extension itself also guards the panel a moment longer: plugins/extension/content.js).
ACT_GRACE = 0.0
#: How often a refused answer's card is looked at again, to show it once the bridge's input is over.
RESHOW_EVERY = 0.25
#: Seconds after the bridge's own desktop input during which no page's answer is taken: XTest input reaches the
#: browser after the bridge's call returns, and the bridge cannot tell which window it landed in.
DESKTOP_GRACE = 1.0
#: Events that are the human's word (answers, recordings): refused while the bridge itself sends trusted input.
HUMANS_WORD = ("answer", "record_start", "record_stop", "recorded")


class EventTarget(Protocol):
    """What a page's events reach (bridge/state.py's BridgeState is one)."""

    skills: Any  # bridge.skills.service.SkillService, or None
    questions: Questions
    shared: Shared
    inbox: Inbox
    open_file: OpenFile
    asking: Asking
    audit: Audit
    background: Background
    desktop: Any  # bridge.desktop.service.Desktop, or None


def bridge_input(state: EventTarget, inst: Instance) -> str | None:
    """Which of the bridge's own trusted-input routes may have produced an event of this tab just now: 'act' (the
    extension's debugger input, or an act's synthesized events), 'desktop' (XTest), or None."""
    now = time.monotonic()
    if inst.bridge_input > 0 or now - inst.bridge_input_at < ACT_GRACE:
        return "act"
    desk = state.desktop
    if desk is not None and (desk.acting > 0 or now - desk.acted_at < DESKTOP_GRACE):
        return "desktop"
    return None


def page_event(state: EventTarget, inst: Instance, msg: EventMsg) -> bool:
    """Apply an event from the page. False if it answers a question that is not open on this page, or if it is the
    human's word (an answer, a recording) arriving while the bridge itself was sending input (then it was not).

    Everything here came over the page channel, so its inbox item is `from: page` whatever its data says: the
    app's own scripts share the world of the in-page panel and can send any of these."""
    page_id = f"{inst.id}/host"
    if msg.kind in HUMANS_WORD:
        route = bridge_input(state, inst)
        if route is not None:
            state.audit.human("refused", page_id, event=msg.kind, questionId=msg.questionId, code="bridge_input",
                              why=f"the bridge was sending input ({route}): not the human's hand")
            log.info("refused %s from %s: the bridge was sending input (%s)", msg.kind, page_id, route)
            if msg.kind == "answer":  # the card comes back for the human once the bridge's input is over
                state.background.spawn(_reshow_after_input(state, inst))
            return False
    if msg.kind in ("recorded", "record_start", "record_stop"):  # a skill recording's (bridge/skills/recording.py)
        return state.skills is not None and state.skills.on_event(inst, msg)
    if msg.kind == "answer":
        answer = _mapped(msg.data.get("answer"))
        q = state.questions.answer(msg.questionId or "", inst.id, answer, "page")
        if q is None:  # in a cluster, it may be another replica's question: that one settles it
            shared = state.shared.questions
            return shared is not None and shared.forward(msg.questionId or "", answer, "page", inst.id)
        if q.kind != "consent":
            state.inbox.add("answer", f"{q.text} → {_short(q.answer)}", page_id,
                            {"questionId": q.id, "answer": q.answer, "via": "page"}, source="page")
        return True
    data = _mapped(dict(msg.data))
    if msg.kind == "open_file":
        data = sourcemap.apply(data)  # a compiled position from the picker: the line as written
        data.update(state.open_file.request_from_page(inst, data))
    state.inbox.add(msg.kind, msg.text or _short(data), page_id, data, source="page")
    return True


async def _reshow_after_input(state: EventTarget, inst: Instance) -> None:
    for _ in range(100):  # bounded: the bridge's input ends within its own timeouts
        if bridge_input(state, inst) is None:
            break
        await asyncio.sleep(RESHOW_EVERY)
    state.asking.reshow(inst)


def _mapped(value: Any) -> Any:
    """A picked element's `source` with a compiled position mapped back to the written line
    (bridge/pages/sourcemap.py)."""
    if isinstance(value, dict) and isinstance(value.get("source"), dict):
        return {**value, "source": sourcemap.apply(value["source"])}
    return value


def _short(value: Any) -> str:
    try:
        text = value if isinstance(value, str) else repr(value)
    except RecursionError:
        text = "(too deeply nested to show)"
    return text if len(text) <= 200 else text[:199] + "…"
