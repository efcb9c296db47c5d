"""tests/support.py BridgeProcess, the e2e tier's bridge child: one that does not come up in time is stopped and
reaped before start raises, so no test leaves it running."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import BridgeProcess, Bridges

#: A "bridge" that never writes its ready file (the serve arguments land in its sys.argv).
SILENT = [sys.executable, "-c", "import time; time.sleep(120)"]


def reaped(pid: int) -> bool:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True  # not our child any more: waited for already
    return False


def test_a_bridge_that_does_not_come_up_in_time_is_stopped_and_reaped_before_start_raises(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    proc = BridgeProcess(tmp_path, command=SILENT, start_timeout=0.5)
    spawned: list[subprocess.Popen[bytes]] = []
    real_popen = subprocess.Popen

    def keep(*args, **kwargs):
        spawned.append(real_popen(*args, **kwargs))
        return spawned[-1]

    monkeypatch.setattr(subprocess, "Popen", keep)
    with pytest.raises(RuntimeError, match=r"did not start within 0.5 s; it was stopped"):
        proc.start()
    assert proc.proc is None
    assert spawned[0].returncode is not None and reaped(spawned[0].pid)


def test_the_factory_stops_and_reaps_every_bridge_it_started(tmp_path_factory: pytest.TempPathFactory):
    class Fake:
        def __init__(self, config_dir: Path, *extra: str, **options: object) -> None:
            self.config_dir, self.extra, self.options, self.state = config_dir, extra, options, "new"

        def start(self) -> "Fake":
            self.state = "started"
            return self

        def stop(self) -> None:
            self.state = "stopped"

    bridges = Bridges(tmp_path_factory, Fake)
    a, b = bridges("--flag", name="a", env={"X": "1"}), bridges(name="b")
    assert (a.state, a.extra, a.options) == ("started", ("--flag",), {"env": {"X": "1"}})
    assert a.config_dir.name.startswith("a") and b.config_dir != a.config_dir
    bridges.stop_all()
    assert (a.state, b.state, bridges.started) == ("stopped", "stopped", [])
