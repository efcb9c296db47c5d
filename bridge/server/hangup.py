"""A 2025-11-25 client that hangs up on a tools/call cancels it, as if it had sent notifications/cancelled.

The MCP SDK cancels a session's handlers when the session ends (DELETE, idle timeout, shutdown) and on
notifications/cancelled, and a 2026-07-28 call when its request stream closes. A handshake-era call whose POST
stream the client drops (a TypeScript SDK client's close() aborts its streams and sends no DELETE; a killed editor;
a stdio forwarder that exits) runs on: a page_wait for up to 120 s, a user_ask card open in the page. This bridge
keeps no event store, so such a client can never resume that stream and the answer could never reach it: the
hang-up is its end. This wrapper, at our boundary around the SDK's ASGI app, notices a client that disconnects
before its tools/call was answered and delivers a notifications/cancelled for it into the same session through the
same ASGI entry, so the cancel takes the SDK's own path (the handler's task is cancelled, the bridge tells the page,
cards close, the audit says cancelled). Not in --stateless (JSON-response) mode: there nothing is cancelled.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger("bridge.server.hangup")

SESSION_HEADER = b"mcp-session-id"
#: Only bodies up to this size are looked into (a tools/call is small; anything bigger passes straight through).
PEEK_LIMIT = 1 << 20
REASON = "the client closed the stream the call was answering on"


class HangupCancels:
    def __init__(self, app: ASGIApp, spawn: Any) -> None:
        """`spawn` runs a coroutine in the background (the bridge's Background, so it is held until done)."""
        self.app = app
        self.spawn = spawn

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = dict(scope.get("headers") or []) if scope["type"] == "http" else {}
        if scope["type"] != "http" or scope.get("method") != "POST" or SESSION_HEADER not in headers:
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:  # read the body first (the SDK reads all of it before answering anyway)
            message = await receive()
            if message["type"] == "http.disconnect":
                return  # gone before the request was even read: nothing was started
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if not message.get("more_body") or size > PEEK_LIMIT:
                break
        more = size > PEEK_LIMIT
        body = b"".join(chunks)
        replayed = False
        answered = False
        hung_up = False

        async def replay() -> Message:
            nonlocal replayed, hung_up
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": more}
            message = await receive()
            if message["type"] == "http.disconnect" and not answered:
                hung_up = True
            return message

        async def watch(message: Message) -> None:
            nonlocal answered, hung_up
            if message["type"] == "http.response.body" and not message.get("more_body"):
                answered = True
            try:
                await send(message)
            except OSError:
                hung_up = True
                raise

        try:
            await self.app(scope, replay, watch)
        finally:
            # the body is looked into only after a hang-up: the SDK parses every request itself
            ids = _call_ids(body) if hung_up and not answered and not more else []
            if ids:
                session = headers[SESSION_HEADER].decode("latin-1")[:8]  # a prefix: enough to tell sessions apart
                log.info("MCP session %s… hung up on tools/call %s: cancelling it", session, ids)
                for request_id in ids:
                    self.spawn(self._cancel(scope, request_id))

    async def _cancel(self, scope: Scope, request_id: Any) -> None:
        """notifications/cancelled for `request_id`, into the session the hung-up request belonged to."""
        body = json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled",
                           "params": {"requestId": request_id, "reason": REASON}}).encode()
        keep = {b"host", b"origin", b"authorization", SESSION_HEADER, b"mcp-protocol-version", b"user-agent"}
        headers = [(k, v) for k, v in scope.get("headers") or [] if k in keep]
        headers += [(b"content-type", b"application/json"), (b"accept", b"application/json, text/event-stream"),
                    (b"content-length", str(len(body)).encode())]
        sent = False

        async def receive() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return {"type": "http.disconnect"}

        async def send(message: Message) -> None:
            pass  # 202 Accepted, or 404 if the session is gone meanwhile: nothing to do either way

        await self.app({**scope, "headers": headers}, receive, send)


def _call_ids(body: bytes) -> list[Any]:
    """The JSON-RPC ids of the tools/call requests in a POST body (one message, or a batch)."""
    if b"tools/call" not in body:
        return []
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return []
    messages = data if isinstance(data, list) else [data]
    return [m["id"] for m in messages
            if isinstance(m, dict) and m.get("method") == "tools/call" and isinstance(m.get("id"), (str, int))]
