"""The whole loop once: a real page connects and an MCP client over HTTP runs code in its frames."""

from tests.support import ok, wait_until


def test_demo_page_and_its_frames_answer_page_exec(bridge, context, mcp):
    page = context.new_page()
    page.goto(bridge.base + "/demo")
    page.wait_for_function("window.__dbg && window.__dbg.status().state === 'connected' && window.__dbg.status().frames.every(f => f.ready)", timeout=10000)
    host = page.evaluate("window.__dbg.pageId")
    inst = host.split("/")[0]
    rows = wait_until(lambda: [r for r in mcp.pages() if r["pageId"].startswith(inst + "/")
                               and len(r) and r["pageId"] != host], what="frames listed")
    assert {r["pageId"] for r in rows} == {f"{inst}/f0", f"{inst}/f1"}
    for pid, want in ((host, "/demo"), (f"{inst}/f0", "/demo/frame"), (f"{inst}/f1", "/demo/nested")):
        assert ok(mcp.call("page_exec", {"pageId": pid, "code": "location.pathname"}))["result"] == want
