"""Elicitation: user_ask questions are also offered to a client that declared elicitation (2025-11-25 sessions, form
mode); the first answer from the page or the client wins and the other closes; `via: "client"`. Consent prompts
never are: the MCP token is the agent's, and consent is the human's (bridge/server/principals.py)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import pytest
from mcp.types import ElicitResult

from tests.support import BridgeProcess, Bridges, DevServer, McpSession, ok, open_page, text_of, wait_until


class Human:
    """An elicitation callback: answers `answer` at once, or (answer=None) waits until cancelled."""

    def __init__(self, answer: object = None) -> None:
        self.answer = answer
        self.asked: list[dict] = []
        self.cancelled = threading.Event()

    async def __call__(self, context, params) -> ElicitResult:
        self.asked.append({"message": params.message, "schema": params.requested_schema})
        if self.answer is None:
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                self.cancelled.set()
                raise
        return ElicitResult(action="accept", content={"answer": self.answer})


def card(page):
    return page.locator("dbg-human [data-question]")


def session(bridge: BridgeProcess, human: Human, mode: str = "legacy") -> McpSession:
    return McpSession(bridge.mcp_url, bridge.token, mode=mode, elicitation_callback=human)


def test_the_client_answers_a_choice_first_and_the_card_leaves_the_page(bridge, dev, context):
    page = open_page(context, dev.url("/app.html"))
    human = Human("green")
    mcp = session(bridge, human)
    try:
        out = ok(mcp.call("user_ask", {"pageId": page.page_id, "question": "Colour?", "kind": "choice",
                                       "choices": ["red", "green"], "wait": 30}))
    finally:
        mcp.close()
    assert out["answer"] == "green" and out["via"] == "client"
    assert human.asked[0]["schema"]["properties"]["answer"]["enum"] == ["red", "green"]
    assert "Colour?" in human.asked[0]["message"]
    card(page).wait_for(state="detached", timeout=5000)


def test_the_page_answers_first_and_the_clients_form_is_cancelled(bridge, dev, context):
    page = open_page(context, dev.url("/app.html"))
    human = Human(None)
    mcp = session(bridge, human)
    try:
        call = mcp.start("user_ask", {"pageId": page.page_id, "question": "Ship it?", "wait": 30})
        card(page).wait_for(timeout=10000)
        wait_until(lambda: human.asked, 5, what="the client asked too")
        card(page).locator("button[data-answer=true]").click()
        out = ok(call.result(15))
        assert out["answer"] is True and out["via"] == "page"
        assert human.cancelled.wait(5), "the client's elicitation was not cancelled"
    finally:
        mcp.close()


def test_a_2026_client_is_not_asked_mid_call_and_the_page_still_answers(bridge, dev, context):
    page = open_page(context, dev.url("/app.html"))
    human = Human("typed by the client")
    mcp = session(bridge, human, mode="auto")
    try:
        call = mcp.start("user_ask", {"pageId": page.page_id, "question": "Name it", "kind": "text", "wait": 30})
        card(page).locator("textarea").fill("Bluebird")
        card(page).locator("button[data-answer=send]").click()
        out = ok(call.result(15))
    finally:
        mcp.close()
    assert out == {**out, "answer": "Bluebird", "via": "page"} and human.asked == []


@pytest.fixture(scope="module")
def consenting(module_bridge_process: Bridges) -> Iterator[tuple[BridgeProcess, DevServer]]:
    proc = module_bridge_process("--consent-for", "eval", env={"DBG_NO_CONSENT": "0"}, name="elicit-consent")
    dev = DevServer(proc.client_js())
    yield proc, dev
    dev.close()


def test_a_consent_prompt_is_never_offered_to_the_client_and_the_humans_click_answers_it(consenting, context):
    bridge, dev = consenting
    page = open_page(context, dev.url("/app.html"))
    human = Human("Allow once")  # a client that would grant anything it is asked
    mcp = session(bridge, human)
    try:
        call = mcp.start("page_exec", {"pageId": page.page_id, "code": "6 * 7"})
        card(page).wait_for(timeout=10000)
        card(page).locator("button[data-answer=Deny]").click()  # the person in the page
        res = call.result(20)
        assert res.is_error and "[consent_denied]" in text_of(res), text_of(res)
    finally:
        mcp.close()
    assert human.asked == []  # never asked
    assert card(page).count() == 0
