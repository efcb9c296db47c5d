"""Stopping the team bridge's loops: a task that loses a cancellation (as redis-py's writes do on Python 3.11, through
asyncio.wait_for) is cancelled again until it ends, so Cluster.stop cannot wait on it for good."""

from __future__ import annotations

import asyncio
import logging

import pytest

from bridge.cluster.bus import cancel_until_done


async def loses_the_first_cancel(woken: asyncio.Event) -> None:
    """A loop that swallows one cancellation (as 3.11's wait_for does when the awaited write completes with it),
    then waits for a wake-up that never comes, like Cluster._writer."""
    try:
        await asyncio.sleep(10)
    except asyncio.CancelledError:
        pass
    woken.set()
    await asyncio.Event().wait()


def test_a_task_that_swallows_a_cancellation_is_cancelled_again_until_it_ends():
    async def go() -> tuple[bool, bool]:
        woken = asyncio.Event()
        task = asyncio.get_running_loop().create_task(loses_the_first_cancel(woken))
        await asyncio.sleep(0)
        await asyncio.wait_for(cancel_until_done(task), 5)
        return woken.is_set(), task.cancelled()

    assert asyncio.run(go()) == (True, True)


def test_a_plain_cancel_and_wait_would_wait_for_good_on_that_task():
    async def go() -> bool:
        task = asyncio.get_running_loop().create_task(loses_the_first_cancel(asyncio.Event()))
        await asyncio.sleep(0)
        task.cancel()
        done, _ = await asyncio.wait({task}, timeout=0.5)
        task.cancel()  # let it end for the test's own cleanup
        await asyncio.wait({task}, timeout=5)
        return bool(done)

    assert asyncio.run(go()) is False


def test_a_task_that_will_not_end_is_left_running_with_an_error_after_the_grace(caplog: pytest.LogCaptureFixture):
    async def go() -> bool:
        release = asyncio.Event()

        async def stubborn() -> None:
            while not release.is_set():
                try:
                    await asyncio.sleep(10)
                except asyncio.CancelledError:
                    pass

        task = asyncio.get_running_loop().create_task(stubborn(), name="cluster stubborn")
        await asyncio.sleep(0)
        await asyncio.wait_for(cancel_until_done(task, grace=0.3), 5)
        left = not task.done()
        release.set()
        task.cancel()
        await asyncio.wait({task}, timeout=5)
        return left

    with caplog.at_level(logging.ERROR, logger="bridge.cluster"):
        assert asyncio.run(go()) is True
    assert "cluster stubborn did not stop within 0 s of being cancelled" in caplog.text
