"""A fault-injection run: concurrent page_exec calls from several MCP callers to real tabs (each with an iframe, on
both channels) while tabs reload, close, navigate away and back, go offline, and the bridge is killed (SIGKILL)
and restarted. Shared by e2e/test_faults.py (lean) and bench/faults.py (at scale).

Every call runs code that counts its own token in the tab's sessionStorage (it survives reloads and navigations),
so afterwards each surviving tab tells which calls ran and how often. What is judged:
- lost: a call that ended `page_timeout` (a result that never arrived);
- duplicates: a token counted more than once;
- false "nothing ran": a failure that says the command never reached the page, though its token was counted;
- named within: for each failed call, the time from its fault (or from its own start, if it began during one)
  to its error.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
import secrets
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.support import CONNECTED, BridgeProcess, DevServer, text_of, wait_until

CODE = ("const k = '__fault_' + args.t; sessionStorage.setItem(k, String(Number(sessionStorage.getItem(k) || 0) + 1));"
        " await new Promise((r) => setTimeout(r, args.ms)); return args.t")
COUNTS = ("Object.fromEntries(Object.entries(sessionStorage).filter(([k]) => k.startsWith('__fault_'))"
          ".map(([k, v]) => [k.slice(8), Number(v)]))")
FAULTS = ("reload", "navigate", "offline", "close", "reload", "kill")


@dataclass
class Call:
    token: str
    page_id: str
    channel: str
    started: float
    ended: float = 0.0
    ok: bool = False
    code: str = ""
    text: str = ""


@dataclass
class Fault:
    kind: str
    started: float
    ended: float = 0.0
    detail: str = ""


@dataclass
class Tab:
    page: Any
    channel: str
    page_id: str

    @property
    def targets(self) -> list[str]:
        return [self.page_id, self.page_id.replace("/host", "/f0")]


@dataclass
class Report:
    calls: list[Call]
    faults: list[Fault]
    counts: dict[str, int]
    wall: float
    codes: Counter = field(default_factory=Counter)

    def summary(self) -> dict[str, Any]:
        failed = [c for c in self.calls if not c.ok]
        named = [self.named_within(c) for c in failed]
        never = [c for c in failed if "nothing ran" in c.text or "never reached" in c.text]
        return {
            "calls": len(self.calls), "ok": sum(c.ok for c in self.calls), "failed": len(failed),
            "lost": sum(c.code == "page_timeout" for c in failed),
            "duplicates": sum(1 for n in self.counts.values() if n > 1),
            "false_nothing_ran": sum(1 for c in never if self.counts.get(c.token)),
            "unexplained": sum(1 for n in named if n is None),
            "named_within_max_s": round(max((n for n in named if n is not None), default=0.0), 3),
            "faults": dict(Counter(f.kind for f in self.faults)),
            "codes": dict(Counter(c.code for c in failed)),
            "wall_s": round(self.wall, 1),
        }

    def named_within(self, call: Call) -> float | None:
        """Seconds from the call's fault (the latest one that started before the call ended) to its error."""
        before = [f for f in self.faults if f.started <= call.ended]
        if not before:
            return None
        fault = max(before, key=lambda f: f.started)
        return call.ended - max(fault.started, call.started)


async def _close(stack: contextlib.AsyncExitStack) -> None:
    try:
        await stack.aclose()
    except (Exception, asyncio.CancelledError):  # a client whose bridge died: its teardown fails too
        pass


def _code(text: str) -> str:
    m = re.match(r"\s*\[(\w+)\]", text)
    return m.group(1) if m else "unnamed"


class FaultRun:
    """Drive callers on a private loop while the main thread (sync Playwright) injects faults."""

    def __init__(self, bridge: BridgeProcess, dev: DevServer, context: Any, *, tabs: int = 4, callers: int = 4,
                 calls: int = 300, seed: int = 11) -> None:
        self.bridge, self.dev, self.context = bridge, dev, context
        self.n_tabs, self.n_callers, self.n_calls = tabs, callers, calls
        self.rng = random.Random(seed)
        self.tabs: list[Tab] = []
        self.calls: list[Call] = []
        self.faults: list[Fault] = []
        self.inflight: dict[str, Call] = {}
        self.closing: set[str] = set()
        self.stop = threading.Event()
        self.loop = asyncio.new_event_loop()

    # ---- tabs ------------------------------------------------------------------------------------------------

    def open_tab(self, channel: str) -> Tab:
        page = self.context.new_page()
        page.goto(self.dev.url(f"/framed.html?channel={channel}"))
        page.wait_for_function(CONNECTED, timeout=15000)
        page.wait_for_function("window.__dbg.status().frames.some((f) => f.ready)", timeout=15000)
        tab = Tab(page, channel, page.evaluate("window.__dbg.pageId"))
        self.tabs.append(tab)
        return tab

    def targets(self) -> list[tuple[str, str]]:
        return [(t, tab.channel) for tab in self.tabs if tab.page_id not in self.closing for t in tab.targets]

    # ---- callers ---------------------------------------------------------------------------------------------

    async def _caller(self) -> None:
        client = None
        stack = contextlib.AsyncExitStack()
        headers = {"Authorization": f"Bearer {self.bridge.token}"} if self.bridge.token else {}
        while not self.stop.is_set():
            if client is None:
                await _close(stack)
                stack = contextlib.AsyncExitStack()
                try:
                    http = await stack.enter_async_context(httpx2.AsyncClient(headers=headers, timeout=30))
                    client = await stack.enter_async_context(
                        Client(streamable_http_client(self.bridge.mcp_url, http_client=http)))
                except (Exception, asyncio.CancelledError):  # the bridge is down: try again shortly (bounded)
                    client = None
                    await asyncio.sleep(0.05)
                    continue
            choices = self.targets()
            if not choices:
                await asyncio.sleep(0.02)
                continue
            page_id, channel = self.rng.choice(choices)
            call = Call(secrets.token_hex(6), page_id, channel, time.monotonic())
            self.calls.append(call)
            self.inflight[call.token] = call
            try:
                res = await client.call_tool("page_exec", {"pageId": page_id, "code": CODE, "timeout": 10,
                                                           "args": {"t": call.token, "ms": self.rng.randrange(0, 150)}})
                call.ok, call.text = not res.is_error, text_of(res)
                call.code = "" if call.ok else _code(call.text)
            # The bridge went away under the call: the transport names it (the SDK's task group may cancel us too,
            # until its context is left).
            except (Exception, asyncio.CancelledError) as exc:
                call.code, call.text = "transport", f"{type(exc).__name__}: {exc}"
                client = None
            finally:
                call.ended = time.monotonic()
                self.inflight.pop(call.token, None)
        await _close(stack)

    # ---- faults ----------------------------------------------------------------------------------------------

    def _fault(self, kind: str) -> None:
        tab = self.rng.choice(self.tabs)
        fault = Fault(kind, time.monotonic(), detail=tab.page_id)
        if kind == "reload":
            self.faults.append(fault)
            tab.page.reload()
        elif kind == "navigate":
            self.faults.append(fault)
            tab.page.goto(self.dev.url("/plain.html"))
            fault.ended = time.monotonic()
            self.faults.append(Fault("navigate_back", time.monotonic(), detail=tab.page_id))
            tab.page.go_back()
        elif kind == "offline":
            self.faults.append(fault)
            self.context.set_offline(True)
            tab.page.wait_for_timeout(self.rng.uniform(1000, 2000))
            self.context.set_offline(False)
        elif kind == "close":
            self.closing.add(tab.page_id)
            # Its calls already on their way are dispatched before it closes (a call addressed to a tab that is
            # gone for good waits for it like for a reload; that wait is not what this measures).
            wait_until(lambda: all(time.monotonic() - c.started > 0.05 for c in list(self.inflight.values())
                                   if c.page_id.startswith(tab.page_id.split("/")[0] + "/")), 2, what="dispatch")
            fault.started = time.monotonic()
            self.faults.append(fault)
            tab.page.close()
            self.tabs.remove(tab)
            self.open_tab(tab.channel)
        elif kind == "kill":
            self.faults.append(fault)
            assert self.bridge.proc is not None
            self.bridge.proc.kill()
            self.bridge.proc.wait(10)
            self.bridge.proc = None
            self.bridge.start()
        fault.ended = time.monotonic()
        for t in self.tabs:
            t.page.wait_for_function(CONNECTED, timeout=20000)

    def run(self, faults: tuple[str, ...] | list[str] = FAULTS, gap: float = 0.7) -> Report:
        for i in range(self.n_tabs):
            self.open_tab("ws" if i % 2 == 0 else "sse")
        async def callers() -> None:
            await asyncio.gather(*(self._caller() for _ in range(self.n_callers)))

        thread = threading.Thread(target=lambda: self.loop.run_until_complete(callers()), daemon=True)
        started = time.monotonic()
        thread.start()
        try:
            wait_until(lambda: len(self.calls) > 10, 20, what="calls under way")
            for kind in faults:
                self.tabs[0].page.wait_for_timeout(gap * 1000)
                self._fault(kind)
            # At least the calls asked for, and some after the last fault.
            last = len(self.calls)
            wait_until(lambda: len(self.calls) >= max(self.n_calls, last + 20), 600, what="the calls")
        finally:
            self.stop.set()
            thread.join(60)
        wall = time.monotonic() - started
        counts: dict[str, int] = {}
        for tab in self.tabs:
            for token, n in tab.page.evaluate(COUNTS).items():
                counts[token] = counts.get(token, 0) + n
        return Report(self.calls, self.faults, counts, wall)
