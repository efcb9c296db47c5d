"""Fifty tabs of one browser context, all connected at once, all answering concurrent calls, each routed to
its own tab: over WebSocket, and over SSE, where each tab's stream has its own *.localhost host so fifty
streams do not queue behind Chromium's six connections per host."""

from __future__ import annotations

import uuid

import pytest

from tests.support import ok, wait_until

TABS = 50


@pytest.mark.parametrize("channel", ["ws", "sse"])
def test_fifty_tabs_connect_and_each_answers_its_own_concurrent_call(context, dev, mcp, channel):
    batch = uuid.uuid4().hex[:10]  # marks this test's tabs in page_list
    url = dev.url(f"/single.html?batch={batch}" + ("&channel=sse" if channel == "sse" else ""))
    first = context.new_page()
    first.goto(url, wait_until="commit")
    # The other 49 tabs are opened by the page itself (much faster than 49 new_page round trips on 2 cores);
    # 'noopener' gives each its own sessionStorage, like a tab the user opened.
    first.evaluate("([url, n]) => { for (let i = 0; i < n; i++) window.open(url, '_blank', 'noopener'); }",
                   [url, TABS - 1])

    def all_live():
        rows = [r for r in mcp.pages() if batch in r["url"]]
        live = [r for r in rows if r["state"] == "live" and r["channel"] == channel]
        return len(live) == TABS and live
    rows = wait_until(all_live, timeout=30, interval=0.1, what=f"{TABS} tabs live over {channel}")
    ids = [r["pageId"] for r in rows]
    assert len(set(ids)) == TABS and all(pid.endswith("/host") for pid in ids)

    results = mcp.call_many(
        [("page_exec", {"pageId": pid, "code": "({me: window.__dbg.pageId, n: args.n, ch: window.__dbg.status().channel})",
                        "args": {"n": i}})
         for i, pid in enumerate(ids)],
        timeout=60,
    )
    got = [ok(r) for r in results]
    # Every call came back from the tab it was addressed to, with its own arguments, over the channel asked for.
    assert [g["pageId"] for g in got] == ids
    assert [g["result"] for g in got] == [{"me": pid, "n": i, "ch": channel} for i, pid in enumerate(ids)]
