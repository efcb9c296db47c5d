"""Cancellation end to end: a cancelled tools/call reaches the page (a cancel frame on either channel), the code's
`signal` aborts, waits stop, an open question card closes, and the audit says cancelled."""

from __future__ import annotations

import pytest

from tests.support import McpSession, ok, open_page, text_of, wait_until

WAITS_FOR_ABORT = ("await new Promise((resolve) => signal.addEventListener('abort', () => {"
                   " window.__aborted = signal.aborted; resolve('never seen'); })); return 'unreachable'")


RUNNING = "window.__dbg.status().running === 1"
IDLE = "window.__dbg.status().running === 0"


@pytest.fixture(params=["legacy", "auto"], ids=["2025-11-25", "2026-07-28"])
def era(request, bridge):
    session = McpSession(bridge.mcp_url, bridge.token, mode=request.param)
    yield session
    session.close()


def _cancelled_in_audit(bridge, tool: str, page_id: str) -> bool:
    return any(r.get("tool") == tool and r.get("pageId") == page_id and r.get("code") == "cancelled"
               for r in bridge.audit())


@pytest.mark.parametrize("channel", ["ws", "sse"])
def test_cancelling_page_exec_aborts_the_codes_signal_in_the_page(bridge, dev, context, era, channel):
    page = open_page(context, dev.url(f"/single.html?channel={channel}"))
    assert page.evaluate("window.__dbg.status().channel") == channel
    call = era.start("page_exec", {"pageId": page.page_id, "code": WAITS_FOR_ABORT, "timeout": 60})
    page.wait_for_function(RUNNING, timeout=5000)
    call.cancel()
    page.wait_for_function("window.__aborted === true", timeout=5000)
    page.wait_for_function(IDLE, timeout=5000)
    wait_until(lambda: _cancelled_in_audit(bridge, "page_exec", page.page_id), 5, what="the audit record")
    # The page is fine and the next call works.
    assert ok(era.call("page_exec", {"pageId": page.page_id, "code": "1 + 1"}))["result"] == 2


def test_cancelling_page_wait_stops_the_wait_in_a_frame(bridge, dev, context, era):
    page = open_page(context, dev.url("/framed.html"))
    frame_id = page.page_id.replace("/host", "/f0")
    ok(era.call("page_exec", {"pageId": frame_id, "code": "1"}))
    frame = page.frames[1]
    call = era.start("page_wait", {"pageId": frame_id, "text": "never appears anywhere", "timeout": 60})
    frame.wait_for_function(RUNNING, timeout=5000)  # the wait runs in the frame's client
    page.wait_for_function(RUNNING, timeout=5000)  # and the host forwards it
    call.cancel()
    frame.wait_for_function(IDLE, timeout=5000)  # the frame's wait ended: the cancel went host -> frame
    page.wait_for_function(IDLE, timeout=5000)
    res = era.call("page_exec", {"pageId": frame_id, "code": "1"})
    assert ok(res)["result"] == 1, text_of(res)
    wait_until(lambda: _cancelled_in_audit(bridge, "page_wait", frame_id), 5, what="the audit record")


def test_cancelling_user_ask_closes_its_card(bridge, dev, context, era):
    page = open_page(context, dev.url("/app.html"))
    call = era.start("user_ask", {"pageId": page.page_id, "question": "Still needed?", "wait": 60})
    card = page.locator("dbg-human [data-question]")
    card.wait_for(timeout=10000)
    call.cancel()
    card.wait_for(state="detached", timeout=5000)
    wait_until(lambda: _cancelled_in_audit(bridge, "user_ask", page.page_id), 5, what="the audit record")


@pytest.mark.parametrize("delete", [True, False], ids=["DELETE", "hang-up"])
def test_a_session_that_ends_cancels_its_calls_in_the_page(bridge, dev, context, delete):
    """The official client closes its 2025-11-25 session while a user_ask card is open and a page_wait runs: with
    DELETE (the SDK ends the session) or without (the client's streams just drop: a TypeScript client's close(), a
    killed editor). Either way the wait stops in the page, the card closes and the audit says cancelled."""
    page = open_page(context, dev.url("/app.html"))
    session = McpSession(bridge.mcp_url, bridge.token, mode="legacy", terminate_on_close=delete)
    try:
        ask = session.start("user_ask", {"pageId": page.page_id, "question": "Still needed?", "wait": 60})
        card = page.locator("dbg-human [data-question]")
        card.wait_for(timeout=10000)
        wait = session.start("page_wait", {"pageId": page.page_id, "text": "never appears anywhere", "timeout": 60})
        page.wait_for_function(RUNNING, timeout=5000)
    finally:
        session.close()
    assert ask.done() and wait.done()  # the client gave up on both when it closed
    card.wait_for(state="detached", timeout=5000)
    page.wait_for_function(IDLE, timeout=5000)
    for tool in ("user_ask", "page_wait"):
        wait_until(lambda: _cancelled_in_audit(bridge, tool, page.page_id), 5, what=f"the audit record of {tool}")
