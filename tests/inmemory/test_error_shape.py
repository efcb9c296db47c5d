"""Every tool failure has one shape: text starting `[code]`, saying what happened and what to do next, with no SDK
prefix and no links to other projects' docs."""

from __future__ import annotations

import pytest

from pathlib import Path

from tests.inmemory.harness import assert_shape, bridge

pytestmark = pytest.mark.anyio


async def test_a_wrong_type_names_the_field_the_expected_type_the_range_and_what_came(tmp_path: Path):
    async with bridge(tmp_path) as b:
        b.connect_page()
        body = assert_shape(await b.call("page_snapshot", {"depth": "deep"}), "invalid_argument")
    assert 'page_snapshot.depth: expected an integer (0 to 64), got "deep"' in body
    assert body.endswith("Fix the argument and call page_snapshot again.")


async def test_a_value_outside_a_literal_lists_the_allowed_values(tmp_path: Path):
    async with bridge(tmp_path) as b:
        b.connect_page()
        body = assert_shape(await b.call("page_act", {"action": "tap", "ref": "e1@ab"}), "invalid_argument")
    assert "page_act.action: expected one of 'click', 'dblclick'," in body
    assert 'got "tap"' in body


async def test_out_of_range_numbers_say_the_bound_and_the_range(tmp_path: Path):
    async with bridge(tmp_path) as b:
        body = assert_shape(await b.call("page_exec", {"code": "1", "timeout": 0}), "invalid_argument")
    assert "page_exec.timeout: must be above 0 and at most 300, got 0" in body


async def test_a_missing_required_argument_is_named(tmp_path: Path):
    async with bridge(tmp_path) as b:
        b.connect_page()
        body = assert_shape(await b.call("user_notify", {}), "invalid_argument")
    assert "user_notify.message: is required" in body


async def test_several_bad_fields_are_each_named_once(tmp_path: Path):
    async with bridge(tmp_path) as b:
        body = assert_shape(await b.call("inbox", {"since": -1, "limit": "many"}), "invalid_argument")
    assert "inbox.since: must be ≥ 0, got -1" in body and 'inbox.limit: expected an integer (1 to 200), got "many"' in body
    assert "Fix the arguments" in body


async def test_an_unknown_argument_is_refused_with_a_close_match_and_the_real_names(tmp_path: Path):
    async with bridge(tmp_path) as b:
        b.connect_page()
        conn = b.state.registry.instances["5173"].conn
        body = assert_shape(await b.call("page_snapshot", {"pageid": "5173/host"}), "invalid_argument")
    assert "page_snapshot has no argument 'pageid'. Did you mean 'pageId' for 'pageid'?" in body
    assert "Its arguments: root, depth," in body
    assert conn.execs() == []  # nothing reached the page


async def test_an_unknown_tool_lists_the_tools_there_are(tmp_path: Path):
    async with bridge(tmp_path) as b:
        body = assert_shape(await b.call("page_click", {}), "unknown_tool")
    assert "There is no tool 'page_click'. Tools here: page_list, page_exec," in body


async def test_a_named_bridge_error_keeps_its_code_without_the_sdk_prefix(tmp_path: Path):
    async with bridge(tmp_path) as b:
        body = assert_shape(await b.call("page_snapshot", {}), "no_page")
    assert "No page is connected." in body and "then call page_list" in body


async def test_a_tool_argument_rule_gives_invalid_argument(tmp_path: Path):
    async with bridge(tmp_path) as b:
        b.connect_page()
        body = assert_shape(await b.call("page_exec", {}), "invalid_argument")
    assert "Give exactly one of `code`" in body


async def test_a_page_side_failure_keeps_the_page_s_code(tmp_path: Path):
    async def fail(frame):
        return {"ok": False, "error": {"code": "stale_ref", "message": "Ref e9@ab is gone; take a new snapshot."}}

    async with bridge(tmp_path) as b:
        b.connect_page(fail)
        body = assert_shape(await b.call("page_act", {"action": "click", "ref": "e9@ab"}), "stale_ref")
    assert "Ref e9@ab is gone" in body


async def test_a_bug_in_a_handler_is_an_internal_error_that_says_it_is_not_the_agent_s_fault(tmp_path: Path):
    async def broken(frame):
        return {"ok": True, "result": "not a dict"}  # page_find spreads its result: a TypeError in the bridge

    async with bridge(tmp_path) as b:
        b.connect_page(broken)
        body = assert_shape(await b.call("page_find", {"text": "x"}), "internal_error")
    assert "This is a bridge bug, not your arguments" in body


async def test_errors_are_audited_with_their_code(tmp_path: Path):
    async with bridge(tmp_path) as b:
        await b.call("page_snapshot", {"depth": "deep"})
        await b.call("nope", {})
    codes = [r.get("code") for r in b.state.audit.recent if r.get("kind") == "tool"]
    assert codes[-2:] == ["invalid_argument", "unknown_tool"]
