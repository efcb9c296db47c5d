"""The agent of one bridge: its runs, the other MCP servers, the seams, and how a run is started and driven.
Built by the app (create_app) with the bridge's state and the MCP server it serves /mcp with."""

from __future__ import annotations

from typing import Any

from bridge.runs.budgets import RunRequest
from bridge.server.agents import identity
from bridge.runs.loop import Loop, Services
from bridge.runs.mcp_servers import McpServers
from bridge.runs.model import Model, build_model
from bridge.runs.runs import Run, Runs
from bridge.runs.seams import Seams
from bridge.settings import Settings


class Agent:
    def __init__(self, settings: Settings, state: Any, server: Any) -> None:
        self.settings = settings
        self.runs = Runs(settings.config_dir)
        self.externals = McpServers(settings.mcp_servers, settings.config_dir)
        self.services = Services(server, state, Seams.load(settings), self.externals)
        self._models: dict[str, Model] = {}

    def start(self) -> None:
        """The lifespan's start: the other MCP servers start in the background (runs wait for them, bounded)."""
        self.externals.start()

    async def stop(self) -> None:
        await self.runs.close()
        await self.externals.stop()

    def start_run(self, request: RunRequest) -> Run:
        """Start a run now (raises a BridgeError when no model can be reached: nothing starts)."""
        key = request.model_key.get_secret_value() if request.model_key is not None else None
        model = build_model(self.settings, request.model, self.services.state.clients, request.model_url, key)
        allow = sorted({*self.settings.run_allow, *request.allow})
        request = request.model_copy(update={"allow": allow, "model_key": None})  # the key lives in the model only
        run = self.runs.start(request, request.budgets.resolved(self.settings), lambda run: self._drive(run, model))
        self.services.state.audit.human("run", None, action="start", run=run.id, task=request.task,
                                        model=model.name)
        return run

    async def _drive(self, run: Run, model: Model) -> None:
        loop = Loop(run, model, self.services, self.settings.takeover_wait)
        try:
            await self.externals.ready()
            await loop.drive()
        finally:  # the tabs it held are free at once; Live activity shows each run's end in words
            self.services.state.leases.release(identity(loop.ctx)[0])
            self.services.state.audit.human("run", None, action="end", run=run.id, state=run.state,
                                            summary=run.summary[:500])
