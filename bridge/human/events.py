"""Events a page sends (answers, messages, picked elements, open_file): into the inbox, marked as from the page."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bridge.pages import sourcemap
from bridge.pages.protocol import EventMsg
from bridge.pages.registry import Instance

if TYPE_CHECKING:
    from bridge.state import BridgeState


def page_event(state: BridgeState, inst: Instance, msg: EventMsg) -> bool:
    """Apply an event from the page. False if it answers a question that is not open on this page.

    Everything here came over the page channel, so its inbox item is `from: page` whatever its data says: the
    app's own scripts share the world of the in-page panel and can send any of these."""
    page_id = f"{inst.id}/host"
    if msg.kind in ("recorded", "record_start", "record_stop"):  # a skill recording's (bridge/skills/recording.py)
        return state.skills is not None and state.skills.on_event(inst, msg)
    if msg.kind == "answer":
        answer = _mapped(msg.data.get("answer"))
        q = state.questions.answer(msg.questionId or "", inst.id, answer, "page")
        if q is None:  # in a cluster, it may be another replica's question: that one settles it
            return state.shared.forward_answer(msg.questionId or "", answer, "page", inst.id)
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
