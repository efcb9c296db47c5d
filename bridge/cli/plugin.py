"""`dbg-bridge plugin vite|webpack`: the bundler plugin as an npm tarball, for `npm i -D "$(dbg-bridge plugin vite)"`.

npm installs a tarball as a copy with its dependencies (a folder path would be a symlink without them). The
tarball carries `src/bridge.json`: how to start the very bridge that packed it (this Python, `-m bridge`) and its
config dir, so the plugin's default start needs nothing on PATH. The plugins ship in the wheel as package data
(`bridge/plugins/`), and sit beside the package in a checkout (`plugins/`).
"""

from __future__ import annotations

import io
import json
import sys
import tarfile
import time
from pathlib import Path

from bridge.settings import Settings

#: The plugins one can pack: name -> the folder under plugins/.
PLUGINS = {"vite": "vite", "webpack": "webpack"}
#: What of a plugin's folder goes into its tarball (what its package.json `files` names, plus the manifest).
SHIPPED = ("package.json", "src")


def plugin_dir(name: str) -> Path:
    """The plugin's folder: inside the installed package (a wheel), else beside it (a checkout)."""
    package = Path(__file__).resolve().parents[1]  # bridge/
    for base in (package / "plugins", package.parent / "plugins"):
        if (base / PLUGINS[name] / "package.json").is_file():
            return base / PLUGINS[name]
    raise FileNotFoundError(f"the {name} plugin is not in this install ({package}); reinstall dbg-bridge")


def manifest(settings: Settings) -> dict[str, object]:
    """How the plugin starts this bridge when none answers: no PATH needed."""
    return {"command": [sys.executable, "-m", "bridge"], "configDir": str(settings.config_dir),
            "packedAt": int(time.time())}


def pack(name: str, out_dir: Path, settings: Settings) -> Path:
    """Write `<package>-<version>.tgz` (npm's layout: everything under package/) into out_dir; return its path."""
    src = plugin_dir(name)
    meta = json.loads((src / "package.json").read_text())
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"{meta['name']}-{meta['version']}.tgz"
    with tarfile.open(target, "w:gz") as tar:
        for top in SHIPPED:
            for path in sorted([src / top] if (src / top).is_file() else (src / top).rglob("*")):
                if path.is_file() and "node_modules" not in path.parts:
                    tar.add(path, arcname=f"package/{path.relative_to(src).as_posix()}", filter=_plain)
        data = (json.dumps(manifest(settings), indent=2) + "\n").encode()
        info = tarfile.TarInfo("package/src/bridge.json")
        info.size, info.mode, info.mtime = len(data), 0o644, int(time.time())
        tar.addfile(info, io.BytesIO(data))
    return target


def _plain(info: tarfile.TarInfo) -> tarfile.TarInfo:
    """No owner names or odd modes in the tarball (npm does the same)."""
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    info.mode = 0o644
    return info


def run_plugin(name: str, out: str | None, settings: Settings) -> int:
    """Pack and print the tarball's path (only that on stdout, for `npm i -D "$(…)"`)."""
    try:
        path = pack(name, Path(out) if out else Path.cwd(), settings)
    except (OSError, FileNotFoundError) as exc:
        print(f"dbg-bridge: could not pack the {name} plugin: {exc}", file=sys.stderr)
        return 1
    print(path)
    return 0
