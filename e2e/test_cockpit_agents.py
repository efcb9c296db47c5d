"""The cockpit says who is connected (client name and version, protocol era, last call), counts tabs and frames
apart, and shows a question the agent took a ticket for as waiting for the human, not blocking the agent. The demo
page shows a small badge when its client is connected."""

from __future__ import annotations

from tests.support import CONNECTED, ok
from e2e.test_cockpit import open_app, open_cockpit


def test_agents_are_listed_and_tabs_and_frames_are_counted_apart(context, bridge, dev, mcp):
    app = open_app(context, dev, "/framed.html")
    ok(mcp.call("page_list"))
    cockpit = open_cockpit(context, bridge, "sessions")
    agents = cockpit.locator("#agents tr")
    agents.first.wait_for(timeout=10000)
    text = agents.first.text_content() or ""
    print(text)
    assert "unnamed" not in text and "page_list" in text and ("2026-07-28" in text or "2025-11-25" in text), text
    count = cockpit.locator("#count-pages")
    cockpit.wait_for_function("document.getElementById('count-pages').textContent.includes(' · ')", timeout=10000)
    tabs, frames = (int(x) for x in (count.text_content() or "").split(" · "))
    assert tabs >= 1 and frames >= 1
    assert "tab" in (cockpit.locator("#pages-count").text_content() or "")
    app.close()


def test_a_ticketed_question_reads_as_waiting_for_the_human(context, bridge, dev, mcp):
    app = open_app(context, dev, "/single.html")
    out = ok(mcp.call("user_ask", {"pageId": app.page_id, "question": "Ship it?", "wait": 0.5}))
    assert out["status"] == "pending"
    cockpit = open_cockpit(context, bridge)
    card = cockpit.locator(f'#question-cards [data-question="{out["questionId"]}"] .who')
    card.wait_for(timeout=10000)
    assert "the agent moved on: your answer goes to its inbox" in (card.text_content() or "")
    assert "blocked" not in (cockpit.locator("#questions .hint").text_content() or "")
    app.close()


def test_the_demo_page_shows_that_it_is_connected(context, bridge):
    page = context.new_page()
    page.goto(bridge.base + "/demo")
    page.wait_for_function(CONNECTED, timeout=10000)
    badge = page.locator("#dbg-badge[data-state=connected]")
    badge.wait_for(timeout=10000)
    assert (badge.text_content() or "").startswith("● connected as ") and "/host" in (badge.text_content() or "")
    page.close()
