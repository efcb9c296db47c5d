"""The Python dev-server middleware: real Flask (WSGI) and FastAPI (ASGI) servers get the client into their HTML,
leave JSON and streamed responses alone, and the pages connect to the bridge."""

import asyncio
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn
from fastapi import FastAPI
from fastapi.responses import HTMLResponse, StreamingResponse
from flask import Flask, Response
from werkzeug.serving import make_server

from tests.support import CONNECTED, ok, wait_until

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "plugins" / "python"))
from dbg_inject import DbgInjectASGI, DbgInjectWSGI  # noqa: E402

PAGE = "<!doctype html><html><head><title>{name} app</title></head><body><h1>{name}</h1></body></html>"


def flask_app(bridge_base: str, enabled: bool) -> Flask:
    app = Flask("demo")

    @app.get("/")
    def index() -> str:
        return PAGE.format(name="flask")

    @app.get("/api")
    def api() -> dict:
        return {"html": "<head>not a page</head>"}

    @app.get("/stream")
    def stream() -> Response:
        return Response((chunk for chunk in ("<html><head>", "</head><body>streamed</body></html>")),
                        mimetype="text/html")

    app.wsgi_app = DbgInjectWSGI(app.wsgi_app, enabled=enabled, bridge=bridge_base, attach="flask")
    return app


def fastapi_app(bridge_base: str, enabled: bool) -> FastAPI:
    app = FastAPI()

    @app.get("/", response_class=HTMLResponse)
    def index() -> str:
        return PAGE.format(name="fastapi")

    @app.get("/api")
    def api() -> dict:
        return {"html": "<head>not a page</head>"}

    @app.get("/stream")
    def stream() -> StreamingResponse:
        async def gen():
            yield b"<html><head>"
            yield b"</head><body>streamed</body></html>"
        return StreamingResponse(gen(), media_type="text/html")

    app.add_middleware(DbgInjectASGI, enabled=enabled, bridge=bridge_base, attach="fastapi")
    return app


class Served:
    def __init__(self, base: str, stop) -> None:
        self.base, self.stop = base, stop


def serve_wsgi(app) -> Served:
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()

    def stop() -> None:
        server.shutdown()
        thread.join(10)

    return Served(f"http://127.0.0.1:{server.server_port}", stop)


def serve_asgi(app) -> Served:
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=lambda: asyncio.run(server.serve()), daemon=True)
    thread.start()
    wait_until(lambda: server.started, 10, what="uvicorn to start")
    port = server.servers[0].sockets[0].getsockname()[1]

    def stop() -> None:
        server.should_exit = True
        thread.join(10)

    return Served(f"http://127.0.0.1:{port}", stop)


@pytest.fixture(scope="module", params=["flask", "fastapi"])
def served(request, bridge) -> Iterator[tuple[str, Served, Served]]:
    if request.param == "flask":
        on, off = serve_wsgi(flask_app(bridge.base, True)), serve_wsgi(flask_app(bridge.base, False))
    else:
        on, off = serve_asgi(fastapi_app(bridge.base, True)), serve_asgi(fastapi_app(bridge.base, False))
    yield request.param, on, off
    on.stop()
    off.stop()


def test_html_gets_the_client_at_the_top_of_head_with_a_correct_length(served, bridge):
    name, on, _ = served
    r = httpx.get(on.base + "/")
    tag = f'<head><script src="{bridge.base}/inject/dbg_client.js" data-attach="{name}"></script><title>'
    assert tag in r.text
    assert int(r.headers["content-length"]) == len(r.content)


def test_json_and_streamed_responses_are_untouched_and_disabled_means_off(served):
    _, on, off = served
    assert httpx.get(on.base + "/api").content == httpx.get(off.base + "/api").content
    streamed = httpx.get(on.base + "/stream")
    assert streamed.text == "<html><head></head><body>streamed</body></html>"
    assert "dbg_client.js" not in httpx.get(off.base + "/").text


def test_the_page_connects_to_the_bridge_with_its_attach_kind(served, context, mcp):
    name, on, _ = served
    page = context.new_page()
    page.goto(on.base + "/")
    page.wait_for_function(CONNECTED, timeout=10000)
    pid = page.evaluate("window.__dbg.pageId")
    row = next(r for r in mcp.pages() if r["pageId"] == pid)
    assert row["attach"] == name and row["title"] == f"{name} app"
    assert ok(mcp.call("page_exec", {"pageId": pid, "code": "document.querySelector('h1').textContent"}))["result"] == name
