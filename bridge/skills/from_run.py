"""`--save-skill NAME`: a run that reached `done` saved as a skill from its successful steps (its trace's
tool_call/tool_result pairs): page_navigate gotos and page_act actions become steps, typed values parameters, the
last text it waited for the stop condition. A step that named its element only by a ref (e12@ab: an element of
that run's page, which no later page has) cannot be replayed: the save is refused naming it, never a skill that
silently skips an action."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bridge.skills.compile import origin_of, param_name, with_params
from bridge.skills.format import Param, Skill, Step, Target, Until
from bridge.errors import BridgeError

ACTIONS = {"click", "dblclick", "fill", "type", "select", "check", "uncheck", "press"}


def skill_from_run(name: str, events: list[dict[str, Any]],
                   origin_of_page: Callable[[str | None], str | None] = lambda _: None) -> Skill:
    """`origin_of_page(pageId)`: the origin of a page the run addressed (its scope when the run never navigated)."""
    start = next((e for e in events if e.get("type") == "run_start"), {})
    done = next((e for e in events if e.get("type") == "run_done"), {})
    if done.get("state") != "done":
        raise BridgeError(f"Run {start.get('run', '?')} ended {done.get('state', 'unfinished')!r}: only a run that "
                          "reached done is saved as a skill.", code="run_not_done")
    calls = {e["step"]: e for e in events if e.get("type") == "tool_call" and e.get("step") is not None}
    steps: list[Step] = []
    params: list[Param] = []
    taken: set[str] = set()
    refs_only: list[str] = []
    until: Until | None = None
    start_url: str | None = None
    for e in events:
        if e.get("type") != "tool_result" or not e.get("ok") or e.get("step") not in calls:
            continue
        call = calls[e["step"]]
        tool, args = call.get("tool"), call.get("args") or {}
        if tool == "page_navigate" and args.get("action", "goto") == "goto" and args.get("url"):
            steps.append(Step(action="goto", url=str(args["url"])))
            start_url = start_url or str(args["url"])
        elif tool == "page_wait" and args.get("text"):
            until = Until(text=str(args["text"]))
        elif tool == "page_act":
            for a in args.get("actions") or [args]:
                action = a.get("action")
                if action not in ACTIONS:
                    continue
                if not (a.get("text") or a.get("selector")):
                    refs_only.append(f"step {e['step']} ({action} {a.get('ref')})")
                    continue
                target = Target(text=str(a.get("text") or ""), selector=str(a.get("selector") or ""))
                step = Step(action="fill" if action == "type" else action, target=target, key=a.get("key"))
                if action in ("fill", "type", "select") and a.get("value") is not None:
                    if action == "select":
                        step = step.model_copy(update={"value": str(a["value"])})
                    else:
                        pname = param_name(target.text or target.selector, taken)
                        params.append(Param(name=pname, default=str(a["value"]), label=target.text or target.selector))
                        step = step.model_copy(update={"value": f"{{{{{pname}}}}}"})
                steps.append(step)
    if refs_only:
        raise BridgeError(f"The run named these elements only by refs from its own snapshots, which a replay cannot "
                          f"find again: {', '.join(refs_only[:5])}. Record the task instead (`dbg-bridge record "
                          f"{name} --page PAGEID`).", code="not_replayable")
    if not any(s.action != "goto" for s in steps):
        raise BridgeError("The run's successful steps hold no page action to replay.", code="not_replayable")
    page_id = next((c.get("args", {}).get("pageId") for c in calls.values() if c.get("args", {}).get("pageId")), None)
    scope = str(start.get("scope") or origin_of(start_url or "") or origin_of_page(page_id) or "")
    return Skill(name=name, kind="page", scope=scope, start_url=start_url, params=params, steps=steps,
                 until=with_params(until, params), source=f"run:{start.get('run', '')}",
                 description=str(start.get("task") or "")[:4096])
