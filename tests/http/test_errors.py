"""Every tool error, through the real MCP client, with Python fake pages on WebSocket and SSE: each names its code
and the next step. The bridge app runs in this process under a real uvicorn (the page streams need one):
`bridge` and `mcp` are this module's own (tests/http/conftest.py), so pages other modules leave cannot change what
is live."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests.http.bridge_app import Served
from tests.pageloop import PageLoop
from tests.support import Bridges, McpSession, ok, text_of, wait_until


@pytest.fixture(scope="module")
def lone(served: Bridges) -> Iterator[tuple[Served, McpSession]]:
    """A bridge no page ever connects to."""
    app = served(name="lone")
    session = McpSession(app.mcp_url, app.token)
    yield app, session
    session.close()


@pytest.fixture
def pages() -> Iterator[PageLoop]:
    """Fake pages per test here: what one test leaves connected must not make the next one's page ambiguous."""
    with PageLoop() as loop:
        yield loop


def error_of(result) -> str:
    assert result.is_error, f"expected an error, got {result.structured_content}"
    return text_of(result)


def timed_call(mcp: McpSession, args: dict, timeout: float = 60) -> tuple[str, float]:
    started = time.monotonic()
    result = mcp.call("page_exec", args, timeout=timeout)
    return error_of(result), time.monotonic() - started


def state_of(mcp: McpSession, page_id: str) -> str | None:
    return next((r["state"] for r in mcp.pages() if r["pageId"] == page_id), None)


# ---- addressing -----------------------------------------------------------------------------


def test_with_no_page_connected_page_exec_says_how_to_connect_one(lone):
    proc, session = lone
    text = error_of(session.call("page_exec", {"code": "document.title"}))
    assert "[no_page]" in text
    assert f"{proc.base}/inject/dbg_client.js" in text and f"{proc.base}/demo" in text
    assert "then call page_list" in text


def test_with_no_page_connected_page_list_is_empty_and_hints_how_to_connect(lone):
    proc, session = lone
    listed = ok(session.call("page_list"))
    assert listed["pages"] == []
    assert f"{proc.base}/inject/dbg_client.js" in listed["hint"] and f"{proc.base}/demo" in listed["hint"]


def test_with_several_live_pages_and_no_page_id_the_error_lists_the_candidates(bridge, mcp, pages):
    a = pages.connect(bridge.base)
    b = pages.connect(bridge.base, channel="sse")
    text = error_of(mcp.call("page_exec", {"code": "1+1"}))
    assert "[ambiguous_page]" in text and "pageId is needed" in text
    assert a.page_id in text and b.page_id in text
    assert a.execs == 0 and b.execs == 0


def test_with_exactly_one_live_page_the_page_id_may_be_omitted(lone, pages):
    proc, session = lone
    page = pages.connect(proc.base)
    try:
        out = ok(session.call("page_exec", {"code": "1+1"}))
        assert (out["pageId"], out["result"]) == (page.page_id, 2)
    finally:
        pages.disconnect(page)
        wait_until(lambda: state_of(session, page.page_id) != "live", what="page to go away")


@pytest.mark.parametrize("page_id", ["zz", "5173/window", "ABC12/host", "5173/host/f0", "../../etc"])
def test_a_malformed_page_id_is_unknown_page_with_the_expected_format(mcp, page_id):
    text = error_of(mcp.call("page_exec", {"code": "1", "pageId": page_id}))
    assert "[unknown_page]" in text and "is not a pageId" in text
    assert "'5173/host'" in text and "call page_list" in text


@pytest.mark.parametrize("page_id", ["65000/host", "qq999/host", "qq999/f3"])
def test_a_well_formed_page_id_nobody_has_is_unknown_page(mcp, page_id):
    text = error_of(mcp.call("page_exec", {"code": "1", "pageId": page_id}))
    assert "[unknown_page]" in text and "is known" in text and "Call page_list" in text


def test_a_frame_the_page_does_not_have_is_unknown_page_listing_its_frames(bridge, mcp, pages):
    page = pages.connect(bridge.base, frames=[{"frameId": "f0", "parent": "host"}])
    text = error_of(mcp.call("page_exec", {"code": "1", "pageId": f"{page.instance_id}/f7"}))
    assert "[unknown_page]" in text and "no frame 'f7'" in text
    assert f"{page.instance_id}/f0" in text and "Call page_list" in text
    assert page.execs == 0


def test_a_cross_origin_frame_is_refused_with_how_to_reach_it(bridge, mcp, pages):
    page = pages.connect(bridge.base, frames=[{"frameId": "f0", "parent": "host", "crossOrigin": True,
                                           "origin": "https://widgets.example"}])
    text = error_of(mcp.call("page_exec", {"code": "1", "pageId": f"{page.instance_id}/f0"}))
    assert "[cross_origin_frame]" in text and "https://widgets.example" in text
    assert "Load the client in that page" in text
    assert page.execs == 0


# ---- the page does not answer ---------------------------------------------------------------


def test_a_page_that_does_not_answer_in_time_gives_page_timeout_naming_the_timeout(bridge, mcp, pages):
    gate = pages.gate()
    page = pages.connect(bridge.base, handler=gate.handler)
    text, took = timed_call(mcp, {"code": "while(true){}", "pageId": page.page_id, "timeout": 1})
    assert gate.next_frame()["timeout"] == 1
    assert "[page_timeout]" in text and "within 1 s" in text
    assert "retry with a larger timeout" in text and "at most 300 s" in text
    assert 0.9 <= took < 5


def test_a_late_answer_after_a_timeout_is_dropped_and_the_page_keeps_working(bridge, mcp, pages):
    gate = pages.gate()
    page = pages.connect(bridge.base, handler=gate.handler)
    text, _ = timed_call(mcp, {"code": "slow()", "pageId": page.page_id, "timeout": 1})
    assert "[page_timeout]" in text
    gate.open()  # the first call's answer now arrives, too late; nothing is waiting for it
    assert ok(mcp.call("page_exec", {"code": "fast()", "pageId": page.page_id, "timeout": 5}))["result"] == \
        "the real answer"


@pytest.mark.parametrize("channel", ["ws", "sse"])
def test_a_page_that_disconnects_mid_call_fails_the_call_at_once(bridge, mcp, pages, channel):
    gate = pages.gate()
    page = pages.connect(bridge.base, channel=channel, handler=gate.handler)
    started = time.monotonic()
    future = mcp.start("page_exec", {"code": "await never()", "pageId": page.page_id, "timeout": 30})
    gate.next_frame()
    pages.disconnect(page)
    text = error_of(future.result(timeout=15))
    assert time.monotonic() - started < 5  # not the call's 30 s timeout
    assert "[page_disconnected]" in text and "disconnected after the command was sent to it" in text
    assert "outcome unknown: it may have run" in text and "do not blindly retry" in text
    assert "call page_list" in text


def test_a_page_that_unloads_mid_call_fails_the_call_with_page_unloaded(bridge, mcp, pages):
    gate = pages.gate()
    page = pages.connect(bridge.base, handler=gate.handler)
    started = time.monotonic()
    future = mcp.start("page_exec", {"code": "location.reload()", "pageId": page.page_id, "timeout": 30})
    gate.next_frame()
    pages.send(page, {"type": "bye"})
    text = error_of(future.result(timeout=15))
    assert time.monotonic() - started < 5
    assert "[page_unloaded]" in text and "keeps its pageId" in text
    assert "after the command was sent to it (outcome unknown" in text
    assert "call page_list, then do not blindly retry code that is not idempotent" in text


def test_a_page_that_reloads_mid_call_fails_the_call_with_page_reloaded(bridge, mcp, pages):
    gate = pages.gate()
    page = pages.connect(bridge.base, handler=gate.handler)
    first_id = page.instance_id
    future = mcp.start("page_exec", {"code": "1", "pageId": page.page_id, "timeout": 30})
    gate.next_frame()
    pages.run(page.register(reclaim=True))
    text = error_of(future.result(timeout=15))
    assert page.instance_id == first_id
    assert "[page_reloaded]" in text and "same pageId" in text and "Do not blindly retry" in text


def test_a_call_to_a_page_that_is_away_waits_briefly_then_says_to_reload_the_tab(bridge, mcp, pages):
    page = pages.connect(bridge.base)
    pages.disconnect(page)
    wait_until(lambda: (state_of(mcp, page.page_id) or "").startswith("reconnecting"), what="page away")
    text, took = timed_call(mcp, {"code": "1", "pageId": page.page_id, "timeout": 1})
    assert "[page_disconnected]" in text and "did not come back within 1 s" in text
    assert "stays reserved" in text and "reload it" in text and "page_list" in text
    assert 0.9 <= took < 5


# ---- the page answers with an error ---------------------------------------------------------


def test_an_exception_in_the_page_comes_back_as_page_exception_with_its_stack(bridge, mcp, pages):
    gate = pages.gate({"ok": False, "error": {
        "code": "page_exception", "message": "TypeError: Cannot read properties of undefined (reading 'x')",
        "stack": "TypeError: Cannot read properties of undefined\n    at render (http://localhost:5173/app.js:12:7)"}})
    gate.open()
    page = pages.connect(bridge.base, handler=gate.handler)
    text = error_of(mcp.call("page_exec", {"code": "undefined.x", "pageId": page.page_id}))
    assert "[page_exception]" in text and page.page_id in text
    assert "TypeError: Cannot read properties of undefined (reading 'x')" in text
    assert "at render (http://localhost:5173/app.js:12:7)" in text
    assert "fix the code" in text


def test_an_exception_without_a_stack_still_says_what_to_do(bridge, mcp, pages):
    gate = pages.gate({"ok": False, "error": {"code": "page_exception", "message": "Uncaught (non-Error) value thrown: 42"}})
    gate.open()
    page = pages.connect(bridge.base, handler=gate.handler)
    text = error_of(mcp.call("page_exec", {"code": "throw 42", "pageId": page.page_id}))
    assert "[page_exception]" in text and "value thrown: 42" in text and "fix the code" in text


def test_a_named_page_error_keeps_its_code_and_message(bridge, mcp, pages):
    gate = pages.gate({"ok": False, "error": {
        "code": "csp_blocked", "message": "This page's Content-Security-Policy forbids eval. Use a named command."}})
    gate.open()
    page = pages.connect(bridge.base, handler=gate.handler)
    text = error_of(mcp.call("page_exec", {"code": "1", "pageId": page.page_id}))
    assert "[csp_blocked]" in text and "Use a named command." in text


# ---- arguments ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, named",
    [
        ({"code": "1", "timeout": "abc"}, "timeout"),
        ({"code": "1", "timeout": 9999}, "timeout"),
        ({"code": "1", "timeout": 0}, "timeout"),
        ({"code": "1", "timeout": -5}, "timeout"),
        ({"command": "nope"}, "command"),
        ({"code": 42}, "code"),
        ({"code": "1", "params": "not an object"}, "params"),
        ({"code": "1", "command": "ping"}, "exactly one of `code`"),
        ({}, "exactly one of `code`"),
    ],
)
def test_invalid_arguments_are_an_error_naming_the_field_and_never_reach_the_page(bridge, mcp, pages, args, named):
    page = pages.connect(bridge.base)
    text = error_of(mcp.call("page_exec", {**args, "pageId": page.page_id}))
    assert named in text
    assert page.execs == 0


def test_a_page_id_that_is_not_a_string_is_an_error_naming_page_id(mcp):
    assert "pageId" in error_of(mcp.call("page_exec", {"code": "1", "pageId": 5173}))


def test_a_numeric_timeout_sent_as_a_string_is_accepted(bridge, mcp, pages):
    gate = pages.gate()
    gate.open()
    page = pages.connect(bridge.base, handler=gate.handler)
    out = ok(mcp.call("page_exec", {"code": "1", "pageId": page.page_id, "timeout": "5"}))
    assert out["result"] == "the real answer"
    assert gate.next_frame()["timeout"] == 5


def test_a_named_command_reaches_the_page_with_its_params(bridge, mcp, pages):
    gate = pages.gate()
    gate.open()
    page = pages.connect(bridge.base, handler=gate.handler)
    ok(mcp.call("page_exec", {"command": "console", "params": {"since": 2}, "pageId": page.page_id}))
    frame = gate.next_frame()
    assert (frame["command"], frame["params"], frame["frameId"]) == ("console", {"since": 2, "limit": 100, "stack": False, "errors": False}, "host")
