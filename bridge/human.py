"""The human in the loop: questions shown in the page, consent before code runs, events from the page to the inbox,
and opening source files in the user's editor (confined to the project root, never through a shell)."""

from __future__ import annotations

import asyncio
import logging
import shlex
import shutil
from pathlib import Path
from typing import Any

from bridge import errors
from bridge.dispatch import Dispatcher, Target
from bridge.protocol import EventMsg
from bridge.questions import Kind, Question
from bridge.registry import Instance

log = logging.getLogger("bridge.human")

CONSENT_ONCE, CONSENT_ORIGIN, CONSENT_DENY = "Allow once", "Allow on this origin", "Deny"


async def ask(d: Dispatcher, target: Target, kind: Kind, text: str, choices: list[str] | None = None,
              detail: str = "", wait: float = 60.0) -> tuple[Question, bool]:
    """Show a question in the target's tab and wait (bounded) for the answer: (question, answered in time)."""
    q = d.questions.ask(kind, text, target.inst.id, choices, detail)
    try:
        await d.call_page(f"{target.inst.id}/host", "ask", q.frame(), 10)
    except errors.BridgeError:
        d.questions.forget(q)
        raise
    d.audit.human("question", f"{target.inst.id}/host", questionId=q.id, question=kind, text=text)
    try:
        await asyncio.wait_for(asyncio.shield(q.future), wait)
        return q, True
    except TimeoutError:
        return q, False
    except asyncio.CancelledError:
        # The tool call was cancelled: nobody will read the answer, so the card leaves the page.
        if q.open:
            d.audit.human("question", f"{target.inst.id}/host", questionId=q.id, question=kind, outcome="cancelled")
            d.spawn(dismiss(d, q))
        raise


async def show_open_questions(d: Dispatcher, inst: Instance) -> None:
    """A tab came back (reload, reconnect): show it the questions still waiting for its human."""
    for q in d.questions.open_for(inst.id):
        try:
            await d.call_page(f"{inst.id}/host", "ask", q.frame(), 10)
        except errors.BridgeError as exc:
            log.info("could not re-show question %s on %s: %s", q.id, inst.id, exc)


async def dismiss(d: Dispatcher, q: Question) -> None:
    """Take an unanswered question off the page (best effort) and forget it."""
    d.questions.forget(q)
    try:
        await d.call_page(f"{q.instance_id}/host", "ask", {"dismiss": q.id}, 5)
    except errors.BridgeError:
        pass


#: What each consent class asks the human, and what a denial tells the agent to do instead.
CONSENT_TEXT = {
    "eval": ("The agent wants to run code in {page} ({origin}).",
             "Do not retry the same code; ask them why (user_ask) or use page_snapshot/page_find/page_act instead."),
    "navigate": ("The agent wants to leave {origin} for another site in {page}.",
                 "Stay on this origin, or ask the human (user_ask) where to go."),
    "submit": ("The agent wants to submit a form in {page} ({origin}).",
               "Ask the human (user_ask) before submitting, or fill the form and let them submit it."),
}


def page_origin(target: Target) -> str:
    frame = target.inst.frames.get(target.frame_id)
    return (frame.origin if frame and frame.origin else target.inst.origin) or target.inst.url


async def require_consent(d: Dispatcher, target: Target, kind: str, detail: str) -> None:
    """Ask the human before a dangerous action of class `kind` (eval, navigate, submit) on an origin they have
    not approved for it. Nothing to ask with --no-consent or when the class is not in --consent-for."""
    if d.settings.no_consent or kind not in d.settings.consent_for:
        return
    origin = page_origin(target)
    if (kind, origin) in d.approved_origins:
        return
    question, instead = CONSENT_TEXT[kind]
    preview = detail if len(detail) <= 600 else detail[:600] + "…"
    q, answered = await ask(d, target, "consent", question.format(page=target.page_id, origin=origin),
                            [CONSENT_ONCE, CONSENT_ORIGIN, CONSENT_DENY], preview, d.settings.consent_wait)
    if not answered:
        d.audit.human("consent", target.page_id, questionId=q.id, action=kind, origin=origin, decision="timeout")
        await dismiss(d, q)
        raise errors.BridgeError(
            f"Nobody answered the consent prompt in {target.page_id} within {d.settings.consent_wait:g} s, so "
            "nothing ran. Ask the human to look at the page (user_notify), or use page_snapshot/page_find/"
            "page_act, which need no consent.", code="consent_timeout")
    d.questions.forget(q)
    d.audit.human("consent", target.page_id, questionId=q.id, action=kind, origin=origin, decision=q.answer, via=q.via)
    if q.answer == CONSENT_ORIGIN:
        d.approved_origins.add((kind, origin))
    elif q.answer != CONSENT_ONCE:
        raise errors.BridgeError(f"The human said no ({kind} on {origin}). {instead}", code="consent_denied")


def page_event(d: Dispatcher, inst: Instance, msg: EventMsg) -> bool:
    """Apply an event the human made in the page. False if it answers a question that is not open on this page."""
    page_id = f"{inst.id}/host"
    if msg.kind == "answer":
        q = d.questions.answer(msg.questionId or "", inst.id, msg.data.get("answer"), "page")
        if q is None:
            return False
        if q.kind != "consent":
            d.inbox.add("answer", f"{q.text} → {_short(q.answer)}", page_id,
                        {"questionId": q.id, "answer": q.answer, "via": "page"})
        return True
    data = dict(msg.data)
    if msg.kind == "open_file":
        data.update(open_in_editor(d, str(data.get("file") or ""), data.get("line"), data.get("column")))
    d.inbox.add(msg.kind, msg.text or _short(data), page_id, data)
    return True


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= 200 else text[:199] + "…"


# ---- open_file ---------------------------------------------------------------------------------------------


def confine(root: Path, file: str) -> Path:
    """`file` inside `root`, or raise: relative paths resolve against root; no '..', no symlink out of it."""
    if not file:
        raise ValueError("no file given")
    root = root.resolve()
    candidate = Path(file)
    if not candidate.is_absolute() or not candidate.resolve().is_relative_to(root):
        candidate = root / file.lstrip("/")
    resolved = candidate.resolve()
    if not resolved.is_relative_to(root):
        raise ValueError(f"{file} is outside the project root {root}")
    if not resolved.is_file():
        raise ValueError(f"{file} is not a file under {root}")
    return resolved


def editor_argv(template: str | None, file: Path, line: int | None, column: int | None) -> list[str]:
    """The editor command as argv (never a shell). `{file}`, `{line}`, `{column}` are filled in."""
    if not template:
        for name, tmpl in (("code", "code -g {file}:{line}:{column}"), ("cursor", "cursor -g {file}:{line}:{column}")):
            if shutil.which(name):
                template = tmpl
                break
    if not template:
        raise ValueError("no editor found: set --editor (e.g. 'code -g {file}:{line}:{column}')")
    values = {"file": str(file), "line": str(line or 1), "column": str(column or 1)}
    return [part.format(**values) for part in shlex.split(template)]


def open_in_editor(d: Dispatcher, file: str, line: Any, column: Any) -> dict[str, Any]:
    """Open file:line in the user's editor; returns what happened, for the inbox item."""
    try:
        path = confine(Path(d.settings.project_root), file)
        argv = editor_argv(d.settings.editor, path, _int(line), _int(column))
    except ValueError as exc:
        return {"opened": False, "error": str(exc)}
    asyncio.get_running_loop().create_task(_run(argv))
    return {"opened": True, "path": str(path), "command": argv}


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


async def _run(argv: list[str]) -> None:
    try:
        proc = await asyncio.create_subprocess_exec(*argv, stdin=asyncio.subprocess.DEVNULL,
                                                    stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
        await proc.wait()
    except OSError as exc:
        log.warning("editor command failed: %s", exc)
