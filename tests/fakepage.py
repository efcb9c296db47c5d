"""A page client written in Python that speaks the page protocol (for protocol tests and the 1,000-page bench).

It is not a browser: it registers, holds a WebSocket or SSE stream, and answers `exec` frames with a handler.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import websockets

Handler = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


async def echo_handler(frame: dict[str, Any]) -> dict[str, Any]:
    """Answer `eval` of '1+1' with 2 and anything else with the params back."""
    params = frame.get("params") or {}
    if frame.get("command") == "eval" and params.get("code") == "1+1":
        return {"ok": True, "result": 2}
    return {"ok": True, "result": params}


class FakePage:
    def __init__(self, base: str, *, channel: str = "ws", port: int | None = None, url: str | None = None,
                 origin: str | None = None, handler: Handler = echo_handler, frames: list[dict] | None = None,
                 http: httpx.AsyncClient | None = None) -> None:
        # a browser's page claims a url on the origin it sends (the bridge refuses anything else)
        self.base, self.channel, self.port = base, channel, port
        self.url = url or (origin or "http://127.0.0.1") + "/fake"
        self.origin = origin
        self.handler = handler
        self.frames = frames or []
        self.http = http or httpx.AsyncClient(timeout=30)
        self.instance_id: str | None = None
        self.secret: str | None = None
        self.reply: dict[str, Any] = {}
        self._ws: Any = None
        self._task: asyncio.Task[None] | None = None
        self.connected = asyncio.Event()
        self.execs = 0
        #: Every frame other than exec the bridge sent down (acks, cancels), in order.
        self.received: list[dict[str, Any]] = []

    @property
    def page_id(self) -> str:
        return f"{self.instance_id}/host"

    def _headers(self) -> dict[str, str]:
        h = {"Content-Type": "text/plain"}
        if self.origin:
            h["Origin"] = self.origin
        return h

    async def register(self, *, reclaim: bool = False) -> dict[str, Any]:
        body = {"v": 1, "instanceId": self.instance_id, "secret": self.secret, "reclaim": reclaim, "url": self.url,
                "title": "fake page", "origin": self.origin or "", "port": self.port, "attach": "fake",
                "frames": self.frames}
        r = await self.http.post(self.base + "/bridge/register", content=json.dumps(body), headers=self._headers())
        r.raise_for_status()
        self.reply = r.json()
        self.instance_id, self.secret = self.reply["instanceId"], self.reply["secret"]
        return self.reply

    async def connect(self) -> FakePage:
        if self.instance_id is None:
            await self.register()
        self.connected.clear()
        self._task = asyncio.create_task(self._run_ws() if self.channel == "ws" else self._run_sse())
        done, _ = await asyncio.wait({self._task, asyncio.create_task(self.connected.wait())},
                                     timeout=15, return_when=asyncio.FIRST_COMPLETED)
        if not self.connected.is_set():
            if self._task.done():
                self._task.result()
            raise TimeoutError("fake page did not connect within 15 s")
        return self

    async def _answer(self, frame: dict[str, Any]) -> None:
        self.execs += 1
        out = await self.handler(frame)
        await self.send({"type": "result", "requestId": frame["requestId"], **out})

    async def send(self, msg: dict[str, Any]) -> httpx.Response | None:
        if self._ws is not None:
            await self._ws.send(json.dumps(msg))
            return None
        body = {"instanceId": self.instance_id, "secret": self.secret, **msg}
        return await self.http.post(self.base + "/bridge/result", content=json.dumps(body), headers=self._headers())

    async def _run_ws(self) -> None:
        url = self.base.replace("http", "ws", 1) + f"/bridge/ws?i={self.instance_id}&t={self.secret}"
        headers = {"Origin": self.origin} if self.origin else None
        # no pings: a browser's WebSocket sends none (websockets would, every 20 s, and 10,000 pages ping a lot)
        async with websockets.connect(url, additional_headers=headers, max_size=None, ping_interval=None) as ws:
            self._ws = ws
            self.connected.set()
            try:
                async for raw in ws:
                    frame = json.loads(raw)
                    if frame.get("type") == "exec":
                        asyncio.create_task(self._answer(frame))
                    else:
                        self.received.append(frame)
            finally:
                self._ws = None

    async def _run_sse(self) -> None:
        url = self.base + f"/bridge/events?i={self.instance_id}&t={self.secret}"
        headers = {"Origin": self.origin} if self.origin else {}
        async with self.http.stream("GET", url, headers=headers, timeout=None) as r:
            r.raise_for_status()
            self.connected.set()
            async for line in r.aiter_lines():
                if line.startswith("data:"):
                    frame = json.loads(line[5:].strip())
                    if frame.get("type") == "exec":
                        asyncio.create_task(self._answer(frame))
                    else:
                        self.received.append(frame)

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None
