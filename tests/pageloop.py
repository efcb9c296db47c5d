"""FakePages driven from sync tests: a background event loop, and a handler the test opens like a gate."""

from __future__ import annotations

import asyncio
import queue
import threading
from typing import Any

from tests.fakepage import FakePage


class PageLoop:
    """Runs FakePages on a private event loop thread; every wait on it is bounded."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.pages: list[FakePage] = []
        self.gates: list[Gate] = []

    def run(self, coro: Any, timeout: float = 15.0) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def connect(self, base: str, **kwargs: Any) -> FakePage:
        """Register a FakePage and open its channel (WebSocket unless channel='sse')."""

        async def go() -> FakePage:
            page = FakePage(base, **kwargs)
            self.pages.append(page)
            return await page.connect()

        return self.run(go())

    def gate(self, answer: dict[str, Any] | None = None) -> Gate:
        gate = Gate(self, answer)
        self.gates.append(gate)
        return gate

    def send(self, page: FakePage, msg: dict[str, Any]) -> Any:
        return self.run(page.send(msg))

    def disconnect(self, page: FakePage) -> None:
        self.run(page.close())

    def __enter__(self) -> PageLoop:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        async def close_all() -> None:
            for gate in self.gates:
                gate._open.set()
            for page in self.pages:
                await page.close()
                await page.http.aclose()

        try:
            self.run(close_all(), 20)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(5)


class Gate:
    """A page handler that reports each exec frame it gets and answers only once the test opens the gate."""

    def __init__(self, pages: PageLoop, answer: dict[str, Any] | None = None) -> None:
        self.loop = pages.loop
        self.answer = answer if answer is not None else {"ok": True, "result": "the real answer"}
        self.frames: queue.Queue[dict[str, Any]] = queue.Queue()
        self._open = asyncio.Event()

    async def handler(self, frame: dict[str, Any]) -> dict[str, Any]:
        self.frames.put(frame)
        await self._open.wait()
        return self.answer

    def next_frame(self, timeout: float = 10.0) -> dict[str, Any]:
        """The next exec frame the page received (fails the test if none comes within `timeout`)."""
        try:
            return self.frames.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"the page received no exec frame within {timeout} s") from None

    def open(self) -> None:
        self.loop.call_soon_threadsafe(self._open.set)
