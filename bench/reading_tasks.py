"""Characters an agent reads per reading task on the reading corpus, ours beside Playwright MCP's, in one run.

The tasks of e2e/test_reading_corpus.py, each done the way an agent does it with each server's own tools, every tool
answer's text counted (what the model reads):

  * ag-grid: sort the cars by price, highest first (two clicks on the Price header), read the three dearest rows;
  * codemirror5: read utils.js (CodeMirror 5 on contenteditable) as its lines, find the TODO;
  * tinymce: read the release notes in TinyMCE's iframe body and the link in the first paragraph.

Ours: dbg-bridge (`python -m bridge serve`), the page opened in Chromium by Playwright with the client injected by
e2e/corpus.py; page_snapshot / page_act / page_find / page_wait over MCP. Playwright MCP (@playwright/mcp, pinned in
bench/playwright_mcp, `npm ci` there), over stdio with `--executable-path /usr/bin/chromium --headless --isolated`
(it downloads no browser), twice: its default (every act answers with a snapshot) and `--snapshot-mode none` (an
explicit browser_snapshot to read); where an answer links its snapshot as a .yml file instead of inlining it, the
file's text counts as read. Each run checks that the answer the agent read holds the task's answer.

    .venv/bin/python bench/reading_tasks.py

Prints one table and writes bench/results/reading_tasks.json.
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

from e2e.corpus import APPS, CorpusServer  # noqa: E402
from tests.support import McpSession, text_of  # noqa: E402

PW_MCP = ROOT / "bench" / "playwright_mcp" / "node_modules" / ".bin" / "playwright-mcp"
CONNECTED = "window.__dbg && window.__dbg.status().state === 'connected'"
APPS_USED = ("ag-grid", "codemirror5", "tinymce")
TOP3 = [str(p) for p in sorted((20000 + (i * 7919) % 80000 for i in range(2000)), reverse=True)[:3]]
CODE_LINES = ["function add(a, b) {", "return sum; // TODO: round to cents", "}"]
#: The first paragraph's words in order (however a server splits the sentence into lines).
NOTE = ["The", "quick", "brown fox", "jumps", "over the", "lazy", "dog."]


def answers_hold(task: str, read: str) -> bool:
    """The text the agent read holds the task's answer (in order, for the grid)."""
    if task == "ag-grid":
        at = [read.find(p) for p in TOP3]
        return all(a >= 0 for a in at) and at == sorted(at)
    if task == "codemirror5":
        return all(line in read for line in CODE_LINES)
    at = [read.find(w) for w in NOTE]
    return all(a >= 0 for a in at) and at == sorted(at)


class Reader:
    """Counts the characters of every answer one agent reads."""

    def __init__(self) -> None:
        self.chars, self.calls, self.texts = 0, 0, []

    def took(self, text: str) -> str:
        self.chars += len(text)
        self.calls += 1
        self.texts.append(text)
        return text


def ours(bridge: BridgeProcess, server: CorpusServer) -> dict[str, dict[str, Any]]:
    from playwright.sync_api import sync_playwright

    mcp = McpSession(bridge.mcp_url, bridge.token)
    out: dict[str, dict[str, Any]] = {}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for task in APPS_USED:
                ctx = browser.new_context()
                page = ctx.new_page()
                page.goto(server.url(task + "/index.html"))
                page.wait_for_function(CONNECTED, timeout=15000)
                pid = page.evaluate("window.__dbg.pageId")
                r = Reader()

                def call(tool: str, **args: Any) -> str:
                    return r.took(text_of(mcp.call(tool, {"pageId": pid, **args})))  # noqa: B023

                if task == "ag-grid":
                    call("page_wait", text="Model 1", exact=True)
                    ref = re.search(r"\| Price \[ref=(e\d+)\]", call("page_snapshot")).group(1)
                    call("page_act", action="click", ref=ref)
                    call("page_act", action="click", ref=ref)
                    read = call("page_snapshot")
                elif task == "codemirror5":
                    read = call("page_snapshot") + call("page_find", text="TODO")
                else:
                    call("page_wait", text="h2", exact=True)  # TinyMCE's element path: the editor is up
                    read = call("page_snapshot", includeFrames=True)
                out[task] = {"chars": r.chars, "calls": r.calls, "ok": answers_hold(task, read), "texts": r.texts}
                ctx.close()
            browser.close()
    finally:
        mcp.close()
    return out


async def playwright_mcp(server: CorpusServer, mode: str) -> dict[str, dict[str, Any]]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    out: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        args = ["--executable-path", CHROMIUM, "--headless", "--isolated", "--no-sandbox", "--output-dir", tmp]
        if mode == "none":
            args += ["--snapshot-mode", "none"]
        async with stdio_client(StdioServerParameters(command=str(PW_MCP), args=args)) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            for task in APPS_USED:
                r = Reader()

                async def call(tool: str, **a: Any) -> str:
                    res = await session.call_tool(tool, a)
                    text = r.took("\n".join(c.text for c in res.content if getattr(c, "text", None)))  # noqa: B023
                    # an answer may link its snapshot as a file instead: the agent reads the file too
                    for rel in re.findall(r"\[Snapshot\]\(([^)]+\.yml)\)", text):
                        text += "\n" + r.took((Path.cwd() / rel).resolve().read_text())  # noqa: B023
                    return text

                async def look(answer: str) -> str:
                    """What the agent reads after an act: the act's own snapshot, or (mode none) one it asks for."""
                    return await call("browser_snapshot") if mode == "none" else answer

                nav = await call("browser_navigate", url=server.url(task + "/index.html"))
                if task == "ag-grid":
                    tree = await look(await call("browser_wait_for", text="Model 1"))
                    m = re.search(r'columnheader "Price"[^\n]*\[ref=(e\d+)\]', tree)
                    if not m:
                        raise RuntimeError("no Price header in Playwright MCP's answer:\n" + tree[:3000])
                    ref = m.group(1)
                    await call("browser_click", element="Price column header", target=ref)
                    read = await look(await call("browser_click", element="Price column header", target=ref))
                elif task == "codemirror5":
                    read = await look(nav)
                else:  # the editor is up by the time the navigation answers (its snapshot shows the iframe's body)
                    read = await look(nav)
                out[task] = {"chars": r.chars, "calls": r.calls, "ok": answers_hold(task, read), "texts": r.texts}
    return out


def main() -> None:
    if not PW_MCP.exists():
        sys.exit(f"{PW_MCP} missing: npm ci --prefix bench/playwright_mcp")
    for app in APPS_USED:
        if not (APPS / app / "node_modules").is_dir():
            sys.exit(f"e2e/apps/{app} is not installed: ./scripts/test.sh (or npm ci --prefix e2e/apps/{app})")
    print(machine())
    with tempfile.TemporaryDirectory() as cfg:
        bridge = BridgeProcess(Path(cfg)).start()
        ours_srv, plain_srv = CorpusServer(bridge.client_js()), CorpusServer(None)
        try:
            mine = ours(bridge, ours_srv)
            full = asyncio.run(playwright_mcp(plain_srv, "full"))
            none = asyncio.run(playwright_mcp(plain_srv, "none"))
        finally:
            ours_srv.close()
            plain_srv.close()
            bridge.stop()
    rows = []
    for task in (*APPS_USED, "all"):
        pick = (lambda d: d[task]) if task != "all" else (  # noqa: E731
            lambda d: {"chars": sum(v["chars"] for v in d.values()), "calls": sum(v["calls"] for v in d.values()),
                       "ok": all(v["ok"] for v in d.values())})
        o, f, n = pick(mine), pick(full), pick(none)
        rows.append({"task": task, "ours": o["chars"], "ours_calls": o["calls"], "ours_ok": "ok" if o["ok"] else "NO",
                     "full": f["chars"], "full_ok": "ok" if f["ok"] else "NO", "r_full": round(o["chars"] / f["chars"], 2),
                     "none": n["chars"], "none_ok": "ok" if n["ok"] else "NO", "r_none": round(o["chars"] / n["chars"], 2)})
    print(table(rows, [("task", "task"), ("ours", "ours chars"), ("ours_calls", "calls"), ("ours_ok", "read ok"),
                       ("full", "PW MCP chars"), ("full_ok", "read ok"), ("r_full", "ours/PW"),
                       ("none", "PW MCP none"), ("none_ok", "read ok"), ("r_none", "ours/none")]))
    write_json("reading_tasks.json", {"machine": machine(), "ours": mine, "playwright_mcp": full,
                                      "playwright_mcp_snapshot_none": none})


if __name__ == "__main__":
    main()
