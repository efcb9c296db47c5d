"""Network idle that means idle, in real Chromium: an open event stream (messages every 100 ms) or a streaming
answer nobody reads never keeps a page busy; a body the app reads does, until it ends; an act that starts a quick
fetch answers settled in a fraction of a second. (An open WebSocket: Vite's HMR socket, e2e/test_devserver.py.)"""

import time

from tests.support import ok, open_page, text_of

FETCH_BUTTON = """() => {
    const b = document.createElement('button');
    b.id = 'load'; b.textContent = 'Load it';
    b.onclick = async () => {
        const t = await (await fetch('/single.html?' + Date.now())).text();
        document.getElementById('load').textContent = 'Loaded ' + t.length;
    };
    document.body.prepend(b);
}"""


def test_an_open_event_stream_and_an_unread_streaming_answer_leave_the_page_idle(context, dev, mcp):
    page = open_page(context, dev.url("/single.html"))
    page.evaluate("""() => {
        window.ticks = 0;
        new EventSource('/events').onmessage = () => window.ticks++;
        fetch('/stream?ms=20000');  // headers at once, a body for 20 s that the app never reads
    }""")
    page.wait_for_function("window.ticks >= 3", timeout=5000)  # the stream is open and talking
    started = time.monotonic()
    out = ok(mcp.call("page_wait", {"pageId": page.page_id, "networkIdle": True, "timeout": 5}))
    assert out["met"] is True and time.monotonic() - started < 1.5, out
    assert out["value"]["inflight"] == 0
    rows = ok(mcp.call("page_network", {"pageId": page.page_id}))["requests"]
    assert {r["kind"] for r in rows} >= {"eventsource", "fetch"}, rows


def test_a_streaming_body_the_app_reads_keeps_the_page_busy_until_it_ends(context, dev, mcp):
    page = open_page(context, dev.url("/single.html"))
    page.evaluate("() => { window.got = fetch('/stream?ms=1500').then((r) => r.text()).then((t) => window.len = t.length); }")
    started = time.monotonic()
    out = ok(mcp.call("page_wait", {"pageId": page.page_id, "networkIdle": True, "timeout": 8}))
    assert out["met"] is True
    assert time.monotonic() - started >= 1.2, out  # it waited for the body the app read (1.5 s) and the quiet after
    assert page.evaluate("window.len") > 0


def test_page_wait_network_idle_says_what_is_still_in_flight_when_it_times_out(context, dev, mcp):
    page = open_page(context, dev.url("/single.html"))
    page.evaluate("() => { fetch('/stream?ms=8000').then((r) => r.text()); }")
    text = text_of(mcp.call("page_wait", {"pageId": page.page_id, "networkIdle": True, "timeout": 1}))
    assert text.startswith("[wait_timeout]") and "/stream?ms=8000" in text, text


def test_a_click_whose_fetch_returns_at_once_answers_settled_in_well_under_a_second(context, dev, mcp):
    page = open_page(context, dev.url("/single.html"))
    page.evaluate("() => new EventSource('/events')")  # a live stream stays open all along
    page.evaluate(FETCH_BUTTON)
    started = time.monotonic()
    out = ok(mcp.call("page_act", {"pageId": page.page_id, "action": "click", "selector": "#load"}))
    took = time.monotonic() - started
    assert out["requests"]["started"] == 1 and out["requests"]["settled"] is True, out
    assert out["requests"]["waitedFor"].startswith("no request in flight for"), out
    assert any("Loaded" in line for line in out["changed"]), out  # the answer shows what the body made
    assert took < 1.0, (took, out)
