"""A tool is data plus one async handler; `bind` hands the handler the narrowest object it needs (the page it
addresses, the inbox, or the bridge's state) and turns every failure into one error shape: `[code] what happened. What
to do next.`"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
import logging
import time
import typing
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult, TextContent, ToolAnnotations

from bridge.errors import BridgeError
from bridge.pages.registry import document_info
from bridge.server.progress import REQUEST
from bridge.tools import flatten
from bridge.tools.page.handle import Page
from bridge.tools.road import note_raised

if TYPE_CHECKING:
    from bridge.state import BridgeState

log = logging.getLogger("bridge.tools")

Handler = Callable[..., Awaitable[Any]]

#: The one pageId parameter every page and user tool gets (added by `bind`, never written in a handler). What it
#: means (and that it may be left out with one tab) is said once, in page_list's description and the instructions.
PageId = str | None


@dataclass(frozen=True)
class Tool:
    """One MCP tool: its name and description come from the handler's name and docstring."""

    handler: Handler
    #: Its title is shown in docs/tools.md but not sent in tools/list (the name says as much, and every character
    #: there is paid for in each agent's context).
    annotations: ToolAnnotations
    #: What the handler's first parameter gets, picked from the bridge's state at call time (None: the state, or
    #: the `Page` its pageId names when that parameter is typed `Page`).
    scope: Callable[[Any], Any] | None = None
    #: Its answers' schema (structured content), sent as `outputSchema` in tools/list (bridge/tools/outputs.py).
    #: (A command's plumbing is in its wire model, bridge/pages/commands.py, never hidden from a tool's params.)
    output: dict[str, Any] | None = None

    @property
    def name(self) -> str:
        return self.handler.__name__

    @property
    def description(self) -> str:
        return " ".join(inspect.cleandoc(self.handler.__doc__ or "").split())

    @property
    def title(self) -> str:
        return self.annotations.title or ""

    @property
    def wire_annotations(self) -> ToolAnnotations:
        """The annotations as tools/list carries them: the hints, without the title."""
        return self.annotations.model_copy(update={"title": None})

    @property
    def takes_page(self) -> bool:
        first = next(iter(inspect.signature(self.handler).parameters.values()))
        return typing.get_type_hints(self.handler).get(first.name) is Page

    def bind(self, state: BridgeState) -> Handler:
        """The handler as the MCP server registers it: its first parameter filled in (a page tool gets a `pageId`
        argument resolved once into a `Page`), failures returned as `[code]` error results, every call audited."""
        handler, name, scope, takes_page = self.handler, self.name, self.scope, self.takes_page
        hints = typing.get_type_hints(handler, include_extras=True)
        sig = inspect.signature(handler)
        params = [p.replace(annotation=hints.get(p.name, p.annotation), kind=inspect.Parameter.KEYWORD_ONLY)
                  for p in list(sig.parameters.values())[1:]]
        model = flatten.params_model(handler)
        fields: list[str] = []
        if model is not None:  # the command's params model, offered as the tool's own arguments
            at = [p.name for p in params].index(model[0])
            flat = flatten.parameters(model[1])
            fields = [p.name for p in flat]
            params[at:at + 1] = flat
        if takes_page:
            params.append(inspect.Parameter("pageId", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=PageId))
        wants_ctx = "ctx" in sig.parameters
        # acting on a tab takes its lease (bridge/pages/leases.py); reads, questions and highlights never wait
        leased = takes_page and not self.annotations.read_only_hint and bool(self.annotations.destructive_hint)

        @functools.wraps(handler)
        async def bound(ctx: Context, **kwargs: Any) -> CallToolResult:
            agent = state.clients.seen(ctx, name)
            started = time.perf_counter()
            args = dict(kwargs)
            if wants_ctx:
                args["ctx"] = ctx
            request = REQUEST.set(ctx)  # progress and elicitation reach the call's client through it
            try:
                if model is not None:
                    args[model[0]] = flatten.build(name, model[1], {k: args.pop(k) for k in fields})
                if takes_page:
                    first: Any = Page(state, state.dispatcher.resolve(args.pop("pageId", None)), ctx)
                else:
                    first = state if scope is None else scope(state)
                if leased:
                    async with state.leases.acting(first.target.inst.id, agent.key, agent.label, name,
                                                   first.target.inst):
                        value = await handler(first, **args)
                else:
                    value = await handler(first, **args)
            except BridgeError as exc:
                state.audit.tool_call(name, kwargs, (time.perf_counter() - started) * 1000, error=exc)
                note_raised(exc)
                return error_result(exc)
            except asyncio.CancelledError as exc:
                state.audit.tool_call(name, kwargs, (time.perf_counter() - started) * 1000, error=exc)
                raise
            except Exception as exc:  # the top of a tool call: a bug in the bridge still gets the error shape
                log.exception("tool %s failed", name)
                err = BridgeError(f"{name} failed inside the bridge ({type(exc).__name__}: {exc}). This is a bridge "
                                  "bug, not your arguments: retry once, then try another tool.", code="internal_error")
                state.audit.tool_call(name, kwargs, (time.perf_counter() - started) * 1000, error=err)
                note_raised(err)
                return error_result(err)
            finally:
                REQUEST.reset(request)
            if takes_page and isinstance(value, dict) and "pageId" in value:
                value = with_document(first, value)
            state.audit.tool_call(name, kwargs, (time.perf_counter() - started) * 1000, value=value)
            return as_result(value)

        # The SDK injects `ctx` (a Context-typed parameter) and leaves it out of the tool's input schema.
        params = [p for p in params if p.name != "ctx"]
        ctx_param = inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=Context)
        bound.__signature__ = sig.replace(parameters=[*params, ctx_param], return_annotation=CallToolResult)  # type: ignore[attr-defined]
        bound.__annotations__ = {**{p.name: p.annotation for p in params}, "ctx": Context, "return": CallToolResult}
        del bound.__wrapped__  # type: ignore[attr-defined]
        return bound


def with_document(page: Page, value: dict[str, Any]) -> dict[str, Any]:
    """A page answer with its tab's document generation and dev-server updates right after its pageId (as the page
    stands when the answer leaves: an act that reloaded it says so)."""
    info = document_info(page.target.inst)
    if not info:
        return value
    out: dict[str, Any] = {"pageId": value["pageId"], **info}
    out.update((k, v) for k, v in value.items() if k not in out)
    return out


def error_result(exc: BridgeError) -> CallToolResult:
    """The one error shape: `[code] message` as text, and the same as structured content."""
    return CallToolResult(content=[TextContent(type="text", text=str(exc))], is_error=True)


def as_result(value: Any) -> CallToolResult:
    """A handler's value as compact JSON text (what the model reads) plus the same data as structured content."""
    if isinstance(value, CallToolResult):
        return value
    text = json.dumps(value, ensure_ascii=False, default=str)
    structured = value if isinstance(value, dict) else {"result": value}
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured)


def read_only(title: str, *, open_world: bool = False) -> ToolAnnotations:
    """Reads only (the spec gives destructive/idempotent hints meaning only for tools that are not read-only)."""
    return ToolAnnotations(title=title, read_only_hint=True, open_world_hint=open_world)


def acting(title: str, *, destructive: bool = True, idempotent: bool = False,
           open_world: bool = False) -> ToolAnnotations:
    """Changes something in the page, the desktop or the bridge."""
    return ToolAnnotations(title=title, read_only_hint=False, destructive_hint=destructive,
                           idempotent_hint=idempotent, open_world_hint=open_world)
