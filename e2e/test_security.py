"""Against a real bridge process: Host (DNS rebinding), Origin, CORS, the token, forged results, secrets, bad bodies."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import httpx
import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect as ws_connect

from bridge.cli import banner
from bridge.settings import Settings
from tests.support import BridgeProcess, ok, text_of, wait_until

EVIL = "http://evil.example"
DEV = "http://localhost:5173"
EXTRA = "https://app.example.test"


@pytest.fixture(scope="module")
def http(bridge: BridgeProcess) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=bridge.base, timeout=15) as client:
        yield client


@pytest.fixture(scope="module")
def allow_bridge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BridgeProcess]:
    """A second bridge started with extra page origins allowed."""
    proc = BridgeProcess(tmp_path_factory.mktemp("allow"), "--allow-origins", f"{EXTRA},http://lan.example:*").start()
    yield proc
    proc.stop()


def auth(bridge: BridgeProcess) -> dict[str, str]:
    return {"Authorization": f"Bearer {bridge.token}"}


def register(http: httpx.Client, **headers: str) -> httpx.Response:
    """Register as a browser page would: the url it claims is on the Origin it sends."""
    url = headers.get("Origin", "http://localhost:5173") + "/"
    return http.post("/bridge/register", content=json.dumps({"url": url}),
                     headers={"Content-Type": "text/plain", **headers})


def fresh_credentials(http: httpx.Client) -> tuple[str, str]:
    reply = register(http).json()
    return reply["instanceId"], reply["secret"]


def ws_url(bridge: BridgeProcess, instance_id: str, secret: str, host: str | None = None) -> str:
    return f"ws://{host or f'127.0.0.1:{bridge.port}'}/bridge/ws?i={instance_id}&t={secret}"


def open_ws(bridge: BridgeProcess, url: str, origin: str | None = None):
    """A WebSocket to the bridge's socket whatever host the URL names (the URL only sets the Host header)."""
    sock = socket.create_connection(("127.0.0.1", bridge.port), timeout=10)
    headers = {"Origin": origin} if origin else None
    return ws_connect(url, sock=sock, additional_headers=headers, open_timeout=10)


def assert_error_shape(response: httpx.Response, status: int, code: str | None = None) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert list(body) == ["error"] and sorted(body["error"]) == ["code", "message"], body
    assert isinstance(body["error"]["code"], str) and body["error"]["code"]
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    if code is not None:
        assert body["error"]["code"] == code
    return body["error"]


# ---- Host: DNS rebinding ----------------------------------------------------------------------

ROUTES = [("POST", "/mcp"), ("POST", "/mcp/mcp"), ("POST", "/bridge/register"), ("GET", "/bridge/events"),
          ("POST", "/bridge/result"), ("GET", "/bridge/sessions"), ("GET", "/bridge/health"), ("POST", "/bridge/audit/flush"),
          ("GET", "/inject/dbg_client.js"), ("GET", "/demo"), ("GET", "/")]


@pytest.mark.parametrize("method, path", ROUTES)
def test_a_foreign_host_gets_421_on_every_route(bridge, http, method, path):
    response = http.request(method, path, headers={"Host": f"evil.example:{bridge.port}", **auth(bridge)},
                            content=b"{}" if method == "POST" else None)
    error = assert_error_shape(response, 421, "bad_host")
    assert f"http://127.0.0.1:{bridge.port}" in error["message"]


@pytest.mark.parametrize("host", ["evil.example", "127.0.0.1", "localhost", "127.0.0.1:{other}", "localhost:{other}",
                                  "localhost.evil.example:{port}", "127.0.0.1.nip.io:{port}", "10.0.0.1:{port}"])
def test_a_host_that_is_not_this_bridge_is_refused(bridge, http, host):
    host = host.format(port=bridge.port, other=bridge.port + 1 if bridge.port < 65535 else 1)
    assert_error_shape(http.get("/bridge/health", headers={"Host": host}), 421, "bad_host")


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "LOCALHOST:{port}", "[::1]:{port}"])
def test_loopback_host_names_with_the_bridge_port_are_accepted(bridge, http, host):
    assert http.get("/bridge/health", headers={"Host": host.format(port=bridge.port)}).status_code == 200


def test_per_tab_localhost_names_reach_only_the_page_channel(bridge, http):
    host = {"Host": f"dbg-ab123.localhost:{bridge.port}"}
    assert http.get("/inject/dbg_client.js", headers=host).status_code == 200
    assert_error_shape(http.get("/bridge/health", headers=host), 421, "bad_host")
    assert_error_shape(http.post("/mcp", headers={**host, **auth(bridge)}, content=b"{}"), 421, "bad_host")


def test_a_websocket_with_a_foreign_host_is_refused_even_with_valid_credentials(bridge, http):
    instance_id, secret = fresh_credentials(http)
    with pytest.raises(InvalidStatus) as info:
        open_ws(bridge, ws_url(bridge, instance_id, secret, host=f"evil.example:{bridge.port}"))
    assert info.value.response.status_code == 403
    # The same credentials with the right Host connect: it was the Host that was refused.
    with open_ws(bridge, ws_url(bridge, instance_id, secret)) as ws:
        assert ws.protocol.state.name == "OPEN"


# ---- Origin ---------------------------------------------------------------------------------


def test_a_foreign_origin_gets_403_on_mcp_even_with_the_token(bridge, http):
    error = assert_error_shape(http.post("/mcp", headers={"Origin": EVIL, **auth(bridge)}, content=b"{}"), 403,
                               "bad_origin")
    assert EVIL in error["message"]


@pytest.mark.parametrize("method, path", [("POST", "/bridge/register"), ("GET", "/bridge/events"),
                                          ("POST", "/bridge/result"), ("OPTIONS", "/bridge/register"),
                                          ("GET", "/inject/dbg_client.js")])
def test_a_foreign_origin_gets_403_on_the_page_channel_with_how_to_allow_it(http, method, path):
    response = http.request(method, path, headers={"Origin": EVIL, "Access-Control-Request-Method": "POST"},
                            content=b"{}" if method == "POST" else None)
    error = assert_error_shape(response, 403, "bad_origin")
    assert "--allow-origins" in error["message"]
    assert "access-control-allow-origin" not in response.headers


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


def test_a_loopback_dev_origin_is_refused_on_mcp_and_sessions(bridge, http):
    assert_error_shape(http.post("/mcp", headers={"Origin": DEV, **auth(bridge)}, content=b"{}"), 403, "bad_origin")
    assert_error_shape(http.get("/bridge/sessions", headers={"Origin": DEV, **auth(bridge)}), 403, "bad_origin")


def test_the_bridge_own_origin_may_read_sessions(bridge, http):
    response = http.get("/bridge/sessions", headers={"Origin": f"http://127.0.0.1:{bridge.port}", **auth(bridge)})
    assert response.status_code == 200 and "pages" in response.json()


@pytest.mark.parametrize("origin", ["http://localhost:5173", "http://127.0.0.1:3000", "http://[::1]:8080",
                                    "http://app.localhost:5173", "https://localhost", "http://LOCALHOST:5173"])
def test_every_loopback_origin_is_a_page_origin(http, origin):
    response = register(http, Origin=origin)
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == origin


@pytest.mark.parametrize("origin", [EVIL, "http://localhost:5173.evil.example", "http://localhost.evil.example",
                                    "http://127.0.0.1.nip.io:5173", "https://example.com", "null", "file://",
                                    EXTRA])
def test_a_look_alike_or_opaque_origin_is_not_a_page_origin(http, origin):
    response = register(http, Origin=origin)
    assert_error_shape(response, 403, "bad_origin")
    assert "access-control-allow-origin" not in response.headers


# ---- CORS -----------------------------------------------------------------------------------


def test_a_preflight_from_a_page_origin_echoes_that_origin_only(http):
    response = http.options("/bridge/result", headers={"Origin": DEV, "Access-Control-Request-Method": "POST",
                                                      "Access-Control-Request-Headers": "content-type"})
    assert response.status_code == 204
    assert response.headers["access-control-allow-origin"] == DEV
    assert "Origin" in response.headers["vary"]
    assert "*" not in response.headers["access-control-allow-methods"]
    assert "*" not in response.headers["access-control-allow-headers"]


def test_no_response_ever_allows_every_origin_and_cors_is_only_for_allowed_page_origins(bridge, http):
    own = f"http://127.0.0.1:{bridge.port}"
    cases = [
        ("POST", "/bridge/register", DEV, DEV),  # allowed page origin: echoed
        ("POST", "/bridge/register", None, None),  # no Origin: no CORS
        ("POST", "/bridge/register", own, None),  # same origin needs no CORS
        ("POST", "/bridge/register", EVIL, None),  # refused
        ("POST", "/bridge/result", DEV, DEV),  # even on an error answer the page may read it
        ("GET", "/inject/dbg_client.js", DEV, DEV),
        ("GET", "/bridge/health", None, None),
        ("GET", "/bridge/health", DEV, None),
        ("GET", "/bridge/sessions", DEV, None),
        ("GET", "/bridge/sessions", own, None),
        ("GET", "/demo", None, None),
        ("POST", "/mcp", DEV, None),
        ("POST", "/mcp", None, None),
        ("OPTIONS", "/mcp", DEV, None),
        ("OPTIONS", "/bridge/sessions", DEV, None),
    ]
    for method, path, origin, echoed in cases:
        headers = {"Access-Control-Request-Method": "POST", **auth(bridge)}
        if origin:
            headers["Origin"] = origin
        response = http.request(method, path, headers=headers, content=b"{}" if method == "POST" else None)
        assert response.headers.get("access-control-allow-origin") == echoed, (method, path, origin)
        assert all(v.strip() != "*" for k, v in response.headers.multi_items() if k.startswith("access-control"))


# ---- --allow-origins ------------------------------------------------------------------------


@pytest.mark.parametrize("origin", [EXTRA, "http://lan.example:8080", "http://lan.example", DEV])
def test_allow_origins_lets_extra_page_origins_through(allow_bridge, origin):
    response = httpx.post(allow_bridge.base + "/bridge/register", content=b"{}", headers={"Origin": origin})
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == origin


@pytest.mark.parametrize("origin", [EVIL, "https://app.example.test:8443", "http://app.example.test",
                                    "https://lan.example", "http://lan.example.evil:80"])
def test_allow_origins_matches_exactly_or_by_port_wildcard_only(allow_bridge, origin):
    response = httpx.post(allow_bridge.base + "/bridge/register", content=b"{}", headers={"Origin": origin})
    assert_error_shape(response, 403, "bad_origin")


def test_an_allowed_extra_origin_may_open_the_websocket_but_not_reach_mcp(allow_bridge):
    reply = httpx.post(allow_bridge.base + "/bridge/register", content=b"{}", headers={"Origin": EXTRA}).json()
    with open_ws(allow_bridge, ws_url(allow_bridge, reply["instanceId"], reply["secret"]), origin=EXTRA) as ws:
        assert ws.protocol.state.name == "OPEN"
    response = httpx.post(allow_bridge.mcp_url, content=b"{}", headers={"Origin": EXTRA, **auth(allow_bridge)})
    assert_error_shape(response, 403, "bad_origin")


# ---- the token ------------------------------------------------------------------------------

BAD_AUTH = [None, "Bearer wrong-token", "Basic {token}", "Bearer {token}x", "{token}", "Bearer", "Token {token}"]


@pytest.mark.parametrize("value", BAD_AUTH)
def test_mcp_without_the_right_token_gets_401(bridge, http, value):
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if value is not None:
        headers["Authorization"] = value.format(token=bridge.token)
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
    response = http.post("/mcp", json=initialize, headers=headers)
    error = assert_error_shape(response, 401, "unauthorized")
    assert "dbg-bridge token" in error["message"]
    assert response.headers["www-authenticate"].startswith("Bearer")


@pytest.mark.parametrize("value", BAD_AUTH)
def test_sessions_without_the_right_token_gets_401(bridge, http, value):
    headers = {"Authorization": value.format(token=bridge.token)} if value is not None else {}
    response = http.get("/bridge/sessions", headers=headers)
    assert_error_shape(response, 401, "unauthorized")
    assert "pages" not in response.text


@pytest.mark.parametrize("value", [None, "Bearer {token}x"])
def test_flushing_the_audit_log_needs_the_token(bridge, http, value):
    headers = {"Authorization": value.format(token=bridge.token)} if value is not None else {}
    assert_error_shape(http.post("/bridge/audit/flush", headers=headers), 401, "unauthorized")
    assert http.post("/bridge/audit/flush", headers=auth(bridge)).status_code == 204


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


def test_a_result_over_http_needs_well_formed_credentials(bridge, http):
    response = http.post("/bridge/result", content=json.dumps(
        {"instanceId": "zz999", "type": "result", "requestId": "x", "ok": True}))
    assert_error_shape(response, 401, "unknown_page")


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


# ---- no secret leaks ----------------------------------------------------------------------------


def test_sessions_and_the_log_never_show_a_page_secret_or_the_token(bridge, http, mcp, pages):
    ws_page = pages.connect(bridge.base, port=41234)
    sse_page = pages.connect(bridge.base, channel="sse", origin=DEV)
    secrets = [ws_page.secret, sse_page.secret]
    for page in (ws_page, sse_page):
        assert ok(mcp.call("page_exec", {"code": "1+1", "pageId": page.page_id}))["result"] == 2
    # A refused attempt with a real secret in the query string, and a reload that reuses it.
    assert http.get(f"/bridge/events?i={ws_page.instance_id}&t={ws_page.secret}",
                    headers={"Origin": EVIL}).status_code == 403
    pages.run(sse_page.register(reclaim=True))
    wait_until(lambda: f"page {ws_page.instance_id} registered" in bridge.log.read_text(), what="activity logged")

    sessions = http.get("/bridge/sessions", headers=auth(bridge))
    assert sessions.status_code == 200
    assert {ws_page.page_id, sse_page.page_id} <= {r["pageId"] for r in sessions.json()["pages"]}
    listed = text_of(mcp.call("page_list"))
    for secret in [*secrets, bridge.token]:
        assert secret not in sessions.text
        assert secret not in listed

    log = bridge.log.read_text()
    for secret in secrets:
        assert secret not in log
    # The token is printed once, in the startup banner meant for the terminal, and nowhere else.
    shown = banner(Settings(port=bridge.port, config_dir=bridge.config_dir), bridge.token)
    assert bridge.token not in log.replace(shown, "")


# ---- bad bodies ---------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/bridge/register", "/bridge/result"])
def test_an_oversize_body_gets_413_with_the_error_shape(http, path):
    response = http.post(path, content=b" " * ((1 << 20) + 1))
    error = assert_error_shape(response, 413, "body_too_large")
    assert "1048576" in error["message"]


def test_an_oversize_body_without_a_length_gets_413_as_well(http):
    def chunks():
        for _ in range(17):
            yield b" " * 65536

    assert_error_shape(http.post("/bridge/register", content=chunks()), 413, "body_too_large")


MALFORMED = [b"{not json", b"", b"[]", b"null", b'"text"', b"\xff\xfe\x00", b"{" * 50, b"[" * 100_000 + b"]" * 100_000,
             b'{"a":' * 50_000 + b"1" + b"}" * 50_000, b'{"instanceId": 5, "secret": []}']


@pytest.mark.parametrize("path", ["/bridge/register", "/bridge/result"])
@pytest.mark.parametrize("body", MALFORMED, ids=range(len(MALFORMED)))
def test_a_malformed_body_gets_400_never_500(http, path, body):
    response = http.post(path, content=body)
    if path == "/bridge/result" and body.startswith(b'{"instanceId"'):
        assert_error_shape(response, 401, "unknown_page")  # well-formed JSON, malformed credentials
    else:
        assert_error_shape(response, 400)


def test_a_malformed_message_from_a_real_page_gets_400_naming_the_field(http):
    instance_id, secret = fresh_credentials(http)
    response = http.post("/bridge/result", content=json.dumps(
        {"instanceId": instance_id, "secret": secret, "type": "result", "ok": True}))
    error = assert_error_shape(response, 400, "bad_message")
    assert "requestId" in error["message"]


def test_malformed_json_on_mcp_is_a_400_json_rpc_parse_error(bridge, http):
    headers = {**auth(bridge), "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    for body in (b"{not json", b"[" * 100_000 + b"]" * 100_000):
        response = http.post("/mcp", content=body, headers=headers)
        assert response.status_code == 400
        assert response.json()["error"]["code"] == -32700


def test_a_malformed_websocket_message_is_ignored_and_the_page_keeps_working(bridge, mcp, pages):
    page = pages.connect(bridge.base)
    for junk in ("{not json", "[]", json.dumps({"type": "result"}), "[" * 100_000 + "]" * 100_000):
        pages.run(page._ws.send(junk))
    assert ok(mcp.call("page_exec", {"code": "1+1", "pageId": page.page_id}))["result"] == 2


# ---- one error shape ----------------------------------------------------------------------------


def test_every_error_route_answers_with_the_same_json_shape(bridge, http):
    instance_id, secret = fresh_credentials(http)
    creds = {"instanceId": instance_id, "secret": secret}
    cases = [
        (http.get("/bridge/health", headers={"Host": "evil.example"}), 421),
        (http.post("/mcp", headers={"Origin": EVIL}, content=b"{}"), 403),
        (http.post("/bridge/register", headers={"Origin": EVIL}, content=b"{}"), 403),
        (http.get("/bridge/events", headers={"Origin": "null"}), 403),
        (http.post("/mcp", content=b"{}"), 401),
        (http.post("/mcp/mcp", content=b"{}"), 401),
        (http.get("/bridge/sessions"), 401),
        (http.get("/bridge/events"), 401),
        (http.post("/bridge/result", content=b"{}"), 401),
        (http.post("/bridge/result", content=json.dumps({**creds, "secret": "B" * 43, "type": "bye"})), 403),
        (http.post("/bridge/result", content=json.dumps(
            {**creds, "type": "result", "requestId": "nobody-waits", "ok": True})), 409),
        (http.post("/bridge/register", content=b"x" * ((1 << 20) + 1)), 413),
        (http.post("/bridge/register", content=b"{oops"), 400),
        (http.post("/bridge/result", content=b"{oops"), 400),
        (http.post("/bridge/result", content=b"[1]"), 400),
        (http.post("/bridge/result", content=json.dumps({**creds, "type": "nope"})), 400),
        (http.get("/no/such/route"), 404),
        (http.get("/demo/no-such-page"), 404),
        (http.get("/bridge/register"), 405),
        (http.put("/bridge/sessions", headers=auth(bridge)), 405),
    ]
    codes = set()
    for response, status in cases:
        codes.add(assert_error_shape(response, status)["code"])
    assert {"bad_host", "bad_origin", "unauthorized", "unknown_page", "forbidden", "stale_result",
            "body_too_large", "bad_register", "bad_json", "bad_message"} <= codes
