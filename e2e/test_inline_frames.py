"""Frames with no URL of their own (srcdoc, or built by script on about:blank) get the client too."""

from tests.support import CONNECTED, ok, wait_until


def test_srcdoc_and_script_built_frames_answer_page_exec(context, dev, mcp):
    page = context.new_page()
    page.goto(dev.url("/single.html"))
    page.wait_for_function(CONNECTED, timeout=10000)
    page.evaluate("""() => {
        const a = document.createElement('iframe');
        a.srcdoc = '<p id=who>from srcdoc</p>';
        document.body.appendChild(a);
        const b = document.createElement('iframe');
        document.body.appendChild(b);
        b.contentDocument.body.innerHTML = '<p id=who>built by script</p>';
    }""")
    page.wait_for_function("window.__dbg.status().frames.length === 2 && window.__dbg.status().frames.every(f => f.ready)",
                           timeout=10000)
    inst = page.evaluate("window.__dbg.pageId").split("/")[0]
    wait_until(lambda: {f"{inst}/f0", f"{inst}/f1"} <= {r["pageId"] for r in mcp.pages()},
               what="both frames listed")
    got = {ok(mcp.call("page_exec", {"pageId": f"{inst}/{f}", "code": "document.getElementById('who').textContent"}))["result"]
           for f in ("f0", "f1")}
    assert got == {"from srcdoc", "built by script"}
    rows = [r for r in mcp.pages() if r["pageId"] in (f"{inst}/f0", f"{inst}/f1")]
    assert all(not r["crossOrigin"] for r in rows)
