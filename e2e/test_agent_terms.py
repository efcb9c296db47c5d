"""Answers in the agent's terms: errors point into the code it sent (line:col, no client frames), console entries
hold what was logged (an Error as message + stack, no placeholders), times are epoch milliseconds, and the lines
page_act says changed read like the snapshot's."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests.support import CONNECTED, ok, text_of


@pytest.fixture(scope="module")
def tab(browser, dev) -> Iterator[object]:
    ctx = browser.new_context()
    page = ctx.new_page()
    page.goto(dev.url("/single.html"))
    page.wait_for_function(CONNECTED, timeout=10000)
    yield page
    ctx.close()


@pytest.fixture(scope="module")
def page_id(tab) -> str:
    return tab.evaluate("window.__dbg.pageId")


def error(mcp, page_id: str, code: str) -> str:
    res = mcp.call("page_exec", {"pageId": page_id, "code": code})
    assert res.is_error, res.structured_content
    return text_of(res)


def test_code_that_ends_too_early_names_the_unclosed_bracket_in_the_agent_s_code(mcp, page_id):
    text = error(mcp, page_id, "return (1 +")
    assert text.startswith("[syntax_error]"), text
    assert """your code ends before "(" at line 1:8 is closed""" in text and "'}'" not in text


def test_an_unexpected_token_says_where_it_is(mcp, page_id):
    text = error(mcp, page_id, "const a = 1;\nconst b = a a;")
    assert "[syntax_error]" in text and "Unexpected identifier 'a'" in text and "at line" in text


def test_an_exception_points_at_line_and_column_of_the_code_without_client_frames(mcp, page_id):
    text = error(mcp, page_id, "const a = 1;\nnull.x")
    assert text.startswith("[page_exception]"), text
    assert "TypeError: Cannot read properties of null (reading 'x')" in text
    assert "at your code:2:6" in text
    assert "dbg_client.js" not in text and "<anonymous>" not in text
    assert text.count("Cannot read properties") == 1


def test_a_named_function_in_the_code_keeps_its_name_and_an_expression_its_column(mcp, page_id):
    text = error(mcp, page_id, "function f() { return null.y }\nreturn f()")
    assert "at f (your code:1:28)" in text and "at your code:2:8" in text
    assert "at your code:1:6" in error(mcp, page_id, "null.x")


def test_console_entries_have_no_placeholders_and_an_error_is_message_and_stack(mcp, tab, page_id):
    # logged by the app's own code (not page_exec's), as an app would
    tab.evaluate("() => { function appCode() { console.log('plain'); console.error(new Error('boom')) } appCode() }")
    entries = ok(mcp.call("page_console", {"pageId": page_id, "stack": True}))["entries"]
    plain = next(e for e in entries if e["text"] == "plain")
    boom = next(e for e in entries if "boom" in e["text"])
    assert "stack" not in plain and "[undefined]" not in str(entries)
    assert boom["text"] == "Error: boom" and boom["level"] == "error"
    # the stack is its frames, one line each (mapped where a map covers them): the app's function is among them
    assert any(line.startswith("at appCode ") for line in boom["stack"]) and "dbg_client.js" not in str(boom["stack"])
    now_ms = time.time() * 1000
    assert abs(boom["time"] - now_ms) < 60_000


def test_page_list_and_network_entries_use_epoch_milliseconds_and_leave_absent_fields_out(mcp, page_id):
    row = next(r for r in mcp.pages() if r["pageId"] == page_id)
    assert isinstance(row["lastSeen"], int) and abs(row["lastSeen"] - time.time() * 1000) < 60_000
    ok(mcp.call("page_exec", {"pageId": page_id, "code": "await fetch(location.href); 1"}))
    net = ok(mcp.call("page_network", {"pageId": page_id}))
    assert net["requests"] and "[undefined]" not in str(net)
    detail = ok(mcp.call("page_network", {"pageId": page_id, "id": net["requests"][-1]["id"]}))
    assert "[undefined]" not in str(detail) and "requestBody" not in detail["request"]


def test_page_act_changed_lines_read_like_the_snapshot_and_its_note_comes_once(mcp, page_id):
    ok(mcp.call("page_exec", {"pageId": page_id, "code":
                              "const b = document.createElement('button'); b.textContent = 'Add'; b.id = 'add';"
                              "b.onclick = () => { const i = document.createElement('button'); i.textContent = 'New';"
                              " document.body.append(i) }; document.body.append(b); 1"}))
    first = ok(mcp.call("page_act", {"pageId": page_id, "action": "click", "selector": "#add"}))
    assert any(line.startswith('+ button "New"') for line in first["changed"]), first["changed"]
    assert not any(line.startswith(("- - ", "+ - ")) for line in first["changed"])
    again = ok(mcp.call("page_act", {"pageId": page_id, "action": "click", "selector": "#add"}))
    assert "untrusted" not in again  # said once per session (the module's earlier calls may have heard it)
