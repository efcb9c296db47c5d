"""`dbg-bridge plugin vite|webpack`: the plugin as an npm tarball (everything under package/), its shipped files only,
and src/bridge.json naming the Python that packed it."""

from __future__ import annotations

import json
import sys
import tarfile
from pathlib import Path

from bridge.cli.entry import main
from bridge.cli.plugin import pack
from bridge.settings import Settings

ROOT = Path(__file__).resolve().parents[2]


def test_the_vite_plugin_packs_as_an_npm_tarball_of_its_shipped_files_and_the_bridge_that_packed_it(tmp_path):
    path = pack("vite", tmp_path, Settings(config_dir=tmp_path / "cfg"))
    meta = json.loads((ROOT / "plugins" / "vite" / "package.json").read_text())
    assert path == tmp_path / f"{meta['name']}-{meta['version']}.tgz"
    with tarfile.open(path) as tar:
        names = set(tar.getnames())
        packed = json.loads(tar.extractfile("package/src/bridge.json").read())
        assert json.loads(tar.extractfile("package/package.json").read()) == meta
    assert names == {"package/package.json", "package/src/index.js", "package/src/index.d.ts", "package/src/bridge.json"}
    assert packed["command"] == [sys.executable, "-m", "bridge"] and packed["configDir"] == str(tmp_path / "cfg")


def test_the_plugin_command_prints_only_the_tarballs_path(tmp_path, capsys):
    assert main(["plugin", "webpack", "--out", str(tmp_path), "--config-dir", str(tmp_path / "cfg")]) == 0
    out = capsys.readouterr().out
    assert out == f"{tmp_path / 'dbg-bridge-webpack-plugin-0.1.0.tgz'}\n"
    with tarfile.open(out.strip()) as tar:
        assert "package/src/hmr.js" in tar.getnames()
