"""`dbg-bridge run` and `dbg-bridge runs` as a person types them: a client of the runs API that prints the plan and
each step live, answers a takeover from the terminal (a real pty), cancels on Ctrl+C, exits with the end state;
and starts a bridge when none answers."""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import time

from e2e.agent_fixtures import agent_bridge, api, app_page, model, site  # noqa: F401 - fixtures
from e2e.scripted_model import Req, call
from tests.support import ROOT, free_port, wait_until


def cli(*args: str, config_dir, **kw) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DBG_", "OPENAI_"))}
    return subprocess.Popen([sys.executable, "-m", "bridge", *args, "--config-dir", str(config_dir)], cwd=ROOT,
                            env=env, **kw)


def finish_quickly(req: Req):
    if req.verifying:
        return call("verdict", done=True, reason="nothing to check")
    if not req.called("plan"):
        return call("plan", steps=["look at the pages", "finish"])
    if not req.called("page_list"):
        return call("page_list")
    return call("finish", summary="looked")


def test_run_prints_the_plan_and_steps_and_exits_0_when_done(model, agent_bridge, app_page):
    model.policies["cli-done"] = finish_quickly
    p = cli("run", "Look at the pages", "--bridge", agent_bridge.base, "--model", "cli-done",
            config_dir=agent_bridge.config_dir, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 0, (out, err)
    lines = out.splitlines()
    assert lines[0].startswith("run r") and lines[0].endswith(": Look at the pages")
    assert "  1. look at the pages" in lines and "  2. finish" in lines
    assert any(line.startswith("  1. page_list") for line in lines)
    assert "DONE: looked" in out
    run_id = lines[0].split()[1].rstrip(":")
    listed = subprocess.run([sys.executable, "-m", "bridge", "runs", "--config-dir", str(agent_bridge.config_dir)],
                            capture_output=True, text=True, cwd=ROOT, timeout=30).stdout
    assert any(line.startswith(run_id) and "done" in line and line.endswith("— looked") for line in listed.splitlines())
    shown = subprocess.run([sys.executable, "-m", "bridge", "runs", "show", run_id, "--config-dir",
                            str(agent_bridge.config_dir)], capture_output=True, text=True, cwd=ROOT, timeout=30).stdout
    assert "  1. page_list" in shown and "DONE: looked" in shown


def test_run_exit_codes_name_the_end_state(model, agent_bridge, app_page):
    model.policies["cli-clarify"] = lambda req: (call("ask_clarification", question="Which one?"))
    model.policies["cli-fail"] = lambda req: call("fail", reason="cannot")
    for name, code in (("cli-clarify", 4), ("cli-fail", 1)):
        p = cli("run", "Do it", "--bridge", agent_bridge.base, "--model", name, config_dir=agent_bridge.config_dir,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out, err = p.communicate(timeout=60)
        assert p.returncode == code, (name, out, err)
    p = cli("run", "", "--bridge", agent_bridge.base, config_dir=agent_bridge.config_dir,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, _ = p.communicate(timeout=60)
    assert p.returncode == 6 and "[invalid_request] task" in out


def test_ctrl_c_cancels_the_run_and_exits_5(model, agent_bridge, app_page):
    model.policies["cli-wait"] = lambda req: call("plan", steps=["wait"]) if not req.called("plan") else \
        call("page_wait", text="never", timeout=30)
    p = cli("run", "Wait", "--bridge", agent_bridge.base, "--model", "cli-wait", config_dir=agent_bridge.config_dir,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen = []
    for line in p.stdout:
        seen.append(line)
        if "page_wait" in line:
            break
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=30)
    assert p.returncode == 5, "".join(seen) + out
    assert "cancelling (Ctrl+C)" in out and "CANCELLED:" in out


def test_takeover_is_answered_in_the_terminal(model, agent_bridge, app_page):
    def policy(req: Req):
        if req.verifying:
            return call("verdict", done=True, reason="ok")
        if not req.called("plan"):
            return call("plan", steps=["hand over"])
        if not req.called("pause_for_human"):
            return call("pause_for_human", reason="two-factor code")
        return call("finish", summary=req.last["content"])

    model.policies["cli-takeover"] = policy
    master, slave = pty.openpty()
    p = cli("run", "Sign in", "--bridge", agent_bridge.base, "--model", "cli-takeover",
            config_dir=agent_bridge.config_dir, stdin=slave, stdout=slave, stderr=slave)
    os.close(slave)
    text = b""

    def read_until(marker: bytes, timeout: float = 30) -> None:
        nonlocal text
        deadline = time.monotonic() + timeout
        while marker not in text:
            assert time.monotonic() < deadline, text.decode(errors="replace")
            ready, _, _ = select.select([master], [], [], max(0.0, deadline - time.monotonic()))
            if ready:
                try:
                    text += os.read(master, 4096)
                except OSError:
                    break

    read_until(b"takeover> ")
    assert b"The agent hands over: two-factor code" in text
    os.write(master, b"resume typed the code\n")
    read_until(b"DONE:")
    assert p.wait(30) == 0
    assert b"typed the code" in text
    os.close(master)


def test_run_starts_a_bridge_when_none_answers_and_stops_it_after(model, tmp_path):
    model.policies["cli-own"] = lambda req: (call("verdict", done=True, reason="ok") if req.verifying else
                                             call("plan", steps=["nothing"]) if not req.called("plan") else
                                             call("finish", summary="nothing to do"))
    port = free_port()
    p = cli("run", "Nothing", "--port", str(port), "--model-url", model.url, "--model", "cli-own",
            config_dir=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = p.communicate(timeout=90)
    assert p.returncode == 0, (out, err)
    assert f"no bridge answers at http://127.0.0.1:{port}; starting one" in err
    assert "DONE: nothing to do" in out
    import httpx

    def refused() -> bool:
        try:
            httpx.get(f"http://127.0.0.1:{port}/bridge/health", timeout=1)
        except httpx.TransportError:
            return True
        return False

    wait_until(refused, 15, what="the bridge run started to stop")


def test_doctor_says_whether_the_model_answers_and_what_a_run_gets(model, tmp_path):
    model.policies.setdefault("cli-doctor", finish_quickly)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DBG_", "OPENAI_"))}
    out = subprocess.run([sys.executable, "-m", "bridge", "doctor", "--port", str(free_port()), "--config-dir",
                          str(tmp_path)], capture_output=True, text=True, cwd=ROOT, timeout=60,
                         env={**env, "OPENAI_BASE_URL": model.url}).stdout
    line = [ln for ln in out.splitlines() if ln.startswith("[ok  ] model")]
    assert line and f"{model.url} answers (models:" in line[0], out
    assert any(ln.startswith("[ok  ] run tools") and "page (" in ln and "inbox (1)" in ln for ln in out.splitlines())
    out = subprocess.run([sys.executable, "-m", "bridge", "doctor", "--port", str(free_port()), "--config-dir",
                          str(tmp_path)], capture_output=True, text=True, cwd=ROOT, timeout=60, env=env).stdout
    assert "[warn] model          no model endpoint set" in out


def test_run_gives_its_own_model_to_a_bridge_started_without_one_on_any_port(model, bridge_process, tmp_path):
    """The bridge was started with no model on a free port; `run --model-url/--model/--model-key` (and
    OPENAI_BASE_URL / OPENAI_API_KEY) find it through the config dir and the run asks that model with that key,
    which lands in no trace and no audit."""
    model.policies["per-run"] = lambda req: (call("verdict", done=True, reason="ok") if req.verifying else
                                             call("plan", steps=["nothing"]) if not req.called("plan") else
                                             call("finish", summary="nothing to do"))
    bridge = bridge_process()
    assert bridge.port != 7878
    secret = "sk-per-run-" + str(time.monotonic_ns())
    p = cli("run", "Nothing", "--model-url", model.url, "--model", "per-run", "--model-key", secret,
            config_dir=bridge.config_dir, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 0, (out, err)
    assert f"using the bridge at {bridge.base} (recorded in {bridge.config_dir / 'running.json'})" in err
    assert f"model per-run at {model.url}" in out and "DONE: nothing to do" in out
    asked = model.requests["per-run"]
    assert asked and all(r.headers.get("authorization") == f"Bearer {secret}" for r in asked)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DBG_", "OPENAI_"))}
    p = subprocess.run([sys.executable, "-m", "bridge", "run", "Nothing", "--model", "per-run", "--config-dir",
                        str(bridge.config_dir)], cwd=ROOT, capture_output=True, text=True, timeout=60,
                       env={**env, "OPENAI_BASE_URL": model.url, "OPENAI_API_KEY": secret + "-env"})
    assert p.returncode == 0, (p.stdout, p.stderr)
    assert model.requests["per-run"][-1].headers.get("authorization") == f"Bearer {secret}-env"
    for path in [*(bridge.config_dir / "runs").glob("*.jsonl"), bridge.config_dir / "audit.jsonl",
                 bridge.config_dir / "bridge.log"]:
        if path.exists():
            assert secret not in path.read_text(), path


def test_run_says_the_model_is_still_working_while_a_call_is_slow(model, agent_bridge, app_page):
    def slow(req: Req):
        if len(model.requests["cli-slow"]) == 1:
            time.sleep(11)  # the model server thinking (its own thread): the run waits on the HTTP answer
        return finish_quickly(req)

    model.policies["cli-slow"] = slow
    p = cli("run", "Look at the pages", "--bridge", agent_bridge.base, "--model", "cli-slow",
            config_dir=agent_bridge.config_dir, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = p.communicate(timeout=90)
    assert p.returncode == 0, (out, err)
    beats = [ln.strip() for ln in out.splitlines() if "the model is still working" in ln]
    assert beats[:2] == ["… the model is still working (planning, call 1): 5 s",
                         "… the model is still working (planning, call 1): 10 s"], out
    assert out.index("still working") < out.index("plan (batch 1)")


def test_run_allow_at_the_terminal_grants_what_the_human_typed_and_the_token_alone_cannot(model, agent_bridge,
                                                                                          app_page, tmp_path):
    model.policies["cli-allow"] = finish_quickly
    p = cli("run", "Look at the pages", "--bridge", agent_bridge.base, "--model", "cli-allow", "--allow", "eval,navigate",
            config_dir=agent_bridge.config_dir, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 0, (out, err)
    assert "allowed without asking: eval, navigate" in out
    # the same command with the MCP token but not the human key (another user, an agent with the token file)
    (tmp_path / "token").write_text((agent_bridge.config_dir / "token").read_text())
    p = cli("run", "Look at the pages", "--bridge", agent_bridge.base, "--model", "cli-allow", "--allow", "eval",
            config_dir=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 6, (out, err)
    assert "[human_only]" in out and "dbg-bridge run --allow" in out
