"""dbg-bridge: a local bridge between MCP clients and the developer's running web app."""

__version__ = "0.1.0"
