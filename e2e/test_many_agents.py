"""Many agents, one bridge (a real bridge process, real Chromium tabs, the official MCP client twice and a run):
while one agent acts in a tab, another agent's acting call there waits, then answers [page_busy] naming who holds it;
reads and other tabs are not held up; a run holds the tab it acts in until it finishes, beside an MCP client."""

from __future__ import annotations

import asyncio

from mcp.types import Implementation

from e2e.agent_fixtures import agent_bridge, api, app_page, model, site  # noqa: F401 - fixtures
from e2e.runs_api import done
from e2e.scripted_model import Req, call
from tests.support import McpSession, open_page

#: Page code that holds its tab for a while (long enough for another agent to wait 5 s and be told).
SLOW = "window.__running = true; await new Promise(r => setTimeout(r, 12000)); window.__running = false; return 'held'"


def text(result) -> str:
    return "\n".join(getattr(c, "text", "") for c in result.content)


def agent(bridge, name: str) -> McpSession:
    return McpSession(bridge.mcp_url, bridge.token, client_info=Implementation(name=name, version="1"))


def test_two_mcp_clients_on_one_tab_one_is_told_page_busy_and_each_on_its_own_tab_both_act(agent_bridge, app_page,
                                                                                         context, site):
    other_tab = open_page(context, site.url("/app.html"))
    editor, terminal = agent(agent_bridge, "editor-agent"), agent(agent_bridge, "terminal-agent")
    cockpit = context.new_page()
    cockpit.goto(agent_bridge.base + "/#sessions")
    try:
        holding = asyncio.run_coroutine_threadsafe(
            editor.client.call_tool("page_exec", {"pageId": app_page.page_id, "code": SLOW}), editor.loop)
        app_page.wait_for_function("window.__running === true", timeout=10000)
        # the cockpit's Agents table says which tab each agent is acting in
        tab = app_page.page_id.split("/")[0]
        cockpit.locator("#agents tr", has_text="editor-agent 1").locator("td.holds", has_text=tab).wait_for(
            timeout=10000)
        busy = terminal.call("page_act", {"pageId": app_page.page_id, "action": "click", "selector": "#more"})
        assert busy.is_error and text(busy).startswith(
            f"[page_busy] Tab {app_page.page_id.split('/')[0]} is in use by another agent, 'editor-agent 1' (its "
            "page_exec call is running"), text(busy)
        assert app_page.locator("#items li").count() == 3  # the click did not happen
        read = terminal.call("page_find", {"pageId": app_page.page_id, "text": "Apple"})
        assert not read.is_error  # reads never wait
        own = terminal.call("page_act", {"pageId": other_tab.page_id, "action": "click", "selector": "#more"})
        assert not own.is_error, text(own)  # its own tab, at the same time
        other_tab.locator("#items li").nth(3).wait_for(timeout=10000)
        assert not holding.result(30).is_error
    finally:
        editor.close()
        terminal.close()
        other_tab.close()
        cockpit.close()


def test_a_run_holds_the_tab_it_acts_in_until_it_finishes_beside_an_mcp_client(model, agent_bridge, api, app_page,
                                                                             context, site):
    def slow_run(req: Req):
        if req.verifying:
            return call("verdict", done=True, reason="held")
        if not req.called("plan"):
            return call("plan", steps=["hold the tab"])
        if not req.called("page_exec"):
            return call("page_exec", pageId=app_page.page_id, code=SLOW)
        return call("finish", summary="held the tab")

    model.policies["holder"] = slow_run
    other_tab = open_page(context, site.url("/app.html"))
    client = agent(agent_bridge, "editor-agent")
    try:
        run_id = api.start("Hold the tab", model="holder", allow=["eval"])
        app_page.wait_for_function("window.__running === true", timeout=20000)
        busy = client.call("page_act", {"pageId": app_page.page_id, "action": "click", "selector": "#more"})
        assert busy.is_error and text(busy).startswith("[page_busy]") and "'dbg-bridge run " + run_id in text(busy)
        beside = client.call("page_act", {"pageId": other_tab.page_id, "action": "click", "selector": "#more"})
        assert not beside.is_error, text(beside)
        assert done(api.events(run_id))["state"] == "done"
        after = client.call("page_act", {"pageId": app_page.page_id, "action": "click", "selector": "#more"})
        assert not after.is_error, text(after)  # the run finished: its lease with it
    finally:
        client.close()
        other_tab.close()
