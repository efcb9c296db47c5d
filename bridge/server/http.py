"""The one JSON error shape every HTTP route answers with, and body reading with a size limit."""

from __future__ import annotations

import json
import math
import re
from typing import Any

from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse


class HTTPError(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def error_response(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    """`{"error": {"code": ..., "message": ...}}`: the shape of every error the bridge's routes return."""
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status, headers=headers)


#: A count as a query or header carries it: ASCII digits only (`str.isdigit` also takes '²' and '٣', which `int`
#: refuses or reads), and few enough of them that `int` never meets its 4300-digit limit.
_COUNT = re.compile(r"[0-9]{1,18}")
#: Seconds: a plain decimal (no exponent, no inf/nan).
_SECONDS = re.compile(r"[0-9]{1,9}(?:\.[0-9]{1,9})?")


def parse_count(raw: str | None, name: str, maximum: int, default: int = 0, code: str = "bad_request") -> int:
    """A whole number from 0 to `maximum` from a query parameter or header (None or empty: `default`); anything
    else is HTTPError 400 naming `name` and the bounds."""
    if raw is None or raw == "":
        return default
    if _COUNT.fullmatch(raw) is None or int(raw) > maximum:
        raise HTTPError(400, code, f"{name} must be a whole number from 0 to {maximum} (ASCII digits), got "
                                   f"{raw[:24]!r}{'…' if len(raw) > 24 else ''}.")
    return int(raw)


def parse_seconds(raw: str | None, name: str, maximum: float, default: float = 0.0, code: str = "bad_request") -> float:
    """Seconds from 0 to `maximum` (a plain decimal) from a query parameter or header; else HTTPError 400."""
    if raw is None or raw == "":
        return default
    value = float(raw) if _SECONDS.fullmatch(raw) else math.nan
    if not 0 <= value <= maximum:
        raise HTTPError(400, code, f"{name} must be seconds from 0 to {maximum:g} (like 2 or 0.5), got "
                                   f"{raw[:24]!r}{'…' if len(raw) > 24 else ''}.")
    return value


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, or HTTPError(413) as soon as it is over `limit` bytes."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if _COUNT.fullmatch(declared) is None:
            raise HTTPError(400, "bad_request", "Content-Length is not a number.")
        if int(declared) > limit:
            raise HTTPError(413, "body_too_large", f"Body of {declared} bytes is over the {limit}-byte limit.")
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise HTTPError(413, "body_too_large", f"Body is over the {limit}-byte limit.")
            chunks.append(chunk)
    except ClientDisconnect:
        raise HTTPError(400, "client_disconnected", "The client went away mid-body.") from None
    return b"".join(chunks)


async def read_json_object(request: Request, limit: int) -> dict[str, Any]:
    """The body as a JSON object (an empty body is `{}`), or HTTPError(400 bad_json / bad_request, 413)."""
    raw = await read_body(request, limit)
    try:
        data = json.loads(raw or b"{}")
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise HTTPError(400, "bad_json", f"Body is not valid JSON: {exc}.") from None
    if not isinstance(data, dict):
        raise HTTPError(400, "bad_request", "Body must be a JSON object.")
    return data
