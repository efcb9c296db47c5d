"""In process, over httpx's ASGITransport: Host (DNS rebinding), Origin, CORS, --allow-origins, the token, result
credentials, bad bodies and the one error shape, on every route that answers plain HTTP. What needs a real socket
(WebSockets, a live page, the process's log) stays in e2e/test_security.py."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import httpx
import pytest

from tests.http.bridge_app import InProcess, in_process
from tests.support import assert_error_shape, auth

pytestmark = pytest.mark.anyio

EVIL = "http://evil.example"
DEV = "http://localhost:5173"
EXTRA = "https://app.example.test"


@pytest.fixture(scope="module")
async def bridge(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[InProcess]:
    async with in_process(tmp_path_factory.mktemp("security")) as app:
        yield app


@pytest.fixture(scope="module")
def http(bridge: InProcess) -> httpx.AsyncClient:
    return bridge.http


@pytest.fixture(scope="module")
async def allowing(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[InProcess]:
    """A second bridge started with extra page origins allowed."""
    async with in_process(tmp_path_factory.mktemp("allow"), allow_origins=[EXTRA, "http://lan.example:*"]) as app:
        yield app


async def register(http: httpx.AsyncClient, **headers: str) -> httpx.Response:
    """Register as a browser page would: the url it claims is on the Origin it sends."""
    url = headers.get("Origin", "http://localhost:5173") + "/"
    return await http.post("/bridge/register", content=json.dumps({"url": url}),
                           headers={"Content-Type": "text/plain", **headers})


async def fresh_credentials(http: httpx.AsyncClient) -> tuple[str, str]:
    reply = (await register(http)).json()
    return reply["instanceId"], reply["secret"]

# ---- Host: DNS rebinding ----------------------------------------------------------------------

ROUTES = [("POST", "/mcp"), ("POST", "/mcp/mcp"), ("POST", "/bridge/register"), ("GET", "/bridge/events"),
          ("POST", "/bridge/result"), ("GET", "/bridge/sessions"), ("GET", "/bridge/health"), ("POST", "/bridge/audit/flush"),
          ("GET", "/inject/dbg_client.js"), ("GET", "/demo"), ("GET", "/")]


@pytest.mark.parametrize("method, path", ROUTES)
async def test_a_foreign_host_gets_421_on_every_route(bridge, http, method, path):
    response = await http.request(method, path, headers={"Host": f"evil.example:{bridge.port}", **auth(bridge)},
                                  content=b"{}" if method == "POST" else None)
    error = assert_error_shape(response, 421, "bad_host")
    assert f"http://127.0.0.1:{bridge.port}" in error["message"]


@pytest.mark.parametrize("host", ["evil.example", "127.0.0.1", "localhost", "127.0.0.1:{other}", "localhost:{other}",
                                  "localhost.evil.example:{port}", "127.0.0.1.nip.io:{port}", "10.0.0.1:{port}"])
async def test_a_host_that_is_not_this_bridge_is_refused(bridge, http, host):
    host = host.format(port=bridge.port, other=bridge.port + 1 if bridge.port < 65535 else 1)
    assert_error_shape(await http.get("/bridge/health", headers={"Host": host}), 421, "bad_host")


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "LOCALHOST:{port}", "[::1]:{port}"])
async def test_loopback_host_names_with_the_bridge_port_are_accepted(bridge, http, host):
    assert (await http.get("/bridge/health", headers={"Host": host.format(port=bridge.port)})).status_code == 200


async def test_per_tab_localhost_names_reach_only_the_page_channel(bridge, http):
    host = {"Host": f"dbg-ab123.localhost:{bridge.port}"}
    assert (await http.get("/inject/dbg_client.js", headers=host)).status_code == 200
    assert_error_shape(await http.get("/bridge/health", headers=host), 421, "bad_host")
    assert_error_shape(await http.post("/mcp", headers={**host, **auth(bridge)}, content=b"{}"), 421, "bad_host")


# ---- Origin ---------------------------------------------------------------------------------


async def test_a_foreign_origin_gets_403_on_mcp_even_with_the_token(bridge, http):
    error = assert_error_shape(await http.post("/mcp", headers={"Origin": EVIL, **auth(bridge)}, content=b"{}"), 403,
                               "bad_origin")
    assert EVIL in error["message"]


@pytest.mark.parametrize("method, path", [("POST", "/bridge/register"), ("GET", "/bridge/events"),
                                          ("POST", "/bridge/result"), ("OPTIONS", "/bridge/register"),
                                          ("GET", "/inject/dbg_client.js")])
async def test_a_foreign_origin_gets_403_on_the_page_channel_with_how_to_allow_it(http, method, path):
    response = await http.request(method, path, headers={"Origin": EVIL, "Access-Control-Request-Method": "POST"},
                                  content=b"{}" if method == "POST" else None)
    error = assert_error_shape(response, 403, "bad_origin")
    assert "--allow-origins" in error["message"]
    assert "access-control-allow-origin" not in response.headers


async def test_a_loopback_dev_origin_is_refused_on_mcp_and_sessions(bridge, http):
    assert_error_shape(await http.post("/mcp", headers={"Origin": DEV, **auth(bridge)}, content=b"{}"), 403,
                       "bad_origin")
    assert_error_shape(await http.get("/bridge/sessions", headers={"Origin": DEV, **auth(bridge)}), 403, "bad_origin")


async def test_the_bridge_own_origin_may_read_sessions(bridge, http):
    response = await http.get("/bridge/sessions", headers={"Origin": f"http://127.0.0.1:{bridge.port}", **auth(bridge)})
    assert response.status_code == 200 and "pages" in response.json()


@pytest.mark.parametrize("origin", ["http://localhost:5173", "http://127.0.0.1:3000", "http://[::1]:8080",
                                    "http://app.localhost:5173", "https://localhost", "http://LOCALHOST:5173"])
async def test_every_loopback_origin_is_a_page_origin(http, origin):
    response = await register(http, Origin=origin)
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == origin


@pytest.mark.parametrize("origin", [EVIL, "http://localhost:5173.evil.example", "http://localhost.evil.example",
                                    "http://127.0.0.1.nip.io:5173", "https://example.com", "null", "file://",
                                    EXTRA])
async def test_a_look_alike_or_opaque_origin_is_not_a_page_origin(http, origin):
    response = await register(http, Origin=origin)
    assert_error_shape(response, 403, "bad_origin")
    assert "access-control-allow-origin" not in response.headers


# ---- CORS -----------------------------------------------------------------------------------


async def test_a_preflight_from_a_page_origin_echoes_that_origin_only(http):
    response = await http.options("/bridge/result", headers={"Origin": DEV, "Access-Control-Request-Method": "POST",
                                                            "Access-Control-Request-Headers": "content-type"})
    assert response.status_code == 204
    assert response.headers["access-control-allow-origin"] == DEV
    assert "Origin" in response.headers["vary"]
    assert "*" not in response.headers["access-control-allow-methods"]
    assert "*" not in response.headers["access-control-allow-headers"]


async def test_no_response_ever_allows_every_origin_and_cors_is_only_for_allowed_page_origins(bridge, http):
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
        response = await http.request(method, path, headers=headers, content=b"{}" if method == "POST" else None)
        assert response.headers.get("access-control-allow-origin") == echoed, (method, path, origin)
        assert all(v.strip() != "*" for k, v in response.headers.multi_items() if k.startswith("access-control"))


# ---- --allow-origins ------------------------------------------------------------------------


@pytest.mark.parametrize("origin", [EXTRA, "http://lan.example:8080", "http://lan.example", DEV])
async def test_allow_origins_lets_extra_page_origins_through(allowing, origin):
    response = await allowing.http.post("/bridge/register", content=b"{}", headers={"Origin": origin})
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == origin


@pytest.mark.parametrize("origin", [EVIL, "https://app.example.test:8443", "http://app.example.test",
                                    "https://lan.example", "http://lan.example.evil:80"])
async def test_allow_origins_matches_exactly_or_by_port_wildcard_only(allowing, origin):
    response = await allowing.http.post("/bridge/register", content=b"{}", headers={"Origin": origin})
    assert_error_shape(response, 403, "bad_origin")


# ---- the token ------------------------------------------------------------------------------

BAD_AUTH = [None, "Bearer wrong-token", "Basic {token}", "Bearer {token}x", "{token}", "Bearer", "Token {token}"]


@pytest.mark.parametrize("value", BAD_AUTH)
async def test_mcp_without_the_right_token_gets_401(bridge, http, value):
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if value is not None:
        headers["Authorization"] = value.format(token=bridge.token)
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
    response = await http.post("/mcp", json=initialize, headers=headers)
    error = assert_error_shape(response, 401, "unauthorized")
    assert "dbg-bridge token" in error["message"]
    assert response.headers["www-authenticate"].startswith("Bearer")


@pytest.mark.parametrize("value", BAD_AUTH)
async def test_sessions_without_the_right_token_gets_401(bridge, http, value):
    headers = {"Authorization": value.format(token=bridge.token)} if value is not None else {}
    response = await http.get("/bridge/sessions", headers=headers)
    assert_error_shape(response, 401, "unauthorized")
    assert "pages" not in response.text


@pytest.mark.parametrize("value", [None, "Bearer {token}x"])
async def test_flushing_the_audit_log_needs_the_token(bridge, http, value):
    headers = {"Authorization": value.format(token=bridge.token)} if value is not None else {}
    assert_error_shape(await http.post("/bridge/audit/flush", headers=headers), 401, "unauthorized")
    assert (await http.post("/bridge/audit/flush", headers=auth(bridge))).status_code == 204


async def test_a_result_over_http_needs_well_formed_credentials(bridge, http):
    response = await http.post("/bridge/result", content=json.dumps(
        {"instanceId": "zz999", "type": "result", "requestId": "x", "ok": True}))
    assert_error_shape(response, 401, "unknown_page")


# ---- bad bodies ---------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/bridge/register", "/bridge/result"])
async def test_an_oversize_body_gets_413_with_the_error_shape(http, path):
    response = await http.post(path, content=b" " * ((1 << 20) + 1))
    error = assert_error_shape(response, 413, "body_too_large")
    assert "1048576" in error["message"]


async def test_an_oversize_body_without_a_length_gets_413_as_well(http):
    async def chunks():
        for _ in range(17):
            yield b" " * 65536

    assert_error_shape(await http.post("/bridge/register", content=chunks()), 413, "body_too_large")


MALFORMED = [b"{not json", b"", b"[]", b"null", b'"text"', b"\xff\xfe\x00", b"{" * 50, b"[" * 100_000 + b"]" * 100_000,
             b'{"a":' * 50_000 + b"1" + b"}" * 50_000, b'{"instanceId": 5, "secret": []}']


@pytest.mark.parametrize("path", ["/bridge/register", "/bridge/result"])
@pytest.mark.parametrize("body", MALFORMED, ids=range(len(MALFORMED)))
async def test_a_malformed_body_gets_400_never_500(http, path, body):
    response = await http.post(path, content=body)
    if path == "/bridge/result" and body.startswith(b'{"instanceId"'):
        assert_error_shape(response, 401, "unknown_page")  # well-formed JSON, malformed credentials
    else:
        assert_error_shape(response, 400)


async def test_a_malformed_message_from_a_real_page_gets_400_naming_the_field(http):
    instance_id, secret = await fresh_credentials(http)
    response = await http.post("/bridge/result", content=json.dumps(
        {"instanceId": instance_id, "secret": secret, "type": "result", "ok": True}))
    error = assert_error_shape(response, 400, "bad_message")
    assert "requestId" in error["message"]


async def test_malformed_json_on_mcp_is_a_400_json_rpc_parse_error(bridge, http):
    headers = {**auth(bridge), "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    for body in (b"{not json", b"[" * 100_000 + b"]" * 100_000):
        response = await http.post("/mcp", content=body, headers=headers)
        assert response.status_code == 400
        assert response.json()["error"]["code"] == -32700


# ---- one error shape ----------------------------------------------------------------------------


async def test_every_error_route_answers_with_the_same_json_shape(bridge, http):
    instance_id, secret = await fresh_credentials(http)
    creds = {"instanceId": instance_id, "secret": secret}
    cases = [
        (await http.get("/bridge/health", headers={"Host": "evil.example"}), 421),
        (await http.post("/mcp", headers={"Origin": EVIL}, content=b"{}"), 403),
        (await http.post("/bridge/register", headers={"Origin": EVIL}, content=b"{}"), 403),
        (await http.get("/bridge/events", headers={"Origin": "null"}), 403),
        (await http.post("/mcp", content=b"{}"), 401),
        (await http.post("/mcp/mcp", content=b"{}"), 401),
        (await http.get("/bridge/sessions"), 401),
        (await http.get("/bridge/events"), 401),
        (await http.post("/bridge/result", content=b"{}"), 401),
        (await http.post("/bridge/result", content=json.dumps({**creds, "secret": "B" * 43, "type": "bye"})), 403),
        (await http.post("/bridge/result", content=json.dumps(
            {**creds, "type": "result", "requestId": "nobody-waits", "ok": True})), 409),
        (await http.post("/bridge/register", content=b"x" * ((1 << 20) + 1)), 413),
        (await http.post("/bridge/register", content=b"{oops"), 400),
        (await http.post("/bridge/result", content=b"{oops"), 400),
        (await http.post("/bridge/result", content=b"[1]"), 400),
        (await http.post("/bridge/result", content=json.dumps({**creds, "type": "nope"})), 400),
        (await http.get("/no/such/route"), 404),
        (await http.get("/demo/no-such-page"), 404),
        (await http.get("/bridge/register"), 405),
        (await http.put("/bridge/sessions", headers=auth(bridge)), 405),
    ]
    codes = set()
    for response, status in cases:
        codes.add(assert_error_shape(response, status)["code"])
    assert {"bad_host", "bad_origin", "unauthorized", "unknown_page", "forbidden", "stale_result",
            "body_too_large", "bad_register", "bad_json", "bad_message"} <= codes
