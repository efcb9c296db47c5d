"""page_* tools: list the connected pages and frames, run code or a named command in one of them."""

import time
from typing import Annotated, Any, Literal

from pydantic import Field

from bridge import errors
from bridge.dispatch import Dispatcher
from bridge.protocol import COMMANDS
from mcp.types import CallToolResult, TextContent

from bridge.tools.base import Tool, acting, read_only

PageId = Annotated[
    str | None,
    Field(description="Target page or frame, e.g. '5173/host' or 'ab123/f0' (from page_list). "
                      "May be omitted when exactly one page is live."),
]
Command = Literal[COMMANDS]  # type: ignore[valid-type]


async def page_list(d: Dispatcher) -> dict[str, Any]:
    """List connected pages and their frames: pageId, url, title, origin, parent frame, cross-origin flag,
    state (live / reconnecting with seconds until the id expires) and last seen."""
    rows = d.registry.page_rows()
    out: dict[str, Any] = {"pages": rows}
    if not rows:
        out["hint"] = (f"No page is connected. Load {d.settings.base_url()}/inject/dbg_client.js in your app, "
                       f"or open the demo at {d.settings.base_url()}/demo.")
    return out


async def page_exec(
    d: Dispatcher,
    code: Annotated[str | None, Field(
        description="JavaScript to run: an expression (`document.title`) or an async function body that uses "
                    "`return`. `args` is in scope. Give either code or command.")] = None,
    args: Annotated[Any, Field(description="JSON value passed to the code as `args`.")] = None,
    command: Annotated[Command | None, Field(
        description="A named client command instead of code (see the client's COMMANDS).")] = None,
    params: Annotated[dict[str, Any] | None, Field(description="Parameters for the named command.")] = None,
    pageId: PageId = None,
    timeout: Annotated[float, Field(gt=0, le=300, description="Seconds to wait for the page (max 300).")] = 30,
) -> dict[str, Any]:
    """Run JavaScript (or a named command) in one page or frame and return its JSON result.
    Exceptions come back as errors with the page's stack; DOM nodes, Maps, cycles and huge values are rendered
    safely."""
    if (code is None) == (command is None):
        raise errors.BridgeError("Give exactly one of `code` (JavaScript) or `command` (a named command).",
                                 code="bad_arguments")
    if code is not None:
        command, params = "eval", {"code": code, "args": args}
    started = time.perf_counter()
    target, result = await d.call_page(pageId, command or "eval", params, timeout)
    return {"pageId": target.page_id, "result": result, "ms": round((time.perf_counter() - started) * 1000, 2)}


async def page_snapshot(
    d: Dispatcher,
    pageId: PageId = None,
    root: Annotated[str | None, Field(description="Start at this ref or CSS selector instead of <body>.")] = None,
    depth: Annotated[int, Field(ge=0, le=64, description="How many levels of the tree to show.")] = 64,
    interactiveOnly: Annotated[bool, Field(description="Only links, buttons, inputs and other controls.")] = False,
    maxChars: Annotated[int, Field(ge=200, le=200_000, description="Cut the tree at this many characters.")] = 12_000,
    boxes: Annotated[bool, Field(description="Add each element's box (x,y,width,height in CSS px).")] = False,
    timeout: Annotated[float, Field(gt=0, le=300)] = 15,
) -> CallToolResult:
    """A compact semantic tree of a page or frame: one line per element with role, accessible name, states and a
    ref (e.g. e12@ab) for page_act. Refs fail loudly once their element is gone or the page reloaded."""
    params = {"root": root, "depth": depth, "interactiveOnly": interactiveOnly, "maxChars": maxChars, "boxes": boxes}
    target, snap = await d.call_page(pageId, "snapshot", params, timeout)
    head = (f"pageId {target.page_id} · {snap['url']} · {snap['title']!r} · snapshot {snap['snapshotId']} · "
            f"{snap['elements']} elements{' (truncated)' if snap['truncated'] else ''}")
    return CallToolResult(content=[TextContent(type="text", text=head + "\n" + snap["tree"])],
                          structured_content={"pageId": target.page_id, **snap})


async def page_find(
    d: Dispatcher,
    pageId: PageId = None,
    text: Annotated[str | None, Field(description="Case-insensitive text in the element's name or own text.")] = None,
    regex: Annotated[str | None, Field(description="JavaScript regex (case-insensitive) on the same text.")] = None,
    role: Annotated[str | None, Field(description="ARIA role, e.g. button, link, textbox, checkbox, heading.")] = None,
    selector: Annotated[str | None, Field(description="CSS selector.")] = None,
    limit: Annotated[int, Field(ge=1, le=200)] = 20,
    timeout: Annotated[float, Field(gt=0, le=300)] = 15,
) -> dict[str, Any]:
    """Find elements by text, regex, role and/or CSS selector: refs with role, name and a line of context.
    Cheaper than a full snapshot."""
    if not any((text, regex, role, selector)):
        raise errors.BridgeError("Give at least one of text, regex, role or selector.", code="bad_arguments")
    params = {"text": text, "regex": regex, "role": role, "selector": selector, "limit": limit}
    target, found = await d.call_page(pageId, "find", params, timeout)
    return {"pageId": target.page_id, **found}


Action = Literal["click", "dblclick", "hover", "focus", "fill", "type", "select", "check", "uncheck", "press", "scroll"]


async def page_act(
    d: Dispatcher,
    action: Annotated[Action | None, Field(description="What to do (or give `actions` for a batch).")] = None,
    ref: Annotated[str | None, Field(description="Target ref from page_snapshot/page_find (preferred).")] = None,
    selector: Annotated[str | None, Field(description="Target CSS selector (must match one element, or use nth).")] = None,
    text: Annotated[str | None, Field(description="Target by visible text (must match one element, or use nth).")] = None,
    nth: Annotated[int | None, Field(ge=0, description="Pick the nth match of selector/text.")] = None,
    value: Annotated[str | None, Field(description="Text for fill/type, option for select, pixels for scroll.")] = None,
    key: Annotated[str | None, Field(description="Key chord for press, e.g. 'Enter', 'Control+a'.")] = None,
    actions: Annotated[list[dict[str, Any]] | None, Field(
        description="A batch: [{action, ref|selector|text, value, key, nth}, ...], run in order.")] = None,
    snapshot: Annotated[bool, Field(description="Also return a snapshot after acting.")] = False,
    pageId: PageId = None,
    timeout: Annotated[float, Field(gt=0, le=300)] = 15,
) -> dict[str, Any]:
    """Act on elements: click, dblclick, hover, focus, fill, type, select, check/uncheck, press, scroll.
    Values are set so React/Vue notice. Returns what changed in the page as +/- lines. Events are synthetic
    (isTrusted=false)."""
    if actions is None and action is None:
        raise errors.BridgeError("Give `action` (with a target) or `actions` (a batch).", code="bad_arguments")
    params: dict[str, Any] = {"snapshot": snapshot}
    if actions is not None:
        params["actions"] = actions
    else:
        params.update({k: v for k, v in {"action": action, "ref": ref, "selector": selector, "text": text,
                                          "nth": nth, "value": value, "key": key}.items() if v is not None})
    target, out = await d.call_page(pageId, "act", params, timeout)
    return {"pageId": target.page_id, **out}


TOOLS = [
    Tool(page_list, read_only("List pages")),
    Tool(page_exec, acting("Run code in a page")),
    Tool(page_snapshot, read_only("Snapshot a page")),
    Tool(page_find, read_only("Find elements")),
    Tool(page_act, acting("Act on elements")),
]
