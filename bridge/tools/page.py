"""page_* tools: list the connected pages and frames, run code or a named command in one of them."""

import time
from typing import Annotated, Any, Literal

from pydantic import Field

from bridge import errors
from bridge.dispatch import Dispatcher
from bridge.protocol import COMMANDS
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
        description="A named client command instead of code: eval, ping, frames, location.")] = None,
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


TOOLS = [
    Tool(page_list, read_only("List pages")),
    Tool(page_exec, acting("Run code in a page")),
]
