"""A tool is data plus one async handler; `bind` hands the handler what it needs (the dispatcher, or the narrower
object its `scope` picks from it) and hides that parameter."""

from __future__ import annotations

import functools
import inspect
import json
import time
import typing
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult, TextContent, ToolAnnotations

Handler = Callable[..., Awaitable[Any]]


@dataclass(frozen=True)
class Tool:
    """One MCP tool: its name and description come from the handler's name and docstring."""

    handler: Handler
    annotations: ToolAnnotations
    #: What the handler's first parameter gets, picked from the dispatcher at call time (None: the dispatcher).
    scope: Callable[[Any], Any] | None = None

    @property
    def name(self) -> str:
        return self.handler.__name__

    @property
    def description(self) -> str:
        return inspect.cleandoc(self.handler.__doc__ or "")

    def bind(self, dispatcher: Any) -> Handler:
        """The handler with its first parameter (the dispatcher, or its scope) filled in, for the MCP server."""
        handler, name, scope = self.handler, self.name, self.scope
        hints = typing.get_type_hints(handler, include_extras=True)
        sig = inspect.signature(handler)
        params = [p.replace(annotation=hints.get(p.name, p.annotation)) for p in list(sig.parameters.values())[1:]]

        @functools.wraps(handler)
        async def bound(ctx: Context, **kwargs: Any) -> CallToolResult:
            dispatcher.clients.seen(ctx)
            started = time.perf_counter()
            try:
                value = await handler(dispatcher if scope is None else scope(dispatcher), **kwargs)
            except BaseException as exc:  # recorded (cancellations too), then raised as before
                dispatcher.audit.tool_call(name, kwargs, (time.perf_counter() - started) * 1000, error=exc)
                raise
            dispatcher.audit.tool_call(name, kwargs, (time.perf_counter() - started) * 1000, value=value)
            return as_result(value)

        # The SDK injects `ctx` (a Context-typed parameter) and leaves it out of the tool's input schema.
        ctx_param = inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=Context)
        bound.__signature__ = sig.replace(parameters=[*params, ctx_param], return_annotation=CallToolResult)  # type: ignore[attr-defined]
        bound.__annotations__ = {**{k: v for k, v in hints.items() if k in {p.name for p in params}},
                                 "ctx": Context, "return": CallToolResult}
        del bound.__wrapped__  # type: ignore[attr-defined]
        return bound


def as_result(value: Any) -> CallToolResult:
    """A handler's value as compact JSON text (what the model reads) plus the same data as structured content."""
    if isinstance(value, CallToolResult):
        return value
    text = json.dumps(value, ensure_ascii=False, default=str)
    structured = value if isinstance(value, dict) else {"result": value}
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured)


def read_only(title: str) -> ToolAnnotations:
    return ToolAnnotations(title=title, read_only_hint=True, destructive_hint=False, open_world_hint=False)


def acting(title: str, *, destructive: bool = True) -> ToolAnnotations:
    return ToolAnnotations(title=title, read_only_hint=False, destructive_hint=destructive, open_world_hint=False)
