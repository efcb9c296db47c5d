"""Shared consent approvals: "Allow on this origin" given in any replica's page or cockpit holds on every replica.

The team bridge's `Shared.approvals` (bridge/shared/seam.py) (the set consent reads and adds to): adding publishes the pair (and keeps it in a Redis set for
replicas that join later); pairs other replicas approved are added here without publishing again."""

from __future__ import annotations

import json
import logging
from typing import Any

from bridge.cluster import redis_state as keys
from bridge.cluster.bus import DOWN, Bus
from bridge.cluster.messages import Approval

log = logging.getLogger("bridge.cluster")

APPROVALS = keys.PREFIX + "approvals"


class SharedApprovals(set):  # type: ignore[type-arg]
    def __init__(self, bus: Bus, spawn: Any, initial: set[tuple[str, str]]) -> None:
        super().__init__(initial)
        self.bus, self.spawn = bus, spawn

    def add(self, pair: tuple[str, str]) -> None:
        if pair in self:
            return
        super().add(pair)
        self.spawn(self._share(pair))

    async def _share(self, pair: tuple[str, str]) -> None:
        raw = json.dumps(list(pair))
        try:
            await self.bus.redis.sadd(APPROVALS, raw)
            await self.bus.publish(None, Approval(pair=pair))
        except Exception as exc:  # cluster_unavailable: it holds on this replica
            log.info("cluster: consent approval not shared: %s", exc)

    def handle(self, msg: Approval) -> None:
        super().add(msg.pair)

    async def resync(self) -> None:
        try:
            for raw in await self.bus.redis.smembers(APPROVALS):
                pair = json.loads(raw)
                if isinstance(pair, list) and len(pair) == 2:
                    super().add((str(pair[0]), str(pair[1])))
            for pair in list(self):  # a restarted Redis forgot ours
                await self.bus.redis.sadd(APPROVALS, json.dumps(list(pair)))
        except DOWN as exc:
            self.bus.went_down(exc)
