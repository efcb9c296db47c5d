"""The inbox: ordered ids, cursors that never repeat or skip, filters, bounded long-poll, ack/resolve."""

import asyncio

from bridge.human.inbox import Inbox
from tests.support import run_async


def test_reading_by_cursor_never_repeats_or_skips_an_item():
    box = Inbox()
    for n in range(5):
        box.add("message", f"m{n}", "1/host", source="page")
    first, cursor, more = box.read(0, limit=3)
    assert [i.text for i in first] == ["m0", "m1", "m2"] and more
    rest, cursor2, more2 = box.read(cursor)
    assert [i.text for i in rest] == ["m3", "m4"] and not more2
    assert box.read(cursor2)[0] == []


def test_filters_by_kind_and_page_and_the_cursor_moves_past_skipped_items():
    box = Inbox()
    box.add("message", "a", "5173/host", source="page")
    box.add("answer", "b", "ab123/host", source="page")
    box.add("message", "c", "5173/f0", source="page")
    items, cursor, _ = box.read(0, kinds=["message"], page_id="5173/host")
    assert [i.text for i in items] == ["a", "c"] and cursor == 3


def test_long_poll_returns_as_soon_as_an_item_arrives_and_is_bounded():
    async def main():
        box = Inbox()
        waiter = asyncio.create_task(box.wait(0, 5))
        asyncio.get_running_loop().call_soon(lambda: box.add("message", "hello", source="page"))  # runs after the waiter has parked
        items, _, _ = await asyncio.wait_for(waiter, 2)
        empty, cursor, _ = await box.wait(items[-1].id, 0.05)
        return items, empty, cursor

    items, empty, cursor = run_async(main())
    assert [i.text for i in items] == ["hello"] and empty == [] and cursor == 1


def test_ack_and_resolve_mark_items_and_old_items_drop_beyond_the_limit():
    box = Inbox(limit=3)
    for n in range(5):
        box.add("message", str(n), source="page")
    assert box.oldest_id == 3
    assert box.mark([3, 99], "acked") == [3]
    assert [i.status for i in box.items] == ["acked", "new", "new"]
