"""A skill: what a recording (or a run) compiles into — steps, parameters with defaults, the stop condition — kept
as a readable, versioned JSON document in the store (config_dir/skills/NAME.json on one bridge)."""

from __future__ import annotations

import re
import time
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bridge.errors import BridgeError

#: The skill file's format; a file of another format is refused with what to do.
SKILL_FORMAT = 1
NAME_RE = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$"
PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
Name = Annotated[str, Field(pattern=NAME_RE)]
Str = Annotated[str, Field(max_length=4096)]


class _Doc(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Param(_Doc):
    """A value the skill takes: `{{name}}` in a step's value. A secret (a password) has no default and is never
    written to the file or the trace."""

    name: Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")]
    default: Str | None = None
    secret: bool = False
    #: Where it was typed (the field's label): what `skill show` says it is.
    label: Str = ""


class Target(_Doc):
    """How a step finds its element again: role + accessible name, then text, then a stable selector."""

    role: Str = ""
    name: Str = ""
    text: Str = ""
    selector: Str = ""
    tag: Str = ""


class Step(_Doc):
    """One step. Page steps: an action on a target in `frame` (or `goto` a URL). Desktop steps: a desktop_* tool
    and its arguments, as desktop_stop_recording gives them."""

    action: Literal["goto", "click", "dblclick", "fill", "select", "check", "uncheck", "press", "tool"]
    target: Target | None = None
    frame: Annotated[str, Field(pattern=r"^(?:host|f\d{1,4})$")] = "host"
    value: Annotated[str, Field(max_length=100_000)] | None = None
    key: Annotated[str, Field(max_length=100)] | None = None
    url: Str | None = None
    tool: Annotated[str, Field(max_length=100)] | None = None
    arguments: dict[str, Any] | None = None
    #: Seconds the human took before this step (a replay allows at least twice that for the target to appear).
    after: Annotated[float, Field(ge=0, le=3600)] = 0


class Until(_Doc):
    """The stop condition the human confirmed: text seen (page), an element (page selector), or a window title
    (desktop) at the end; or, for a repro, the error it reproduces."""

    text: Str | None = None
    selector: Str | None = None
    window: Str | None = None
    #: The error a repro skill reproduces (its top frame, `fn (file:line:col)`, or its message): the replay says
    #: whether it came back (page_console saveSkill).
    error: Str | None = None


class Skill(_Doc):
    format: Literal[1] = SKILL_FORMAT
    name: Name
    #: Bumped on every save (edit, re-record): a trace names the revision it ran.
    revision: Annotated[int, Field(ge=1)] = 1
    kind: Literal["page", "desktop"] = "page"
    #: The page origin or desktop app it was recorded on: what a run offers it for, and memory's key.
    scope: Str = ""
    start_url: Str | None = None
    description: Str = ""
    params: list[Param] = Field(default_factory=list)
    steps: Annotated[list[Step], Field(max_length=2000)]
    until: Until | None = None
    created: float = Field(default_factory=time.time)
    #: "recording", or "run:ID" for one saved from a run.
    source: Str = "recording"
    #: Who started its recording (bridge/server/principals.py): cockpit, terminal, or page (the page's panel).
    recorded_by: Str | None = None

    def summary(self) -> dict[str, Any]:
        return {"name": self.name, "revision": self.revision, "kind": self.kind, "scope": self.scope,
                "steps": len(self.steps), "params": {p.name: (None if p.secret else p.default) for p in self.params},
                "until": self.until.model_dump(exclude_none=True) if self.until else None}

    def bind(self, given: dict[str, str]) -> dict[str, str]:
        """The values for a run: defaults, overridden by `given`; an unknown name or a missing secret is refused."""
        known = {p.name: p for p in self.params}
        unknown = sorted(set(given) - set(known))
        if unknown:
            raise BridgeError(f"Skill {self.name!r} has no parameter {', '.join(unknown)}; it takes "
                              f"{', '.join(known) or 'none'} (`dbg-bridge skill show {self.name}`).",
                              code="invalid_argument")
        values = {n: p.default for n, p in known.items() if p.default is not None}
        values.update({k: str(v) for k, v in given.items()})
        missing = [n for n in known if n not in values]
        if missing:
            raise BridgeError(f"Skill {self.name!r} needs {', '.join(missing)} (no default: a secret is never "
                              f"stored). Pass --param {missing[0]}=VALUE.", code="missing_param")
        return values


def fill_in(text: str | None, values: dict[str, str]) -> str | None:
    """`{{name}}` placeholders replaced by their values."""
    if text is None:
        return None
    return PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), text)


def parse(doc: Any, name: str | None = None) -> Skill:
    """A skill document (from the store, an edit, an API body), or a `[bad_skill]` error saying what is wrong."""
    if isinstance(doc, dict) and doc.get("format") not in (None, SKILL_FORMAT):
        raise BridgeError(f"Skill format {doc.get('format')!r} is not one this bridge reads (format {SKILL_FORMAT}); "
                          "re-record it or upgrade dbg-bridge.", code="bad_skill")
    try:
        skill = Skill.model_validate(doc)
    except ValidationError as exc:
        where = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'skill'}: {e['msg']}" for e in exc.errors()[:5])
        raise BridgeError(f"The skill is not valid: {where}. Fix it (`dbg-bridge skill edit NAME`) and save again.",
                          code="bad_skill") from None
    if name is not None and skill.name != name:
        raise BridgeError(f"The skill's name is {skill.name!r}, not {name!r}: a rename is a new skill (save it "
                          "under the new name, then delete the old one).", code="bad_skill")
    declared = {p.name for p in skill.params}
    used = {m for s in skill.steps for m in PLACEHOLDER.findall((s.value or "") + (s.url or ""))}
    used |= set(PLACEHOLDER.findall(skill.until.text or "")) if skill.until else set()
    if used - declared:
        raise BridgeError(f"Steps use {{{{{sorted(used - declared)[0]}}}}} but params do not declare it: add it to "
                          "params or take it out of the step.", code="bad_skill")
    return skill


class Skills:
    """The skills in the store: list, get, save (bumping the revision), delete."""

    KIND = "skills"

    def __init__(self, store: Any) -> None:
        self.store = store

    async def list(self, scope: str | None = None) -> list[Skill]:
        out = []
        for doc in await self.store.all(self.KIND):
            try:
                skill = parse(doc)
            except BridgeError:
                continue
            if scope is None or skill.scope == scope:
                out.append(skill)
        return out

    async def get(self, name: str) -> Skill:
        check_name(name)
        doc = await self.store.get(self.KIND, name)
        if doc is None:
            known = [s.name for s in await self.list()]
            raise BridgeError(f"No skill named {name!r}. Skills here: {', '.join(known) or 'none yet'} "
                              "(record one with `dbg-bridge record NAME --page PAGEID`).", code="unknown_skill")
        return parse(doc, name)

    async def exists(self, name: str) -> bool:
        return await self.store.get(self.KIND, name) is not None

    async def save(self, skill: Skill) -> Skill:
        old = await self.store.get(self.KIND, skill.name)
        if old is not None:
            skill = skill.model_copy(update={"revision": int(old.get("revision", 0)) + 1})
        await self.store.put(self.KIND, skill.name, skill.model_dump(mode="json", exclude_none=True))
        return skill

    async def delete(self, name: str) -> bool:
        check_name(name)
        return await self.store.delete(self.KIND, name)


def check_name(name: str) -> None:
    if not re.match(NAME_RE, name or ""):
        raise BridgeError(f"{name[:80]!r} is not a skill name: letters, digits, '.', '_' and '-', up to 80, starting "
                          "with a letter or digit.", code="invalid_argument")
