"""Many agents, one bridge: an acting call (page_act, page_exec, page_navigate, page_call_tool) takes a short lease on
its tab — for the call and TAIL s after it, renewed by the same agent's next acting call — so two agents never act on
one tab at the same moment. Another agent's acting call waits up to WAIT s for the lease, then answers `[page_busy]`
naming who holds it and until when; reads never wait. A run's leases end when the run finishes, and a cancelled
call's at once (a 2025-11-25 session that closes cancels its calls).

A tab an agent opened for itself (page_open) is its own: no other agent acts there, and asking does not wait (the
owner keeps it until OWN_IDLE s after its last acting call there, or until its run finishes)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from bridge.errors import BridgeError

#: Seconds a lease outlives its holder's last acting call (the next step of the same agent keeps the tab).
TAIL = 2.0
#: Seconds another agent's acting call waits for a lease before answering [page_busy]: longer than the tail, so a
#: call that comes just after another agent's gets the tab once that agent has stopped acting.
WAIT = 5.0
#: Seconds an agent's own tab (page_open) stays its own after the agent's last acting call there.
OWN_IDLE = 600.0


@dataclass
class Lease:
    tab: str
    holder: Any  # the agent's key (bridge.server.agents.identity)
    name: str  # as the cockpit names the agent
    tool: str
    #: Acting calls of the holder in flight on this tab.
    calls: int = 0
    #: When it ends once no call is in flight (time.time()).
    until: float = 0.0
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    #: The holder opened this tab for itself (page_open): it stays theirs OWN_IDLE s after their last call.
    own: bool = False
    #: The tab (registry instance) it owns: an id given again to another tab later is not the owned one.
    tab_obj: Any = None

    @property
    def live(self) -> bool:
        return self.calls > 0 or time.time() < self.until

    def said(self) -> str:
        if self.own:
            return (f"it opened this tab for itself with page_open; it stays theirs until {OWN_IDLE / 60:g} min "
                    "after their last act there")
        if self.calls:
            return f"its {self.tool} call is running; the lease ends {TAIL:g} s after it"
        return f"until {time.strftime('%H:%M:%S', time.localtime(self.until))}"

    def row(self) -> dict[str, Any]:
        return {"tab": self.tab, "agent": self.name, "tool": self.tool, "running": self.calls > 0,
                "until": None if self.calls else self.until, "own": self.own}

    def poke(self) -> None:
        """Wake whoever waits on this lease (a call ended, or it was released)."""
        self.changed.set()
        self.changed = asyncio.Event()


class Leases:
    def __init__(self, tail: float = TAIL, wait: float = WAIT) -> None:
        self.tail, self.wait = tail, wait
        self._by_tab: dict[str, Lease] = {}
        #: Acting calls waiting for another agent's lease now.
        self.waiting = 0

    def holder(self, tab: str) -> Lease | None:
        lease = self._by_tab.get(tab)
        if lease is not None and not lease.live:
            del self._by_tab[tab]
            return None
        return lease

    @asynccontextmanager
    async def acting(self, tab: str, holder: Any, name: str, tool: str, tab_obj: Any = None) -> AsyncIterator[Lease]:
        """Hold `tab` for one acting call (waiting, bounded, for another agent's lease to end); `tab_obj`: the tab
        as the registry holds it now."""
        stale = self._by_tab.get(tab)
        if stale is not None and stale.own and tab_obj is not None and stale.tab_obj not in (None, tab_obj):
            del self._by_tab[tab]  # owned a tab that is gone: its id was given to another
        lease = await self._take(tab, holder, name, tool)
        cancelled = False
        try:
            yield lease
        except asyncio.CancelledError:  # the call was cancelled (its session closed, the client hung up, a run
            cancelled = True  # was cancelled): no tail, the tab is free at once
            raise
        finally:
            lease.calls -= 1
            if lease.calls == 0:
                if lease.own:  # an own tab stays the owner's, a cancelled call's too
                    lease.until = time.time() + OWN_IDLE
                elif cancelled:
                    lease.until = 0.0
                    if self._by_tab.get(tab) is lease:
                        del self._by_tab[tab]
                else:
                    lease.until = time.time() + self.tail
            lease.poke()

    async def _take(self, tab: str, holder: Any, name: str, tool: str) -> Lease:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.wait
        while True:
            lease = self.holder(tab)
            if lease is None or lease.holder == holder:
                if lease is None:
                    lease = self._by_tab[tab] = Lease(tab, holder, name, tool)
                lease.calls += 1
                lease.tool = tool
                return lease
            left = deadline - loop.time()
            if lease.own:  # another agent's own tab: waiting would not free it
                raise BridgeError(f"Tab {tab} is another agent's own tab: {lease.name!r} ({lease.said()}). Work in "
                                  "another tab (page_list), or open one of your own with page_open.",
                                  code="page_busy")
            if left <= 0:
                raise BridgeError(f"Tab {tab} is in use by another agent, {lease.name!r} ({lease.said()}); it was "
                                  f"still busy after {self.wait:g} s. Retry after that, or work in another tab "
                                  "(page_list).", code="page_busy")
            if not lease.calls:  # idle: it ends at `until`, or sooner if released
                left = min(left, max(0.0, lease.until - time.time()) + 0.01)
            self.waiting += 1
            try:
                await asyncio.wait_for(lease.changed.wait(), left)
            except TimeoutError:
                pass
            finally:
                self.waiting -= 1

    def own(self, tab: str, holder: Any, name: str, tab_obj: Any = None) -> Lease:
        """Make `tab` the holder's own (it opened it with page_open): other agents' acting calls there answer
        [page_busy] at once until OWN_IDLE s after the holder's last acting call there."""
        lease = self._by_tab.get(tab)
        if lease is None or lease.holder != holder:
            lease = self._by_tab[tab] = Lease(tab, holder, name, "page_open")
        lease.own, lease.tab_obj = True, tab_obj
        lease.until = time.time() + OWN_IDLE
        lease.poke()
        return lease

    def release(self, holder: Any) -> None:
        """End every lease of `holder` (its run finished, its session closed)."""
        for tab, lease in list(self._by_tab.items()):
            if lease.holder == holder:
                del self._by_tab[tab]
                lease.until = 0.0
                lease.poke()

    def rows(self) -> list[dict[str, Any]]:
        return [lease.row() for tab in list(self._by_tab) if (lease := self.holder(tab)) is not None]
