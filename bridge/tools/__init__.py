"""Every tool family, joined into the one table the MCP server registers."""

from bridge.settings import Settings
from bridge.tools import agent, desktop, inbox, skill, user
from bridge.tools.page import open_tab as page_open, tools as page, webmcp
from bridge.tools.base import Tool

TOOLS: list[Tool] = [*page.TOOLS, *page_open.TOOLS, *webmcp.TOOLS, *user.TOOLS, *inbox.TOOLS, *skill.TOOLS,
                     *desktop.TOOLS, *agent.TOOLS]


def enabled_tools(settings: Settings) -> list[Tool]:
    """The tools a bridge with these settings registers: a family that is turned off, or whose backend cannot load
    here (`dbg-bridge doctor` says why), is not offered."""
    from bridge.desktop import served

    off = set() if served(settings) else {t.name for t in desktop.TOOLS}
    if not (settings.model_url or settings.model == "client"):  # agent_run needs a model to run with
        off |= {t.name for t in agent.TOOLS}
    return [t for t in TOOLS
            if t.name not in off and not settings.tool_disabled(t.name, bool(t.annotations.read_only_hint))]
