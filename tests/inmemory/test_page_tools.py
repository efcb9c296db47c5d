"""Page tools over the official MCP client in-process, against fake pages: main paths and named errors."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.inmemory.harness import bridge

pytestmark = pytest.mark.anyio


async def test_page_list_names_every_connected_page_and_hints_when_there_is_none(tmp_path: Path):
    async with bridge(tmp_path) as b:
        empty = await b.ok("page_list")
        assert empty["pages"] == [] and "/inject/dbg_client.js" in empty["hint"]
        b.connect_page(title="Shop")
        rows = (await b.ok("page_list"))["pages"]
        assert [r["pageId"] for r in rows] == ["5173/host"] and rows[0]["title"] == "Shop"


async def test_page_exec_sends_code_as_an_eval_frame_and_returns_the_pages_value(tmp_path: Path):
    async with bridge(tmp_path) as b:
        conn = b.connect_page()
        out = await b.ok("page_exec", {"pageId": "5173/host", "code": "6 * 7"})
        assert out["result"] == 42 and out["pageId"] == "5173/host"
        (frame,) = conn.execs("eval")
        assert frame["frameId"] == "host" and frame["params"]["code"] == "6 * 7"


async def test_code_that_reads_as_json_reaches_the_page_as_the_text_sent(tmp_path: Path):
    """The SDK decodes a string sent for any parameter not typed plain `str`: `[1, 2]` was refused and `null` became
    None (bridge/tools/arguments.py Arguments). Parameters that are not text (`args`) still take JSON text."""
    async with bridge(tmp_path) as b:
        conn = b.connect_page()
        for code in ("[1, 2]", "{}", "null", '"x"', "12"):
            await b.ok("page_exec", {"pageId": "5173/host", "code": code})
            assert conn.execs("eval")[-1]["params"]["code"] == code
        await b.ok("page_exec", {"pageId": "5173/host", "code": "args", "args": "[1, 2]"})
        assert conn.execs("eval")[-1]["params"]["args"] == [1, 2]
        await b.ok("page_find", {"pageId": "5173/host", "selector": '["a"]'})
        assert conn.execs("find")[-1]["params"]["selector"] == '["a"]'


async def test_page_exec_without_page_id_uses_the_only_live_page(tmp_path: Path):
    async with bridge(tmp_path) as b:
        b.connect_page()
        assert (await b.ok("page_exec", {"code": "1+1"}))["result"] == 2


async def test_a_named_command_reaches_the_page_with_its_params(tmp_path: Path):
    async with bridge(tmp_path) as b:
        conn = b.connect_page()
        await b.ok("page_exec", {"command": "location", "params": {}})
        assert conn.execs("location")


async def test_no_page_is_a_named_error_that_says_how_to_connect_one(tmp_path: Path):
    async with bridge(tmp_path) as b:
        text = await b.error("page_exec", {"code": "1"})
        assert "no_page" in text and "/inject/dbg_client.js" in text


async def test_an_unknown_page_id_is_a_named_error_pointing_at_page_list(tmp_path: Path):
    async with bridge(tmp_path) as b:
        b.connect_page()
        text = await b.error("page_exec", {"pageId": "9999/host", "code": "1"})
        assert "unknown_page" in text and "page_list" in text
        text = await b.error("page_exec", {"pageId": "not a page", "code": "1"})
        assert "unknown_page" in text


async def test_an_unknown_frame_lists_the_frames_the_page_has(tmp_path: Path):
    async with bridge(tmp_path) as b:
        b.connect_page(frames=[{"frameId": "host"}, {"frameId": "f0", "parent": "host", "url": "http://localhost:5173/f"}])
        text = await b.error("page_exec", {"pageId": "5173/f7", "code": "1"})
        assert "f7" in text and "5173/f0" in text


async def test_a_page_side_exception_comes_back_with_its_stack_and_what_to_do(tmp_path: Path):
    async def boom(frame):
        return {"ok": False, "error": {"code": "page_exception", "message": "TypeError: x is undefined",
                                       "stack": "at <agent code>:1:5"}}

    async with bridge(tmp_path) as b:
        b.connect_page(boom)
        text = await b.error("page_exec", {"code": "x.y"})
        assert "page_exception" in text and "TypeError: x is undefined" in text and "<agent code>:1:5" in text


async def test_a_page_that_never_answers_fails_as_page_timeout_and_leaves_no_pending_entry(tmp_path: Path):
    async def silent(frame):
        return None

    async with bridge(tmp_path) as b:
        b.connect_page(silent)
        text = await b.error("page_exec", {"code": "1", "timeout": 0.2})
        assert "page_timeout" in text
        assert len(b.state.pending) == 0


async def test_a_call_in_flight_fails_at_once_when_its_page_unloads(tmp_path: Path):
    async def slow(frame):
        await asyncio.Event().wait()  # the page is busy: it never answers

    async with bridge(tmp_path) as b:
        conn = b.connect_page(slow)
        call = asyncio.create_task(b.call("page_exec", {"code": "1", "timeout": 20}))
        await conn.next_exec()
        b.state.dispatcher.page_unloading(conn.inst)
        out = await asyncio.wait_for(call, 2)
        assert out.is_error and "page_unloaded" in out.content[0].text


async def test_a_late_result_for_a_finished_call_is_refused(tmp_path: Path):
    async with bridge(tmp_path) as b:
        conn = b.connect_page()
        await b.ok("page_exec", {"code": "1+1"})
        from bridge.pages.protocol import parse_up
        from bridge.pages.up_messages import handle_up

        (frame,) = conn.execs()
        again = parse_up({"type": "result", "requestId": frame["requestId"], "ok": True, "result": 3})
        assert handle_up(b.state, conn.inst, again) is False


async def test_several_live_pages_without_page_id_is_ambiguous_and_lists_them(tmp_path: Path):
    async with bridge(tmp_path) as b:
        b.connect_page(url="http://localhost:5173/", port=5173)
        b.connect_page(url="http://localhost:3000/", port=3000)
        text = await b.error("page_exec", {"code": "1"})
        assert "ambiguous_page" in text and "5173/host" in text and "3000/host" in text


async def test_page_find_needs_a_criterion_and_passes_it_to_the_page(tmp_path: Path):
    async with bridge(tmp_path) as b:
        conn = b.connect_page()
        assert "[" in (await b.error("page_find", {}))
        await b.ok("page_find", {"text": "Save"})
        assert conn.execs("find")[0]["params"]["text"] == "Save"


async def test_page_act_sends_one_act_frame_with_its_target(tmp_path: Path):
    async with bridge(tmp_path) as b:
        conn = b.connect_page()
        await b.ok("page_act", {"action": "click", "ref": "e3@ab"})
        (frame,) = conn.execs("act")
        assert frame["params"]["action"] == "click" and frame["params"]["ref"] == "e3@ab"


async def test_page_wait_gives_the_page_its_bound(tmp_path: Path):
    async with bridge(tmp_path) as b:
        conn = b.connect_page()
        await b.ok("page_wait", {"text": "Done", "timeout": 3})
        assert conn.execs("wait")[0]["params"]["timeout"] == 3


async def test_console_network_source_and_highlight_reach_their_commands(tmp_path: Path):
    async with bridge(tmp_path) as b:
        conn = b.connect_page()
        await b.ok("page_console", {})
        await b.ok("page_network", {})
        await b.ok("page_source", {"ref": "e1@ab"})
        await b.ok("page_highlight", {"refs": ["e1@ab"]})
        assert {f["command"] for f in conn.execs()} >= {"console", "network", "source", "highlight"}


async def test_page_snapshot_returns_the_tree_text_with_a_header(tmp_path: Path):
    async def snap(frame):
        return {"ok": True, "result": {"tree": "- button \"Save\" [e1@ab]", "snapshotId": "ab", "url": "http://x/",
                                       "title": "App", "elements": 1, "truncated": False}}

    async with bridge(tmp_path) as b:
        b.connect_page(snap)
        out = await b.call("page_snapshot", {})
        assert not out.is_error and 'button "Save" [e1@ab]' in out.content[0].text


async def test_disabled_tools_are_not_offered(tmp_path: Path):
    async with bridge(tmp_path, disable_tools=["page_navigate"]) as b:
        names = {t.name for t in (await b.client.list_tools()).tools}
        assert "page_navigate" not in names and "page_exec" in names


async def test_every_named_command_checks_its_params_before_the_page_sees_them(tmp_path: Path):
    async with bridge(tmp_path) as b:
        conn = b.connect_page()
        bad = await b.error("page_exec", {"command": "frames", "params": {"deep": True}})
        assert bad.startswith("[bad_arguments]") and "deep" in bad and "docs/commands.md" in bad
        bad = await b.error("page_exec", {"command": "find", "params": {"limit": 0, "text": "x"}})
        assert "limit" in bad
        await b.ok("page_exec", {"command": "console", "params": {"since": 3, "level": "error"}})
        bad = await b.error("page_exec", {"command": "selection", "params": {"all": True}})
        assert bad.startswith("[bad_arguments]") and "all" in bad
        await b.ok("page_exec", {"command": "selection"})
        assert conn.execs("frames") == [] and conn.execs("find") == [] and len(conn.execs("selection")) == 1
        # the page gets the params with their defaults filled in (it re-defaults nothing)
        assert conn.execs("console")[0]["params"] == {"since": 3, "level": "error", "limit": 100, "stack": False,
                                                      "errors": False}


async def test_a_whole_snapshot_tree_comes_as_a_resource_link_any_client_can_read(tmp_path: Path):
    tree = "".join(f'- button "B{i}" [ref=e{i}]\n' for i in range(400))

    async def snap(frame):
        return {"ok": True, "result": {"tree": tree, "snapshotId": "ab", "url": "http://x/", "title": "App",
                                       "elements": 400, "truncated": False}}

    async with bridge(tmp_path) as b:
        b.connect_page(snap)
        out = await b.call("page_snapshot", {"toFile": True, "maxChars": 500})
        assert not out.is_error
        (link,) = [c for c in out.content if c.type == "resource_link"]
        assert link.uri == out.structured_content["resource"] and link.uri.startswith("dbg://artifacts/")
        read = await b.client.read_resource(link.uri)
        assert read.contents[0].text == tree
        from mcp.shared.exceptions import MCPError

        for uri in ("dbg://artifacts/..%2Fsecret", "dbg://artifacts/nothing.txt"):
            with pytest.raises(MCPError):
                await b.client.read_resource(uri)


async def test_page_screenshot_returns_the_pages_png_and_refuses_an_answer_that_is_not_one(tmp_path: Path):
    import base64

    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 16).decode()

    async def shot(frame):
        data = png if frame["params"].get("selector") != "#broken" else base64.b64encode(b"GIF89a").decode()
        return {"ok": True, "result": {"data": data, "width": 4, "height": 2, "scale": 1}}

    async with bridge(tmp_path) as b:
        conn = b.connect_page(shot)
        out = await b.call("page_screenshot", {"selector": "#card"})
        assert not out.is_error
        image, summary = out.content
        assert image.type == "image" and image.data == png and image.mime_type == "image/png"
        assert out.structured_content["bytes"] == 24 and out.structured_content["width"] == 4
        assert conn.execs("screenshot")[0]["params"] == {"selector": "#card"}
        bad = await b.error("page_screenshot", {"selector": "#broken"})
        assert bad.startswith("[page_exception]") and "not a PNG" in bad


async def test_page_wait_waits_ten_seconds_by_default_on_every_path(tmp_path: Path):
    """One default, in the params model: the tool and page_exec(command='wait') send the same to the page."""
    async with bridge(tmp_path) as b:
        conn = b.connect_page()
        await b.ok("page_wait", {"text": "Saved"})
        await b.ok("page_exec", {"command": "wait", "params": {"text": "Saved"}})
        assert [f["params"]["timeout"] for f in conn.execs("wait")] == [10, 10]
        assert all(f["params"]["state"] == "visible" for f in conn.execs("wait"))


async def test_a_length_cap_is_checked_on_the_tool_path_though_the_schema_leaves_it_out(tmp_path: Path):
    async with bridge(tmp_path) as b:
        conn = b.connect_page()
        bad = await b.error("page_find", {"selector": "x" * 5000})
        assert bad.startswith("[invalid_argument]") and "page_find.selector" in bad
        assert conn.execs("find") == []


async def test_max_chars_out_of_range_is_refused_with_its_range_before_the_page_sees_it(tmp_path: Path):
    async with bridge(tmp_path) as b:
        conn = b.connect_page()
        for bad in (199, 200_001):
            text = await b.error("page_snapshot", {"maxChars": bad})
            assert text.startswith("[invalid_argument]") and "page_snapshot.maxChars" in text
            assert "200 to 200000" in text
        assert conn.execs("snapshot") == []


async def test_page_vitals_attributes_a_long_frame_to_the_function_written_and_says_how_when_it_cannot(tmp_path: Path):
    """The page's sampled functions and script entry points are compiled positions: mapped like an error's frames."""
    import json

    from tests.unit.test_stacks import PART

    hot = {"fn": "priceWithTax", "url": PART["url"], "line": 3, "column": 17, "ms": 290, "share": 97}
    react = {"ms": 300, "invoker": "DIV#root.onclick", "type": "event-listener", "fn": "dispatchDiscreteEvent",
             "url": "http://localhost:5173/node_modules/.vite/deps/react-dom_client.js?v=1", "line": 9, "column": 5}
    raw = {"frames": [{"start": 100, "ms": 320, "blockingMs": 270, "act": 2, "scripts": [react], "hot": [hot]}],
           "cursor": 100, "profiling": "on", "acts": [{"seq": 2, "label": 'click button "Sort"'}],
           "inp": {"ms": 330, "type": "click", "ref": "e4", "generated": PART["url"] + ":3:17"}}

    def answers(profiled: bool):
        async def handler(frame):
            if frame["command"] == "maps":
                return {"ok": True, "result": {"maps": {PART["url"]: PART}, "hot": 0}}
            data = json.loads(json.dumps(raw))
            if not profiled:
                data["profiling"] = "not allowed"
                data["frames"][0].pop("hot")
            return {"ok": True, "result": data}
        return handler

    async with bridge(tmp_path) as b:
        b.connect_page(answers(True))
        out = await b.ok("page_vitals", {})
        assert out["slowest"] == '320 ms frame: 290 ms in priceWithTax (src/cart.ts:3:18), after click button "Sort"'
        assert out["frames"][0]["scripts"][0].endswith("[library]") and "note" not in out
        assert out["inp"]["source"] == "src/cart.ts:3:18" and out["inp"]["ref"] == "e4"
        b.connect_page(answers(False), port=5174, url="http://localhost:5174/")
        plain = await b.ok("page_vitals", {"pageId": "5174/host"})
        assert "Document-Policy: js-profiling" in plain["note"] and "[library]" in plain["slowest"]
