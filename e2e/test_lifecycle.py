"""A page's life: reloads, tabs, duplicated tabs, closed tabs and a restarted bridge, all under stable pageIds."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator

import pytest

from tests.support import CONNECTED, BridgeProcess, Bridges, DevServer, McpSession, ok, text_of, wait_until


def _open(context, url: str):
    page = context.new_page()
    page.goto(url)
    page.wait_for_function(CONNECTED, timeout=10000)
    return page, page.evaluate("window.__dbg.pageId")


def _row(mcp: McpSession, page_id: str) -> dict | None:
    return next((r for r in mcp.pages() if r["pageId"] == page_id), None)


def _exec(mcp: McpSession, page_id: str, code: str, **extra):
    return mcp.call("page_exec", {"pageId": page_id, "code": code, **extra})


def test_reload_keeps_the_page_id_and_the_new_document_answers(context, dev, mcp):
    page, pid = _open(context, dev.url("/single.html"))
    ok(_exec(mcp, pid, "window.__before = 'old document'"))

    page.reload()
    page.wait_for_function(CONNECTED, timeout=10000)
    assert page.evaluate("window.__dbg.pageId") == pid

    got = ok(_exec(mcp, pid, "[typeof window.__before, document.getElementById('who').textContent]"))
    assert got["pageId"] == pid and got["result"] == ["undefined", "single"]
    inst = pid.split("/")[0]
    rows = [r for r in mcp.pages() if r["pageId"].startswith(inst + "/")]
    assert [(r["pageId"], r["state"]) for r in rows] == [(pid, "live")]


def test_a_call_in_flight_fails_fast_with_page_unloaded_or_reloaded_when_the_page_reloads(context, dev, mcp):
    page, pid = _open(context, dev.url("/single.html"))
    started = time.monotonic()
    future = mcp.start("page_exec", {"pageId": pid, "timeout": 60,
                                     "code": "window.__running = true; await new Promise(() => {})"})
    page.wait_for_function("window.__running === true", timeout=10000)

    page.reload()
    res = future.result(timeout=10)
    elapsed = time.monotonic() - started

    assert res.is_error
    text = text_of(res)
    assert re.search(r"\[page_(unloaded|reloaded)\]", text), text
    assert pid.split("/")[0] in text and "retry" in text.lower()
    assert elapsed < 10, elapsed
    # And the page is back under its id, ready for the retry.
    page.wait_for_function(CONNECTED, timeout=10000)
    assert ok(_exec(mcp, pid, "typeof window.__running"))["result"] == "undefined"


def test_two_tabs_of_the_same_dev_server_get_distinct_page_ids(context, dev, mcp):
    a, pid_a = _open(context, dev.url("/single.html"))
    b, pid_b = _open(context, dev.url("/single.html"))
    assert pid_a != pid_b
    a.evaluate("window.__tab = 'A'")
    b.evaluate("window.__tab = 'B'")
    got = mcp.call_many([("page_exec", {"pageId": p, "code": "window.__tab"}) for p in (pid_a, pid_b)])
    assert [ok(g)["result"] for g in got] == ["A", "B"]


def test_a_reload_claims_its_id_even_before_the_old_document_said_it_was_leaving(context, dev, mcp):
    """A reloaded document's first register claims its id back: an SSE page's bye is a beacon that can reach the
    bridge after that register, while the old stream still looks live; unclaimed, the tab was taken for a
    duplicate and renamed (bench/faults.py once: 315 calls to the old pageId waited 10 s each in vain). The claim
    holds with the leaving mark pagehide writes, and for a reload even without it."""
    page, pid = _open(context, dev.url("/single.html?channel=sse"))
    claims: list[bool] = []

    def register(route):
        claims.append(json.loads(route.request.post_data or "{}").get("reclaim"))
        route.continue_()

    page.route("**/bridge/register", register)
    page.reload()
    page.wait_for_function(CONNECTED, timeout=10000)
    # The next document finds no leaving mark, as when the old document's pagehide runs late.
    page.add_init_script("sessionStorage.removeItem('__dbg_leaving')")
    page.reload()
    page.wait_for_function(CONNECTED, timeout=10000)
    assert claims == [True, True], claims
    assert page.evaluate("window.__dbg.pageId") == pid


def test_a_duplicated_tab_gets_a_fresh_page_id_and_the_original_keeps_its_own(context, dev, mcp):
    original, pid = _open(context, dev.url("/single.html"))
    original.evaluate("window.__tab = 'original'; sessionStorage.setItem('probe', 'copied')")
    with context.expect_page(timeout=10000) as opened:
        original.evaluate("window.open(location.href)")  # copies sessionStorage, and with it the stored id
    dup = opened.value
    dup.wait_for_function(CONNECTED, timeout=10000)
    dup.evaluate("window.__tab = 'duplicate'")

    # The duplicate started from a copy of the original's sessionStorage (its stored id and secret)...
    assert dup.evaluate("sessionStorage.getItem('probe')") == "copied"
    # ...and was given a fresh id all the same, while the original kept its own.
    dup_pid = dup.evaluate("window.__dbg.pageId")
    assert dup_pid != pid
    assert original.evaluate("window.__dbg.pageId") == pid
    got = mcp.call_many([("page_exec", {"pageId": p, "code": "window.__tab"}) for p in (pid, dup_pid)])
    assert [ok(g)["result"] for g in got] == ["original", "duplicate"]
    assert _row(mcp, pid)["state"] == "live" and _row(mcp, dup_pid)["state"] == "live"

    # The duplicate's new id is what it keeps across its own reloads.
    dup.reload()
    dup.wait_for_function(CONNECTED, timeout=10000)
    assert dup.evaluate("window.__dbg.pageId") == dup_pid
    assert ok(_exec(mcp, dup_pid, "window.__tab || 'reloaded'"))["result"] == "reloaded"
    assert ok(_exec(mcp, pid, "window.__tab"))["result"] == "original"


@pytest.mark.parametrize("query", ["", "?channel=sse"], ids=["ws", "sse"])
def test_a_closed_tab_is_listed_as_reconnecting_and_a_call_to_it_fails_after_a_bounded_wait(context, dev, mcp, query):
    page, pid = _open(context, dev.url("/single.html" + query))
    page.close()

    row = wait_until(lambda: (r := _row(mcp, pid)) and r["state"].startswith("reconnecting") and r, timeout=5,
                     what="the closed tab listed as reconnecting")
    m = re.fullmatch(r"reconnecting \(expires in (\d+) s\)", row["state"])
    assert m, row["state"]
    assert 0 < int(m.group(1)) <= 600
    assert row["channel"] is None

    started = time.monotonic()
    res = _exec(mcp, pid, "1", timeout=1.5)
    elapsed = time.monotonic() - started
    assert res.is_error
    text = text_of(res)
    assert "[page_disconnected]" in text and pid in text
    assert "reload" in text and "page_list" in text
    assert 1.3 <= elapsed < 6, elapsed


# ---- bridge restart: a bridge of this module's own, so the session bridge is not disturbed ---------------


@pytest.fixture(scope="module")
def own_bridge(module_bridge_process: Bridges) -> BridgeProcess:
    return module_bridge_process(name="restart-bridge")


@pytest.fixture(scope="module")
def own_dev(own_bridge: BridgeProcess) -> Iterator[DevServer]:
    server = DevServer(own_bridge.client_js())
    yield server
    server.close()


def test_pages_come_back_under_the_same_page_ids_after_the_bridge_restarts(own_bridge, own_dev, context):
    ws_page, ws_pid = _open(context, own_dev.url("/single.html"))
    sse_page, sse_pid = _open(context, own_dev.url("/single.html?channel=sse"))
    assert ws_page.evaluate("window.__dbg.status().channel") == "ws"
    assert sse_page.evaluate("window.__dbg.status().channel") == "sse"
    ws_page.evaluate("window.__tab = 'ws tab'")
    sse_page.evaluate("window.__tab = 'sse tab'")

    mcp = McpSession(own_bridge.mcp_url, own_bridge.token)
    try:
        assert ok(_exec(mcp, ws_pid, "window.__tab"))["result"] == "ws tab"
    finally:
        mcp.close()
    port = own_bridge.port

    own_bridge.restart()
    assert own_bridge.port == port
    # No human action: both tabs reconnect by themselves, on their own channels, keeping their ids.
    for page, channel in ((ws_page, "ws"), (sse_page, "sse")):
        page.wait_for_function(f"{CONNECTED} && window.__dbg.status().channel === '{channel}'", timeout=20000)
    assert ws_page.evaluate("window.__dbg.pageId") == ws_pid
    assert sse_page.evaluate("window.__dbg.pageId") == sse_pid

    mcp = McpSession(own_bridge.mcp_url, own_bridge.token)  # MCP sessions do not survive a restart
    try:
        rows = {r["pageId"]: r for r in mcp.pages()}
        assert rows[ws_pid]["state"] == "live" and rows[ws_pid]["channel"] == "ws"
        assert rows[sse_pid]["state"] == "live" and rows[sse_pid]["channel"] == "sse"
        got = mcp.call_many([("page_exec", {"pageId": p, "code": "window.__tab"}) for p in (ws_pid, sse_pid)])
        assert [ok(g)["result"] for g in got] == ["ws tab", "sse tab"]
    finally:
        mcp.close()
