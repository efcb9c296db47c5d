"""Pages owned by other replicas, as this replica sees them: `RemoteInstance`s that tools address like local ones.

A remote instance's `conn` is a `RemoteConnection`: sending a frame on it publishes the frame to the owner replica,
which writes it to the page. The mirror follows the page events every owner publishes, and is rebuilt from the
instance keys whenever the subscriber (re)connects and every few seconds (pub/sub drops what it cannot deliver).
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from bridge.pages.protocol import DevInfo, FrameInfo
from bridge.pages.registry import Instance


class RemoteConnection:
    """The channel to a page through its owner replica."""

    def __init__(self, owner: str, kind: str, send: Callable[[str, str, str], Awaitable[None]], iid: str) -> None:
        self.owner, self.kind, self._send, self.iid = owner, kind, send, iid
        self.epoch = 0

    async def send(self, text: str) -> None:
        await self._send(self.owner, self.iid, text)

    def close(self) -> None:
        pass


@dataclass(eq=False)
class RemoteInstance(Instance):
    owner: str = ""
    epoch: int = 0
    secret_hash: str = field(default="", repr=False)
    #: When a page event last changed it (monotonic): a snapshot read before that is older than what we know.
    updated: float = 0.0


def parse_info(raw: str | None) -> dict[str, Any]:
    try:
        info = json.loads(raw or "{}")
    except ValueError:
        return {}
    return info if isinstance(info, dict) else {}


def frames_of(info: dict[str, Any]) -> dict[str, FrameInfo]:
    out: dict[str, FrameInfo] = {}
    for f in info.get("frames") or []:
        try:
            frame = FrameInfo.model_validate(f)
        except ValueError:
            continue
        out[frame.frameId] = frame
    return out


def dev_of(info: dict[str, Any]) -> DevInfo | None:
    """The page's dev-server updates as its owner recorded them (None: none, or not readable)."""
    try:
        return DevInfo.model_validate(info["dev"]) if isinstance(info.get("dev"), dict) else None
    except ValueError:
        return None


class Mirror:
    def __init__(self, me: str, send: Callable[[str, str, str], Awaitable[None]],
                 on_lost: Callable[[RemoteInstance, str], None]) -> None:
        self.me = me
        self.send = send
        #: Called with (instance, why) when a remote page a caller may wait on goes away: disconnected, unloading,
        #: reloaded, moved or gone. The cluster fails that page's waiters with today's named error.
        self.on_lost = on_lost
        self.instances: dict[str, RemoteInstance] = {}
        self.dead: set[str] = set()

    def get(self, iid: str) -> RemoteInstance | None:
        return self.instances.get(iid)

    def apply(self, iid: str, owner: str, epoch: int, state: str, since_ms: float, info_raw: str | None,
              sh: str | None = None, read_at: float | None = None) -> RemoteInstance | None:
        """One page event, or a record read back at `read_at` (monotonic; skipped if an event was applied since):
        create or update the instance. None if it is ours."""
        inst = self.instances.get(iid)
        if read_at is not None and inst is not None and inst.updated > read_at:
            return inst
        if owner == self.me:
            if inst is not None:
                self.drop(iid, "moved")
            return None
        if inst is not None and epoch < inst.epoch:
            return inst  # a late event from before a reclaim
        info = parse_info(info_raw)
        connected = state in ("live", "unloading") and owner not in self.dead
        if inst is None:
            inst = RemoteInstance(id=iid, secret="", owner=owner, epoch=epoch)
            self.instances[iid] = inst
        else:
            was_live = inst.conn is not None
            if was_live and (not connected or inst.owner != owner):
                self.on_lost(inst, "disconnected")
            elif was_live and state == "unloading" and inst.state != "unloading":
                self.on_lost(inst, "unloading")
            elif was_live and epoch != inst.epoch:
                self.on_lost(inst, "reloaded")
        inst.owner, inst.epoch = owner, epoch
        if read_at is None:
            inst.updated = time.monotonic()
        if sh:
            inst.secret_hash = sh
        if info:
            inst.url, inst.title = info.get("url", ""), info.get("title", "")
            inst.origin, inst.attach = info.get("origin", ""), info.get("attach", "script")
            inst.verified_origin = info.get("verified", "")
            inst.frames = frames_of(info)
            inst.generation, inst.dev = int(info.get("generation") or 0), dev_of(info)
        inst.state = state if connected else "reconnecting"  # type: ignore[assignment]
        kind = str(info.get("channel") or "ws")
        old = inst.conn
        if not connected:
            inst.conn = None
        elif not isinstance(old, RemoteConnection) or old.owner != owner or old.epoch != epoch:
            # A new connection object only for a new channel (page_navigate waits for the page on a new one).
            inst.conn = RemoteConnection(owner, kind, self.send, iid)
            inst.conn.epoch = epoch
        inst.last_seen = since_ms / 1000 if since_ms else time.time()
        if not connected:
            # The reservation clock: since it went away, as the owner recorded it.
            inst.since = time.monotonic() - max(0.0, time.time() - inst.last_seen)
        inst.notify()
        return inst

    def drop(self, iid: str, why: str = "gone") -> None:
        inst = self.instances.pop(iid, None)
        if inst is not None:
            if inst.conn is not None:
                self.on_lost(inst, why)
            inst.conn = None
            inst.notify()

    def owner_died(self, owner: str) -> list[RemoteInstance]:
        """A replica's liveness key expired: its pages are reconnecting (to some replica) from now on."""
        self.dead.add(owner)
        hit = [i for i in self.instances.values() if i.owner == owner and i.conn is not None]
        for inst in hit:
            self.on_lost(inst, "owner_died")
            inst.conn, inst.state = None, "reconnecting"
            inst.since = time.monotonic()
            inst.notify()
        return hit

    def owners(self) -> set[str]:
        return {i.owner for i in self.instances.values()}
