"""The one JSON error shape every HTTP route answers with, and body reading with a size limit."""

from __future__ import annotations

import json
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


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, or HTTPError(413) as soon as it is over `limit` bytes."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isdigit():
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
