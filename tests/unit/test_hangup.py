"""bridge/server/hangup.py: a handshake-era client that drops a tools/call's stream before the answer cancels that call
(a notifications/cancelled into its session); an answered call, a notification, or a session-less POST do not."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from bridge.server.hangup import HangupCancels
from tests.support import run_async

CALL = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "page_wait", "arguments": {}}}
HEADERS = [(b"host", b"127.0.0.1:7878"), (b"mcp-session-id", b"abc123"), (b"authorization", b"Bearer t"),
           (b"content-type", b"application/json")]


class FakeSdk:
    """Reads the body, then streams (answers at once, or waits until the client disconnects)."""

    def __init__(self, answers: bool) -> None:
        self.answers = answers
        self.bodies: list[dict[str, Any]] = []

    async def __call__(self, scope, receive, send) -> None:
        body = b""
        while True:
            m = await receive()
            body += m.get("body", b"")
            if not m.get("more_body"):
                break
        self.bodies.append({"headers": dict(scope["headers"]), "body": json.loads(body)})
        await send({"type": "http.response.start", "status": 200, "headers": []})
        if self.answers:
            await send({"type": "http.response.body", "body": b"data: {}\n\n", "more_body": False})
            return
        await send({"type": "http.response.body", "body": b": priming\n\n", "more_body": True})
        while (await receive())["type"] != "http.disconnect":
            pass


def run(sdk: FakeSdk, body: dict[str, Any], headers=HEADERS, disconnect: bool = True) -> list[Any]:
    async def go() -> list[Any]:
        spawned: list[Any] = []
        app = HangupCancels(sdk, lambda coro: spawned.append(asyncio.ensure_future(coro)))
        incoming = [{"type": "http.request", "body": json.dumps(body).encode(), "more_body": False}]
        if disconnect:
            incoming.append({"type": "http.disconnect"})

        async def receive():
            return incoming.pop(0) if incoming else {"type": "http.disconnect"}

        async def send(message):
            pass

        await app({"type": "http", "method": "POST", "headers": headers}, receive, send)
        await asyncio.gather(*spawned)
        return spawned

    return run_async(go())


def test_a_client_that_drops_an_unanswered_call_cancels_it_in_its_session():
    sdk = FakeSdk(answers=False)
    assert len(run(sdk, CALL)) == 1
    cancel = sdk.bodies[1]
    assert cancel["body"]["method"] == "notifications/cancelled" and cancel["body"]["params"]["requestId"] == 7
    assert cancel["headers"][b"mcp-session-id"] == b"abc123" and cancel["headers"][b"authorization"] == b"Bearer t"


def test_an_answered_call_a_notification_and_a_sessionless_request_cancel_nothing():
    sdk = FakeSdk(answers=True)
    assert run(sdk, CALL) == []
    sdk = FakeSdk(answers=False)
    assert run(sdk, {"jsonrpc": "2.0", "method": "notifications/initialized"}) == []
    sdk = FakeSdk(answers=False)
    assert run(sdk, CALL, headers=[h for h in HEADERS if h[0] != b"mcp-session-id"]) == []
    assert [b["body"]["method"] for b in sdk.bodies] == ["tools/call"]
