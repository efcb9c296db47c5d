"""2025-11-25 sessions hear about new inbox items on their GET stream; with --push-sampling a human message is
handed to a client that declared sampling, and its reply is shown in the page."""

import asyncio

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CreateMessageResult, ResourceUpdatedNotification, TextContent

from tests.support import BridgeProcess, Bridges


@pytest.fixture(scope="module")
def pushing(module_bridge_process: Bridges) -> BridgeProcess:
    return module_bridge_process("--push-sampling", name="push")


def test_a_human_message_is_announced_sampled_and_the_reply_shown_in_the_page(pushing, pages):
    gate = pages.gate({"ok": True, "result": {"shown": True}})
    page = pages.connect(pushing.base, handler=gate.handler)

    async def scenario() -> tuple[str, str]:
        updates: asyncio.Queue[str] = asyncio.Queue()
        sampled: asyncio.Queue[str] = asyncio.Queue()

        async def on_message(message) -> None:
            root = getattr(message, "root", message)
            if isinstance(root, ResourceUpdatedNotification):
                updates.put_nowait(str(root.params.uri))

        async def sampling(context, params) -> CreateMessageResult:
            sampled.put_nowait(params.messages[0].content.text)
            return CreateMessageResult(role="assistant", content=TextContent(type="text", text="On it"), model="test")

        quiet_updates: asyncio.Queue[str] = asyncio.Queue()

        async def on_quiet_message(message) -> None:
            root = getattr(message, "root", message)
            if isinstance(root, ResourceUpdatedNotification):
                quiet_updates.put_nowait(str(root.params.uri))

        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {pushing.token}"}) as http:
            async with Client(streamable_http_client(pushing.mcp_url, http_client=http), mode="legacy",
                              sampling_callback=sampling, message_handler=on_message) as client, \
                    Client(streamable_http_client(pushing.mcp_url, http_client=http), mode="legacy",
                           message_handler=on_quiet_message) as quiet:
                await client.call_tool("page_list", {})  # the bridge now knows this session
                await quiet.call_tool("page_list", {})  # and this one, which never subscribes
                await client.subscribe_resource("dbg://inbox")
                assert (await client.set_logging_level("warning")) is not None  # the logging capability answers
                asyncio.run_coroutine_threadsafe(
                    page.send({"type": "event", "kind": "message", "text": "Why is the header red?"}), pages.loop)
                uri = await asyncio.wait_for(updates.get(), 10)
                text = await asyncio.wait_for(sampled.get(), 10)
                await client.call_tool("page_list", {})  # a round trip later: the quiet session still heard nothing
                assert quiet_updates.empty()
                return uri, text

    from tests.support import run_async

    uri, text = run_async(scenario(), 30)
    assert uri == "dbg://inbox" and text == "Why is the header red?"
    frame = gate.next_frame(10)
    assert frame["command"] == "notify" and frame["params"]["message"] == "On it"
    gate.open()
