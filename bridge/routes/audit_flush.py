"""POST /bridge/audit/flush: write the audit lines still buffered (token required), so a reader of audit.jsonl
sees every record made before it asked (the tests read the file right after their calls)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from bridge.server.http import error_response
from bridge.server.security import bearer_ok


async def flush(request: Request) -> Response:
    if not bearer_ok(request.headers, request.app.state.token):
        return error_response(401, "unauthorized", "Send 'Authorization: Bearer <token>'; `dbg-bridge token` prints it.",
                              headers={"WWW-Authenticate": 'Bearer realm="dbg-bridge"'})
    request.app.state.bridge.audit.flush()
    return Response(status_code=204)


routes = [Route("/bridge/audit/flush", flush, methods=["POST"])]
