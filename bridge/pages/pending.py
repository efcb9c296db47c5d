"""The pending-request table: requestId -> future, owned by one page instance.

Every entry is removed on every path (`open` pops in `finally`); a page's waiters fail at once when
it unloads or disconnects; a result from any other page than the one asked is refused.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from bridge.pages.protocol import ResultMsg


@dataclass(eq=False)
class Waiter:
    request_id: str
    instance_id: str
    future: asyncio.Future[ResultMsg] = field(repr=False)
    #: The exec frame was handed to the page's channel: from here on the command may have run.
    sent: bool = False


class Pending:
    def __init__(self) -> None:
        self._waiters: dict[str, Waiter] = {}

    def __len__(self) -> int:
        return len(self._waiters)

    @contextmanager
    def open(self, instance_id: str) -> Iterator[Waiter]:
        """Register a waiter for one request to `instance_id`; it is removed when the block exits."""
        request_id = secrets.token_urlsafe(12)
        waiter = Waiter(request_id, instance_id, asyncio.get_running_loop().create_future())
        self._waiters[request_id] = waiter
        try:
            yield waiter
        finally:
            self._waiters.pop(request_id, None)
            if not waiter.future.done():
                waiter.future.cancel()

    def resolve(self, instance_id: str, msg: ResultMsg) -> bool:
        """Hand a result to its waiter. False (and nothing changes) if it is unknown or not this page's."""
        waiter = self._waiters.get(msg.requestId)
        if waiter is None or waiter.instance_id != instance_id or waiter.future.done():
            return False
        waiter.future.set_result(msg)
        return True

    def fail_instance(self, instance_id: str, make_error: Callable[[Waiter], BaseException]) -> int:
        """Fail every waiter of one page at once (the error may depend on whether its frame was sent); returns how
        many were failed."""
        failed = 0
        for waiter in list(self._waiters.values()):
            if waiter.instance_id == instance_id and not waiter.future.done():
                waiter.future.set_exception(make_error(waiter))
                failed += 1
        return failed
