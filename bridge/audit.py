"""The audit trace: every tool call and every human event as one JSON line in `<config_dir>/audit.jsonl`
(rotated by size), and fanned out live to the cockpit.

A record is built (summarised) when it happens and reaches the cockpit and `recent` at once; its line is written
off the call's path: records are buffered and written together (one `write`, never fsynced) FLUSH_AFTER seconds
after the first, when MAX_BUFFERED pile up, on `flush()` (POST /bridge/audit/flush, what tests call before reading
the file) and on shutdown. A bridge killed with SIGKILL loses at most the last FLUSH_AFTER seconds of lines.
Without a running event loop (a script, a unit test) each record is written at once.

Arguments are summarised: long strings are cut, values under secret-looking keys are dropped, text typed into a
page (`value`) is kept as its length only, and the bearer token or any page secret is blanked wherever it appears.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import secrets
import time
from collections import deque
from collections.abc import Callable, Iterable, Set as AbstractSet
from pathlib import Path
from typing import IO, Any

from starlette.types import ASGIApp, Receive, Scope, Send

log = logging.getLogger("bridge.audit")

#: Keys whose values never reach the log (matched case-insensitively anywhere in the key).
SECRET_KEY = re.compile(r"pass(word|wd)?|secret|token|auth|cookie|api[-_]?key|credential|session|private",
                        re.IGNORECASE)
#: Keys holding text typed into the page (page_act fill/type): logged as their length only.
TYPED_KEYS = frozenset({"value"})
#: Arguments of particular tools that are typed text too.
TYPED_ARGS = {"desktop_type_text": frozenset({"text"})}
#: `Bearer xyz` or `token=xyz` inside free text (code, messages).
SECRET_IN_TEXT = re.compile(r"(?i)(bearer\s+|(?:token|secret|password|api[-_]?key)\s*[=:]\s*[\"']?)[^\s\"'&,;]{6,}")
MAX_STRING = 200
#: Runs of characters a page secret is made of (bridge/pages/protocol.py `Secret`): candidates looked up in a set, so
#: redaction costs the same with one page or ten thousand.
SECRET_RUN = re.compile(r"[A-Za-z0-9_-]{32,}")
#: Neither SECRET_IN_TEXT (`token=` and six characters) nor a page secret fits in shorter text.
SHORTEST_MATCH = 12
#: Argument names seen (key -> looks secret), so a call's keys are matched against SECRET_KEY once, not per record.
KEY_MEMO = 4096
MAX_ITEMS = 20
MAX_DEPTH = 4
RECENT = 500
#: Seconds a record's line may wait in memory before it is written (with every other line that came meanwhile).
FLUSH_AFTER = 0.1
#: Lines held at most before they are written regardless of the timer.
MAX_BUFFERED = 512


class Audit:
    """Appends records to `path` (None: memory only) and hands each to the live listeners."""

    def __init__(self, path: Path | None, max_bytes: int = 5 << 20, keep: int = 3,
                 secrets_of: Callable[[], AbstractSet[str]] | None = None) -> None:
        self.path, self.max_bytes, self.keep = path, max_bytes, keep
        self.secrets: set[str] = set()  # the bearer token, added by the app
        self._secrets_of = secrets_of or frozenset  # the pages' secrets (a set kept by the caller), asked per record
        self._sized: tuple[AbstractSet[str] | None, list[int]] = (None, [])
        self._listeners: list[asyncio.Queue[dict[str, Any]]] = []
        self.recent: deque[dict[str, Any]] = deque(maxlen=RECENT)
        self.run = secrets.token_hex(3)  # tells a cockpit that reconnects whether its last id is from this process
        self.seq = 0
        self.tool_calls = 0
        self.agent_seen: float | None = None
        self._secret_keys: dict[str, bool] = {}
        self._file: IO[bytes] | None = None
        self._size = 0
        self._broken = False
        #: Records not written yet (their lines go out together on the next flush).
        self._buffered: list[dict[str, Any]] = []
        self._timer: asyncio.TimerHandle | None = None

    # ---- what gets recorded ------------------------------------------------------------------------------

    def tool_call(self, tool: str, args: dict[str, Any], ms: float, value: Any = None,
                  error: BaseException | None = None) -> dict[str, Any]:
        """One finished tool call: its name, target page, argument summary, outcome and duration."""
        self.tool_calls += 1
        page_id = args.get("pageId")
        if not page_id and isinstance(value, dict):
            page_id = value.get("pageId")
        out: dict[str, Any] = {"kind": "tool", "tool": tool, "pageId": page_id if isinstance(page_id, str) else None,
                               "args": self.summarise({k: v for k, v in args.items() if k != "pageId" and v is not None})}
        for key in TYPED_ARGS.get(tool, ()) & out["args"].keys():
            out["args"][key] = f"<{len(args[key])} chars>" if isinstance(args[key], str) else "<redacted>"
        if error is None:
            is_error = bool(getattr(value, "isError", False) or getattr(value, "is_error", False))
            out["outcome"] = "error" if is_error else "ok"
            if is_error:
                out["code"] = "tool_error"
        elif isinstance(error, asyncio.CancelledError):
            out.update(outcome="error", code="cancelled")
        else:
            out.update(outcome="error", code=getattr(error, "code", None) or type(error).__name__)
            out["message"] = self._clean(str(error).split("\n", 1)[0])
        out["ms"] = round(ms, 1)
        return self._record(out)

    def inbox_item(self, item: Any) -> None:
        """An inbox hook: each new inbox item (a message, an answer, a picked element…) as a human event."""
        data = item.data or {}
        extra = {"questionId": data["questionId"]} if "questionId" in data else {}
        self.human("inbox", item.pageId, item=item.kind, itemId=item.id, text=item.text, **{"from": item.source},
                   **extra)

    def human(self, kind: str, page_id: str | None = None, **fields: Any) -> dict[str, Any]:
        """A human event: an inbox item, an answer, a consent decision, a question shown, a cockpit action."""
        return self._record({"kind": kind, "pageId": page_id, **self.summarise(fields)})

    def note_agent(self) -> None:
        """An authenticated MCP request arrived (the first one is recorded)."""
        first = self.agent_seen is None
        self.agent_seen = time.time()
        if first:
            self._record({"kind": "agent", "pageId": None, "event": "first MCP request"})

    # ---- summarising -----------------------------------------------------------------------------------------

    def summarise(self, value: Any, depth: int = 0, key: str = "") -> Any:
        if key and self._secret_key(key):
            return "<redacted>"
        if key in TYPED_KEYS and isinstance(value, str):
            return f"<{len(value)} chars>"
        if isinstance(value, str):
            return self._clean(value)
        if value is None or isinstance(value, bool | int | float):
            return value
        if depth >= MAX_DEPTH:
            return "…"
        if isinstance(value, dict):
            items = list(value.items())
            out = {str(k): self.summarise(v, depth + 1, str(k)) for k, v in items[:MAX_ITEMS]}
            if len(items) > MAX_ITEMS:
                out["…"] = f"{len(items) - MAX_ITEMS} more"
            return out
        if isinstance(value, list | tuple | set):
            seq = list(value)
            out_list = [self.summarise(v, depth + 1) for v in seq[:MAX_ITEMS]]
            if len(seq) > MAX_ITEMS:
                out_list.append(f"… {len(seq) - MAX_ITEMS} more")
            return out_list
        return self._clean(repr(value))

    def _secret_key(self, key: str) -> bool:
        found = self._secret_keys.get(key)
        if found is None:
            found = SECRET_KEY.search(key) is not None
            if len(self._secret_keys) < KEY_MEMO:
                self._secret_keys[key] = found
        return found

    def _clean(self, text: str) -> str:
        for secret in self.secrets:
            if secret and secret in text:
                text = text.replace(secret, "<redacted>")
        if len(text) < SHORTEST_MATCH:
            return text
        page_secrets = self._secrets_of()
        if page_secrets and len(text) >= 32:
            if page_secrets is not self._sized[0]:
                self._sized = (page_secrets, sorted({len(x) for x in page_secrets}))
            sizes = self._sized[1]
            text = SECRET_RUN.sub(lambda m: _mask(m.group(0), page_secrets, sizes), text)
        text = SECRET_IN_TEXT.sub(r"\1<redacted>", text)
        return text if len(text) <= MAX_STRING else text[:MAX_STRING - 1] + f"… ({len(text)} chars)"

    # ---- writing and fan-out ---------------------------------------------------------------------------------

    def listen(self, maxsize: int = 2000) -> asyncio.Queue[dict[str, Any]]:
        """A queue that gets every record from now on (a stalled reader misses lines; the file has them all)."""
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue(maxsize=maxsize)
        self._listeners.append(queue)
        return queue

    def unlisten(self, queue: asyncio.Queue[dict[str, Any]]) -> None:
        if queue in self._listeners:
            self._listeners.remove(queue)

    def _record(self, rec: dict[str, Any]) -> dict[str, Any]:
        self.seq += 1
        rec = {"t": round(time.time(), 3), "id": f"{self.run}:{self.seq}",
               **{k: v for k, v in rec.items() if k not in ("t", "id")}}
        self.recent.append(rec)
        for q in self._listeners:
            try:
                q.put_nowait(rec)
            except asyncio.QueueFull:
                pass  # a stalled cockpit tab misses lines; the file has them all
        if self.path is not None and not self._broken:
            self._buffer(rec)
        return rec

    def _buffer(self, rec: dict[str, Any]) -> None:
        """Hold the record's line for the next flush (now, with no event loop or a full buffer)."""
        self._buffered.append(rec)
        if self._timer is not None and len(self._buffered) < MAX_BUFFERED:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is None or len(self._buffered) >= MAX_BUFFERED:
            self.flush()
        else:
            self._timer = loop.call_later(FLUSH_AFTER, self.flush)

    def flush(self) -> None:
        """Write every buffered line now (one `write`, or one per file when the log rotates in between)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        recs, self._buffered = self._buffered, []
        if not recs or self.path is None or self._broken:
            return
        chunk = bytearray()
        try:
            if self._file is None:
                self._open()
            for rec in recs:
                data = (json.dumps(rec, ensure_ascii=False, default=str) + "\n").encode()
                if self._size + len(chunk) + len(data) > self.max_bytes and self._size + len(chunk) > 0:
                    self._put(chunk)
                    chunk = bytearray()
                    self._rotate()
                chunk += data
            self._put(chunk)
        except OSError as exc:
            self._broken = True
            log.warning("audit log disabled: cannot write %s: %s", self.path, exc)

    def _put(self, chunk: bytearray) -> None:
        if chunk:
            assert self._file is not None
            self._file.write(chunk)  # unbuffered: one write(2), in the page cache once flush() returns
            self._size += len(chunk)

    def _open(self) -> None:
        assert self.path is not None
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        self._file = os.fdopen(fd, "ab", buffering=0)
        self._size = os.fstat(fd).st_size

    def _rotate(self) -> None:
        """audit.jsonl -> .1 -> .2 … ; at most `keep` old files stay."""
        assert self.path is not None and self._file is not None
        self._file.close()
        self._file = None
        for n in range(self.keep, 0, -1):
            src = self.path if n == 1 else self.path.with_name(f"{self.path.name}.{n - 1}")
            if src.exists():
                os.replace(src, self.path.with_name(f"{self.path.name}.{n}"))
        if self.keep <= 0:
            self.path.unlink(missing_ok=True)
        self._open()

    def close(self) -> None:
        """Write what is buffered and close the file (the app's shutdown)."""
        self.flush()
        if self._file is not None:
            self._file.close()
            self._file = None


def _mask(run: str, secrets_: AbstractSet[str], sizes: list[int]) -> str:
    """`run` with every page secret inside it blanked (a secret may sit inside a longer run, e.g. glued to a word)."""
    if run in secrets_:
        return "<redacted>"
    for size in sizes:
        if size < len(run):
            for i in range(len(run) - size + 1):
                if run[i:i + size] in secrets_:
                    return run[:i] + "<redacted>" + _mask(run[i + size:], secrets_, sizes)
    return run


def watching_agent(app: ASGIApp, audit: Audit) -> ASGIApp:
    """Wraps the MCP endpoint (inside the token gate) so the cockpit knows whether an agent ever called."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            audit.note_agent()
        await app(scope, receive, send)

    return wrapped
