"""The injected client and the built-in demo app (the cockpit at / lives in cockpit.py)."""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import Route

from bridge.http import error_response

STATIC = Path(__file__).resolve().parent.parent / "static"
CLIENT = Path(__file__).resolve().parents[2] / "inject" / "dbg_client.js"
DEMO_PAGES = {"": "index.html", "frame": "frame.html", "nested": "nested.html"}
NO_CACHE = {"Cache-Control": "no-cache"}


async def client_js(request: Request) -> Response:
    return FileResponse(CLIENT, media_type="text/javascript; charset=utf-8", headers=NO_CACHE)


async def demo(request: Request) -> Response:
    name = DEMO_PAGES.get(request.path_params.get("name", ""))
    if name is None:
        return error_response(404, "not_found", f"No demo page '{request.path_params['name']}'. Try /demo.")
    return FileResponse(STATIC / "demo" / name, media_type="text/html; charset=utf-8", headers=NO_CACHE)


async def favicon(request: Request) -> Response:
    return Response(status_code=204)


routes = [
    Route("/favicon.ico", favicon, methods=["GET"]),
    Route("/inject/dbg_client.js", client_js, methods=["GET"]),
    Route("/demo", demo, methods=["GET"]),
    Route("/demo/{name}", demo, methods=["GET"]),
]
