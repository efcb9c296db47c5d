"""The injected client, the built-in demo app and the start page."""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
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


async def index(request: Request) -> Response:
    base = str(request.base_url).rstrip("/")
    return HTMLResponse(
        "<!doctype html><meta charset=utf-8><title>dbg-bridge</title>"
        "<body style='font:15px system-ui;margin:2em;max-width:46em'>"
        "<h1>dbg-bridge is running</h1>"
        f"<p>MCP endpoint: <code>{base}/mcp</code> (bearer token: run <code>dbg-bridge token</code>).</p>"
        f"<p>Add the client to any page: <code>&lt;script src=\"{base}/inject/dbg_client.js\"&gt;&lt;/script&gt;</code></p>"
        f"<p>Or try the <a href='/demo'>built-in demo page</a>.</p>",
        headers=NO_CACHE,
    )


async def favicon(request: Request) -> Response:
    return Response(status_code=204)


routes = [
    Route("/", index, methods=["GET"]),
    Route("/favicon.ico", favicon, methods=["GET"]),
    Route("/inject/dbg_client.js", client_js, methods=["GET"]),
    Route("/demo", demo, methods=["GET"]),
    Route("/demo/{name}", demo, methods=["GET"]),
]
