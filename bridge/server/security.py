"""Host and Origin rules for every route (DNS rebinding, cross-site requests), CORS for pages, the MCP token."""

from __future__ import annotations

import hmac
import logging
import re
import secrets
from pathlib import Path

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from bridge.server.http import error_response
from bridge.settings import Settings

log = logging.getLogger("bridge.server.security")

#: Routes a page (any allowed page origin) may call; everything else is for the bridge's own origin only.
PAGE_PATHS = ("/bridge/register", "/bridge/events", "/bridge/ws", "/bridge/result", "/inject/")

_LOOPBACK_ORIGIN = re.compile(
    r"^https?://(?:127\.0\.0\.1|localhost|\[::1\]|[a-z0-9-]+\.localhost)(?::\d{1,5})?$", re.IGNORECASE
)


class Policy:
    """Which Host and Origin values this bridge accepts; built once from settings and the bound port."""

    def __init__(self, settings: Settings) -> None:
        port = settings.port
        names = ["127.0.0.1", "localhost", "[::1]"]
        if not settings.is_loopback and settings.host not in ("0.0.0.0", "::"):
            names.append(f"[{settings.host}]" if ":" in settings.host else settings.host)
        own = {f"{n}:{port}" for n in names}
        self.own_origins = {f"http://{h}" for h in own}
        #: A balancer's or proxy's names (--public-hosts) pass the Host check; they are no origin of the bridge's.
        self.hosts = own | {h.lower() for h in settings.public_hosts}
        self._shard_host = re.compile(rf"^[a-z0-9-]+\.localhost:{port}$", re.IGNORECASE)
        self._own_shard = re.compile(rf"^http://[a-z0-9-]+\.localhost:{port}$", re.IGNORECASE)
        self._extra = [_origin_pattern(o) for o in settings.allow_origins]

    def host_ok(self, host: str | None, page: bool = True) -> bool:
        """The bridge's own names; the per-tab `dbg-<id>.localhost` names only on page-channel routes."""
        if not host:
            return False
        host = host.lower()
        return host in self.hosts or (page and bool(self._shard_host.match(host)))

    def own_origin(self, origin: str) -> bool:
        return origin in self.own_origins or bool(self._own_shard.match(origin))

    def page_origin(self, origin: str) -> bool:
        if self.own_origin(origin) or _LOOPBACK_ORIGIN.match(origin):
            return True
        return any(p.match(origin) for p in self._extra)


def _origin_pattern(origin: str) -> re.Pattern[str]:
    """'http://host:*' allows any port of that host; anything else must match exactly."""
    origin = origin.rstrip("/")
    if origin.endswith(":*"):
        return re.compile(re.escape(origin[:-2]) + r"(?::\d{1,5})?$", re.IGNORECASE)
    return re.compile(re.escape(origin) + "$", re.IGNORECASE)


def is_page_path(path: str) -> bool:
    return path.startswith(PAGE_PATHS)


class GuardMiddleware:
    """Rejects a foreign Host (421) or Origin (403) on every HTTP and WebSocket route; answers CORS for pages."""

    def __init__(self, app: ASGIApp, policy: Policy) -> None:
        self.app, self.policy = app, policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        path: str = scope["path"]
        if not self.policy.host_ok(headers.get("host"), page=is_page_path(path)):
            await self._refuse(scope, receive, send, 421, "bad_host",
                               f"Host '{headers.get('host', '')}' is not this bridge. Use "
                               f"{sorted(self.policy.own_origins)[0]} (DNS-rebinding protection).")
            return
        origin = headers.get("origin")
        page = is_page_path(path)
        if origin is not None and origin != "null":
            allowed = self.policy.page_origin(origin) if page else self.policy.own_origin(origin)
            if not allowed:
                log.warning("refused %s %s from origin %s", scope.get("method", "WS"), path, origin)
                hint = ("Allow it with --allow-origins / DBG_ALLOW_ORIGINS." if page else
                        "Only the bridge's own pages may call this route from a browser.")
                await self._refuse(scope, receive, send, 403, "bad_origin", f"Origin '{origin}' is not allowed. {hint}")
                return
        elif origin == "null":
            await self._refuse(scope, receive, send, 403, "bad_origin",
                               "Opaque origins (sandboxed frames, file://) are not allowed.")
            return
        # CORS whenever the page is cross-origin to the host it called: a dev server's page, and also the bridge's
        # own /demo calling its per-tab *.localhost host (the sharded SSE stream and its result POSTs).
        same_origin = origin is not None and origin.lower() == "http://" + headers.get("host", "").lower()
        if scope["type"] == "http" and page and origin and not same_origin:
            if scope["method"] == "OPTIONS":
                await _preflight(origin)(scope, receive, send)
                return
            await self.app(scope, receive, _with_cors(send, origin))
            return
        await self.app(scope, receive, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send, status: int, code: str, text: str) -> None:
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008, "reason": text[:120]})
            return
        await error_response(status, code, text)(scope, receive, send)


def _cors_headers(origin: str) -> list[tuple[bytes, bytes]]:
    return [(b"access-control-allow-origin", origin.encode("latin-1")), (b"vary", b"Origin")]


def _with_cors(send: Send, origin: str) -> Send:
    async def wrapped(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", []), *_cors_headers(origin)]}
        await send(message)

    return wrapped


def _preflight(origin: str) -> ASGIApp:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 204, "headers": [
            *_cors_headers(origin),
            (b"access-control-allow-methods", b"GET, POST"),
            (b"access-control-allow-headers", b"content-type"),
            (b"access-control-max-age", b"600"),
        ]})
        await send({"type": "http.response.body", "body": b""})

    return app


# ---- page secrets stay out of the log ---------------------------------------------------------------

_SECRET_IN_QUERY = re.compile(r"([?&]t=)[^&\s\"']+")


class RedactSecrets(logging.Filter):
    """Blanks the page secret (`t=` in /bridge/events and /bridge/ws URLs) in any log line, e.g. uvicorn's
    `"WebSocket /bridge/ws?i=..&t=.." [accepted]`."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = _SECRET_IN_QUERY.sub(r"\1<redacted>", message)
        if redacted != message:
            record.msg, record.args = redacted, None
        return True


# ---- the bearer token on /mcp and /bridge/sessions ----------------------------------------------


def load_or_create_token(settings: Settings) -> str:
    """The token from settings, else the token file (created 0600 with a random token if missing)."""
    if settings.token:
        return settings.token
    return secret_file(settings.token_file)


def secret_file(path: Path) -> str:
    """The secret kept in `path`, created (0600, in a 0700 folder) with a random one if missing or empty."""
    if path.is_file():
        secret = path.read_text().strip()
        if secret:
            return secret
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    secret = secrets.token_urlsafe(32)
    path.touch(mode=0o600, exist_ok=True)
    path.chmod(0o600)
    path.write_text(secret + "\n")
    return secret


def bearer_ok(headers: Headers, token: str | None) -> bool:
    """True if auth is off (token None) or the Authorization header carries the token."""
    if token is None:
        return True
    auth = headers.get("authorization", "")
    scheme, _, value = auth.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(value.strip().encode(), token.encode())


class TokenGate:
    """Wraps an ASGI app (the MCP endpoint) so only callers with the bearer token get through."""

    def __init__(self, app: ASGIApp, token: str | None) -> None:
        self.app, self.token = app, token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not bearer_ok(Headers(scope=scope), self.token):
            await error_response(
                401, "unauthorized",
                "Missing or wrong bearer token. Send 'Authorization: Bearer <token>'; `dbg-bridge token` prints it.",
                headers={"WWW-Authenticate": 'Bearer realm="dbg-bridge"'},
            )(scope, receive, send)
            return
        await self.app(scope, receive, send)
