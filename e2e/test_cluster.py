"""Team bridge: a real redis-server and three `serve --cluster` replicas, with a Chromium tab and fake page
clients spread over them. Calls cross replicas, ids stay unique, a dead owner fails its callers fast, a real tab
whose replica dies comes back under its pageId on a live one (connected directly, and behind HAProxy), the inbox
is one feed, and Redis going away is a named error while local pages keep working."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from collections.abc import Iterator
from types import SimpleNamespace

import httpx
import pytest
import redis

from tests.pageloop import PageLoop
from tests.fakepage import echo_handler
from tests.support import (Bridges, DevServer, LoadBalancer, McpSession, RedisServer, free_port, ok, open_page,
                           run_async, text_of, wait_until)


@pytest.fixture(scope="module")
def redis_server() -> Iterator[RedisServer]:
    server = RedisServer().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def replicas(redis_server: RedisServer, module_bridge_process: Bridges) -> Iterator[SimpleNamespace]:
    procs = [module_bridge_process("--cluster", redis_server.url, name=f"replica-{name}") for name in "abc"]
    sessions: list[McpSession] = []
    try:
        for p in procs:
            sessions.append(McpSession(p.mcp_url, p.token))
        yield SimpleNamespace(a=procs[0], b=procs[1], c=procs[2], mcp_a=sessions[0], mcp_b=sessions[1],
                              mcp_c=sessions[2])
    finally:
        for s in sessions:
            s.close()


def rows_by_id(session: McpSession) -> dict[str, dict]:
    """Every row of the cluster's page_list, through its pages (nextCursor)."""
    rows: dict[str, dict] = {}
    args: dict = {"limit": 1000}
    while True:
        got = ok(session.call("page_list", args))
        rows.update({r["pageId"]: r for r in got["pages"]})
        if "nextCursor" not in got:
            return rows
        args = {"limit": 1000, "cursor": got["nextCursor"]}


def live_everywhere(r: SimpleNamespace, page_id: str) -> None:
    """Bounded wait until every replica's page_list shows `page_id` live."""
    for s in (r.mcp_a, r.mcp_b, r.mcp_c):
        wait_until(lambda: rows_by_id(s).get(page_id, {}).get("state") == "live", 10, 0.05,
                   what=f"{page_id} live in page_list")


def test_call_on_b_reaches_pages_on_a_and_c(replicas, pages: PageLoop, context) -> None:
    r = replicas
    dev = DevServer(r.a.client_js())
    try:
        tab = open_page(context, dev.url("/app.html"))
        fake_c = pages.connect(r.c.base)
        live_everywhere(r, tab.page_id)
        live_everywhere(r, fake_c.page_id)
        listed = rows_by_id(r.mcp_b)
        assert listed[tab.page_id]["replica"] != listed[fake_c.page_id]["replica"]

        title = ok(r.mcp_b.call("page_exec", {"code": "document.title", "pageId": tab.page_id}))
        assert title["result"] == tab.title()
        two = ok(r.mcp_b.call("page_exec", {"code": "1+1", "pageId": fake_c.page_id}))
        assert two["result"] == 2
        # a page's exception crosses replicas with its named code and stack
        bad = r.mcp_b.call("page_exec", {"code": "throw new Error('boom from A')", "pageId": tab.page_id})
        assert bad.is_error and "[page_exception]" in text_of(bad) and "boom from A" in text_of(bad)
        # and a named command (not only eval) works the same way
        snap = r.mcp_c.call("page_snapshot", {"pageId": tab.page_id})
        assert not snap.is_error, text_of(snap)
        assert tab.page_id in text_of(snap)
        # a navigation driven from C: the tab leaves and comes back to A under its pageId, and C sees it
        went = ok(r.mcp_c.call("page_navigate", {"pageId": tab.page_id, "url": "/single.html"}))
        assert went["pageId"] == tab.page_id and went["url"].endswith("/single.html") and went["reloaded"], went
        assert ok(r.mcp_b.call("page_exec", {"code": "location.pathname", "pageId": tab.page_id}))["result"] == \
            "/single.html"
    finally:
        dev.close()


def test_sse_page_results_posted_to_another_replica(replicas, pages: PageLoop) -> None:
    """An SSE page streams from A but its result POSTs land on C (a load balancer): B's call still resolves."""
    r = replicas
    page = pages.connect(r.a.base, channel="sse")
    live_everywhere(r, page.page_id)
    page.base = r.c.base  # from now on its POSTs go to C
    out = ok(r.mcp_b.call("page_exec", {"command": "console", "params": {"since": 7}, "pageId": page.page_id}))
    assert out["result"] == {"since": 7, "limit": 100, "stack": False, "errors": False}  # the echo of the params, defaults filled in
    # a forged POST to C (wrong secret) is refused, not forwarded
    forged = pages.run(page.http.post(r.c.base + "/bridge/result", content=json.dumps(
        {"instanceId": page.instance_id, "secret": "x" * 43, "type": "result", "requestId": "r1", "ok": True}),
        headers={"Content-Type": "text/plain"}))
    assert forged.status_code == 403


def test_concurrent_registrations_get_unique_ids(replicas) -> None:
    r = replicas
    bases = [r.a.base, r.b.base, r.c.base]

    async def register_all() -> list[str]:
        limits = httpx.Limits(max_connections=100)
        async with httpx.AsyncClient(timeout=30, limits=limits) as http:
            async def one(n: int) -> str:
                body = {"v": 1, "url": f"http://127.0.0.1:4321/t{n}", "title": "t", "port": 4321, "attach": "fake"}
                resp = await http.post(bases[n % 3] + "/bridge/register", content=json.dumps(body),
                                       headers={"Content-Type": "text/plain"})
                resp.raise_for_status()
                return resp.json()["instanceId"]

            return await asyncio.gather(*(one(n) for n in range(300)))

    ids = run_async(register_all(), 60)
    assert len(set(ids)) == 300, f"{300 - len(set(ids))} duplicate pageIds"
    assert ids.count("4321") == 1  # the port went to exactly one of them


def test_inbox_is_one_feed_with_cursors_valid_everywhere(replicas, pages: PageLoop) -> None:
    r = replicas
    on_a = pages.connect(r.a.base)
    on_c = pages.connect(r.c.base)
    start = ok(r.mcp_b.call("inbox", {"kinds": ["message"]}))["cursor"]
    pages.send(on_a, {"type": "event", "kind": "message", "text": "first, from a page on A"})
    got = ok(r.mcp_b.call("inbox", {"since": start, "kinds": ["message"], "wait": 10}))
    assert [i["text"] for i in got["items"]] == ["first, from a page on A"]
    cursor = got["cursor"]
    pages.send(on_c, {"type": "event", "kind": "message", "text": "second, from a page on C"})
    # B's cursor, read on C: only the new item, nothing repeated, nothing missed
    later = ok(r.mcp_c.call("inbox", {"since": cursor, "kinds": ["message"], "wait": 10}))
    assert [i["text"] for i in later["items"]] == ["second, from a page on C"]
    # and on A, from B's first cursor: both, in order, with the same ids
    both = ok(r.mcp_a.call("inbox", {"since": start, "kinds": ["message"], "wait": 10}))
    assert [i["text"] for i in both["items"]][:2] == ["first, from a page on A", "second, from a page on C"]
    assert both["items"][0]["id"] == got["items"][0]["id"]
    # a message typed in B's cockpit: the cockpit says its cluster id, and C reads it after B's cursor
    with httpx.Client(base_url=r.b.base, timeout=10) as cockpit:
        assert cockpit.get("/").status_code == 200
        sent = cockpit.post("/cockpit/message", content=json.dumps({"text": "third, from B's cockpit"}),
                            headers={"Origin": r.b.base, "Content-Type": "application/json"})
    assert sent.status_code == 200 and sent.json()["id"] > got["items"][0]["id"], sent.text
    typed = ok(r.mcp_c.call("inbox", {"since": later["cursor"], "kinds": ["message"], "wait": 10}))["items"]
    assert [(i["id"], i["text"], i["from"]) for i in typed] == [(sent.json()["id"], "third, from B's cockpit", "human")]
    # an ack on C shows on B
    ok(r.mcp_c.call("inbox", {"ack": [got["items"][0]["id"]], "limit": 1}))
    wait_until(lambda: ok(r.mcp_b.call("inbox", {"since": start, "kinds": ["message"]}))["items"][0]["status"]
               == "acked", 5, 0.05, what="ack shared")


def test_question_asked_on_b_is_answered_in_cs_cockpit(replicas, pages: PageLoop) -> None:
    r = replicas
    gate = pages.gate({"ok": True, "result": {"shown": True}})
    page = pages.connect(r.a.base, handler=gate.handler)
    live_everywhere(r, page.page_id)
    asked = r.mcp_b.start("user_ask", {"pageId": page.page_id, "question": "Ship it?", "kind": "confirm", "wait": 30})
    frame = gate.next_frame(10)  # B showed it in the page on A
    gate.open()
    qid = frame["params"]["questionId"]
    with httpx.Client(base_url=r.c.base, timeout=10) as cockpit:
        assert cockpit.get("/").status_code == 200  # the cockpit's cookie
        headers = {"Origin": r.c.base, "Content-Type": "application/json"}
        body = json.dumps({"questionId": qid, "answer": True})
        # C's cockpit learns of B's question from the broadcast (bounded wait), then settles it on B
        wait_until(lambda: cockpit.post("/cockpit/answer", content=body, headers=headers).status_code == 200, 10,
                   0.05, what="the question in C's cockpit")
    out = ok(asked.result(15))
    assert out["answer"] is True and out["via"] == "cockpit"
    answers = ok(r.mcp_a.call("inbox", {"kinds": ["answer"], "wait": 10}))["items"]
    assert any(i["data"]["questionId"] == qid and i["from"] == "human" for i in answers)


def test_consent_allowed_on_one_replica_holds_on_another(redis_server, pages: PageLoop, bridge_process) -> None:
    """Consent on: an "Allow on this origin" answered for a call made on Q holds for the same origin on P."""
    env = {"DBG_NO_CONSENT": "0"}
    p_ = bridge_process("--cluster", redis_server.url, env=env, name="consent-p")
    q_ = bridge_process("--cluster", redis_server.url, env=env, name="consent-q")
    asks: list[dict] = []

    async def handler(frame: dict) -> dict:
        if frame.get("command") == "ask":
            asks.append(frame)
            return {"ok": True, "result": {"shown": True}}
        return await echo_handler(frame)

    mcp_p, mcp_q = McpSession(p_.mcp_url, p_.token), McpSession(q_.mcp_url, q_.token)
    try:
        origin = "http://127.0.0.1:5173"
        page = pages.connect(p_.base, handler=handler, origin=origin, url=origin + "/app")
        wait_until(lambda: rows_by_id(mcp_q).get(page.page_id, {}).get("state") == "live", 10, 0.05,
                   what="the page live on Q")
        first = mcp_q.start("page_exec", {"code": "1+1", "pageId": page.page_id})
        wait_until(lambda: [a for a in asks if "questionId" in a.get("params", {})], 10, 0.02,
                   what="the consent prompt in the page")
        qid = asks[-1]["params"]["questionId"]
        pages.send(page, {"type": "event", "kind": "answer", "questionId": qid,
                          "data": {"answer": "Allow on this origin"}})
        assert ok(first.result(15))["result"] == 2
        shown = len(asks)
        store = redis.Redis.from_url(redis_server.url)
        wait_until(lambda: store.smembers("dbg:approvals"), 5, 0.02, what="the approval stored")
        store.close()
        second = mcp_p.start("page_exec", {"code": "1+1", "pageId": page.page_id})
        wait_until(lambda: second.done() or len(asks) > shown, 10, 0.02, what="page_exec on P")
        assert len(asks) == shown, "P asked again: the approval did not reach it"
        assert ok(second.result(5))["result"] == 2
    finally:
        mcp_p.close()
        mcp_q.close()


def test_owner_killed_mid_call_fails_fast_and_page_comes_back(replicas, redis_server, pages: PageLoop,
                                                              bridge_process) -> None:
    r = replicas
    doomed = bridge_process("--cluster", redis_server.url, name="replica-doomed")
    gate = pages.gate()
    page = pages.connect(doomed.base, handler=gate.handler)
    live_everywhere(r, page.page_id)
    call = r.mcp_b.start("page_exec", {"code": "1+1", "pageId": page.page_id, "timeout": 60})
    gate.next_frame(10)  # the call reached the page through the doomed replica
    os.kill(doomed.proc.pid, signal.SIGKILL)
    killed = time.monotonic()
    result = call.result(10)
    took = time.monotonic() - killed
    assert result.is_error and "[page_disconnected]" in text_of(result), text_of(result)
    assert took < 5, f"the caller waited {took:.1f} s"
    # the page reconnects to C with its credentials and keeps its pageId
    old_id = page.instance_id
    page.base = r.c.base
    pages.run(page.close())
    pages.run(page.register(reclaim=True))  # what the real client does on every reconnect
    assert page.instance_id == old_id and not page.reply.get("renamed")
    page.handler = echo_handler
    pages.run(page.connect())
    live_everywhere(r, page.page_id)
    assert rows_by_id(r.mcp_b)[page.page_id]["replica"] == rows_by_id(r.mcp_c)[page.page_id]["replica"]
    again = ok(r.mcp_b.call("page_exec", {"code": "1+1", "pageId": page.page_id}))
    assert again["result"] == 2


def test_redis_stopped_and_restarted(replicas, redis_server: RedisServer, pages: PageLoop) -> None:
    r = replicas
    on_a = pages.connect(r.a.base)
    on_b = pages.connect(r.b.base)
    live_everywhere(r, on_a.page_id)
    redis_server.stop()
    try:
        # a page on another replica: a named error, at once
        started = time.monotonic()
        far = r.mcp_b.call("page_exec", {"code": "1+1", "pageId": on_a.page_id})
        assert far.is_error and "[cluster_unavailable]" in text_of(far), text_of(far)
        assert time.monotonic() - started < 5
        # a page on this replica: as without a cluster
        assert ok(r.mcp_b.call("page_exec", {"code": "1+1", "pageId": on_b.page_id}))["result"] == 2
        listed = ok(r.mcp_b.call("page_list", {"limit": 1000}))
        assert "[cluster_unavailable]" in listed["cluster"]
        assert on_b.page_id in {p["pageId"] for p in listed["pages"]}
    finally:
        redis_server.start()
    # Redis came back empty: every replica re-asserts its pages under their ids, and calls cross again
    live_everywhere(r, on_a.page_id)
    live_everywhere(r, on_b.page_id)
    last: list[str] = []

    def crosses() -> bool:
        res = r.mcp_b.call("page_exec", {"code": "1+1", "pageId": on_a.page_id, "timeout": 3})
        last[:] = [text_of(res)]
        return not res.is_error

    try:
        wait_until(crosses, 10, 0.1, what="cross-replica call after Redis restart")
    except AssertionError as exc:
        raise AssertionError(f"{exc}; last answer: {last}") from None
    assert ok(r.mcp_c.call("page_exec", {"code": "1+1", "pageId": on_b.page_id}))["result"] == 2


def test_a_password_protected_redis_and_a_wrong_password(bridge_process) -> None:
    """redis://:password@… works; a wrong password is cluster_unavailable for a new page, and never logged."""
    secret_redis = RedisServer(password="s3cret-redis-pw").start()
    wrong_url = secret_redis.url.replace("s3cret-redis-pw", "not-the-password")
    try:
        good = bridge_process("--cluster", secret_redis.url, "--no-auth", name="auth-good")
        bad = bridge_process("--cluster", wrong_url, "--no-auth", name="auth-bad")
        body = json.dumps({"v": 1, "url": "http://127.0.0.1/x", "title": "t", "attach": "fake"})
        with httpx.Client(timeout=10) as http:
            ok_reply = http.post(good.base + "/bridge/register", content=body, headers={"Content-Type": "text/plain"})
            assert ok_reply.status_code == 200, ok_reply.text
            refused = http.post(bad.base + "/bridge/register", content=body, headers={"Content-Type": "text/plain"})
        assert refused.status_code == 503 and refused.json()["error"]["code"] == "cluster_unavailable"
        for proc in (good, bad):
            log = proc.log.read_text()
            assert "s3cret-redis-pw" not in log and "not-the-password" not in log
    finally:
        bridge_process.stop_all()  # before their Redis goes
        secret_redis.stop()



def replica_of(session: McpSession, page_id: str) -> str | None:
    row = rows_by_id(session).get(page_id, {})
    return row.get("replica") if row.get("state") == "live" else None


def test_a_real_tab_whose_replica_dies_reconnects_to_a_live_one_and_keeps_its_page_id(
        replicas, redis_server, context, bridge_process) -> None:
    """The tab's script comes from replica D; the register answer lists every replica's page-channel URL, and when
    D is killed the client tries them in turn: the tab is back, same pageId, on B or C, and answers calls."""
    r = replicas
    doomed = bridge_process("--cluster", redis_server.url, name="replica-direct")
    dev = DevServer(doomed.client_js())
    try:
        tab = open_page(context, dev.url("/app.html"))
        live_everywhere(r, tab.page_id)
        first = replica_of(r.mcp_b, tab.page_id)
        assert first is not None and f"page {tab.page_id.split('/')[0]} registered" in doomed.log.read_text()
        os.kill(doomed.proc.pid, signal.SIGKILL)
        doomed.proc.wait(10)
        doomed.proc = None
        wait_until(lambda: replica_of(r.mcp_b, tab.page_id) not in (None, first), 20, 0.1,
                   what="the tab live again on a live replica")
        assert tab.evaluate("window.__dbg.pageId") == tab.page_id
        out = ok(r.mcp_b.call("page_exec", {"code": "document.title", "pageId": tab.page_id}))
        assert out["result"] == tab.title()
        assert ok(r.mcp_c.call("page_exec", {"code": "6*7", "pageId": tab.page_id}))["result"] == 42
    finally:
        dev.close()


def test_a_real_tab_behind_haproxy_survives_its_replicas_death(redis_server, context, tmp_path_factory,
                                                              bridge_process) -> None:
    """Three replicas behind a real HAProxy (they accept the Host it forwards: --public-hosts; each advertises the
    balancer): the tab loads the client through the balancer, its replica is killed, and the balancer's next
    replica takes it back under the same pageId."""
    lb = LoadBalancer(tmp_path_factory.mktemp("haproxy"))
    lb_host = f"127.0.0.1:{lb.port}"
    procs = [bridge_process("--cluster", redis_server.url, "--public-hosts", lb_host, "--advertise-url", lb.base,
                            name=f"behind-{n}") for n in range(3)]
    sessions = [McpSession(p.mcp_url, p.token) for p in procs]
    dev = None
    try:
        lb.start([f"127.0.0.1:{p.port}" for p in procs])
        dev = DevServer(lb.base + "/inject/dbg_client.js")
        tab = open_page(context, dev.url("/app.html"), timeout_ms=20000)
        for s in sessions:
            wait_until(lambda s=s: replica_of(s, tab.page_id), 10, 0.05, what="the tab live on every replica")
        owner = replica_of(sessions[0], tab.page_id)
        registered = f"page {tab.page_id.split('/')[0]} registered"
        (doomed,) = [i for i, p in enumerate(procs) if registered in p.log.read_text()]  # where the balancer sent it
        os.kill(procs[doomed].proc.pid, signal.SIGKILL)
        procs[doomed].proc.wait(10)
        procs[doomed].proc = None
        alive = [s for i, s in enumerate(sessions) if i != doomed]
        wait_until(lambda: replica_of(alive[0], tab.page_id) not in (None, owner), 20, 0.1,
                   what="the tab live again behind the balancer")
        assert tab.evaluate("window.__dbg.pageId") == tab.page_id
        for s in alive:
            assert ok(s.call("page_exec", {"code": "location.pathname", "pageId": tab.page_id}))["result"] == \
                "/app.html"
    finally:
        if dev is not None:
            dev.close()
        for s in sessions:
            s.close()
        lb.stop()
