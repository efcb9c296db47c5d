"""Replaying a skill without a model: each page step's target found again on the live page — role + accessible
name, then text, then selector, in the recorded frame — with the page tools (page_find, page_wait, page_act,
page_navigate), a desktop step with its desktop_* tool, every one called through the one road into tools
(bridge/tools/road.py: audited, consent-checked and argument-checked as over /mcp); a step that finds nothing or
several elements fails the skill with what it looked for and what it saw nearby. The stop condition is checked at
the end."""

from __future__ import annotations

import re
import time
from collections.abc import Awaitable, Callable
from typing import Any

from bridge.skills.trace import Trace
from bridge.skills.format import Skill, Step, Target, fill_in
from bridge.errors import BridgeError
from bridge.pages.registry import split_page_id

#: Seconds a step's target may take to appear (at least; twice the human's own pause before it when longer).
STEP_WAIT = 10.0
MAX_STEP_WAIT = 60.0
#: A tool called by name with its arguments, for the replay's caller (bridge/tools/road.py Road.value): its answer,
#: or the error it raised.
ToolCall = Callable[[str, dict[str, Any]], Awaitable[Any]]
#: What a page call answers when the document went away after it was sent (a navigation it caused).
NAVIGATED = ("page_unloaded", "page_gone")


class StepFailed(BridgeError):
    code = "skill_step_failed"


def show_target(t: Target | None) -> str:
    if t is None:
        return "the page"
    return f"{t.role or t.tag or 'element'} {(t.name or t.text or t.selector)!r}"


def show_step(step: Step, values: dict[str, str], secrets: set[str]) -> str:
    if step.action == "goto":
        return f"goto {step.url}"
    if step.action == "tool":
        return f"{step.tool}"
    value = step.value
    if value is not None:
        value = "••••" if any(f"{{{{{s}}}}}" in value for s in secrets) else fill_in(value, values)
    extra = f" = {value!r}" if value is not None else f" {step.key}" if step.key else ""
    return f"{step.action} {show_target(step.target)}{extra}"


def stages(t: Target) -> list[tuple[str, dict[str, Any]]]:
    """The ways a target is looked for, in order: role + name, text, selector."""
    out = []
    if t.role and t.name:
        out.append((f"role {t.role} named {t.name!r}", {"role": t.role, "text": t.name, "exact": True}))
    if t.text and t.text != t.name:
        out.append((f"text {t.text!r}", {"text": t.text, "exact": True}))
    if t.selector:
        out.append((f"selector {t.selector!r}", {"selector": t.selector}))
    return out


def frame_of(page_id: str, frame: str) -> str:
    """The pageId of the recorded frame `frame` in the tab of `page_id` (`host`: `page_id` itself)."""
    if frame == "host":
        return page_id
    parts = split_page_id(page_id)
    return f"{parts[0] if parts else page_id}/{frame}"


async def match(call: ToolCall, page_id: str, t: Target, timeout: float) -> tuple[str | None, list[str]]:
    """(the ref of the one element the target names, what each way found). Waits up to `timeout` for it to appear."""
    deadline = time.monotonic() + timeout
    waited = False
    while True:
        seen = []
        for what, params in stages(t):
            found = await call("page_find", {**params, "limit": 5, "pageId": page_id})
            if found["total"] == 1:
                return found["matches"][0]["ref"], seen
            names = ", ".join(repr(m["name"]) for m in found["matches"][:3])
            seen.append(f"{what}: {found['total']} ({names})" if found["total"] else f"{what}: none")
        left = deadline - time.monotonic()
        if waited or left <= 0:
            return None, seen
        waited = True
        # wait (in the page, on every DOM change) for what the target shows, then look once more
        wait: dict[str, Any] = {"timeout": min(120.0, left)}
        if t.name or t.text:
            wait.update(text=t.name or t.text, exact=True)
        elif t.selector:
            wait["selector"] = t.selector
        else:
            return None, seen
        try:
            await call("page_wait", {**wait, "pageId": page_id})
        except BridgeError as exc:
            if exc.code != "wait_timeout":
                raise


async def nearby(call: ToolCall, page_id: str, t: Target) -> str:
    """What the page has instead: a few elements of the same role (or tag)."""
    params = {"role": t.role} if t.role else {"selector": t.tag or "*"}
    found = await call("page_find", {**params, "limit": 8, "pageId": page_id})
    names = [repr(m["name"]) for m in found["matches"] if m["name"]]
    return (f"{t.role or t.tag}s on the page: {', '.join(names)}" if names else
            f"no {t.role or t.tag} with a name on the page")


async def run_page_step(call: ToolCall, page_id: str, step: Step, values: dict[str, str]) -> dict[str, Any]:
    frame = frame_of(page_id, step.frame)
    if step.action == "goto":
        return await call("page_navigate", {"pageId": page_id, "action": "goto", "url": fill_in(step.url, values)})
    assert step.target is not None
    wait = min(MAX_STEP_WAIT, max(STEP_WAIT, 2 * step.after))
    if step.target.tag == "body" or (not step.target.name and step.target.selector == "body"):
        ref = None
    else:
        ref, seen = await match(call, frame, step.target, wait)
        if ref is None:
            several = any(": none" not in s for s in seen)
            raise StepFailed(f"{'matched several elements' if several else 'matched nothing'} on {frame}: "
                             f"looked for {'; '.join(seen) or 'nothing to look for'}. "
                             f"{await nearby(call, frame, step.target)}.")
    args: dict[str, Any] = {"action": step.action, "ref": ref, "selector": "body" if ref is None else None}
    if step.action in ("fill", "select"):
        args["value"] = fill_in(step.value, values) or ""
    if step.action == "press":
        args["key"] = step.key or "Enter"
    try:
        return await call("page_act", {"pageId": frame, **{k: v for k, v in args.items() if v is not None}})
    except BridgeError as exc:
        # a click or key that navigates takes its document with it before the answer: the step did its part (the
        # recording saw the same), and the next step's page call waits for the next document
        if step.action in ("click", "dblclick", "press") and exc.code in NAVIGATED and exc.dispatched:
            return {"navigated": True}
        raise


async def replay(skill: Skill, values: dict[str, str], trace: Trace, page: str | None, call: ToolCall,
                 desktop: bool = False) -> dict[str, Any]:
    """Run every step on the page `page` (a pageId; None for a desktop skill), each through `call`, then check the
    stop condition; raises StepFailed (with the steps that ran) on the first miss. `desktop`: the bridge serves
    the desktop tools."""
    secrets = {p.name for p in skill.params if p.secret}
    shown = {k: ("••••" if k in secrets else v) for k, v in values.items()}
    trace.event("run_start", kind="skill", task=f"skill {skill.name} (revision {skill.revision})", model=None,
                skill=skill.name, revision=skill.revision, params=shown, pageId=page,
                scope=skill.scope, trace=str(trace.path))
    started = time.perf_counter()
    done: list[str] = []
    errors: list[str] = []  # what the steps' answers said broke (an act reports the errors it caused)
    for i, step in enumerate(skill.steps, 1):
        line = show_step(step, values, secrets)
        tool = step.tool if step.action == "tool" else "page_navigate" if step.action == "goto" else "page_act"
        trace.event("tool_call", step=i, tool=tool, args=line, action=step.action, line=line, frame=step.frame,
                    target=step.target.model_dump() if step.target else None)
        t0 = time.perf_counter()
        try:
            if step.action == "tool":
                if not desktop:
                    raise BridgeError("This bridge serves no desktop: a desktop skill needs one (see `dbg-bridge "
                                      "doctor`).", code="not_available")
                if not (step.tool or "").startswith("desktop_"):
                    raise BridgeError(f"A desktop step names {step.tool!r}, which is not a desktop tool.",
                                      code="bad_skill")
                args = {k: fill_in(v, values) if isinstance(v, str) else v for k, v in (step.arguments or {}).items()}
                result = await call(step.tool or "", args)
            else:
                if page is None:
                    raise BridgeError("A page skill needs a page: pass --page PAGEID.", code="invalid_argument")
                result = await run_page_step(call, page, step, values)
        except BridgeError as exc:
            ms = round((time.perf_counter() - t0) * 1000, 1)
            trace.event("tool_result", step=i, tool=tool, ok=False, ms=ms, error=str(exc), text=str(exc),
                        code=exc.code, line=line, target=step.target.model_dump() if step.target else None)
            ran = "; ".join(f"{n}. {d}" for n, d in enumerate(done, 1)) or "none"
            detail = exc.args[0] if isinstance(exc, StepFailed) else str(exc)
            err = StepFailed(f"Step {i} of {len(skill.steps)} ({line}) {detail} Steps that ran: {ran}. "
                             f"Fix the page or the step (`dbg-bridge skill edit {skill.name}`), or record it again.")
            trace.event("run_done", state="failed", steps=len(done), failed_step=i, error=str(err), summary=str(err),
                        totals={"steps": i}, ms=round((time.perf_counter() - started) * 1000, 1),
                        seconds=round(time.perf_counter() - started, 2))
            raise err from None
        trace.event("tool_result", step=i, tool=tool, ok=True, ms=round((time.perf_counter() - t0) * 1000, 1),
                    line=line, text=line,
                    target=step.target.model_dump() if step.target else None,
                    url=result.get("url") if isinstance(result, dict) else None)
        done.append(line)
        if isinstance(result, dict):
            errors.extend(str(e) for e in result.get("errors") or [])
    checked = await check_until(skill, values, page, call, desktop)
    came_back = reproduced(skill, errors)
    trace.event("run_done", state="done", steps=len(done), until=checked,
                summary=f"{len(done)} steps" + (f"; {checked}" if checked else ""), totals={"steps": len(done)},
                ms=round((time.perf_counter() - started) * 1000, 1), seconds=round(time.perf_counter() - started, 2))
    out = {"skill": skill.name, "revision": skill.revision, "state": "done", "steps": done, "until": checked,
           "ms": round((time.perf_counter() - started) * 1000, 1)}
    if came_back is not None:
        out["error"] = came_back
    elif errors:
        out["errors"] = errors[:10]
    return out


def reproduced(skill: Skill, errors: list[str]) -> dict[str, Any] | None:
    """For a repro skill (until.error): whether the error it was saved for came back in the steps' answers."""
    wanted = skill.until.error if skill.until else None
    if not wanted:
        return None
    hits = [e for e in errors if wanted in e]
    # the same function in the same file at another line: the fix (or any edit above it) moved the line
    moved = [e for e in errors if e not in hits and (where := _function_and_file(wanted)) and where in e]
    out: dict[str, Any] = {"wanted": wanted, "reproduced": bool(hits or moved)}
    if hits or moved:
        out["seen"] = (hits + moved)[:3]
    if moved and not hits:
        out["note"] = ("The same function in the same file threw, at another line than when the skill was saved "
                       "(the file was edited since): counted as the error coming back.")
    others = [e for e in errors if e not in hits and e not in moved]
    if others:
        out["others"] = others[:5]
    out["summary"] = (f"the error came back: {(hits + moved)[0]}" if hits or moved else
                      "the error did not come back" + (f" (other errors: {others[0]})" if others else ""))
    return out


def _function_and_file(frame: str) -> str | None:
    """'priceWithTax (src/cart.ts:16:18)' -> 'priceWithTax (src/cart.ts:' (None for a frame of another shape)."""
    m = re.match(r"^(.+ \([^()]+?):\d+:\d+\)$", frame)
    return m.group(1) + ":" if m else None


async def check_until(skill: Skill, values: dict[str, str], page: str | None, call: ToolCall,
                      desktop: bool) -> str | None:
    """The stop condition on the live page or desktop; a miss is an error (the steps ran, the result is not there)."""
    u = skill.until
    if u is None:
        return None
    u = u.model_copy(update={"text": fill_in(u.text, values)})
    try:
        if page is not None and (u.text or u.selector):
            await call("page_wait", {"pageId": page, "text": u.text, "selector": u.selector, "exact": False,
                                     "timeout": STEP_WAIT})
            return f"text {u.text!r} seen" if u.text else f"{u.selector!r} visible"
        if desktop and u.window:
            await call("desktop_wait_for_window", {"title": u.window, "timeout": STEP_WAIT})
            return f"window {u.window!r} open"
        if desktop and u.text:
            await call("desktop_wait_for_element", {"target": {"name": u.text}, "timeout": STEP_WAIT})
            return f"element {u.text!r} seen"
    except BridgeError as exc:
        raise BridgeError(f"Every step ran but the stop condition was not met: {u.model_dump(exclude_none=True)} "
                          f"({exc}). The page may have changed what it shows at the end; check it, then edit the "
                          f"skill's `until` (`dbg-bridge skill edit {skill.name}`).",
                          code="stop_condition_not_met") from None
    return None
