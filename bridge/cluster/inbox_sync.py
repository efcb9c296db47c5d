"""The shared inbox: one capped Redis stream with integer ids (stream ids 0-N), so a cursor from any replica is
valid on every other. Each replica keeps its local Inbox as a read model fed by the broadcast (in id order) and
back-filled from the stream after a reconnect; writes go through Redis. Items added while Redis is down wait in a
backlog and get their ids when it is back."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from bridge.cluster import redis_state as keys
from bridge.cluster.bus import DOWN, Bus
from bridge.cluster.messages import InboxItem, Mark
from bridge.human.inbox import Inbox, Item

log = logging.getLogger("bridge.cluster")


def _encode(item: Item) -> str:
    return json.dumps({"kind": item.kind, "text": item.text, "source": item.source, "pageId": item.pageId,
                       "data": item.data,
                       "time": item.time}, separators=(",", ":"), ensure_ascii=False, default=str)


class InboxSync:
    def __init__(self, bus: Bus, inbox: Inbox) -> None:
        self.bus, self.inbox = bus, inbox
        self.script = bus.redis.register_script(keys.INBOX_ADD)
        self.backlog: list[Item] = []
        self.limit = inbox.items.maxlen or 5000
        self._held: set[asyncio.Task[Any]] = set()
        self._adding: dict[int, asyncio.Task[Any]] = {}

    @property
    def last_id(self) -> int:
        return self.inbox.next_id - 1

    def take(self, item: Item) -> bool:
        """A new inbox item goes through Redis, which gives it its cluster-wide id (every replica appends it)."""
        item.id = 0  # given by Redis
        self.add(item)
        return True

    def add(self, item: Item) -> None:
        """Inbox.add in cluster mode: give the item its cluster-wide id; every replica appends it on the broadcast."""
        task = self.bus_task(self._add(item))
        self._adding[id(item)] = task
        task.add_done_callback(lambda _t, key=id(item): self._adding.pop(key, None))

    async def settled(self, item: Item, timeout: float = 5.0) -> int | None:
        """The cluster id of an item just added (None while Redis is down: it waits in the backlog)."""
        task = self._adding.get(id(item))
        if task is not None:
            try:
                await asyncio.wait_for(asyncio.shield(task), timeout)
            except TimeoutError:
                return None
        return item.id or None

    def bus_task(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro)
        self._held.add(task)
        task.add_done_callback(self._held.discard)
        return task

    async def _add(self, item: Item) -> None:
        try:
            item.id = int(await self.script(args=[keys.PREFIX, self.limit, _encode(item)]))
        except DOWN as exc:
            self.bus.went_down(exc)
            self.backlog.append(item)

    def handle(self, msg: InboxItem | Mark) -> None:
        if isinstance(msg, Mark):
            ids = set(msg.ids)
            for item in self.inbox.items:
                if item.id in ids:
                    item.status = msg.status  # type: ignore[assignment]
            return
        iid = msg.id
        if iid <= self.last_id:
            return
        if iid > self.last_id + 1 and self.last_id > 0:
            self.bus_task(self.resync())  # we missed some: read them from the stream (the gap is filled in order)
            return
        self._append(iid, msg.item or "{}")

    def _append(self, iid: int, raw: str, status: str = "new") -> None:
        try:
            data = json.loads(raw)
        except ValueError:
            data = {}
        source = data.get("source") if data.get("source") in ("human", "page", "bridge") else "page"
        item = Item(iid, str(data.get("kind", "message")), str(data.get("text", "")), source, data.get("pageId"),
                    data.get("data") or {}, float(data.get("time") or 0), status)  # type: ignore[arg-type]
        self.inbox.insert(item)

    async def resync(self) -> None:
        """Back-fill from the stream everything after our last id (all of it, capped, on first start)."""
        try:
            for item in self.backlog[:]:
                await self._add(item)
                self.backlog.remove(item)
            start = f"(0-{self.last_id}" if self.last_id else "-"
            while True:
                got = await self.bus.redis.xrange(keys.INBOX, start, "+", count=500)
                if not got:
                    return
                ids = [int(sid.split("-")[1]) for sid, _ in got]
                statuses = await self.bus.redis.hmget(keys.INBOX_STATUS, [str(i) for i in ids])
                for (sid, fields), iid, status in zip(got, ids, statuses):
                    if iid > self.last_id:
                        self._append(iid, fields.get("item", "{}"), status or "new")
                start = f"({got[-1][0]}"
        except DOWN as exc:
            self.bus.went_down(exc)

    def mark(self, ids: list[int], status: str) -> None:
        """Inbox.mark in cluster mode: every replica's copy changes; the stored status outlives restarts."""
        self.bus_task(self._mark(ids, status))

    async def _mark(self, ids: list[int], status: str) -> None:
        try:
            if ids:
                await self.bus.redis.hset(keys.INBOX_STATUS, mapping={str(i): status for i in ids})
            await self.bus.publish(None, Mark(ids=ids, status=status))
        except Exception as exc:  # cluster_unavailable: the local mark stands
            log.info("cluster: inbox mark not shared: %s", exc)
