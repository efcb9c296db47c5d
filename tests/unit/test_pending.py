"""The pending table: a result reaches only the call that asked that page, and no entry outlives its call."""

from __future__ import annotations

import asyncio

import pytest

from bridge.pages.pending import Pending
from bridge.pages.protocol import ResultMsg
from tests.support import run_async


def result(request_id: str, value: object = "answer") -> ResultMsg:
    return ResultMsg(requestId=request_id, ok=True, result=value)


def test_a_result_resolves_its_call_only_when_it_comes_from_the_page_that_was_asked():
    async def main() -> None:
        pending = Pending()
        with pending.open("page-a") as waiter:
            assert not pending.resolve("page-b", result(waiter.request_id, "forged"))
            assert not waiter.future.done()
            assert pending.resolve("page-a", result(waiter.request_id, "real"))
            assert (await waiter.future).result == "real"
            assert not pending.resolve("page-a", result(waiter.request_id, "twice"))
            assert (await waiter.future).result == "real"

    run_async(main())


def test_a_result_for_an_unknown_request_changes_nothing():
    async def main() -> None:
        pending = Pending()
        with pending.open("page-a") as waiter:
            assert not pending.resolve("page-a", result("no-such-request"))
            assert not waiter.future.done() and len(pending) == 1

    run_async(main())


def test_request_ids_are_unique_and_unguessable_looking():
    async def main() -> set[str]:
        pending = Pending()
        ids = set()
        for _ in range(500):
            with pending.open("p") as waiter:
                ids.add(waiter.request_id)
        return ids

    ids = run_async(main())
    assert len(ids) == 500 and all(len(i) >= 16 for i in ids)


def test_the_entry_is_removed_when_the_call_completes():
    async def main() -> None:
        pending = Pending()
        with pending.open("p") as waiter:
            assert len(pending) == 1
            pending.resolve("p", result(waiter.request_id))
            await waiter.future
        assert len(pending) == 0
        assert not pending.resolve("p", result(waiter.request_id))

    run_async(main())


def test_the_entry_is_removed_and_its_future_cancelled_when_the_call_raises():
    async def main() -> None:
        pending = Pending()
        with pytest.raises(RuntimeError):
            with pending.open("p") as waiter:
                raise RuntimeError("sending failed")
        assert len(pending) == 0 and waiter.future.cancelled()
        assert not pending.resolve("p", result(waiter.request_id))

    run_async(main())


def test_the_entry_is_removed_when_the_call_times_out():
    async def main() -> None:
        pending = Pending()
        with pytest.raises(TimeoutError):
            with pending.open("p") as waiter:
                await asyncio.wait_for(waiter.future, 0.01)
        assert len(pending) == 0
        assert not pending.resolve("p", result(waiter.request_id, "late"))

    run_async(main())


def test_the_entry_is_removed_when_the_calling_task_is_cancelled():
    async def main() -> None:
        pending = Pending()
        entered = asyncio.Event()

        async def call() -> None:
            with pending.open("p"):
                entered.set()
                await asyncio.Event().wait()

        task = asyncio.create_task(call())
        await asyncio.wait_for(entered.wait(), 5)
        assert len(pending) == 1
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert len(pending) == 0

    run_async(main())


def test_the_entry_is_removed_when_the_page_fails():
    async def main() -> None:
        pending = Pending()
        with pytest.raises(ConnectionError):
            with pending.open("p") as waiter:
                pending.fail_instance("p", lambda w: ConnectionError("page gone"))
                await waiter.future
        assert len(pending) == 0

    run_async(main())


def test_fail_instance_fails_every_waiter_of_one_page_and_no_other():
    async def main() -> None:
        pending = Pending()
        made: list[Exception] = []

        def make(waiter) -> Exception:
            made.append(ConnectionError("page a unloaded"))
            return made[-1]

        with pending.open("a") as a1, pending.open("a") as a2, pending.open("b") as b1:
            assert pending.fail_instance("a", make) == 2
            for waiter in (a1, a2):
                with pytest.raises(ConnectionError, match="page a unloaded"):
                    await waiter.future
            assert a1.future.exception() is not a2.future.exception()  # one error per waiter
            assert not b1.future.done()
            assert pending.fail_instance("a", make) == 0  # already failed ones are left alone
            assert pending.resolve("b", result(b1.request_id, "b's answer"))
            assert (await b1.future).result == "b's answer"
        assert len(made) == 2 and len(pending) == 0

    run_async(main())


def test_fail_instance_leaves_already_answered_calls_alone():
    async def main() -> None:
        pending = Pending()
        with pending.open("a") as answered, pending.open("a") as waiting:
            pending.resolve("a", result(answered.request_id, "done"))
            assert pending.fail_instance("a", lambda w: ConnectionError("gone")) == 1
            assert (await answered.future).result == "done"
            with pytest.raises(ConnectionError):
                await waiting.future

    run_async(main())
