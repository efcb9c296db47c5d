"""The pages the bridge talks to: the registry, the wire protocol and page commands, the dispatcher and its pending
table, the page's up messages, WebMCP tools, source maps and the tabs' leases (one agent acts in a tab at a time).
May import errors, settings, shared, the server's plumbing and human's inbox; only up_messages (a page message's way
in) imports human and state.
"""
