"""A page whose CSP forbids eval still connects and answers named commands; and every kind of JS value comes
back as bounded JSON (or a named error that says what to do)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from tests.support import CONNECTED, ok, text_of


@pytest.fixture(scope="module")
def page_id(browser, dev) -> Iterator[str]:
    """One plain page for all the rendering tests of this module."""
    ctx = browser.new_context()
    page = ctx.new_page()
    page.goto(dev.url("/single.html"))
    page.wait_for_function(CONNECTED, timeout=10000)
    yield page.evaluate("window.__dbg.pageId")
    ctx.close()


def run(mcp, page_id: str, code: str, **extra):
    """The result of running `code`, failing the test if it errs."""
    got = ok(mcp.call("page_exec", {"pageId": page_id, "code": code, **extra}))
    assert got["pageId"] == page_id
    return got["result"]


def error(mcp, page_id: str, code: str) -> str:
    """The error text of running `code`, failing the test if it succeeds."""
    res = mcp.call("page_exec", {"pageId": page_id, "code": code})
    assert res.is_error, res.structured_content
    return text_of(res)


# ---- CSP without 'unsafe-eval' ---------------------------------------------------------------------------


def test_a_page_whose_csp_forbids_eval_connects_answers_commands_and_refuses_code_with_csp_blocked(context, dev, mcp):
    page = context.new_page()
    page.goto(dev.url("/strict.csp.html"))
    # A function, not an expression: Playwright evals expression strings in the page, which this CSP forbids.
    page.wait_for_function(f"() => {CONNECTED}", timeout=10000)
    pid = page.evaluate("window.__dbg.pageId")

    pong = ok(mcp.call("page_exec", {"pageId": pid, "command": "ping"}))["result"]
    assert pong["pong"] is True and pong["frameId"] == "host" and pong["url"] == dev.url("/strict.csp.html")
    loc = ok(mcp.call("page_exec", {"pageId": pid, "command": "location"}))["result"]
    assert loc["href"] == dev.url("/strict.csp.html") and loc["title"] == "csp page" and loc["readyState"] == "complete"

    text = error(mcp, pid, "document.title")
    assert "[csp_blocked]" in text
    assert "'unsafe-eval' is not allowed" in text and "Content-Security-Policy" in text
    assert "ping" in text and "location" in text  # says what still works


# ---- result rendering ------------------------------------------------------------------------------------


def test_undefined_nan_infinity_and_bigint_come_back_as_readable_markers(mcp, page_id):
    assert run(mcp, page_id, "undefined") == "[undefined]"
    assert run(mcp, page_id, "[NaN, Infinity, -Infinity, 10n ** 30n, null, 1.5, true]") == [
        "[NaN]", "[Infinity]", "[-Infinity]", "1000000000000000000000000000000n", None, 1.5, True]
    # a property that is undefined is absent, as in JSON (no placeholder)
    assert run(mcp, page_id, "({u: undefined, big: 7n})") == {"big": "7n"}


def test_a_cyclic_object_comes_back_with_the_cycle_marked(mcp, page_id):
    got = run(mcp, page_id, "(() => { const a = {name: 'a', kids: []}; a.kids.push({up: a}); a.self = a; return a })()")
    assert got == {"name": "a", "kids": [{"up": "[Circular ~$]"}], "self": "[Circular ~$]"}
    # The same object twice but not in a cycle is rendered twice.
    assert run(mcp, page_id, "(() => { const x = {v: 1}; return [x, x] })()") == [{"v": 1}, {"v": 1}]


def test_maps_and_sets_come_back_as_tagged_entries(mcp, page_id):
    got = run(mcp, page_id, "[new Map([['k', 1], [2, {x: new Set([3])}]]), new Set(['a', 1, null])]")
    assert got == [{"[Map]": [["k", 1], [2, {"x": {"[Set]": [3]}}]]}, {"[Set]": ["a", 1, None]}]


def test_a_dom_element_comes_back_described_not_serialized(mcp, page_id):
    assert run(mcp, page_id, "document.getElementById('who')") == '[Element <p#who> "single"]'
    assert run(mcp, page_id, "document") == "[Document " + run(mcp, page_id, "location.href") + "]"
    assert run(mcp, page_id, "document.querySelectorAll('p, title').length") == 2


def test_a_thrown_error_comes_back_as_page_exception_with_message_and_stack(mcp, page_id):
    text = error(mcp, page_id, "function explodeHere() { throw new TypeError('boom: ' + args) }\nexplodeHere()")
    assert "[page_exception]" in text and page_id in text
    assert "TypeError: boom: null" in text
    assert re.search(r"at explodeHere", text), text  # the page's stack is there


def test_a_thrown_non_error_value_comes_back_rendered(mcp, page_id):
    text = error(mcp, page_id, "throw {reason: 'nope', n: 3, nan: NaN}")
    assert "[page_exception]" in text
    assert 'Uncaught (non-Error) value thrown: {"reason":"nope","n":3,"nan":"[NaN]"}' in text
    assert "Uncaught (non-Error) value thrown: \"just text\"" in error(mcp, page_id, "throw 'just text'")


def test_a_five_million_char_string_is_never_cut_it_fails_as_result_too_large_naming_its_real_size(mcp, page_id):
    text = error(mcp, page_id, "'ab'.repeat(2500000)")
    assert "[result_too_large]" in text and "5000002 characters" in text


def test_a_result_over_the_cap_is_result_too_large_naming_its_size(mcp, page_id):
    text = error(mcp, page_id, "Array.from({length: 50}, () => 'y'.repeat(50000))")
    # 50 JSON strings of 50,002 chars, 49 commas and 2 brackets.
    assert "[result_too_large]" in text
    assert "2500151 characters" in text and "512000" in text
    assert "slice" in text  # says how to get less


def test_an_async_body_with_return_gets_args_and_its_awaited_value_comes_back(mcp, page_id):
    code = ("const sum = await new Promise(r => setTimeout(() => r(args.a + args.b), 10));\n"
            "return {sum, names: args.names.map(n => n.toUpperCase()), title: document.title}")
    got = run(mcp, page_id, code, args={"a": 2, "b": 40, "names": ["x", "y"]})
    assert got == {"sum": 42, "names": ["X", "Y"], "title": "single page"}
    # An expression is returned as is, and a promise it yields is awaited.
    assert run(mcp, page_id, "Promise.resolve(args * 2)", args=21) == 42


def test_a_syntax_error_is_syntax_error_saying_to_fix_the_code(mcp, page_id):
    text = error(mcp, page_id, "let = ;")
    assert "[syntax_error]" in text and "SyntaxError" in text and "Fix the code" in text
    # And the page still runs the next call.
    assert run(mcp, page_id, "1 + 1") == 2
