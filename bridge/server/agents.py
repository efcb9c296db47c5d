"""The agents (MCP clients) that called this bridge, as the human sees them in the cockpit: name and version from
`initialize` (or, on 2026-07-28, from each request's envelope), protocol era, calls and last call. Also what each
one has been told once already (notes an answer carries only the first time)."""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

MAX_AGENTS = 64


@dataclass
class Agent:
    name: str
    version: str
    era: str
    calls: int = 0
    first: float = field(default_factory=time.time)
    last: float = field(default_factory=time.time)
    last_tool: str = ""
    told: set[str] = field(default_factory=set)
    #: Who it is to leases and own tabs (holder()), and how they name it.
    key: Any = None
    label: str = ""

    def row(self) -> dict[str, Any]:
        return {"name": self.name, "version": self.version, "era": self.era, "calls": self.calls,
                "firstCall": self.first, "lastCall": self.last, "lastTool": self.last_tool}


def era_and_session(ctx: Any) -> tuple[str | None, Any]:
    """(protocol version, session) of a request context. An MCPServer Context's own properties each go through
    pydantic's private-attribute lookup (a failed attribute lookup, then `__getattr__`: ~5 µs apiece on the reference
    machine, several per tool call), so the SDK's request context behind it is read once, directly."""
    private = getattr(ctx, "__pydantic_private__", None)
    request = private.get("_request_context") if isinstance(private, dict) else None
    if request is not None:
        return request.protocol_version, request.session
    return ctx.protocol_version, getattr(ctx, "session", None)


def identity(ctx: Any, era_session: tuple[str | None, Any] | None = None) -> tuple[Any, str, str, str]:
    """(key, name, version, era) of the client behind a request context. A 2025-11-25 session is its SDK connection;
    a 2026-07-28 client has no session, so it is its name and version."""
    version_, session = era_session or era_and_session(ctx)
    era = version_ or "unknown"
    conn = getattr(session, "_connection", session)
    params = getattr(conn, "client_params", None)
    info = getattr(params, "client_info", None)
    name = str(getattr(info, "name", "") or "unnamed client")
    version = str(getattr(info, "version", "") or "")
    key: Any = ("session", id(conn)) if era < "2026" and conn is not None else ("client", name, version, era)
    return key, name, version, era


def _keyed(ident: tuple[Any, str, str, str], stateless: bool) -> tuple[Any, str]:
    """(key, name) from identity(): on a stateless bridge every request is a connection of its own, so the client
    (name and version) is the agent."""
    key, who, version, era = ident
    return (("client", who, version, era) if stateless else key), f"{who} {version}".strip()


def holder(ctx: Any, stateless: bool) -> tuple[Any, str]:
    """(key, name) of the agent behind a request context, as leases, own tabs, tasks and the Agents table know it."""
    return _keyed(identity(ctx), stateless)


class Agents:
    def __init__(self, stateless: bool = False) -> None:
        self._by_key: OrderedDict[Any, Agent] = OrderedDict()
        #: --stateless: each request is a connection of its own (holder), so an agent is its client's name and version
        self.stateless = stateless

    def seen(self, ctx: Any, tool: str = "", era_session: tuple[str | None, Any] | None = None) -> Agent:
        ident = identity(ctx, era_session)
        key, label = _keyed(ident, self.stateless)
        agent = self._by_key.get(key)
        if agent is None:
            agent = self._by_key[key] = Agent(*ident[1:], key=key, label=label)
        agent.calls += 1
        agent.last = time.time()
        agent.last_tool = tool or agent.last_tool
        self._by_key.move_to_end(key)
        while len(self._by_key) > MAX_AGENTS:
            self._by_key.popitem(last=False)
        return agent

    def first_time(self, ctx: Any, note: str) -> bool:
        """True the first time this agent (session) is told `note`; False after."""
        agent = self._by_key.get(holder(ctx, self.stateless)[0]) or self.seen(ctx)
        if note in agent.told:
            return False
        agent.told.add(note)
        return True

    def rows(self) -> list[dict[str, Any]]:
        """Newest call first."""
        return [a.row() for a in reversed(self._by_key.values())]
