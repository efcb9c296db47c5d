"""The human in the loop, in real Chromium: user_ask in the page, tickets, toasts, consent, picker, inbox, open_file."""

import pytest

from tests.support import CONNECTED, DevServer, McpSession, ok, open_page, text_of, wait_until


def question_card(page):
    return page.locator("dbg-human [data-question]")


def test_confirm_question_is_answered_in_the_page(app, mcp):
    call = mcp.start("user_ask", {"pageId": app.page_id, "question": "Ship it?", "wait": 30})
    question_card(app).wait_for(timeout=10000)
    assert question_card(app).locator(".text").text_content() == "Ship it?"
    question_card(app).locator("button[data-answer=true]").click()
    out = ok(call.result(15))
    assert out["answer"] is True and out["via"] == "page"
    assert question_card(app).count() == 0


def test_a_question_survives_a_reload_of_its_page(app, mcp):
    call = mcp.start("user_ask", {"pageId": app.page_id, "question": "Still there?", "wait": 30})
    question_card(app).wait_for(timeout=10000)
    app.reload()
    app.wait_for_function(CONNECTED, timeout=10000)
    question_card(app).locator("button[data-answer=true]").click(timeout=10000)
    assert ok(call.result(15))["answer"] is True


def test_choice_and_text_questions_return_what_the_human_chose(app, mcp):
    call = mcp.start("user_ask", {"pageId": app.page_id, "question": "Colour?", "kind": "choice",
                                  "choices": ["red", "green"], "wait": 30})
    question_card(app).locator("button[data-answer=green]").click()
    assert ok(call.result(15))["answer"] == "green"
    call = mcp.start("user_ask", {"pageId": app.page_id, "question": "Name the release", "kind": "text", "wait": 30})
    question_card(app).locator("textarea").fill("Bluebird")
    question_card(app).locator("button[data-answer=send]").click()
    assert ok(call.result(15))["answer"] == "Bluebird"


def test_pick_question_answers_with_the_clicked_elements_ref_selector_and_text(app, mcp):
    call = mcp.start("user_ask", {"pageId": app.page_id, "question": "Which button is wrong?", "kind": "pick",
                                  "wait": 30})
    question_card(app).locator("button[data-answer=pick]").click()
    app.hover("#more")
    app.click("#more")
    answer = ok(call.result(15))["answer"]
    assert answer["selector"] == "#more" and answer["text"] == "Load more" and answer["ref"].startswith("e")
    assert app.evaluate("document.getElementById('items').children.length") == 3  # the pick click did not act


def test_a_pick_inside_a_shadow_root_answers_a_piercing_selector_that_finds_it_again(app, mcp):
    call = mcp.start("user_ask", {"pageId": app.page_id, "question": "Which one?", "kind": "pick", "wait": 30})
    question_card(app).locator("button[data-answer=pick]").click()
    app.hover("x-card >> #inner")
    app.click("x-card >> #inner")
    answer = ok(call.result(15))["answer"]
    assert answer["selector"].endswith("x-card >>> #inner") and answer["text"] == "Shadow button"
    again = ok(mcp.call("page_find", {"pageId": app.page_id, "selector": answer["selector"]}))
    assert [m["name"] for m in again["matches"]] == ["Shadow button"]


def test_a_question_that_outlives_its_wait_returns_a_ticket_and_the_answer_lands_in_the_inbox(app, mcp):
    start = ok(mcp.call("inbox"))["cursor"]
    out = ok(mcp.call("user_ask", {"pageId": app.page_id, "question": "Later?", "wait": 0.3}))
    assert out["status"] == "pending" and "inbox" in out["hint"]
    question_card(app).locator("button[data-answer=false]").click()
    items = ok(mcp.call("inbox", {"since": start, "kinds": ["answer"], "wait": 10}))["items"]
    assert [(i["data"]["questionId"], i["data"]["answer"]) for i in items] == [(out["questionId"], False)]


def test_question_text_is_rendered_as_text_never_html(app, mcp):
    call = mcp.start("user_ask", {"pageId": app.page_id, "question": "<img src=x onerror=window.__pwned=1>", "wait": 30})
    question_card(app).wait_for(timeout=10000)
    assert question_card(app).locator("img").count() == 0
    assert question_card(app).locator(".text").text_content() == "<img src=x onerror=window.__pwned=1>"
    question_card(app).locator("button[data-answer=false]").click()
    call.result(15)
    assert app.evaluate("window.__pwned") is None


def test_notify_shows_a_toast(app, mcp):
    ok(mcp.call("user_notify", {"pageId": app.page_id, "message": "Build is green", "level": "success"}))
    toast = app.locator("dbg-human .toast.success")
    toast.wait_for(timeout=5000)
    assert "Build is green" in toast.text_content()


def test_messages_and_picked_elements_reach_the_inbox_with_independent_cursors(app, bridge, mcp):
    other = McpSession(bridge.mcp_url, bridge.token, mode="legacy")
    try:
        since_a, since_b = ok(mcp.call("inbox"))["cursor"], ok(other.call("inbox"))["cursor"]
        app.keyboard.press("Alt+Shift+KeyM")
        app.locator("dbg-human [data-compose] textarea").fill("The header looks off")
        app.locator("dbg-human [data-compose] button[data-answer=send]").click()
        app.keyboard.press("Alt+Shift+KeyP")
        app.hover("h1")
        app.click("h1")
        app.locator("dbg-human [data-picked] input").fill("this heading")
        app.locator("dbg-human [data-picked] button[data-answer=send]").click()

        def both(session, since):
            return wait_until(lambda: (lambda r: r if len(r["items"]) >= 2 else None)(
                ok(session.call("inbox", {"since": since, "pageId": app.page_id}))), 10, what="two inbox items")

        a, b = both(mcp, since_a), both(other, since_b)
        for got in (a, b):
            assert [i["kind"] for i in got["items"]] == ["message", "element_selected"]
            assert got["items"][0]["text"] == "The header looks off"
            picked = got["items"][1]["data"]
            assert picked["note"] == "this heading" and picked["role"] == "heading" and picked["text"] == "Orders"
        assert ok(mcp.call("inbox", {"since": a["cursor"]}))["items"] == []  # nothing twice on the same cursor
        acked = ok(mcp.call("inbox", {"since": a["cursor"], "ack": [a["items"][0]["id"]]}))
        assert acked["marked"]["acked"] == [a["items"][0]["id"]]
    finally:
        other.close()


# ---- consent and open_file need their own bridge (consent on; a stub editor; a project root) ------------------


@pytest.fixture(scope="module")
def strict(tmp_path_factory, module_bridge_process, browser):
    root = tmp_path_factory.mktemp("project")
    (root / "src" / "components").mkdir(parents=True)
    (root / "src" / "components" / "Card.jsx").write_text("export const Card = () => null;\n")
    (root / "outside-link").symlink_to("/etc/hostname")
    record = root.parent / "editor-calls.txt"
    stub = root.parent / "stub_editor.py"
    stub.write_text(f"import sys\nopen({str(record)!r}, 'a').write(' '.join(sys.argv[1:]) + '\\n')\n")
    proc = module_bridge_process("--project-root", str(root), "--editor", f"python3 {stub} {{file}} {{line}}",
                                 "--consent-wait", "20", "--consent-for", "eval,navigate,submit",
                                 env={"DBG_NO_CONSENT": "0"}, name="strict")
    dev = DevServer(proc.client_js())
    session = McpSession(proc.mcp_url, proc.token)
    ctx = browser.new_context()
    yield proc, dev, session, ctx, root, record
    ctx.close()
    session.close()
    dev.close()


def test_page_exec_waits_for_consent_is_refused_on_denial_and_remembers_an_origin_approval(strict):
    _, dev, mcp, ctx, _, _ = strict
    page = open_page(ctx, dev.url("/single.html"))
    card = page.locator("dbg-human .card.consent")
    denied = mcp.start("page_exec", {"pageId": page.page_id, "code": "document.title"})
    card.wait_for(timeout=10000)
    assert "document.title" in card.locator("pre").text_content()
    card.locator("button[data-answer=Deny]").click()
    res = denied.result(15)
    assert res.is_error and "[consent_denied]" in text_of(res)
    allowed = mcp.start("page_exec", {"pageId": page.page_id, "code": "document.title"})
    card.locator("button[data-answer='Allow on this origin']").click()
    assert ok(allowed.result(15))["result"] == "single page"
    assert ok(mcp.call("page_exec", {"pageId": page.page_id, "code": "1 + 1"}))["result"] == 2  # no prompt now
    assert card.count() == 0


def test_named_eval_command_cannot_skip_consent(strict):
    _, dev, mcp, ctx, _, _ = strict
    # a fresh origin (localhost instead of 127.0.0.1) has no approval yet
    page2 = ctx.new_page()
    page2.goto(dev.url("/single.html", host="localhost"))
    page2.wait_for_function(CONNECTED, timeout=10000)
    pid = page2.evaluate("window.__dbg.pageId")
    call = mcp.start("page_exec", {"pageId": pid, "command": "eval", "params": {"code": "42"}})
    card = page2.locator("dbg-human .card.consent")
    card.wait_for(timeout=10000)
    card.locator("button[data-answer=Deny]").click()
    assert "[consent_denied]" in text_of(call.result(15))


def test_submitting_a_form_and_leaving_the_origin_ask_first_when_configured(strict):
    _, dev, mcp, ctx, _, _ = strict
    page = open_page(ctx, dev.url("/app.html"))
    card = page.locator("dbg-human .card.consent")
    ok(mcp.call("page_act", {"pageId": page.page_id, "action": "fill", "text": "Customer", "value": "Ada"}))  # no prompt
    submit = mcp.start("page_act", {"pageId": page.page_id, "action": "click", "text": "Place order"})
    card.wait_for(timeout=10000)
    assert "submit a form" in card.text_content()
    card.locator("button[data-answer=Deny]").click()
    assert "[consent_denied]" in text_of(submit.result(15))
    assert page.evaluate("document.getElementById('summary').textContent") == ""
    submit = mcp.start("page_act", {"pageId": page.page_id, "action": "click", "text": "Place order"})
    card.locator("button[data-answer='Allow once']").click()
    ok(submit.result(15))
    assert page.evaluate("document.getElementById('summary').textContent") == "Ada / s"
    away = mcp.start("page_navigate", {"pageId": page.page_id, "url": dev.url("/single.html", host="localhost")})
    card.wait_for(timeout=10000)
    assert "leave" in card.text_content()
    card.locator("button[data-answer=Deny]").click()
    assert "[consent_denied]" in text_of(away.result(15))
    stay = ok(mcp.call("page_navigate", {"pageId": page.page_id, "url": "/single.html"}))  # same origin: no prompt
    assert stay["title"] == "single page"


def test_open_file_from_the_picker_waits_for_the_cockpit_then_runs_the_editor_and_refuses_escapes(strict):
    proc, dev, mcp, ctx, root, record = strict
    cockpit = ctx.new_page()
    cockpit.goto(proc.base + "/#sessions")
    page = open_page(ctx, dev.url("/source.html"))
    since = ok(mcp.call("inbox"))["cursor"]
    page.keyboard.press("Alt+Shift+KeyP")
    page.hover("#in-card")
    page.click("#in-card")
    page.locator("dbg-human [data-picked] button[data-answer=open]").click()
    held = ok(mcp.call("inbox", {"since": since, "kinds": ["open_file"], "wait": 5}))["items"][0]
    assert held["from"] == "page" and held["data"]["opened"] is False and "cockpit" in held["data"]["status"]
    assert not record.exists()  # nothing ran before the human said so
    card = cockpit.locator("#question-cards .card.consent")
    card.wait_for(timeout=10000)
    assert "A page asks" in card.text_content() and "src/components/Card.jsx:14" in card.text_content()
    card.locator("button[data-answer='Open in editor']").click()
    wait_until(lambda: record.exists() and record.read_text(), 10, what="the stub editor to run")
    assert record.read_text().split() == [str((root / "src/components/Card.jsx").resolve()), "14"]
    item = ok(mcp.call("inbox", {"since": held["id"], "kinds": ["open_file"], "wait": 5}))["items"][0]
    assert item["data"]["opened"] is True and item["from"] == "human"
    send_event = """async (file) => {
        const id = JSON.parse(sessionStorage.getItem('__dbg_id'));
        const body = {instanceId: id.instanceId, secret: id.secret, type: 'event', kind: 'open_file', text: file,
                      data: {file, line: 1}};
        return (await fetch(window.__dbgBridge + '/bridge/result', {method: 'POST', body: JSON.stringify(body),
                                                                     headers: {'Content-Type': 'text/plain'}})).status;
    }"""
    page.evaluate("(b) => { window.__dbgBridge = b; }", strict[0].base)
    cursor = item["id"]
    for bad in ("../../../etc/passwd", "/etc/passwd", "outside-link", "src/../../x"):
        assert page.evaluate(send_event, bad) == 204
    items = wait_until(lambda: (lambda r: r if len(r) == 4 else None)(
        ok(mcp.call("inbox", {"since": cursor, "kinds": ["open_file"]}))["items"]), 10, what="four refusals")
    assert all(i["data"]["opened"] is False for i in items)
    assert all("outside the project root" in i["data"]["error"] or "is not a file" in i["data"]["error"]
               for i in items)
    assert len(record.read_text().splitlines()) == 1  # the editor ran once, for the good path only
