"""page_wait {update: N} against a fake page whose client reports its dev server's updates (protocol.DevMsg): met
when the count passes N (an update that came before the call included), [update_failed] with file:line for a failed
one, a timeout that says what the page is at, and every page answer carrying the counts."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bridge.pages.protocol import parse_up
from bridge.pages.up_messages import handle_up
from tests.inmemory.harness import bridge, eventually

pytestmark = pytest.mark.anyio


def report(b, conn, updates: int, error: dict | None = None) -> None:
    """The page's client says its dev server applied (or failed) an update, as it would over its channel."""
    msg = {"type": "dev", "dev": {"server": "vite", "updates": updates, "updatedAt": 1700000000000 + updates,
                                  "error": error}}
    assert handle_up(b.state, conn.inst, parse_up(msg))


async def test_an_update_that_came_before_the_call_meets_the_wait_at_once(tmp_path: Path):
    async with bridge(tmp_path) as b:
        conn = b.connect_page()
        report(b, conn, 1)
        report(b, conn, 2)
        out = await b.ok("page_wait", {"pageId": "5173/host", "update": 1, "timeout": 5})
        assert out["met"] is True and out["value"]["updates"] == 2 and out["value"]["reloaded"] is False
        assert (out["updates"], out["updatedAt"]) == (2, 1700000000002)  # as every page answer says it


async def test_the_wait_ends_when_the_next_update_comes(tmp_path: Path):
    async with bridge(tmp_path) as b:
        conn = b.connect_page()
        report(b, conn, 4)
        wait = asyncio.create_task(b.ok("page_wait", {"pageId": "5173/host", "update": 4, "timeout": 10}))
        await eventually(lambda: conn.inst.changed._waiters, what="the wait parked on the page")  # noqa: SLF001
        assert not wait.done()
        report(b, conn, 5)
        out = await asyncio.wait_for(wait, 5)
        assert out["value"]["updates"] == 5


async def test_a_failed_update_answers_its_error_at_file_and_line(tmp_path: Path):
    async with bridge(tmp_path) as b:
        conn = b.connect_page()
        report(b, conn, 7, {"message": "Transform failed with 1 error:\n[PARSE_ERROR] Unexpected token",
                            "file": "src/App.tsx", "line": 11, "column": 19})
        text = await b.error("page_wait", {"pageId": "5173/host", "update": 6, "timeout": 5})
        assert text.startswith("[update_failed]") and "[PARSE_ERROR] Unexpected token at src/App.tsx:11:19" in text
        assert "page_wait {update: 7}" in text
        rows = (await b.ok("page_list"))["pages"]
        assert rows[0]["updateError"] == "[PARSE_ERROR] Unexpected token at src/App.tsx:11:19"


async def test_no_update_times_out_saying_where_the_page_is(tmp_path: Path):
    async with bridge(tmp_path) as b:
        conn = b.connect_page()
        report(b, conn, 3)
        text = await b.error("page_wait", {"pageId": "5173/host", "update": 3, "timeout": 0.3})
        assert text.startswith("[wait_timeout]") and "updates 3" in text
        b.connect_page(url="http://localhost:5174/", port=5174)
        text = await b.error("page_wait", {"pageId": "5174/host", "update": 0, "timeout": 0.3})
        assert text.startswith("[wait_timeout]") and "no dev server client" in text


async def test_update_with_another_condition_is_refused(tmp_path: Path):
    async with bridge(tmp_path) as b:
        b.connect_page()
        text = await b.error("page_wait", {"pageId": "5173/host", "update": 0, "text": "Saved"})
        assert text.startswith("[invalid_argument]")
