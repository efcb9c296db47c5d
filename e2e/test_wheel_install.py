"""A normal (non-editable) install works: build the wheel, install it into a fresh venv, serve the client from it,
load a page in Chromium and run one page_exec through the installed bridge."""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from tests.support import ROOT, McpSession, open_page, run_async


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel `pip wheel .` builds from this checkout (what pipx, uv tool and a plain `pip install .` install)."""
    dist = tmp_path_factory.mktemp("dist")
    shutil.rmtree(ROOT / "build", ignore_errors=True)  # setuptools reuses build/lib, stale files included
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(ROOT)], check=True,
                   timeout=300)
    return next(dist.glob("dbg_bridge-*.whl"))


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv holding only that wheel (its dependencies come from the test venv through a plain path entry,
    so nothing more is downloaded and the checkout's editable install is not on its path)."""
    venv = tmp_path_factory.mktemp("wheel") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    site = Path(subprocess.run([str(venv / "bin" / "python"), "-c", "import sysconfig;print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    (site / "_test_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--no-deps",
                    "-q", str(wheel)], check=True, timeout=300)
    return venv


def test_the_wheel_carries_the_client_parts_the_cockpit_and_the_demo(wheel: Path):
    names = set(zipfile.ZipFile(wheel).namelist())
    from bridge.inject import PARTS

    assert {f"bridge/inject/{p}" for p in PARTS} <= names
    assert {"bridge/cockpit/routes.py", "bridge/cockpit/static/cockpit.js", "bridge/cockpit/templates/cockpit.html",
            "bridge/cockpit/templates/_partials/setup.html", "bridge/demo/index.html"} <= names


def test_an_installed_bridge_serves_the_client_and_runs_page_exec(installed: Path, tmp_path: Path, browser,
                                                                   bridge_process):
    code = subprocess.run([str(installed / "bin" / "python"), "-c", "import bridge; print(bridge.__file__)"],
                          capture_output=True, text=True, cwd=tmp_path, check=True).stdout
    assert str(installed) in code, code  # the wheel's copy, not the checkout
    (tmp_path / "cfg").mkdir()
    proc = bridge_process(config_dir=tmp_path / "cfg", command=[str(installed / "bin" / "dbg-bridge")], cwd=tmp_path)
    import httpx

    js = httpx.get(proc.base + "/inject/dbg_client.js", timeout=10)
    assert js.status_code == 200 and "createDbgLauncher" in js.text
    assert httpx.get(proc.base + "/", timeout=10).status_code == 200  # the cockpit's template
    assert httpx.get(proc.base + "/cockpit/cockpit.js", timeout=10).status_code == 200
    context = browser.new_context()
    try:
        page = open_page(context, proc.base + "/demo")
        mcp = McpSession(proc.mcp_url, proc.token)
        try:
            out = mcp.call("page_exec", {"pageId": page.page_id, "code": "6 * 7"})
            assert not out.is_error, out.content
            assert out.structured_content["result"] == 42
        finally:
            mcp.close()
    finally:
        context.close()


def test_an_installed_bridge_hands_out_the_vite_plugin_as_a_tarball_that_starts_it(installed: Path, tmp_path: Path):
    import json
    import tarfile

    out = subprocess.run([str(installed / "bin" / "dbg-bridge"), "plugin", "vite", "--out", str(tmp_path)],
                         capture_output=True, text=True, cwd=tmp_path, check=True, timeout=60).stdout.strip()
    assert out == str(tmp_path / "vite-plugin-dbg-bridge-0.1.0.tgz")
    with tarfile.open(out) as tar:
        names = set(tar.getnames())
        packed = json.loads(tar.extractfile("package/src/bridge.json").read())
    assert {"package/package.json", "package/src/index.js", "package/src/index.d.ts"} <= names
    assert packed["command"] == [str(installed / "bin" / "python"), "-m", "bridge"]  # the wheel's venv, no PATH
