"""A model in one documented command: `./scripts/model.sh` (docs/runs.md) starts the local model server the test
command builds (.tools/llama: llama-cpp-python's server, SmolLM2-135M), and `dbg-bridge doctor --model-url` flags
one started with llama-cpp-python's default 2,048-token context (a run's first request does not fit; the fix names
the flag) and passes the 8,192-token one the command starts by default."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest

from tests.support import ROOT, free_port, stop_group, wait_until


@contextmanager
def model_server(tmp_path, *flags: str) -> Iterator[str]:
    """`./scripts/model.sh --port P FLAGS…` as docs/runs.md prints it; its /v1 URL once it answers."""
    assert (ROOT / ".tools/llama/bin/python").exists(), "run ./scripts/test.sh (it builds .tools/llama once)"
    port = free_port()
    log = open(tmp_path / f"model-{port}.log", "wb")  # noqa: SIM115
    proc = subprocess.Popen([str(ROOT / "scripts/model.sh"), "--port", str(port), *flags], cwd=ROOT, stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}/v1"

    def answers() -> bool:
        assert proc.poll() is None, f"model.sh exited with {proc.returncode}: see {log.name}"
        try:
            return httpx.get(url + "/models", timeout=2).status_code == 200
        except httpx.TransportError:
            return False

    try:
        wait_until(answers, 180, 0.5, what="scripts/model.sh's server to answer")
        printed = (tmp_path / f"model-{port}.log").read_text()
        assert f"run with:  ./.venv/bin/dbg-bridge run --model-url {url} --model smollm2" in printed, printed
        yield url
    finally:
        stop_group(proc)
        log.close()


def doctor(url: str, config_dir) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DBG_", "OPENAI_"))}
    proc = subprocess.run([sys.executable, "-m", "bridge", "doctor", "--port", str(free_port()), "--config-dir",
                           str(config_dir), "--model-url", url], capture_output=True, text=True, cwd=ROOT, env=env,
                          timeout=300)
    return proc.stdout


@pytest.mark.timeout(900)
def test_doctor_flags_a_2048_token_model_server_and_passes_the_documented_one(tmp_path):
    with model_server(tmp_path, "--ctx", "2048") as url:
        out = doctor(url, tmp_path)
    line = next((ln for ln in out.splitlines() if "] context" in ln), "")
    assert line.startswith("[warn] context") and "context window 2048 tokens" in line and "too small" in line, out
    assert "fix: Restart the model server with a context of at least 8192 tokens (./scripts/model.sh --ctx 8192" \
        in out
    with model_server(tmp_path) as url:
        out = doctor(url, tmp_path)
    line = next((ln for ln in out.splitlines() if "] context" in ln), "")
    assert line.startswith("[ok  ] context") and "has room for a run" in line, out
    assert any(ln.startswith(("[ok  ] tool calling", "[warn] tool calling")) for ln in out.splitlines()), out
