"""The human in the loop: questions shown in the page, consent before a command runs, events from the page to the
inbox, and opening source files in the user's editor behind the human's confirmation."""

from bridge.human.consent import guard, require_consent
from bridge.human.editor import confine, editor_argv
from bridge.human.events import page_event
from bridge.human.asking import ask, dismiss, show_open_questions

__all__ = ["ask", "confine", "dismiss", "editor_argv", "guard", "page_event", "require_consent",
           "show_open_questions"]
