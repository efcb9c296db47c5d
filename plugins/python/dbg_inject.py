"""Inject the dbg-bridge page client into HTML pages served by a Python dev server (ASGI or WSGI).

    # FastAPI / Starlette (any ASGI app)
    app.add_middleware(DbgInjectASGI, enabled=settings.debug)
    # Flask / Django (any WSGI app)
    app.wsgi_app = DbgInjectWSGI(app.wsgi_app, enabled=app.debug)

Only complete `text/html` responses are touched (the script tag goes at the top of <head>, Content-Length is fixed);
non-HTML, compressed and streamed responses pass through byte for byte. No dependencies.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

__all__ = ["DbgInjectASGI", "DbgInjectWSGI", "inject_html", "script_tag"]

DEFAULT_BRIDGE = "http://127.0.0.1:7878"
_HEAD = re.compile(rb"<head(?:\s[^>]*)?>", re.IGNORECASE)
_HTML = re.compile(rb"<html(?:\s[^>]*)?>", re.IGNORECASE)


def script_tag(bridge: str = DEFAULT_BRIDGE, attach: str = "python") -> bytes:
    src = bridge.rstrip("/") + "/inject/dbg_client.js"
    return f'<script src="{src}" data-attach="{attach}"></script>'.encode()


def inject_html(body: bytes, tag: bytes) -> bytes:
    """The page with `tag` at the top of <head> (or after <html>, or first); unchanged if it already has it."""
    if tag in body:
        return body
    for pattern in (_HEAD, _HTML):
        m = pattern.search(body)
        if m:
            return body[: m.end()] + tag + body[m.end():]
    return tag + body


def _is_plain_html(headers: Iterable[tuple[bytes, bytes]]) -> bool:
    kind, encoding = b"", b""
    for k, v in headers:
        k = k.lower()
        if k == b"content-type":
            kind = v.lower()
        elif k == b"content-encoding":
            encoding = v.lower()
    return kind.startswith(b"text/html") and encoding in (b"", b"identity")


class DbgInjectASGI:
    """ASGI middleware; `enabled=False` (e.g. production) makes it a pass-through."""

    def __init__(self, app: Callable[..., Awaitable[None]], enabled: bool = True, bridge: str = DEFAULT_BRIDGE,
                 attach: str = "python") -> None:
        self.app, self.enabled, self.tag = app, enabled, script_tag(bridge, attach)

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        if not self.enabled or scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start: dict[str, Any] | None = None
        passthrough = False

        async def wrapped(message: dict[str, Any]) -> None:
            nonlocal start, passthrough
            if message["type"] == "http.response.start":
                if _is_plain_html(message.get("headers", [])):
                    start = message  # hold it: the length may change
                    return
                passthrough = True
            elif message["type"] == "http.response.body" and start is not None and not passthrough:
                held, start = start, None
                if message.get("more_body"):  # streamed: leave it alone
                    passthrough = True
                    await send(held)
                else:
                    body = inject_html(message.get("body", b""), self.tag)
                    headers = [(k, v) for k, v in held.get("headers", []) if k.lower() != b"content-length"]
                    headers.append((b"content-length", str(len(body)).encode()))
                    await send({**held, "headers": headers})
                    message = {**message, "body": body}
            await send(message)

        await self.app(scope, receive, wrapped)


class DbgInjectWSGI:
    """WSGI middleware; injects only into complete HTML responses that declare their Content-Length."""

    def __init__(self, app: Callable[..., Iterable[bytes]], enabled: bool = True, bridge: str = DEFAULT_BRIDGE,
                 attach: str = "python") -> None:
        self.app, self.enabled, self.tag = app, enabled, script_tag(bridge, attach)

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if not self.enabled:
            return self.app(environ, start_response)
        captured: dict[str, Any] = {}

        def capture(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Callable[[bytes], None]:
            captured.update(status=status, headers=headers, exc_info=exc_info)
            return lambda data: None  # the legacy write() callable is not supported by this middleware

        result = self.app(environ, capture)
        if "status" not in captured:  # a generator app that starts its response lazily: pass it through
            return self._late(result, captured, start_response)
        headers = captured.get("headers", [])
        raw = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers]
        has_length = any(k.lower() == "content-length" for k, _ in headers)
        if not (_is_plain_html(raw) and has_length):
            start_response(captured["status"], headers, captured.get("exc_info"))
            return result
        try:
            body = b"".join(result)
        finally:
            if hasattr(result, "close"):
                result.close()
        body = inject_html(body, self.tag)
        headers = [(k, v) for k, v in headers if k.lower() != "content-length"] + [("Content-Length", str(len(body)))]
        start_response(captured["status"], headers, captured.get("exc_info"))
        return [body]

    @staticmethod
    def _late(result: Iterable[bytes], captured: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        started = False
        try:
            for chunk in result:
                if not started:
                    start_response(captured["status"], captured["headers"], captured.get("exc_info"))
                    started = True
                yield chunk
            if not started and "status" in captured:
                start_response(captured["status"], captured["headers"], captured.get("exc_info"))
        finally:
            if hasattr(result, "close"):
                result.close()
