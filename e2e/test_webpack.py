"""The webpack plugin (plugins/webpack) in a real webpack 5 + webpack-dev-server + html-webpack-plugin app
(e2e/webpack_app): `webpack serve` pages get the client and answer through MCP; production builds stay clean."""

from __future__ import annotations

import os
import subprocess
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import CONNECTED, free_port, ok, stop_group, wait_until

APP = Path(__file__).resolve().parent / "webpack_app"
CLI = APP / "node_modules" / "webpack-cli" / "bin" / "cli.js"


def installed() -> bool:
    marker = APP / "node_modules" / ".package-lock.json"
    return marker.exists() and marker.stat().st_mtime >= (APP / "package-lock.json").stat().st_mtime


def webpack(*args: str, bridge: str, out: Path, **popen: object) -> subprocess.Popen:
    """The app's webpack CLI as a child process in its own process group (npm ci first if node_modules is stale)."""
    if not installed():  # ./scripts/test.sh runs npm ci beforehand; this covers a bare pytest run
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=APP, check=True,
                       capture_output=True, timeout=300)
    env = {**os.environ, "DBG_BRIDGE_URL": bridge, "NO_COLOR": "1", "OUT_DIR": str(out)}
    return subprocess.Popen(["node", str(CLI), *args], cwd=APP, env=env, stdin=subprocess.DEVNULL,
                            start_new_session=True, **popen)


def build(mode: str, bridge: str, out: Path) -> list[str]:
    """`webpack --mode <mode>` into `out`; the names of the files it wrote."""
    proc = webpack("--mode", mode, bridge=bridge, out=out, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        log, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)
    assert proc.returncode == 0, log.decode(errors="replace")[-3000:]
    return sorted(p.name for p in out.iterdir())


class DevServer:
    """`webpack serve` on a free 127.0.0.1 port, in its own process group (killed and waited at the end)."""

    def __init__(self, bridge: str, log: Path) -> None:
        self.bridge, self.log = bridge, log
        self.port = free_port()
        with open(log, "ab") as out:
            self.proc = webpack("serve", "--host", "127.0.0.1", "--port", str(self.port), bridge=bridge,
                                out=log.parent / "dist", stdout=out, stderr=subprocess.STDOUT)
        try:
            wait_until(lambda: self.serving() or self.proc.poll() is not None, 60, 0.1, "webpack serve")
        except BaseException:
            self.stop()
            raise
        if self.proc.poll() is not None:
            raise RuntimeError(f"webpack serve exited with {self.proc.returncode}:\n{log.read_text()[-3000:]}")

    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def serving(self) -> bool:
        try:
            with urllib.request.urlopen(self.url(), timeout=2) as r:
                return r.status == 200 and b"webpack app" in r.read()
        except OSError:
            return False

    def stop(self) -> None:
        stop_group(self.proc)


@pytest.fixture(scope="module")
def served(bridge, tmp_path_factory) -> Iterator[DevServer]:
    server = DevServer(bridge.base, tmp_path_factory.mktemp("webpack") / "serve.log")
    try:
        yield server
    finally:
        server.stop()


def test_a_page_from_webpack_serve_gets_the_client_first_in_head_and_answers_page_exec(served, context, bridge, mcp):
    page = context.new_page()
    page.goto(served.url())
    page.wait_for_function(CONNECTED + " && window.appReady === true", timeout=15000)
    page_id = page.evaluate("window.__dbg.pageId")
    row = next(r for r in mcp.pages() if r["pageId"] == page_id)
    assert row["attach"] == "webpack" and row["url"] == served.url()
    out = ok(mcp.call("page_exec", {"pageId": page_id, "code": "document.getElementById('count').click(); "
                                    "return [document.head.firstElementChild.src, document.getElementById('count').textContent]"}))
    assert out["result"] == [f"{bridge.base}/inject/dbg_client.js", "count is 1"]


def test_a_production_build_contains_no_client(tmp_path, bridge):
    files = build("production", bridge.base, tmp_path)
    assert files == ["index.html", "main.js"]
    for name in files:
        text = (tmp_path / name).read_text()
        assert "dbg_client" not in text and bridge.base not in text, name


def test_a_development_build_puts_the_client_at_the_top_of_head(tmp_path, bridge):
    build("development", bridge.base, tmp_path)
    html = (tmp_path / "index.html").read_text()
    assert f'<head><script src="{bridge.base}/inject/dbg_client.js" data-attach="webpack"></script><meta' in html
