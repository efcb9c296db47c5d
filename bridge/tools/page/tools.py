"""page_* tools: list the connected pages and frames, run code or a named command in one of them.

Each page tool gets the `Page` its pageId names, resolved once (see bridge/tools/base.py)."""

import base64
import json
import re
import time
from typing import Annotated, Any, Literal

from mcp.types import CallToolResult, ImageContent, TextContent
from pydantic import Field

from bridge import errors
from bridge.server import artifacts
from bridge.pages import sourcemap
from bridge.pages import commands as m
from bridge.pages.commands import COMMANDS
from bridge.state import BridgeState
from bridge.tools.page import desktop, dev, problems, vitals
from bridge.tools.page.act import act
from bridge.tools.base import Tool, acting, read_only
from bridge.tools.outputs import obj, of_page
from bridge.tools.page.handle import Page, in_frame

#: What page_exec(command=…) may name: every command but `record`, which the human's recording tools start (an agent
#: never starts recording the human's input; bridge/skills/recording.py), and `tools`/`tool_call`: a page's own WebMCP
#: tools are reached through page_tools / page_call_tool only, whose answers are marked as the page's and whose
#: arguments are checked against the page's schema (bridge/tools/page/webmcp.py); `open` is page_open's (it waits for
#: the new tab and makes it the agent's own: bridge/tools/page/open_tab.py).
Command = Literal[tuple(c for c in COMMANDS if c not in ("record", "tools", "tool_call", "problems", "maps", "open"))]  # type: ignore[valid-type]
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


#: Seconds to wait for the page (the tools that take one; a command's own params are its params model's).
Timeout = Annotated[float, Field(gt=0, le=300)]
WaitTimeout = Annotated[float, Field(gt=0, le=120)]
#: Seconds the quick reads (find, console, network, source, highlight, screenshot) wait for a page.
QUICK = 20

async def page_list(
    state: BridgeState,
    cursor: str | None = None,
    limit: Annotated[int, Field(ge=1, le=1000)] = 100,
) -> dict[str, Any]:
    """Connected tabs and frames (url, title, verified origin, state), `limit` tabs at a time. Page
    tools take a pageId from here (5173/host, 5173/f0); omitted, the only tab's top frame."""
    pages = state.shared.pages
    if cursor is not None and not pages.valid_cursor(cursor):
        raise errors.BridgeError(f"cursor {cursor[:40]!r} is not one page_list gave: pass its nextCursor unchanged, "
                                 "or leave cursor out to start from the first tab.", code="invalid_argument")
    rows, more = await pages.page_list(cursor, limit)
    out: dict[str, Any] = {"pages": rows}
    if more is not None:
        out["nextCursor"] = more
    if pages.note:  # the team bridge's store is away: only this replica's pages are listed
        out["cluster"] = pages.note
    if not rows and not cursor:
        out["hint"] = (f"No page is connected. Load {state.settings.base_url()}/inject/dbg_client.js in your app, "
                       f"or open the demo at {state.settings.base_url()}/demo.")
    return out


#: A JSON value of any kind, said with types (a schema with no type is refused by some model APIs).
ANY_JSON = {"anyOf": [{"type": t} for t in ("string", "number", "boolean", "array", "object")]}


async def page_exec(
    page: Page,
    code: Annotated[str | None, Field(description="Expression, or async function body with `return`; sees `args`, `signal`.")] = None,
    args: Annotated[Any, Field(json_schema_extra=ANY_JSON)] = None,
    command: Annotated[Command | None, Field(description="Instead of code.")] = None,
    params: dict[str, Any] | None = None,
    timeout: Timeout = 30,
) -> dict[str, Any]:
    """Run JavaScript or a named command in a page or frame: its JSON result, or the exception at line:col of
    your code."""
    if (code is None) == (command is None):
        raise errors.BridgeError("Give exactly one of `code` (JavaScript) or `command` (a named command).",
                                 code="invalid_argument")
    started = time.perf_counter()
    if code is not None:
        command, params = "eval", {"code": code, "args": args}
    if command == "act":  # the one act pipeline, as page_act runs it (bridge/tools/page/act.py)
        result: Any = {k: v for k, v in (await act(page, params, timeout)).items() if k != "pageId"}
    else:
        checked = await page.guard(command or "eval", params, timeout)  # the command's own policy, on every path
        result = await page.call(command or "eval", checked, timeout)
        if command == "wait":  # what broke meanwhile, mapped to the lines written
            result = await problems.with_report(page, result)
    return {"pageId": page.page_id, "result": result, "ms": round((time.perf_counter() - started) * 1000, 2)}


async def page_snapshot(
    page: Page,
    params: m.SnapshotParams,
    toFile: Annotated[bool, Field(description="Whole tree to a file.")] = False,
    timeout: Timeout = 15,
) -> CallToolResult:
    """The page as a compact tree: a line per element with role, name, states and a ref (e12@ab) for
    page_act."""
    maxChars = params.maxChars
    snap = await page.call("snapshot", m.SnapshotWire.model_validate({**m.to_wire(params), "full": toFile}), timeout)
    if not toFile:
        return snapshot_result(page.page_id, snap)
    tree = await whole_tree(page, snap, timeout)
    path = artifacts.write(page.settings.config_dir,
                           f"snapshot-{page.page_id.replace('/', '-')}-{snap['snapshotId']}.txt", tree)
    shown = head_of(tree, maxChars)
    link = artifacts.link(path, f"The whole snapshot tree of {page.page_id}")
    snap = {k: v for k, v in snap.items() if k not in ("from", "next")}
    snap.update({"file": str(path), "resource": link.uri, "chars": len(tree), "tree": shown,
                 "truncated": len(shown) < len(tree)})
    result = snapshot_result(page.page_id, snap, f" · whole tree ({len(tree)} chars, {snap['elements']} elements) "
                                                 f"in {path} and at {link.uri} (resources/read); first {len(shown)} "
                                                 "chars below")
    result.content.append(link)
    return result


async def whole_tree(page: Page, first: dict[str, Any], timeout: float) -> str:
    """The rest of a tree taken with `full`, read slice by slice under the result cap."""
    parts, at = [first["tree"]], first.get("next")
    while at is not None:
        part = await page.call("snapshot", {"part": first["snapshotId"], "from": at}, timeout)
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
    """The tree under one header line: pageId · url · 'title', and how many elements only when the tree was cut."""
    parts = [page_id, snap["url"]] + ([repr(snap["title"])] if snap["title"] else [])
    if snap["truncated"] and not extra:
        parts.append(f"{snap['elements']} elements ({snap.get('shown', snap['elements'])} shown, truncated)")
    head = " · ".join(parts) + extra
    return CallToolResult(content=[TextContent(type="text", text=head + "\n" + snap["tree"])],
                          structured_content={"pageId": page_id, **snap})


async def page_find(page: Page, params: m.FindParams) -> dict[str, Any]:
    """Find elements by text, regex, role and/or selector: refs with role, name, context."""
    if not any((params.ref, params.text, params.regex, params.role, params.selector)):
        raise errors.BridgeError("Give at least one of ref, text, regex, role or selector.", code="invalid_argument")
    if params.ref:
        page, params = in_frame(page, params)  # a cut line inside a frame names its ref as 'f0:e3'
    found = await page.call("find", params, QUICK)
    return {"pageId": page.page_id, **found}


async def page_act(
    page: Page,
    params: m.ActParams,
    timeout: Timeout = 15,
) -> dict[str, Any]:
    """Act on an element or a batch, once actionable; answers what changed."""
    return await act(page, params, timeout)


async def page_wait(page: Page, params: m.WaitParams) -> dict[str, Any]:
    """Wait for text, a selector or a ref (visible/hidden/enabled), a URL, network idle, or the dev server's next
    update."""
    if params.update is not None:
        if any((params.text, params.selector, params.ref, params.url, params.networkIdle)):
            raise errors.BridgeError("update waits for the dev server alone: leave out text, selector, ref, url and "
                                     "networkIdle (wait for those in a second call).",
                                     code="invalid_argument")
        return {"pageId": page.page_id, **await dev.wait_update(page, params)}
    if not any((params.text, params.selector, params.ref, params.url, params.networkIdle)):
        raise errors.BridgeError("Give one of text, selector, ref, url, networkIdle or update.",
                                 code="invalid_argument")
    page, params = in_frame(page, params)
    out = await page.call("wait", params, params.timeout + 5)
    return {"pageId": page.page_id, **await problems.with_report(page, out)}


async def page_navigate(
    page: Page,
    params: m.NavigateParams,
    timeout: WaitTimeout = 20,
) -> dict[str, Any]:
    """Navigate; returns once the new document is loaded, with its URL and title."""
    started = time.monotonic()
    await page.guard("navigate", params, timeout)  # asks first when leaving the page's verified origin
    doc = page.document
    # the connection that carried the command, not the one before it: a page that was reconnecting when the call
    # came would otherwise count its own reconnection as the navigation's new document
    try:
        sent = await page.call("navigate", params, timeout)
        before = page.connection
    except errors.PageGone as exc:
        # it left before its answer arrived (Firefox drops an SSE stream, and the answer's POST with it, as the
        # navigation starts): the navigation is under way, and the old channel is gone already
        if not exc.dispatched:
            raise
        sent, before = {}, None
    doc = sent.get("doc") or doc  # the document that took the command: the navigation's answer is another one
    leaves = sent.get("crossDocument")
    reloaded = await page.wait_reload(before, timeout, doc, leaves)
    waited = "commit (the new document's client registered)"
    if params.waitUntil != "commit":
        left = max(0.5, min(120, timeout - (time.monotonic() - started)))
        ready = await page.call("wait", {"loadState": params.waitUntil, "timeout": left}, left + 5)
        ready = ready if isinstance(ready, dict) else {}  # an older client answers without it
        state = ready.get("value") or {}
        quiet = (f"then a quiet DOM ({state.get('quietMs')} ms)" if state.get("quiet")
                 else f"the DOM still changing after the {state.get('quietMs')} ms cap")
        waited = f"{params.waitUntil} ({ready.get('ms')} ms), {quiet}"
    where = await page.call("location", {}, timeout)
    out = {"pageId": page.page_id, "reloaded": reloaded, "url": where["href"], "title": where["title"],
           "waited": waited}
    mark = sent.get("mark")
    if isinstance(mark, dict):  # what broke while the new document loaded (its failed requests, its errors)
        try:
            broke = await page.call("problems", {"console": int(mark.get("console") or 0),
                                                 "net": int(mark.get("net") or 0), "doc": mark.get("doc")}, timeout)
            out.update(await problems.report(page, broke))
        except errors.BridgeError:
            pass  # an older client, or the page went on: the answer is the navigation's
    if leaves and not reloaded:
        out["note"] = (f"No new document came within {timeout:g} s: the navigation went nowhere (a 204 answer, a "
                       "download) or the server is slower than that; the page is still the one above. Retry with a "
                       "larger timeout if it is slow.")
    return out


async def page_console(page: Page, params: m.ConsoleParams) -> dict[str, Any]:
    """Console messages and uncaught errors since a cursor, kept across reloads."""
    if params.saveSkill and not params.errors:
        raise errors.BridgeError("saveSkill saves the acts before an error: give errors: true with it.",
                                 code="invalid_argument")
    out = await page.call("console", params, QUICK)
    out.pop("errors", None)  # the answer's `errors` are the groups below
    acts = out.pop("acts", None) or []
    out["entries"] = await problems.console_entries(page, out["entries"], params.stack, int(out.pop("hot", 0) or 0))
    if not params.errors:
        out["entries"] = [{k: v for k, v in e.items() if k != "act"} for e in out["entries"]]
        return {"pageId": page.page_id, **out}
    found = problems.groups(out["entries"], acts)
    answer: dict[str, Any] = {"pageId": page.page_id, "errors": found, **out, "entries": []}
    if params.saveSkill:
        if not found:
            raise errors.BridgeError("No error since the cursor to save a repro of: give an earlier `since` (0 for "
                                     "all the page keeps).", code="no_repro")
        where = await page.call("location", {}, QUICK)
        skill = await problems.save_repro(page, params.saveSkill, found[-1], acts, where["origin"])
        answer["saved"] = {**skill.summary(), "reproduces": found[-1].get("at") or found[-1].get("error"),
                           "replay": f"skill_run name={skill.name!r}: says whether the error came back"}
    return answer


async def page_vitals(page: Page, params: m.VitalsParams) -> dict[str, Any]:
    """Long animation frames since a cursor, with the functions they ran; LCP, CLS, INP and their elements."""
    raw = await page.call("vitals", params, QUICK)
    return {"pageId": page.page_id, **await vitals.report(page, raw)}


async def page_screenshot(page: Page, params: m.ScreenshotParams) -> CallToolResult:
    """PNG of the tab's visible area or one element (extension or the bridge's desktop; tab in front)."""
    page, params = in_frame(page, params)
    started = time.perf_counter()
    desk = desktop.running(page)
    wire = m.ScreenshotWire.model_validate({**m.to_wire(params), **({"desktop": True} if desk else {})})
    shot = await page.call("screenshot", wire, QUICK)
    if desk is not None and isinstance(shot, dict) and "data" not in shot:  # no extension: the desktop's pixels
        got = await desktop.screenshot(page, desk, shot)
        shot = {k: v for k, v in got.items() if k != "png"}
        shot["data"] = base64.b64encode(got["png"]).decode()
    data = str(shot.pop("data", "") if isinstance(shot, dict) else "")
    try:
        png = base64.b64decode(data, validate=True)
    except ValueError:
        png = b""
    if not png.startswith(PNG_SIGNATURE):
        raise errors.BridgeError("The page answered the screenshot with something that is not a PNG. Reload the tab "
                                 "(the extension may have been updated) and retry.", code="page_exception")
    summary = {"pageId": page.page_id, **shot, "bytes": len(png), "format": "png",
               "ms": round((time.perf_counter() - started) * 1000, 1)}
    return CallToolResult(content=[ImageContent(type="image", data=data, mime_type="image/png"),
                                   TextContent(type="text", text=json.dumps(summary))],
                          structured_content=summary)


async def page_network(page: Page, params: m.NetworkParams) -> dict[str, Any]:
    """fetch/XHR/WebSocket/EventSource traffic since a cursor: method, url, status, ms, size."""
    out = await page.call("network", params, QUICK)
    return {"pageId": page.page_id, **out}


async def page_source(page: Page, params: m.ElementParams) -> dict[str, Any]:
    """Source file:line:col and components of an element (default: the one the human picked)."""
    page, params = in_frame(page, params)
    out = await page.call("source", params, QUICK)
    return {"pageId": page.page_id, **sourcemap.apply(out)}


async def page_highlight(page: Page, params: m.HighlightParams) -> dict[str, Any]:
    """Outline and label elements for the human to see (never takes clicks)."""
    out = await page.call("highlight", params, QUICK)
    return {"pageId": page.page_id, **out}


SCREENSHOT = obj("width:int", "height:int", "scale:num", "devicePixelRatio:num", "via:str", pageId="str", bytes="int",
                 format="str", ms="num")
PAGE_ROW = obj("title:?str", "url:?str", "origin:?str", "verified:bool", "channel:?str", pageId="str", parent="?str",
               state="str")

TOOLS = [
    Tool(page_list, read_only("List pages"),
         output=obj("nextCursor:str", "hint:str", "cluster:any", pages={"type": "array", "items": PAGE_ROW})),
    Tool(page_exec, acting("Run code in a page", open_world=True), output=obj(pageId="str", result="any", ms="num")),
    Tool(page_snapshot, read_only("Snapshot a page"), output=of_page(m.SnapshotResult, "file:str", "resource:str")),
    Tool(page_find, read_only("Find elements"), output=of_page(m.FindResult)),
    Tool(page_act, acting("Act on elements"), output=of_page(m.ActResult)),
    Tool(page_wait, read_only("Wait for the page"), output=of_page(m.WaitResult)),
    Tool(page_navigate, acting("Navigate a page", open_world=True),
         output=obj("note:str", pageId="str", reloaded="bool", url="str", title="str", waited="str")),
    Tool(page_console, read_only("Read the console"), output=of_page(m.ConsoleResult, "errors:list")),
    Tool(page_vitals, read_only("Read page vitals"), output=obj("slowest:str", pageId="str", frames="list")),
    Tool(page_network, read_only("Read network traffic"), output=of_page(m.NetworkResult)),
    Tool(page_source, read_only("Find an element's source"), output=of_page(m.SourceResult)),
    Tool(page_highlight, acting("Highlight elements", destructive=False), output=of_page(m.HighlightResult)),
    Tool(page_screenshot, read_only("Screenshot a page"), output=SCREENSHOT),
]
