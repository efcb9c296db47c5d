"""pause_for_human: the run waits for the human, who resumes, skips the step or aborts, with a note. Answered
from the runs API (/v1/runs/ID/resume), the cockpit, the terminal running `dbg-bridge run`, or the page's panel
(a question card with the same three choices)."""

from __future__ import annotations

import asyncio
import secrets
import time
from typing import Any

ACTIONS = ("resume", "skip", "abort")
CHOICES = {"Resume": "resume", "Skip": "skip", "Abort": "abort"}


class Takeover:
    def __init__(self, reason: str, question: str) -> None:
        self.id = "t" + secrets.token_hex(4)
        self.reason, self.question = reason, question
        self.created = time.time()
        self.future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        #: The card shown in a page (bridge.human.questions.Question), if one is.
        self.card: Any = None

    @property
    def answered(self) -> bool:
        return self.future.done()

    def answer(self, action: str, note: str, via: str) -> bool:
        """Settle it; False if it was answered already."""
        if self.future.done():
            return False
        self.future.set_result({"action": action, "note": note, "via": via})
        return True

    def row(self) -> dict[str, Any]:
        return {"id": self.id, "reason": self.reason, "question": self.question, "created": self.created,
                "actions": list(ACTIONS), "pageId": f"{self.card.instance_id}/host" if self.card else None}
