"""page_* tools: list the connected pages and frames, run code or a named command in one of them."""

import base64
import json
import re
import time
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field

from bridge import errors
from bridge.dispatch import Dispatcher
from bridge.human.consent import call_command, guard
from bridge.protocol import COMMANDS
from mcp.types import CallToolResult, ImageContent, TextContent

from bridge.tools.base import Tool, acting, read_only

PageId = Annotated[
    str | None,
    Field(description="Target page or frame, e.g. '5173/host' or 'ab123/f0' (from page_list). "
                      "May be omitted when exactly one page is live."),
]
Command = Literal[COMMANDS]  # type: ignore[valid-type]
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


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
                    "`return`. `args` is in scope, and `signal`, an AbortSignal that aborts when the call is cancelled or "
                    "times out. Give either code or command.")] = None,
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
    started = time.perf_counter()
    if code is not None:
        command, params = "eval", {"code": code, "args": args}
    # the command's own policy (consent class, --disable-tools of the tool that owns it), as on every path
    target, result = await call_command(d, pageId, command or "eval", params, timeout)
    return {"pageId": target.page_id, "result": result, "ms": round((time.perf_counter() - started) * 1000, 2)}


FRAME_REF = re.compile(r"^(f\d+):(e\d+@[a-z]{2})$")


def frame_ref(d: Dispatcher, page_id: str | None, ref: str | None) -> tuple[str | None, str | None]:
    """A ref from a snapshot with includeFrames ('f0:e3@ab') targets that frame: (its pageId, the bare ref)."""
    m = FRAME_REF.match(ref or "")
    if not m:
        return page_id, ref
    return f"{d.resolve(page_id).inst.id}/{m.group(1)}", m.group(2)


MAX_CHARS_RANGE = (200, 200_000)


async def page_snapshot(
    d: Dispatcher,
    pageId: PageId = None,
    root: Annotated[str | None, Field(description="Start at this ref or CSS selector instead of <body>.")] = None,
    depth: Annotated[int, Field(ge=0, le=64, description="How many levels of the tree to show.")] = 64,
    interactiveOnly: Annotated[bool, Field(description="Only links, buttons, inputs and other controls.")] = False,
    maxChars: Annotated[int, Field(description="Cut the tree at this many characters: 200 to 200000; the cut says how "
                                               "many elements it left out.")] = 12_000,
    boxes: Annotated[bool, Field(description="Add each element's box (x,y,width,height in CSS px).")] = False,
    includeFrames: Annotated[bool, Field(
        description="Inline same-origin child frames; their refs read 'f0:e3@ab' and work in page_act.")] = False,
    toFile: Annotated[bool, Field(
        description="Write the whole tree, however long, to a file; answer with its path and the first "
                    "maxChars.")] = False,
    timeout: Annotated[float, Field(gt=0, le=300)] = 15,
) -> CallToolResult:
    """A compact semantic tree of a page or frame: one line per element with role, accessible name, states and a
    ref (e.g. e12@ab) for page_act. Refs fail loudly once their element is gone or the page reloaded."""
    low, high = MAX_CHARS_RANGE
    if not low <= maxChars <= high:
        raise errors.BridgeError(f"maxChars must be between {low} and {high} (got {maxChars}). For a longer tree, "
                                 "pass toFile: true (the whole tree goes to a file), or narrow with root, depth or "
                                 "interactiveOnly.", code="bad_max_chars")
    params = {"root": root, "depth": depth, "interactiveOnly": interactiveOnly, "boxes": boxes,
              "includeFrames": includeFrames, "maxChars": maxChars, "full": toFile}
    target, snap = await d.call_page(pageId, "snapshot", params, timeout)
    if not toFile:
        return snapshot_result(target.page_id, snap)
    tree = await whole_tree(d, target.page_id, snap, timeout)
    path = write_artifact(d, f"snapshot-{target.page_id.replace('/', '-')}-{snap['snapshotId']}.txt", tree)
    shown = head_of(tree, maxChars)
    snap = {k: v for k, v in snap.items() if k not in ("from", "next")}
    snap.update({"file": str(path), "chars": len(tree), "tree": shown, "truncated": len(shown) < len(tree)})
    return snapshot_result(target.page_id, snap, f" · whole tree ({len(tree)} chars, {snap['elements']} elements) in "
                                                 f"{path}; first {len(shown)} chars below")


async def whole_tree(d: Dispatcher, page_id: str, first: dict[str, Any], timeout: float) -> str:
    """The rest of a tree taken with `full`, read slice by slice under the result cap."""
    parts, at = [first["tree"]], first.get("next")
    while at is not None:
        _, part = await d.call_page(page_id, "snapshot", {"part": first["snapshotId"], "from": at}, timeout)
        parts.append(part["tree"])
        at = part.get("next")
    return "".join(parts)


def head_of(tree: str, max_chars: int) -> str:
    """The first whole lines of tree within max_chars."""
    if len(tree) <= max_chars:
        return tree
    cut = tree.rfind("\n", 0, max_chars + 1)
    return tree[:cut if cut > 0 else max_chars]


def snapshot_result(page_id: str, snap: dict[str, Any], extra: str = "") -> CallToolResult:
    shown = snap.get("shown", snap["elements"])
    count = f"{snap['elements']} elements" + (f" ({shown} shown, truncated)" if snap["truncated"] and not extra else "")
    head = (f"pageId {page_id} · {snap['url']} · {snap['title']!r} · snapshot {snap['snapshotId']} · {count}{extra}")
    return CallToolResult(content=[TextContent(type="text", text=head + "\n" + snap["tree"])],
                          structured_content={"pageId": page_id, **snap})


def write_artifact(d: Dispatcher, name: str, text: str) -> Path:
    """Big answers go to <config dir>/artifacts/<name> (readable by the user only); returns the path."""
    folder = d.settings.config_dir / "artifacts"
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = folder / re.sub(r"[^A-Za-z0-9._@-]", "_", name)
    path.write_text(text)
    path.chmod(0o600)
    return path


async def page_find(
    d: Dispatcher,
    pageId: PageId = None,
    text: Annotated[str | None, Field(description="Case-insensitive text in the element's name or own text.")] = None,
    regex: Annotated[str | None, Field(description="JavaScript regex (case-insensitive) on the same text.")] = None,
    exact: Annotated[bool, Field(description="text must be the whole text, case-sensitive.")] = False,
    role: Annotated[str | None, Field(description="ARIA role, e.g. button, link, textbox, checkbox, heading.")] = None,
    selector: Annotated[str | None, Field(description="CSS selector.")] = None,
    limit: Annotated[int, Field(ge=1, le=200)] = 20,
    timeout: Annotated[float, Field(gt=0, le=300)] = 15,
) -> dict[str, Any]:
    """Find elements by text, regex, role and/or CSS selector: refs with role, name and a line of context.
    Cheaper than a full snapshot."""
    if not any((text, regex, role, selector)):
        raise errors.BridgeError("Give at least one of text, regex, role or selector.", code="bad_arguments")
    params = {"text": text, "regex": regex, "exact": exact, "role": role, "selector": selector, "limit": limit}
    target, found = await d.call_page(pageId, "find", params, timeout)
    return {"pageId": target.page_id, **found}


Action = Literal["click", "dblclick", "hover", "focus", "fill", "type", "select", "check", "uncheck", "press", "scroll",
                 "drag"]


async def page_act(
    d: Dispatcher,
    action: Annotated[Action | None, Field(description="What to do (or give `actions` for a batch).")] = None,
    ref: Annotated[str | None, Field(description="Target ref from page_snapshot/page_find (preferred).")] = None,
    selector: Annotated[str | None, Field(description="Target CSS selector (must match one element, or use nth).")] = None,
    text: Annotated[str | None, Field(description="Target by visible text (must match one element, or use nth).")] = None,
    nth: Annotated[int | None, Field(ge=0, description="Pick the nth match of selector/text.")] = None,
    exact: Annotated[bool | None, Field(description="text must be the whole text, case-sensitive.")] = None,
    value: Annotated[str | None, Field(description="Text for fill/type, option for select, pixels for scroll.")] = None,
    key: Annotated[str | None, Field(description="Key chord for press, e.g. 'Enter', 'Control+a'.")] = None,
    to: Annotated[str | None, Field(description="For drag: the ref or CSS selector to drop on.")] = None,
    actions: Annotated[list[dict[str, Any]] | None, Field(
        description="A batch: [{action, ref|selector|text, value, key, nth, to, trusted}, ...], run in order.")] = None,
    trusted: Annotated[bool, Field(
        description="Send real input (isTrusted=true) through the dbg-bridge Chrome extension's chrome.debugger "
                    "instead of synthesizing events in the page: for click, dblclick, hover, check, uncheck, type, "
                    "fill and press, in the top page of the tab. Without the extension: not_available.")] = False,
    snapshot: Annotated[bool, Field(description="Also return a snapshot after acting.")] = False,
    pageId: PageId = None,
    timeout: Annotated[float, Field(gt=0, le=300)] = 15,
) -> dict[str, Any]:
    """Act on elements: click, dblclick, hover, focus, fill, type, select, check/uncheck, press, scroll, drag.
    Values are set so React/Vue notice. Returns what changed in the page as +/- lines. Events are synthetic
    (isTrusted=false) unless `trusted` sends real input through the Chrome extension."""
    if actions is None and action is None:
        raise errors.BridgeError("Give `action` (with a target) or `actions` (a batch).", code="bad_arguments")
    params: dict[str, Any] = {"snapshot": snapshot}
    if trusted:
        params["trusted"] = True
    pageId, ref = frame_ref(d, pageId, ref)
    if actions is not None:
        params["actions"] = actions
    else:
        params.update({k: v for k, v in {"action": action, "ref": ref, "selector": selector, "text": text,
                                          "nth": nth, "exact": exact, "value": value, "key": key,
                                          "to": to}.items() if v is not None})
    target, out = await call_command(d, pageId, "act", params, timeout)  # asks first if it would submit a form
    return {"pageId": target.page_id, **out}


async def page_wait(
    d: Dispatcher,
    text: Annotated[str | None, Field(description="Wait for this text (case-insensitive) to be visible.")] = None,
    exact: Annotated[bool, Field(description="text must be the whole text, case-sensitive.")] = False,
    selector: Annotated[str | None, Field(description="Wait for this CSS selector.")] = None,
    ref: Annotated[str | None, Field(description="Wait on this ref (e.g. until hidden or enabled).")] = None,
    url: Annotated[str | None, Field(description="Wait until the page URL contains this.")] = None,
    networkIdle: Annotated[bool, Field(description="Wait until no fetch/XHR is in flight for 500 ms.")] = False,
    state: Annotated[Literal["visible", "hidden", "enabled"], Field(
        description="visible (appears), hidden (disappears) or enabled.")] = "visible",
    pageId: PageId = None,
    timeout: Annotated[float, Field(gt=0, le=120, description="Seconds to wait at most.")] = 10,
) -> dict[str, Any]:
    """Wait until text, a selector or a ref appears, disappears or becomes enabled, the URL changes, or the
    network goes idle. Always bounded; a miss is a wait_timeout error."""
    if not any((text, selector, ref, url, networkIdle)):
        raise errors.BridgeError("Give one of text, selector, ref, url or networkIdle.", code="bad_arguments")
    pageId, ref = frame_ref(d, pageId, ref)
    params = {"text": text, "exact": exact, "selector": selector, "ref": ref, "url": url, "networkIdle": networkIdle,
              "state": state, "timeout": timeout}
    target, out = await d.call_page(pageId, "wait", params, timeout + 5)
    return {"pageId": target.page_id, **out}


async def page_navigate(
    d: Dispatcher,
    action: Annotated[Literal["goto", "back", "forward", "reload"], Field(description="What to do.")] = "goto",
    url: Annotated[str | None, Field(description="Where to go (for goto); relative URLs resolve against the page.")] = None,
    pageId: PageId = None,
    timeout: Annotated[float, Field(gt=0, le=120)] = 20,
) -> dict[str, Any]:
    """Navigate a page (goto, back, forward, reload) and return once its client is back under the same pageId,
    with the new URL and title."""
    target = d.resolve(pageId)
    params = {"action": action, "url": url}
    await guard(d, target, "navigate", params, timeout)  # asks first when leaving the page's verified origin
    # the connection that carried the command, not the one before it: a page that was reconnecting when the call
    # came would otherwise count its own reconnection as the navigation's new document
    sent, _ = await d.call_page(target.page_id, "navigate", params, timeout)
    reloaded = await d.wait_reload(sent, sent.inst.conn, timeout)
    _, where = await d.call_page(target.page_id, "location", {}, timeout)
    return {"pageId": target.page_id, "reloaded": reloaded, "url": where["href"], "title": where["title"]}


async def page_console(
    d: Dispatcher,
    since: Annotated[int, Field(ge=0, description="Cursor from the last answer; 0 for everything kept.")] = 0,
    level: Annotated[str | None, Field(description="Comma-separated levels: log, info, warn, error, debug.")] = None,
    limit: Annotated[int, Field(ge=1, le=500)] = 100,
    stack: Annotated[bool, Field(description="Include stacks of errors.")] = False,
    pageId: PageId = None,
    timeout: Annotated[float, Field(gt=0, le=60)] = 10,
) -> dict[str, Any]:
    """Console messages, uncaught errors and unhandled rejections of a page or frame since a cursor, kept across
    the tab's last reloads. Pass the returned cursor as `since` next time."""
    params = {"since": since, "level": level, "limit": limit, "stack": stack}
    target, out = await d.call_page(pageId, "console", params, timeout)
    return {"pageId": target.page_id, **out}


async def page_screenshot(
    d: Dispatcher,
    pageId: PageId = None,
    ref: Annotated[str | None, Field(description="Only this element (ref from page_snapshot/page_find).")] = None,
    selector: Annotated[str | None, Field(description="Only this element (CSS selector matching one element).")] = None,
    timeout: Annotated[float, Field(gt=0, le=60)] = 20,
) -> CallToolResult:
    """A PNG of what the page's tab shows (its visible area), or of one element (scrolled into view), as an image
    plus width, height and scale (image px per CSS px). Needs the dbg-bridge Chrome extension on the page and the
    tab in front; without the extension the answer is not_available saying how to add it."""
    pageId, ref = frame_ref(d, pageId, ref)
    started = time.perf_counter()
    target, shot = await d.call_page(pageId, "screenshot", {"ref": ref, "selector": selector}, timeout)
    data = str(shot.pop("data", "") if isinstance(shot, dict) else "")
    try:
        png = base64.b64decode(data, validate=True)
    except ValueError:
        png = b""
    if not png.startswith(PNG_SIGNATURE):
        raise errors.BridgeError("The page answered the screenshot with something that is not a PNG. Reload the tab "
                                 "(the extension may have been updated) and retry.", code="page_exception")
    summary = {"pageId": target.page_id, **shot, "bytes": len(png), "format": "png",
               "ms": round((time.perf_counter() - started) * 1000, 1)}
    return CallToolResult(content=[ImageContent(type="image", data=data, mime_type="image/png"),
                                   TextContent(type="text", text=json.dumps(summary))],
                          structured_content=summary)


async def page_network(
    d: Dispatcher,
    since: Annotated[int, Field(ge=0, description="Cursor from the last answer; 0 for everything kept.")] = 0,
    filter: Annotated[str | None, Field(description="Only URLs containing this.")] = None,
    failedOnly: Annotated[bool, Field(description="Only errors and HTTP status >= 400.")] = False,
    id: Annotated[int | None, Field(description="Details of one request: headers (secrets redacted) and bodies (cut).")] = None,
    resources: Annotated[bool, Field(description="Also list documents, scripts, images, css (resource timing).")] = False,
    limit: Annotated[int, Field(ge=1, le=300)] = 50,
    pageId: PageId = None,
    timeout: Annotated[float, Field(gt=0, le=60)] = 10,
) -> dict[str, Any]:
    """The page's fetch, XHR, WebSocket and EventSource traffic since a cursor: method, url, status, ms, size.
    Pass `id` for headers and bodies. Sees only requests made after the client loaded, in this document."""
    params = {"since": since, "filter": filter, "failedOnly": failedOnly, "id": id, "resources": resources, "limit": limit}
    target, out = await d.call_page(pageId, "network", params, timeout)
    return {"pageId": target.page_id, **out}


async def page_source(
    d: Dispatcher,
    ref: Annotated[str | None, Field(description="Element ref from page_snapshot/page_find.")] = None,
    selector: Annotated[str | None, Field(description="CSS selector of one element.")] = None,
    pageId: PageId = None,
    timeout: Annotated[float, Field(gt=0, le=60)] = 10,
) -> dict[str, Any]:
    """Map an element (ref, selector, or the one the human selected) to its source file:line:column and component
    chain, from compile-time attributes or React/Vue/Svelte debug info; via 'unknown' when neither exists."""
    pageId, ref = frame_ref(d, pageId, ref)
    target, out = await d.call_page(pageId, "source", {"ref": ref, "selector": selector}, timeout)
    return {"pageId": target.page_id, **out}


async def page_highlight(
    d: Dispatcher,
    refs: Annotated[list[str] | None, Field(description="Refs to outline.")] = None,
    selector: Annotated[str | None, Field(description="Or a CSS selector (at most 50 elements).")] = None,
    label: Annotated[str | None, Field(description="Label shown on each box (default: the ref).")] = None,
    durationMs: Annotated[int, Field(ge=0, le=600_000, description="Remove after this long; 0 keeps it.")] = 0,
    clear: Annotated[bool, Field(description="Remove every highlight instead.")] = False,
    pageId: PageId = None,
    timeout: Annotated[float, Field(gt=0, le=60)] = 10,
) -> dict[str, Any]:
    """Show (or clear) labelled outlines over elements so the human sees what you mean. The overlay lives in a
    shadow root and never takes clicks."""
    params = {"refs": refs, "selector": selector, "label": label, "durationMs": durationMs, "clear": clear}
    target, out = await d.call_page(pageId, "highlight", params, timeout)
    return {"pageId": target.page_id, **out}


TOOLS = [
    Tool(page_list, read_only("List pages")),
    Tool(page_exec, acting("Run code in a page")),
    Tool(page_snapshot, read_only("Snapshot a page")),
    Tool(page_find, read_only("Find elements")),
    Tool(page_act, acting("Act on elements")),
    Tool(page_wait, read_only("Wait for the page")),
    Tool(page_navigate, acting("Navigate a page")),
    Tool(page_console, read_only("Read the console")),
    Tool(page_network, read_only("Read network traffic")),
    Tool(page_source, read_only("Find an element's source")),
    Tool(page_highlight, acting("Highlight elements", destructive=False)),
    Tool(page_screenshot, read_only("Screenshot a page")),
]
