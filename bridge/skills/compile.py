"""A recording's steps (as the page sent them, bridge/pages/protocol.py RecordedStep) compiled into a Skill: the first
load is where it starts, a load right after a click or a key is that action's navigation (not a step of its own),
each field's typed value becomes a named parameter with the value as its default (a password: a secret without
one), and the human's stop condition ends it."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from bridge.skills.format import Param, Skill, Step, Target, Until
from bridge.pages.protocol import RecordedStep

#: A field name in the bracket style form libraries write ('customer[address][city]').
FIELD_PATH = re.compile(r"^[\w-]+(?:\[[^\]]*\])+$")
#: A load this soon after a click, a key or a choice is taken as its navigation.
CAUSED_WITHIN_S = 10.0


def param_name(label: str, taken: set[str], fallback: str = "value") -> str:
    """'Customer e-mail' → customer_e_mail, a form field's name 'root[0][location][city]' → city; unique among
    `taken` (a second one gets _2)."""
    if FIELD_PATH.match(label):
        label = next((seg for seg in reversed(re.findall(r"\[([^\]]*)\]", label)) if not seg.isdigit()), label)
    base = re.sub(r"[^a-z0-9]+", "_", label.lower()).strip("_")[:40] or fallback
    if base[0].isdigit():
        base = "v_" + base
    name, n = base, 2
    while name in taken:
        name, n = f"{base}_{n}", n + 1
    taken.add(name)
    return name


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""


def unsafe_steps(skill: Skill, origin: str, confirmed: tuple[str, ...] | list[str] = ()) -> tuple[list[str],
                                                                                            list[str]]:
    """What a recorded skill must not do: go to a URL that is not http(s) (javascript:, data:, file:…), or to an
    origin other than the recorded one unless the human confirmed it. (What is wrong, the other origins alone.)"""
    bad: list[str] = []
    others: list[str] = []
    for i, step in enumerate(skill.steps, 1):
        if step.action != "goto" or step.url is None:
            continue
        scheme = urlsplit(step.url.strip()).scheme.lower()
        if scheme not in ("http", "https"):
            bad.append(f"step {i} goes to a {scheme or 'relative'}: URL ({step.url[:60]!r})")
        elif origin and origin_of(step.url.strip()) != origin and origin_of(step.url.strip()) not in confirmed:
            bad.append(f"step {i} goes to another origin, {origin_of(step.url.strip())}")
            others.append(origin_of(step.url.strip()))
    if skill.start_url and urlsplit(skill.start_url.strip()).scheme.lower() not in ("http", "https"):
        bad.append(f"it starts at a URL that is not http(s) ({skill.start_url[:60]!r})")
    unsafe_scheme = len(bad) > len(others)
    return bad, ([] if unsafe_scheme else sorted(set(others)))  # a bad scheme is never the human's to confirm


def compile_recording(name: str, steps: list[RecordedStep], until: Until | None = None,
                      description: str = "", scope: str = "") -> Skill:
    """The skill; `scope` is the tab's verified origin (else the origin of where it started, as the page said)."""
    out: list[Step] = []
    params: list[Param] = []
    taken: set[str] = set()
    start_url: str | None = None
    last_t: int | None = None
    last_action: str | None = None
    for rec in steps:
        after = max(0.0, (rec.t - last_t) / 1000) if last_t is not None and rec.t else 0.0
        if rec.action == "load":
            caused = last_action in ("click", "dblclick", "press", "select", "check", "uncheck") and \
                after <= CAUSED_WITHIN_S
            if start_url is None and not out:
                start_url = rec.url
                out.append(Step(action="goto", url=rec.url))
            elif not caused and (not out or out[-1].url != rec.url):
                out.append(Step(action="goto", url=rec.url, after=round(after, 2)))
            last_t, last_action = rec.t or last_t, "load"
            continue
        if start_url is None:
            start_url = rec.url
            out.append(Step(action="goto", url=rec.url))
        t = rec.target
        target = Target(role=t.role, name=t.name, text=t.text, selector=t.selector, tag=t.tag) if t else None
        step = Step(action=rec.action, target=target, frame=rec.frame, key=rec.key, after=round(after, 2))
        if rec.action == "fill":
            prev = out[-1] if out else None
            if prev is not None and prev.action == "fill" and prev.target == target and prev.frame == rec.frame:
                out.pop()  # the same field again: its final value is the step (the parameter stays)
                params = [p for p in params if f"{{{{{p.name}}}}}" != prev.value]
                taken.discard((prev.value or "").strip("{}"))
            label = (t.label or t.name or t.selector) if t else ""
            pname = param_name("password" if rec.secret and not label else label, taken)
            params.append(Param(name=pname, default=None if rec.secret else (rec.value or ""),
                                secret=rec.secret, label=label))
            step = step.model_copy(update={"value": f"{{{{{pname}}}}}"})
        elif rec.action == "select":
            step = step.model_copy(update={"value": rec.value})
        out.append(step)
        last_t, last_action = rec.t or last_t, rec.action
    return Skill(name=name, kind="page", scope=scope or origin_of(start_url or ""), start_url=start_url, params=params,
                 steps=out, until=with_params(until, params), description=description, source="recording")


def with_params(until: Until | None, params: list[Param]) -> Until | None:
    """The stop condition with a typed value in it made that parameter's placeholder: the text the human saw at the
    end ('1 - Ada Lovelace') follows the value a replay types ('1 - {{name}}')."""
    if until is None or not until.text:
        return until
    text = until.text
    for p in sorted(params, key=lambda p: -len(p.default or "")):
        if not p.secret and p.default and len(p.default) >= 3 and p.default in text:
            text = text.replace(p.default, f"{{{{{p.name}}}}}")
    return until.model_copy(update={"text": text})
