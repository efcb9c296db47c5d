"""The tools a run may call, and the one way it calls them: the bridge's own tools through the one road into tools
(bridge/tools/road.py: the MCP server's `call_tool`, with the same table, argument checks, consent rules, audit and
error shape as /mcp), other MCP servers' tools as NAME__tool, and tools the seams add."""

from __future__ import annotations

import fnmatch
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mcp.types import CallToolResult, TextContent

from bridge.runs.coercion import coerce
from bridge.runs.seams import ExtraTool
from bridge.human.consent import PREAPPROVED
from bridge.tools.road import Caller, Progress, Road
from bridge.errors import BridgeError

#: Tools a run never gets: delegating to another run from inside one.
NOT_FOR_RUNS = frozenset({"agent_run"})
CONSENT_CLASSES = ("eval", "navigate", "submit", "tool", "upload")


@dataclass(frozen=True)
class Row:
    """One tool as the model sees it."""

    name: str
    description: str
    schema: dict[str, Any]
    read_only: bool
    source: str  # "bridge", "mcp:NAME", "seam" or "page" (a page's own WebMCP tool: bridge/tools/page/webmcp.py)

    def openai(self) -> dict[str, Any]:
        return {"type": "function", "function": {"name": self.name, "description": self.description,
                                                 "parameters": self.schema or {"type": "object", "properties": {}}}}


@dataclass
class Outcome:
    """A finished call: the text the model reads, whether it failed, the coercions applied."""

    text: str
    is_error: bool
    coerced: list[str] = field(default_factory=list)
    structured: Any = None
    ms: float = 0.0
    #: Images the tool answered with (mime type, base64 data): kept by the run for the cockpit.
    images: list[tuple[str, str]] = field(default_factory=list)

    @property
    def code(self) -> str | None:
        if self.is_error and self.text.startswith("["):
            return self.text[1:self.text.find("]")]
        return None


class RunContext(Caller):
    """Who calls in a run: no client session (questions go to the page and the cockpit), progress to the run's
    events, listed in the cockpit as the agent `dbg-bridge run` (version: the run's id)."""

    def __init__(self, run_id: str, progress: Progress) -> None:
        super().__init__("dbg-bridge run", run_id, progress)


def allowed_classes(allow: list[str], tool: str) -> frozenset[str]:
    """The consent classes a call needs no prompt for: those named in --allow, all of them for a tool named."""
    if any(fnmatch.fnmatchcase(tool, p) for p in allow if p not in CONSENT_CLASSES):
        return frozenset(CONSENT_CLASSES)
    return frozenset(a for a in allow if a in CONSENT_CLASSES)


class Toolbox:
    def __init__(self, road: Road, externals: Any = None, extra: list[ExtraTool] | None = None) -> None:
        self.road = road
        self.externals = externals
        self.extra = {t.name: t for t in extra or []}
        self.rows: dict[str, Row] = {}
        #: The run's page's own tools (WebMCP): row name -> (their pageId, the page's name for the tool).
        self.page_tools: dict[str, tuple[str, str]] = {}

    async def load(self, page_id: str | None = None) -> None:
        """The tools of the run: the bridge's, other servers', the seams', and the tools the run's page registered
        itself (WebMCP; the page `page_id` names, else the one tab), described as the page's, called through
        page_call_tool (its schema check, consent class `tool`, marked answers, audit)."""
        for tool in await self.road.tools():
            if tool.name in NOT_FOR_RUNS:
                continue
            hints = tool.annotations
            self.rows[tool.name] = Row(tool.name, tool.description or "", tool.input_schema,
                                       bool(hints and hints.read_only_hint), "bridge")
        if self.externals is not None:
            for row in self.externals.rows():
                self.rows[row.name] = row
        for t in self.extra.values():
            self.rows[t.name] = Row(t.name, t.description, t.input_schema, t.read_only, "seam")
        # no page, or several and none named: none here (page_tools / page_call_tool still reach them)
        if "page_call_tool" in self.rows:
            for name, tool in self.road.page_tools(page_id).items():
                if name not in self.rows:  # --mirror-page-tools lists them already, as these same rows
                    self.rows[name] = Row(name, tool.description, tool.schema, False, "page")
                self.page_tools[name] = (tool.page_id, tool.name)

    async def call(self, name: str, args: Any, ctx: RunContext, allow: list[str]) -> Outcome:
        started = time.perf_counter()
        row = self.rows.get(name)
        if row is None:
            err = BridgeError(f"There is no tool {name!r} in this run. Its tools: {', '.join(self.rows)}.",
                              code="unknown_tool")
            return Outcome(str(err), True)
        if not isinstance(args, dict):
            return Outcome(f"[invalid_argument] {name}'s arguments must be a JSON object, got {type(args).__name__}. "
                           "Fix the call and send it again.", True)
        args, notes = coerce(args, row.schema)
        if row.source in ("bridge", "page"):
            token = PREAPPROVED.set(allowed_classes(allow, name))
            try:
                if row.source == "page":
                    page_id, tool_name = self.page_tools[name]
                    args = {"pageId": page_id, "name": tool_name, "arguments": args}
                    name = "page_call_tool"
                result = await self.road.call(name, args, ctx)
            finally:
                PREAPPROVED.reset(token)
        elif row.source == "seam":
            result = await self.extra[name].call(args, lambda n, a: self.call(n, a, ctx, allow))
        else:
            result = await self.externals.call(name, args)
        out = as_outcome(result)
        out.coerced, out.ms = notes, (time.perf_counter() - started) * 1000
        return out


def as_outcome(result: Any) -> Outcome:
    """A CallToolResult (or a seam tool's Outcome/value) as text plus the error flag."""
    if isinstance(result, Outcome):
        return result
    if isinstance(result, BridgeError):
        return Outcome(str(result), True)
    if isinstance(result, CallToolResult):
        parts, images = [], []
        for c in result.content:
            if isinstance(c, TextContent):
                parts.append(c.text)
            else:
                kind = getattr(c, "type", "content")
                parts.append(f"<{kind} {getattr(c, 'mime_type', '') or ''}>".replace(" >", ">"))
                if kind == "image" and isinstance(getattr(c, "data", None), str):
                    images.append((c.mime_type, c.data))
        return Outcome("\n".join(parts), bool(result.is_error), structured=result.structured_content, images=images)
    return Outcome(json.dumps(result, ensure_ascii=False, default=str), False, structured=result)
