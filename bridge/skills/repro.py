"""A repro skill: the acts an agent did before an error (the page's act journal, inject/problems.js) from the load
of the document they ran in, as a skill whose `until.error` is the error's top frame — replaying it after a fix
answers whether the error came back (bridge/skills/replay.py `reproduced`)."""

from __future__ import annotations

import re
import time
from typing import Any

from bridge.errors import BridgeError
from bridge.skills.format import Param, Skill, Step, Target, Until, check_name

#: The actions a journal step can replay as (others, like back and forward, are left out).
REPLAYED = ("click", "dblclick", "fill", "type", "select", "check", "uncheck", "press")


def repro_skill(name: str, group: dict[str, Any], acts: list[dict[str, Any]], origin: str) -> Skill:
    """The acts that came before an error (`group`, page_console's), from the load of the document they ran in, as a
    skill whose replay says whether the error comes back (`until.error`). `acts`: the page's journal."""
    check_name(name)
    seq = group.get("act")
    last = next((a for a in acts if a.get("seq") == seq), None)
    if last is None:
        raise BridgeError(f"No act of the agent's came before {group.get('error')!r} (it came on load, from a timer, "
                          "or from the human's input): there is nothing to replay. Reproduce it with page_act or "
                          "page_navigate, then save again.", code="no_repro")
    run = [a for a in acts if a.get("doc") == last.get("doc") and int(a.get("seq") or 0) <= int(seq or 0)]
    steps = [Step(action="goto", url=str(run[0].get("url") or ""))]
    params: list[Param] = []
    for a in run:
        action = a.get("action")
        if action == "goto" and a.get("url"):
            steps.append(Step(action="goto", url=str(a["url"])))
            continue
        if action not in REPLAYED:
            continue
        t = a.get("target") or {}
        target = Target(role=str(t.get("role") or ""), name=str(t.get("name") or ""), text=str(t.get("text") or ""),
                        selector=str(t.get("selector") or ""), tag=str(t.get("tag") or ""))
        frame = str(a.get("frame") or "host")
        value = a.get("value")
        if a.get("secret"):  # a password: asked for when the skill runs, never stored
            params.append(Param(name=f"secret{len(params) + 1}", secret=True, label=target.name or target.selector))
            value = f"{{{{{params[-1].name}}}}}"
        steps.append(Step(action="fill" if action == "type" else action, target=target,
                          frame=frame if re.fullmatch(r"host|f\d{1,4}", frame) else "host", value=value,
                          key=a.get("key")))
    skill = Skill(name=name, scope=origin, start_url=steps[0].url, steps=steps, params=params, source="errors",
                  description=f"Reproduces {group.get('error')} at {group.get('at') or '?'} "
                              f"({len(steps) - 1} acts, saved {time.strftime('%Y-%m-%d %H:%M')})",
                  until=Until(error=group.get("at") or str(group.get("error") or "")))
    return skill
