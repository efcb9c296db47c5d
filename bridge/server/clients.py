"""The MCP clients the bridge has seen: for 'is an agent connected?', and to reach 2025-11-25 sessions later
(inbox announcements on their GET stream, opt-in sampling of human messages)."""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from typing import Any

import anyio
from mcp.shared.exceptions import MCPError
from mcp.types import ClientCapabilities, SamplingCapability, SamplingMessage, TextContent

from bridge.server.agents import Agent, Agents, era_and_session

log = logging.getLogger("bridge.server.clients")

#: Errors of a session that went away between our seeing it and our writing to it.
MAX_SESSIONS = 32
GONE = (anyio.ClosedResourceError, anyio.BrokenResourceError, RuntimeError, MCPError)


class Clients:
    def __init__(self, stateless: bool = False) -> None:
        #: Who called, for the cockpit (and notes said once per agent).
        self.agents = Agents(stateless)
        self.calls = 0
        self.last_call: float | None = None
        #: Handshake-era sessions (a standing GET stream, server->client requests), newest last, keyed by the
        #: SDK connection they ride on (the session object itself is made per request). Bounded; a session that
        #: fails a write is dropped.
        self._sessions: OrderedDict[int, Any] = OrderedDict()
        #: Handshake-era sessions that subscribed (resources/subscribe): key -> (session, uris). Only they hear
        #: notifications/resources/updated.
        self.subscribed: OrderedDict[int, tuple[Any, set[str]]] = OrderedDict()
        #: logging/setLevel per session key (the bridge sends no log notifications below it).
        self.log_levels: dict[int, str] = {}

    @property
    def sessions(self) -> list[Any]:
        return list(self._sessions.values())

    def seen(self, ctx: Any, tool: str = "") -> Agent:
        """Called on every tool call with the SDK's Context; the agent it counted the call for."""
        era_session = era_and_session(ctx)
        agent = self.agents.seen(ctx, tool, era_session)
        self.calls += 1
        self.last_call = time.time()
        version, session = era_session
        if version and version < "2026":
            key = id(getattr(session, "_connection", session))
            self._sessions[key] = session
            self._sessions.move_to_end(key)
            while len(self._sessions) > MAX_SESSIONS:
                self._sessions.popitem(last=False)
        return agent

    def _drop(self, session: Any) -> None:
        for key, value in list(self._sessions.items()):
            if value is session:
                del self._sessions[key]

    @staticmethod
    def key(session: Any) -> int:
        return id(getattr(session, "_connection", session))

    def subscribe(self, session: Any, uri: str, on: bool = True) -> None:
        key = self.key(session)
        _, uris = self.subscribed.get(key, (session, set()))
        if on:
            uris.add(uri)
        else:
            uris.discard(uri)
        if uris:
            self.subscribed[key] = (session, uris)
            while len(self.subscribed) > MAX_SESSIONS:
                self.subscribed.popitem(last=False)
        else:
            self.subscribed.pop(key, None)

    async def announce(self, uri: str) -> None:
        """Tell the handshake-era sessions subscribed to `uri` that it changed (notifications/resources/updated)."""
        for key, (session, uris) in list(self.subscribed.items()):
            if uri not in uris:
                continue
            try:
                await session.send_resource_updated(uri)
            except GONE:
                self.subscribed.pop(key, None)
                self._drop(session)

    async def tools_changed(self) -> None:
        """Tell the handshake-era sessions the tool list changed (notifications/tools/list_changed)."""
        for session in self.sessions:
            try:
                await session.send_tool_list_changed()
            except GONE:
                self._drop(session)

    async def sample(self, text: str, system: str, max_tokens: int = 400) -> str | None:
        """Ask the first session that declared sampling to answer `text`; None if none can."""
        wants = ClientCapabilities(sampling=SamplingCapability())
        for session in reversed(self.sessions):
            if not session.check_client_capability(wants):
                continue
            try:
                result = await session.create_message(
                    [SamplingMessage(role="user", content=TextContent(type="text", text=text))],
                    max_tokens=max_tokens, system_prompt=system)
            except GONE as exc:
                log.info("sampling request failed: %s", exc)
                self._drop(session)
                continue
            content = result.content
            return getattr(content, "text", None) or str(content)
        return None
