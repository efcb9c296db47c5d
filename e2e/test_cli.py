"""The command line: help, the serve banner, token, doctor, settings errors; `dbg-bridge mcp` over stdio."""

import os
import socket
import subprocess
import sys

import pytest
from mcp import Client, StdioServerParameters

from tests.support import ROOT, free_port, run_async


def run_cli(*args: str, env: dict[str, str] | None = None, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bridge", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})})


def test_help_lists_every_command_and_settings_flags_name_their_env_variable():
    top = run_cli("--help")
    assert top.returncode == 0
    for cmd in ("serve", "mcp", "doctor", "token"):
        assert cmd in top.stdout
    serve = run_cli("serve", "--help").stdout
    assert "--port" in serve and "DBG_PORT" in serve and "--allow-origins" in serve


def test_serve_banner_prints_urls_token_and_client_configs(tmp_path, bridge_process):
    proc = bridge_process(config_dir=tmp_path)
    wait_for = proc.log.read_text()
    assert f"MCP endpoint   {proc.base}/mcp" in wait_for
    assert proc.token and proc.token in wait_for
    assert "claude mcp add --transport http dbg-bridge" in wait_for
    assert f"{proc.base}/demo" in wait_for
    assert oct((tmp_path / "token").stat().st_mode & 0o777) == "0o600"


def test_token_command_prints_the_stored_token(tmp_path):
    first = run_cli("token", env={"DBG_CONFIG_DIR": str(tmp_path)})
    second = run_cli("token", env={"DBG_CONFIG_DIR": str(tmp_path)})
    assert first.returncode == 0 and len(first.stdout.strip()) >= 32
    assert first.stdout == second.stdout == (tmp_path / "token").read_text()


def test_bad_setting_value_exits_2_naming_the_setting(tmp_path):
    out = run_cli("serve", "--port", "notaport", env={"DBG_CONFIG_DIR": str(tmp_path)})
    assert out.returncode == 2 and "port" in out.stderr


def test_no_auth_is_refused_off_loopback(tmp_path):
    out = run_cli("serve", "--host", "0.0.0.0", "--no-auth", "--port", "0", env={"DBG_CONFIG_DIR": str(tmp_path)})
    assert out.returncode == 2 and "--no-auth" in out.stderr


def test_serve_on_a_taken_port_says_how_to_fix_it(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        out = run_cli("serve", "--port", str(port), env={"DBG_CONFIG_DIR": str(tmp_path)})
        doctor = run_cli("doctor", "--port", str(port), env={"DBG_CONFIG_DIR": str(tmp_path)})
    assert out.returncode == 1 and "--port" in out.stderr
    assert doctor.returncode == 1
    assert "[FAIL] port" in doctor.stdout and "fix:" in doctor.stdout


def test_doctor_passes_on_a_free_port(tmp_path):
    out = run_cli("doctor", "--port", str(free_port()), env={"DBG_CONFIG_DIR": str(tmp_path)})
    assert out.returncode == 0, out.stdout
    assert "[ok  ] port" in out.stdout


def _stdio_page_list(port: int, config_dir: str, mode: str) -> dict:
    async def go() -> dict:
        params = StdioServerParameters(command=sys.executable, args=["-m", "bridge", "mcp", "--port", str(port)],
                                       env={**os.environ, "DBG_CONFIG_DIR": config_dir}, cwd=str(ROOT))
        async with Client(params, mode=mode) as client:
            result = await client.call_tool("page_list", {})
            assert not result.is_error
            return result.structured_content

    return run_async(go(), 60)


def test_stdio_mcp_forwards_to_the_running_bridge_in_both_protocol_eras(bridge):
    for mode in ("legacy", "auto"):
        out = _stdio_page_list(bridge.port, str(bridge.config_dir), mode)
        assert "pages" in out


def test_stdio_mcp_starts_a_bridge_when_none_answers_and_stops_it_after(tmp_path):
    port = free_port()
    out = _stdio_page_list(port, str(tmp_path), "auto")
    assert out["pages"] == [] and "No page is connected" in out["hint"]
    # the child bridge is gone: nothing listens there any more (connecting is refused at once)
    with socket.socket() as s, pytest.raises(ConnectionRefusedError):
        s.connect(("127.0.0.1", port))
