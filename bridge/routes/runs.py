"""The runs API (bearer token as /mcp; Host/Origin checked like every route; errors in the one JSON shape):
POST /v1/runs, GET /v1/runs, GET /v1/runs/{id}, GET /v1/runs/{id}/events (SSE, replayable from Last-Event-ID),
POST /v1/runs/{id}/cancel, POST /v1/runs/{id}/resume (the takeover's answer).

The token is the agent's: with it alone a run's `allow` can only narrow what the human granted, and a takeover is
not answered (403 human_only). The human's terminal adds its human key (bridge/server/principals.py)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from bridge.runs.budgets import RunRequest
from bridge.runs.runs import Run
from bridge.runs.takeover import ACTIONS
from bridge.errors import BridgeError
from bridge.server.http import HTTPError, error_response, parse_count, read_json_object
from bridge.pages.protocol import explain
from bridge.server.principals import AGENT, HUMAN_VIA, human_only, who
from bridge.server.security import bearer_ok

MAX_BODY = 64 * 1024
MAX_NOTE = 4000
#: The largest event sequence number a cursor may name (a run keeps far fewer events).
MAX_SEQ = 10**15


def _guarded(handler: Callable[[Request], Awaitable[Response]]) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        if not bearer_ok(request.headers, request.app.state.token):
            return error_response(401, "unauthorized", "Send 'Authorization: Bearer <token>'; `dbg-bridge token` "
                                                       "prints it.", headers={"WWW-Authenticate": 'Bearer realm="dbg-bridge"'})
        try:
            return await handler(request)
        except HTTPError as exc:
            return error_response(exc.status, exc.code, exc.message)

    return endpoint


async def json_body(request: Request) -> dict[str, Any]:
    return await read_json_object(request, MAX_BODY)


def start(agent: Any, data: dict[str, Any], by: str = AGENT) -> Run:
    """Parse a run request and start it for `by` (HTTPError for bad input, no model, or an agent's `allow` beyond
    the human's grant)."""
    try:
        request = RunRequest.model_validate(data)
    except ValidationError as exc:
        raise HTTPError(400, "invalid_request", f"{explain(exc)}. Send {{task, model?, model_url?, model_key?, budgets?, dryrun?, allow?}}.") \
            from None
    try:
        return agent.start_run(request, by)
    except BridgeError as exc:
        raise HTTPError(403 if exc.code == "human_only" else 422, exc.code, str(exc).split("] ", 1)[-1]) from None


def find(agent: Any, run_id: str) -> Run:
    run = agent.runs.get(run_id)
    if run is None:
        raise HTTPError(404, "unknown_run", f"No live run {run_id!r} (GET /v1/runs lists them; finished runs older "
                                            "than this bridge are in their traces: `dbg-bridge runs show ID`).")
    return run


def answer(run: Run, data: dict[str, Any], via: str) -> dict[str, Any]:
    """The takeover's answer: {action: resume|skip|abort, note?}, given by the human at `via` (cockpit, terminal)."""
    if via not in HUMAN_VIA:
        raise human_only("Answering a takeover (the run waits for the human)")
    action, note = data.get("action", "resume"), data.get("note", "")
    if action not in ACTIONS:
        raise HTTPError(400, "invalid_request", f"action must be one of {', '.join(ACTIONS)}, got {action!r}.")
    if not isinstance(note, str) or len(note) > MAX_NOTE:
        raise HTTPError(400, "invalid_request", f"note must be a string of at most {MAX_NOTE} characters.")
    t = run.takeover
    if t is None or t.answered:
        raise HTTPError(409, "not_paused", f"Run {run.id} is not waiting for the human (state {run.state}).")
    wanted = data.get("takeoverId")
    if wanted is not None and wanted != t.id:
        raise HTTPError(409, "not_paused", f"Takeover {wanted!r} is over; the open one is {t.id}.")
    t.answer(action, note, via)
    return {"id": run.id, "takeoverId": t.id, "action": action}


async def create(request: Request) -> Response:
    run = start(request.app.state.agent, await json_body(request), who(request.headers, request.app.state.human_key))
    return JSONResponse({"id": run.id, "state": run.state, "trace": str(run.trace_path or "")}, status_code=201)


async def listing(request: Request) -> Response:
    return JSONResponse({"runs": request.app.state.agent.runs.rows()})


async def one(request: Request) -> Response:
    return JSONResponse(find(request.app.state.agent, request.path_params["id"]).detail())


async def cancel(request: Request) -> Response:
    run = find(request.app.state.agent, request.path_params["id"])
    if not request.app.state.agent.runs.cancel(run):
        raise HTTPError(409, "run_over", f"Run {run.id} is over ({run.state}).")
    return JSONResponse({"id": run.id, "cancelling": True}, status_code=202)


async def resume(request: Request) -> Response:
    run = find(request.app.state.agent, request.path_params["id"])
    return JSONResponse(answer(run, await json_body(request), who(request.headers, request.app.state.human_key)))


def sse(run: Run, after: int) -> StreamingResponse:
    async def stream() -> AsyncIterator[bytes]:
        yield b"retry: 2000\n\n"
        async for e in run.follow(after):
            yield f"id: {e['seq']}\ndata: {json.dumps(e, ensure_ascii=False, default=str)}\n\n".encode()

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


def last_event(request: Request) -> int:
    """The cursor: Last-Event-ID, else ?after= (an event's sequence number; 400 for anything else)."""
    header = request.headers.get("last-event-id")
    if header:
        return parse_count(header, "Last-Event-ID (an event's sequence number)", MAX_SEQ, code="invalid_request")
    return parse_count(request.query_params.get("after"), "?after= (an event's sequence number)", MAX_SEQ,
                       code="invalid_request")


async def events(request: Request) -> Response:
    run = find(request.app.state.agent, request.path_params["id"])
    return sse(run, last_event(request))


routes = [
    Route("/v1/runs", _guarded(create), methods=["POST"]),
    Route("/v1/runs", _guarded(listing), methods=["GET"]),
    Route("/v1/runs/{id}", _guarded(one), methods=["GET"]),
    Route("/v1/runs/{id}/events", _guarded(events), methods=["GET"]),
    Route("/v1/runs/{id}/cancel", _guarded(cancel), methods=["POST"]),
    Route("/v1/runs/{id}/resume", _guarded(resume), methods=["POST"]),
]
