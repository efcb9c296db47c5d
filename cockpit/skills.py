"""The cockpit's Skills & memory tab: the skills and the facts runs learned (review, edit, delete), and Record/Stop
for a tab. Same guard and error shape as the cockpit's other actions (bridge/cockpit/routes.py)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.routing import Route

from bridge.cockpit.routes import _action, _str
from bridge.dispatch import Dispatcher
from bridge.errors import BridgeError


def _service(d: Dispatcher) -> Any:
    if d.skills is None:
        raise BridgeError("Skills are not set up on this bridge.", code="not_available")
    return d.skills


async def overview(d: Dispatcher, data: dict[str, Any], request: Request) -> dict[str, Any]:
    s = _service(d)
    recording = [r.view() for r in s.recordings.by_name.values() if r.state == "recording"]
    return {"skills": [k.summary() for k in await s.skills.list()],
            "facts": [f.model_dump() for f in await s.memory.list()], "recording": recording}


async def edit_fact(d: Dispatcher, data: dict[str, Any], request: Request) -> dict[str, Any]:
    fact = await _service(d).memory.edit(_str(data, "id", 40) or "", _str(data, "text", 300, required=False),
                                         _str(data, "kind", 20, required=False))
    d.audit.human("memory_edit", None, fact=fact.id)
    return fact.model_dump()


async def forget_fact(d: Dispatcher, data: dict[str, Any], request: Request) -> dict[str, Any]:
    fact_id = _str(data, "id", 40) or ""
    await _service(d).memory.forget(fact_id)
    d.audit.human("memory_forget", None, fact=fact_id)
    return {"forgotten": fact_id}


async def delete_skill(d: Dispatcher, data: dict[str, Any], request: Request) -> dict[str, Any]:
    name = _str(data, "name", 80) or ""
    if not await _service(d).skills.delete(name):
        await _service(d).skills.get(name)
    return {"deleted": name}


async def record(d: Dispatcher, data: dict[str, Any], request: Request) -> dict[str, Any]:
    s = _service(d)
    return (await s.recordings.start(s.page(_str(data, "pageId", 64)), _str(data, "name", 80) or "")).view()


async def stop(d: Dispatcher, data: dict[str, Any], request: Request) -> dict[str, Any]:
    from bridge.agent.skills import Until

    text = _str(data, "until", 4096, required=False)
    return (await _service(d).recordings.stop(_str(data, "name", 80) or "", Until(text=text) if text else None)).view()


routes = [
    Route("/cockpit/skills", _action(overview), methods=["POST"]),
    Route("/cockpit/memory/edit", _action(edit_fact), methods=["POST"]),
    Route("/cockpit/memory/forget", _action(forget_fact), methods=["POST"]),
    Route("/cockpit/skills/delete", _action(delete_skill), methods=["POST"]),
    Route("/cockpit/record", _action(record), methods=["POST"]),
    Route("/cockpit/record/stop", _action(stop), methods=["POST"]),
]
