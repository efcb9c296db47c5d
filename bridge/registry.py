"""Connected pages: pageId = instanceId/frameId, stable across reloads, distinct per tab, kept for a TTL."""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import os
import random
import secrets
import string
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

from bridge.protocol import INSTANCE_ID_RE, PAGE_ID_RE, FrameInfo, RegisterRequest

log = logging.getLogger("bridge.registry")

State = Literal["live", "reconnecting", "unloading"]

#: Written this long after the set of reserved ids changed (a burst of registrations is one write).
SAVE_DELAY = 0.2


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
    #: The page's document is still parsing: frames it has not listed yet may still appear.
    frames_pending: bool = False

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
        #: Where the reserved ids are kept across restarts (ids, urls and frame lists; never a secret).
        self.store: Path | None = None
        self._save_pending = False

    # ---- across restarts ------------------------------------------------------------------

    def persist_to(self, path: Path) -> int:
        """Load the ids a previous bridge process had reserved (they wait, disconnected, for their tabs to come
        back), and keep the file up to date from now on. Returns how many were restored."""
        self.store = path
        try:
            data = json.loads(path.read_text())
            rows = data["pages"] if isinstance(data, dict) else []
        except (OSError, ValueError, KeyError, TypeError):
            return 0
        restored = 0
        for row in rows if isinstance(rows, list) else []:
            try:
                iid = str(row["id"])
                frames = [FrameInfo.model_validate(f) for f in row.get("frames", [])]
            except (KeyError, TypeError, ValueError):
                continue
            if not INSTANCE_ID_RE.match(iid) or iid in self.instances:
                continue
            # No secret yet: the first tab that registers under this id with its own stored secret takes it.
            self.instances[iid] = Instance(id=iid, secret="", url=str(row.get("url", ""))[:4096],
                                           title=str(row.get("title", ""))[:4096], origin=str(row.get("origin", ""))[:4096],
                                           attach=str(row.get("attach", "script"))[:64],
                                           frames={f.frameId: f for f in frames}, frames_pending=True)
            restored += 1
        return restored

    def _ids_changed(self) -> None:
        if self.store is None or self._save_pending:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.save()
            return
        self._save_pending = True
        loop.call_later(SAVE_DELAY, self.save)

    def save(self) -> None:
        self._save_pending = False
        if self.store is None:
            return
        rows = [{"id": i.id, "url": i.url, "title": i.title, "origin": i.origin, "attach": i.attach,
                 "frames": [f.model_dump() for f in i.frames.values()]} for i in self.instances.values()]
        tmp = self.store.with_suffix(".tmp")
        try:
            self.store.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as f:
                json.dump({"v": 1, "pages": rows}, f)
            os.replace(tmp, self.store)
        except OSError as exc:
            log.warning("could not save the reserved page ids to %s: %s", self.store, exc)
            with contextlib.suppress(OSError):
                tmp.unlink()

    # ---- registration ---------------------------------------------------------------------

    def register(self, req: RegisterRequest) -> tuple[Instance, bool]:
        """Give a page its instance: its old one back when it proves it owns it, else a fresh one.

        Returns the instance and whether the page asked for a different id than it got.
        """
        asked = req.instanceId
        if asked and req.secret:
            inst = self.instances.get(asked)
            if inst is None:
                # The id expired (or the bridge restarted without its store): the page's id is free, so it gets it back.
                inst = Instance(id=asked, secret=req.secret)
                self.instances[asked] = inst
                self._ids_changed()
                return self._describe(inst, req), False
            if not inst.secret:
                # Reserved by the previous bridge process, which kept no secrets: the tab's stored one is its claim.
                inst.secret = req.secret
                return self._describe(inst, req), False
            if hmac.compare_digest(inst.secret, req.secret) and (not inst.live or req.reclaim):
                return self._describe(inst, req), False
        inst = Instance(id=self._fresh_id(req.port), secret=secrets.token_urlsafe(32))
        self.instances[inst.id] = inst
        self._ids_changed()
        return self._describe(inst, req), asked is not None

    def _describe(self, inst: Instance, req: RegisterRequest) -> Instance:
        inst.url, inst.title, inst.origin, inst.attach = req.url, req.title, req.origin, req.attach
        inst.frames = {f.frameId: f for f in req.frames}
        inst.frames_pending = not req.complete
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
        if inst is None or not inst.secret or not hmac.compare_digest(inst.secret.encode(), secret.encode()):
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

    def update_frames(self, inst: Instance, frames: list[FrameInfo], url: str | None, title: str | None,
                      complete: bool = True) -> None:
        before = set(inst.frames)
        inst.frames = {f.frameId: f for f in frames}
        inst.frames_pending = not complete
        if set(inst.frames) != before:
            self._ids_changed()
        inst.notify()
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
            self._ids_changed()
        return gone

    def forget(self, inst: Instance) -> None:
        """Drop a disconnected page now, as if its TTL had run out (the cockpit's "forget")."""
        if self.instances.get(inst.id) is inst:
            del self.instances[inst.id]
            inst.notify()
            self._changed()
            self._ids_changed()

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
