"""The MCP SDK layer alone: one `echo` tool on MCPServer over Streamable HTTP, served like the bridge serves /mcp
(uvicorn, httptools, uvloop, DNS-rebinding protection on). The reference row of bench/hot_path.py.

    .venv/bin/python bench/echo_server.py PORT
"""

from __future__ import annotations

import logging
import sys

import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings


def main(port: int) -> None:
    server = MCPServer(name="echo")

    @server.tool()
    async def echo(code: str) -> dict:
        """Echo the code back (what page_exec would send to a page)."""
        return {"result": 2, "code": code}

    app = server.streamable_http_app(transport_security=TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=[f"127.0.0.1:{port}"], allowed_origins=[]))
    logging.getLogger().setLevel(logging.WARNING)
    uvicorn.run(app, host="127.0.0.1", port=port, loop="uvloop", http="httptools", log_level="warning",
                access_log=False)


if __name__ == "__main__":
    main(int(sys.argv[1]))
