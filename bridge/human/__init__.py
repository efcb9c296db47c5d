"""The human in the loop: questions shown in the page, consent before a command runs, events from the page to the
inbox, and opening source files in the user's editor behind the human's confirmation."""

from bridge.human.asking import Asking
from bridge.human.consent import Consent
from bridge.human.editor import OpenFile, confine, editor_argv
from bridge.human.events import page_event

__all__ = ["Asking", "Consent", "OpenFile", "confine", "editor_argv", "page_event"]
