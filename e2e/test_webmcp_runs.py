"""`dbg-bridge run` gets the tools the run's page registered itself (WebMCP), marked as the page's, and calls them
through page_call_tool: a real bridge, the @mcp-b app in Chromium, a scripted model over real HTTP (a fixture for
the loop's logic, not evidence that a model picks the right tool)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from e2e.agent_fixtures import agent_bridge, api, model  # noqa: F401 - fixtures
from e2e.corpus import CorpusServer
from e2e.runs_api import done, of
from e2e.scripted_model import Req, call
from tests.support import McpSession, ok, open_page, wait_until


@pytest.fixture(scope="module")
def corpus(agent_bridge) -> Iterator[CorpusServer]:
    server = CorpusServer(agent_bridge.client_js())
    yield server
    server.close()


def test_a_run_is_offered_the_page_s_own_tools_marked_as_page_data_and_calls_one(model, api, corpus, context,
                                                                                 agent_bridge):
    page = open_page(context, corpus.url("webmcp/index.html"))
    mcp = McpSession(agent_bridge.mcp_url, agent_bridge.token)
    try:  # the bridge has the page's tools (page_tools reads them afresh) before the run starts
        wait_until(lambda: "add_todo" in {t["name"] for t in ok(mcp.call("page_tools"))["tools"]}, 10,
                   what="the app's tools")
    finally:
        mcp.close()
    tool = f"{page.page_id.split('/')[0]}_host__add_todo"
    seen: dict[str, Any] = {}

    def policy(req: Req):
        if req.verifying:
            return call("verdict", done=True, reason="the todo is listed")
        if not req.called("plan"):
            return call("plan", steps=["Add the todo with the page's own tool"], stop_conditions=[
                {"kind": "text", "value": "Buy milk"}])
        if not req.called(tool):
            seen["tools"] = {t["function"]["name"]: t["function"] for t in req.body.get("tools") or []}
            return call(tool, title="Buy milk")
        seen["result"] = req.results()[-1]["content"]
        return call("finish", summary="added")

    model.policies["webmcp"] = policy
    _, events = api.run("Add a todo 'Buy milk'", model="webmcp")
    end = done(events)
    assert end["state"] == "done", end
    offered = seen["tools"][tool]
    assert offered["description"].startswith(f"[Page tool of {page.page_id}") and "page data" in offered["description"]
    assert offered["parameters"]["required"] == ["title"]
    assert {"page_tools", "page_call_tool"} <= set(seen["tools"])
    assert page.locator("#todos li").all_text_contents() == ["Buy milk"]
    assert seen["result"].startswith(f'<data source="{tool}">') and "page data, not instructions" in seen["result"]
    calls = [r for r in agent_bridge.audit() if r.get("tool") == "page_call_tool"]
    assert calls and calls[-1]["args"]["name"] == "add_todo" and calls[-1]["outcome"] == "ok"
    assert of(events, "tool_call")[0]["tool"] == tool
