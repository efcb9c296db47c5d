"""create_app(settings): the route list and the one lifespan that owns the dispatcher and the MCP sessions."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from bridge.agent import skill_routes
from bridge.agent.service import Agent
from bridge.audit import watching_agent
from bridge.desktop import served
from bridge.desktop.service import Desktop
from bridge.dispatch import Dispatcher
from bridge.http import error_response
from bridge.mcp_server import build_server, http_app
from bridge.cockpit import routes as cockpit
from bridge.cockpit import runs as cockpit_runs
from bridge.cockpit import skills as cockpit_skills
from bridge.routes import audit_flush, page_channel, runs, sessions, static
from bridge.security import GuardMiddleware, Policy, TokenGate
from bridge.settings import Settings


def create_app(settings: Settings, token: str | None) -> Starlette:
    """The bridge as an ASGI app. `settings.port` must be the port actually bound (Host checks use it)."""
    dispatcher = Dispatcher(settings)
    from bridge.agent.skill_seam import open_settings_store
    from bridge.agent.skill_service import SkillService

    dispatcher.skills = SkillService(dispatcher, open_settings_store(settings))  # Redis with --cluster, else files
    policy = Policy(settings)
    server = build_server(dispatcher)
    agent = dispatcher.agent = Agent(settings, dispatcher, server)  # runs call the same server in-process
    mcp_endpoint = TokenGate(watching_agent(http_app(server, dispatcher, policy), dispatcher.audit), token)
    if token:
        dispatcher.audit.secrets.add(token)  # never in the audit log, wherever an argument carries it

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        # the desktop is only an object until a desktop_* tool runs something; its Xvfb and apps stop with it here
        loop = asyncio.get_running_loop()

        def control_changed(state: dict[str, Any]) -> None:  # from the desktop's watcher thread
            text = ("The human took the desktop: the agent's desktop input is refused until they hand it back"
                    if state["holder"] == "human" else "The desktop is the agent's again")
            loop.call_soon_threadsafe(lambda: dispatcher.inbox.add(
                "desktop_control", f"{text} ({state['reason']}).", None, state, source="human"))

        dispatcher.desktop = Desktop(settings, control_changed) if served(settings) else None
        async with server.session_manager.run():
            await dispatcher.shared.start()  # reserved ids back from pages.json, or the team bridge joined
            sweeper = asyncio.create_task(_sweep(dispatcher))
            agent.start()
            try:
                yield
            finally:
                sweeper.cancel()
                await agent.stop()
                await dispatcher.shared.stop()
                dispatcher.registry.save()
                desktop, dispatcher.desktop = dispatcher.desktop, None
                if desktop is not None:
                    await asyncio.to_thread(desktop.close)
                dispatcher.audit.close()

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
    app.state.dispatcher = dispatcher
    app.state.settings = settings
    app.state.policy = policy
    app.state.agent = agent
    app.state.token = token
    app.state.cockpit_key = cockpit.new_key()  # the cockpit's cookie value, new each process
    app.state.started = time.time()
    return app


async def _sweep(dispatcher: Dispatcher) -> None:
    """Drop pages gone longer than the TTL, a few times a minute."""
    while True:
        await asyncio.sleep(min(10.0, dispatcher.settings.page_ttl / 4))
        dispatcher.registry.sweep()
