"""The cockpit at / in real Chromium: live sessions, questions and consent answered there, the composer, the live
activity feed, its protection (cookie, Origin, CSP) and the audit log behind it."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from tests.support import CONNECTED, BridgeProcess, DevServer, McpSession, ok

EVIL_TITLE = "<img src=x onerror=window.__pwned=1>"


def open_cockpit(context, bridge: BridgeProcess, tab: str = ""):
    page = context.new_page()
    page.goto(bridge.base + "/" + (f"#{tab}" if tab else ""))
    page.locator("#status[data-state=live]").wait_for(timeout=10000)
    return page


def open_app(context, dev: DevServer, path: str):
    page = context.new_page()
    page.goto(dev.url(path))
    page.wait_for_function(CONNECTED, timeout=10000)
    page.page_id = page.evaluate("window.__dbg.pageId")
    return page


def row(cockpit, page_id: str):
    return cockpit.locator(f'#pages tr[data-page="{page_id}"]')


def page_card(page):
    return page.locator("dbg-human [data-question]")


@pytest.fixture
def cockpit(context, bridge):
    return open_cockpit(context, bridge, "sessions")


# ---- sessions ----------------------------------------------------------------------------------------------------


def test_the_cockpit_lists_a_connected_page_live_highlights_it_and_forgets_it_once_it_is_gone(context, cockpit, dev):
    app = open_app(context, dev, "/framed.html")
    host = row(cockpit, app.page_id)
    host.wait_for(timeout=10000)
    assert host.locator(".url").text_content() == dev.url("/framed.html")
    assert host.locator(".state").text_content() == "live"
    inst = app.page_id.split("/")[0]
    row(cockpit, f"{inst}/f0").wait_for(timeout=10000)  # its frame, under it

    host.locator("button[data-action=highlight]").click()
    app.wait_for_function("document.querySelector('dbg-overlay') !== null", timeout=5000)

    app.close()
    host.locator("button[data-action=forget]").wait_for(timeout=10000)
    assert "expires in" in host.locator(".state").text_content()
    host.locator("button[data-action=forget]").click()
    host.wait_for(state="detached", timeout=5000)


def test_a_page_title_with_markup_shows_as_text_and_nothing_runs(context, cockpit, dev):
    app = open_app(context, dev, "/evil-title.html")
    title = row(cockpit, app.page_id).locator(".title")
    title.wait_for(timeout=10000)
    assert title.text_content() == EVIL_TITLE  # rendered live by the script
    cockpit.reload()  # and rendered by the template
    cockpit.locator("#status[data-state=live]").wait_for(timeout=10000)
    assert row(cockpit, app.page_id).locator(".title").text_content() == EVIL_TITLE
    assert cockpit.locator("#pages img").count() == 0
    assert cockpit.evaluate("window.__pwned") is None


# ---- questions and consent -------------------------------------------------------------------------------------


def test_a_question_asked_through_mcp_is_answered_in_the_cockpit_and_leaves_the_page(context, cockpit, dev, mcp):
    app = open_app(context, dev, "/app.html")
    call = mcp.start("user_ask", {"pageId": app.page_id, "question": "Colour? " + EVIL_TITLE, "kind": "choice",
                                  "choices": ["red", "green"], "wait": 30})
    card = cockpit.locator("#question-cards [data-question]")
    card.wait_for(timeout=10000)
    page_card(app).wait_for(timeout=10000)  # the same question shows in the page
    assert card.locator(".text").text_content() == "Colour? " + EVIL_TITLE and card.locator("img").count() == 0
    card.locator("button[data-answer=green]").click()
    out = ok(call.result(15))
    assert out["answer"] == "green" and out["via"] == "cockpit"
    page_card(app).wait_for(state="detached", timeout=5000)
    card.wait_for(state="detached", timeout=5000)
    answers = ok(mcp.call("inbox", {"kinds": ["answer"], "pageId": app.page_id}))["items"]
    assert answers[-1]["data"] == {"questionId": out["questionId"], "answer": "green", "via": "cockpit"}


@pytest.fixture(scope="module")
def consent(module_bridge_process, browser) -> Iterator[tuple[BridgeProcess, DevServer, McpSession, object]]:
    """A bridge that asks before page_exec code runs, with its own dev server, MCP client and browser context."""
    proc = module_bridge_process("--consent-wait", "20", env={"DBG_NO_CONSENT": "0"}, name="consent")
    dev = DevServer(proc.client_js())
    session = McpSession(proc.mcp_url, proc.token)
    ctx = browser.new_context()
    yield proc, dev, session, ctx
    ctx.close()
    session.close()
    dev.close()


def test_a_consent_prompt_approved_in_the_cockpit_lets_page_exec_run(consent):
    proc, dev, mcp, ctx = consent
    cockpit = open_cockpit(ctx, proc, "sessions")
    app = open_app(ctx, dev, "/single.html")
    call = mcp.start("page_exec", {"pageId": app.page_id, "code": "document.title + ' ok'"})
    card = cockpit.locator("#question-cards .card.consent")
    card.wait_for(timeout=10000)
    assert card.locator("pre").text_content() == "document.title + ' ok'"
    app.locator("dbg-human .card.consent").wait_for(timeout=10000)
    card.locator("button[data-answer='Allow once']").click()
    assert ok(call.result(15))["result"] == "single page ok"
    app.locator("dbg-human .card.consent").wait_for(state="detached", timeout=5000)
    decisions = proc.audit()
    assert [(r["decision"], r["via"]) for r in decisions if r["kind"] == "consent"] == [("Allow once", "cockpit")]


def test_a_fresh_bridge_says_no_agent_is_connected_until_the_first_mcp_call(bridge_process, browser):
    proc = bridge_process()
    ctx = browser.new_context()
    session = None
    try:
        cockpit = open_cockpit(ctx, proc)
        assert cockpit.locator("#no-agent").is_visible()
        assert cockpit.locator("[data-panel=setup]").is_visible()  # a fresh bridge opens on Setup
        assert proc.mcp_url in cockpit.locator("#no-agent").text_content()
        session = McpSession(proc.mcp_url, proc.token)
        ok(session.call("page_list"))
        cockpit.locator("#no-agent").wait_for(state="hidden", timeout=10000)
    finally:
        if session is not None:
            session.close()
        ctx.close()


# ---- composer and activity ------------------------------------------------------------------------------------


def test_a_message_from_the_composer_arrives_in_the_inbox(context, bridge, dev, mcp):
    app = open_app(context, dev, "/app.html")
    cockpit = open_cockpit(context, bridge, "inbox")
    since = ok(mcp.call("inbox"))["cursor"]
    cockpit.locator(f'#message-page option[value="{app.page_id}"]').wait_for(state="attached", timeout=10000)
    cockpit.locator("#message").fill("The total is wrong for gift orders")
    cockpit.locator("#message-page").select_option(app.page_id)
    cockpit.locator("#send").click()
    items = ok(mcp.call("inbox", {"since": since, "kinds": ["message"], "wait": 10}))["items"]
    assert [(i["text"], i["pageId"], i["data"]["via"]) for i in items] == [
        ("The total is wrong for gift orders", app.page_id, "cockpit")]
    cockpit.locator("#inbox-list .inbox-item.message").first.wait_for(timeout=5000)


def test_the_live_activity_feed_shows_a_tool_call_made_through_mcp(context, bridge, dev, mcp):
    app = open_app(context, dev, "/app.html")
    cockpit = open_cockpit(context, bridge, "activity")
    ok(mcp.call("page_exec", {"pageId": app.page_id, "code": "'feed-marker-' + 41"}))
    line = cockpit.locator(f'#feed tr[data-tool=page_exec][data-page="{app.page_id}"]')
    line.wait_for(timeout=10000)
    assert "feed-marker-" in line.locator(".details").text_content()
    assert line.locator(".outcome").text_content() == "ok"
    cockpit.locator("#f-kind").select_option("human")
    line.wait_for(state="hidden", timeout=5000)
    cockpit.locator("#f-kind").select_option("tool")
    cockpit.locator("#f-tool").select_option("page_exec")
    line.wait_for(state="visible", timeout=5000)


# ---- protection -------------------------------------------------------------------------------------------------


@pytest.fixture
def http(bridge) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=bridge.base, timeout=15) as client:
        yield client


def test_cockpit_posts_need_the_cookie_and_the_bridges_own_origin(http, bridge):
    own = {"Origin": bridge.base, "Content-Type": "application/json"}
    body = json.dumps({"text": "hello"})
    no_cookie = http.post("/cockpit/message", content=body, headers=own)
    assert no_cookie.status_code == 403 and no_cookie.json()["error"]["code"] == "no_cockpit_key"
    assert http.get("/cockpit/events").status_code == 403
    assert http.get("/").status_code == 200  # sets the cookie in this client
    key = http.cookies.get(f"dbg_cockpit_{bridge.port}")
    assert key
    foreign = http.post("/cockpit/message", content=body,
                        headers={**own, "Origin": "http://127.0.0.1:5173"})
    assert foreign.status_code == 403 and foreign.json()["error"]["code"] == "bad_origin"
    no_origin = http.post("/cockpit/message", content=body, headers={"Content-Type": "application/json"})
    assert no_origin.status_code == 403 and no_origin.json()["error"]["code"] == "bad_origin"
    wrong_key = httpx.post(bridge.base + "/cockpit/token", headers=own,
                           cookies={f"dbg_cockpit_{bridge.port}": "x" + key})
    assert wrong_key.status_code == 403
    assert http.get("/cockpit/message").status_code in (404, 405)  # actions are POST only
    sent = http.post("/cockpit/message", content=body, headers=own)
    assert sent.status_code == 200 and sent.json()["id"] > 0


def test_a_dev_page_on_the_same_site_cannot_act_through_the_cockpit(context, cockpit, dev, bridge):
    app = open_app(context, dev, "/app.html")  # 127.0.0.1:<other port>: same site, so the cookie would go along
    status = app.evaluate("""async (url) => {
        try {
            const r = await fetch(url + '/cockpit/message', {method: 'POST', credentials: 'include',
                headers: {'Content-Type': 'text/plain'}, body: JSON.stringify({text: 'forged'})});
            return r.status;
        } catch (e) { return 'blocked'; }
    }""", bridge.base)
    assert status in (403, "blocked")
    assert "forged" not in bridge.audit(raw=True)


def test_cockpit_responses_carry_a_strict_csp_and_an_httponly_strict_cookie_and_never_the_token(http, bridge):
    res = http.get("/")
    csp = res.headers["content-security-policy"]
    for rule in ("default-src 'self'", "script-src 'self'", "style-src 'self'", "connect-src 'self'",
                 "frame-ancestors 'none'"):
        assert rule in csp
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    cookie = res.headers["set-cookie"]
    assert cookie.startswith(f"dbg_cockpit_{bridge.port}=") and "HttpOnly" in cookie and "SameSite=strict" in cookie
    assert bridge.token not in res.text
    for asset in ("/cockpit/cockpit.js", "/cockpit/cockpit.css"):
        assert http.get(asset).headers["content-security-policy"] == csp
    revealed = http.post("/cockpit/token", headers={"Origin": bridge.base})
    assert revealed.json() == {"token": bridge.token}  # only on request, from the cockpit itself


# ---- the audit log ---------------------------------------------------------------------------------------------


def test_the_audit_log_has_one_line_per_tool_call_and_no_token_or_page_secret(context, bridge, dev, mcp):
    app = open_app(context, dev, "/app.html")
    page_secret = app.evaluate("JSON.parse(sessionStorage.getItem('__dbg_id')).secret")
    calls = [
        ("page_exec", {"pageId": app.page_id, "code": "document.title"}),
        ("page_act", {"pageId": app.page_id, "action": "fill", "selector": "#who", "value": "s3cret-typed-value"}),
        ("page_find", {"pageId": app.page_id, "text": "Orders"}),
        ("page_exec", {"pageId": app.page_id, "code": f"'{bridge.token}'.length"}),
        ("page_exec", {"pageId": app.page_id, "code": "throw new Error('nope')"}),
    ]
    for name, args in calls:
        mcp.call(name, args)
    records = bridge.audit()
    mine = [r for r in records if r["kind"] == "tool" and r["pageId"] == app.page_id]
    assert [r["tool"] for r in mine] == [name for name, _ in calls]
    assert [r["outcome"] for r in mine] == ["ok", "ok", "ok", "ok", "error"]
    assert mine[-1]["code"] == "page_exception"
    assert all(isinstance(r["ms"], float | int) and r["ms"] >= 0 for r in mine)
    raw = bridge.audit(raw=True)
    assert bridge.token not in raw and page_secret not in raw and "s3cret-typed-value" not in raw
