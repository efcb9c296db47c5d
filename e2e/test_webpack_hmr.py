"""Hot updates on webpack: webpack-dev-server with hot: true serving a copy of e2e/webpack_app whose view module is
hot-accepted, with dbg-bridge-webpack-plugin (its entry forwards the hot runtime's status): an edit is waited for with
page_wait {update}, the page keeps its pageId and shows the new code; a syntax error answers [update_failed] at the
file and line webpack reports."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from e2e.test_webpack import APP, CLI, installed

from tests.support import CONNECTED, ROOT, free_port, ok, stop_group, text_of, wait_until

CONFIG = """const path = require('node:path');
const HtmlWebpackPlugin = require('html-webpack-plugin');
const DbgBridgePlugin = require(%r);

module.exports = {
  mode: 'development',
  entry: './src/index.js',
  output: { path: path.resolve('dist'), clean: true },
  plugins: [new HtmlWebpackPlugin({ template: './src/index.html' }), new DbgBridgePlugin()],
  devServer: { static: false, hot: true, liveReload: false, client: { overlay: false, logging: 'warn' } },
  infrastructureLogging: { level: 'warn' },
  stats: 'errors-warnings',
};
"""
INDEX = """import { render } from './view.js';
render();
if (module.hot) module.hot.accept('./view.js', () => render());
window.appReady = true;
"""
VIEW = """export function render() {
  document.getElementById('count').textContent = 'view %s';
}
"""


@pytest.fixture(scope="module")
def served(bridge, tmp_path_factory) -> Iterator[tuple[str, Path]]:
    if not installed():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=APP, check=True,
                       capture_output=True, timeout=300)
    root = tmp_path_factory.mktemp("webpack-hmr")
    shutil.copytree(APP / "src", root / "src")
    (root / "node_modules").symlink_to(APP / "node_modules", target_is_directory=True)
    (root / "src" / "index.js").write_text(INDEX)
    (root / "src" / "view.js").write_text(VIEW % "v1")
    (root / "webpack.config.js").write_text(CONFIG % str(ROOT / "plugins" / "webpack"))
    port = free_port()
    log = root / "serve.log"
    env = {**os.environ, "DBG_BRIDGE_URL": bridge.base, "NO_COLOR": "1"}
    with open(log, "ab") as out:
        proc = subprocess.Popen(["node", str(CLI), "serve", "--host", "127.0.0.1", "--port", str(port)], cwd=root,
                                env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
    url = f"http://127.0.0.1:{port}/"

    def serving() -> bool:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                return r.status == 200
        except OSError:
            return False

    try:
        wait_until(lambda: serving() or proc.poll() is not None, 60, 0.1, "webpack serve")
        assert proc.poll() is None, log.read_text()[-3000:]
        yield url, root
    finally:
        stop_group(proc)


def write(root: Path, text: str) -> None:
    tmp = root / ".view.tmp"
    tmp.write_text(text)
    os.replace(tmp, root / "src" / "view.js")


def updates_of(mcp, page_id: str) -> int:
    deadline = time.monotonic() + 10
    while True:
        row = next(r for r in mcp.pages() if r["pageId"] == page_id)
        if "updates" in row or time.monotonic() > deadline:
            return row["updates"]
        time.sleep(0.1)  # polling the bridge's list, bounded above


def wait_update(mcp, page_id: str, root: Path, text: str, after: int):
    """Write the view and wait for the update it makes (once more if webpack's watcher missed the write)."""
    for wait_s in (8, 15):
        write(root, text)
        out = mcp.call("page_wait", {"pageId": page_id, "update": after, "timeout": wait_s})
        if not out.is_error or not text_of(out).startswith("[wait_timeout]"):
            return out
    raise AssertionError("no update came")


def test_an_edit_is_waited_for_and_applied_in_place_and_a_syntax_error_answers_its_line(served, context, mcp):
    url, root = served
    page = context.new_page()
    page.goto(url)
    page.wait_for_function(CONNECTED + " && window.appReady === true", timeout=20000)
    page_id = page.evaluate("window.__dbg.pageId")
    page.evaluate("window.sameDocument = true")
    before = updates_of(mcp, page_id)
    applied = ok(wait_update(mcp, page_id, root, VIEW % "v2", before))
    assert applied["value"]["updates"] == before + 1 and applied["value"]["server"] == "webpack", applied
    assert applied["value"]["reloaded"] is False and page.evaluate("window.sameDocument") is True
    assert page.evaluate("document.getElementById('count').textContent") == "view v2"
    broken = (VIEW % "v3").replace("{\n", "{\n  const broken = (;\n", 1)
    line = broken.splitlines().index("  const broken = (;") + 1
    failed = wait_update(mcp, page_id, root, broken, before + 1)
    text = text_of(failed)
    assert failed.is_error and text.startswith("[update_failed]") and f"src/view.js:{line}:" in text, (line, text)
    # after a failed compile webpack cannot apply the next update in place: webpack-dev-server reloads the page,
    # which counts as the update (reloaded: true)
    fixed = ok(wait_update(mcp, page_id, root, VIEW % "v4", before + 2))
    assert fixed["met"] is True and fixed["pageId"] == page_id and fixed["value"]["updates"] == before + 3, fixed
    ok(mcp.call("page_wait", {"pageId": page_id, "text": "view v4", "timeout": 10}))
