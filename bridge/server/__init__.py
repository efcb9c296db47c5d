"""The serving bridge: the HTTP app (app.py) and the MCP server on top, and the request plumbing below them (the
error shape, Host/Origin rules, rate limits, background tasks, progress, clients, hang-ups, artifacts, the GC).
app and mcp_server may import anything and only cli and gen import them; the plumbing imports only settings and server.
"""
