"""The in-memory tier: the official MCP client talking in-process to `build_server(...)`, and fake pages attached
straight to the registry that answer exec frames with a Python handler. No subprocess, no port, no browser."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import Client

from bridge.server.mcp_server import build_server
from bridge.pages.protocol import RegisterRequest, parse_up
from bridge.pages.registry import Instance
from bridge.pages.up_messages import handle_up
from bridge.settings import Settings
from bridge.state import BridgeState
from tests.support import run_async

#: A page's answer to one exec frame: {"ok": True, "result": …} or {"ok": False, "error": {"code", "message"}}.
Answer = dict[str, Any]
Handler = Callable[[dict[str, Any]], Awaitable[Answer | None]]


#: The least answer each command's result model accepts (bridge/pages/commands.py), for `echo` to build on.
SHAPES: dict[str, dict[str, Any]] = {
    "ping": {"pong": True, "frameId": "host", "url": "http://localhost:5173/", "time": 0},
    "location": {"href": "http://localhost:5173/", "origin": "http://localhost:5173", "title": "App",
                 "readyState": "complete"},
    "snapshot": {"snapshotId": "s1@ab", "tree": "", "url": "http://localhost:5173/", "title": "App", "elements": 0,
                 "truncated": False},
    "find": {"matches": [], "total": 0, "more": False},
    "console": {"entries": [], "cursor": 0, "more": False},
    "wait": {"met": True, "ms": 0},
    "navigate": {"from": "http://localhost:5173/", "action": "goto"},
    "network": {"requests": [], "cursor": 0, "more": False, "inflight": 0},
    "source": {"ref": "e1", "element": "<div>", "via": "unknown", "components": []},
    "notify": {"shown": True},
}


async def echo(frame: dict[str, Any]) -> Answer:
    """Answer every command with its params, on top of the least answer its result model accepts (and `eval` of
    plain arithmetic with its value)."""
    params = frame.get("params") or {}
    if frame["command"] == "eval" and isinstance(params.get("code"), str) and set(params["code"]) <= set("0123456789+*- "):
        return {"ok": True, "result": eval(params["code"])}  # noqa: S307 - digits and operators only
    shape = SHAPES.get(frame["command"])
    if shape is None:
        return {"ok": True, "result": params}
    return {"ok": True, "result": {**{k: v for k, v in params.items() if k not in ("resources",)}, **shape}}


class FakeConnection:
    """A page connection that answers each exec frame with `handler` (None: never answers), through the same
    `handle_up` the page channel uses."""

    kind = "fake"

    def __init__(self, state: BridgeState, handler: Handler) -> None:
        self.state, self.handler = state, handler
        self.inst: Instance | None = None
        self.frames: list[dict[str, Any]] = []
        self.closed = False
        self.arrived = asyncio.Event()  # set on each exec frame

    async def next_exec(self, timeout: float = 5) -> dict[str, Any]:
        """Wait (bounded) until an exec frame has arrived; the latest one."""
        await asyncio.wait_for(self.arrived.wait(), timeout)
        return self.execs()[-1]

    async def send(self, text: str) -> None:
        frame = json.loads(text)
        self.frames.append(frame)
        if frame.get("type") == "exec":
            self.arrived.set()
            self.state.background.spawn(self._answer(frame))

    async def _answer(self, frame: dict[str, Any]) -> None:
        answer = await self.handler(frame)
        if answer is None or self.inst is None:
            return
        handle_up(self.state, self.inst, parse_up({"type": "result", "requestId": frame["requestId"], **answer}))

    def close(self) -> None:
        self.closed = True

    def execs(self, command: str | None = None) -> list[dict[str, Any]]:
        return [f for f in self.frames if f.get("type") == "exec" and (command is None or f["command"] == command)]


class Bridge:
    """One bridge's state + MCP server, with helpers to attach fake pages and call tools."""

    def __init__(self, state: BridgeState, client: Client, server: Any = None) -> None:
        self.state, self.client, self.server = state, client, server

    def connect_page(self, handler: Handler = echo, *, url: str = "http://localhost:5173/", title: str = "App",
                     port: int | None = 5173, frames: list[dict[str, Any]] | None = None,
                     verified: bool = True, attach: str = "fake") -> FakeConnection:
        """A page that registered as a browser's would: its request's Origin is its url's (unless verified=False,
        a client that sends no Origin); `attach` as its client says it came (script, plugin, extension)."""
        origin = url.split("/", 3)[0] + "//" + url.split("/", 3)[2]
        req = RegisterRequest(url=url, title=title, origin=origin, port=port, attach=attach, frames=frames or [])
        inst, _ = self.state.registry.register(req, origin if verified else "")
        conn = FakeConnection(self.state, handler)
        conn.inst = inst
        self.state.registry.attach(inst, conn)
        return conn

    async def call(self, tool: str, args: dict[str, Any] | None = None) -> Any:
        return await self.client.call_tool(tool, args or {})

    async def ok(self, tool: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        """Call a tool that must succeed; its structured content."""
        out = await self.call(tool, args)
        assert not out.is_error, text_of(out)
        return out.structured_content

    async def error(self, tool: str, args: dict[str, Any] | None = None) -> str:
        """Call a tool that must fail; its error text."""
        out = await self.call(tool, args)
        assert out.is_error, f"{tool} unexpectedly succeeded: {text_of(out)}"
        return text_of(out)


def text_of(result: Any) -> str:
    return "\n".join(getattr(c, "text", "") for c in result.content)


#: Every agent-visible failure: `[code]`, then what happened.
SHAPE = re.compile(r"^\[[a-z_]+\] \S")


def assert_shape(result: Any, code: str) -> str:
    """A tool failure in the one shape (text starting `[code]`, no SDK prefix, no other project's links); its text."""
    body = text_of(result)
    assert result.is_error, body
    assert body.startswith(f"[{code}] "), body
    assert SHAPE.match(body)
    assert "Error executing tool" not in body and "pydantic" not in body
    assert not re.search(r"https?://(?!127\.0\.0\.1:7878/)", body), body  # only the bridge's own URLs
    return body


def settings(tmp: Path, **overrides: Any) -> Settings:
    base: dict[str, Any] = {"config_dir": tmp, "no_audit": True, "no_consent": True, "desktop_enabled": False,
                            "port": 7878, "project_root": tmp}
    return Settings(**{**base, **overrides})


@asynccontextmanager
async def bridge(tmp: Path, **overrides: Any) -> AsyncIterator[Bridge]:
    """A bridge in this event loop: its state (the dispatcher and the desktop among it), its MCP server and an
    in-memory MCP client connected to it."""
    state = BridgeState(settings(tmp, **overrides))
    state.open_desktop()  # as the app's lifespan does (None unless desktop_enabled and its backend loads)
    server = build_server(state)
    try:
        async with Client(server) as client:
            yield Bridge(state, client, server)
    finally:
        await state.close_desktop()
    for task in list(state.background.tasks):
        task.cancel()


async def eventually(predicate: Callable[[], Any], timeout: float = 5, what: str = "condition") -> Any:
    """Poll `predicate` on this loop (bounded) until it answers something truthy; that answer."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not (value := predicate()):
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(0.01)
    return value


def run(coro: Awaitable[Any], timeout: float = 30) -> Any:
    """Run one test coroutine on a fresh loop in its own thread, bounded (the session's sync Playwright may hold a
    running loop on this thread)."""
    return run_async(coro, timeout)
