"""The agent of one bridge: its runs, the other MCP servers, the seams, and how a run is started and driven.
Built by the app (create_app) with the bridge's state, once the MCP server (and so the road into tools,
`state.road`) is built."""

from __future__ import annotations

from typing import Any

from bridge.errors import BridgeError
from bridge.runs.budgets import RunRequest
from bridge.server.agents import identity
from bridge.runs.loop import Loop, Services
from bridge.runs.mcp_servers import McpServers
from bridge.runs.model import Model, build_model
from bridge.runs.runs import Run, Runs
from bridge.runs.seams import Seams
from bridge.server.principals import AGENT, COCKPIT, HUMAN_VIA, beyond
from bridge.settings import Settings


class Agent:
    def __init__(self, settings: Settings, state: Any) -> None:
        self.settings = settings
        self.runs = Runs(settings.config_dir)
        self.externals = McpServers(settings.mcp_servers, settings.config_dir)
        self.services = Services(state.road, state, Seams.load(settings), self.externals)
        self._models: dict[str, Model] = {}

    def start(self) -> None:
        """The lifespan's start: the other MCP servers start in the background (runs wait for them, bounded)."""
        self.externals.start()

    async def stop(self) -> None:
        await self.runs.close()
        await self.externals.stop()

    def start_run(self, request: RunRequest, by: str = AGENT) -> Run:
        """Start a run now (raises a BridgeError when no model can be reached, or when the agent asks for more
        `allow` than the human granted: nothing starts). `by`: who asked (bridge/server/principals.py)."""
        allow = self.allowed(request.allow, by)
        key = request.model_key.get_secret_value() if request.model_key is not None else None
        model = build_model(self.settings, request.model, self.services.state.clients, request.model_url, key)
        request = request.model_copy(update={"allow": allow, "model_key": None})  # the key lives in the model only
        run = self.runs.start(request, request.budgets.resolved(self.settings), lambda run: self._drive(run, model))
        run.by = by
        if by != COCKPIT:  # the cockpit records its own starts (with what the human allowed)
            self.services.state.audit.human("run", None, action="start", run=run.id, task=request.task,
                                            model=model.name, by=by)
        return run

    def allowed(self, asked: list[str], by: str) -> list[str]:
        """The run's `allow`: the human's grant (--run-allow) plus what the human asked for (cockpit, terminal);
        for the agent, what it asked for if the human granted all of it (a narrowing), else nothing starts."""
        granted = list(self.settings.run_allow)
        if by in HUMAN_VIA:
            return sorted({*granted, *asked})
        wider = beyond(asked, granted)
        if wider:
            self.services.state.audit.human("consent", None, action="run allow", asked=wider, by=by,
                                            decision="refused: only the human grants it")
            raise BridgeError(
                f"The run asks to skip the human's consent for {', '.join(wider)}, which the human did not grant "
                f"(granted: {', '.join(granted) or 'nothing'}). Only the human can grant it: in the bridge cockpit, "
                "at their terminal (`dbg-bridge run --allow …`), or with --run-allow when they start the bridge. "
                "Start the run without `allow` (each prompt then asks the human), or ask them (user_ask).",
                code="human_only")
        return sorted(asked) if asked else sorted(granted)

    async def _drive(self, run: Run, model: Model) -> None:
        loop = Loop(run, model, self.services, self.settings.takeover_wait)
        try:
            await self.externals.ready()
            await loop.drive()
        finally:  # the tabs it held are free at once; Live activity shows each run's end in words
            self.services.state.leases.release(identity(loop.ctx)[0])
            self.services.state.audit.human("run", None, action="end", run=run.id, state=run.state,
                                            summary=run.summary[:500])
