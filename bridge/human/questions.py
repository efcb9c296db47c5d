"""Questions to the human (user_ask, consent prompts): id -> future, answered from the page (or the cockpit)."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

Kind = Literal["confirm", "choice", "text", "pick", "consent"]


@dataclass(eq=False)
class Question:
    id: str
    kind: Kind
    text: str
    instance_id: str
    choices: list[str] = field(default_factory=list)
    detail: str = ""
    created: float = field(default_factory=time.time)
    answer: Any = None
    via: str | None = None
    #: Only the cockpit may answer it (a page's own scripts could answer anything shown in the page).
    human_only: bool = False
    #: Who asked: the agent (user_ask, consent) or a page (open_file).
    asker: str = "agent"
    #: The agent stopped waiting and got a ticket: the answer goes to its inbox (the human is not blocking it).
    ticketed: bool = False
    future: asyncio.Future[Any] = field(default_factory=lambda: asyncio.get_running_loop().create_future(), repr=False)

    @property
    def open(self) -> bool:
        return not self.future.done()

    def frame(self) -> dict[str, Any]:
        """What the page (or cockpit) needs to show it."""
        return {"questionId": self.id, "kind": self.kind, "text": self.text, "choices": self.choices,
                "detail": self.detail}


class Questions:
    def __init__(self, on_change: Callable[[Question, bool], None] | None = None) -> None:
        self.by_id: dict[str, Question] = {}
        #: Told when a question opens (True) and when it closes (False): the shared state (every replica's cockpit
        #: shows every open question).
        self.on_change = on_change

    def ask(self, kind: Kind, text: str, instance_id: str, choices: list[str] | None = None, detail: str = "",
            human_only: bool = False) -> Question:
        q = Question("q" + secrets.token_hex(8), kind, text, instance_id, choices or [], detail, human_only=human_only)
        self.by_id[q.id] = q
        if self.on_change is not None:
            self.on_change(q, True)
        return q

    def answer(self, question_id: str, instance_id: str | None, answer: Any, via: str) -> Question | None:
        """Settle an open question; a page may only answer questions shown on it. None if refused."""
        q = self.by_id.get(question_id)
        if q is None or not q.open or (instance_id is not None and q.instance_id != instance_id):
            return None
        if q.human_only and via != "cockpit":
            return None
        q.answer, q.via = answer, via
        q.future.set_result(answer)
        if self.on_change is not None:
            self.on_change(q, False)
        return q

    def open_for(self, instance_id: str) -> list[Question]:
        return [q for q in self.by_id.values() if q.open and q.instance_id == instance_id]

    def forget(self, q: Question) -> None:
        was_open = q.open
        if q.open:
            q.future.cancel()
        if self.by_id.pop(q.id, None) is not None and was_open and self.on_change is not None:
            self.on_change(q, False)
