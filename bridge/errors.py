"""Errors an agent can act on. Each has a code and a message that says what to do next.

They subclass the SDK's ToolError so a raised error becomes an `isError` tool result with this text.
"""

from __future__ import annotations

from mcp.server.mcpserver.exceptions import ToolError


class BridgeError(ToolError):
    code = "bridge_error"

    #: For failures of a call to a page: False = the command never reached the page (nothing ran, a retry is
    #: safe), True = it was sent and its outcome is unknown (it may have run). None where that does not apply.
    dispatched: bool | None = None

    def __init__(self, message: str, *, code: str | None = None, dispatched: bool | None = None) -> None:
        super().__init__(message)
        if code:
            self.code = code
        if dispatched is not None:
            self.dispatched = dispatched

    def __str__(self) -> str:
        return f"[{self.code}] {super().__str__()}"


class NoPageConnected(BridgeError):
    code = "no_page"


class UnknownPage(BridgeError):
    code = "unknown_page"


class AmbiguousPage(BridgeError):
    code = "ambiguous_page"


class CrossOriginFrame(BridgeError):
    code = "cross_origin_frame"


class PageGone(BridgeError):
    """The page unloaded, disconnected or expired while (or before) the call ran."""

    code = "page_gone"


class PageTimeout(BridgeError):
    code = "page_timeout"


class PageError(BridgeError):
    """The page answered with an error (exception, CSP, result too large...)."""

    code = "page_exception"
