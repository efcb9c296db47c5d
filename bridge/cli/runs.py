"""`dbg-bridge run "TASK"` and `dbg-bridge runs [show ID]`: a client of the runs API. `run` starts a bridge when
none answers (as `dbg-bridge mcp` does; it stops with this command), prints the plan and each step as they
happen, answers a takeover from the terminal, cancels on Ctrl+C, and exits with the run's end state."""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path
from typing import Any, TextIO

import httpx

from bridge.runs import trace as traces
from bridge.settings import RUN_BUDGETS, Settings

#: The exit code of each end state (0 only for done); 6: no run started (bridge or model not reachable, bad input).
EXIT = {"done": 0, "failed": 1, "blocked": 3, "needs_clarification": 4, "cancelled": 5}
NOT_STARTED = 6
#: Budget settings a `run` flag overrides for that run only (Settings field -> budgets key).
BUDGET_FLAGS = {b.setting: b.request for b in RUN_BUDGETS}


def _short(value: Any, limit: int = 160) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def describe(e: dict[str, Any]) -> str | None:
    """One event as a terminal line (None: not shown)."""
    kind = e["type"]
    if kind == "run_start":
        allow = f"; allowed without asking: {', '.join(e['allow'])}" if e.get("allow") else ""
        at = f" at {e['endpoint']}" if e.get("endpoint") else ""
        return (f"run {e['run']}: {e['task']}\n  model {e.get('model')}{at}{' (dry run)' if e.get('dryrun') else ''}"
                f"{allow}\n  trace {e.get('trace')}")
    if kind == "plan_created":
        why = ", the model revised it" if e.get("why") == "the model revised its plan" else ""
        return (f"plan (batch {e.get('batch')}{why}):\n"
                + "\n".join("  " + line for line in e["text"].splitlines()))
    if kind == "model_wait":
        streamed = f", {e['received']} characters streamed" if e.get("received") is not None else ""
        return f"  … the model is still working ({e.get('phase')}, call {e.get('n')}): {e.get('seconds')} s{streamed}"
    if kind == "stop_conditions":
        return "  stop conditions now: " + "; ".join(f"{c['kind']} {c['value']!r}" for c in e.get("conditions") or [])
    if kind == "state_change":
        return f"[{e['to']}]" + (f" {e['why']}" if e.get("why") else "")
    if kind == "tool_call":
        step = f"{e['step']}." if e.get("step") else "check"
        return f"  {step} {e['tool']} {_short(e.get('args') or {}, 120)}"
    if kind == "tool_result":
        coerced = f" ({'; '.join(e['coerced'])})" if e.get("coerced") else ""
        return f"     {'ok' if e['ok'] else 'error'} {e.get('ms', 0):.0f} ms{coerced}: {_short(e.get('text', ''))}"
    if kind == "message":
        return f"  model: {_short(e['text'], 300)}"
    if kind in ("nudge", "budget_warning"):
        return f"  ! {kind}: {_short({k: v for k, v in e.items() if k not in ('seq', 't', 'run', 'type')})}"
    if kind == "verification":
        checks = "; ".join(f"{c['kind']} {c['value']!r} {'met' if c['met'] else 'NOT met'}" for c in e["checks"])
        return f"  {'final check on the page now' if e.get('final') else 'stop conditions'}: {checks or 'none given'}"
    if kind == "verdict":
        return f"  verdict: {'done' if e['done'] else 'not done'} — {_short(e.get('reason', ''))}"
    if kind == "human":
        if e["event"] == "pause":
            t = e["takeover"]
            return (f"\n== The agent hands over: {t['reason']}" + (f" — {t['question']}" if t.get("question") else "")
                    + "\n   Answer here (resume / skip / abort, then an optional note), in the page or the cockpit.")
        return f"  human: {e['action']} via {e['via']}" + (f" — {e['note']}" if e.get("note") else "")
    if kind == "run_done":
        totals = e.get("totals") or {}
        return (f"\n{e['state'].upper()}: {e['summary']}\n  {totals.get('steps', 0)} steps, {totals.get('model_calls', 0)}"
                f" model calls, {totals.get('prompt_tokens', 0)}+{totals.get('completion_tokens', 0)} tokens, "
                f"{e.get('seconds', 0)} s")
    return None


class RunClient:
    def __init__(self, base: str, token: str | None, out: TextIO = sys.stdout,
                 human: dict[str, str] | None = None) -> None:
        self.base, self.out = base, out
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        headers.update(human or {})  # the human key: this terminal is the human's (bridge/server/principals.py)
        self.http = httpx.Client(base_url=base, headers=headers, timeout=30)

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def start(self, body: dict[str, Any]) -> str | None:
        r = self.http.post("/v1/runs", json=body)
        if r.status_code != 201:
            try:
                err = r.json()["error"]
                self.say(f"dbg-bridge run: [{err['code']}] {err['message']}")
            except (ValueError, KeyError):
                self.say(f"dbg-bridge run: the bridge answered HTTP {r.status_code}: {r.text[:300]}")
            return None
        return str(r.json()["id"])

    def follow(self, run_id: str, terminal: bool) -> str:
        """Print the run's events until run_done; the end state."""
        last, state = 0, "failed"
        while True:
            try:
                with self.http.stream("GET", f"/v1/runs/{run_id}/events", headers={"Last-Event-ID": str(last)},
                                      timeout=httpx.Timeout(None, connect=10)) as r:
                    for line in r.iter_lines():
                        if not line.startswith("data:"):
                            continue
                        e = json.loads(line[5:])
                        last = e["seq"]
                        shown = describe(e)
                        if shown:
                            self.say(shown)
                        if e["type"] == "human" and e["event"] == "pause" and terminal:
                            self._ask(run_id, e["takeover"]["id"])
                        if e["type"] == "run_done":
                            return str(e["state"])
            except httpx.TransportError as exc:
                self.say(f"(lost the event stream: {exc}; reconnecting)")
                time.sleep(1)

    def _ask(self, run_id: str, takeover_id: str) -> None:
        def read() -> None:
            try:
                line = input("takeover> ").strip()
            except EOFError:
                return
            action, _, note = line.partition(" ")
            action = {"r": "resume", "s": "skip", "a": "abort"}.get(action.lower(), action.lower() or "resume")
            r = self.http.post(f"/v1/runs/{run_id}/resume", json={"action": action, "note": note.strip(),
                                                                 "takeoverId": takeover_id})
            if r.status_code != 200:
                self.say(f"  ({r.json().get('error', {}).get('message', r.text)})")

        threading.Thread(target=read, daemon=True, name="takeover prompt").start()

    def cancel(self, run_id: str) -> None:
        self.http.post(f"/v1/runs/{run_id}/cancel")


def find_bridge(settings: Settings, bridge: str | None, port_given: bool) -> tuple[str, str | None]:
    """The bridge a run uses: (base URL, how it was found; None: nothing answers there). --bridge as given; else
    the configured host:port; else the bridge this config dir's `serve` recorded (any port: bridge/server/running.py)."""
    from bridge.cli.stdio_proxy import bridge_answers
    from bridge.server import running

    if bridge:
        base = bridge.rstrip("/")
        return base, ("--bridge" if bridge_answers(base) else None)
    base = settings.base_url().rstrip("/")
    if bridge_answers(base):
        return base, f"{settings.host}:{settings.port}"
    recorded = running.url(settings)
    if recorded and not port_given and bridge_answers(recorded.rstrip("/")):
        return recorded.rstrip("/"), f"recorded in {running.path(settings)}"
    return base, None


def run_command(settings: Settings, task: str, bridge: str | None, body: dict[str, Any],
                save_skill: str | None = None, port_given: bool = False) -> int:
    from bridge.server.security import load_or_create_token
    from bridge.cli.stdio_proxy import start_bridge

    base, found = find_bridge(settings, bridge, port_given)
    child = None
    if found is not None:
        print(f"using the bridge at {base} ({found})", file=sys.stderr)
    else:
        if bridge:
            print(f"dbg-bridge run: no dbg-bridge answers at {base}.", file=sys.stderr)
            return NOT_STARTED
        print(f"no bridge answers at {base}; starting one (it stops when this run ends)", file=sys.stderr)
        try:
            child = start_bridge(settings, *_model_flags(settings))
        except (RuntimeError, OSError) as exc:
            print(f"dbg-bridge run: could not start the bridge: {exc}. Run `dbg-bridge doctor`.", file=sys.stderr)
            return NOT_STARTED
    from bridge.server.principals import terminal_headers

    token = None if settings.no_auth else load_or_create_token(settings)
    human = terminal_headers(settings.config_dir)
    client = RunClient(base, token, human=human)
    try:
        run_id = client.start({"task": task, **body})
        if run_id is None:
            return NOT_STARTED
        try:
            state = client.follow(run_id, terminal=sys.stdin.isatty())
        except KeyboardInterrupt:
            client.say("\ncancelling (Ctrl+C)…")
            client.cancel(run_id)
            state = client.follow(run_id, terminal=False)
        if save_skill and state == "done":  # --save-skill: the run's successful steps as a skill
            from bridge.cli.skills import save_from_run

            if save_from_run(base, token, save_skill, run_id, human) != 0:
                return 1
        return EXIT.get(state, 1)
    finally:
        if child is not None:
            child.terminate()
            try:
                child.wait(10)
            except Exception:  # noqa: BLE001 - the child is killed either way
                child.kill()
                child.wait(5)


def _model_flags(settings: Settings) -> list[str]:
    """The model settings this command was given, for a bridge it starts."""
    out = []
    for name in ("model_url", "model", "model_key", "model_timeout", "model_retries"):
        value = getattr(settings, name)
        if value is not None and value != Settings.model_fields[name].default:
            out += ["--" + name.replace("_", "-"), str(value)]
    if settings.model_stream:
        out.append("--model-stream")
    return out


def runs_command(config_dir: Path, show: str | None) -> int:
    if show is None:
        rows = traces.history(config_dir, 100)
        if not rows:
            print(f"no runs yet (traces live in {traces.runs_dir(config_dir)})")
        for r in rows:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(r["created"] or 0))
            why = f"  — {_short(r['summary'], 100)}" if r.get("summary") else ""
            print(f"{r['id']}  {when}  {r['state']:<20} {_short(r['task'], 80)}{why}")
        return 0
    path = traces.runs_dir(config_dir) / f"{show}.jsonl"
    if not path.is_file():
        print(f"dbg-bridge runs: no trace {path}. `dbg-bridge runs` lists them.", file=sys.stderr)
        return 1
    for e in traces.read(path):
        shown = describe(e)
        if shown:
            print(shown)
    return 0
