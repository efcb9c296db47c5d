"""The skills-and-memory part of one bridge (`BridgeState.skills`): the skill store, the recordings in progress,
memory, and skill runs (replay + trace + learning). Built once by create_app with the store chosen there."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bridge.skills import trace as skill_trace
from bridge.skills.memory import Memory
from bridge.skills.recording import Recordings
from bridge.skills.replay import replay
from bridge.skills.repro import repro_skill
from bridge.skills.format import Skills, Until
from bridge.errors import BridgeError
from bridge.pages.protocol import EventMsg
from bridge.tools.road import Caller

if TYPE_CHECKING:
    from bridge.state import BridgeState
    from bridge.pages.registry import Instance

log = logging.getLogger("bridge.skills")


class SkillService:
    def __init__(self, state: BridgeState, store: Any) -> None:
        self.state = state
        self.skills = Skills(store)
        self.memory = Memory(store)
        self.recordings = Recordings(self.skills, self.record)
        self.runs_dir: Path = state.settings.config_dir / "runs"
        #: The skill a desktop recording is for (one desktop, one recording at a time).
        self.desktop_recording: str | None = None

    async def record(self, instance: str, params: dict[str, Any]) -> None:
        """Tell the tab `instance` to start or stop recording the human's input (never a tool: an agent does not
        start recording the human)."""
        await self.state.dispatcher.call_page(f"{instance}/host", "record", params, 10)

    def tab_of(self, page_id: str | None) -> Instance:
        """The tab a pageId names (None: the one tab), or a named error."""
        return self.state.dispatcher.resolve(page_id).inst

    def origin_of(self, page_id: str | None) -> str | None:
        """The verified origin of a connected page (None when it is not connected)."""
        try:
            inst = self.state.dispatcher.resolve(page_id).inst
        except BridgeError:
            return None
        return inst.verified_origin or inst.origin or None

    # ---- events from the page (bridge/human/events.py hands them here) -------------------------------------------

    def on_event(self, inst: Instance, msg: EventMsg) -> bool:
        """A recording's event from the page's panel (a person's click there, or the page's own scripts: the bridge
        cannot tell, so a page-started recording is scoped to the tab's verified origin and replaces no skill).
        False: refused (a step, or a stop, with no recording running on that tab)."""
        if msg.kind == "recorded":
            return self.recordings.take(inst.id, msg.step())
        if msg.kind == "record_start":
            name = str(msg.data.get("name") or msg.text)
            self.state.audit.human("record", f"{inst.id}/host", action="start", name=name, via="page")
            self.state.background.spawn(self._logged(self.recordings.start(inst, name, by="page"),
                                                     f"start recording {name!r}"))
        elif msg.kind == "record_stop":
            rec = self.recordings.active_on(inst.id)
            if rec is None:
                return False
            raw = msg.data.get("until") if isinstance(msg.data.get("until"), dict) else None
            # the panel's Stop (a person's, or the page's scripts': the bridge cannot tell) may give the stop condition:
            # a text the replay waits for on this origin's page, so a page can set no more than what it shows
            until = Until(text=str(raw.get("text"))[:4096]) if raw and raw.get("text") else None
            self.state.audit.human("record", f"{inst.id}/host", action="stop", name=rec.name, via="page")
            self.state.background.spawn(self._logged(self.recordings.stop(rec.name, until, page_stopped=True),
                                                     f"save recording {rec.name!r}"))
        return True

    async def _logged(self, coro: Any, what: str) -> None:
        try:
            await coro
        except BridgeError as exc:
            log.warning("could not %s: %s", what, exc)

    # ---- runs ------------------------------------------------------------------------------------------------------

    async def run(self, name: str, params: dict[str, str], page_id: str | None,
                  caller: Any = None) -> dict[str, Any]:
        """Replay a skill for `caller` (the MCP request's context of a skill_run; None: a `Caller` for the CLI, the
        runs API or the cockpit), its steps through the one road into tools; the page is resolved only for a page
        skill. Its trace is written and memory learns from it whether it worked or not."""
        skill = await self.skills.get(name)
        values = skill.bind(params)
        for p in skill.params:  # a secret is blanked in every audit line, this run's skill_run call's included
            if p.secret and values.get(p.name):
                self.state.audit.secrets.add(values[p.name])
        page = self.state.dispatcher.resolve(page_id).page_id if skill.kind == "page" else None
        trace = skill_trace.Trace(self.runs_dir, skill_trace.new_run_id())
        who = caller if caller is not None else Caller("dbg-bridge skill", trace.run_id)
        try:
            out = await replay(skill, values, trace, page, lambda tool, args: self.call(tool, args, who),
                               self.state.desktop is not None)
            out["trace"] = str(trace.path)
            out["run"] = trace.run_id
            return out
        finally:
            trace.close()
            await self.learn(trace.path)

    async def call(self, tool: str, arguments: dict[str, Any], caller: Any) -> Any:
        """A tool called as /mcp calls it (bridge/tools/road.py): its answer, or the error it raised."""
        if self.state.road is None:
            raise BridgeError("This bridge serves no tools (no MCP server was built).", code="not_available")
        return await self.state.road.value(tool, arguments, caller)

    async def save_repro(self, name: str, group: dict[str, Any], acts: list[dict[str, Any]], origin: str) -> Any:
        """The acts before an error saved as a skill that replays it (bridge/skills/repro.py)."""
        return await self.skills.save(repro_skill(name, group, acts, origin))

    async def learn(self, path: Path) -> list[Any]:
        """What a finished trace (a skill run's, or an agent run's) teaches memory."""
        try:
            return await self.memory.learn(skill_trace.read(path))
        except (OSError, ValueError) as exc:
            log.warning("memory could not read trace %s: %s", path, exc)
            return []

    async def record_desktop(self, name: str, max_seconds: float = 600) -> dict[str, Any]:
        """Start recording the human's desktop input for the skill `name` (desktop_start_recording)."""
        from bridge.skills.format import check_name

        check_name(name)
        if self.state.desktop is None:
            raise BridgeError("This bridge serves no desktop (`dbg-bridge doctor` says why).", code="not_available")
        await self.call("desktop_start_recording", {"maxSeconds": max_seconds}, Caller("dbg-bridge record", name))
        self.desktop_recording = name
        return {"name": name, "pageId": None, "desktop": True, "state": "recording", "steps": 0, "recent": []}

    async def stop_desktop(self, name: str, until: Until | None) -> dict[str, Any]:
        """Stop the desktop recording and save it as the skill `name`."""
        from bridge.skills.desktop import compile_desktop

        if self.desktop_recording != name:
            raise BridgeError(f"No desktop recording named {name!r} is running.", code="unknown_recording")
        self.desktop_recording = None
        out = await self.call("desktop_stop_recording", {}, Caller("dbg-bridge record", name))
        skill = await self.skills.save(compile_desktop(name, out, until))
        return {"name": name, "desktop": True, "state": "saved", "steps": len(skill.steps),
                "recent": [f"{s.tool} {s.arguments}" for s in skill.steps], "skill": skill.summary()}
