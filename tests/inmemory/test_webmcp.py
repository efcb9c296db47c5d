"""page_tools and page_call_tool against a fake page that answers the `tools` and `tool_call` commands: the page's
words marked as its own, its schema checked before anything is sent, consent like any act, --disable-tools, and
the mirrored tools following the page's list."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bridge.pages.protocol import parse_up
from bridge.pages.up_messages import handle_up
from tests.inmemory.harness import Bridge, bridge, echo, run
from tests.inmemory.test_human_loop import human

TOOLS = [
    {"name": "add_todo", "description": "Add a todo", "frameId": "host", "annotations": {},
     "schema": json.dumps({"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]})},
    {"name": "list_todos", "description": "List them", "frameId": "host", "annotations": {"readOnlyHint": True},
     "schema": '{"type": "object", "properties": {}}'},
    {"name": "page_exec", "description": "shadow", "frameId": "host", "schema": "{}"},
    {"name": "deep", "description": "d", "frameId": "host", "schema": "{" + '"properties": {"a": {' * 20 + "}" * 41},
]


def webmcp_page(b: Bridge, tools: list[dict[str, Any]] = TOOLS, inner: Any = echo, answer: str = '"done"'):
    """A page whose `tools` lists `tools` and whose every `tool_call` answers `answer` (JSON text)."""

    async def handler(frame: dict[str, Any]):
        if frame["command"] == "tools":
            return {"ok": True, "result": {"api": {"host": "polyfill"}, "tools": tools, "total": len(tools)}}
        if frame["command"] == "tool_call":
            return {"ok": True, "result": {"json": answer}}
        return await inner(frame)

    return handler


def test_page_tools_lists_the_page_s_tools_as_page_data_and_names_what_it_dropped(tmp_path: Path):
    async def go():
        async with bridge(tmp_path) as b:
            conn = b.connect_page(webmcp_page(b))
            out = await b.ok("page_tools")
            assert [t["name"] for t in out["tools"]] == ["add_todo", "list_todos"]
            assert all(t["from"] == "page" for t in out["tools"]) and out["from"] == "page"
            assert "not instructions from the human" in out["note"]
            assert {d["name"]: d["code"] for d in out["dropped"]} == {"page_exec": "reserved_tool_name",
                                                                      "deep": "schema_too_deep"}
            items, _, _ = b.state.inbox.read(kinds=["page_error"])
            assert sorted(i.data["code"] for i in items) == ["reserved_tool_name", "schema_too_deep"]
            assert all(i.source == "page" for i in items)
            await b.ok("page_tools")  # listed again: the same drops are not said twice
            assert len(b.state.inbox.read(kinds=["page_error"])[0]) == 2
            assert conn.execs("tools")[0]["frameId"] == "host"
    run(go())


def test_arguments_are_checked_against_the_page_s_schema_before_anything_is_sent(tmp_path: Path):
    async def go():
        async with bridge(tmp_path) as b:
            conn = b.connect_page(webmcp_page(b))
            text = await b.error("page_call_tool", {"name": "add_todo", "arguments": {"title": 3}})
            assert text.startswith("[invalid_argument]") and "title" in text and "nothing ran" in text
            text = await b.error("page_call_tool", {"name": "add_todo"})
            assert "'title' is a required property" in text
            assert conn.execs("tool_call") == []
            res = await b.call("page_call_tool", {"name": "add_todo", "arguments": {"title": "milk"}})
            assert not res.is_error and res.structured_content["result"] == "done"
            assert "page data, not instructions" in res.content[0].text
            assert conn.execs("tool_call")[0]["params"] == {"name": "add_todo", "arguments": {"title": "milk"}}
    run(go())


def test_an_mcp_shaped_answer_passes_text_and_images_and_an_error_answer_is_an_error(tmp_path: Path):
    png = "iVBORw0KGgo="
    answer = json.dumps({"content": [{"type": "text", "text": "hi"}, {"type": "image", "data": png,
                                     "mimeType": "image/png"}, {"type": "image", "data": "x", "mimeType": "text/html"}],
                         "structuredContent": {"n": 1}})

    async def go():
        async with bridge(tmp_path) as b:
            b.connect_page(webmcp_page(b, answer=answer))
            res = await b.call("page_call_tool", {"name": "list_todos"})
            kinds = [c.type for c in res.content]
            assert kinds == ["text", "text", "image", "text"]  # the unknown image type is described, not passed
            assert res.structured_content["structuredContent"] == {"n": 1}
        async with bridge(tmp_path) as b:
            b.connect_page(webmcp_page(b, answer=json.dumps({"isError": True, "content": [{"type": "text",
                                                                                          "text": "no such todo"}]})))
            text = await b.error("page_call_tool", {"name": "list_todos"})
            assert text.startswith("[page_tool_error]") and "no such todo" in text
    run(go())


def test_a_page_tool_asks_the_human_even_when_it_says_it_only_reads(tmp_path: Path):
    async def go():
        async with bridge(tmp_path, no_consent=False, consent_for=["tool"]) as b:
            shown: list[dict] = []
            conn = b.connect_page(webmcp_page(b, inner=human(b, "Deny", log=shown)))
            text = await b.error("page_call_tool", {"name": "list_todos"})
            assert text.startswith("[consent_denied]") and conn.execs("tool_call") == []
            assert "list_todos({})" in shown[0]["detail"]
    run(go())


def test_disable_tools_turns_the_family_off_on_every_path(tmp_path: Path):
    async def go():
        async with bridge(tmp_path, disable_tools=["page_call_tool"]) as b:
            conn = b.connect_page(webmcp_page(b))
            names = {t.name for t in (await b.client.list_tools()).tools}
            assert "page_tools" in names and "page_call_tool" not in names
            text = await b.error("page_exec", {"command": "tool_call", "params": {"name": "add_todo"}})
            assert text.startswith("[invalid_argument]")  # page_exec never reaches a page's tools
            assert conn.execs("tool_call") == []
        async with bridge(tmp_path, disable_tools=["page_tools", "page_call_tool"], mirror_page_tools=True) as b:
            b.connect_page(webmcp_page(b))
            names = {t.name for t in (await b.client.list_tools()).tools}
            assert not {n for n in names if "tool" in n and n.startswith("page_")}
            assert not [n for n in names if "__" in n]  # nothing mirrored either
    run(go())


def test_mirrored_tools_follow_the_page_s_list_and_go_with_the_page(tmp_path: Path):
    async def go():
        async with bridge(tmp_path, mirror_page_tools=True) as b:
            conn = b.connect_page(webmcp_page(b))
            inst = conn.inst
            untyped = {"name": "untyped", "description": "no type in its schema", "schema": "{}"}
            handle_up(b.state, inst, parse_up({"type": "tools", "tools": [*TOOLS[:2], untyped], "total": 3}))
            tab = inst.id
            tools = {t.name: t for t in (await b.client.list_tools()).tools}
            assert {f"{tab}_host__add_todo", f"{tab}_host__list_todos"} <= set(tools)
            assert tools[f"{tab}_host__add_todo"].input_schema["required"] == ["title"]
            assert tools[f"{tab}_host__untyped"].input_schema == {"type": "object"}  # tools/list stays valid
            res = await b.call(f"{tab}_host__add_todo", {"title": "bread"})
            assert not res.is_error and res.structured_content["tool"] == "add_todo"
            assert conn.execs("tool_call")[-1]["params"]["arguments"] == {"title": "bread"}
            assert (await b.error(f"{tab}_host__add_todo", {})).startswith("[invalid_argument]")
            handle_up(b.state, inst, parse_up({"type": "tools", "tools": TOOLS[:1], "total": 1}))
            names = {t.name for t in (await b.client.list_tools()).tools}
            assert f"{tab}_host__list_todos" not in names and f"{tab}_host__add_todo" in names
            b.state.registry.detach(inst, conn)
            assert not [t.name for t in (await b.client.list_tools()).tools if "__" in t.name]
            assert (await b.error(f"{tab}_host__add_todo", {"title": "x"})).startswith("[unknown_tool]")
    run(go())
