"""Replica liveness: this replica's key refreshed twice a second (TTL 2 s), its pages' keys refreshed while it
lives, and a watch on the replicas that own pages we may call, so a dead owner's callers fail within ~2.5 s."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from bridge.cluster import redis_state as keys
from bridge.cluster.bus import DOWN, Bus
from bridge.cluster.messages import ReplicaDown

log = logging.getLogger("bridge.cluster")

BEAT = 0.5
REPLICA_TTL_MS = 2000


class Liveness:
    def __init__(self, bus: Bus, rid: str, base: str, page_ttl: float, live_ids: Callable[[], list[str]],
                 owners: Callable[[], set[str]], died: Callable[[str], None]) -> None:
        self.bus, self.rid, self.base = bus, rid, base
        self.ttl_ms = int(page_ttl * 1000)
        self.refresh_every = min(5.0, page_ttl / 4)
        self.live_ids, self.owners, self.died = live_ids, owners, died
        #: When Redis last came back: owners are only declared dead after a full replica TTL of being reachable
        #: (a restarted Redis has no keys until each replica's next beat).
        self.up_since = time.monotonic()
        #: The live replicas' page-channel URLs as last read, and when (read at most once a beat).
        self._urls: tuple[float, list[str]] = (0.0, [base])

    async def urls(self) -> list[str]:
        """Every live replica's page-channel URL, this replica's first; only this one's while Redis is away."""
        read_at, urls = self._urls
        if time.monotonic() - read_at < BEAT:
            return urls
        found = [self.base]
        try:
            names = [k async for k in self.bus.redis.scan_iter(match=keys.replica_key("*"), count=500)]
            values = await self.bus.redis.mget(names) if names else []
        except DOWN as exc:
            self.bus.went_down(exc)
            values = []
        for v in values:
            url = v.decode() if isinstance(v, bytes) else v
            if url and url not in found:
                found.append(url)
        self._urls = (time.monotonic(), found)
        return found

    async def beat_once(self) -> None:
        await self.bus.redis.set(keys.replica_key(self.rid), self.base, px=REPLICA_TTL_MS)

    async def run(self) -> None:
        last_refresh = 0.0
        while True:
            try:
                await self.beat_once()
                now = time.monotonic()
                if now - last_refresh >= self.refresh_every:
                    last_refresh = now
                    await self._refresh_pages()
                if self.bus.up and now - self.up_since > REPLICA_TTL_MS / 1000 + BEAT:
                    await self._watch()
            except DOWN as exc:
                self.bus.went_down(exc)
            await asyncio.sleep(BEAT)

    async def _refresh_pages(self) -> None:
        ids = self.live_ids()
        for start in range(0, len(ids), 500):
            async with self.bus.redis.pipeline(transaction=False) as pipe:
                for iid in ids[start:start + 500]:
                    pipe.pexpire(keys.inst_key(iid), self.ttl_ms)
                await pipe.execute()

    async def _watch(self) -> None:
        owners = sorted(self.owners() - {self.rid})
        if not owners:
            return
        alive = await self.bus.redis.exists(*[keys.replica_key(o) for o in owners]) if len(owners) == 1 else None
        if alive is not None:
            if not alive:
                self.died(owners[0])
            return
        async with self.bus.redis.pipeline(transaction=False) as pipe:
            for o in owners:
                pipe.exists(keys.replica_key(o))
            found = await pipe.execute()
        for owner, there in zip(owners, found):
            if not there:
                self.died(owner)

    async def leave(self) -> None:
        """A clean stop: say so at once, so callers need not wait for the key to expire."""
        try:
            await self.bus.redis.delete(keys.replica_key(self.rid))
            await self.bus.publish(None, ReplicaDown(rid=self.rid))
        except Exception:  # best effort on the way out
            pass
