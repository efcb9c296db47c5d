"""Many agents, one bridge: an acting call leases its tab; another agent's acting call on that tab waits briefly,
then answers [page_busy] naming who holds it and until when; reads never wait; the holder's next call and other
tabs are not held up; a lease ends after its tail, and a run's leases when the run finishes."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.types import Implementation

from bridge.pages import leases as leases_module
from tests.inmemory.harness import SHAPES, bridge, eventually, text_of

pytestmark = pytest.mark.anyio


class SlowPage:
    """A page whose `eval` of "hold()" answers only when the test lets it."""

    def __init__(self) -> None:
        self.release = asyncio.Event()

    async def handle(self, frame: dict[str, Any]) -> dict[str, Any]:
        params = frame.get("params") or {}
        if frame["command"] == "eval" and params.get("code") == "hold()":
            await asyncio.wait_for(self.release.wait(), 10)
        if frame["command"] == "eval":
            return {"ok": True, "result": params.get("code")}
        return {"ok": True, "result": {**params, **SHAPES.get(frame["command"], {})}}


def named(b: Any, name: str) -> Client:
    return Client(b.server, client_info=Implementation(name=name, version="1.0"))


async def test_another_agents_acting_call_waits_then_answers_page_busy_naming_the_holder(tmp_path: Path,
                                                                                      monkeypatch):
    monkeypatch.setattr(leases_module, "WAIT", 0.2)
    async with bridge(tmp_path) as b:
        b.state.leases.wait = 0.2
        page = SlowPage()
        conn = b.connect_page(page.handle)
        other = b.connect_page(SlowPage().handle, url="http://localhost:5174/", port=5174)
        tab, tab2 = f"{conn.inst.id}/host", f"{other.inst.id}/host"
        async with named(b, "editor-agent") as editor, named(b, "terminal-agent") as terminal:
            holding = asyncio.ensure_future(editor.call_tool("page_exec", {"pageId": tab, "code": "hold()"}))
            await eventually(lambda: b.state.leases.holder(conn.inst.id), what="the editor's lease")
            busy = await terminal.call_tool("page_act", {"pageId": tab, "action": "click", "selector": "#x"})
            said = text_of(busy)
            assert busy.is_error and said.startswith(f"[page_busy] Tab {conn.inst.id} is in use by another agent, "
                                                     "'editor-agent 1.0' (its page_exec call is running")
            read = await terminal.call_tool("page_snapshot", {"pageId": tab})  # reads never wait
            assert not read.is_error, text_of(read)
            elsewhere = await terminal.call_tool("page_exec", {"pageId": tab2, "code": "1"})  # another tab: free
            assert not elsewhere.is_error, text_of(elsewhere)
            page.release.set()
            assert not (await holding).is_error
            again = await editor.call_tool("page_exec", {"pageId": tab, "code": "2"})  # the holder goes on
            assert not again.is_error
            lease = b.state.leases.holder(conn.inst.id)
            assert lease is not None and lease.name == "editor-agent 1.0" and not lease.calls
            busy = await terminal.call_tool("page_exec", {"pageId": tab, "code": "3"})
            assert text_of(busy).startswith("[page_busy]") and "(until " in text_of(busy)
            lease.until = 0.0  # its tail over: the tab is free
            free = await terminal.call_tool("page_exec", {"pageId": tab, "code": "4"})
            assert not free.is_error, text_of(free)
            assert b.state.leases.holder(conn.inst.id).name == "terminal-agent 1.0"


async def test_a_waiting_call_gets_the_tab_when_the_holder_lets_go_within_the_wait(tmp_path: Path):
    async with bridge(tmp_path) as b:
        b.state.leases.tail, b.state.leases.wait = 0.0, 5.0
        page = SlowPage()
        conn = b.connect_page(page.handle)
        tab = f"{conn.inst.id}/host"
        async with named(b, "one") as one, named(b, "two") as two:
            holding = asyncio.ensure_future(one.call_tool("page_exec", {"pageId": tab, "code": "hold()"}))
            await eventually(lambda: b.state.leases.holder(conn.inst.id), what="one's lease")
            waiting = asyncio.ensure_future(two.call_tool("page_exec", {"pageId": tab, "code": "5"}))
            await eventually(lambda: b.state.leases.waiting, what="the second call to wait")
            page.release.set()
            assert not (await holding).is_error
            out = await asyncio.wait_for(waiting, 5)
            assert not out.is_error, text_of(out)


async def test_releasing_a_holder_frees_its_tabs_at_once(tmp_path: Path):
    async with bridge(tmp_path) as b:
        conn = b.connect_page(SlowPage().handle)
        async with named(b, "run-like") as one:
            assert not (await one.call_tool("page_exec", {"pageId": f"{conn.inst.id}/host", "code": "1"})).is_error
        lease = b.state.leases.holder(conn.inst.id)
        assert lease is not None and b.state.leases.rows()[0]["agent"] == "run-like 1.0"
        b.state.leases.release(lease.holder)
        assert b.state.leases.holder(conn.inst.id) is None and b.state.leases.rows() == []


async def test_a_cancelled_call_frees_its_tab_at_once(tmp_path: Path):
    async with bridge(tmp_path) as b:
        page = SlowPage()
        conn = b.connect_page(page.handle)
        async with named(b, "closing") as one:
            call = asyncio.ensure_future(one.call_tool("page_exec", {"pageId": f"{conn.inst.id}/host",
                                                                     "code": "hold()"}))
            await eventually(lambda: b.state.leases.holder(conn.inst.id), what="the lease")
            call.cancel()  # the client gives up: the SDK cancels the handler, as when a session closes
            await eventually(lambda: b.state.leases.holder(conn.inst.id) is None, what="the tab to be free")
            page.release.set()


# ---- a tab of its own (page_open) -----------------------------------------------------------------------------

async def test_page_open_through_the_extension_answers_the_new_tab_which_is_the_openers_own(tmp_path: Path):
    async with bridge(tmp_path) as b:
        opened: list[dict[str, Any]] = []

        async def human_tab(frame: dict[str, Any]) -> dict[str, Any]:
            if frame["command"] == "open":  # the extension opens a window, whose client then registers
                opened.append(frame["params"])
                b.connect_page(url=frame["params"]["url"], port=None, attach="extension")
                return {"ok": True, "result": {"windowId": 7, "tabId": 70}}
            return {"ok": True, "result": {**(frame.get("params") or {}), **SHAPES.get(frame["command"], {})}}

        conn = b.connect_page(human_tab, url="http://localhost:5173/cart", attach="extension")
        async with named(b, "editor-agent") as editor, named(b, "terminal-agent") as terminal:
            out = await editor.call_tool("page_open", {"pageId": f"{conn.inst.id}/host", "url": "/checkout"})
            assert not out.is_error, text_of(out)
            got = out.structured_content
            assert opened == [{"url": "http://localhost:5173/checkout"}]
            assert got["route"] == "extension" and got["own"] is True and got["url"] == "http://localhost:5173/checkout"
            assert got["pageId"] != f"{conn.inst.id}/host"
            # the editor acts there freely; another agent is refused at once, told whose it is and what to do
            assert not (await editor.call_tool("page_exec", {"pageId": got["pageId"], "code": "1"})).is_error
            started = asyncio.get_running_loop().time()
            busy = await terminal.call_tool("page_act", {"pageId": got["pageId"], "action": "click", "selector": "#x"})
            assert busy.is_error and asyncio.get_running_loop().time() - started < 1.0
            said = text_of(busy)
            assert said.startswith(f"[page_busy] Tab {got['pageId'].split('/')[0]} is another agent's own tab: "
                                   "'editor-agent 1.0' (it opened this tab for itself with page_open") and \
                "open one of your own with page_open" in said
            assert not (await terminal.call_tool("page_snapshot", {"pageId": got["pageId"]})).is_error  # reads
            assert not (await terminal.call_tool("page_exec", {"pageId": f"{conn.inst.id}/host", "code": "1"})).is_error
            assert any(r["own"] and r["agent"] == "editor-agent 1.0" for r in b.state.leases.rows())


async def test_page_open_refuses_another_origin_and_without_a_route_says_how_to_get_a_tab(tmp_path: Path):
    async with bridge(tmp_path) as b:
        conn = b.connect_page(url="http://localhost:5173/")  # a script tag's client; no desktop
        tab = f"{conn.inst.id}/host"
        other = await b.error("page_open", {"pageId": tab, "url": "https://example.com/"})
        assert other.startswith("[bad_arguments] page_open opens tabs of the page's own origin (http://localhost:5173)")
        none = await b.error("page_open", {"pageId": tab})
        assert none.startswith("[no_route] The bridge has no way to open a tab here") and "user_ask" in none and \
            "plugins/extension" in none and "DBG_DESKTOP_ENABLED=1" in none
        forced = await b.error("page_open", {"pageId": tab, "route": "extension"})
        assert forced.startswith("[no_route] route 'extension' opens from a tab the dbg-bridge extension connected")
        assert b.state.leases.rows() == []


async def test_a_window_whose_client_never_connects_is_said_plainly_within_the_timeout(tmp_path: Path):
    async with bridge(tmp_path) as b:
        async def opens_nothing(frame: dict[str, Any]) -> dict[str, Any]:
            if frame["command"] == "open":
                return {"ok": True, "result": {"windowId": 1, "tabId": 2}}
            return {"ok": True, "result": SHAPES.get(frame["command"], {})}

        conn = b.connect_page(opens_nothing, attach="extension")
        said = await b.error("page_open", {"pageId": f"{conn.inst.id}/host", "timeout": 0.6})
        assert said.startswith("[not_connected] The window opened in the human's browser, but no page client of "
                               "http://localhost:5173 connected from it within") and "enabled in its popup" in said


async def test_an_own_tab_that_is_gone_does_not_pass_its_ownership_to_the_next_tab_given_its_id(tmp_path: Path):
    async with bridge(tmp_path) as b:
        gone = b.connect_page(url="http://localhost:5173/")
        b.state.leases.own(gone.inst.id, ("client", "editor-agent", "1.0", "x"), "editor-agent 1.0", gone.inst)
        b.state.registry.forget(gone.inst)
        again = b.connect_page(url="http://localhost:5173/")  # the first tab on the port gets the port as its id
        assert again.inst.id == gone.inst.id
        async with named(b, "terminal-agent") as terminal:
            out = await terminal.call_tool("page_exec", {"pageId": f"{again.inst.id}/host", "code": "1"})
            assert not out.is_error, text_of(out)
