"""`--model client`: a run asks the connected MCP client's own model, by sampling (a 2025-11-25 session that
declared sampling with tools). The client here answers from a script, as the e2e model server does."""

from __future__ import annotations

import asyncio

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import (CreateMessageResult, CreateMessageResultWithTools, SamplingCapability,
                       SamplingToolsCapability, TextContent, ToolUseContent)

from e2e.agent_fixtures import agent_bridge, api, model  # noqa: F401 - fixtures
from e2e.runs_api import done, of
from tests.support import run_async


def test_a_run_with_model_client_samples_the_connected_clients_model(agent_bridge, api):
    asked: list[list[str]] = []

    async def sampling(context, params):
        names = [t.name for t in params.tools or []]
        asked.append(names)
        said = "\n".join(getattr(m.content, "text", "") for m in params.messages)
        if names == ["verdict"]:
            return CreateMessageResultWithTools(role="assistant", model="client-script", content=[ToolUseContent(
                type="tool_use", id="v", name="verdict", input={"done": True, "reason": "listed"})])
        if "[called plan" not in said:
            return CreateMessageResultWithTools(role="assistant", model="client-script", content=[ToolUseContent(
                type="tool_use", id="p", name="plan", input={"steps": ["list the pages"]})])
        if "[called page_list" not in said:
            return CreateMessageResultWithTools(role="assistant", model="client-script", content=[
                TextContent(type="text", text="Listing."),
                ToolUseContent(type="tool_use", id="l", name="page_list", input={})])
        return CreateMessageResult(role="assistant", model="client-script",
                                   content=TextContent(type="text", text="I listed the pages."))

    async def scenario():
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {agent_bridge.token}"}) as http:
            async with Client(streamable_http_client(agent_bridge.mcp_url, http_client=http), mode="legacy",
                              sampling_callback=sampling,
                              sampling_capabilities=SamplingCapability(tools=SamplingToolsCapability())) as client:
                await client.call_tool("page_list", {})  # the bridge now knows this session
                return await asyncio.to_thread(api.run, "List the pages", model="client")

    _, events = run_async(scenario(), 90)
    end = done(events)
    assert end["state"] == "done", end
    assert "plan" in asked[0] and "page_list" in asked[1] and asked[-1] == ["verdict"]
    assert of(events, "tool_result")[0]["tool"] == "page_list"
    assert of(events, "run_start")[0]["model"] == "client"
    assert end["summary"] == "I listed the pages."


def test_model_client_without_a_sampling_client_fails_the_run_saying_so(api):
    r = api.http.post("/v1/runs", json={"task": "x", "model": "client"})
    assert r.status_code == 201  # the client is looked for when the run asks its model (it may connect later)
    events = api.events(r.json()["id"])
    assert done(events)["state"] == "failed" and "[not_available]" in done(events)["summary"]
