"""Page recordings in progress: started by the human from the terminal, the cockpit or the page's panel; the
human's steps arrive as `recorded` events (bridge/pages/protocol.py RecordedStep) and are taken only while a recording
this bridge started runs on that tab; stopped, a recording compiles into a skill (bridge/skills/compile.py)
scoped to the tab's verified origin, its steps are checked (goto only to http(s) URLs on that origin unless the human
confirmed another), and it is saved. One the page's panel started never saves over an existing skill (the page's
own scripts could have started it): record over one from the cockpit or the terminal."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from collections.abc import Awaitable, Callable
from typing import Any

from bridge.skills.compile import compile_recording, unsafe_steps
from bridge.skills.format import Skill, Skills, Until, check_name
from bridge.errors import BridgeError, PageGone
from bridge.pages.protocol import RecordedStep
from bridge.pages.registry import Instance

log = logging.getLogger("bridge.skills.recording")
#: Steps one recording may hold (a human does not click this often; a runaway page might).
MAX_STEPS = 2000


@dataclass
class Recording:
    name: str
    instance: str
    started: float = field(default_factory=time.time)
    steps: list[RecordedStep] = field(default_factory=list)
    seen: set[int] = field(default_factory=set)
    state: str = "recording"  # → saved | failed
    #: Who started it (bridge/server/principals.py: cockpit, terminal, page) and the tab's verified origin then.
    by: str = "terminal"
    origin: str = ""
    #: The human confirmed it replaces an existing skill of that name.
    overwrite: bool = False
    #: Other origins its goto steps go to that the human has not confirmed (a failed save names them).
    other_origins: list[str] = field(default_factory=list)
    until: Until | None = None
    skill: Skill | None = None
    error: str | None = None
    #: Set (and replaced) on every change: a long poll waits on it.
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    def touch(self) -> None:
        self.changed.set()
        self.changed = asyncio.Event()

    def view(self, since: int = 0) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "pageId": f"{self.instance}/host", "state": self.state,
                               "steps": len(self.steps), "by": self.by, "origin": self.origin,
                               "recent": [describe(s) for s in self.steps[since:]][:200]}
        if self.skill is not None:
            out["skill"] = self.skill.summary()
        if self.error:
            out["error"] = self.error
        if self.other_origins and self.state == "failed":
            out["otherOrigins"] = list(self.other_origins)
        return out


def describe(step: RecordedStep) -> str:
    """One line per recorded step, as the CLI prints them."""
    t = step.target
    what = f"{t.role or t.tag} {t.name or t.text or t.selector!r}" if t else ""
    if step.action == "load":
        return f"load {step.url}"
    if step.action == "fill":
        return f"fill {what} = {'••••' if step.secret else repr((step.value or '')[:60])}"
    extra = f" {step.value!r}" if step.value else f" {step.key}" if step.key else ""
    return f"{step.action} {what}{extra}" + ("" if step.frame == "host" else f" (frame {step.frame})")


class Recordings:
    def __init__(self, skills: Skills, record: Callable[[str, dict[str, Any]], Awaitable[None]]) -> None:
        self.skills = skills
        #: Sends the `record` command to a tab's top frame: (instance id, its params).
        self.record = record
        self.by_name: dict[str, Recording] = {}

    def active_on(self, instance: str) -> Recording | None:
        return next((r for r in self.by_name.values() if r.instance == instance and r.state == "recording"), None)

    def get(self, name: str) -> Recording:
        rec = self.by_name.get(name)
        if rec is None:
            raise BridgeError(f"No recording named {name!r} on this bridge. Start one with `dbg-bridge record {name} "
                              "--page PAGEID`.", code="unknown_recording")
        return rec

    async def start(self, inst: Instance, name: str, by: str = "terminal", overwrite: bool = False) -> Recording:
        """Start recording the human in the tab `inst`, for `by`. Over an existing skill only with `overwrite`, the
        human's confirmation (the cockpit asks; `dbg-bridge record --overwrite`); never for the page's panel."""
        check_name(name)
        instance = inst.id
        if (by == "page" or not overwrite) and await self.skills.exists(name):
            how = ("a recording the page started does not replace it: record over it from the cockpit or the "
                   "terminal" if by == "page" else "confirm replacing it (the cockpit asks; at the terminal "
                   f"`dbg-bridge record {name} --overwrite`)")
            raise BridgeError(f"A skill named {name!r} exists; {how}, or pick another name.", code="skill_exists")
        running = self.active_on(instance)
        if running is not None:
            raise BridgeError(f"Tab {instance} is already recording {running.name!r}: stop that one first.",
                              code="already_recording")
        if name in self.by_name and self.by_name[name].state == "recording":
            raise BridgeError(f"A recording named {name!r} is already running on tab {self.by_name[name].instance}.",
                              code="already_recording")
        rec = Recording(name, instance, by=by, origin=inst.verified_origin or inst.origin,
                        overwrite=overwrite and by != "page")
        self.by_name[name] = rec
        try:
            await self.record(instance, {"on": True, "name": name})
        except BridgeError:
            del self.by_name[name]
            raise
        return rec

    def take(self, instance: str, step: RecordedStep) -> bool:
        """A step the page sent (a reloaded page sends its last ones again: each `seq` is taken once). False (refused)
        when no recording runs on that tab."""
        rec = self.active_on(instance)
        if rec is None:
            log.info("tab %s sent a recorded step with no recording on; refused", instance)
            return False
        if step.seq in rec.seen or len(rec.steps) >= MAX_STEPS:
            return True
        rec.seen.add(step.seq)
        rec.steps.append(step)
        rec.steps.sort(key=lambda s: s.seq)
        rec.touch()
        return True

    async def stop(self, name: str, until: Until | None, *, page_stopped: bool = False,
                   confirmed: tuple[str, ...] = ()) -> Recording:
        """Stop, compile, check and save. The page is told to stop unless it stopped itself (its panel's Stop).
        `confirmed`: other origins the human confirmed goto steps may go to (cockpit, terminal)."""
        rec = self.get(name)
        again = rec.state == "failed" and bool(rec.other_origins) and set(rec.other_origins) <= set(confirmed)
        if rec.state != "recording" and not again:  # a save the human confirmed other origins for is tried again
            return rec
        if not page_stopped and not again:
            try:
                await self.record(rec.instance, {"on": False})
            except (PageGone, BridgeError) as exc:  # the tab is gone: what it recorded is still a skill
                log.info("recording %s: could not tell tab %s to stop (%s)", name, rec.instance, exc)
        if not any(s.action != "load" for s in rec.steps):
            rec.state, rec.error = "failed", ("Nothing was recorded: no click, typing or key in the tab while it "
                                              "recorded. Record again and act in the page itself.")
            rec.touch()
            return rec
        rec.until = until or rec.until
        skill = compile_recording(name, rec.steps, rec.until, scope=rec.origin)
        bad, rec.other_origins = unsafe_steps(skill, rec.origin, confirmed)
        if not bad and not rec.overwrite and await self.skills.exists(name):
            bad = [f"a skill named {name!r} exists now, and replacing it was not confirmed"]
        if bad:
            rec.state = "failed"
            rec.error = ("[skill_unsafe_step] Not saved: " + "; ".join(bad[:5]) + ". A skill goes only to http(s) "
                         f"pages of {rec.origin or 'the recorded origin'} unless the human confirms another origin "
                         "(the cockpit asks; `dbg-bridge record --confirm-origin ORIGIN`).")
            rec.touch()
            return rec
        rec.skill = await self.skills.save(skill.model_copy(update={"recorded_by": rec.by}))
        rec.state = "saved"
        rec.touch()
        return rec
