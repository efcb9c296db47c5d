"""The cockpit's Runs tab: the same runs as /v1/runs, for the human at the cockpit (its cookie, not the token):
start one, follow it live, answer its takeover, cancel it, read past runs from their traces."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from bridge.runs import trace as traces
from bridge.state import BridgeState
from bridge.server.http import HTTPError, error_response
from bridge.server.principals import COCKPIT
from bridge.routes import runs as api
from bridge.cockpit.routes import HEADERS, _action, _refused


async def listing(request: Request) -> Response:
    refused = _refused(request)
    if refused is not None:
        return refused
    return JSONResponse({"runs": request.app.state.agent.runs.rows()}, headers=HEADERS)


async def events(request: Request) -> Response:
    """One live run's events (SSE, replayable from Last-Event-ID); a past run's come from /trace."""
    refused = _refused(request)
    if refused is not None:
        return refused
    run = request.app.state.agent.runs.get(request.path_params["id"])
    try:
        after = api.last_event(request)
    except HTTPError as exc:
        return error_response(exc.status, exc.code, exc.message, headers=HEADERS)
    if run is None:
        return error_response(404, "unknown_run", f"No live run {request.path_params['id']!r}: GET "
                                                  "/cockpit/runs/ID/trace has a past run's events.", headers=HEADERS)
    return api.sse(run, after)


async def trace(request: Request) -> Response:
    """Every event of a run as JSON, finished or not: its trace file (the whole run), else what memory holds."""
    refused = _refused(request)
    if refused is not None:
        return refused
    agent, run_id = request.app.state.agent, request.path_params["id"]
    if not run_id.replace("-", "").isalnum():
        return error_response(404, "unknown_run", f"No run {run_id!r}.", headers=HEADERS)
    run = agent.runs.get(run_id)
    path = traces.runs_dir(agent.settings.config_dir) / f"{run_id}.jsonl" if agent.settings.config_dir else None
    if path is not None and path.is_file():
        found = traces.read(path)
    elif run is not None:
        found = list(run.events)
    else:
        return error_response(404, "unknown_run", f"No run {run_id!r} (GET /cockpit/runs lists them).",
                              headers=HEADERS)
    return JSONResponse({"events": found, "live": run is not None and not run.over}, headers=HEADERS)


async def image(request: Request) -> Response:
    """A screenshot a live run's step took (the newest few are kept)."""
    import base64

    refused = _refused(request)
    if refused is not None:
        return refused
    run = request.app.state.agent.runs.get(request.path_params["id"])
    step = request.path_params["step"]
    kept = run.images.get(int(step)) if run is not None and step.isascii() and step.isdigit() and len(step) < 10 \
        else None
    if kept is None:
        return error_response(404, "no_image", "No screenshot kept for that step (a run keeps its newest "
                                               "20 while it is in memory).", headers=HEADERS)
    return Response(base64.b64decode(kept[1]), media_type=kept[0], headers=HEADERS)


async def start(state: BridgeState, data: dict[str, Any], request: Request) -> dict[str, Any]:
    run = api.start(request.app.state.agent, {k: v for k, v in data.items() if k in ("task", "dryrun", "model",
                                                                                     "allow")}, COCKPIT)
    state.audit.human("run", None, action="start", run=run.id, task=run.request.task, allow=run.request.allow,
                      via=COCKPIT)
    return {"id": run.id}


async def cancel(state: BridgeState, data: dict[str, Any], request: Request) -> dict[str, Any]:
    run = api.find(request.app.state.agent, str(data.get("id", "")))
    if not request.app.state.agent.runs.cancel(run):
        raise HTTPError(409, "run_over", f"Run {run.id} is over ({run.state}).")
    state.audit.human("run", None, action="cancel", run=run.id)
    return {"id": run.id, "cancelling": True}


async def resume(state: BridgeState, data: dict[str, Any], request: Request) -> dict[str, Any]:
    run = api.find(request.app.state.agent, str(data.get("id", "")))
    return api.answer(run, {k: v for k, v in data.items() if k in ("action", "note", "takeoverId")}, COCKPIT)


routes = [
    Route("/cockpit/runs", listing, methods=["GET"]),
    Route("/cockpit/runs/{id}/events", events, methods=["GET"]),
    Route("/cockpit/runs/{id}/trace", trace, methods=["GET"]),
    Route("/cockpit/runs/{id}/image/{step}", image, methods=["GET"]),
    Route("/cockpit/runs/start", _action(start), methods=["POST"]),
    Route("/cockpit/runs/cancel", _action(cancel), methods=["POST"]),
    Route("/cockpit/runs/resume", _action(resume), methods=["POST"]),
]
