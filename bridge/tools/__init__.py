"""Every tool family, joined into the one table the MCP server registers."""

import fnmatch
from typing import Any

from bridge.tools import desktop, inbox, page, user
from bridge.tools.base import Tool

TOOLS: list[Tool] = [*page.TOOLS, *user.TOOLS, *inbox.TOOLS, *desktop.TOOLS]


def disabled(tool: Tool, patterns: list[str]) -> bool:
    """`--disable-tools` entries: a tool name or glob (`desktop_*`, `page_exec`), or `@acting` for every tool that
    is not read-only (a bridge that can look but not touch)."""
    for pattern in patterns:
        if pattern == "@acting" and not tool.annotations.read_only_hint:
            return True
        if fnmatch.fnmatchcase(tool.name, pattern):
            return True
    return False


def enabled_tools(settings: Any) -> list[Tool]:
    """The tools a bridge with these settings registers: a family or group that is turned off is not offered."""
    off = set() if settings.desktop_enabled else {t.name for t in desktop.TOOLS}
    return [t for t in TOOLS if t.name not in off and not disabled(t, settings.disable_tools)]
