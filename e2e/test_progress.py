"""Progress notifications: a client that sent a progress token hears, once a second, what a long wait awaits, the
seconds elapsed and the limit (page_wait, a long page_exec, user_ask); short calls stay silent."""

from __future__ import annotations

import asyncio

import pytest

from tests.support import McpSession, ok, open_page, text_of, wait_until


@pytest.fixture(params=["legacy", "auto"], ids=["2025-11-25", "2026-07-28"])
def era(request, bridge):
    session = McpSession(bridge.mcp_url, bridge.token, mode=request.param)
    yield session
    session.close()


def call_with_progress(session: McpSession, name: str, args: dict) -> tuple[object, list[tuple]]:
    heard: list[tuple] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        heard.append((progress, total, message))

    result = session.run(session.client.call_tool(name, args, progress_callback=on_progress), 60)
    return result, heard


def test_page_wait_reports_what_it_awaits_elapsed_and_limit(dev, context, era):
    page = open_page(context, dev.url("/single.html"))
    # 2.3 s after the wait started in the page (however late the call got there on a busy machine).
    page.evaluate("""const t = setInterval(() => { if (window.__dbg.status().running) { clearInterval(t);
        setTimeout(() => document.body.append('arrived late'), 2300); } }, 20)""")
    res, heard = call_with_progress(era, "page_wait", {"pageId": page.page_id, "text": "arrived late", "timeout": 8})
    assert ok(res), text_of(res)
    assert len(heard) >= 2, heard
    progress = [p for p, _, _ in heard]
    assert progress == sorted(progress) and progress[0] >= 0.9
    assert all(total == 8 for _, total, _ in heard)
    assert f"page {page.page_id} to finish 'wait'" in heard[0][2] and "of at most 8 s" in heard[0][2]


def test_user_ask_reports_while_the_human_thinks_and_short_calls_stay_silent(dev, context, era):
    page = open_page(context, dev.url("/app.html"))
    res, heard = call_with_progress(era, "page_exec", {"pageId": page.page_id, "code": "1 + 1"})
    assert ok(res)["result"] == 2 and heard == []
    card = page.locator("dbg-human [data-question]")
    heard: list[tuple] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        heard.append((progress, total, message))

    call = asyncio.run_coroutine_threadsafe(era.client.call_tool(
        "user_ask", {"pageId": page.page_id, "question": "Ship it?", "wait": 30}, progress_callback=on_progress),
        era.loop)
    card.wait_for(timeout=10000)
    wait_until(lambda: heard, 10, what="a progress notification while the human thinks")
    card.locator("button[data-answer=true]").click()  # a person's click (a page script's would not count)
    res = call.result(30)
    assert ok(res)["answer"] is True, text_of(res)
    assert heard and all(total == 30 for _, total, _ in heard), heard
    assert "the human to answer 'Ship it?'" in heard[0][2]
    assert card.count() == 0


def test_a_long_page_exec_reports_once_a_second(dev, context, era):
    page = open_page(context, dev.url("/single.html"))
    res, heard = call_with_progress(era, "page_exec", {
        "pageId": page.page_id, "code": "await new Promise(r => setTimeout(r, 1500)); return 'done'", "timeout": 10})
    assert ok(res)["result"] == "done"
    assert len(heard) == 1 and heard[0][1] == 10 and "to finish 'eval'" in heard[0][2], heard


def test_an_inbox_long_poll_reports_while_it_waits(era):
    res, heard = call_with_progress(era, "inbox", {"wait": 2.5, "kinds": ["message"], "since": 10**9})
    assert ok(res) is not None, text_of(res)
    assert len(heard) >= 2 and all(total == 2.5 for _, total, _ in heard), heard
    assert "a new inbox item" in heard[0][2]
