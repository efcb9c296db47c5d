"""The Vite plugin installs the way the README says, from a clean copy, and its defaults work.

The tracked files of the bridge and the plugin (`git archive HEAD`, no node_modules anywhere) and a fresh copy of
the react-vite8 app without the plugin; the README's install line, run as written by bash in the app's folder with
`dbg-bridge` on PATH (a script running that archive's bridge); then the real Vite 8 dev server, and the page
connects. The plugin's default start: `dbgBridge()` with no bridge running and no `dbg-bridge` on PATH starts the
bridge that packed it; a command that cannot start one gets one message and no banner line advertising it.
Needs the npm registry (the plugin's dependencies come from it, as for a user).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from e2e.frameworks.vite import APPS, npm_install

from tests.support import CONNECTED, ROOT, McpSession, free_port, ok, stop_group, wait_until

APP = "react-vite8"
CONFIG = """import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'
import dbgBridge from 'vite-plugin-dbg-bridge'

export default defineConfig({ plugins: [react(), dbgBridge(%s)], clearScreen: false })
"""


def readme_line(name: str) -> str:
    """The README's install command for a plugin, exactly as written there."""
    for line in (ROOT / "README.md").read_text().splitlines():
        if line.startswith(f'npm i -D "$(dbg-bridge plugin {name})"'):
            return line.split("  #")[0].strip()
    raise AssertionError(f"README.md has no `npm i -D \"$(dbg-bridge plugin {name})\"` line")


def archive(paths: list[str], into: Path) -> Path:
    """The tracked files of `paths` at HEAD, extracted into `into`."""
    into.mkdir(parents=True)
    data = subprocess.run(["git", "archive", "--format=tar", "HEAD", *paths], cwd=ROOT, check=True,
                          capture_output=True, timeout=60).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=data, check=True, timeout=60)
    return into


@pytest.fixture(scope="module")
def app(tmp_path_factory) -> Path:
    """A fresh copy of the app (its tracked files, the plugin dropped from package.json, no lock file) with its other
    dependencies copied in, after the README's install line ran in it."""
    npm_install(APPS[APP])
    work = tmp_path_factory.mktemp("install")
    repo = archive(["bridge", "plugins/vite"], work / "repo")
    assert not (repo / "plugins" / "vite" / "node_modules").exists()
    app = archive([f"e2e/frameworks/{APP}"], work / "app-src") / "e2e" / "frameworks" / APP
    pkg = json.loads((app / "package.json").read_text())
    del pkg["devDependencies"]["vite-plugin-dbg-bridge"]
    (app / "package.json").write_text(json.dumps(pkg, indent=2) + "\n")
    (app / "package-lock.json").unlink()
    skip = {"vite-plugin-dbg-bridge", ".vite", ".package-lock.json"}
    for entry in (APPS[APP] / "node_modules").iterdir():
        if entry.name not in skip:
            dest = app / "node_modules" / entry.name
            if entry.is_dir() and not entry.is_symlink():
                shutil.copytree(entry, dest, symlinks=True)
            else:
                dest.parent.mkdir(exist_ok=True)
                shutil.copy2(entry, dest, follow_symlinks=False)
    bin_dir = work / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "dbg-bridge"
    shim.write_text(f"#!/bin/sh\nPYTHONPATH={repo} exec {sys.executable} -m bridge \"$@\"\n")
    shim.chmod(0o755)
    line = readme_line("vite")
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "npm_config_audit": "false",
           "npm_config_fund": "false", "npm_config_loglevel": "error"}
    done = subprocess.run(["bash", "-c", line], cwd=app, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{line} failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    return app


class Vite:
    """`vite` serving the app with a given config file; the log kept for the banner."""

    def __init__(self, app: Path, config: str, env: dict[str, str]) -> None:
        self.port = free_port()
        self.log = app.parent / f"vite-{self.port}.log"
        (app / f"vite.{self.port}.config.js").write_text(config)
        cmd = ["node", str(app / "node_modules" / "vite" / "bin" / "vite.js"), "--config", f"vite.{self.port}.config.js",
               "--host", "127.0.0.1", "--port", str(self.port), "--strictPort"]
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen(cmd, cwd=app, env={**env, "NO_COLOR": "1", "BROWSER": "none"}, stdout=log,
                                         stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def stop(self) -> None:
        stop_group(self.proc)


@pytest.fixture
def vite_with(app) -> Iterator:
    started: list[Vite] = []

    def start(config: str, env: dict[str, str]) -> Vite:
        started.append(Vite(app, config, env))
        return started[-1]

    yield start
    for v in started:
        v.stop()


def test_the_readme_line_installs_the_plugin_as_a_copy_with_its_dependencies_and_the_page_connects(app, vite_with,
                                                                                                 bridge, context, mcp):
    plugin = app / "node_modules" / "vite-plugin-dbg-bridge"
    assert plugin.is_dir() and not plugin.is_symlink()  # a copy, not a link to a folder without node_modules
    spec = json.loads((app / "package.json").read_text())["devDependencies"]["vite-plugin-dbg-bridge"]
    assert spec.startswith("file:") and spec.endswith(".tgz"), spec
    with tarfile.open(app / spec[5:]) as tar:
        packed = json.loads(tar.extractfile("package/src/bridge.json").read())
    assert packed["command"] == [sys.executable, "-m", "bridge"]
    resolved = subprocess.run(["node", "-e", "console.log(require.resolve('@babel/parser', {paths: [process.argv[1]]}))",
                               str(plugin)], capture_output=True, text=True, timeout=30)
    assert resolved.returncode == 0 and "node_modules/@babel/parser" in resolved.stdout, resolved.stderr
    v = vite_with(CONFIG % f"{{ bridge: '{bridge.base}', autoStart: false, attach: 'fresh-install' }}", dict(os.environ))
    wait_until(lambda: "dbg-bridge" in v.text() or v.proc.poll() is not None, 60, 0.1, "vite's banner")
    assert v.proc.poll() is None, v.text()
    page = context.new_page()
    page.goto(v.url())
    page.wait_for_function(CONNECTED + " && !!document.getElementById('counter')", timeout=20000)
    page_id = page.evaluate("window.__dbg.pageId")
    row = next(r for r in mcp.pages() if r["pageId"] == page_id)
    assert row["attach"] == "fresh-install"
    assert f"dbg-bridge: {bridge.base}/ (cockpit)" in v.text()


def test_with_no_options_no_bridge_and_no_dbg_bridge_on_path_the_plugin_starts_the_bridge_that_packed_it(
        app, vite_with, context, tmp_path):
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    path = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if not (Path(p) / "dbg-bridge").exists())
    assert shutil.which("dbg-bridge", path=path) is None
    env = {**os.environ, "PATH": path, "DBG_BRIDGE_URL": base, "DBG_CONFIG_DIR": str(tmp_path / "cfg"),
           "PYTHONPATH": str(ROOT)}  # this checkout's bridge for the Python the tarball names
    env.pop("DBG_BRIDGE_COMMAND", None)
    v = vite_with(CONFIG % "", env)
    wait_until(lambda: f"dbg-bridge: {base}/" in v.text() or "[dbg-bridge]" in v.text() or v.proc.poll() is not None,
               60, 0.1, "the plugin's line under vite's banner")
    assert f"dbg-bridge: {base}/ (cockpit) · MCP {base}/mcp (started by this dev server)" in v.text(), v.text()
    assert httpx.get(base + "/bridge/health", timeout=5).json()["name"] == "dbg-bridge"
    page = context.new_page()
    page.goto(v.url())
    page.wait_for_function(CONNECTED, timeout=20000)
    token = (tmp_path / "cfg" / "token").read_text().strip()
    session = McpSession(base + "/mcp", token)
    try:
        rows = ok(session.call("page_list"))["pages"]
        assert any(r["attach"] == "vite" and r["url"].startswith(v.url()) for r in rows), rows
    finally:
        session.close()
    v.stop()  # the bridge is the dev server's child: it goes with it
    wait_until(lambda: not answers(base), 10, 0.1, "the started bridge to stop with the dev server")


def test_with_no_url_given_the_plugin_finds_a_bridge_started_with_port_0_through_its_running_file(
        app, vite_with, context, bridge_process, tmp_path):
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    other = bridge_process(config_dir=cfg)  # --port 0: a free port, written to cfg/running.json
    assert json.loads((cfg / "running.json").read_text())["url"] == other.base
    manifest = app / "node_modules" / "vite-plugin-dbg-bridge" / "src" / "bridge.json"
    packed = manifest.read_text()
    manifest.write_text(json.dumps({**json.loads(packed), "configDir": str(cfg)}))  # packed by that bridge
    env = {**os.environ, "DBG_CONFIG_DIR": str(cfg)}
    env.pop("DBG_BRIDGE_URL", None)
    try:
        v = vite_with(CONFIG % "", env)
        wait_until(lambda: "dbg-bridge:" in v.text() or "[dbg-bridge]" in v.text() or v.proc.poll() is not None,
                   60, 0.1, "the plugin's line under vite's banner")
    finally:
        manifest.write_text(packed)
    assert f"dbg-bridge: {other.base}/ (cockpit) · MCP {other.base}/mcp\n" in v.text(), v.text()  # not started
    page = context.new_page()
    page.goto(v.url())
    page.wait_for_function(CONNECTED, timeout=20000)
    client = page.evaluate("document.querySelector('script[src$=\"/inject/dbg_client.js\"]').src")
    assert client == f"{other.base}/inject/dbg_client.js"


def test_when_nothing_can_start_the_bridge_one_message_says_what_was_tried_and_no_banner_line_claims_it(
        app, vite_with, tmp_path):
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    path = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if not (Path(p) / "dbg-bridge").exists())
    env = {**os.environ, "PATH": path, "DBG_BRIDGE_URL": base, "DBG_CONFIG_DIR": str(tmp_path / "cfg")}
    env.pop("DBG_BRIDGE_COMMAND", None)
    manifest = app / "node_modules" / "vite-plugin-dbg-bridge" / "src" / "bridge.json"
    packed = manifest.read_text()
    manifest.write_text(json.dumps({"command": ["/nonexistent/python", "-m", "bridge"]}))  # that venv is gone
    try:
        v = vite_with(CONFIG % "{ command: '/bin/false' }", env)
        wait_until(lambda: "[dbg-bridge]" in v.text() or v.proc.poll() is not None, 60, 0.1, "the plugin's message")
    finally:
        manifest.write_text(packed)
    text = v.text()
    tried = (f"tried the command option (/bin/false serve --port {port}: it exited with 1); the bridge that packed "
             "this plugin (/nonexistent/python -m bridge: not found); dbg-bridge on PATH (dbg-bridge: not found)")
    assert f"[dbg-bridge] no bridge answers at {base} and none could be started ({tried})" in text, text
    assert "Set DBG_BRIDGE_COMMAND to the dbg-bridge you installed" in text
    assert "(cockpit)" not in text  # never a banner line for a bridge that is not there
    assert v.proc.poll() is None  # the dev server runs on


def answers(base: str) -> bool:
    try:
        return httpx.get(base + "/bridge/health", timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


def test_the_readme_line_installs_the_webpack_plugin_as_a_copy_that_loads(tmp_path):
    repo = archive(["bridge", "plugins/webpack"], tmp_path / "repo")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "dbg-bridge").write_text(f"#!/bin/sh\nPYTHONPATH={repo} exec {sys.executable} -m bridge \"$@\"\n")
    (bin_dir / "dbg-bridge").chmod(0o755)
    app = tmp_path / "app"
    app.mkdir()
    (app / "package.json").write_text('{"name": "fresh-webpack-app", "private": true}\n')
    line = readme_line("webpack")
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "npm_config_audit": "false",
           "npm_config_fund": "false", "npm_config_loglevel": "error"}
    done = subprocess.run(["bash", "-c", line], cwd=app, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{line} failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    plugin = app / "node_modules" / "dbg-bridge-webpack-plugin"
    assert plugin.is_dir() and not plugin.is_symlink() and (plugin / "src" / "hmr.js").is_file()
    out = subprocess.run(["node", "-e", "const P = require('dbg-bridge-webpack-plugin'); "
                          "console.log(P.injectHtml('<html><head></head></html>', '<script></script>'))"],
                         cwd=app, capture_output=True, text=True, timeout=30)
    assert out.stdout.strip() == "<html><head><script></script></head></html>", out.stderr



def test_the_webpack_plugin_finds_a_bridge_started_with_port_0_through_its_running_file(tmp_path, bridge_process):
    """With no URL given, `new DbgBridgePlugin()` points the page at the bridge that packed it when that bridge runs
    with --port 0 (its running.json, its process alive), else at 7878 — packed by the bridge's own command."""
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    other = bridge_process(config_dir=cfg)  # --port 0: a free port, written to cfg/running.json
    packed = subprocess.run([sys.executable, "-m", "bridge", "plugin", "webpack", "--out", str(tmp_path),
                             "--config-dir", str(cfg)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert packed.returncode == 0, packed.stderr
    plugin = tmp_path / "unpacked"
    plugin.mkdir()
    subprocess.run(["tar", "-xzf", packed.stdout.strip(), "-C", str(plugin)], check=True, timeout=60)
    env = {k: v for k, v in os.environ.items() if k != "DBG_BRIDGE_URL"}
    code = "const P = require(process.argv[1]); console.log(new P().bridge)"
    found = subprocess.run(["node", "-e", code, str(plugin / "package")], env=env, capture_output=True, text=True,
                           timeout=30)
    assert found.stdout.strip() == other.base, found.stderr
    (cfg / "running.json").write_text(json.dumps({"url": other.base, "pid": 2 ** 22 + 1}))  # a bridge that is gone
    gone = subprocess.run(["node", "-e", code, str(plugin / "package")], env=env, capture_output=True, text=True,
                          timeout=30)
    assert gone.stdout.strip() == "http://127.0.0.1:7878", gone.stderr
