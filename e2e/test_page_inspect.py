"""page_network, page_source, page_highlight and snapshots across frames, in real Chromium."""

from pathlib import Path

from tests.support import ok, open_page, text_of, wait_until


def test_network_lists_fetch_and_xhr_with_status_and_redacts_secrets(app, mcp):
    app.evaluate("""async () => {
        await fetch('/app.html');
        await fetch('/missing.json', {headers: {Authorization: 'Bearer s3cr3t-token'}});
        await new Promise((resolve) => {
            const x = new XMLHttpRequest();
            x.open('POST', '/nowhere');
            x.setRequestHeader('X-Api-Key', 'k3y');
            x.onloadend = resolve;
            x.send('hello=1');
        });
    }""")
    out = ok(mcp.call("page_network", {"pageId": app.page_id}))
    rows = out["requests"]
    assert [(r["kind"], r["status"]) for r in rows] == [("fetch", 200), ("fetch", 404), ("xhr", 501)]
    assert all("/bridge/" not in r["url"] for r in rows)  # the client's own traffic is left out
    failed = ok(mcp.call("page_network", {"pageId": app.page_id, "failedOnly": True}))["requests"]
    assert [r["status"] for r in failed] == [404, 501]
    detail = ok(mcp.call("page_network", {"pageId": app.page_id, "id": rows[1]["id"]}))["request"]
    assert detail["requestHeaders"]["authorization"] == "[redacted]"
    assert "s3cr3t" not in str(detail)
    xhr = ok(mcp.call("page_network", {"pageId": app.page_id, "id": rows[2]["id"]}))["request"]
    assert xhr["requestHeaders"]["x-api-key"] == "[redacted]" and xhr["requestBody"] == "hello=1"
    later = ok(mcp.call("page_network", {"pageId": app.page_id, "since": out["cursor"]}))
    assert later["requests"] == []


def test_wait_for_network_idle(app, mcp):
    app.evaluate("fetch('/app.html'); fetch('/frame.html')")
    out = ok(mcp.call("page_wait", {"pageId": app.page_id, "networkIdle": True, "timeout": 5}))
    assert out["met"] is True
    assert ok(mcp.call("page_network", {"pageId": app.page_id}))["inflight"] == 0


def test_source_comes_from_the_nearest_compile_time_attribute_or_says_unknown(context, dev, mcp):
    page = open_page(context, dev.url("/source.html"))
    found = ok(mcp.call("page_source", {"pageId": page.page_id, "selector": "#in-card"}))
    assert (found["file"], found["line"], found["column"], found["via"]) == ("src/components/Card.jsx", 14, 5, "attribute")
    unknown = ok(mcp.call("page_source", {"pageId": page.page_id, "selector": "#plain"}))
    assert unknown["via"] == "unknown" and unknown["file"] is None
    svelte = ok(mcp.call("page_source", {"pageId": page.page_id, "selector": "#svelte"}))
    assert (svelte["file"], svelte["line"], svelte["column"], svelte["via"]) == ("src/App.svelte", 4, 3, "svelte")


def test_highlight_outlines_elements_without_blocking_clicks_and_clears(app, mcp):
    text = text_of(mcp.call("page_snapshot", {"pageId": app.page_id}))
    ref = next(line for line in text.splitlines() if 'button "Delete all"' in line).split("[ref=")[1].split("]")[0]
    out = ok(mcp.call("page_highlight", {"pageId": app.page_id, "refs": [ref], "label": "this one"}))
    assert [r.split("@")[0] for r in out["highlighted"]] == [ref.split("@")[0]]  # the lean snapshot writes refs bare
    assert app.evaluate("!!document.querySelector('dbg-overlay')")
    app.click("#open")  # a real, trusted click through the overlay still reaches the button
    app.wait_for_function("document.getElementById('confirm').open", timeout=5000)
    assert ok(mcp.call("page_highlight", {"pageId": app.page_id, "clear": True}))["cleared"] == 1
    assert not app.evaluate("!!document.querySelector('dbg-overlay')")


def test_snapshot_with_frames_gives_frame_refs_that_page_act_follows(context, dev, mcp):
    page = open_page(context, dev.url("/framed.html"))
    page.wait_for_function("window.__dbg.status().frames.length === 1 && window.__dbg.status().frames[0].ready",
                           timeout=10000)
    inst = page.page_id.split("/")[0]
    wait_until(lambda: any(r["pageId"] == f"{inst}/f0" for r in mcp.pages()), what="frame")
    text = text_of(mcp.call("page_snapshot", {"pageId": page.page_id, "includeFrames": True}))
    assert "[frame=f0]" in text and 'heading "Outer"' in text
    line = next(line for line in text.splitlines() if 'button "Delete all"' in line)
    ref = line.split("[ref=")[1].split("]")[0]
    assert ref.startswith("f0:")
    done = ok(mcp.call("page_act", {"pageId": page.page_id, "action": "click", "ref": ref}))
    assert done["pageId"] == f"{inst}/f0"
    assert page.frame_locator("#inner").locator("#confirm").evaluate("d => d.open")


def test_drag_moves_a_card_with_html5_drag_and_drop(context, dev, mcp):
    page = open_page(context, dev.url("/dnd.html"))
    out = ok(mcp.call("page_act", {"pageId": page.page_id, "action": "drag", "text": "Write tests", "to": "#done"}))
    assert out["done"][0]["action"] == "drag"
    assert page.evaluate("document.getElementById('card').parentElement.id") == "done"
    bad = mcp.call("page_act", {"pageId": page.page_id, "action": "drag", "selector": "#card"})
    assert bad.is_error and "drag needs `to`" in text_of(bad)


def test_a_big_snapshot_goes_to_a_file_the_answer_names(app, mcp):
    out = ok(mcp.call("page_snapshot", {"pageId": app.page_id, "toFile": True, "maxChars": 200}))
    path = Path(out["file"])
    assert path.is_file() and oct(path.stat().st_mode & 0o777) == "0o600"
    full = path.read_text()
    assert out["chars"] == len(full) > 200 and len(out["tree"]) <= 200 and full.startswith(out["tree"])
    assert 'button "Shadow button"' in full
