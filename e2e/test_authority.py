"""The human's authority in a real Chromium page: the page's own scripts click every card and control of the
bridge's panel — consent, confirm, choice with a note (the takeover card's kind), text, pick, record, message — with
synthetic events and through the functions the client exposes, and nothing is answered, recorded or sent; then a
person's real mouse (Playwright's, trusted input) and keyboard answer the same cards."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from bridge.server.principals import terminal_headers
from e2e.page_attack import ATTACK
from tests.support import BridgeProcess, DevServer, McpSession, ok, open_page, text_of, wait_until

@pytest.fixture(scope="module")
def strict(module_bridge_process) -> Iterator[tuple[BridgeProcess, DevServer, McpSession]]:
    """A bridge that asks before code runs in a page (consent on), with its own dev server and MCP client."""
    proc = module_bridge_process("--consent-wait", "30", env={"DBG_NO_CONSENT": "0"}, name="authority")
    dev = DevServer(proc.client_js())
    session = McpSession(proc.mcp_url, proc.token)
    yield proc, dev, session
    session.close()
    dev.close()


def settle(mcp: McpSession, page: Any) -> None:
    """A round trip on the page's channel: whatever the page sent before it has reached the bridge."""
    assert not mcp.call("page_snapshot", {"pageId": page.page_id}).is_error


def attacked(mcp: McpSession, page: Any) -> None:
    assert page.evaluate(ATTACK) > 0
    settle(mcp, page)


CARDS = [
    ("user_ask", {"question": "Ship it?", "kind": "confirm"}, "button[data-answer=true]", True),
    ("user_ask", {"question": "Colour?", "kind": "choice", "choices": ["red", "green"]}, "button[data-answer=green]",
     "green"),
]


@pytest.mark.parametrize(("tool", "args", "button", "expected"), CARDS, ids=["confirm", "choice"])
def test_a_page_script_answers_no_question_card_and_a_persons_click_does(strict, context, tool, args, button, expected):
    _, dev, mcp = strict
    page = open_page(context, dev.url("/single.html"))
    call = mcp.start(tool, {"pageId": page.page_id, "wait": 30, **args})
    card = page.locator("dbg-human [data-question]")
    card.wait_for(timeout=10000)
    attacked(mcp, page)
    assert not call.done() and card.count() == 1  # nothing answered, the card still there
    card.locator(button).click()  # Playwright's real mouse: trusted input, a person's hand
    out = ok(call.result(15))
    assert out["answer"] == expected and out["via"] == "page"


def test_a_page_script_writes_no_text_answer_and_a_persons_keyboard_does(strict, context):
    _, dev, mcp = strict
    page = open_page(context, dev.url("/single.html"))
    call = mcp.start("user_ask", {"pageId": page.page_id, "question": "Name it", "kind": "text", "wait": 30})
    card = page.locator("dbg-human [data-question]")
    card.wait_for(timeout=10000)
    attacked(mcp, page)
    assert not call.done()
    card.locator("textarea").fill("Bluebird")
    card.locator("textarea").press("Enter")  # a person's key
    assert ok(call.result(15))["answer"] == "Bluebird"


def test_a_page_script_grants_no_consent_and_a_persons_click_and_key_do(strict, context):
    proc, dev, mcp = strict
    page = open_page(context, dev.url("/single.html"))
    card = page.locator("dbg-human .card.consent")
    call = mcp.start("page_exec", {"pageId": page.page_id, "code": "document.title"})
    card.wait_for(timeout=10000)
    attacked(mcp, page)
    assert not call.done() and card.count() == 1
    card.locator("button[data-answer='Allow once']").click()
    assert ok(call.result(15))["result"] == "single page"
    # the keyboard: a person tabs to Deny and presses Enter
    call = mcp.start("page_exec", {"pageId": page.page_id, "code": "document.title"})
    card.wait_for(timeout=10000)
    attacked(mcp, page)
    assert not call.done()
    card.locator("button[data-answer=Deny]").focus()
    page.keyboard.press("Enter")
    assert "[consent_denied]" in text_of(call.result(15))
    decisions = [(r["decision"], r.get("via")) for r in proc.audit() if r["kind"] == "consent" and "decision" in r]
    assert decisions[-2:] == [("Allow once", "page"), ("Deny", "page")]


def test_a_page_script_picks_nothing_sends_no_message_and_starts_no_recording(strict, context):
    proc, dev, mcp = strict
    page = open_page(context, dev.url("/single.html"))
    call = mcp.start("user_ask", {"pageId": page.page_id, "question": "Which one?", "kind": "pick", "wait": 30})
    card = page.locator("dbg-human [data-question]")
    card.wait_for(timeout=10000)
    attacked(mcp, page)  # clicks Pick an element, then clicks the page: neither is a person's
    assert not call.done()
    page.evaluate("() => { window.__dbg.message(); window.__dbg.record(); }")  # the panel functions a page reaches
    page.locator("dbg-human [data-record] input").wait_for(timeout=5000)
    attacked(mcp, page)
    headers = {"Authorization": f"Bearer {proc.token}"}
    assert httpx.get(f"{proc.base}/v1/recordings/forged%20by%20the%20page", headers=headers).status_code in (400, 404)
    inbox = ok(mcp.call("inbox", {"kinds": ["message", "answer"]}))
    assert not [i for i in inbox["items"] if "forged" in i["text"]]
    card.locator("button[data-answer=pick]").click()  # the person picks
    page.locator("#who").click()
    assert ok(call.result(15))["answer"]["selector"] == "#who"


def test_a_page_script_cannot_stop_or_save_the_humans_recording_and_a_persons_click_does(strict, context):
    proc, dev, mcp = strict
    page = open_page(context, dev.url("/signin.html"))
    human = {"Authorization": f"Bearer {proc.token}", **terminal_headers(proc.config_dir)}
    started = httpx.post(f"{proc.base}/v1/recordings", json={"name": "sign-in-auth", "pageId": page.page_id},
                         headers=human)
    assert started.status_code == 200, started.text
    page.locator("dbg-human [data-recording='sign-in-auth']").wait_for(timeout=10000)
    page.click("#email")
    page.keyboard.type("ada@example.com")
    page.keyboard.press("Enter")
    attacked(mcp, page)  # Stop, then (had it opened) Save skill and Enter in its field: none is a person's
    attacked(mcp, page)
    rec = httpx.get(f"{proc.base}/v1/recordings/sign-in-auth", headers=human).json()
    assert rec["state"] == "recording" and rec["steps"] >= 2, rec
    page.click("dbg-human [data-answer=stop-recording]")  # the person stops it in the panel
    page.click("dbg-human [data-answer=save-skill]")
    saved = wait_until(lambda: (r := httpx.get(f"{proc.base}/v1/recordings/sign-in-auth", headers=human).json())
                       ["state"] == "saved" and r, 10, what="the person's Save to reach the bridge")
    assert saved["skill"]["params"] == {"email": "ada@example.com"}
