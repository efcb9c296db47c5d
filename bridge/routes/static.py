"""The injected client (assembled from its parts in `bridge.inject`) and the built-in demo app."""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import Route

from bridge.server.http import error_response
from bridge.inject import client_script

DEMO = Path(__file__).resolve().parent.parent / "demo"
DEMO_PAGES = {"": "index.html", "frame": "frame.html", "nested": "nested.html"}
NO_CACHE = {"Cache-Control": "no-cache"}


async def client_js(request: Request) -> Response:
    return Response(client_script(), media_type="text/javascript; charset=utf-8", headers=NO_CACHE)


async def demo(request: Request) -> Response:
    name = DEMO_PAGES.get(request.path_params.get("name", ""))
    if name is None:
        return error_response(404, "not_found", f"No demo page '{request.path_params['name']}'. Try /demo.")
    return FileResponse(DEMO / name, media_type="text/html; charset=utf-8", headers=NO_CACHE)


async def favicon(request: Request) -> Response:
    return Response(status_code=204)


routes = [
    Route("/favicon.ico", favicon, methods=["GET"]),
    Route("/inject/dbg_client.js", client_js, methods=["GET"]),
    Route("/demo", demo, methods=["GET"]),
    Route("/demo/{name}", demo, methods=["GET"]),
]
