"""The page_* tools and what only they use: the tools (tools.py; page_open, a tab of an agent's own, in open_tab.py;
WebMCP's page_tools and page_call_tool in webmcp.py, and `--mirror-page-tools` in mirror.py), the `Page` handle a
page or user tool works on (handle.py), the one act pipeline (act.py) with its upload and desktop hand-over
(upload.py, desktop.py), the dev server's updates (dev.py), what broke and the vitals at the lines written
(problems.py, vitals.py). It may import errors, settings, state, desktop, pages, human and the server's plumbing,
and of the other tools only their shared parts (base, outputs) and desktop_open_url (page_open's desktop route);
this file imports nothing, so base.py can import the handle."""
