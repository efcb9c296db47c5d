"""`/v1/skills`, `/v1/recordings` and `/v1/memory`: the skills and memory over HTTP, bearer token as /mcp, every
failure in the bridge's one error shape (`{"error": {"code", "message"}}`), bad input a 4xx."""

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
from bridge.server.http import HTTPError, error_response, read_json_object
from bridge.server.security import bearer_ok

BODY_LIMIT = 1_000_000
#: A long poll on a recording answers within this many seconds (a change answers at once).
MAX_WAIT = 25.0
STATUS = {"unknown_skill": 404, "unknown_recording": 404, "unknown_fact": 404, "unknown_page": 404,
          "no_page": 409, "ambiguous_page": 409, "already_recording": 409, "page_gone": 409}

Handler = Callable[[SkillService, Request, dict[str, Any]], Awaitable[Any]]


def endpoint(handler: Handler, body: bool = False) -> Callable[[Request], Awaitable[Response]]:
    async def route(request: Request) -> Response:
        if not bearer_ok(request.headers, request.app.state.token):
            return error_response(401, "unauthorized", "Missing or wrong bearer token. Send 'Authorization: Bearer "
                                  "<token>'; `dbg-bridge token` prints it.", {"WWW-Authenticate": "Bearer"})
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
    rec = await s.recordings.start(s.page(_str(data, "pageId", limit=64)), name)
    return rec.view()


async def show_recording(s: SkillService, request: Request, _: dict[str, Any]) -> Any:
    rec = s.recordings.get(request.path_params["name"])
    try:
        since = int(request.query_params.get("since", "0"))
        wait = min(MAX_WAIT, max(0.0, float(request.query_params.get("wait", "0"))))
    except ValueError:
        raise HTTPError(400, "invalid_argument", "`since` is a step count and `wait` seconds.") from None
    if wait and rec.state == "recording" and len(rec.steps) <= since:
        try:
            await asyncio.wait_for(rec.changed.wait(), wait)
        except asyncio.TimeoutError:
            pass
    return rec.view(since)


async def stop_recording(s: SkillService, request: Request, data: dict[str, Any]) -> Any:
    if s.desktop_recording == request.path_params["name"]:
        return await s.stop_desktop(request.path_params["name"], _until(data))
    rec = await s.recordings.stop(request.path_params["name"], _until(data))
    return rec.view()


async def list_memory(s: SkillService, request: Request, _: dict[str, Any]) -> Any:
    scope = request.query_params.get("scope")
    out: dict[str, Any] = {"facts": [f.model_dump() for f in await s.memory.list(scope)]}
    if scope:
        out["context"] = await s.memory.context(scope)
    return out


async def edit_fact(s: SkillService, request: Request, data: dict[str, Any]) -> Any:
    return (await s.memory.edit(request.path_params["id"], _str(data, "text", limit=300),
                                _str(data, "kind", limit=20))).model_dump()


async def forget_fact(s: SkillService, request: Request, _: dict[str, Any]) -> Any:
    await s.memory.forget(request.path_params["id"])
    return {"forgotten": request.path_params["id"]}


routes = [
    Route("/v1/skills", endpoint(list_skills), methods=["GET"]),
    Route("/v1/skills/{name}", endpoint(show_skill), methods=["GET"]),
    Route("/v1/skills/{name}", endpoint(put_skill, body=True), methods=["PUT"]),
    Route("/v1/skills/{name}", endpoint(delete_skill), methods=["DELETE"]),
    Route("/v1/skills/{name}/run", endpoint(run_skill, body=True), methods=["POST"]),
    Route("/v1/skills/{name}/from-run", endpoint(save_from_run, body=True), methods=["POST"]),
    Route("/v1/recordings", endpoint(start_recording, body=True), methods=["POST"]),
    Route("/v1/recordings/{name}", endpoint(show_recording), methods=["GET"]),
    Route("/v1/recordings/{name}/stop", endpoint(stop_recording, body=True), methods=["POST"]),
    Route("/v1/memory", endpoint(list_memory), methods=["GET"]),
    Route("/v1/memory/{id}", endpoint(edit_fact, body=True), methods=["PATCH"]),
    Route("/v1/memory/{id}", endpoint(forget_fact), methods=["DELETE"]),
]
