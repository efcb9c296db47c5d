"""page_wait, page_console and page_navigate in real Chromium: async content, errors, navigation under one pageId."""


import pytest

from tests.support import CONNECTED, ok, text_of, wait_until


def test_wait_returns_when_async_content_appears(app, mcp):
    ok(mcp.call("page_act", {"pageId": app.page_id, "action": "click", "text": "Load more"}))
    out = ok(mcp.call("page_wait", {"pageId": app.page_id, "text": "Quince", "timeout": 5}))
    assert out["met"] is True


def test_wait_for_something_that_never_comes_fails_when_its_time_is_up(app, mcp):
    res = mcp.call("page_wait", {"pageId": app.page_id, "text": "never there", "timeout": 0.5})
    assert res.is_error and "[wait_timeout]" in text_of(res) and "0.5 s" in text_of(res)


def test_wait_until_a_dialog_is_hidden(app, mcp):
    ok(mcp.call("page_act", {"pageId": app.page_id, "action": "click", "text": "Delete all"}))
    fut = mcp.start("page_wait", {"pageId": app.page_id, "selector": "dialog[open]", "state": "hidden", "timeout": 5})
    app.evaluate("document.getElementById('yes').click()")
    assert not fut.result(10).is_error


def test_console_reports_errors_rejections_and_a_cursor(app, mcp):
    app.evaluate("""() => {
        console.log('hello', {a: 1});
        console.error('boom');
        setTimeout(() => { throw new TypeError('late failure'); });
        Promise.reject(new Error('nobody caught me'));
        fetch('/missing.json').then(r => { if (!r.ok) console.warn('fetch failed ' + r.status); });
    }""")
    wanted = ("boom", "Uncaught TypeError: late failure", "Unhandled rejection: Error: nobody caught me",
              "fetch failed 404")

    def all_errors_arrived():
        out = ok(mcp.call("page_console", {"pageId": app.page_id, "level": "error,warn", "stack": True}))
        joined = " | ".join(e["text"] for e in out["entries"])
        return out if all(w in joined for w in wanted) else None

    errors = wait_until(all_errors_arrived, 10, what="async errors in page_console")
    texts = [e["text"] for e in ok(mcp.call("page_console", {"pageId": app.page_id}))["entries"]]
    assert 'hello {"a":1}' in texts and "boom" in texts
    assert any(e.get("stack") for e in errors["entries"] if "late failure" in e["text"])
    assert all(e["level"] in ("error", "warn") for e in errors["entries"])
    again = ok(mcp.call("page_console", {"pageId": app.page_id, "since": errors["cursor"]}))
    assert again["entries"] == []


def test_console_keeps_entries_across_a_reload(app, mcp):
    app.evaluate("console.warn('before reload')")
    app.reload()
    app.wait_for_function(CONNECTED, timeout=10000)
    texts = [e["text"] for e in ok(mcp.call("page_console", {"pageId": app.page_id}))["entries"]]
    assert "before reload" in texts and "--- page reloaded or navigated ---" in texts


def test_navigate_keeps_the_page_id_and_reports_where_it_landed(app, dev, mcp):
    went = ok(mcp.call("page_navigate", {"pageId": app.page_id, "url": "/single.html"}))
    assert went["pageId"] == app.page_id and went["url"] == dev.url("/single.html") and went["reloaded"]
    assert went["title"] == "single page"
    back = ok(mcp.call("page_navigate", {"pageId": app.page_id, "action": "back"}))
    assert back["url"] == dev.url("/app.html")
    again = ok(mcp.call("page_navigate", {"pageId": app.page_id, "action": "reload"}))
    assert again["reloaded"] and again["url"] == dev.url("/app.html")
    hash_nav = ok(mcp.call("page_navigate", {"pageId": app.page_id, "url": "#about"}))
    assert hash_nav["reloaded"] is False and hash_nav["url"].endswith("/app.html#about")


def test_navigate_to_a_slow_server_answers_with_the_new_document_never_the_old_one(app, dev, mcp):
    # the new document's answer is held back 1.5 s by the server: the old document stays up, live, meanwhile
    went = ok(mcp.call("page_navigate", {"pageId": app.page_id, "url": "/single.html?slow=1500"}))
    assert went["reloaded"] and went["url"] == dev.url("/single.html?slow=1500") and went["title"] == "single page"
    back = ok(mcp.call("page_navigate", {"pageId": app.page_id, "action": "back"}))
    assert back["reloaded"] and back["url"] == dev.url("/app.html") and back["title"] == "model app"


def test_a_call_right_after_a_click_to_a_slow_server_is_answered_by_the_new_document(app, dev, mcp):
    app.evaluate("document.body.insertAdjacentHTML('beforeend', '<a id=\"slow\" href=\"/single.html?slow=1500\">slow</a>')")
    ok(mcp.call("page_act", {"pageId": app.page_id, "action": "click", "selector": "#slow"}))
    # the old document is still up and connected for 1.5 s: it said it is leaving, so the call waits for the next one
    head = text_of(mcp.call("page_snapshot", {"pageId": app.page_id})).splitlines()[0]
    assert head.endswith(dev.url("/single.html?slow=1500") + " · 'single page'"), head


def test_screenshot_of_a_page_without_the_extension_says_how_to_get_one(app, mcp):
    res = mcp.call("page_screenshot", {"pageId": app.page_id})
    assert res.is_error and "[not_available]" in text_of(res) and "plugins/extension" in text_of(res)


@pytest.mark.parametrize("channel", ["ws", "sse"])
def test_navigate_succeeds_when_the_page_leaves_before_its_answer_arrives(bridge, mcp, pages, channel):
    """Firefox on SSE: the navigation drops the stream, and the answer's POST with it, before the answer lands."""
    holder: dict = {}

    async def handler(frame: dict) -> dict:
        page = holder["page"]
        if frame["command"] == "navigate":
            await page.close()  # the channel goes before the answer is sent
            page.url = "http://127.0.0.1/next"
            await page.register(reclaim=True)  # the next document, same tab
            await page.connect()
            return {"ok": True, "result": {}}  # too late: nobody waits for it any more
        if frame["command"] == "location":
            return {"ok": True, "result": {"href": page.url, "origin": "http://127.0.0.1", "title": "next",
                                           "readyState": "complete"}}
        return {"ok": True, "result": None}

    holder["page"] = page = pages.connect(bridge.base, channel=channel, handler=handler)
    went = ok(mcp.call("page_navigate", {"pageId": page.page_id, "url": "/next"}))
    assert went.pop("waited").startswith("load")
    assert went == {"pageId": page.page_id, "reloaded": True, "url": "http://127.0.0.1/next", "title": "next"}
