"""Real Vite dev servers for the apps in this folder (shared by e2e/test_frameworks.py and bench/): React and Vue
on Vite 7, and React on Vite 8 (react-vite8). Each app is an official create-vite template plus the known diff in
scaffold/<app>.patch (scripts/scaffold_framework_apps.sh regenerates them); preact is a minimal Preact 10 app
written here in the template's shape (its README says so), for page_source without our plugin's transform.

Each run works on a copy of the app in a temp dir (its node_modules entries linked to the installed ones), so an HMR
test that edits src/ can never leave the repo's sources changed, and parallel runs never share a Vite cache.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

from tests.support import free_port, stop_group, wait_until

HERE = Path(__file__).resolve().parent
PLUGIN = HERE.parents[1] / "plugins" / "vite"
APPS = {"react": HERE / "react", "vue": HERE / "vue", "react-vite8": HERE / "react-vite8",
        "react-ts": HERE / "react-ts", "preact": HERE / "preact"}
# The file each app's UI lives in (HMR edits it; page_source should name it).
APP_FILE = {"react": "src/App.jsx", "vue": "src/App.vue", "react-vite8": "src/App.jsx",
            "react-ts": "src/App.tsx", "preact": "src/app.jsx"}


def installed(app_dir: Path) -> bool:
    """npm writes node_modules/.package-lock.json last; it must be newer than the lock file it came from."""
    marker = app_dir / "node_modules" / ".package-lock.json"
    return marker.exists() and marker.stat().st_mtime >= (app_dir / "package-lock.json").stat().st_mtime


def npm_install(app_dir: Path, timeout: float = 300) -> float:
    """`npm ci` once if node_modules is missing or older than package-lock.json; returns the seconds it took (0 if
    nothing to do). A file lock keeps parallel test runs from installing into the same folder at once."""
    if installed(app_dir):
        return 0.0
    started = time.monotonic()
    lock_file = Path(tempfile.gettempdir()) / f"dbg-bridge-npm-{hashlib.sha1(bytes(app_dir)).hexdigest()[:12]}.lock"
    with open(lock_file, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not installed(app_dir):
            cmd = ["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"]
            done = subprocess.run(cmd, check=False, cwd=app_dir, capture_output=True, text=True, timeout=timeout)
            if done.returncode != 0:
                raise RuntimeError(f"npm ci in {app_dir} failed ({done.returncode}):\n{done.stdout[-2000:]}"
                                   f"{done.stderr[-3000:]}")
    return time.monotonic() - started


class ViteApp:
    """`vite` (the dev server, HMR on) serving a copy of one app on 127.0.0.1, with the dbg client injected."""

    def __init__(self, name: str, work: Path, client_url: str, source_attributes: bool = True) -> None:
        """`source_attributes=False` runs the plugin with `sourceAttributes: false` (it only injects the client), as
        an app without our plugin's transform."""
        self.name, self.client_url = name, client_url
        self.source_attributes = source_attributes
        self.src = APPS[name]
        self.root = work / name
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = work / f"vite-{name}.log"
        self.install_s = 0.0

    def start(self, timeout: float = 60) -> ViteApp:
        self.install_s = npm_install(self.src)
        shutil.copytree(self.src, self.root, ignore=shutil.ignore_patterns("node_modules"), dirs_exist_ok=True)
        if not self.source_attributes:
            config = self.root / "vite.config.js"
            config.write_text(config.read_text().replace("dbgBridge({ bridge,", "dbgBridge({ bridge, sourceAttributes: false,"))
        # a node_modules of its own whose entries link to the installed ones: Vite's dep cache (node_modules/.vite)
        # stays private to this copy, and its path still says node_modules (so plugin-react's Babel skips it)
        modules = self.root / "node_modules"
        modules.mkdir(exist_ok=True)
        for entry in (self.src / "node_modules").iterdir():
            if entry.name not in (".vite", ".package-lock.json") and not (modules / entry.name).exists():
                # this checkout's plugin (an installed node_modules may link another checkout's)
                to = PLUGIN if entry.name == "vite-plugin-dbg-bridge" else entry
                (modules / entry.name).symlink_to(to, target_is_directory=to.is_dir())
        env = {**os.environ, "DBG_CLIENT_URL": self.client_url, "NO_COLOR": "1", "BROWSER": "none"}
        vite = str(self.src / "node_modules" / "vite" / "bin" / "vite.js")
        for _ in range(3):  # a free port can be taken between free_port() and vite's bind: try another
            self.port = free_port()
            cmd = ["node", vite, "--host", "127.0.0.1", "--port", str(self.port), "--strictPort"]
            with open(self.log, "ab") as log:
                self.proc = subprocess.Popen(cmd, cwd=self.root, env=env, stdout=log, stderr=subprocess.STDOUT,
                                             stdin=subprocess.DEVNULL, start_new_session=True)
            try:
                wait_until(lambda: self._serving() or self.proc.poll() is not None, timeout, 0.1, f"vite {self.name}")
            except BaseException:
                self.stop()  # never leave a half-started server behind
                raise
            if self.proc.poll() is None:
                return self
            self.proc.wait()
            if b"is already in use" not in self.log.read_bytes():
                break
        raise RuntimeError(f"vite for {self.name} exited with {self.proc.returncode}:\n"
                           f"{self.log.read_text(errors='replace')[-3000:]}")

    def build(self, timeout: float = 120) -> Path:
        """`vite build` of the running copy (production mode) into dist/; returns that folder."""
        vite = str(self.src / "node_modules" / "vite" / "bin" / "vite.js")
        env = {**os.environ, "DBG_CLIENT_URL": self.client_url, "NO_COLOR": "1"}
        out = subprocess.run(["node", vite, "build", "--outDir", "dist", "--emptyOutDir"], cwd=self.root, env=env,
                             capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
        if out.returncode != 0:
            raise RuntimeError(f"vite build failed:\n{out.stdout[-2000:]}\n{out.stderr[-2000:]}")
        return self.root / "dist"

    def _serving(self) -> bool:
        try:
            with urllib.request.urlopen(self.url(), timeout=2) as r:
                return r.status == 200 and self.client_url.encode() in r.read()
        except OSError:
            return False

    def url(self, path: str = "/") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def file(self, rel: str) -> Path:
        """A source file of the running copy (edit it with write() to trigger HMR)."""
        return self.root / rel

    def write(self, rel: str, text: str) -> None:
        """Replace a source file atomically: written in place (truncate, then write), Vite can read it in between
        and compile an empty module (React: 'Could not Fast Refresh (export removed)'), and HMR goes astray."""
        tmp = self.root.parent / f".{self.name}-{Path(rel).name}.tmp"
        tmp.write_text(text)
        os.replace(tmp, self.file(rel))

    def stop(self) -> None:
        if self.proc is None:
            return
        stop_group(self.proc)  # its own group: vite's esbuild child goes too
        self.proc = None
