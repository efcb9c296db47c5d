"""The client picks WebSocket, falls back to SSE by itself, and both channels carry the same calls."""

import pytest

from tests.support import CONNECTED, ok


BROKEN_WEBSOCKETS = {
    "throws": "window.WebSocket = function () { throw new Error('blocked by a corporate proxy'); };",
    "never_opens": """
        window.WebSocket = class {
          constructor() { setTimeout(() => this.onclose && this.onclose({code: 1006}), 10); }
          close() {}
          send() {}
        };
        window.WebSocket.OPEN = 1;""",
}


def test_client_prefers_the_websocket_channel(context, dev, mcp):
    page = context.new_page()
    page.goto(dev.url("/single.html"))
    page.wait_for_function(CONNECTED, timeout=10000)
    status = page.evaluate("window.__dbg.status()")
    assert status["channel"] == "ws"
    row = next(r for r in mcp.pages() if r["pageId"] == status["pageId"])
    assert row["channel"] == "ws" and row["state"] == "live"


@pytest.mark.parametrize("how", sorted(BROKEN_WEBSOCKETS))
def test_client_falls_back_to_sse_when_websocket_fails(context, dev, mcp, how):
    context.add_init_script(BROKEN_WEBSOCKETS[how])
    page = context.new_page()
    page.goto(dev.url("/single.html"))
    page.wait_for_function(CONNECTED, timeout=15000)
    status = page.evaluate("window.__dbg.status()")
    assert status["channel"] == "sse"
    out = ok(mcp.call("page_exec", {"pageId": status["pageId"], "code": "document.title + '!'"}))
    assert out["result"] == "single page!"


def test_sse_channel_streams_from_a_per_tab_localhost_host(context, dev, bridge, mcp):
    page = context.new_page()
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(dev.url("/single.html?channel=sse"))
    page.wait_for_function(CONNECTED, timeout=10000)
    status = page.evaluate("window.__dbg.status()")
    assert status["channel"] == "sse"
    inst = status["pageId"].split("/")[0]
    assert any(u.startswith(f"http://dbg-{inst}.localhost:{bridge.port}/bridge/events") for u in requests)
    assert ok(mcp.call("page_exec", {"pageId": status["pageId"], "code": "40 + 2"}))["result"] == 42
