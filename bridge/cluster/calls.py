"""Calls between replicas: exec and cancel frames down to the page's owner, results (or a named failure) back to
the caller's replica, and page messages that reached a replica other than the owner forwarded to it.

B (caller) --down--> A (owner) writes the frame to the page; the page's result comes to A (or, for an SSE page
behind a load balancer, to C, which forwards it as `up`); A --result--> B resolves B's pending entry.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import TYPE_CHECKING, Any

from bridge import errors
from bridge.cluster import messages as m, redis_state as keys
from bridge.cluster.bus import DOWN, Bus, unavailable
from bridge.cluster.mirror import Mirror, RemoteInstance
from bridge.pages.protocol import ErrorInfo, ResultMsg
from bridge.pages.registry import Instance

if TYPE_CHECKING:
    from bridge.shared.seam import Parts

log = logging.getLogger("bridge.cluster")


class Calls:
    def __init__(self, parts: Parts, bus: Bus, rid: str) -> None:
        self.parts, self.bus, self.rid = parts, bus, rid
        self.spawn = parts.spawn
        self.mirror: Mirror | None = None
        #: requestId -> (caller replica, instance id, expiry): exec frames we wrote for another replica's caller.
        self.relay: dict[str, tuple[str, str, float]] = {}

    def forget_caller(self, owner: str) -> None:
        for rid, (caller, _iid, _exp) in list(self.relay.items()):
            if caller == owner:
                del self.relay[rid]

    def expire(self) -> None:
        now = time.monotonic()
        for rid, (_c, _i, exp) in list(self.relay.items()):
            if exp < now:
                del self.relay[rid]

    def on_result(self, msg: m.Result) -> None:
        self.parts.pending.resolve(msg.id, ResultMsg.model_validate(msg.msg))

    def on_fail(self, msg: m.Fail) -> None:
        self.parts.pending.resolve(msg.id, ResultMsg(requestId=msg.rid, ok=False,
                                                     error=ErrorInfo(code=msg.code, message=msg.message)))

    async def send_down(self, owner: str, iid: str, text: str) -> None:
        """A frame for a page another replica owns (RemoteConnection.send)."""
        if not await self.bus.publish(owner, m.Down(id=iid, from_=self.rid, text=text)):
            # Nobody listens on the owner's channel (it died, or is reconnecting to Redis): nothing was sent.
            raise ConnectionError(f"replica {owner} is not listening")

    def relay_result(self, iid: str, msg: ResultMsg) -> bool:
        """A result from one of our pages that no local caller waits for: hand it to the replica that asked."""
        entry = self.relay.pop(msg.requestId, None)
        if entry is None or entry[1] != iid:
            return False
        self.spawn(self._deliver(entry[0], m.Result(id=iid, msg=msg.model_dump(mode="json", exclude_none=True))))
        return True

    async def _deliver(self, rid: str, msg: m.Msg, patience: float = 5.0) -> None:
        """A result for a caller that may be re-subscribing (after a Redis blip): retry briefly while nobody
        listens on its channel."""
        deadline = time.monotonic() + patience
        while True:
            try:
                if await self.bus.publish(rid, msg) or time.monotonic() > deadline:
                    return
            except errors.BridgeError as exc:
                if time.monotonic() > deadline:
                    log.info("cluster: could not send %s to %s: %s", getattr(msg, "t", "?"), rid, exc)
                    return
            await asyncio.sleep(0.1)

    def _fail(self, caller: str, iid: str, request_id: str, code: str, text: str) -> None:
        self.spawn(self._deliver(caller, m.Fail(id=iid, rid=request_id, code=code, message=text)))

    async def _write_down(self, inst: Instance, text: str, caller: str, request_id: str | None) -> None:
        try:
            assert inst.conn is not None
            await inst.conn.send(text)
        except (ConnectionError, AssertionError):
            if request_id:
                self.relay.pop(request_id, None)
                self._fail(caller, inst.id, request_id, "page_disconnected",
                           f"Page {inst.id} dropped its connection as the command was sent. Call page_list and retry.")

    def on_down_frame(self, msg: m.Down) -> None:
        iid, caller, text = msg.id, msg.from_, msg.text
        try:
            frame = json.loads(text)
        except ValueError:
            return
        request_id = frame.get("requestId") if frame.get("type") == "exec" else None
        inst = self.parts.registry.instances.get(iid)
        if inst is None or not inst.live:
            if request_id:
                self._fail(caller, iid, request_id, "page_disconnected",
                           f"Page {iid} is not connected to its replica any more; it keeps its pageId while it "
                           "reconnects. Call page_list and retry.")
            return
        if request_id:
            self.relay[request_id] = (caller, iid, time.monotonic() + float(frame.get("timeout") or 30) + 10)
        self.spawn(self._write_down(inst, text, caller, request_id))

    async def authenticate(self, iid: str, secret: str) -> RemoteInstance | None:
        """A page POSTed to this replica but is owned by another: check its secret against the stored hash."""
        try:
            owner, sh = await self.bus.redis.hmget(keys.inst_key(iid), ["owner", "sh"])
        except DOWN as exc:
            self.bus.went_down(exc)
            raise unavailable("checking that page's credentials") from None
        if not owner or owner == self.rid or not keys.secret_matches(sh or "", secret):
            return None
        return (self.mirror.get(iid) if self.mirror else None) or RemoteInstance(id=iid, secret="", owner=owner)

    async def forward_up(self, inst: RemoteInstance, data: dict[str, Any]) -> None:
        """Hand a page's message (a result POSTed here, say) to its owner, without its credentials."""
        body = {k: v for k, v in data.items() if k not in ("instanceId", "secret")}
        await self.bus.publish(inst.owner, m.Up(id=inst.id, msg=body))

    def on_up_message(self, msg: m.Up) -> None:
        from bridge.pages import protocol

        inst = self.parts.registry.instances.get(msg.id)
        if inst is None:
            return
        try:
            up = protocol.parse_up(msg.msg)
        except protocol.ProtocolError:
            return
        self.parts.up(inst, up)

