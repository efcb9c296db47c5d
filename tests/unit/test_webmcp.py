"""bridge/pages/webmcp.py: each registration a page sends is checked on its own, with a named reason when it is left
out; the bounds; the names a page may not take; a page's list as the protocol reads it."""

from __future__ import annotations

import json

import pytest

from bridge.human.inbox import Inbox
from bridge.pages.protocol import ProtocolError, parse_up
from bridge.pages.registry import Instance
from bridge.tools import TOOLS
from bridge.pages.webmcp import MAX_TOOLS, RESERVED_RE, Dropped, WebTools, check


def row(name: str = "t", schema: object = None, **extra: object) -> dict:
    return {"name": name, "description": "d", "frameId": "host",
            "schema": json.dumps(schema if schema is not None else {"type": "object"}), **extra}


def code_of(entry: object) -> str:
    with pytest.raises(Dropped) as exc:
        check(entry)
    return exc.value.code


def test_every_bridge_tool_name_is_one_a_page_cannot_take():
    assert [t.name for t in TOOLS if not RESERVED_RE.match(t.name)] == []


@pytest.mark.parametrize("entry, code", [
    ("not an object", "bad_tool"),
    (row("has space"), "bad_tool_name"),
    (row("x" * 65), "bad_tool_name"),
    (row("page_exec"), "reserved_tool_name"),
    (row("inbox"), "reserved_tool_name"),
    (row(description="d" * 4001), "description_too_long"),
    ({"name": "t", "schema": "{" * 40000}, "schema_too_large"),
    ({"name": "t", "schema": "{nope"}, "bad_schema"),
    (row(schema={"type": "array"}), "bad_schema"),
    (row(schema={"type": "object", "properties": {"a": {"type": "no-such-type"}}}), "bad_schema"),
    ({"name": "t", "schema": '{"properties":' * 20 + "{}" + "}" * 20}, "schema_too_deep"),
    (row(frameId="../x"), "bad_tool"),
    ({"name": "t", "error": {"code": "schema_too_large", "message": "1 MB"}}, "schema_too_large"),
])
def test_a_bad_registration_is_dropped_with_its_reason(entry, code):
    assert code_of(entry) == code


def test_a_good_registration_keeps_its_words_and_only_plain_annotations():
    tool = check(row("add", {"type": "object", "properties": {"n": {"type": "integer"}}},
                     annotations={"readOnlyHint": True, "nested": {"x": 1}}, title="Add"))
    assert (tool.name, tool.title, tool.annotations) == ("add", "Add", {"readOnlyHint": True})
    assert not list(tool.validator().iter_errors({"n": 2})) and list(tool.validator().iter_errors({"n": "2"}))


def test_a_tab_keeps_at_most_max_tools_says_the_rest_once_and_forgets_a_reloaded_document():
    inbox = Inbox()
    tools = WebTools(inbox)
    changes: list[int] = []
    tools.hooks.append(lambda: changes.append(1))
    inst = Instance("5173", "s" * 32, doc="doc1")
    rows = [row(f"t{i}") for i in range(MAX_TOOLS)] + [row("t0")]
    cat = tools.update(inst, rows, 10_000)
    assert len(cat.tools) == MAX_TOOLS
    assert sorted(d["code"] for d in cat.dropped) == ["duplicate_tool_name", "too_many_tools"]
    tools.update(inst, rows, 10_000)
    assert len(inbox.items) == 2 and changes == [1]  # the same list again: nothing new said or announced
    inst.doc = "doc2"
    assert tools.of(inst) is None and tools.count(inst) == 0


def test_a_page_s_list_longer_than_the_protocol_takes_is_a_protocol_error_not_a_crash():
    with pytest.raises(ProtocolError):
        parse_up({"type": "tools", "tools": [{}] * 257, "total": 257})
    assert parse_up({"type": "tools", "tools": [{"anything": 1}], "total": 1}).tools == [{"anything": 1}]
