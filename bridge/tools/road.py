"""The one road into tools for what calls a tool inside the bridge (a run's steps, a skill's replayed steps, desktop
steps, a desktop recording): `Road.call(name, arguments, caller)` goes through the MCP server's own `call_tool`, so
such a call gets the same table, argument checks, consent, audit and `[code]` errors as one over /mcp. Runs and
skills reach tools through this module only (tests/unit/test_layering.py)."""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult, TextContent
from mcp.types import Tool as McpTool

from bridge.errors import BridgeError
from bridge.pages.webmcp import compact
from bridge.tools.page.mirror import describe, page_tools_of

#: The errors tools raised during the call `Road.value` is waiting for (Tool.bind adds each): the raised error
#: keeps what its text does not (e.g. `dispatched`, whether a page command was sent).
RAISED: ContextVar[list[BridgeError] | None] = ContextVar("dbg_raised", default=None)
Progress = Callable[[float, float | None, str | None], None]


def note_raised(exc: BridgeError) -> None:
    """Keep a tool's error for the `Road.value` call waiting for it (nothing when none is)."""
    raised = RAISED.get()
    if raised is not None:
        raised.append(exc)


class Caller(Context):
    """Who calls when no MCP request does: a run, a skill replayed from the CLI, the HTTP API or the cockpit. No
    client session (so no elicitation: questions go to the page and the cockpit); progress goes to `progress`; the
    cockpit lists the caller as an agent named `name` (version `id`)."""

    _progress: Any = None
    _client: Any = None

    def __init__(self, name: str, id: str, progress: Progress | None = None) -> None:
        super().__init__()
        self._progress = progress
        info = SimpleNamespace(name=name, version=id)
        self._client = SimpleNamespace(client_params=SimpleNamespace(client_info=info))

    @property
    def session(self) -> Any:  # type: ignore[override]
        return self._client

    async def report_progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        if self._progress is not None:
            self._progress(progress, total, message)


@dataclass(frozen=True)
class PageTool:
    """A tool a page registered (WebMCP), as a run offers it: called through page_call_tool."""

    page_id: str
    name: str
    description: str
    schema: dict[str, Any]


class Road:
    """The bridge's tools as /mcp serves them (the MCP server, bridge/server/mcp_server.py, builds it once)."""

    def __init__(self, server: Any) -> None:
        self._server = server

    async def tools(self) -> list[McpTool]:
        """The tools as tools/list lists them."""
        return list(await self._server.list_tools())

    async def call(self, name: str, arguments: dict[str, Any], caller: Context) -> CallToolResult:
        """Call the tool `name` as /mcp would, for `caller` (an MCP request's context, or a `Caller`)."""
        return await self._server.call_tool(name, arguments, caller)

    async def value(self, name: str, arguments: dict[str, Any], caller: Context) -> Any:
        """The tool's answer (its structured content), or the error it failed with, raised."""
        raised: list[BridgeError] = []
        token = RAISED.set(raised)
        try:
            result = await self.call(name, arguments, caller)
        finally:
            RAISED.reset(token)
        if result.is_error:
            if raised:
                raise raised[-1]
            raise as_error(result)
        out = result.structured_content
        return out["result"] if isinstance(out, dict) and out.keys() == {"result"} else out

    def page_tools(self, page_id: str | None) -> dict[str, PageTool]:
        """The tools the page `page_id` names (else the one tab) registered itself, by the names a run offers them
        under ({} when no page, or several and none named)."""
        state = self._server.state
        try:
            tab = {state.dispatcher.resolve(page_id).inst.id}
        except BridgeError:
            return {}
        return {name: PageTool(tool_page, tool.name, describe(tool_page, tool, origin), compact(tool.schema))
                for name, (tool_page, tool, origin) in page_tools_of(state.registry, state.webtools, tab).items()}


def as_error(result: CallToolResult) -> BridgeError:
    """An error result (`[code] message`) as the BridgeError it reads as."""
    text = "\n".join(c.text for c in result.content if isinstance(c, TextContent))
    code, sep, message = text[1:].partition("] ")
    return BridgeError(message, code=code) if text.startswith("[") and sep else BridgeError(text, code="tool_error")
