"""Desktop recordings (desktop_start_recording/desktop_stop_recording: steps that are desktop_* calls) compiled into
the same skill format as a page's: each step a `tool` step, typed text a parameter (a redacted password a secret),
the app its window's title. A desktop step runs as its desktop_* tool through the one road into tools
(bridge/skills/replay.py)."""

from __future__ import annotations

from typing import Any

from bridge.skills.compile import param_name, with_params
from bridge.skills.format import Param, Skill, Step, Until
from bridge.errors import BridgeError

REDACTED = "<redacted>"


def compile_desktop(name: str, recording: dict[str, Any], until: Until | None = None) -> Skill:
    steps: list[Step] = []
    params: list[Param] = []
    taken: set[str] = set()
    app = ""
    last_at = 0.0
    for s in recording.get("steps") or []:
        args = dict(s.get("arguments") or {})
        app = app or str(args.get("window") or (s.get("in") or {}).get("window") or "")
        if s.get("tool") == "desktop_type_text" and isinstance(args.get("value"), str):
            target = args.get("target") or {}
            label = str(target.get("name") or target.get("role") or "text")
            secret = args["value"] == REDACTED
            pname = param_name("password" if secret and not target.get("name") else label, taken)
            params.append(Param(name=pname, default=None if secret else args["value"], secret=secret, label=label))
            args["value"] = f"{{{{{pname}}}}}"
        at = float(s.get("at") or 0)
        steps.append(Step(action="tool", tool=str(s.get("tool")), arguments=args, after=round(max(0, at - last_at), 2)))
        last_at = at
    if not steps:
        raise BridgeError("The desktop recording has no steps: nothing was done on the desktop while it ran.",
                          code="nothing_recorded")
    return Skill(name=name, kind="desktop", scope=app, params=params, steps=steps, until=with_params(until, params),
                 source="recording")
