"""The cockpit's Skills & memory tab: the skills and the facts runs learned (review, edit, delete), and Record/Stop
for a tab. Same guard and error shape as the cockpit's other actions (bridge/cockpit/routes.py)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.routing import Route

from bridge.cockpit.routes import _action, _str
from bridge.state import BridgeState
from bridge.errors import BridgeError


def _service(state: BridgeState) -> Any:
    if state.skills is None:
        raise BridgeError("Skills are not set up on this bridge.", code="not_available")
    return state.skills


async def overview(state: BridgeState, data: dict[str, Any], request: Request) -> dict[str, Any]:
    s = _service(state)
    recording = [r.view() for r in s.recordings.by_name.values() if r.state == "recording"]
    return {"skills": [k.summary() for k in await s.skills.list()],
            "facts": [f.model_dump() for f in await s.memory.list()], "recording": recording}


async def edit_fact(state: BridgeState, data: dict[str, Any], request: Request) -> dict[str, Any]:
    fact = await _service(state).memory.edit(_str(data, "id", 40) or "", _str(data, "text", 300, required=False),
                                         _str(data, "kind", 20, required=False), via="cockpit")
    state.audit.human("memory_edit", None, fact=fact.id)
    return fact.model_dump()


async def forget_fact(state: BridgeState, data: dict[str, Any], request: Request) -> dict[str, Any]:
    fact_id = _str(data, "id", 40) or ""
    await _service(state).memory.forget(fact_id)
    state.audit.human("memory_forget", None, fact=fact_id)
    return {"forgotten": fact_id}


async def delete_skill(state: BridgeState, data: dict[str, Any], request: Request) -> dict[str, Any]:
    name = _str(data, "name", 80) or ""
    if not await _service(state).skills.delete(name):
        await _service(state).skills.get(name)
    return {"deleted": name}


async def record(state: BridgeState, data: dict[str, Any], request: Request) -> dict[str, Any]:
    s = _service(state)
    return (await s.recordings.start(s.tab_of(_str(data, "pageId", 64)), _str(data, "name", 80) or "",
                                     by="cockpit", overwrite=data.get("overwrite") is True)).view()


async def stop(state: BridgeState, data: dict[str, Any], request: Request) -> dict[str, Any]:
    from bridge.skills.format import Until

    text = _str(data, "until", 4096, required=False)
    raw = data.get("confirmOrigins") or []
    confirmed = tuple(str(o).rstrip("/") for o in raw[:20]) if isinstance(raw, list) else ()
    rec = await _service(state).recordings.stop(_str(data, "name", 80) or "", Until(text=text) if text else None,
                                                confirmed=confirmed)
    return rec.view()


routes = [
    Route("/cockpit/skills", _action(overview), methods=["POST"]),
    Route("/cockpit/memory/edit", _action(edit_fact), methods=["POST"]),
    Route("/cockpit/memory/forget", _action(forget_fact), methods=["POST"]),
    Route("/cockpit/skills/delete", _action(delete_skill), methods=["POST"]),
    Route("/cockpit/record", _action(record), methods=["POST"]),
    Route("/cockpit/record/stop", _action(stop), methods=["POST"]),
]
