"""Against the app served in this process by a real uvicorn (a socket is needed): the Host and Origin checks on the
page WebSocket, forged results against live pages, wrong secrets on the page streams, malformed WebSocket messages.
The plain-HTTP checks are in tests/http/test_security.py; the process's own log in e2e/test_security.py."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import httpx
import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect as ws_connect

from tests.http.bridge_app import Served
from tests.support import Bridges, assert_error_shape, auth, ok, text_of, wait_until

EVIL = "http://evil.example"
DEV = "http://localhost:5173"
EXTRA = "https://app.example.test"


@pytest.fixture(scope="module")
def http(bridge: Served) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=bridge.base, timeout=15) as client:
        yield client


@pytest.fixture(scope="module")
def allowing(served: Bridges) -> Served:
    """A second bridge started with extra page origins allowed."""
    return served(name="allow", allow_origins=[EXTRA, "http://lan.example:*"])


def register(http: httpx.Client, **headers: str) -> httpx.Response:
    """Register as a browser page would: the url it claims is on the Origin it sends."""
    url = headers.get("Origin", "http://localhost:5173") + "/"
    return http.post("/bridge/register", content=json.dumps({"url": url}),
                     headers={"Content-Type": "text/plain", **headers})


def fresh_credentials(http: httpx.Client) -> tuple[str, str]:
    reply = register(http).json()
    return reply["instanceId"], reply["secret"]


def ws_url(bridge: Served, instance_id: str, secret: str, host: str | None = None) -> str:
    return f"ws://{host or f'127.0.0.1:{bridge.port}'}/bridge/ws?i={instance_id}&t={secret}"


def open_ws(bridge: Served, url: str, origin: str | None = None):
    """A WebSocket to the bridge's socket whatever host the URL names (the URL only sets the Host header)."""
    sock = socket.create_connection(("127.0.0.1", bridge.port), timeout=10)
    headers = {"Origin": origin} if origin else None
    return ws_connect(url, sock=sock, additional_headers=headers, open_timeout=10)




def test_a_websocket_with_a_foreign_host_is_refused_even_with_valid_credentials(bridge, http):
    instance_id, secret = fresh_credentials(http)
    with pytest.raises(InvalidStatus) as info:
        open_ws(bridge, ws_url(bridge, instance_id, secret, host=f"evil.example:{bridge.port}"))
    assert info.value.response.status_code == 403
    # The same credentials with the right Host connect: it was the Host that was refused.
    with open_ws(bridge, ws_url(bridge, instance_id, secret)) as ws:
        assert ws.protocol.state.name == "OPEN"


def test_a_foreign_origin_websocket_is_refused(bridge, http):
    instance_id, secret = fresh_credentials(http)
    with pytest.raises(InvalidStatus) as info:
        open_ws(bridge, ws_url(bridge, instance_id, secret), origin=EVIL)
    assert info.value.response.status_code == 403


def test_a_loopback_dev_origin_may_use_the_page_channel(bridge, http):
    response = register(http, Origin=DEV)
    assert response.status_code == 200 and response.json()["type"] == "registered"
    assert response.headers["access-control-allow-origin"] == DEV
    with open_ws(bridge, ws_url(bridge, response.json()["instanceId"], response.json()["secret"]), origin=DEV) as ws:
        assert ws.protocol.state.name == "OPEN"


def test_an_allowed_extra_origin_may_open_the_websocket_but_not_reach_mcp(allowing):
    reply = httpx.post(allowing.base + "/bridge/register", content=b"{}", headers={"Origin": EXTRA}).json()
    with open_ws(allowing, ws_url(allowing, reply["instanceId"], reply["secret"]), origin=EXTRA) as ws:
        assert ws.protocol.state.name == "OPEN"
    response = httpx.post(allowing.mcp_url, content=b"{}", headers={"Origin": EXTRA, **auth(allowing)})
    assert_error_shape(response, 403, "bad_origin")


def test_the_right_token_opens_mcp_and_sessions(bridge, http, mcp):
    assert http.get("/bridge/sessions", headers=auth(bridge)).status_code == 200
    assert "pages" in ok(mcp.call("page_list"))


# ---- forged results ---------------------------------------------------------------------------


def test_a_forged_result_is_refused_and_the_call_still_gets_the_real_answer(bridge, http, mcp, pages):
    gate = pages.gate()
    victim = pages.connect(bridge.base, handler=gate.handler)
    other = pages.connect(bridge.base)
    future = mcp.start("page_exec", {"code": "secretThing()", "pageId": victim.page_id, "timeout": 30})
    request_id = gate.next_frame()["requestId"]
    forged = {"type": "result", "requestId": request_id, "ok": True, "result": "forged"}

    # The victim's id with a wrong (well-formed) secret.
    wrong = http.post("/bridge/result", content=json.dumps(
        {"instanceId": victim.instance_id, "secret": "A" * 43, **forged}))
    assert_error_shape(wrong, 403, "forbidden")
    # The victim's id with another page's valid secret.
    swapped = http.post("/bridge/result", content=json.dumps(
        {"instanceId": victim.instance_id, "secret": other.secret, **forged}))
    assert_error_shape(swapped, 403, "forbidden")
    # Another page's own valid credentials, answering the victim's request.
    stolen = http.post("/bridge/result", content=json.dumps(
        {"instanceId": other.instance_id, "secret": other.secret, **forged}))
    assert_error_shape(stolen, 409, "stale_result")
    # The same over the other page's WebSocket; a frames message after it proves it was processed.
    pages.send(other, forged)
    pages.send(other, {"type": "frames", "frames": [], "url": "http://127.0.0.1/after-forgery"})
    wait_until(lambda: any(r["url"] == "http://127.0.0.1/after-forgery" for r in
                           http.get("/bridge/sessions", headers=auth(bridge)).json()["pages"]), what="frames update")

    assert not future.done()
    gate.open()
    result = future.result(timeout=15)
    assert ok(result)["result"] == "the real answer", text_of(result)


@pytest.mark.parametrize("secret", ["A" * 43, "%C3%A9" * 20, ""])
def test_a_stream_with_a_wrong_secret_is_refused_and_told_to_register_again(bridge, http, secret):
    instance_id, _ = fresh_credentials(http)
    response = http.get(f"/bridge/events?i={instance_id}&t={secret}")
    error = assert_error_shape(response, 401, "unknown_page")
    assert "register again" in error["message"]
    with open_ws(bridge, ws_url(bridge, instance_id, secret)) as ws:
        with pytest.raises(Exception):
            ws.recv(timeout=10)
        assert ws.close_code == 4401


def test_a_malformed_websocket_message_is_ignored_and_the_page_keeps_working(bridge, mcp, pages):
    page = pages.connect(bridge.base)
    for junk in ("{not json", "[]", json.dumps({"type": "result"}), "[" * 100_000 + "]" * 100_000):
        pages.run(page._ws.send(junk))
    assert ok(mcp.call("page_exec", {"code": "1+1", "pageId": page.page_id}))["result"] == 2
