"""Every tool family, joined into the one table the MCP server registers."""

from typing import Any

from bridge.tools import desktop, inbox, page, user
from bridge.tools.base import Tool

TOOLS: list[Tool] = [*page.TOOLS, *user.TOOLS, *inbox.TOOLS, *desktop.TOOLS]


def enabled_tools(settings: Any) -> list[Tool]:
    """The tools a bridge with these settings registers: a family that is turned off is not offered at all."""
    off = set() if settings.desktop_enabled else {t.name for t in desktop.TOOLS}
    return [t for t in TOOLS if t.name not in off]
