"""create_app(settings): the bridge's state built once, the route list, and the one lifespan that owns the state's
running parts (the shared state, the desktop, the agent) and the MCP sessions."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from bridge.routes import skills as skill_routes
from bridge.runs.service import Agent
from bridge.audit import watching_agent
from bridge.server.http import error_response
from bridge.server.mcp_server import build_server, http_app
from bridge.server.principals import load_or_create_key
from bridge.pages.registry import Registry
from bridge.cockpit import routes as cockpit
from bridge.cockpit import runs as cockpit_runs
from bridge.cockpit import skills as cockpit_skills
from bridge.routes import audit_flush, page_channel, runs, sessions, static
from bridge.server.security import GuardMiddleware, Policy, TokenGate
from bridge.settings import Settings
from bridge.state import BridgeState


def create_app(settings: Settings, token: str | None) -> Starlette:
    """The bridge as an ASGI app. `settings.port` must be the port actually bound (Host checks use it)."""
    state = BridgeState(settings)
    from bridge.shared.seam import open_store
    from bridge.skills.service import SkillService

    state.skills = SkillService(state, open_store(settings))  # the shared-state backend's: Redis or files
    policy = Policy(settings)
    server = build_server(state)
    agent = state.agent = Agent(settings, state)  # runs call the same server in-process (state.road)
    mcp_endpoint = TokenGate(watching_agent(http_app(server, state, policy), state.audit), token)
    if token:
        state.audit.secrets.add(token)  # never in the audit log, wherever an argument carries it

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        state.open_desktop()  # only an object until a desktop_* tool runs something
        async with server.session_manager.run():
            await state.shared.start()  # reserved ids back from pages.json, or the team bridge joined
            sweeper = asyncio.create_task(_sweep(state.registry, settings.page_ttl))
            agent.start()
            try:
                yield
            finally:
                sweeper.cancel()
                await agent.stop()
                await state.shared.stop()
                state.registry.save()
                await state.close_desktop()  # its display and apps stop with it here
                state.audit.close()

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return error_response(exc.status_code, "http_error", str(exc.detail))

    app = Starlette(
        routes=[
            Route("/mcp", mcp_endpoint),
            Route("/mcp/mcp", mcp_endpoint),  # the old path keeps working
            *page_channel.routes,
            *sessions.routes,
            *audit_flush.routes,
            *skill_routes.routes,
            *runs.routes,
            *cockpit_runs.routes,  # before the cockpit's /cockpit/{name} assets
            *cockpit_skills.routes,
            *cockpit.routes,
            *static.routes,
        ],
        middleware=[Middleware(GuardMiddleware, policy=policy)],
        exception_handlers={HTTPException: http_error},
        lifespan=lifespan,
    )
    app.state.bridge = state
    app.state.settings = settings
    app.state.policy = policy
    app.state.agent = agent
    app.state.token = token
    #: The human's key for their terminal (bridge/server/principals.py): never the token, never shown to an MCP client.
    app.state.human_key = load_or_create_key(settings.config_dir)
    state.audit.secrets.add(app.state.human_key)
    app.state.cockpit_key = cockpit.new_key()  # the cockpit's cookie value, new each process
    app.state.started = time.time()
    return app


async def _sweep(registry: Registry, page_ttl: float) -> None:
    """Drop pages gone longer than the TTL, a few times a minute."""
    while True:
        await asyncio.sleep(min(10.0, page_ttl / 4))
        registry.sweep()
