"""GET /bridge/sessions: what is connected, for tools and humans (token required, never a secret)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from bridge.server.http import error_response
from bridge.server.security import bearer_ok


async def sessions(request: Request) -> Response:
    if not bearer_ok(request.headers, request.app.state.token):
        return error_response(401, "unauthorized", "Send 'Authorization: Bearer <token>'; `dbg-bridge token` prints it.",
                              headers={"WWW-Authenticate": 'Bearer realm="dbg-bridge"'})
    return JSONResponse({"pages": request.app.state.bridge.registry.page_rows()})


routes = [Route("/bridge/sessions", sessions, methods=["GET"])]
