"""Consent, user_ask, user_notify and the inbox over the in-process MCP client, with a fake human in a fake page."""

from __future__ import annotations

import pytest

from pathlib import Path
from typing import Any

from bridge.pages.protocol import parse_up
from bridge.pages.up_messages import handle_up
from tests.inmemory.harness import Bridge, bridge, echo

pytestmark = pytest.mark.anyio


def human(b: Bridge, answer: Any, *, log: list[dict] | None = None):
    """A page handler whose human answers every question shown with `answer` (and the rest like `echo`)."""

    async def handler(frame: dict[str, Any]):
        params = frame.get("params") or {}
        if frame["command"] == "ask" and "dismiss" not in params:
            if log is not None:
                log.append(params)
            qid = params.get("id") or params.get("questionId")
            inst = b.state.registry.instances[frame_instance(b)]
            b.state.background.spawn(_answer_later(b, inst, qid, answer))
            return {"ok": True, "result": {"shown": True}}
        return await echo(frame)

    return handler


def frame_instance(b: Bridge) -> str:
    return next(iter(b.state.registry.instances))


async def _answer_later(b: Bridge, inst, qid: str, answer: Any) -> None:
    handle_up(b.state, inst, parse_up({"type": "event", "kind": "answer", "questionId": qid, "data": {"answer": answer}}))


async def test_code_runs_only_after_the_human_allows_it_once(tmp_path: Path):
    async with bridge(tmp_path, no_consent=False) as b:
        shown: list[dict] = []
        conn = b.connect_page(human(b, "Allow once", log=shown))
        assert (await b.ok("page_exec", {"code": "2+2"}))["result"] == 4
        assert len(shown) == 1 and conn.execs("eval")


async def test_a_denied_consent_is_a_named_error_and_the_code_never_reaches_the_page(tmp_path: Path):
    async with bridge(tmp_path, no_consent=False) as b:
        conn = b.connect_page(human(b, "Deny"))
        text = await b.error("page_exec", {"code": "2+2"})
        assert "consent_denied" in text
        assert not conn.execs("eval")


async def test_allow_on_this_origin_is_remembered_for_the_next_call(tmp_path: Path):
    async with bridge(tmp_path, no_consent=False) as b:
        shown: list[dict] = []
        b.connect_page(human(b, "Allow on this origin", log=shown))
        await b.ok("page_exec", {"code": "1+1"})
        await b.ok("page_exec", {"code": "1+2"})
        assert len(shown) == 1


async def test_user_ask_returns_the_humans_answer_and_records_it_in_the_inbox(tmp_path: Path):
    async with bridge(tmp_path) as b:
        b.connect_page(human(b, "Blue"))
        out = await b.ok("user_ask", {"question": "Which colour?", "choices": ["Red", "Blue"]})
        assert "Blue" in str(out)
        items = (await b.ok("inbox", {}))
        assert "Blue" in str(items)


async def test_a_retried_event_is_taken_once_whatever_its_kind(tmp_path: Path):
    """The page retries an unacknowledged event: every copy is accepted (so it is acknowledged) and only the first
    counts, for a message and for the answer to a question alike."""
    async with bridge(tmp_path) as b:
        conn = b.connect_page()
        message = {"type": "event", "eventId": "m-1", "kind": "message", "text": "hello", "data": {}}
        assert [handle_up(b.state, conn.inst, parse_up(message)) for _ in range(3)] == [True, True, True]
        # A new eventId is a new event, even with the same text.
        assert handle_up(b.state, conn.inst, parse_up({**message, "eventId": "m-2"}))
        items = (await b.ok("inbox", {"kinds": ["message"]}))["items"]
        assert [i["text"] for i in items] == ["hello", "hello"]

        async def answer_twice(frame: dict[str, Any]):
            params = frame.get("params") or {}
            if frame["command"] == "ask" and "dismiss" not in params:
                event = {"type": "event", "eventId": "a-1", "kind": "answer", "questionId": params["questionId"],
                         "data": {"answer": "Blue"}}
                b.state.background.spawn(_twice(b, conn.inst, event))
                return {"ok": True, "result": {"shown": True}}
            return await echo(frame)

        conn.handler = answer_twice
        out = await b.ok("user_ask", {"question": "Which colour?", "kind": "choice", "choices": ["Red", "Blue"]})
        assert out["answer"] == "Blue"
        answers = (await b.ok("inbox", {"kinds": ["answer"]}))["items"]
        assert len(answers) == 1, answers


async def _twice(b: Bridge, inst, event: dict[str, Any]) -> None:
    assert handle_up(b.state, inst, parse_up(event)) is True
    assert handle_up(b.state, inst, parse_up(event)) is True  # the copy: acknowledged, not applied


async def test_user_notify_shows_a_toast_in_the_page(tmp_path: Path):
    async with bridge(tmp_path) as b:
        conn = b.connect_page()
        await b.ok("user_notify", {"message": "Deployed"})
        assert conn.execs("notify")[0]["params"]["message"] == "Deployed"


async def test_the_inbox_returns_items_after_a_cursor_only(tmp_path: Path):
    async with bridge(tmp_path) as b:
        b.state.inbox.add("message", "first", None, {}, source="human")
        first = await b.ok("inbox", {})
        assert "first" in str(first)
        cursor = first["cursor"]
        b.state.inbox.add("message", "second", None, {}, source="human")
        later = await b.ok("inbox", {"since": cursor})
        assert "second" in str(later) and "first" not in str(later)
