"""Runs, the agent on the bridge: `dbg-bridge run "task"`, the runs API (/v1/runs), the `agent_run` MCP tool and the
cockpit's Runs tab all start the same in-process runs. May import errors, settings, pages, human, the one road into
tools (bridge/tools/road.py, nothing else of the tools) and the server's plumbing; never skills (they plug in
through seams.py's import strings).

A run plans, executes one tool call at a time, verifies its stop conditions and replans within budgets
(loop.py), calling the bridge's own tools through the one road into tools (toolbox.py -> bridge/tools/road.py: the
MCP server's own `call_tool`, with the same table, argument checks, consent rules, audit and `[code]` error shape
as /mcp), plus the tools of other MCP servers
(mcp_servers.py, `NAME__tool`). Every event goes to the run's event list (runs.py: replayable over SSE) and to one
JSONL trace per run in `<config_dir>/runs/` (trace.py).

Modules: settings of a run (budgets.py), the model (model.py: OpenAI-compatible HTTP, or the MCP client's own
model through sampling), prompts (prompts.py), argument coercion (coercion.py), the human gate (takeover.py),
other MCP servers (mcp_servers.py), the seams below (seams.py); the `dbg-bridge run`/`runs` client is
bridge/cli/runs.py.

Seams for skills and memory (issue 23), chosen once when the bridge starts (seams.py `PROVIDERS`: import strings
of classes built with the bridge's Settings; a module not there yet is skipped). A provider implements any of:

(a) `async tools_for(scope: Scope) -> list[ExtraTool]`: extra tools offered to a run for where it acts
    (`Scope.origin`: the page origin, `Scope.app`: the desktop app). An `ExtraTool`'s `call(args, caller)` gets a
    `caller(name, args)` that calls any of the run's tools through the same path as the model's own calls (so a
    replayed skill is audited, consent-checked and traced like any step).
(b) `async context_for(scope: Scope, task: str) -> str`: text for the planner prompt (memory facts), cut to
    `seams.MAX_CONTEXT` characters per provider and marked in the prompt as notes from earlier runs.
(c) `async run_finished(summary: dict, events: list[dict]) -> None`: called once per run after `run_done`, with
    the run's row (runs.Run.row()) and every event (the same records as its trace file, in order). Takeovers are
    the `human` events; each step is a `tool_call` + `tool_result` pair.
A provider's failure is logged and never fails the run.
"""
