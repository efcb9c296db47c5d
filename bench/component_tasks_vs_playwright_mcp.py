"""Calls and characters per task on the component web, dbg-bridge beside Playwright MCP, on the apps of
e2e/test_components_corpus.py (Shoelace, SortableJS in HTML5 and pointer-fallback modes, Jspreadsheet CE, Leaflet).

Each side runs a fixed script, the calls an agent makes with that server's tools once the page is open: a snapshot
to get refs, then the acts. Counted: the calls and the characters of every answer the agent reads (the tool result's
text). Whether the task got done is read from the app's own state afterwards (not counted). Playwright MCP
(@playwright/mcp, pinned in bench/playwright_mcp, `npm ci` there) runs over stdio with Debian's Chromium; dbg-bridge
runs as `dbg-bridge serve` with the page open in Chromium driven by Playwright and the client injected.

    .venv/bin/python bench/component_tasks_vs_playwright_mcp.py

Prints one table and writes bench/results/component_tasks_vs_playwright_mcp.json. Needs e2e/apps installed.
"""

from __future__ import annotations

import asyncio
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import CHROMIUM, CHROMIUM_ARGS, ROOT, BridgeProcess, machine, table, write_json  # noqa: E402

from e2e.corpus import CorpusServer  # noqa: E402
from tests.support import McpSession, text_of  # noqa: E402

PW_MCP = ROOT / "bench" / "playwright_mcp" / "node_modules" / ".bin" / "playwright-mcp"
CONNECTED = "window.__dbg && window.__dbg.status().state === 'connected'"

#: task -> (page, ready expression, done expression read from the app afterwards)
TASKS: dict[str, tuple[str, str, str]] = {
    "click a Shoelace button": ("shoelace/index.html", "window.ready === true", "window.reviews === 1"),
    "drag in a list (HTML5)": ("sortablejs/index.html", "!!window.lists", "order('native') !== 'apples,bread,cheese,dates,eggs'"),
    "drag in a list (pointer)": ("sortablejs/index.html", "!!window.lists", "order('fallback') !== 'apples,bread,cheese,dates,eggs'"),
    "type into a cell, edit one": ("jspreadsheet/index.html", "!!(window.sheets && window.sheets[0] && window.sheets[0].getValue)",
                                   "cell('A4') === 'Groceries' && String(cell('B2')) === '3005'"),
    "pan a map by drag and keys": ("leaflet/index.html", "!!window.map",
                                   "map.getCenter().lng > -0.0891 && map.getCenter().lat < 51.5049"),
}


def ref(text: str, pattern: str, nth: int = 0) -> str:
    """The ref on the nth line matching `pattern` (a regex) in a snapshot."""
    rows = [r for r in text.splitlines() if re.search(pattern, r)]
    found = re.search(r"\[ref=([a-z0-9]+)\]", rows[nth]) if len(rows) > nth else None
    if not found:
        raise AssertionError(f"no ref on a line matching {pattern!r}:\n{text[:3000]}")
    return found.group(1)


def ours(task: str, call: Any) -> None:
    """The agent's calls on dbg-bridge (call(name, args) -> answer text)."""
    tree = call("page_snapshot", {})
    if task == "click a Shoelace button":
        call("page_act", {"action": "click", "ref": ref(tree, r'button "Review order"')})
    elif task.startswith("drag in a list"):
        n = 0 if "HTML5" in task else 1
        call("page_act", {"action": "drag", "ref": ref(tree, r'listitem "Apples"', n), "to": ref(tree, r'listitem "Dates"', n)})
    elif task == "type into a cell, edit one":
        a4 = re.search(r'row: 4 \[ref=e\d+\] \| "" \[ref=(e\d+)\]', tree).group(1)  # type: ignore[union-attr]
        b2 = re.search(r"300 \[ref=(e\d+)\]", tree).group(1)  # type: ignore[union-attr]
        call("page_act", {"action": "type", "ref": a4, "value": "Groceries"})
        call("page_act", {"action": "press", "ref": a4, "key": "Enter"})
        call("page_act", {"action": "dblclick", "ref": b2})
        call("page_act", {"action": "type", "ref": b2, "value": "5"})
        call("page_act", {"action": "press", "ref": b2, "key": "Enter"})
    else:
        the_map = ref(tree, r'"Map of the meeting place"')
        call("page_act", {"action": "drag", "ref": the_map, "dx": -200, "dy": 0})
        call("page_act", {"action": "press", "ref": the_map, "key": "ArrowDown"})


def theirs(task: str, call: Any) -> None:
    """The agent's calls on Playwright MCP (the same steps with its tools)."""
    tree = call("browser_snapshot", {})
    if task == "click a Shoelace button":
        call("browser_click", {"element": "Review order button", "target": ref(tree, r'button "Review order"')})
    elif task.startswith("drag in a list"):
        n = 0 if "HTML5" in task else 1
        call("browser_drag", {"startElement": "Apples", "startTarget": ref(tree, r'listitem.*Apples|"Apples"', n),
                              "endElement": "Dates", "endTarget": ref(tree, r'listitem.*Dates|"Dates"', n)})
    elif task == "type into a cell, edit one":
        a4 = ref(tree, r"- cell \[ref=", 1)  # row 4's first empty cell (the corner cell is the first)
        b2 = ref(tree, r'cell "300"')
        call("browser_click", {"element": "empty cell A4", "target": a4})
        call("browser_type", {"element": "cell A4", "target": a4, "text": "Groceries", "slowly": True, "submit": True})
        call("browser_click", {"element": "cell B2", "target": b2, "doubleClick": True})
        call("browser_press_key", {"key": "End"})
        call("browser_press_key", {"key": "5"})
        call("browser_press_key", {"key": "Enter"})
    else:
        the_map = ref(tree, r'"Map of the meeting place"')
        call("browser_drag", {"startElement": "the map", "startTarget": the_map, "endElement": "Leaflet link",
                              "endTarget": ref(tree, r'link "Leaflet"')})
        call("browser_press_key", {"key": "ArrowDown"})


def run_ours(server: CorpusServer, bridge: BridgeProcess) -> dict[str, dict[str, Any]]:
    from playwright.sync_api import sync_playwright

    mcp = McpSession(bridge.mcp_url, bridge.token)
    out: dict[str, dict[str, Any]] = {}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for task, (path, ready, done) in TASKS.items():
                ctx = browser.new_context()
                page = ctx.new_page()
                page.goto(server.url(path))
                page.wait_for_function(CONNECTED, timeout=15000)
                page.wait_for_function(ready, timeout=15000)
                page_id = page.evaluate("window.__dbg.pageId")
                row = {"calls": 0, "chars": 0, "errors": 0}

                def call(name: str, args: dict[str, Any]) -> str:
                    res = mcp.call(name, {"pageId": page_id, **args})
                    text = text_of(res)
                    row["calls"] += 1
                    row["chars"] += len(text)
                    row["errors"] += bool(res.is_error)
                    if "--show" in sys.argv:
                        print(f"---- {name} {args}\n{text}")
                    return text

                ours(task, call)
                try:
                    page.wait_for_function(done, timeout=3000)
                    row["done"] = True
                except Exception:  # noqa: BLE001 - a task not done is a result here
                    row["done"] = False
                out[task] = row
                ctx.close()
            browser.close()
    finally:
        mcp.close()
    return out


async def run_theirs(server: CorpusServer) -> dict[str, dict[str, Any]]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    out: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        params = StdioServerParameters(command=str(PW_MCP), args=[
            "--executable-path", CHROMIUM, "--headless", "--isolated", "--no-sandbox", "--output-dir", tmp])
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            for task, (path, ready, done) in TASKS.items():
                await session.call_tool("browser_navigate", {"url": server.url(path)})
                await session.call_tool("browser_wait_for", {"time": 1})
                await session.call_tool("browser_evaluate", {"function": f"() => {ready}"})
                row = {"calls": 0, "chars": 0, "errors": 0}
                loop = asyncio.get_running_loop()

                def record(name: str, args: dict[str, Any]) -> str:
                    # the script is plain code that needs each answer before its next call: it runs on a thread and
                    # hands each call to this loop
                    res = asyncio.run_coroutine_threadsafe(session.call_tool(name, args), loop).result()
                    text = "\n".join(c.text for c in res.content if getattr(c, "text", None))
                    row["calls"] += 1
                    row["chars"] += len(text)
                    row["errors"] += bool(res.is_error)
                    if "--show" in sys.argv:
                        print(f"---- {name} {args}\n{text}")
                    return text

                await asyncio.to_thread(theirs, task, record)
                res = await session.call_tool("browser_evaluate", {"function": f"() => {done}"})
                said = "".join(c.text for c in res.content if getattr(c, "text", None))
                row["done"] = "true" in said
                if "--show" in sys.argv:
                    print(f"---- done? {said}")
                out[task] = row
    return out


def main() -> None:
    if not PW_MCP.exists():
        sys.exit(f"{PW_MCP} missing: npm ci --prefix bench/playwright_mcp")
    started = machine()
    with tempfile.TemporaryDirectory() as cfg:
        bridge = BridgeProcess(Path(cfg)).start()
        ours_srv = CorpusServer(bridge.client_js())
        plain_srv = CorpusServer(None)
        try:
            o = run_ours(ours_srv, bridge)
            t = asyncio.run(run_theirs(plain_srv))
        finally:
            ours_srv.close()
            plain_srv.close()
            bridge.stop()
    rows = []
    for task in TASKS:
        rows.append({"task": task, "ours_calls": o[task]["calls"], "ours_chars": o[task]["chars"],
                     "ours_done": "yes" if o[task]["done"] else "NO", "pw_calls": t[task]["calls"],
                     "pw_chars": t[task]["chars"], "pw_done": "yes" if t[task]["done"] else "NO",
                     "ratio": round(o[task]["chars"] / max(1, t[task]["chars"]), 2)})
    rows.append({"task": "all tasks", "ours_calls": sum(r["ours_calls"] for r in rows),
                 "ours_chars": sum(r["ours_chars"] for r in rows),
                 "ours_done": f"{sum(o[k]['done'] for k in TASKS)}/{len(TASKS)}",
                 "pw_calls": sum(r["pw_calls"] for r in rows), "pw_chars": sum(r["pw_chars"] for r in rows),
                 "pw_done": f"{sum(t[k]['done'] for k in TASKS)}/{len(TASKS)}"})
    rows[-1]["ratio"] = round(rows[-1]["ours_chars"] / max(1, rows[-1]["pw_chars"]), 2)
    print(started)
    print(table(rows, [("task", "task"), ("ours_calls", "ours calls"), ("ours_chars", "ours chars"),
                       ("ours_done", "done"), ("pw_calls", "PW MCP calls"), ("pw_chars", "PW MCP chars"),
                       ("pw_done", "done"), ("ratio", "chars ours/PW")]))
    write_json("component_tasks_vs_playwright_mcp.json", {"machine": started, "ours": o, "playwright_mcp": t})


if __name__ == "__main__":
    main()
