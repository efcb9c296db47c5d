"""Other MCP servers merged into runs: @modelcontextprotocol/server-everything from npm (nobody here wrote it,
pinned in e2e/apps/mcp-server-everything, run on Node 22) over stdio, its tools namespaced everything__*; a server
that cannot start is skipped with a logged reason; the server stops with the bridge."""

from __future__ import annotations

from pathlib import Path

import pytest

from e2e.agent_fixtures import model  # noqa: F401 - fixtures
from e2e.runs_api import RunsApi, done, of
from e2e.scripted_model import Req, call
from tests.support import ROOT, BridgeProcess, Bridges, wait_until

NODE = ROOT / ".tools/conformance/node_modules/.bin/node"
EVERYTHING = ROOT / "e2e/apps/mcp-server-everything/node_modules/@modelcontextprotocol/server-everything/dist/index.js"


def server_pids() -> list[int]:
    out = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if str(EVERYTHING).encode() in (proc / "cmdline").read_bytes():
                    out.append(int(proc.name))
            except OSError:
                continue
    return out


@pytest.fixture(scope="module")
def mcp_bridge(module_bridge_process: Bridges, tmp_path_factory, model) -> BridgeProcess:
    assert NODE.exists() and EVERYTHING.exists(), "run ./scripts/test.sh once: it installs Node 22 and the e2e apps"
    config_dir = tmp_path_factory.mktemp("agent-mcp")
    (config_dir / "config.toml").write_text(
        f'[mcp_servers.everything]\ncommand = "{NODE}"\nargs = ["{EVERYTHING}", "stdio"]\ntimeout = 20\n\n'
        '[mcp_servers.broken]\ncommand = "/bin/false"\n')
    return module_bridge_process(config_dir=config_dir, env={"DBG_MODEL_URL": model.url})


def test_a_run_calls_a_tool_of_an_npm_mcp_server_and_the_server_stops_with_the_bridge(model, mcp_bridge):
    def policy(req: Req):
        if req.verifying:
            return call("verdict", done="is 5" in req.text(), reason="the sum came back")
        if not req.called("plan"):
            return call("plan", steps=["add 2 and 3 with the everything server"])
        if not req.called("everything__get-sum"):
            return call("everything__get-sum", a="2", b=3)
        return call("finish", summary="2 + 3 = 5")

    model.policies["everything"] = policy
    api = RunsApi(mcp_bridge.base, mcp_bridge.token)
    try:
        _, events = api.run("Add 2 and 3", model="everything")
    finally:
        api.close()
    offered = model.requests["everything"][1].tools
    assert "everything__echo" in offered and "everything__get-sum" in offered
    assert not any(t.startswith("broken__") for t in offered)
    result = of(events, "tool_result")[0]
    assert result["tool"] == "everything__get-sum" and result["ok"] is True
    assert result["coerced"] == ['coerced a "2" → 2'] and "5" in result["text"]
    assert done(events)["state"] == "done"
    log = mcp_bridge.log.read_text()
    assert "MCP server broken skipped" in log and "MCP server everything ready" in log
    pids = server_pids()
    assert pids, "the everything server runs while the bridge does"
    mcp_bridge.stop()
    wait_until(lambda: not any(Path(f"/proc/{p}").exists() for p in pids), 15, what="the MCP server to stop")


def test_a_run_calls_a_tool_of_an_mcp_server_over_http(model, tmp_path, bridge_process):
    import socket
    import subprocess

    from tests.support import free_port, stop_group

    port = free_port()
    server = subprocess.Popen([str(NODE), str(EVERYTHING), "streamableHttp"], env={"PORT": str(port), "PATH": "/usr/bin:/bin"},
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)

    def listening() -> bool:
        with socket.socket() as s:
            return s.connect_ex(("127.0.0.1", port)) == 0

    try:
        wait_until(listening, 20, what="the everything server to listen")
        (tmp_path / "config.toml").write_text(f'[mcp_servers.web]\nurl = "http://127.0.0.1:{port}/mcp"\ntimeout = 10\n')
        bridge = bridge_process(config_dir=tmp_path, env={"DBG_MODEL_URL": model.url})
        model.policies["web"] = lambda req: (
            call("verdict", done=True, reason="echoed") if req.verifying else
            call("plan", steps=["echo"]) if not req.called("plan") else
            call("web__echo", message="hello over http") if not req.called("web__echo") else
            call("finish", summary="echoed"))
        api = RunsApi(bridge.base, bridge.token)
        try:
            _, events = api.run("Echo hello", model="web")
        finally:
            api.close()
        result = of(events, "tool_result")[0]
        assert result["tool"] == "web__echo" and result["ok"] and "hello over http" in result["text"]
        assert done(events)["state"] == "done"
    finally:
        stop_group(server)
