"""A tab that navigates to a page without the client is `page_lost` at once on later calls (after a short grace
for the new document to connect), saying where it went; page_list and the cockpit show it."""

from __future__ import annotations

import time

from tests.support import CONNECTED, ok, text_of, wait_until


def test_navigating_to_a_page_without_the_client_is_page_lost_naming_the_destination(context, dev, mcp):
    page = context.new_page()
    page.goto(dev.url("/single.html"))
    page.wait_for_function(CONNECTED, timeout=10000)
    pid = page.evaluate("window.__dbg.pageId")
    started = time.monotonic()
    nav = mcp.call("page_navigate", {"pageId": pid, "url": "/plain.html"})
    took = time.monotonic() - started
    assert nav.is_error and text_of(nav).startswith("[page_lost]"), text_of(nav)
    assert dev.url("/plain.html") in text_of(nav) and took < 15, took
    started = time.monotonic()
    again = mcp.call("page_exec", {"pageId": pid, "code": "1"})
    assert text_of(again).startswith("[page_lost]") and time.monotonic() - started < 2
    assert "go back to " + dev.url("/single.html") in text_of(again)
    row = next(r for r in mcp.pages() if r["pageId"] == pid)
    assert row["state"].startswith("lost (navigated to " + dev.url("/plain.html"))
    page.go_back()
    page.wait_for_function(CONNECTED, timeout=10000)
    wait_until(lambda: not mcp.call("page_exec", {"pageId": pid, "code": "1"}).is_error, 10, what="the tab back")
    page.close()
