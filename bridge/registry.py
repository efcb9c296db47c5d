"""Connected pages: pageId = instanceId/frameId, stable across reloads, distinct per tab, kept for a TTL."""

from __future__ import annotations

import asyncio
import hmac
import random
import secrets
import string
import time
from dataclasses import dataclass, field
from typing import Literal, Protocol

from bridge.protocol import PAGE_ID_RE, FrameInfo, RegisterRequest

State = Literal["live", "reconnecting", "unloading"]


class Connection(Protocol):
    """A live channel down to one page (an SSE stream or a WebSocket)."""

    kind: str

    async def send(self, text: str) -> None: ...

    def close(self) -> None: ...


@dataclass(eq=False)
class Instance:
    """One tab (or top-level document) running the client; its frames hang off it."""

    id: str
    secret: str = field(repr=False)
    url: str = ""
    title: str = ""
    origin: str = ""
    attach: str = "script"
    frames: dict[str, FrameInfo] = field(default_factory=dict)
    conn: Connection | None = None
    state: State = "reconnecting"
    last_seen: float = field(default_factory=time.time)
    since: float = field(default_factory=time.monotonic)
    changed: asyncio.Event = field(default_factory=asyncio.Event, repr=False)

    @property
    def live(self) -> bool:
        return self.conn is not None and self.state == "live"

    def touch(self) -> None:
        self.last_seen = time.time()

    def notify(self) -> None:
        """Wake everyone waiting for this instance to change state."""
        self.changed.set()
        self.changed = asyncio.Event()


class Registry:
    def __init__(self, ttl: float) -> None:
        self.ttl = ttl
        self.instances: dict[str, Instance] = {}
        self.changed = asyncio.Event()

    # ---- registration ---------------------------------------------------------------------

    def register(self, req: RegisterRequest) -> tuple[Instance, bool]:
        """Give a page its instance: its old one back when it proves it owns it, else a fresh one.

        Returns the instance and whether the page asked for a different id than it got.
        """
        asked = req.instanceId
        if asked and req.secret:
            inst = self.instances.get(asked)
            if inst is None:
                # The bridge restarted (or the id expired): the page's id is free, so it gets it back.
                inst = Instance(id=asked, secret=req.secret)
                self.instances[asked] = inst
                return self._describe(inst, req), False
            if hmac.compare_digest(inst.secret, req.secret) and (not inst.live or req.reclaim):
                return self._describe(inst, req), False
        inst = Instance(id=self._fresh_id(req.port), secret=secrets.token_urlsafe(32))
        self.instances[inst.id] = inst
        return self._describe(inst, req), asked is not None

    def _describe(self, inst: Instance, req: RegisterRequest) -> Instance:
        inst.url, inst.title, inst.origin, inst.attach = req.url, req.title, req.origin, req.attach
        inst.frames = {f.frameId: f for f in req.frames}
        inst.since = time.monotonic()  # its reservation restarts: it is about to connect
        inst.touch()
        self._changed()
        return inst

    def _fresh_id(self, port: int | None) -> str:
        if port is not None and str(port) not in self.instances:
            return str(port)
        while True:
            candidate = "".join(random.choices(string.ascii_lowercase, k=2)) + f"{random.randrange(1000):03d}"
            if candidate not in self.instances:
                return candidate

    def authenticate(self, instance_id: str, secret: str) -> Instance | None:
        inst = self.instances.get(instance_id)
        # Bytes: compare_digest raises on non-ASCII str, and a secret comes straight from a query string.
        if inst is None or not hmac.compare_digest(inst.secret.encode(), secret.encode()):
            return None
        return inst

    # ---- connection state -----------------------------------------------------------------

    def attach(self, inst: Instance, conn: Connection) -> None:
        old = inst.conn
        inst.conn, inst.state = conn, "live"
        inst.touch()
        inst.notify()
        self._changed()
        if old is not None and old is not conn:
            old.close()

    def detach(self, inst: Instance, conn: Connection) -> bool:
        """Forget `conn` if it is still the page's channel; True if the page is now disconnected."""
        if inst.conn is not conn:
            return False
        inst.conn = None
        inst.state = "reconnecting"  # also after 'unloading': a closed tab must not stay 'unloading' for its TTL
        inst.since = time.monotonic()
        inst.touch()
        inst.notify()
        self._changed()
        return True

    def unloading(self, inst: Instance) -> None:
        # A goodbye that arrives after the channel dropped (SSE: the beacon races the stream) changes nothing shown.
        inst.state = "unloading" if inst.conn is not None else "reconnecting"
        inst.since = time.monotonic()
        inst.notify()
        self._changed()

    def update_frames(self, inst: Instance, frames: list[FrameInfo], url: str | None, title: str | None) -> None:
        inst.frames = {f.frameId: f for f in frames}
        if url is not None:
            inst.url = url
        if title is not None:
            inst.title = title
        inst.touch()
        self._changed()

    def sweep(self) -> list[Instance]:
        """Drop pages that have been gone longer than the TTL."""
        now = time.monotonic()
        gone = [i for i in self.instances.values() if not i.live and now - i.since > self.ttl]
        for inst in gone:
            del self.instances[inst.id]
            inst.notify()
        if gone:
            self._changed()
        return gone

    def forget(self, inst: Instance) -> None:
        """Drop a disconnected page now, as if its TTL had run out (the cockpit's "forget")."""
        if self.instances.get(inst.id) is inst:
            del self.instances[inst.id]
            inst.notify()
            self._changed()

    def expires_in(self, inst: Instance) -> float | None:
        return None if inst.live else max(0.0, self.ttl - (time.monotonic() - inst.since))

    def _changed(self) -> None:
        self.changed.set()
        self.changed = asyncio.Event()

    # ---- lookup ---------------------------------------------------------------------------

    def live_page_ids(self) -> list[str]:
        out = []
        for inst in self.instances.values():
            if inst.live:
                out.append(f"{inst.id}/host")
                out.extend(f"{inst.id}/{f}" for f in inst.frames if f != "host")
        return out

    def page_rows(self) -> list[dict]:
        """What `page_list` and GET /bridge/sessions show: every page and frame, never a secret."""
        rows: list[dict] = []
        for inst in self.instances.values():
            expires = self.expires_in(inst)
            state = inst.state if expires is None else f"{inst.state} (expires in {expires:.0f} s)"
            base = {
                "state": state,
                "lastSeen": round(inst.last_seen, 3),
                "channel": inst.conn.kind if inst.conn else None,
                "attach": inst.attach,
            }
            rows.append({"pageId": f"{inst.id}/host", "url": inst.url, "title": inst.title,
                         "origin": inst.origin, "parent": None, "crossOrigin": False, **base})
            for fid, f in inst.frames.items():
                if fid == "host":
                    continue
                rows.append({"pageId": f"{inst.id}/{fid}", "url": f.url, "title": f.title, "origin": f.origin,
                             "parent": f"{inst.id}/{f.parent or 'host'}", "crossOrigin": f.crossOrigin, **base})
        return rows


def split_page_id(page_id: str) -> tuple[str, str] | None:
    m = PAGE_ID_RE.match(page_id.strip())
    if not m:
        return None
    return m.group("instance"), m.group("frame") or "host"
