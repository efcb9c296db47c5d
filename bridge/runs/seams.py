"""Where skills and memory plug into runs (see bridge/runs/__init__.py): extra tools, planner context, and the
finished run. Providers are picked once at start from `PROVIDERS`, never patched in."""

from __future__ import annotations

import importlib
import inspect
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger("bridge.runs")

#: Import strings ("module:Class") of the providers every run gets; each class is built with the Settings.
PROVIDERS: tuple[str, ...] = ("bridge.skills.seam:SkillsProvider",)
#: Characters of planner context one provider may add.
MAX_CONTEXT = 2000

#: Calls one of the run's tools (by the name the model sees) through the run's own path: (name, args) -> Outcome.
Caller = Callable[[str, dict[str, Any]], Awaitable[Any]]


@dataclass(frozen=True)
class Scope:
    """Where a run acts: the page origin it addresses (None: no page) and the desktop app (None: none)."""

    origin: str | None = None
    app: str | None = None


@dataclass(frozen=True)
class ExtraTool:
    """A tool a provider offers to a run: its schema as tools/list shows one, and its handler."""

    name: str
    description: str
    input_schema: dict[str, Any]
    call: Callable[[dict[str, Any], Caller], Awaitable[Any]]
    read_only: bool = False


@dataclass
class Seams:
    """The providers of one bridge, asked by every run."""

    providers: list[Any] = field(default_factory=list)

    @classmethod
    def load(cls, settings: Any, names: tuple[str, ...] = PROVIDERS) -> Seams:
        found = []
        for spec in names:
            module, _, name = spec.partition(":")
            try:
                found.append(getattr(importlib.import_module(module), name)(settings))
            except ImportError as exc:
                log.info("agent provider %s not loaded: %s", spec, exc)
        return cls(found)

    async def tools_for(self, scope: Scope) -> list[ExtraTool]:
        out: list[ExtraTool] = []
        for p in self._having("tools_for"):
            out += await self._guarded(p.tools_for(scope), [])
        return out

    async def context_for(self, scope: Scope, task: str) -> list[str]:
        out = []
        for p in self._having("context_for"):
            text = await self._guarded(p.context_for(scope, task), "")
            if text:
                out.append(str(text)[:MAX_CONTEXT])
        return out

    async def run_finished(self, summary: dict[str, Any], events: list[dict[str, Any]]) -> None:
        for p in self._having("run_finished"):
            await self._guarded(p.run_finished(summary, events), None)

    def _having(self, method: str) -> list[Any]:
        return [p for p in self.providers if callable(getattr(p, method, None))]

    @staticmethod
    async def _guarded(result: Any, default: Any) -> Any:
        try:
            return await result if inspect.isawaitable(result) else result
        except Exception:  # a provider's bug never fails the run
            log.exception("agent provider failed")
            return default
