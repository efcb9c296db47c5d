"""The same tools over both MCP protocol eras, the old /mcp/mcp path, a --stateless bridge and a --no-auth bridge:
the official client over real HTTP to apps served in this process (tests/http/conftest.py)."""

from __future__ import annotations

import httpx
import pytest

from tests.fakepage import FakePage
from tests.http.bridge_app import Served
from tests.pageloop import PageLoop
from tests.support import Bridges, McpSession, ok, text_of

ERAS = {"legacy": "2025-11-25", "auto": "2026-07-28"}


@pytest.fixture(scope="module")
def stateless(served: Bridges) -> Served:
    return served(name="stateless", stateless=True)


@pytest.fixture(scope="module")
def open_bridge(served: Bridges) -> Served:
    return served(name="noauth", no_auth=True)


@pytest.fixture(scope="module")
def page(bridge: Served, pages: PageLoop) -> FakePage:
    return pages.connect(bridge.base)


def session(url: str, token: str | None, mode: str) -> McpSession:
    return McpSession(url, token, mode=mode)


def exercise(client: McpSession, page: FakePage) -> None:
    """page_list shows the page and page_exec runs code and a named command in it."""
    assert page.page_id in {r["pageId"] for r in client.pages()}
    out = ok(client.call("page_exec", {"code": "1+1", "pageId": page.page_id}))
    assert (out["pageId"], out["result"]) == (page.page_id, 2)
    assert isinstance(out["ms"], (int, float)) and out["ms"] >= 0
    assert ok(client.call("page_exec", {"command": "console", "params": {"since": 1}, "pageId": page.page_id}))[
        "result"] == {"since": 1, "limit": 100, "stack": False, "errors": False}
    # Errors come back as tool errors in every transport.
    bad = client.call("page_exec", {"code": "1", "pageId": "qq999/host"})
    assert bad.is_error and "[unknown_page]" in text_of(bad)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_the_tools_work_over_both_protocol_eras(bridge, page, mode):
    client = session(bridge.mcp_url, bridge.token, mode)
    try:
        assert client.client.protocol_version == ERAS[mode]
        exercise(client, page)
    finally:
        client.close()


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_the_old_mcp_mcp_path_still_serves_the_tools(bridge, page, mode):
    client = session(bridge.base + "/mcp/mcp", bridge.token, mode)
    try:
        exercise(client, page)
    finally:
        client.close()


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_a_stateless_bridge_serves_the_tools_in_both_eras(stateless, pages, mode):
    stateless_page = pages.connect(stateless.base)
    client = session(stateless.mcp_url, stateless.token, mode)
    try:
        exercise(client, stateless_page)
        # Concurrent calls on one client each get their own answer.
        results = client.call_many([("page_exec", {"code": f"{i}", "args": i, "pageId": stateless_page.page_id})
                                    for i in range(8)])
        assert [ok(r)["result"] for r in results] == [{"code": f"{i}", "args": i} for i in range(8)]
    finally:
        client.close()
        pages.disconnect(stateless_page)


def test_a_stateless_bridge_answers_plain_json_without_a_session(stateless):
    request = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}
    response = httpx.post(stateless.mcp_url, json=request, timeout=15, headers={
        "Authorization": f"Bearer {stateless.token}", "Accept": "application/json, text/event-stream"})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    assert "mcp-session-id" not in response.headers
    assert response.json()["result"]["serverInfo"]["name"] == "dbg-bridge"


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_a_no_auth_bridge_serves_mcp_without_a_token(open_bridge, pages, mode):
    assert open_bridge.token is None and not (open_bridge.config_dir / "token").exists()
    open_page = pages.connect(open_bridge.base)
    client = session(open_bridge.mcp_url, None, mode)
    try:
        exercise(client, open_page)
    finally:
        client.close()
        pages.disconnect(open_page)


def test_a_no_auth_bridge_still_guards_host_and_origin(open_bridge):
    assert httpx.get(open_bridge.base + "/bridge/sessions").status_code == 200
    bad_host = httpx.post(open_bridge.mcp_url, content=b"{}", headers={"Host": f"evil.example:{open_bridge.port}"})
    assert bad_host.status_code == 421
    bad_origin = httpx.post(open_bridge.mcp_url, content=b"{}", headers={"Origin": "http://localhost:5173"})
    assert bad_origin.status_code == 403


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_tools_list_describes_page_list_and_page_exec(bridge, mode):
    client = session(bridge.mcp_url, bridge.token, mode)
    try:
        tools = {t.name: t for t in client.run(client.client.list_tools()).tools}
    finally:
        client.close()
    assert {"page_list", "page_exec"} <= set(tools)
    for name in ("page_list", "page_exec"):
        assert tools[name].description and len(tools[name].description) > 40
        assert tools[name].annotations is not None
    assert tools["page_list"].annotations.read_only_hint is True
    assert tools["page_exec"].annotations.read_only_hint is False
    assert "pageId" in tools["page_list"].description
    schema = tools["page_exec"].input_schema
    assert {"code", "command", "pageId", "timeout", "args", "params"} <= set(schema["properties"])
    assert not schema.get("required")
    assert "pageId" not in tools["page_list"].input_schema.get("properties", {})
    assert "JavaScript" in tools["page_exec"].description


def test_the_server_introduces_itself_with_instructions(mcp):
    assert mcp.client.server_info.name == "dbg-bridge"
    assert "page_list" in (mcp.client.instructions or "") and "page_exec" in mcp.client.instructions
