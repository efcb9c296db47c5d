"""The parts of the bridge the human loop's objects (asking, open-file) work with, handed in by bridge/state.py."""

from __future__ import annotations

from dataclasses import dataclass

from bridge.audit import Audit
from bridge.server.background import Spawn
from bridge.pages.dispatch import Dispatcher
from bridge.human.inbox import Inbox
from bridge.human.questions import Questions
from bridge.settings import Settings


@dataclass(eq=False)
class HumanParts:
    """The dispatcher (to reach the tab), the questions, the audit, the inbox, the settings and a spawner."""

    dispatcher: Dispatcher
    questions: Questions
    audit: Audit
    inbox: Inbox
    settings: Settings
    spawn: Spawn
