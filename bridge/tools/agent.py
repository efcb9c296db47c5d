"""agent_run: an MCP client delegates one task to the bridge's agent (bridge/runs/) and gets its outcome, with a
progress notification per step. It gets the agent and nothing else."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from mcp.server.mcpserver import Context
from pydantic import Field, ValidationError

from bridge.runs.budgets import RunRequest
from bridge.errors import BridgeError
from bridge.pages.protocol import explain
from bridge.settings import run_budget
from bridge.tools.base import Tool, acting
from bridge.tools.outputs import obj


async def agent_run(
    agent: Any,
    task: Annotated[str, Field(min_length=1, max_length=8000)],
    dryrun: Annotated[bool, Field(description="Plan only.")] = False,
    maxSteps: Annotated[int | None, Field(**run_budget("steps").bounds)] = None,
    model: Annotated[str | None, Field(description="'client': your own model, by sampling.")] = None,
    allow: Annotated[list[str] | None, Field(max_length=50, description="Narrow the human's --run-allow (never "
                                                                          "widen it).")] = None,
    ctx: Context | None = None,
) -> dict[str, Any]:
    """Let the bridge's agent do a task (plan, act with the bridge's tools, verify); answers its end state, plan
    and trace. Cancelling this call cancels the run."""
    run = start(agent, task, dryrun, maxSteps, model, allow)
    steps = 0
    try:
        async for e in run.follow():
            if e["type"] == "tool_call" and e.get("step") and ctx is not None:
                steps = e["step"]
                await _progress(ctx, steps, run.limits.steps, f"step {steps}: {e['tool']}")
            elif e["type"] == "human" and e["event"] == "pause" and ctx is not None:
                await _progress(ctx, steps, run.limits.steps, f"waiting for the human: {e['takeover']['reason']}")
    except asyncio.CancelledError:
        agent.runs.cancel(run)
        raise
    return outcome(run)


def start(agent: Any, task: str, dryrun: bool = False, maxSteps: int | None = None,
          model: str | None = None, allow: list[str] | None = None) -> Any:
    """Start the run an agent_run call asks for (also as an MCP task: bridge/tools/agent_tasks.py)."""
    if agent is None:
        raise BridgeError("The agent is not running in this bridge.", code="not_available")
    try:
        request = RunRequest(task=task, dryrun=dryrun, model=model, budgets={"max_steps": maxSteps},
                             allow=allow or [])
    except ValidationError as exc:
        raise BridgeError(f"{explain(exc)}. Fix the arguments.", code="invalid_argument") from None
    return agent.start_run(request)  # the MCP token is the agent's: `allow` beyond the human's grant is human_only


def outcome(run: Any) -> dict[str, Any]:
    """agent_run's answer for a finished run."""
    return {"id": run.id, "state": run.state, "summary": run.summary, "plan": run.plan, "totals": dict(run.counts),
            "trace": str(run.trace_path or "")}


async def _progress(ctx: Context, done: float, total: float, message: str) -> None:
    try:
        await ctx.report_progress(done, total, message)
    except Exception:  # noqa: BLE001 - a client without a progress token (or gone): the run goes on
        return


TOOLS = [Tool(agent_run, acting("Delegate a task to the bridge's agent", destructive=True, open_world=True),
              scope=lambda state: state.agent,
              output=obj("plan:?obj", id="str", state="str", summary="str", totals="obj", trace="str"))]
