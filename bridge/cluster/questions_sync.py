"""Shared questions: every replica's cockpit shows every open question, and an answer given anywhere (a cockpit,
or the page the question shows in) settles it on the replica that asked, which holds the waiting future.

Open questions are kept in one Redis hash (so a replica that joins later sees them) and announced on the broadcast
channel; answers go to the asking replica's direct channel."""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

from bridge.cluster import redis_state as keys
from bridge.cluster.bus import DOWN, Bus
from bridge.cluster.messages import QuestionAnswer, QuestionClose, QuestionOpen
from bridge.human.questions import Question

if TYPE_CHECKING:
    from bridge.shared.seam import Parts

log = logging.getLogger("bridge.cluster")

QUESTIONS = keys.PREFIX + "questions"


def _encode(q: Question, owner: str) -> dict[str, Any]:
    return {"id": q.id, "kind": q.kind, "text": q.text, "instance": q.instance_id, "choices": q.choices,
            "detail": q.detail, "created": q.created, "humanOnly": q.human_only, "owner": owner}


class QuestionSync:
    def __init__(self, bus: Bus, parts: Parts, rid: str) -> None:
        self.bus, self.parts, self.rid = bus, parts, rid
        self.spawn = parts.spawn
        #: Open questions other replicas asked: id -> (question, owner replica). Their futures never settle here.
        self.remote: dict[str, tuple[Question, str]] = {}

    def get(self, qid: str) -> Question | None:
        entry = self.remote.get(qid)
        return entry[0] if entry else None

    def open_questions(self) -> list[Question]:
        return [q for q, _ in self.remote.values()]

    # ---- ours -> everyone -----------------------------------------------------------------------------------

    def observe(self, q: Question, opened: bool) -> None:
        """Questions' observer: one of ours opened, or closed (answered, expired, dismissed)."""
        self.spawn(self._announce(q, opened))

    async def _announce(self, q: Question, opened: bool) -> None:
        try:
            if opened:
                rec = _encode(q, self.rid)
                await self.bus.redis.hset(QUESTIONS, q.id, json.dumps(rec))
                await self.bus.publish(None, QuestionOpen(q=rec))
            else:
                await self.bus.redis.hdel(QUESTIONS, q.id)
                await self.bus.publish(None, QuestionClose(id=q.id))
        except Exception as exc:  # cluster_unavailable: the question still works on this replica
            log.info("cluster: question %s not shared: %s", q.id, exc)

    async def resync(self) -> None:
        try:
            rows = await self.bus.redis.hgetall(QUESTIONS)
        except DOWN as exc:
            self.bus.went_down(exc)
            return
        self.remote.clear()
        for raw in rows.values():
            self._open(json.loads(raw))
        for q in list(self.parts.questions.by_id.values()):  # a restarted Redis forgot ours
            if q.open and q.id not in rows:
                self.observe(q, True)

    # ---- everyone -> us -------------------------------------------------------------------------------------

    def _open(self, rec: dict[str, Any]) -> None:
        if rec.get("owner") == self.rid:
            return
        q = Question(str(rec["id"]), rec["kind"], str(rec["text"]), str(rec["instance"]), list(rec.get("choices") or []),
                     str(rec.get("detail") or ""), float(rec.get("created") or 0), human_only=bool(rec.get("humanOnly")))
        self.remote[q.id] = (q, str(rec.get("owner")))

    def forward(self, qid: str, answer: Any, via: str, instance_id: str | None) -> bool:
        """Send an answer for another replica's question to it. False if no such question is open.

        The question's announcement (broadcast) and the ask frame that showed it (the page owner's direct channel)
        travel apart, so a human can answer before this replica has heard of the question: then the answer goes to
        every replica, and only the one that asked it, for this page's instance, settles it."""
        entry = self.remote.get(qid)
        if entry is None:
            if not qid or len(qid) > 64 or instance_id is None:
                return False
            self.spawn(self._send(None, QuestionAnswer(id=qid, answer=answer, via=via, instance=instance_id)))
            return True
        q, owner = entry
        if instance_id is not None and q.instance_id != instance_id:
            return False
        self.spawn(self._send(owner, QuestionAnswer(id=qid, answer=answer, via=via, instance=instance_id)))
        return True

    async def _send(self, owner: str | None, msg: QuestionAnswer) -> None:
        try:
            await self.bus.publish(owner, msg)
        except Exception as exc:
            log.info("cluster: answer not delivered to %s: %s", owner, exc)

    def handle(self, msg: QuestionOpen | QuestionClose | QuestionAnswer) -> None:
        if isinstance(msg, QuestionOpen):
            self._open(msg.q)
        elif isinstance(msg, QuestionClose):
            entry = self.remote.pop(msg.id, None)
            if entry is not None and entry[0].open:
                entry[0].future.cancel()
        else:
            self._answered(msg)

    def _answered(self, msg: QuestionAnswer) -> None:
        q = self.parts.questions.by_id.get(msg.id)
        if q is None or not q.open:
            return
        if msg.via == "cockpit":
            self.parts.settle(q, msg.answer)
            return
        from bridge.pages.protocol import EventMsg

        if q.instance_id != msg.instance:
            return  # not this page's question (a broadcast answer reaches every replica; never sent on again)
        inst = self.parts.lookup(msg.instance)
        if inst is not None:
            self.parts.event(inst, EventMsg(type="event", kind="answer", questionId=q.id,
                                              data={"answer": msg.answer}))
