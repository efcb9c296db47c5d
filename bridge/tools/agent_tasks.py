"""agent_run as an MCP task (the extension io.modelcontextprotocol/tasks, 2026-07-28): a client that declares the
extension on its tools/call of agent_run gets a task handle at once (`resultType: "task"`, the run's id as taskId);
`tasks/get` says the run's phase and step, and while the run waits for the human it is `input_required` with an
elicitation (resume / skip / abort and a note) that `tasks/update` answers; `tasks/cancel` cancels the run;
`tasks/result` waits for the end. The completed task carries agent_run's own answer. A client without the
extension gets today's blocking call. The SDK serves the methods (mcp.server.extension) but ships no tasks.

Only the client that started a task updates or cancels it: a run the human started (terminal, cockpit) or another
agent's is not answerable with the MCP token (`[human_only]`), and an answer through tasks/update is the agent's
word (`via: "mcp"`), never "the human said" (bridge/runs/loop.py, bridge/skills/memory.py)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

from mcp.server.extension import Extension, MethodBinding
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult, TextContent
from mcp_types import RequestParams
from pydantic import ConfigDict, Field

from bridge.errors import BridgeError
from bridge.server.agents import holder
from bridge.tools import agent as agent_tool
from bridge.tools.base import as_result, error_result

TASKS = "io.modelcontextprotocol/tasks"
#: JSON-RPC error code for an unknown task (invalid params).
INVALID_PARAMS = -32602
#: The arguments agent_run takes (the rest is refused, as over the blocking call).
ARGUMENTS = ("task", "dryrun", "maxSteps", "model", "allow")
#: Milliseconds between polls a client is asked to keep.
POLL_MS = 1000
#: What the human's answer to a takeover elicitation may say.
ANSWER_SCHEMA = {"type": "object", "properties": {
    "action": {"type": "string", "enum": ["resume", "skip", "abort"], "description": "What the run does next."},
    "note": {"type": "string", "description": "A note for the agent (optional)."}}, "required": ["action"]}


class TaskParams(RequestParams):
    model_config = ConfigDict(populate_by_name=True, extra="allow")
    task_id: str = Field(alias="taskId", min_length=1, max_length=100)


class UpdateParams(TaskParams):
    input_responses: dict[str, Any] = Field(default_factory=dict, alias="inputResponses")


def _iso(t: float) -> str:
    return datetime.fromtimestamp(t, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def declared(ctx: Any) -> bool:
    """Whether this request's client declared the tasks extension (per request on 2026-07-28)."""
    capabilities = getattr(getattr(ctx, "session", None), "client_capabilities", None)
    extensions = getattr(capabilities, "extensions", None) or {}
    return TASKS in extensions


class RunTasks(Extension):
    identifier = TASKS

    def __init__(self, state: Any) -> None:
        self.state = state
        #: run id -> the agent (bridge/server/agents.holder key) whose tools/call started it as a task
        self.owners: dict[str, Any] = {}

    def methods(self) -> Sequence[MethodBinding]:
        return [MethodBinding("tasks/get", TaskParams, self.get), MethodBinding("tasks/update", UpdateParams, self.update),
                MethodBinding("tasks/cancel", TaskParams, self.cancel),
                MethodBinding("tasks/result", TaskParams, self.result)]

    async def intercept_tool_call(self, params: Any, ctx: Any, call_next: Any) -> Any:
        if params.name != "agent_run" or not declared(ctx) or self.state.agent is None:
            return await call_next(ctx)
        args = dict(params.arguments or {})
        started = time.perf_counter()
        try:
            extra = [k for k in args if k not in ARGUMENTS]
            if extra:
                raise BridgeError(f"agent_run has no argument {extra[0]!r}. Its arguments: {', '.join(ARGUMENTS)}.",
                                  code="invalid_argument")
            if not isinstance(args.get("task"), str):
                raise BridgeError("agent_run.task: a string is required.", code="invalid_argument")
            run = agent_tool.start(self.state.agent, args["task"], bool(args.get("dryrun", False)),
                                   args.get("maxSteps"), args.get("model"), args.get("allow"))
        except BridgeError as exc:
            self.state.audit.tool_call("agent_run", args, (time.perf_counter() - started) * 1000, error=exc)
            return error_result(exc)
        self.state.audit.tool_call("agent_run", args, (time.perf_counter() - started) * 1000,
                                   value={"task": run.id})
        self.owners[run.id] = self._who(ctx)
        while len(self.owners) > 1000:  # runs are forgotten in time too
            self.owners.pop(next(iter(self.owners)))
        return {"resultType": "task", **self.task(run)}

    # ---- the methods -----------------------------------------------------------------------------------------

    async def get(self, ctx: Any, params: TaskParams) -> dict[str, Any]:
        return {"resultType": "complete", **self.task(self._run(params.task_id))}

    async def update(self, ctx: Any, params: UpdateParams) -> dict[str, Any]:
        """Answers to the takeover's elicitation: accept {action, note}; decline skips the step; cancel aborts."""
        run = self._mine(ctx, params.task_id, "answer its takeover")
        t = run.takeover
        answer = params.input_responses.get(t.id) if t is not None and not t.answered else None
        if isinstance(answer, dict):
            action = {"decline": "skip", "cancel": "abort"}.get(str(answer.get("action")), "resume")
            content = answer.get("content") if isinstance(answer.get("content"), dict) else {}
            if answer.get("action") == "accept" and content.get("action") in ("resume", "skip", "abort"):
                action = content["action"]
            note = content.get("note") if isinstance(content.get("note"), str) else ""
            t.answer(action, note[:4000], "mcp")
        return {"resultType": "complete"}

    async def cancel(self, ctx: Any, params: TaskParams) -> dict[str, Any]:
        run = self._mine(ctx, params.task_id, "cancel it")
        self.state.agent.runs.cancel(run)
        return {"resultType": "complete"}

    async def result(self, ctx: Any, params: TaskParams) -> dict[str, Any]:
        """Wait for the run's end (its own budgets bound it); agent_run's answer."""
        run = self._run(params.task_id)
        if run.task is not None and not run.task.done():
            await asyncio.shield(run.task)
        return self._result(run)

    # ---- the task --------------------------------------------------------------------------------------------

    def _run(self, task_id: str) -> Any:
        run = self.state.agent.runs.get(task_id) if self.state.agent is not None else None
        if run is None:
            raise MCPError(code=INVALID_PARAMS, message=f"[unknown_task] No task {task_id!r} (its run may be over "
                                                        "and forgotten: `dbg-bridge runs show ID` reads its trace).")
        return run

    def _who(self, ctx: Any) -> Any:
        return holder(ctx, self.state.settings.stateless)[0]

    def _mine(self, ctx: Any, task_id: str, to: str) -> Any:
        """The run behind a task this client started; [human_only] for the human's runs and other agents'."""
        run = self._run(task_id)
        if self.owners.get(run.id) != self._who(ctx):
            whose = ("the human's (started at the terminal or in the cockpit)" if getattr(run, "by", "") != "agent"
                     else "another client's")
            raise MCPError(code=INVALID_PARAMS, message=f"[human_only] Run {run.id} is {whose}, not a task this client "
                                                        f"started, so the MCP token cannot {to}. The human answers it "
                                                        "in the cockpit (or the page's card).")
        return run

    def task(self, run: Any) -> dict[str, Any]:
        """The run as a DetailedTask: working, input_required (with the takeover as an elicitation), completed
        (agent_run's answer as the result) or cancelled."""
        last = run.events[-1]["t"] if run.events else run.created
        out: dict[str, Any] = {"taskId": run.id, "createdAt": _iso(run.created), "lastUpdatedAt": _iso(last),
                               "ttlMs": None, "pollIntervalMs": POLL_MS}
        t = run.takeover
        if run.over:
            finished = run.task is None or run.task.done()
            if run.state == "cancelled":
                out.update(status="cancelled", statusMessage=run.summary)
            elif finished:
                out.update(status="completed", statusMessage=f"{run.state}: {run.summary}"[:1000],
                           result=self._result(run))
            else:
                out.update(status="working", statusMessage=f"{run.state}, finishing")
        elif t is not None and not t.answered:
            out.update(status="input_required", statusMessage=f"waiting for the human: {t.reason}",
                       inputRequests={t.id: {"method": "elicitation/create", "params": {
                           "mode": "form", "message": f"The agent hands over: {t.reason}"
                                                      + (f" — {t.question}" if t.question else ""),
                           "requestedSchema": ANSWER_SCHEMA}}})
        else:
            step = next((e for e in reversed(run.events) if e["type"] == "tool_call" and e.get("step")), None)
            doing = f": step {step['step']} ({step['tool']})" if step else ""
            out.update(status="working", statusMessage=f"{run.state}{doing}")
        return out

    def _result(self, run: Any) -> dict[str, Any]:
        result: CallToolResult = as_result(agent_tool.outcome(run))
        if not result.content:
            result.content = [TextContent(type="text", text=run.summary)]
        return result.model_dump(by_alias=True, mode="json", exclude_none=True)
