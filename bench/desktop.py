"""desktop_* tools over MCP: time per click / type / tree / find / screenshot call, beside the `xdotool` CLI doing the
same click on the same display; then recording: the cost of a tool call while recording, and human clicks (xdotool)
coming back as selector steps; then a click by selector in a real app of each toolkit (gnome-calculator: GTK 4,
qt6ct: Qt 6, galculator: GTK 3, Chromium: web content), and desktop_read_text (OCR) of a window.

Starts `dbg-bridge serve --port 0` with its private desktop (Xvfb + openbox + AT-SPI), launches the GTK test app
(tests/desktop/apps/gtk_app.py) through desktop_launch_app, then calls each tool N times with the official MCP client.

    .venv/bin/python bench/desktop.py [--n 30] [--quick] [--backends]
"""

from __future__ import annotations

import argparse
import asyncio
import http.server
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import (
    ROOT,
    BridgeProcess,
    machine,
    open_mcp,
    stats,
    table,
    timed_calls,
    write_json,
)

GTK_APP = [sys.executable, str(ROOT / "tests" / "desktop" / "apps" / "gtk_app.py")]
CHROMIUM = "/usr/bin/chromium"
#: (toolkit, argv, selector clicked n times); the apps come from Debian (scripts/test.sh installs them)
TOOLKIT_APPS = [
    ("GTK 4.8 (gnome-calculator 43)", ["gnome-calculator"], {"role": "button", "name": "1"}),
    ("Qt 6.4 (qt6ct 0.7)", ["qt6ct"], {"role": "tab", "name": "Appearance"}),
    ("GTK 3.24 (galculator 2.1)", ["galculator"], {"role": "button", "name": "1"}),
]
PAGE = b"<!doctype html><title>Bench Page</title><button onclick='this.textContent+=1'>Press me</button>"


def ok(result: Any) -> Any:
    if result.is_error:
        raise RuntimeError(" ".join(getattr(c, "text", "") for c in result.content))
    return result.structured_content


def display_env(bridge_pid: int) -> dict[str, str]:
    """DISPLAY and XAUTHORITY of the bridge's private Xvfb (from its command line), for xdotool."""
    from bridge.desktop.children import descendants

    for pid in descendants(bridge_pid):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if argv and argv[0].endswith(b"Xvfb"):
            auth = argv[argv.index(b"-auth") + 1].decode()
            return {"XAUTHORITY": auth}
    raise RuntimeError("the bridge's Xvfb was not found")


async def run(n: int) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="bench-desktop-"))
    allow = ",".join([sys.executable, CHROMIUM, *(argv[0] for _, argv, _ in TOOLKIT_APPS)])
    bridge = BridgeProcess(tmp, env={"DBG_DESKTOP_ENABLED": "1", "DBG_DESKTOP_ALLOW": allow,
                                     "DBG_DESKTOP_BROWSER": CHROMIUM}).start()
    rows: list[dict[str, Any]] = []
    try:
        async with open_mcp(bridge.mcp_url, bridge.token) as client:
            async def call(name: str, args: dict[str, Any]) -> Any:
                return ok(await client.call_tool(name, args))

            t0 = time.perf_counter()
            status = await call("desktop_status", {})
            start_ms = (time.perf_counter() - t0) * 1000
            t0 = time.perf_counter()
            launched = await call("desktop_launch_app", {"argv": [*GTK_APP, "--title", "Bench"]})
            launch_ms = (time.perf_counter() - t0) * 1000
            win = launched["windows"][0]["id"]
            reset = {"role": "button", "name": "Reset"}
            found = await call("desktop_find_elements", {"target": reset, "window": win})
            node = found["matches"][0]
            ref, b = node["ref"], node["bounds"]
            cx, cy = b["x"] + b["width"] // 2, b["y"] + b["height"] // 2

            async def measure(label: str, via: str, name: str, args: dict[str, Any] | None = None,
                              image: bool = False) -> None:
                inner: list[float] = []

                async def one(_: int) -> None:
                    res = await client.call_tool(name, args or {})
                    data = ok(res)
                    if isinstance(data, dict) and "ms" in data:
                        inner.append(float(data["ms"]))

                await one(0)  # warm
                inner.clear()
                lat, wall = await timed_calls(one, n, 1)
                s = stats(lat, wall)
                rows.append({"op": label, "via": via, **s,
                             "bridge_p50_ms": round(sorted(inner)[len(inner) // 2], 2) if inner else None})

            await measure("click", "MCP selector {button Reset}, pointer", "desktop_click",
                          {"target": reset, "window": win})
            await measure("click", "MCP ref, pointer", "desktop_click", {"ref": ref})
            await measure("click", "MCP ref, accessible action", "desktop_click", {"ref": ref, "method": "accessibility"})
            await measure("click", "MCP x,y", "desktop_click", {"x": cx, "y": cy})
            env = {**os.environ, "DISPLAY": status["display"], **display_env(bridge.proc.pid)}

            def xdotool(_: int) -> None:
                subprocess.run(["xdotool", "mousemove", str(cx), str(cy), "click", "1"], env=env, check=True)

            async def xd(i: int) -> None:
                await asyncio.to_thread(xdotool, i)

            xdotool(0)
            lat, wall = await timed_calls(xd, n, 1)
            rows.append({"op": "click", "via": "xdotool CLI x,y (no MCP)", **stats(lat, wall)})
            await measure("type 5 chars", "MCP selector {textbox}, keys + read-back", "desktop_type_text",
                          {"value": "hello", "target": {"role": "textbox"}, "window": win, "replace": True})
            await measure("type 5 chars", "MCP (focused), keys only", "desktop_type_text", {"value": "hello"})

            def xdotool_type(_: int) -> None:
                subprocess.run(["xdotool", "type", "hello"], env=env, check=True)

            async def xdt(i: int) -> None:
                await asyncio.to_thread(xdotool_type, i)

            lat, wall = await timed_calls(xdt, n, 1)
            rows.append({"op": "type 5 chars", "via": "xdotool CLI type (no MCP)", **stats(lat, wall)})
            await measure("hotkey", "MCP ctrl+a", "desktop_hotkey", {"keys": "ctrl+a"})
            await measure("tree", "MCP window (~15 nodes)", "desktop_accessibility_tree", {"window": win})
            await measure("find", "MCP selector", "desktop_find_elements", {"target": reset, "window": win})
            await measure("screenshot", "MCP window PNG", "desktop_screenshot", {"window": win})
            await measure("screenshot", "MCP full screen 1280x800 PNG", "desktop_screenshot", {})
            await measure("list windows", "MCP", "desktop_list_windows", {})
            await measure("status", "MCP", "desktop_status", {})

            # recording: what it costs a tool call, and how human clicks (xdotool) come back as steps
            async def start_stop(_: int) -> None:
                await call("desktop_start_recording", {})
                await call("desktop_stop_recording", {})

            lat, wall = await timed_calls(start_stop, n, 1)
            rows.append({"op": "start+stop recording", "via": "MCP, two calls, nothing recorded", **stats(lat, wall)})
            await call("desktop_start_recording", {"maxSeconds": 600})
            await measure("click", "MCP selector, while recording (left out of it)", "desktop_click",
                          {"target": reset, "window": win})

            def human_click(i: int) -> None:  # 6 px apart: not merged into double clicks
                subprocess.run(["xdotool", "mousemove", str(cx + (6 if i % 2 else -6)), str(cy), "click", "1"],
                               env=env, check=True)

            for i in range(n):
                await asyncio.to_thread(human_click, i)
            t0 = time.perf_counter()
            recorded = await call("desktop_stop_recording", {})
            stop_ms = (time.perf_counter() - t0) * 1000
            by_selector = sum(1 for st in recorded["steps"] if st["tool"] == "desktop_click"
                              and st["method"] == "accessibility")
            recording = {"human_clicks": n, "steps": recorded["count"], "selector_steps": by_selector,
                         "stop_ms": round(stop_ms, 1)}
            await measure("read text (OCR)", "MCP desktop_read_text, GTK test app window", "desktop_read_text",
                          {"window": win})
            await call("desktop_quit_app", {"pid": launched["app"]["pid"]})

            # a click by selector in a real app of each toolkit
            for toolkit, argv, target in TOOLKIT_APPS:
                if shutil.which(argv[0]) is None:
                    rows.append({"op": "click (toolkit)", "via": f"{toolkit}: not installed"})
                    continue
                app = await call("desktop_launch_app", {"argv": argv, "timeout": 30})
                wid = app["windows"][0]["id"]
                await measure("click (toolkit)", f"MCP selector, pointer · {toolkit}", "desktop_click",
                              {"target": target, "window": wid})
                await measure("find (toolkit)", f"MCP selector · {toolkit}", "desktop_find_elements",
                              {"target": target, "window": wid})
                await call("desktop_quit_app", {"pid": app["app"]["pid"]})
            server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Page)
            asyncio.get_running_loop().run_in_executor(None, server.serve_forever)
            try:
                opened = await call("desktop_open_url", {"url": f"http://127.0.0.1:{server.server_address[1]}/",
                                                         "timeout": 40})
                page = await call("desktop_wait_for_window", {"title": "Bench Page", "timeout": 30})
                wid = page["windows"][0]["id"]
                button = {"role": "button", "name_contains": "Press me"}
                await call("desktop_wait_for_element", {"target": button, "window": wid, "timeout": 20})
                await measure("click (toolkit)", "MCP selector, pointer · Chromium (web content)", "desktop_click",
                              {"target": button, "window": wid})
                await call("desktop_quit_app", {"pid": opened["app"]["pid"]})
            finally:
                server.shutdown()
    finally:
        bridge.stop()
    return {"rows": rows, "desktop_start_ms": round(start_ms, 1), "launch_ms": round(launch_ms, 1),
            "recording": recording}


#: The same three tasks on each backend, in the same Debian apps: (row, app argv, tool, arguments)
BACKEND_TASKS = [
    ("click by selector", ["galculator"], "desktop_click", {"target": {"role": "button", "name": "1"}}),
    ("type 5 chars + read-back", ["gnome-text-editor", "--standalone", "--ignore-session", "--new-window"],
     "desktop_type_text", {"value": "hello", "target": {"role": "text"}, "replace": True}),
    ("screenshot full screen", None, "desktop_screenshot", {}),
]


async def backends(n: int) -> list[dict[str, Any]]:
    """X11 (Xvfb + openbox) beside Wayland (headless sway): one bridge each, the same tasks in the same apps."""
    rows: list[dict[str, Any]] = []
    for backend in ("x11", "wayland"):
        tmp = Path(tempfile.mkdtemp(prefix=f"bench-desktop-{backend}-"))
        bridge = BridgeProcess(tmp, env={"DBG_DESKTOP_ENABLED": "1", "DBG_DESKTOP_BACKEND": backend,
                                         "DBG_DESKTOP_ALLOW": "galculator,gnome-text-editor"}).start()
        try:
            async with open_mcp(bridge.mcp_url, bridge.token) as client:
                async def call(name: str, args: dict[str, Any]) -> Any:
                    return ok(await client.call_tool(name, args))

                t0 = time.perf_counter()
                await call("desktop_status", {})
                rows.append({"backend": backend, "op": "desktop start", "p50_ms": round((time.perf_counter() - t0)
                                                                                      * 1000, 1)})
                for label, argv, tool, args in BACKEND_TASKS:
                    app = await call("desktop_launch_app", {"argv": argv, "timeout": 30}) if argv else None
                    extra = {"window": app["windows"][0]["id"]} if app else {}
                    if app:  # a loaded machine may register the app's tree after launch's grace
                        await call("desktop_wait_for_element", {"target": args["target"], **extra, "timeout": 30})

                    async def one(_: int, tool: str = tool, args: dict[str, Any] = {**args, **extra}) -> None:
                        ok(await client.call_tool(tool, args))

                    await one(0)  # warm
                    lat, wall = await timed_calls(one, n, 1)
                    rows.append({"backend": backend, "op": label, **stats(lat, wall)})
                    if app:
                        await call("desktop_quit_app", {"pid": app["app"]["pid"]})
        finally:
            bridge.stop()
    return rows


class _Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *args: object) -> None:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=30, help="calls per row (default 30)")
    parser.add_argument("--quick", action="store_true", help="10 calls per row")
    parser.add_argument("--backends", action="store_true", help="only the X11 / Wayland rows")
    args = parser.parse_args()
    n = 10 if args.quick else args.n
    m = machine()
    print(f"desktop tools over MCP · {m['cpus']} cpus · load {m['loadavg_1m']} · n={n} per row")
    both = asyncio.run(backends(n))
    print("the same tasks on each backend (galculator: GTK 3, gnome-text-editor: GTK 4):")
    print(table(both, [("op", "operation"), ("backend", "backend"), ("p50_ms", "p50 ms"), ("p99_ms", "p99 ms"),
                       ("mean_ms", "mean ms")]))
    if args.backends:
        path = write_json("desktop-backends.json", {"machine": m, "n": n, "rows": both})
        print(f"wrote {path.relative_to(ROOT)}")
        return
    out = asyncio.run(run(n))
    out["backends"] = both
    print(f"private desktop start (first desktop_status): {out['desktop_start_ms']:.0f} ms · launch GTK app to its "
          f"window + accessibility tree: {out['launch_ms']:.0f} ms")
    print(table(out["rows"], [("op", "operation"), ("via", "via"), ("p50_ms", "p50 ms"), ("p99_ms", "p99 ms"),
                              ("mean_ms", "mean ms"), ("bridge_p50_ms", "in-bridge p50 ms")]))
    rec = out["recording"]
    print(f"recording: {rec['human_clicks']} human clicks (xdotool) → {rec['steps']} steps, {rec['selector_steps']} "
          f"of them by selector; desktop_stop_recording took {rec['stop_ms']:.0f} ms")
    path = write_json("desktop.json", {"machine": m, "n": n, **out})
    print(f"wrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
