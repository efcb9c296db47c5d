"""Skills and memory in runs (the agent's seams, bridge/runs/seams.py): the skills recorded for the run's origin
or app offered as tools (`skill__NAME`, replayed through the run's own `skill_run` call: audited, consent-checked
and traced like any step), memory's facts for it in the planner prompt, and what each finished run teaches."""

from __future__ import annotations

import re
from typing import Any

from bridge.skills.memory import Memory
from bridge.runs.seams import Caller, ExtraTool, Scope
from bridge.shared.seam import open_store
from bridge.skills.format import Skill, Skills
from bridge.settings import Settings


def tool_name(skill: Skill) -> str:
    return "skill__" + re.sub(r"[^A-Za-z0-9_-]", "_", skill.name)


def as_tool(skill: Skill) -> ExtraTool:
    props: dict[str, Any] = {p.name: {"type": "string", **({"default": p.default} if p.default is not None else {}),
                                      **({"description": p.label[:80]} if p.label else {})} for p in skill.params}
    props["pageId"] = {"type": "string"}
    required = [p.name for p in skill.params if p.default is None]
    what = skill.description or f"{len(skill.steps)} recorded steps on {skill.scope}"
    until = f" Ends when {skill.until.model_dump(exclude_none=True)} shows." if skill.until else ""

    async def call(args: dict[str, Any], caller: Caller) -> Any:
        values = {k: str(v) for k, v in args.items() if k != "pageId" and v is not None}
        body: dict[str, Any] = {"name": skill.name, "params": values}
        if args.get("pageId"):
            body["pageId"] = args["pageId"]
        return await caller("skill_run", body)

    return ExtraTool(name=tool_name(skill), description=f"Skill {skill.name!r}: {what[:200]}.{until} Replays "
                     "without a model; fails naming the step if the page changed.",
                     input_schema={"type": "object", "properties": props, "required": required}, call=call)


class SkillsProvider:
    """Built once per bridge by the agent's Seams with the Settings."""

    def __init__(self, settings: Settings) -> None:
        store = open_store(settings)  # the shared-state backend's store, as the bridge's own SkillService has
        self.skills = Skills(store)
        self.memory = Memory(store)

    async def tools_for(self, scope: Scope) -> list[ExtraTool]:
        where = scope.origin or scope.app
        return [as_tool(s) for s in await self.skills.list(where)] if where else []

    async def context_for(self, scope: Scope, task: str) -> str:
        where = scope.origin or scope.app
        return await self.memory.context(where) if where else ""

    async def run_finished(self, summary: dict[str, Any], events: list[dict[str, Any]]) -> None:
        scope = summary.get("scope") or {}
        where = scope.get("origin") or scope.get("app")
        if where:
            events = [{**e, "scope": where} if e.get("type") == "run_start" else e for e in events]
        await self.memory.learn(events)
