"""open_file: a page asks to open a source file in the user's editor. Confined to the project root, never a shell;
dotfiles and secret-looking files refused; rate-limited; the editor starts only once the human confirmed it in the
cockpit (a page's own scripts can forge anything the page sends, including a click on an in-page card)."""

from __future__ import annotations

import asyncio
import fnmatch
import logging
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bridge import errors
from bridge.human.parts import HumanParts
from bridge.server.ratelimit import RateLimit
from bridge.pages.registry import Instance

log = logging.getLogger("bridge.human")

OPEN, REFUSE = "Open in editor", "Refuse"

#: File names (any path part) open_file refuses unless --open-file-secrets: they tend to hold credentials.
SECRET_PATTERNS = (".*", "*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore", "*.kdbx", "id_rsa*", "id_dsa*",
                   "id_ecdsa*", "id_ed25519*", "*secret*", "*credential*", "*.tfstate", "*.tfvars")


class Refused(ValueError):
    """open_file will not open this; the text says why."""


class RateLimited(errors.BridgeError):
    """A page sends open_file requests faster than the human could have asked for them."""


def confine(root: Path, file: str) -> Path:
    """`file` inside `root`, or raise Refused: relative paths resolve against root; no '..', no symlink out of it."""
    if not file:
        raise Refused("no file given")
    try:
        root = root.resolve()
        candidate = Path(file)
        if not candidate.is_absolute() or not candidate.resolve().is_relative_to(root):
            candidate = root / file.lstrip("/")
        resolved = candidate.resolve()
        if not resolved.is_relative_to(root):
            raise Refused(f"{file} is outside the project root {root}")
        if not resolved.is_file():
            raise Refused(f"{file} is not a file under {root}")
    except (OSError, ValueError) as exc:  # a name too long, a NUL byte, a loop of symlinks
        if isinstance(exc, Refused):
            raise
        raise Refused(f"{file[:200]} cannot be opened ({type(exc).__name__}: {exc})") from None
    return resolved


def secret_like(root: Path, path: Path) -> str | None:
    """The part of `path` (relative to root) that looks like a dotfile or a secret, if any."""
    for part in path.relative_to(root.resolve()).parts:
        for pattern in SECRET_PATTERNS:
            if fnmatch.fnmatch(part.lower(), pattern):
                return part
    return None


def editor_argv(template: str | None, file: Path, line: int | None, column: int | None) -> list[str]:
    """The editor command as argv (never a shell). `{file}`, `{line}`, `{column}` are filled in."""
    if not template:
        for name, tmpl in (("code", "code -g {file}:{line}:{column}"), ("cursor", "cursor -g {file}:{line}:{column}")):
            if shutil.which(name):
                template = tmpl
                break
    if not template:
        raise Refused("no editor found: set --editor (e.g. 'code -g {file}:{line}:{column}')")
    values = {"file": str(file), "line": str(line or 1), "column": str(column or 1)}
    return [part.format(**values) for part in shlex.split(template)]


@dataclass(eq=False)
class OpenFile(HumanParts):
    """A page's open_file requests: refused (outside the root, secret-looking, too many), or held for the human's
    confirmation in the cockpit, then the editor started (never a shell)."""

    def __post_init__(self) -> None:
        #: open_file requests per page origin (the human could not have asked for more).
        self.limit = RateLimit(self.settings.open_file_per_minute, 60.0)

    def check(self, file: str) -> Path:
        """The file a page may have opened, or raise Refused."""
        root = Path(self.settings.project_root)
        path = confine(root, file)
        part = secret_like(root, path)
        if part and not self.settings.open_file_secrets:
            raise Refused(f"{file[:200]} looks like a dotfile or a secret ({part}); open_file refuses those unless "
                          "--open-file-secrets is set")
        return path

    def request_from_page(self, inst: Instance, data: dict[str, Any]) -> dict[str, Any]:
        """A page asked to open a file: refuse it, or hold it for the human's confirmation in the cockpit (or open it
        at once from the element picker with --open-file-trust-picker). Returns what happened, for the inbox item."""
        settings = self.settings
        key = inst.verified_origin or inst.id
        if not self.limit.admit(key):
            raise RateLimited(f"Too many open_file requests from {key} (at most {settings.open_file_per_minute} a "
                              "minute); this one was dropped.", code="rate_limited")
        file, line, column = str(data.get("file") or ""), _int(data.get("line")), _int(data.get("column"))
        try:
            path = self.check(file)
            argv = editor_argv(settings.editor, path, line, column)
        except Refused as exc:
            return {"opened": False, "error": f"[open_file_refused] {exc}"}
        if settings.open_file_trust_picker and data.get("via") == "picker":
            self.start(argv)
            return {"opened": True, "path": str(path), "command": argv}
        rel = path.relative_to(Path(settings.project_root).resolve())
        origin = inst.verified_origin or inst.origin or "unverified origin"
        q = self.questions.ask("consent", f"Page {inst.id}/host ({origin}) asks to open {rel}:{line or 1} in your "
                               "editor.", inst.id, [OPEN, REFUSE], " ".join(argv), human_only=True)
        q.asker = "page"
        self.spawn(self._await_human(inst, q, argv, str(path)))
        self.spawn(self._tell_page(inst))
        return {"opened": False, "status": "waiting for the human to confirm in the dbg-bridge cockpit",
                "questionId": q.id, "path": str(path)}

    async def _await_human(self, inst: Instance, q: Any, argv: list[str], path: str) -> None:
        try:
            await asyncio.wait_for(asyncio.shield(q.future), self.settings.consent_wait)
        except (TimeoutError, asyncio.CancelledError):
            pass
        answer = q.answer
        self.questions.forget(q)
        self.audit.human("open_file", f"{inst.id}/host", questionId=q.id, decision=answer or "timeout", via=q.via)
        page_id = f"{inst.id}/host"
        if answer == OPEN:
            self.start(argv)
            self.inbox.add("open_file", f"opened {path}", page_id, {"opened": True, "path": path, "command": argv,
                                                                    "questionId": q.id}, source="human")
        else:
            why = "the human refused it" if answer == REFUSE else "nobody confirmed it in the cockpit in time"
            self.inbox.add("open_file", f"not opened: {path}", page_id,
                           {"opened": False, "path": path, "questionId": q.id, "error": f"[open_file_refused] {why}"},
                           source="bridge")

    async def _tell_page(self, inst: Instance) -> None:
        try:
            await self.dispatcher.call_page(f"{inst.id}/host", "notify", {
                "message": "Confirm opening the file in the dbg-bridge cockpit.", "level": "info",
                "durationMs": 6000}, 5)
        except errors.BridgeError:
            pass

    def start(self, argv: list[str]) -> None:
        """Start the editor in the background (its exit is not waited for by anyone)."""
        self.spawn(_run(argv))


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):
        return None


async def _run(argv: list[str]) -> None:
    try:
        proc = await asyncio.create_subprocess_exec(*argv, stdin=asyncio.subprocess.DEVNULL,
                                                    stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
        await proc.wait()
    except OSError as exc:
        log.warning("editor command failed: %s", exc)
