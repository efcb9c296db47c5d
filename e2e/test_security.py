"""Against a real bridge process, what only the process shows: no page secret and no token in its log (the token
only in the startup banner), nor in what it lists. The HTTP checks are in tests/http/test_security.py, the page
socket's in tests/http/test_security_sockets.py."""

from __future__ import annotations

import httpx

from bridge.cli.entry import banner
from bridge.settings import Settings
from tests.support import BridgeProcess, auth, ok, text_of, wait_until


def test_sessions_and_the_log_never_show_a_page_secret_or_the_token(bridge: BridgeProcess, mcp, pages):
    with httpx.Client(base_url=bridge.base, timeout=15) as http:
        ws_page = pages.connect(bridge.base, port=41234)
        sse_page = pages.connect(bridge.base, channel="sse", origin="http://localhost:5173")
        secrets = [ws_page.secret, sse_page.secret]
        for page in (ws_page, sse_page):
            assert ok(mcp.call("page_exec", {"code": "1+1", "pageId": page.page_id}))["result"] == 2
        # A refused attempt with a real secret in the query string, and a reload that reuses it.
        assert http.get(f"/bridge/events?i={ws_page.instance_id}&t={ws_page.secret}",
                        headers={"Origin": "http://evil.example"}).status_code == 403
        pages.run(sse_page.register(reclaim=True))
        wait_until(lambda: f"page {ws_page.instance_id} registered" in bridge.log.read_text(), what="activity logged")

        sessions = http.get("/bridge/sessions", headers=auth(bridge))
        assert sessions.status_code == 200
        assert {ws_page.page_id, sse_page.page_id} <= {r["pageId"] for r in sessions.json()["pages"]}
    listed = text_of(mcp.call("page_list"))
    for secret in [*secrets, bridge.token]:
        assert secret not in sessions.text
        assert secret not in listed

    log = bridge.log.read_text()
    for secret in secrets:
        assert secret not in log
    # The token is printed once, in the startup banner meant for the terminal, and nowhere else.
    shown = banner(Settings(port=bridge.port, config_dir=bridge.config_dir), bridge.token)
    assert bridge.token not in log.replace(shown, "")
