"""This replica's part in the cluster: claims pageIds through Redis, mirrors the pages of the others, relays exec
frames and results between a caller replica and a page's owner, and writes its own pages' state back.

It gives the `redis` backend's parts of bridge/shared/seam.py (bridge/cluster/__init__.py `build`), picked once
at start by the --cluster URL: it is the page ids and the replicas (the register route claims through it, the
registry tells it of its changes, `Dispatcher.lookup` finds remote instances through it, page_list and the cockpit
list cluster-wide rows through it); its `questions`, `inbox` and `approvals` are the other parts. It is built from
the bridge's `Parts`, never its whole state.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import secrets
import string
import time
from typing import TYPE_CHECKING, Any

from bridge import errors
from bridge.cluster import index, messages as m, redis_state as keys
from bridge.cluster.approvals import SharedApprovals
from bridge.cluster.calls import Calls
from bridge.cluster.bus import DOWN, Bus, cancel_until_done, unavailable
from bridge.cluster.inbox_sync import InboxSync
from bridge.cluster.mirror import Mirror, RemoteInstance
from bridge.cluster.questions_sync import QuestionSync
from bridge.cluster.liveness import Liveness
from bridge.pages.protocol import RegisterRequest
from bridge.pages.registry import Instance, Registry, check_claims, port_of, tab_slice

if TYPE_CHECKING:
    from bridge.shared.seam import Parts

log = logging.getLogger("bridge.cluster")

#: How often the mirror is rebuilt from the instance keys (pub/sub drops messages a subscriber misses).
RESYNC_EVERY = 5.0


def _candidates(n: int = 8) -> list[str]:
    return ["".join(random.choices(string.ascii_lowercase, k=2)) + f"{random.randrange(1000):03d}" for _ in range(n)]


class Cluster:
    """The shared state of a team bridge (bridge/shared/seam.py picks it for a `--cluster redis://…` URL): pages,
    calls, questions, approvals and the inbox shared with every replica through Redis."""

    def __init__(self, parts: Parts) -> None:
        settings = parts.settings
        url = settings.cluster
        assert url, "the redis backend needs --cluster"
        self.parts = parts
        self.registry: Registry = parts.registry
        self.rid = "r" + secrets.token_hex(4)
        self.bus = Bus(url, self.rid, self._handle, self._on_up, self._on_down)
        self.calls = Calls(parts, self.bus, self.rid)
        self.mirror = Mirror(self.rid, self.calls.send_down, self._lost)
        self.calls.mirror = self.mirror
        #: Hooks the page channel calls (see calls.py).
        self.relay_result, self.authenticate, self.forward_up = (self.calls.relay_result, self.calls.authenticate,
                                                                 self.calls.forward_up)
        #: Rows of remote pages in the registry's own format (its page_rows over the mirror's dict).
        self.view = Registry(settings.page_ttl)
        self.view.instances = self.mirror.instances  # type: ignore[assignment]
        self.liveness = Liveness(self.bus, self.rid, settings.page_channel_url(), settings.page_ttl,
                                 self._local_live_ids, self.mirror.owners, self._owner_died)
        self.inbox = InboxSync(self.bus, parts.inbox)
        self.questions = QuestionSync(self.bus, parts, self.rid)
        self.approvals = SharedApprovals(self.bus, parts.spawn, set())
        #: Set while this replica lets go of a page another replica claimed: those changes are not ours to write.
        self._letting_go: Instance | None = None
        self.epochs: dict[str, int] = {}
        self._dirty: dict[str, Instance] = {}
        self._released: dict[str, int] = {}
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task[Any]] = []
        self.claim = self.bus.redis.register_script(keys.CLAIM)
        self.update = self.bus.redis.register_script(keys.UPDATE)
        self.release = self.bus.redis.register_script(keys.RELEASE)
        self.ttl_ms = int(settings.page_ttl * 1000)
        #: Why the last page_list shows this replica's pages only (Redis unreachable), else None.
        self.note: str | None = None

    # ---- lifecycle ------------------------------------------------------------------------------------------

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            await self.liveness.beat_once()
        except DOWN as exc:
            log.warning("cluster: Redis not reachable at start (%s); serving local pages, retrying", exc)
        self.bus.start()
        for coro in (self.liveness.run(), self._writer(), self._resync_loop()):
            self._tasks.append(loop.create_task(coro, name=f"cluster {coro.__qualname__}"))

    async def stop(self) -> None:
        await self.liveness.leave()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            await cancel_until_done(task)
        await self.bus.close()

    async def _on_up(self) -> None:
        """Redis is (back) up: beat, re-assert our pages (a restarted Redis lost them), rebuild mirror and inbox."""
        self.liveness.up_since = time.monotonic()
        self.mirror.dead.clear()
        await self.liveness.beat_once()
        for inst in list(self.registry.instances.values()):
            await self._reassert(inst)
        await self._resync()
        await self.inbox.resync()
        await self.questions.resync()
        await self.approvals.resync()

    def _on_down(self) -> None:
        for inst in list(self.mirror.instances.values()):
            self.parts.pending.fail_instance(inst.id,
                                             lambda w, iid=inst.id: unavailable(f"the call to page {iid}/host"))

    # ---- claims ---------------------------------------------------------------------------------------------

    def _info(self, inst: Instance) -> str:
        return json.dumps({"url": inst.url, "title": inst.title, "origin": inst.origin, "attach": inst.attach,
                           "verified": inst.verified_origin,
                           "channel": inst.conn.kind if inst.conn else None,
                           "generation": inst.generation, "dev": inst.dev.model_dump() if inst.dev else None,
                           "frames": [f.model_dump(exclude_none=True) for f in inst.frames.values()]},
                          separators=(",", ":"))

    async def register(self, req: RegisterRequest, origin: str) -> tuple[Instance, bool]:
        """The cluster-wide version of Registry.register: the same rules, decided atomically in Redis.
        Raises OriginMismatch and TooManyPages as it does."""
        check_claims(req, origin)
        asked = req.instanceId or ""
        local = self.registry.instances.get(asked)
        if local is None:
            self.registry._admit(origin)
        # A page that stays on this replica keeps its secret; anywhere else it gets one of this bridge's making.
        keep = bool(local and local.secret and req.secret and keys.secret_matches(keys.secret_hash(local.secret),
                                                                                  req.secret))
        secret = str(req.secret) if keep else secrets.token_urlsafe(32)
        fresh = secrets.token_urlsafe(32)
        port = port_of(origin) if origin else req.port
        probe = Instance(id="", secret="", url=req.url, title=req.title, origin=origin or req.origin,
                         verified_origin=origin, attach=req.attach, frames={f.frameId: f for f in req.frames})
        # This replica holds the page and sees it gone (a navigation's new document, 30 ms after the old one's
        # channel closed): its own view is fresher than the state it has yet to write to Redis, as on one machine.
        reclaim = req.reclaim or (keep and local is not None and not local.live)
        args = [keys.PREFIX, asked, keys.secret_hash(req.secret) if req.secret else "", keys.secret_hash(secret),
                "1" if reclaim else "0", str(port or ""), self.rid, self.ttl_ms, int(time.time() * 1000),
                self._info(probe), origin, "1" if asked and self.registry._may_take(asked, origin) else "0",
                keys.secret_hash(fresh)]
        try:
            got = None
            for _ in range(5):
                got = await self.claim(args=[*args, *_candidates()])
                if got:
                    break
        except DOWN as exc:
            self.bus.went_down(exc)
            if keep:  # a page this replica already holds (a reload): its id is ours, the local rules apply
                inst, renamed = self.registry.register(req, origin)
                if not renamed:
                    return inst, False
                self.registry.forget(inst)  # a fresh id needs the cluster
            # A new id needs the cluster (it must be unique in it): the client retries until Redis is back.
            raise unavailable("registering this page") from None
        if not got:
            raise errors.BridgeError("No free pageId found; retry.", code="cluster_busy")
        iid, epoch, renamed = str(got[0]), int(got[1]), bool(int(got[2]))
        self.mirror.drop(iid, "moved")
        inst = self.registry.adopt(iid, secret if iid == asked else fresh, origin, req)
        self.epochs[iid] = epoch
        return inst, renamed

    async def _reassert(self, inst: Instance) -> None:
        """Claim one of our pages again after Redis came back (keeps its id unless another replica has it live)."""
        if not inst.secret:
            return
        # reclaim=1: it is ours and may look live (a second outage before its state was written again)
        args = [keys.PREFIX, inst.id, keys.secret_hash(inst.secret), keys.secret_hash(inst.secret), "1", "",
                self.rid, self.ttl_ms, int(time.time() * 1000), self._info(inst), inst.verified_origin,
                "1" if self.registry._may_take(inst.id, inst.verified_origin) else "0",
                keys.secret_hash(inst.secret)]
        got = await self.claim(args=args)
        if got and str(got[0]) == inst.id:
            self.epochs[inst.id] = int(got[1])
            self.page_changed(inst)
        else:
            log.warning("cluster: page %s is live on another replica now; dropping it here", inst.id)
            if inst.conn is not None:
                inst.conn.close()

    # ---- our pages' state -> Redis --------------------------------------------------------------------------

    def page_changed(self, inst: Instance, gone: bool = False) -> None:
        """The registry changed `inst` (attach, detach, unloading, frames) or dropped it (gone)."""
        if isinstance(inst, RemoteInstance) or inst is self._letting_go:
            return
        if gone:
            epoch = self.epochs.pop(inst.id, None)
            if epoch is not None:
                self._released[inst.id] = epoch
            self._dirty.pop(inst.id, None)
        elif inst.id in self.epochs:
            self._dirty[inst.id] = inst
        self._wake.set()

    async def _writer(self) -> None:
        """One writer, so the changes of one page reach Redis (and every replica) in the order they happened."""
        while True:
            await self._wake.wait()
            self._wake.clear()
            dirty, self._dirty = self._dirty, {}
            released, self._released = self._released, {}
            try:
                async with self.bus.redis.pipeline(transaction=False) as pipe:
                    order: list[Instance] = []
                    for iid, epoch in released.items():
                        await self.release(args=[keys.PREFIX, iid, self.rid, epoch], client=pipe)
                    for inst in dirty.values():
                        if inst.id not in self.epochs:
                            continue
                        state = inst.state if inst.conn is not None else "reconnecting"
                        since = int((time.time() - (time.monotonic() - inst.since)) * 1000)
                        await self.update(args=[keys.PREFIX, inst.id, self.rid, self.epochs[inst.id], state, since,
                                          self._info(inst), self.ttl_ms], client=pipe)
                        order.append(inst)
                    results = await pipe.execute()
            except DOWN as exc:
                self.bus.went_down(exc)
                for iid, inst in dirty.items():  # written again once Redis answers (newer changes win)
                    self._dirty.setdefault(iid, inst)
                for iid, epoch in released.items():
                    self._released.setdefault(iid, epoch)
                await asyncio.sleep(0.2)
                self._wake.set()
                continue
            for inst, ok in zip(order, results[len(released):]):
                if not ok and self.registry.instances.get(inst.id) is inst:
                    self.parts.spawn(self._lost_ownership(inst))

    async def _lost_ownership(self, inst: Instance) -> None:
        try:
            owner = await self.bus.redis.hget(keys.inst_key(inst.id), "owner")
        except DOWN:
            return
        if owner is None:
            await self._reassert(inst)
        elif owner != self.rid:
            self._moved_away(inst)

    def _check_moved(self, iid: str, owner: str, epoch: int) -> None:
        local = self.registry.instances.get(iid)
        if local is not None and owner != self.rid and epoch > self.epochs.get(iid, epoch):
            self._moved_away(local)

    def _moved_away(self, inst: Instance) -> None:
        """Another replica claimed one of our pages (it reconnected there): let go of it here."""
        self.epochs.pop(inst.id, None)
        if self.registry.instances.get(inst.id) is inst:
            conn = inst.conn
            self._letting_go = inst
            try:
                if conn is not None:
                    self.registry.detach(inst, conn)
                    conn.close()
                self.parts.page_lost(inst, "gone")
                self.registry.forget(inst)
            finally:
                self._letting_go = None

    def _local_live_ids(self) -> list[str]:
        return [i.id for i in self.registry.instances.values() if i.live and i.id in self.epochs]

    # ---- other replicas' pages ------------------------------------------------------------------------------

    def _lost(self, inst: RemoteInstance, why: str) -> None:
        self.parts.page_lost(inst, why)

    def _owner_died(self, owner: str) -> None:
        hit = self.mirror.owner_died(owner)
        if hit:
            log.info("cluster: replica %s is gone; %d of its pages are reconnecting", owner, len(hit))
        self.calls.forget_caller(owner)

    async def _resync_loop(self) -> None:
        while True:
            await asyncio.sleep(RESYNC_EVERY)
            if not self.bus.up:
                continue
            try:
                await self._resync()
            except DOWN as exc:
                self.bus.went_down(exc)
            self.calls.expire()

    async def _resync(self) -> None:
        read_at = time.monotonic()  # events applied while the records are read are newer than them
        records = await index.records(self.bus.redis)
        alive = await index.alive(self.bus.redis, {f.get("owner", "") for _, f, _ in records})
        self.mirror.dead = {f.get("owner", "") for _, f, _ in records} - alive - {self.rid}
        seen = set()
        for iid, f, _pttl in records:
            seen.add(iid)
            self.mirror.apply(iid, f.get("owner", ""), int(f.get("epoch", 0)), f.get("state", "reconnecting"),
                              float(f.get("since", 0)), f.get("info"), read_at=read_at)
            self._check_moved(iid, f.get("owner", ""), int(f.get("epoch", 0)))
        for iid, inst in list(self.mirror.instances.items()):
            if iid not in seen and inst.updated <= read_at:
                self.mirror.drop(iid)

    async def replica_urls(self) -> list[str]:
        """The live replicas' page-channel URLs, this one's first (what a register answer lists)."""
        return await self.liveness.urls()

    # ---- the page ids and the replicas (bridge/shared/seam.py PageIds, Replicas) -------------------------------

    def remote(self, instance_id: str) -> Instance | None:
        return self.mirror.get(instance_id)

    def remote_tabs(self) -> list[Instance]:
        return [i for i in self.mirror.instances.values() if i.live]

    def valid_cursor(self, cursor: str) -> bool:
        return cursor.isdigit()  # tabs to skip in the cluster-wide list

    async def page_list(self, cursor: str | None, limit: int) -> tuple[list[dict[str, Any]], str | None]:
        rows, more = tab_slice(await self.page_rows(), int(cursor or 0), limit)
        return rows, None if more is None else str(more)

    def remote_rows(self) -> list[dict[str, Any]]:
        return self.mirror_rows()

    async def page_rows(self) -> list[dict[str, Any]]:
        """page_list across the cluster: this replica's pages as today, every other one read from Redis."""
        rows = [{**r, "replica": self.rid} for r in self.registry.page_rows()]
        self.note = None
        try:
            records = await index.records(self.bus.redis)
            alive = await index.alive(self.bus.redis, {f.get("owner", "") for _, f, _ in records})
        except DOWN as exc:
            self.bus.went_down(exc)
            self.note = str(unavailable("listing the pages of other replicas"))
            return rows
        view = Registry(self.parts.settings.page_ttl)
        owner_of: dict[str, str] = {}
        for iid, f, pttl in records:
            if iid in self.registry.instances and f.get("owner") == self.rid:
                continue
            mirror = Mirror(self.rid, self.calls.send_down, lambda *_: None)
            mirror.dead = set() if f.get("owner") in alive else {f.get("owner", "")}
            inst = mirror.apply(iid, f.get("owner", ""), int(f.get("epoch", 0)), f.get("state", "reconnecting"),
                                float(f.get("since", 0)), f.get("info"))
            if inst is None:
                continue
            if not inst.live and pttl > 0:
                inst.since = time.monotonic() - (self.parts.settings.page_ttl - pttl / 1000)
            view.instances[iid] = inst
            owner_of[iid] = inst.owner
        for row in view.page_rows():
            rows.append({**row, "replica": owner_of.get(row["pageId"].split("/")[0], "")})
        return rows

    def mirror_rows(self) -> list[dict[str, Any]]:
        """The other replicas' pages as last seen (for the cockpit, which renders synchronously)."""
        return [{**r, "replica": self.mirror.instances[r["pageId"].split("/")[0]].owner}
                for r in self.view.page_rows()]

    # ---- the bus --------------------------------------------------------------------------------------------

    def _handle(self, msg: m.Message) -> None:
        if isinstance(msg, m.Result):
            self.calls.on_result(msg)
        elif isinstance(msg, m.Down):
            self.calls.on_down_frame(msg)
        elif isinstance(msg, m.Page):
            self.mirror.dead.discard(msg.owner)  # it just wrote this: it is alive
            self.mirror.apply(msg.id, msg.owner, msg.epoch, msg.state, msg.since, msg.info)
            self._check_moved(msg.id, msg.owner, msg.epoch)
        elif isinstance(msg, m.Gone):
            if msg.owner != self.rid:
                self.mirror.drop(msg.id)
        elif isinstance(msg, m.Fail):
            self.calls.on_fail(msg)
        elif isinstance(msg, m.Up):
            self.calls.on_up_message(msg)
        elif isinstance(msg, m.ReplicaDown):
            if msg.rid != self.rid:
                self._owner_died(msg.rid)
        elif isinstance(msg, (m.InboxItem, m.Mark)):
            self.inbox.handle(msg)
        elif isinstance(msg, (m.QuestionOpen, m.QuestionClose, m.QuestionAnswer)):
            self.questions.handle(msg)
        elif isinstance(msg, m.Approval):
            self.approvals.handle(msg)
