"""Every tool family, joined into the one table the MCP server registers."""

from bridge.settings import Settings
from bridge.tools import desktop, inbox, page, user
from bridge.tools.base import Tool

TOOLS: list[Tool] = [*page.TOOLS, *user.TOOLS, *inbox.TOOLS, *desktop.TOOLS]


def enabled_tools(settings: Settings) -> list[Tool]:
    """The tools a bridge with these settings registers: a family or group that is turned off is not offered."""
    off = set() if settings.desktop_enabled else {t.name for t in desktop.TOOLS}
    return [t for t in TOOLS
            if t.name not in off and not settings.tool_disabled(t.name, bool(t.annotations.read_only_hint))]
