"""Connected pages: pageId = instanceId/frameId, stable across reloads, distinct per tab, kept for a TTL."""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import itertools
import json
import logging
import os
import random
import re
import secrets
import string
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol
from urllib.parse import urlsplit

from bridge.pages.protocol import INSTANCE_ID_RE, PAGE_ID_RE, DevInfo, FrameInfo, RegisterRequest

log = logging.getLogger("bridge.pages.registry")

State = Literal["live", "reconnecting", "unloading"]

#: Written this long after the set of reserved ids changed (a burst of registrations is one write).
SAVE_DELAY = 0.2
#: Creation order of instances (page_list's cursor: a registry's dict is in this order too).
_ORDER = itertools.count(1)
#: How many of a page's latest eventIds are remembered (the page retries an event for minutes at most, and a human
#: sends a few a minute).
EVENTS_REMEMBERED = 512


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
    #: The origin the browser proved: the Origin header of the register request ("" for a client that is not a
    #: browser and sent none). The page's channel and messages must come from it; consent approvals are keyed by it.
    verified_origin: str = ""
    attach: str = "script"
    frames: dict[str, FrameInfo] = field(default_factory=dict)
    conn: Connection | None = None
    state: State = "reconnecting"
    last_seen: float = field(default_factory=time.time)
    since: float = field(default_factory=time.monotonic)
    changed: asyncio.Event = field(default_factory=asyncio.Event, repr=False)
    #: The page's document is still parsing: frames it has not listed yet may still appear.
    frames_pending: bool = False
    #: It held a channel at least once: a closed tab's reservation is not a registration flood.
    ever_connected: bool = False
    #: Creation order: page_list pages by it (`cursor` is the last one a page of the list showed).
    seq: int = field(default_factory=lambda: next(_ORDER), repr=False)
    #: Where the tab said it was navigating when it last left (bye), and when (monotonic); cleared when it is back.
    left_to: str | None = None
    left_at: float | None = None
    #: When (monotonic) its document said a navigation away from it started; None once a document is back, or it
    #: said the navigation went nowhere. New calls wait for the next document meanwhile (bounded).
    leaving_since: float | None = None
    #: The document that registered last under this id (its own random id; None for a client that sends none).
    doc: str | None = None
    #: The how-manieth document of the tab registered last (reloads and same-origin navigations count; 0: the
    #: client did not say).
    generation: int = 0
    #: Its dev server's hot updates, counted across the tab's documents (None: no dev server client seen).
    dev: DevInfo | None = None
    #: The eventIds of the page's latest events, oldest first: a retried event is taken once (bounded).
    events_seen: dict[str, None] = field(default_factory=dict, repr=False)
    #: The WebMCP tools its document registered (bridge/pages/webmcp.py Catalog; None: it never said), gone with the
    #: page.
    webmcp: Any = field(default=None, repr=False)
    #: The bridge's own acts under way in this tab (their input may be trusted: the extension's), and when
    #: (monotonic) the last one ended: a page's answer meanwhile is not a human's (bridge/human/events.py).
    bridge_input: int = field(default=0, repr=False)
    bridge_input_at: float = field(default=0.0, repr=False)

    @property
    def live(self) -> bool:
        return self.conn is not None and self.state == "live"

    def touch(self) -> None:
        self.last_seen = time.time()

    def first_sight(self, event_id: str) -> bool:
        """True the first time this page's event `event_id` arrives, False for the copies a retry sends."""
        if event_id in self.events_seen:
            return False
        self.events_seen[event_id] = None
        if len(self.events_seen) > EVENTS_REMEMBERED:
            del self.events_seen[next(iter(self.events_seen))]
        return True

    def notify(self) -> None:
        """Wake everyone waiting for this instance to change state."""
        self.changed.set()
        self.changed = asyncio.Event()


class OriginMismatch(ValueError):
    """What a page claims about where it runs differs from what its browser proved."""


class TooManyPages(ValueError):
    """One origin registered too many pages that never connected (a flood)."""


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def port_of(origin: str) -> int | None:
    """The explicit port of an origin (None for a default port: such pages get a random id, as before)."""
    try:
        return urlsplit(origin).port
    except ValueError:
        return None


def url_origin(url: str) -> str | None:
    """The origin a document at `url` has, when the url says (about:blank and about:srcdoc inherit theirs)."""
    if url.startswith("blob:"):
        url = url[5:]
    if url.startswith("about:"):
        return None
    return origin_of(url)


def check_claims(req: RegisterRequest, origin: str) -> None:
    """A page's url and origin must be those of the origin its browser sent (nothing to compare without one)."""
    if not origin:
        return
    if req.origin and req.origin.lower() != origin.lower():
        raise OriginMismatch(f"the page claims origin {req.origin[:200]} but its browser sent {origin}")
    if req.url and url_origin(req.url) not in (None, origin.lower()):
        raise OriginMismatch(f"the page claims url {req.url[:200]} but its browser sent origin {origin}")
    if req.port is not None and req.port != port_of(origin):
        raise OriginMismatch(f"the page claims port {req.port} but its browser sent origin {origin}")


def claimed_url_ok(inst: Instance, url: str | None) -> bool:
    """A later url update (a frames message) must stay on the instance's verified origin."""
    return not url or not inst.verified_origin or url_origin(url) in (None, inst.verified_origin.lower())


class Registry:
    def __init__(self, ttl: float, max_pending: int = 256,
                 on_change: Callable[[Instance, bool], None] | None = None) -> None:
        self.ttl = ttl
        self.max_pending = max_pending
        self.instances: dict[str, Instance] = {}
        self.changed = asyncio.Event()
        #: Where the reserved ids are kept across restarts (ids, urls and frame lists; never a secret).
        self.store: Path | None = None
        self._save_pending = False
        #: Told of every change to an instance (and `gone=True` when it is dropped): the shared state, which a
        #: team bridge writes to Redis.
        self.on_change = on_change

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
            # No secret yet: the first tab of the same verified origin that asks for this id takes it.
            self.instances[iid] = Instance(id=iid, secret="", url=str(row.get("url", ""))[:4096],
                                           verified_origin=str(row.get("verified", ""))[:4096],
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
        rows = [{"id": i.id, "url": i.url, "title": i.title, "origin": i.origin, "verified": i.verified_origin,
                 "attach": i.attach,
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

    def register(self, req: RegisterRequest, origin: str = "") -> tuple[Instance, bool]:
        """Give a page its instance: its old one back when it proves it owns it, else a fresh one.

        `origin` is the request's own Origin header ("" when it had none). A claimed url or origin that differs
        from it raises OriginMismatch; too many unconnected pages of one origin raise TooManyPages. A secret is
        always issued here, never taken from the page; a live page is never evicted or renamed.
        Returns the instance and whether the page asked for a different id than it got.
        """
        check_claims(req, origin)
        asked = req.instanceId
        if asked and req.secret:
            inst = self.instances.get(asked)
            if inst is None and self._may_take(asked, origin):
                # The bridge restarted (or the id expired): the page's id is free, so it gets it back, with a new
                # secret of the bridge's making.
                self._admit(origin)
                inst = Instance(id=asked, secret=secrets.token_urlsafe(32), verified_origin=origin)
                self.instances[asked] = inst
                self._ids_changed()
                return self._describe(inst, req), False
            if inst is not None and not inst.secret and inst.verified_origin == origin:
                # Reserved by the previous bridge process, which kept no secrets: a tab of the origin that held it
                # takes it back, with a new secret of the bridge's making.
                inst.secret = secrets.token_urlsafe(32)
                return self._describe(inst, req), False
            if (inst is not None and inst.secret and inst.verified_origin == origin
                    and hmac.compare_digest(inst.secret.encode(), req.secret.encode())
                    and (not inst.live or req.reclaim)):
                return self._describe(inst, req), False
        self._admit(origin)
        inst = Instance(id=self._fresh_id(port_of(origin) if origin else req.port), secret=secrets.token_urlsafe(32),
                        verified_origin=origin)
        self.instances[inst.id] = inst
        self._ids_changed()
        if asked is not None:
            log.info("page %s asked for id %s but gets a new one: %s", inst.id, asked, self._why_not(asked, req, origin))
        return self._describe(inst, req), asked is not None

    def _why_not(self, asked: str, req: RegisterRequest, origin: str) -> str:
        """Why a register that named an id did not get it (for the log: a renamed tab loses its calls' pageId)."""
        held = self.instances.get(asked)
        if held is None:
            return "that id is not this origin's to take"
        if held.verified_origin != origin:
            return "another origin holds it"
        if not req.secret or not held.secret or not hmac.compare_digest(held.secret.encode(), req.secret.encode()):
            return "wrong secret"
        return "a live tab holds it and this register did not reclaim it (a duplicated tab)"

    def adopt(self, instance_id: str, secret: str, origin: str, req: RegisterRequest) -> Instance:
        """Cluster mode: the id was claimed cluster-wide; hold it here (the same object if we already do)."""
        inst = self.instances.get(instance_id)
        if inst is None or not hmac.compare_digest(inst.secret.encode(), secret.encode()):
            inst = Instance(id=instance_id, secret=secret, verified_origin=origin)
            self.instances[instance_id] = inst
        return self._describe(inst, req)

    def _may_take(self, instance_id: str, origin: str) -> bool:
        """A port-shaped id only for a page whose verified origin has that port (it is predictable)."""
        if not instance_id.isdigit():
            return True
        return instance_id == str(port_of(origin) if origin else instance_id)

    def _admit(self, origin: str) -> None:
        mine = [i for i in self.instances.values() if i.verified_origin == origin and not i.live]
        waiting = sum(1 for i in mine if not i.ever_connected)
        if waiting >= self.max_pending:
            raise TooManyPages(f"{waiting} pages from {origin or 'clients without an Origin'} registered without "
                               "connecting; wait for them to connect or expire, then register again")
        # Closed tabs keep their ids for the TTL; connecting once and leaving is no way around the cap either.
        if len(mine) >= 16 * self.max_pending:
            raise TooManyPages(f"{len(mine)} pages from {origin or 'clients without an Origin'} are disconnected and "
                               "still reserved; wait for them to expire (or forget them in the cockpit)")

    def _describe(self, inst: Instance, req: RegisterRequest) -> Instance:
        inst.url, inst.title, inst.attach, inst.doc = req.url, req.title, req.attach, req.doc
        inst.generation = req.generation or 0
        if req.dev is not None:
            inst.dev = req.dev
        inst.leaving_since = None
        inst.origin = inst.verified_origin or req.origin
        inst.frames = {f.frameId: f for f in req.frames}
        inst.frames_pending = not req.complete
        inst.since = time.monotonic()  # its reservation restarts: it is about to connect
        inst.touch()
        self._changed(inst)
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
        if old is not conn:
            inst.leaving_since = None  # a channel of the document that registered last
        inst.ever_connected = True
        inst.left_to = inst.left_at = None
        inst.touch()
        inst.notify()
        self._changed(inst)
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
        self._changed(inst)
        return True

    def leaving(self, inst: Instance, started: bool) -> None:
        """Its document began a navigation away (started) or said it went nowhere; waiters are woken either way."""
        inst.leaving_since = time.monotonic() if started else None
        inst.notify()

    def unloading(self, inst: Instance, to: str | None = None) -> None:
        # A goodbye that arrives after the channel dropped (SSE: the beacon races the stream) changes nothing shown.
        inst.state = "unloading" if inst.conn is not None else "reconnecting"
        inst.left_to, inst.left_at = to, time.monotonic()
        inst.since = time.monotonic()
        inst.notify()
        self._changed(inst)

    def dev_update(self, inst: Instance, dev: DevInfo) -> None:
        """The page's dev server applied a hot update, or one failed: waiters (page_wait update) are woken."""
        inst.dev = dev
        inst.touch()
        inst.notify()
        self._changed(inst)

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
        self._changed(inst)

    def sweep(self) -> list[Instance]:
        """Drop pages that have been gone longer than the TTL."""
        now = time.monotonic()
        gone = [i for i in self.instances.values() if not i.live and now - i.since > self.ttl]
        for inst in gone:
            del self.instances[inst.id]
            inst.notify()
            self._changed(inst, gone=True)
        if gone:
            self._changed()
            self._ids_changed()
        return gone

    def forget(self, inst: Instance) -> None:
        """Drop a disconnected page now, as if its TTL had run out (the cockpit's "forget")."""
        if self.instances.get(inst.id) is inst:
            del self.instances[inst.id]
            inst.notify()
            self._changed(inst, gone=True)
            self._ids_changed()

    def expires_in(self, inst: Instance) -> float | None:
        return None if inst.live else max(0.0, self.ttl - (time.monotonic() - inst.since))

    def _changed(self, inst: Instance | None = None, gone: bool = False) -> None:
        if self.on_change is not None and inst is not None:
            self.on_change(inst, gone)
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

    def after(self, cursor: str | None, limit: int) -> tuple[list[Instance], str | None]:
        """Up to `limit` instances in page_list's order after `cursor` (the key of the last one a previous answer
        showed), and the cursor of the next page (None: no more)."""
        after = parse_list_cursor(cursor) if cursor else None
        picked: list[Instance] = []
        for inst in sorted(self.instances.values(), key=list_key):
            if after is not None and list_key(inst) <= after:
                continue
            if len(picked) == limit:
                return picked, list_cursor(picked[-1])
            picked.append(inst)
        return picked, None

    def page_rows(self, instances: Iterable[Instance] | None = None) -> list[dict]:
        """What `page_list` and GET /bridge/sessions show: every page and frame (of `instances`, default all), never
        a secret."""
        rows: list[dict] = []
        for inst in self.instances.values() if instances is None else instances:
            expires = self.expires_in(inst)
            state = inst.state if expires is None else f"{inst.state} (expires in {expires:.0f} s)"
            if (lost := lost_to(inst)) is not None:
                state = f"lost (navigated to {lost}, a page without the client)"
            base = {
                "state": state,
                "lastSeen": int(inst.last_seen * 1000),  # epoch ms, like every time an agent sees
                "channel": inst.conn.kind if inst.conn else None,
                "attach": inst.attach,
            }
            rows.append({"pageId": f"{inst.id}/host", "url": inst.url, "title": inst.title,
                         "origin": inst.verified_origin or inst.origin, "verified": bool(inst.verified_origin),
                         "parent": None, "crossOrigin": False, **base, **document_info(inst)})
            for fid, f in inst.frames.items():
                if fid == "host":
                    continue
                rows.append({"pageId": f"{inst.id}/{fid}", "url": f.url, "title": f.title, "origin": f.origin,
                             "parent": f"{inst.id}/{f.parent or 'host'}", "crossOrigin": f.crossOrigin, **base})
        return rows


def document_info(inst: Instance) -> dict[str, Any]:
    """What page_list and every page answer say of the tab's document: its generation (reloads and same-origin
    navigations), and its dev server's hot updates (how many, when the last came, why it failed) when it has one."""
    out: dict[str, Any] = {"generation": inst.generation} if inst.generation else {}
    if inst.dev is not None:
        out["updates"] = inst.dev.updates
        if inst.dev.updatedAt is not None:
            out["updatedAt"] = inst.dev.updatedAt
        if inst.dev.error is not None:
            out["updateError"] = dev_error_text(inst.dev)
    return out


def dev_error_text(dev: DevInfo) -> str:
    """A failed update in one line: its message (first line) at file:line:column."""
    err = dev.error
    if err is None:
        return ""
    where = ":".join(str(p) for p in (err.file, err.line, err.column) if p not in (None, ""))
    lines = [ln.strip() for ln in err.message.splitlines() if ln.strip()]
    # "Transform failed with 1 error:" says nothing the next line does not: take the first line that names the error
    first = next((ln for ln in lines if not re.match(r"(?i)(transform|build) failed with \d+ errors?:?$", ln)), "")[:300]
    return f"{first} at {where}" if where else first


def list_key(inst: Instance) -> tuple[int, int, int]:
    """page_list's order: live tabs first, then tabs that had a channel and lost it, each most recently active
    first (the last time the page spoke to the bridge); reservations that never connected last, oldest first."""
    group = 0 if inst.live else 1 if inst.ever_connected else 2
    return group, (-int(inst.last_seen * 1000) if group < 2 else 0), inst.seq


def list_cursor(inst: Instance) -> str:
    """The cursor after `inst`: its place in page_list's order (a tab that goes away shifts nothing)."""
    group, active, seq = list_key(inst)
    return f"{group}.{-active}.{seq}"


def parse_list_cursor(cursor: str) -> tuple[int, int, int] | None:
    """The key a page_list cursor names, or None when it is not one page_list gives."""
    m = re.fullmatch(r"([0-2])\.(\d{1,16})\.(\d{1,12})", cursor)
    return (int(m[1]), -int(m[2]) if m[1] != "2" else 0, int(m[3])) if m else None


def tab_slice(rows: list[dict[str, Any]], skip: int, limit: int) -> tuple[list[dict[str, Any]], int | None]:
    """`limit` tabs (each with its frames) after the first `skip` of a flat page_list, and where the next starts."""
    tab = -1
    out = []
    for row in rows:
        tab += row["parent"] is None
        if tab >= skip + limit:
            return out, skip + limit
        if tab >= skip:
            out.append(row)
    return out, None


def split_page_id(page_id: str) -> tuple[str, str] | None:
    m = PAGE_ID_RE.match(page_id.strip())
    if not m:
        return None
    return m.group("instance"), m.group("frame") or "host"


#: How long a tab that navigated away may take to come back with the client before calls to it fail as page_lost.
LOST_GRACE = 5.0


def lost_to(inst: Instance) -> str | None:
    """Where a tab went that navigated away and has not come back within LOST_GRACE (its new document has no
    client, or is another origin), or None."""
    if inst.live or inst.left_to is None or inst.left_at is None:
        return None
    return inst.left_to if time.monotonic() - inst.left_at > LOST_GRACE else None
