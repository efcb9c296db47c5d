"""A newcomer's first minutes: command 1 (`./scripts/run.sh`) on a clean copy of the checkout, then every command
its banner prints, run exactly as printed (no PATH entry, no DBG_* variable)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sysconfig
import threading
from pathlib import Path

import httpx
import pytest
from mcp import Client, StdioServerParameters

from tests.support import ROOT, free_port, run_async, stop_group


def clean_copy(dest: Path) -> Path:
    """The checkout's files (tracked, or new and not ignored) without .venv, node_modules or build output."""
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, capture_output=True,
                           check=True).stdout.decode().split("\0")
    for rel in filter(None, files):
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            (dest / rel).write_bytes(src.read_bytes())
            (dest / rel).chmod(src.stat().st_mode)
    return dest


@pytest.fixture(scope="module")
def first_run(tmp_path_factory: pytest.TempPathFactory):
    """Command 1 on a clean copy, with its own config dir and a free port; yields (copy, banner, process).

    The copy's .venv is created here the way run.sh would, plus one path entry to this test venv's packages, so
    run.sh's `pip install -e .` finds the dependencies installed and downloads nothing but its build backend."""
    copy = clean_copy(tmp_path_factory.mktemp("clone"))
    config = tmp_path_factory.mktemp("config")
    subprocess.run(["python3", "-m", "venv", str(copy / ".venv")], check=True, timeout=120)
    site = subprocess.run([str(copy / ".venv/bin/python"), "-c", "import sysconfig;print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    Path(site, "_test_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("DBG_")}
    env["PATH"] = "/usr/bin:/bin"  # no dbg-bridge on PATH, as after a fresh clone
    proc = subprocess.Popen([str(copy / "scripts/run.sh"), "--port", "0", "--config-dir", str(config), "--no-audit"],
                            cwd=copy, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    lines: list[str] = []
    done = threading.Event()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            if line.startswith("Press Ctrl+C"):
                done.set()
        done.set()

    threading.Thread(target=read, daemon=True).start()
    try:
        assert done.wait(300), "run.sh printed no banner within 300 s:\n" + "".join(lines)
        banner = "".join(lines)
        assert proc.poll() is None, banner
        yield copy, banner, env
    finally:
        stop_group(proc)


def printed(banner: str, label: str) -> str:
    m = re.search(rf"^{re.escape(label)}\s*(.+)$", banner, re.M)
    assert m, f"no {label!r} line in:\n{banner}"
    return m.group(1).strip()


def test_the_banner_names_the_cockpit_and_an_install_path_that_works_without_path(first_run):
    copy, banner, _ = first_run
    base = re.search(r"listening on (\S+)", banner).group(1)  # type: ignore[union-attr]
    assert printed(banner, "  Cockpit") == base + "/"
    assert httpx.get(base + "/", timeout=10).status_code == 200
    assert printed(banner, "  stdio clients").startswith(shlex.quote(str((copy / ".venv/bin/dbg-bridge").resolve())))
    assert "dbg-bridge mcp" not in banner.replace("/.venv/bin/dbg-bridge mcp", "")  # never the bare name


def test_the_printed_token_command_prints_the_printed_token(first_run):
    _, banner, env = first_run
    token = printed(banner, "  Access token")
    out = subprocess.run(printed(banner, "The token again:"), shell=True, env=env, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == token
    claude = printed(banner, "  Claude Code")
    assert claude.startswith("claude mcp add --transport http dbg-bridge ") and f"Bearer {token}" in claude


def test_the_printed_doctor_command_runs_and_finds_this_bridge(first_run):
    _, banner, env = first_run
    out = subprocess.run(printed(banner, "Check this machine:"), shell=True, env=env, capture_output=True, text=True,
                         timeout=120)
    assert "[ok  ] port" in out.stdout and "a dbg-bridge already answers" in out.stdout, out.stdout + out.stderr



def test_doctor_without_a_port_finds_the_bridge_started_with_port_0_through_its_running_file(first_run):
    """The printed doctor line carries --port; a user who types `doctor` with the same config dir and another port
    (the default 7878, here a free one: 7878 may be another bridge's) is told where the --port 0 bridge runs
    (running.json), and the plugins' line to point at it."""
    copy, banner, env = first_run
    base = re.search(r"listening on (\S+)", banner).group(1)  # type: ignore[union-attr]
    argv = shlex.split(printed(banner, "Check this machine:"))
    config = argv[argv.index("--config-dir") + 1]
    out = subprocess.run([str(copy / ".venv/bin/dbg-bridge"), "doctor", "--config-dir", config, "--port", str(free_port())],
                         env=env, capture_output=True, text=True, timeout=120)
    assert f"a dbg-bridge answers at {base} (started with another --port" in out.stdout, out.stdout + out.stderr
    assert f"DBG_BRIDGE_URL={base}" in out.stdout

def test_the_printed_stdio_command_serves_mcp_through_the_running_bridge(first_run):
    _, banner, env = first_run
    argv = shlex.split(printed(banner, "  stdio clients"))

    async def go() -> set[str]:
        async with Client(StdioServerParameters(command=argv[0], args=argv[1:], env=env)) as client:
            return {t.name for t in (await client.list_tools()).tools}

    assert "page_list" in run_async(go(), timeout=120)


def test_the_printed_vite_plugin_command_packs_the_plugin_from_the_clean_copy(first_run, tmp_path):
    copy, banner, env = first_run
    base = re.search(r"listening on (\S+)", banner).group(1)  # type: ignore[union-attr]
    assert printed(banner, "  Plugins").startswith(f"DBG_BRIDGE_URL={base} ")  # --port 0: how to point the plugins
    line = printed(banner, "  Vite plugin")
    assert line.startswith('npm i -D "$(') and "dbg-bridge plugin vite" in line, line
    inner = re.search(r'"\$\((.+?)\)"', line).group(1)  # type: ignore[union-attr]
    assert inner.startswith(shlex.quote(str((copy / ".venv/bin/dbg-bridge").resolve()))), inner
    out = subprocess.run(inner, shell=True, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert Path(out.stdout.strip()) == tmp_path / "vite-plugin-dbg-bridge-0.1.0.tgz" and Path(out.stdout.strip()).is_file()
