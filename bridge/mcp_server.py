"""The MCP server: every tool from the table, registered in one loop, served at /mcp (HTTP) or over stdio."""

from __future__ import annotations

import logging

from mcp.server.mcpserver import MCPServer
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp

from bridge import __version__
from bridge.dispatch import Dispatcher
from bridge.security import Policy
from bridge.tools import TOOLS

INSTRUCTIONS = (
    "dbg-bridge connects you to the developer's running web app. Call page_list to see every connected tab and "
    "frame (pageId = instanceId/frameId), then page_exec to run JavaScript in one of them. Errors say what to do next."
)


def build_server(dispatcher: Dispatcher) -> MCPServer:
    server = MCPServer(name="dbg-bridge", version=__version__, instructions=INSTRUCTIONS)
    for tool in TOOLS:
        server.add_tool(tool.bind(dispatcher), name=tool.name, description=tool.description,
                        annotations=tool.annotations)
    # MCPServer sets root logging to INFO on creation; the bridge's own levels are set after it.
    logging.getLogger("mcp").setLevel(logging.WARNING)
    return server


def http_app(server: MCPServer, dispatcher: Dispatcher, policy: Policy) -> ASGIApp:
    """Configure the server's session manager for HTTP and return the ASGI app to route /mcp to."""
    settings = dispatcher.settings
    server.streamable_http_app(
        json_response=settings.stateless,
        stateless_http=settings.stateless,
        transport_security=TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=sorted(policy.hosts),
            allowed_origins=sorted(policy.own_origins),
        ),
    )
    return StreamableHTTPASGIApp(server.session_manager)
