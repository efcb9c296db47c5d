"""New inbox items are announced to MCP clients listening on dbg://inbox (2026-07-28 subscriptions/listen), by an app
served in this process (tests/http/conftest.py)."""

import asyncio
import json

from tests.support import ok


def test_a_message_from_the_page_is_announced_and_readable_as_a_resource(bridge, mcp, pages):
    page = pages.connect(bridge.base)
    client = mcp.client

    async def listen_for_one_update() -> str:
        async with client.listen(resource_subscriptions=["dbg://inbox"]) as sub:
            pages.loop.call_soon_threadsafe(
                lambda: asyncio.ensure_future(page.send({"type": "event", "kind": "message", "text": "ping from page"})))
            async for event in sub:
                return event.uri
        return ""

    assert mcp.run(asyncio.wait_for(listen_for_one_update(), 15)) == "dbg://inbox"
    resource = mcp.run(client.read_resource("dbg://inbox"))
    unread = json.loads(resource.contents[0].text)["unread"]
    assert any(i["text"] == "ping from page" and i["kind"] == "message" for i in unread)
    items = ok(mcp.call("inbox", {"kinds": ["message"], "pageId": page.page_id}))["items"]
    assert [i["text"] for i in items] == ["ping from page"]
