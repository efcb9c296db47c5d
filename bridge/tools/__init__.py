"""Every tool family, joined into the one table the MCP server registers."""

from bridge.tools import inbox, page, user
from bridge.tools.base import Tool

TOOLS: list[Tool] = [*page.TOOLS, *user.TOOLS, *inbox.TOOLS]
