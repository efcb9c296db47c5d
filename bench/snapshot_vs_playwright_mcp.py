"""page_snapshot beside Playwright MCP's browser_snapshot on the same third-party pages, in one run.

Playwright MCP (@playwright/mcp, pinned in bench/playwright_mcp/package.json, `npm ci` there) runs over stdio with
Debian's Chromium (`--executable-path /usr/bin/chromium --headless --isolated`; it downloads no browser). dbg-bridge
runs as `dbg-bridge serve` with the page open in Chromium driven by Playwright, the client injected by the corpus
server (e2e/corpus.py serves e2e/apps as published; the copy Playwright MCP loads has no script tag).

For each page: the characters of the answer the agent reads (the tool result's text) for our default page_snapshot,
for interactiveOnly and for Playwright MCP's browser_snapshot, the ratio ours/theirs, and ref coverage: every line of
their snapshot with an actionable role (button, link, textbox, checkbox, radio, combobox, …) must have a line of ours
with the same role and name carrying a ref. Target: ours <= 1/3 of theirs, nothing missing.

    .venv/bin/python bench/snapshot_vs_playwright_mcp.py [--pages todomvc-backbone,uikit-index]

Prints one table and writes bench/results/snapshot_vs_playwright_mcp.json. Needs the e2e/apps corpus installed
(./scripts/test.sh does it).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import CHROMIUM, CHROMIUM_ARGS, ROOT, BridgeProcess, machine, table, write_json  # noqa: E402

from e2e.corpus import APPS, CorpusServer  # noqa: E402
from tests.support import McpSession, text_of  # noqa: E402

PW_MCP = ROOT / "bench" / "playwright_mcp" / "node_modules" / ".bin" / "playwright-mcp"
TARGET_RATIO = 1 / 3
CONNECTED = "window.__dbg && window.__dbg.status().state === 'connected'"
ACTIONABLE = {"button", "link", "textbox", "searchbox", "checkbox", "radio", "combobox", "listbox", "option", "slider",
              "spinbutton", "switch", "tab", "menuitem", "menuitemcheckbox", "menuitemradio", "treeitem"}
TODOMVC = "todomvc/node_modules/todomvc/examples/"
RAPIDOC_CDN = (b"https://unpkg.com/rapidoc/dist/rapidoc-min.js", b"dist/rapidoc-min.js")

#: name -> (path under e2e/apps, text to wait for before snapshotting)
PAGES: dict[str, tuple[str, str]] = {
    "todomvc-backbone": (TODOMVC + "backbone/index.html", "Double-click to edit a todo"),
    "todomvc-angularjs": (TODOMVC + "angularjs/index.html", "Double-click to edit a todo"),
    "swagger-ui": ("swagger-ui/node_modules/swagger-ui-dist/index.html", "Find pet by ID"),
    "rapidoc (Lit)": ("rapidoc/node_modules/rapidoc/index.html", "PATH PARAMETERS"),
    "uikit-modal": ("uikit/node_modules/uikit/tests/modal.html", "Headline"),
    "uikit-form": ("uikit/node_modules/uikit/tests/form.html", "Form"),
    "uikit-index": ("uikit/node_modules/uikit/tests/index.html", "Heading"),
}


def api_for(port_box: list[int]) -> Any:
    from e2e.test_third_party import petstore

    def api(path: str) -> Any:
        return petstore(port_box[0]) if path == "/api/swagger.json" else None
    return api


def rewrites() -> dict[str, tuple[bytes, bytes]]:
    return {"/rapidoc/node_modules/rapidoc/index.html": RAPIDOC_CDN,
            "/swagger-ui/node_modules/swagger-ui-dist/swagger-initializer.js":
                (b'"https://petstore.swagger.io/v2/swagger.json"', b'"/api/swagger.json"')}


INLINE = re.compile(r'(?:^|[\s|:])([a-z]+)(?: "((?:[^"\\]|\\.)*)")?(?: \[(?!ref=)[^\]]*\])* \[ref=[^\]]+\]')


def actionable_lines(text: str, ours: bool) -> list[tuple[str, str, bool]]:
    """(role, name, has a ref) for every actionable line of a snapshot (ours: also controls inline in a row's or a
    text line's words, where they are read)."""
    out = []
    for line in text.splitlines():
        row = "- row: " in line
        if ours and (row or ": " in line):
            for m in INLINE.finditer(line.split("- row: " if row else ": ", 1)[1]):
                if m.group(1) in ACTIONABLE:
                    name = json.loads('"' + m.group(2) + '"') if m.group(2) else ""
                    out.append((m.group(1), " ".join(name.split()).lower(), True))
            if row:
                continue
        m = re.match(r'\s*- (?:/?)([a-z]+)(?: "((?:[^"\\]|\\.)*)")?(.*)$', line)
        if not m or m.group(1) not in ACTIONABLE:
            continue
        name = json.loads('"' + m.group(2) + '"') if m.group(2) else ""
        out.append((m.group(1), " ".join(name.split()).lower(), "[ref=" in m.group(3)))
    return out


def missing_refs(ours: str, theirs: str) -> list[str]:
    """Their actionable elements with a ref that no line of ours shows with a ref (same role, name or its start)."""
    have = [(r, n) for r, n, ref in actionable_lines(ours, True) if ref]
    miss = []
    for role, name, ref in actionable_lines(theirs, False):
        if not ref:
            continue
        key = name[:60]
        if not any(r == role and (n[:60] == key or (key and (n.startswith(key[:40]) or key.startswith(n[:40])) and n))
                   for r, n in have):
            miss.append(f"{role} {name[:50]!r}")
    return miss


async def playwright_mcp_snapshots(urls: dict[str, tuple[str, str]]) -> dict[str, dict[str, Any]]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    out: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        params = StdioServerParameters(command=str(PW_MCP), args=[
            "--executable-path", CHROMIUM, "--headless", "--isolated", "--no-sandbox", "--output-dir", tmp])
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            for name, (url, wait_text) in urls.items():
                await session.call_tool("browser_navigate", {"url": url})
                await session.call_tool("browser_wait_for", {"text": wait_text})
                t0 = time.perf_counter()
                res = await session.call_tool("browser_snapshot", {})
                ms = (time.perf_counter() - t0) * 1000
                text = "\n".join(c.text for c in res.content if getattr(c, "text", None))
                out[name] = {"chars": len(text), "ms": round(ms, 1), "text": text}
    return out


def our_snapshots(bridge: BridgeProcess, server: CorpusServer, pages: dict[str, tuple[str, str]]) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    mcp = McpSession(bridge.mcp_url, bridge.token)
    out: dict[str, Any] = {}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for name, (path, wait_text) in pages.items():
                ctx = browser.new_context()
                page = ctx.new_page()
                page.goto(server.url(path))
                page.wait_for_function(CONNECTED, timeout=15000)
                page_id = page.evaluate("window.__dbg.pageId")
                mcp.call("page_wait", {"pageId": page_id, "text": wait_text, "timeout": 15})
                row: dict[str, Any] = {}
                for label, extra in (("default", {}), ("interactive", {"interactiveOnly": True}),
                                     ("full", {"maxChars": 200_000})):
                    t0 = time.perf_counter()
                    res = mcp.call("page_snapshot", {"pageId": page_id, **extra})
                    row[label] = {"chars": len(text_of(res)), "ms": round((time.perf_counter() - t0) * 1000, 1),
                                  "text": text_of(res), "truncated": (res.structured_content or {}).get("truncated")}
                out[name] = row
                ctx.close()
            browser.close()
    finally:
        mcp.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", default=",".join(PAGES), help="comma-separated page names")
    ap.add_argument("--show", action="store_true", help="print both snapshots of each page")
    args = ap.parse_args()
    pages = {k: PAGES[k] for k in args.pages.split(",")}
    if not PW_MCP.exists():
        sys.exit(f"{PW_MCP} missing: npm ci --prefix bench/playwright_mcp")
    for app in ("todomvc", "swagger-ui", "rapidoc", "uikit"):
        if not (APPS / app / "node_modules").is_dir():
            sys.exit(f"e2e/apps/{app} is not installed: ./scripts/test.sh (or npm ci --prefix e2e/apps/{app})")
    print(machine())
    with tempfile.TemporaryDirectory() as cfg:
        bridge = BridgeProcess(Path(cfg)).start()
        ports: list[int] = [0]
        ours_srv = CorpusServer(bridge.client_js(), api=api_for(ports), rewrite=rewrites())
        plain_srv = CorpusServer(None, api=api_for(ports), rewrite=rewrites())
        try:
            ports[0] = ours_srv.port
            ours = our_snapshots(bridge, ours_srv, pages)
            ports[0] = plain_srv.port
            theirs = asyncio.run(playwright_mcp_snapshots({k: (plain_srv.url(p), w) for k, (p, w) in pages.items()}))
        finally:
            ours_srv.close()
            plain_srv.close()
            bridge.stop()
    rows, results = [], {}
    for name in pages:
        o, t = ours[name], theirs[name]
        ratio = o["default"]["chars"] / t["chars"]
        miss = missing_refs(o["full"]["text"], t["text"])
        miss_default = missing_refs(o["default"]["text"], t["text"]) if o["default"]["truncated"] else miss
        rows.append({"page": name, "pw": t["chars"], "ours": o["default"]["chars"], "ratio": round(ratio, 2),
                     "inter": o["interactive"]["chars"], "iratio": round(o["interactive"]["chars"] / t["chars"], 2),
                     "target": "ok" if ratio <= TARGET_RATIO else "MISS", "miss": len(miss), "pw_ms": t["ms"],
                     "ours_ms": o["default"]["ms"]})
        results[name] = {"playwright_mcp_chars": t["chars"], "ours_default_chars": o["default"]["chars"],
                         "ours_interactive_chars": o["interactive"]["chars"], "ratio": round(ratio, 3),
                         "missing_refs": miss, "missing_refs_in_default_cut": len(miss_default),
                         "playwright_mcp_ms": t["ms"], "ours_ms": o["default"]["ms"]}
        if args.show:
            print(f"==== {name}: Playwright MCP\n{t['text']}\n==== {name}: ours\n{o['default']['text']}\n")
        if miss:
            print(f"{name}: no ref for {len(miss)} of their actionable elements: " + "; ".join(miss[:8]))
    total_t = sum(theirs[n]["chars"] for n in pages)
    total_o = sum(ours[n]["default"]["chars"] for n in pages)
    total_i = sum(ours[n]["interactive"]["chars"] for n in pages)
    rows.append({"page": "all pages", "pw": total_t, "ours": total_o, "ratio": round(total_o / total_t, 2),
                 "inter": total_i, "iratio": round(total_i / total_t, 2),
                 "target": "ok" if total_o / total_t <= TARGET_RATIO else "MISS",
                 "miss": sum(len(results[n]["missing_refs"]) for n in pages)})
    print(table(rows, [("page", "page"), ("pw", "Playwright MCP chars"), ("ours", "ours (default)"),
                       ("ratio", "ratio"), ("target", "<= 1/3"), ("inter", "interactiveOnly"), ("iratio", "ratio"),
                       ("miss", "their refs we miss"), ("pw_ms", "PW MCP ms"), ("ours_ms", "ours ms")]))
    write_json("snapshot_vs_playwright_mcp.json", {"machine": machine(), "pages": results, "target_ratio": TARGET_RATIO})


if __name__ == "__main__":
    main()
