"""`/v1/skills`, `/v1/recordings` and `/v1/memory`: the skills and memory over HTTP, bearer token as /mcp, every
failure in the bridge's one error shape (`{"error": {"code", "message"}}`), bad input a 4xx.

Reading and running skills is the agent's as much as the human's; writing a skill, deleting one, recording, and
editing or forgetting a memory fact are the human's: those need the human key too (bridge/server/principals.py; 403
human_only with the token alone)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from bridge.skills.format import Until, check_name, parse
from bridge.skills.service import SkillService
from bridge.errors import BridgeError
from bridge.server.http import HTTPError, error_response, parse_count, parse_seconds, read_json_object
from bridge.server.principals import human_only, is_human
from bridge.server.security import bearer_ok

BODY_LIMIT = 1_000_000
#: A long poll on a recording answers within this many seconds (a change answers at once).
MAX_WAIT = 25.0
STATUS = {"unknown_skill": 404, "unknown_recording": 404, "unknown_fact": 404, "unknown_page": 404,
          "no_page": 409, "ambiguous_page": 409, "already_recording": 409, "page_gone": 409,
          "skill_exists": 409}

Handler = Callable[[SkillService, Request, dict[str, Any]], Awaitable[Any]]


def endpoint(handler: Handler, body: bool = False, human: str | None = None) -> Callable[[Request],
                                                                                    Awaitable[Response]]:
    """A route; `human` names what it does when only the human may do it (the terminal's human key needed)."""
    async def route(request: Request) -> Response:
        if not bearer_ok(request.headers, request.app.state.token):
            return error_response(401, "unauthorized", "Missing or wrong bearer token. Send 'Authorization: Bearer "
                                  "<token>'; `dbg-bridge token` prints it.", {"WWW-Authenticate": "Bearer"})
        if human is not None and not is_human(request.headers, request.app.state.human_key):
            request.app.state.bridge.audit.human("refused", None, action=human, by="agent", path=request.url.path,
                                                 code="human_only")
            refused = human_only(human)
            return error_response(refused.status, refused.code, refused.message)
        service: SkillService | None = request.app.state.bridge.skills
        if service is None:
            return error_response(503, "not_available", "Skills are not set up on this bridge.")
        try:
            data: dict[str, Any] = {}
            if body:
                data = await read_json_object(request, BODY_LIMIT)
            out = await handler(service, request, data)
        except HTTPError as exc:
            return error_response(exc.status, exc.code, exc.message)
        except BridgeError as exc:
            return error_response(STATUS.get(exc.code, 400), exc.code, str(exc).split("] ", 1)[-1])
        return out if isinstance(out, Response) else JSONResponse(out)
    return route


def _str(data: dict[str, Any], key: str, required: bool = False, limit: int = 4096) -> str | None:
    value = data.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value or len(value) > limit:
        raise HTTPError(400, "invalid_argument", f"`{key}` must be a non-empty string of at most {limit} characters.")
    return value


def _until(data: dict[str, Any]) -> Until | None:
    raw = data.get("until")
    if raw is None:
        return None
    if isinstance(raw, str):
        raw = {"text": raw}
    if not isinstance(raw, dict) or not any(isinstance(raw.get(k), str) and raw[k] for k in ("text", "selector",
                                                                                             "window")):
        raise HTTPError(400, "invalid_argument", "`until` is {\"text\": …}, {\"selector\": …} or {\"window\": …} "
                                                 "(what shows it worked).")
    return Until(text=raw.get("text"), selector=raw.get("selector"), window=raw.get("window"))


def _origins(data: dict[str, Any]) -> tuple[str, ...]:
    """`confirmOrigins`: other origins the human confirmed a recorded skill's goto steps may go to."""
    raw = data.get("confirmOrigins") or []
    if not isinstance(raw, list) or len(raw) > 20 or not all(isinstance(o, str) and len(o) <= 200 for o in raw):
        raise HTTPError(400, "invalid_argument", "`confirmOrigins` is a list of at most 20 origins "
                                                 "(http(s)://host:port).")
    return tuple(o.rstrip("/") for o in raw)


async def list_skills(s: SkillService, request: Request, _: dict[str, Any]) -> Any:
    scope = request.query_params.get("scope")
    return {"skills": [k.summary() for k in await s.skills.list(scope)]}


async def show_skill(s: SkillService, request: Request, _: dict[str, Any]) -> Any:
    return (await s.skills.get(request.path_params["name"])).model_dump(mode="json", exclude_none=True)


async def put_skill(s: SkillService, request: Request, data: dict[str, Any]) -> Any:
    check_name(request.path_params["name"])
    skill = parse(data, request.path_params["name"])
    return (await s.skills.save(skill)).summary()


async def delete_skill(s: SkillService, request: Request, _: dict[str, Any]) -> Any:
    name = request.path_params["name"]
    if not await s.skills.delete(name):
        await s.skills.get(name)  # the unknown_skill error, with the names there are
    return {"deleted": name}


async def run_skill(s: SkillService, request: Request, data: dict[str, Any]) -> Any:
    params = data.get("params") or {}
    if not isinstance(params, dict) or not all(isinstance(k, str) and isinstance(v, (str, int, float))
                                               for k, v in params.items()):
        raise HTTPError(400, "invalid_argument", "`params` is an object of name → string value.")
    try:
        return await s.run(request.path_params["name"], {k: str(v) for k, v in params.items()},
                           _str(data, "pageId", limit=64))
    except BridgeError as exc:
        if exc.code in ("skill_step_failed", "stop_condition_not_met"):  # the skill ran and failed: not bad input
            return {"skill": request.path_params["name"], "state": "failed",
                    "error": {"code": exc.code, "message": str(exc).split("] ", 1)[-1]}}
        raise


async def save_from_run(s: SkillService, request: Request, data: dict[str, Any]) -> Any:
    from bridge.skills import trace as skill_trace
    from bridge.skills.from_run import skill_from_run

    name = request.path_params["name"]
    check_name(name)
    run = _str(data, "run", required=True, limit=80) or ""
    path = s.runs_dir / f"{run}.jsonl"
    if not re.match(r"^[A-Za-z0-9_-]+$", run) or not path.is_file():
        raise HTTPError(404, "unknown_run", f"No run {run[:80]!r} in {s.runs_dir} (`dbg-bridge runs` lists them).")
    return (await s.skills.save(skill_from_run(name, skill_trace.read(path), s.origin_of))).summary()


async def start_recording(s: SkillService, request: Request, data: dict[str, Any]) -> Any:
    name = _str(data, "name", required=True, limit=80) or ""
    check_name(name)
    if data.get("desktop") is True:
        return await s.record_desktop(name)
    rec = await s.recordings.start(s.tab_of(_str(data, "pageId", limit=64)), name, by="terminal",
                                   overwrite=data.get("overwrite") is True)
    return rec.view()


async def show_recording(s: SkillService, request: Request, _: dict[str, Any]) -> Any:
    rec = s.recordings.get(request.path_params["name"])
    since = parse_count(request.query_params.get("since"), "`since` (a step count)", 10**9, code="invalid_argument")
    wait = min(MAX_WAIT, parse_seconds(request.query_params.get("wait"), "`wait`", 86400, code="invalid_argument"))
    if wait and rec.state == "recording" and len(rec.steps) <= since:
        try:
            await asyncio.wait_for(rec.changed.wait(), wait)
        except asyncio.TimeoutError:
            pass
    return rec.view(since)


async def stop_recording(s: SkillService, request: Request, data: dict[str, Any]) -> Any:
    if s.desktop_recording == request.path_params["name"]:
        return await s.stop_desktop(request.path_params["name"], _until(data))
    rec = await s.recordings.stop(request.path_params["name"], _until(data), confirmed=_origins(data))
    return rec.view()


async def list_memory(s: SkillService, request: Request, _: dict[str, Any]) -> Any:
    scope = request.query_params.get("scope")
    out: dict[str, Any] = {"facts": [f.model_dump() for f in await s.memory.list(scope)]}
    if scope:
        out["context"] = await s.memory.context(scope)
    return out


async def edit_fact(s: SkillService, request: Request, data: dict[str, Any]) -> Any:
    return (await s.memory.edit(request.path_params["id"], _str(data, "text", limit=300),
                                _str(data, "kind", limit=20), via="terminal")).model_dump()


async def forget_fact(s: SkillService, request: Request, _: dict[str, Any]) -> Any:
    await s.memory.forget(request.path_params["id"])
    return {"forgotten": request.path_params["id"]}


routes = [
    Route("/v1/skills", endpoint(list_skills), methods=["GET"]),
    Route("/v1/skills/{name}", endpoint(show_skill), methods=["GET"]),
    Route("/v1/skills/{name}", endpoint(put_skill, body=True, human="Writing a skill"), methods=["PUT"]),
    Route("/v1/skills/{name}", endpoint(delete_skill, human="Deleting a skill"), methods=["DELETE"]),
    Route("/v1/skills/{name}/run", endpoint(run_skill, body=True), methods=["POST"]),
    Route("/v1/skills/{name}/from-run", endpoint(save_from_run, body=True, human="Saving a run as a skill"),
          methods=["POST"]),
    Route("/v1/recordings", endpoint(start_recording, body=True, human="Starting a recording"), methods=["POST"]),
    Route("/v1/recordings/{name}", endpoint(show_recording), methods=["GET"]),
    Route("/v1/recordings/{name}/stop", endpoint(stop_recording, body=True, human="Stopping a recording"),
          methods=["POST"]),
    Route("/v1/memory", endpoint(list_memory), methods=["GET"]),
    Route("/v1/memory/{id}", endpoint(edit_fact, body=True, human="Editing a memory fact"), methods=["PATCH"]),
    Route("/v1/memory/{id}", endpoint(forget_fact, human="Forgetting a memory fact"), methods=["DELETE"]),
]
