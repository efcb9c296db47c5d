"""Results that always arrive: acknowledged results, retried through a network blip, no duplicate taken twice,
known pages waited for right after a bridge restart, and a reloaded page's frames answering at once."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest

from tests.pageloop import PageLoop
from tests.support import (CONNECTED, BridgeProcess, Bridges, DevServer, McpSession, ok, open_page, text_of,
                           wait_until)


@pytest.fixture(scope="module")
def br(module_bridge_process: Bridges) -> BridgeProcess:
    return module_bridge_process(name="delivery")


@pytest.fixture(scope="module")
def site(br: BridgeProcess) -> Iterator[DevServer]:
    server = DevServer(br.client_js())
    yield server
    server.close()


@pytest.fixture
def client(br: BridgeProcess) -> Iterator[McpSession]:
    session = McpSession(br.mcp_url, br.token)
    yield session
    session.close()


@pytest.fixture
def pages() -> Iterator[PageLoop]:
    with PageLoop() as loop:
        yield loop


SLOW = "await new Promise(r => setTimeout(r, 300)); return location.pathname"


@pytest.mark.parametrize("channel", ["ws", "sse"])
def test_a_result_finished_while_the_tab_is_offline_arrives_once_it_is_back(br, site, client, context, channel):
    page = open_page(context, site.url(f"/single.html?channel={channel}"))
    assert page.evaluate("window.__dbg.status().channel") == channel
    future = client.start("page_exec", {"pageId": page.page_id, "code": SLOW, "timeout": 20})
    page.wait_for_function("window.__dbg.status().running === 1")  # the exec runs in the page
    context.set_offline(True)
    try:
        page.wait_for_timeout(1500)  # the result is done after 300 ms and cannot leave the tab
        assert not future.done()
    finally:
        context.set_offline(False)
    res = future.result(timeout=10)
    assert ok(res)["result"] == "/single.html", text_of(res)


@pytest.mark.parametrize("channel", ["ws", "sse"])
def test_the_result_of_code_that_reloads_its_own_page_still_arrives(br, site, client, context, channel):
    """A result POST (SSE) is a keepalive fetch only once its document is leaving (Chromium routes keepalive fetches
    through its browser process, ~1 ms of CPU per call); the navigation's start makes it one. On loopback the POST
    usually lands before the reload commits either way, so this guards the outcome, not which fetch carried it."""
    page = open_page(context, site.url(f"/single.html?channel={channel}"))
    assert page.evaluate("window.__dbg.status().channel") == channel
    # One call: a next one sent at once could reach the old document as it unloads (then it rightly ends
    # page_unloaded, outcome unknown).
    res = client.call("page_exec", {"pageId": page.page_id, "code": "(location.reload(), 'sent')", "timeout": 10})
    assert ok(res)["result"] == "sent", text_of(res)
    # the reloaded document is back under the same pageId (and the test ends with no navigation under way)
    page.wait_for_function("window.__dbg && window.__dbg.status().state === 'connected'", timeout=10000)
    assert page.evaluate("window.__dbg.status().pageId") == page.page_id


UNACKED_EVENTS = "window.__dbg.status().unacked.filter((e) => e.key.startsWith('e:'))"


@pytest.mark.parametrize("channel", ["ws", "sse"])
def test_an_answer_and_a_message_sent_while_offline_arrive_once_when_the_tab_is_back(br, site, client, context,
                                                                                      channel):
    page = open_page(context, site.url(f"/single.html?channel={channel}"))
    assert page.evaluate("window.__dbg.status().channel") == channel
    since = ok(client.call("inbox"))["cursor"]
    call = client.start("user_ask", {"pageId": page.page_id, "question": "Ship it?", "wait": 30})
    card = page.locator("dbg-human [data-question]")
    card.wait_for(timeout=10000)
    context.set_offline(True)
    try:
        card.locator("button[data-answer=true]").click()
        page.keyboard.press("Alt+Shift+M")
        page.locator("dbg-human [data-compose] textarea").fill("sent while offline")
        page.locator("dbg-human [data-compose] button[data-answer=send]").click()
        # Both events were tried and are still unacknowledged: nothing got through yet.
        page.wait_for_function(f"{UNACKED_EVENTS}.length === 2 && {UNACKED_EVENTS}.every((e) => e.tries >= 2)",
                               timeout=10000)
        assert not call.done()
    finally:
        context.set_offline(False)
    out = ok(call.result(timeout=15))
    assert out["answer"] is True and out["via"] == "page"
    page.wait_for_function(f"{UNACKED_EVENTS}.length === 0", timeout=10000)  # acknowledged: retries stop
    items = ok(client.call("inbox", {"since": since, "kinds": ["answer", "message"], "wait": 5}))["items"]
    assert sorted((i["kind"], i["text"]) for i in items) == [("answer", "Ship it? → True"),
                                                             ("message", "sent while offline")], items


def test_a_duplicate_event_is_acknowledged_and_taken_once(br, client, pages):
    page = pages.connect(br.base)
    since = ok(client.call("inbox"))["cursor"]
    event = {"type": "event", "eventId": "ev-1", "kind": "message", "text": "once", "data": {}}
    for _ in range(2):  # the page retried: the same event twice on the WebSocket
        pages.send(page, event)
    acked = lambda: [e for f in page.received if f["type"] == "ack" for e in f.get("eventIds", [])]  # noqa: E731
    wait_until(acked, 5, what="the ack")
    assert set(acked()) == {"ev-1"}
    # Over HTTP any answer but a 5xx is the acknowledgement: 204 for the event and for its copy.
    sse = pages.connect(br.base, channel="sse")
    codes = [pages.send(sse, {**event, "eventId": "ev-2"}).status_code for _ in range(2)]
    assert codes == [204, 204]
    items = ok(client.call("inbox", {"since": since, "kinds": ["message"]}))["items"]
    assert [(i["text"], i["pageId"].split("/")[0]) for i in items] == [("once", page.page_id.split("/")[0]),
                                                                      ("once", sse.page_id.split("/")[0])], items


def test_a_duplicate_result_is_acknowledged_and_ignored(br, client, pages):
    gate = pages.gate({"ok": True, "result": "first"})
    page = pages.connect(br.base, handler=gate.handler)
    future = client.start("page_exec", {"code": "1", "pageId": page.page_id, "timeout": 20})
    frame = gate.next_frame()
    rid = frame["requestId"]
    for value in ("first", "second"):  # the page retried: the same result twice on the WebSocket
        pages.send(page, {"type": "result", "requestId": rid, "ok": True, "result": value})
    assert ok(future.result(timeout=10))["result"] == "first"
    # both copies are acknowledged, in one batched frame (ACK_DELAY) or two
    acked = lambda: [r for f in page.received if f["type"] == "ack" for r in f["requestIds"]]  # noqa: E731
    wait_until(lambda: acked(), 5, what="the ack")
    assert set(acked()) == {rid} and all(f["type"] == "ack" for f in page.received)
    # Over HTTP the answer is the acknowledgement: 204 taken, then 409 nobody waits for it any more.
    gate = pages.gate()
    sse = pages.connect(br.base, channel="sse", handler=gate.handler)
    future = client.start("page_exec", {"code": "x", "pageId": sse.page_id, "timeout": 20})
    rid = gate.next_frame()["requestId"]
    codes = [pages.send(sse, {"type": "result", "requestId": rid, "ok": True, "result": v}).status_code
             for v in ("first", "second")]
    assert codes == [204, 409]
    assert ok(future.result(timeout=10))["result"] == "first"


def _pid(page) -> str:
    return page.evaluate("window.__dbg.pageId")


def test_right_after_a_bridge_restart_calls_to_known_pages_wait_for_them(br, site, context):
    ws_page = open_page(context, site.url("/single.html"))
    sse_page = open_page(context, site.url("/framed.html?channel=sse"))
    page_ids = [ws_page.page_id, sse_page.page_id, sse_page.page_id.replace("/host", "/f0")]
    wait_until(lambda: sse_page.evaluate("window.__dbg.status().frames.length === 1 && "
                                         "window.__dbg.status().frames[0].ready"), 10, what="the frame's client")
    store = br.config_dir / "pages.json"  # written 0.2 s after the set of ids changes
    wanted = {p.split("/")[0] for p in page_ids}
    wait_until(lambda: store.exists() and {p["id"] for p in json.loads(store.read_text())["pages"]} >= wanted, 5,
               what="the reserved ids saved")
    stored = json.loads(store.read_text())
    assert "secret" not in json.dumps(stored)

    br.restart()  # the tabs are away now and come back by themselves within a second or two
    mcp = McpSession(br.mcp_url, br.token)
    try:
        started = time.monotonic()
        got = mcp.call_many([("page_exec", {"pageId": p, "code": "location.pathname", "timeout": 15})
                             for p in page_ids])
        took = time.monotonic() - started
        assert [ok(g)["result"] for g in got] == ["/single.html", "/framed.html", "/app.html"], \
            [text_of(g) for g in got]
        assert took < 8, took
    finally:
        mcp.close()
    assert _pid(ws_page) == page_ids[0] and _pid(sse_page) == page_ids[1]


def test_a_frame_of_a_reloading_page_is_waited_for_not_reported_missing(br, site, client, context):
    page = open_page(context, site.url("/framed.html"))
    frame_id = page.page_id.replace("/host", "/f0")
    assert ok(client.call("page_exec", {"pageId": frame_id, "code": "location.pathname"}))["result"] == "/app.html"
    for _ in range(3):
        page.evaluate("setTimeout(() => location.reload(), 0)")
        res = client.call("page_exec", {"pageId": frame_id, "code": "location.pathname", "timeout": 15})
        if res.is_error:  # a call that raced the unload itself is named as such, never "no frame f0"
            assert "[page_unloaded]" in text_of(res) or "[page_reloaded]" in text_of(res), text_of(res)
            res = client.call("page_exec", {"pageId": frame_id, "code": "location.pathname", "timeout": 15})
        assert ok(res)["result"] == "/app.html", text_of(res)
        page.wait_for_function(CONNECTED)
