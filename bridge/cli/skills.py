"""`dbg-bridge record | skill | memory`: clients of the running bridge's /v1 API (the skills of a cluster live in
its Redis; a recording needs the bridge that sees the tab). `skill list|show|delete|edit` and `memory` read the
config dir directly when no bridge answers."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shlex
import subprocess
import sys
import tempfile
from typing import Any

import httpx

from bridge.errors import BridgeError
from bridge.settings import Settings

CONNECT = ("host", "port", "config_dir", "token", "no_auth")


class ApiError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"[{code}] {message}")
        self.code = code


class NoBridge(Exception):
    pass


def add_parsers(sub: Any, add_flags: Any) -> None:
    rec = sub.add_parser("record", help="Record what you do in a tab as a skill.",
                         description="Record what you do in one tab (and its same-origin frames) until Ctrl+C or "
                                     "Stop in the page's panel, then save it as a skill (dbg-bridge skill show NAME).")
    rec.add_argument("name", help="The skill's name (letters, digits, . _ -).")
    rec.add_argument("--page", default=None, help="The tab's pageId (page_list; default: the only tab).")
    rec.add_argument("--desktop", action="store_true", help="Record the desktop (the human's input on it) instead "
                                                         "of a tab.")
    rec.add_argument("--until", default=None, help="Text on the page at the end that shows it worked (asked at "
                                                   "Ctrl+C when not given and a terminal is there).")
    rec.add_argument("--overwrite", action="store_true", help="Replace the skill of that name if there is one.")
    rec.add_argument("--confirm-origin", action="append", default=[], metavar="ORIGIN",
                     help="Another origin (http(s)://host:port) the skill's goto steps may go to; without it a skill "
                          "goes only to pages of the tab's own origin.")
    add_flags(rec, set(CONNECT), "mcp")
    sk = sub.add_parser("skill", help="List, show, run, edit or delete skills.",
                        description="Skills recorded on this bridge (config dir, or Redis with --cluster).")
    ssub = sk.add_subparsers(dest="skill_cmd", metavar="ACTION", required=True)
    for name, help_ in (("list", "List skills."), ("show", "Print one skill."), ("delete", "Delete a skill."),
                        ("edit", "Edit a skill in $EDITOR (checked before it is saved)."),
                        ("run", "Replay a skill without a model.")):
        p = ssub.add_parser(name, help=help_, description=help_)
        if name != "list":
            p.add_argument("name")
        if name == "run":
            p.add_argument("--param", action="append", default=[], metavar="K=V", help="A parameter's value "
                                                                                        "(repeatable).")
            p.add_argument("--page", default=None, help="The pageId to run it in (default: the only tab).")
        add_flags(p, set(CONNECT), "mcp")
    mem = sub.add_parser("memory", help="What runs learned per origin/app: list or forget facts.",
                         description="Facts learned from runs: affordance (worked) and avoid.")
    msub = mem.add_subparsers(dest="memory_cmd", metavar="ACTION", required=True)
    ml = msub.add_parser("list", help="List facts (of one origin or app).", description="List facts.")
    ml.add_argument("origin", nargs="?", default=None)
    add_flags(ml, set(CONNECT), "mcp")
    mf = msub.add_parser("forget", help="Delete a fact by id.", description="Delete a fact by id.")
    mf.add_argument("id")
    add_flags(mf, set(CONNECT), "mcp")


class Api:
    def __init__(self, settings: Settings) -> None:
        from bridge.server.principals import terminal_headers
        from bridge.server.security import load_or_create_token

        self.base = settings.base_url()
        headers = {} if settings.no_auth else {"Authorization": f"Bearer {load_or_create_token(settings)}"}
        headers.update(terminal_headers(settings.config_dir))  # the human at their terminal (bridge/server/principals.py)
        self.http = httpx.Client(base_url=self.base, headers=headers, timeout=httpx.Timeout(10, read=120))

    def call(self, method: str, path: str, body: Any = None, **params: Any) -> Any:
        try:
            r = self.http.request(method, path, json=body, params={k: v for k, v in params.items() if v is not None})
        except httpx.ConnectError:
            raise NoBridge(f"No bridge answers at {self.base}: start one with `dbg-bridge serve`.") from None
        data = r.json() if r.headers.get("content-type", "").startswith("application/json") else {}
        if r.status_code >= 400:
            err = data.get("error", {}) if isinstance(data, dict) else {}
            raise ApiError(err.get("code", f"http_{r.status_code}"), err.get("message", r.text[:300]))
        return data


def main(cmd: str, args: argparse.Namespace, settings: Settings) -> int:
    api = Api(settings)
    try:
        if cmd == "record":
            return record(api, args)
        if cmd == "skill":
            return skill(api, args, settings)
        return memory(api, args, settings)
    except ApiError as exc:
        print(f"dbg-bridge: {exc}", file=sys.stderr)
        return 1
    except NoBridge as exc:
        print(f"dbg-bridge: [no_bridge] {exc}", file=sys.stderr)
        return 1
    except BridgeError as exc:  # from the config dir, when no bridge answered
        print(f"dbg-bridge: {exc}", file=sys.stderr)
        return 1


def record(api: Api, args: argparse.Namespace) -> int:
    if args.desktop:
        return record_desktop(api, args)
    rec = api.call("POST", "/v1/recordings", {"name": args.name, "pageId": args.page, "overwrite": args.overwrite})
    print(f"Recording {args.name!r} in tab {rec['pageId']}. Act in the page; press Ctrl+C here (or Stop in the "
          "page's panel) to finish.", flush=True)
    seen = 0
    try:
        while rec["state"] == "recording":
            rec = api.call("GET", f"/v1/recordings/{args.name}", since=seen, wait=20)
            for line in rec["recent"]:
                seen += 1
                print(f"  {seen:>3}. {line}", flush=True)
    except KeyboardInterrupt:
        until = args.until
        if until is None and sys.stdin.isatty():
            try:
                until = input("\nWhat shows it worked? Text on the page at the end (Enter for none): ").strip() or None
            except (EOFError, KeyboardInterrupt):
                until = None
        rec = api.call("POST", f"/v1/recordings/{args.name}/stop", {"until": {"text": until} if until else None,
                                                                    "confirmOrigins": args.confirm_origin})
    if rec["state"] != "saved":
        error = rec.get("error", "the recording was not saved")
        print(f"dbg-bridge: {error if error.startswith('[') else '[nothing_recorded] ' + error}", file=sys.stderr)
        return 1
    s = rec["skill"]
    print(f"Saved skill {s['name']!r} (revision {s['revision']}, {s['steps']} steps, params "
          f"{', '.join(s['params']) or 'none'}). Run it: dbg-bridge skill run {s['name']}"
          + "".join(f" --param {k}={shlex.quote(str(v or ''))}" for k, v in s["params"].items()))
    return 0


def save_from_run(base: str, token: str | None, name: str, run_id: str, human: dict[str, str] | None = None) -> int:
    """`run --save-skill NAME`: the finished run saved as a skill by the bridge that ran it."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    headers.update(human or {})
    r = httpx.post(f"{base}/v1/skills/{name}/from-run", json={"run": run_id}, headers=headers, timeout=30)
    data = r.json() if r.headers.get("content-type", "").startswith("application/json") else {}
    if r.status_code >= 400:
        err = data.get("error", {})
        print(f"dbg-bridge: the run was not saved as a skill: [{err.get('code', r.status_code)}] "
              f"{err.get('message', r.text[:300])}", file=sys.stderr)
        return 1
    print(f"saved skill {data['name']!r} (revision {data['revision']}, {data['steps']} steps) from run {run_id}")
    return 0


def record_desktop(api: Api, args: argparse.Namespace) -> int:
    api.call("POST", "/v1/recordings", {"name": args.name, "desktop": True})
    print(f"Recording {args.name!r} on the desktop. Act there; press Ctrl+C here to finish.", flush=True)
    import signal

    try:
        signal.pause()  # until Ctrl+C (SIGINT)
    except KeyboardInterrupt:
        pass
    until = {"text": args.until} if args.until else None
    rec = api.call("POST", f"/v1/recordings/{args.name}/stop", {"until": until})
    for n, line in enumerate(rec["recent"], 1):
        print(f"  {n:>3}. {line}")
    s = rec["skill"]
    print(f"Saved skill {s['name']!r} (revision {s['revision']}, {s['steps']} steps, params "
          f"{', '.join(s['params']) or 'none'}). Run it: dbg-bridge skill run {s['name']}")
    return 0


def _local(settings: Settings) -> Any:
    from bridge.skills.store import DiskStore

    return DiskStore(settings.config_dir)


def skill(api: Api, args: argparse.Namespace, settings: Settings) -> int:
    from bridge.skills.format import Skills, parse

    action = args.skill_cmd
    if action == "run":
        params = {}
        for kv in args.param:
            k, eq, v = kv.partition("=")
            if not eq:
                print(f"dbg-bridge: [invalid_argument] --param {kv!r} is not K=V.", file=sys.stderr)
                return 2
            params[k] = v
        out = api.call("POST", f"/v1/skills/{args.name}/run", {"params": params, "pageId": args.page})
        if out.get("state") != "done":
            print(f"dbg-bridge: [{out['error']['code']}] {out['error']['message']}", file=sys.stderr)
            return 1
        for n, line in enumerate(out["steps"], 1):
            print(f"  {n:>3}. {line}")
        print(f"done in {out['ms']:.0f} ms" + (f"; {out['until']}" if out.get("until") else "")
              + f"; trace {out['trace']}")
        return 0
    try:
        if action == "list":
            rows = api.call("GET", "/v1/skills")["skills"]
        elif action == "show":
            print(json.dumps(api.call("GET", f"/v1/skills/{args.name}"), indent=2, ensure_ascii=False))
            return 0
        elif action == "delete":
            api.call("DELETE", f"/v1/skills/{args.name}")
            print(f"deleted {args.name}")
            return 0
        else:
            doc = api.call("GET", f"/v1/skills/{args.name}")
            edited = _edit(doc)
            if edited is None:
                print("unchanged")
                return 0
            out = api.call("PUT", f"/v1/skills/{args.name}", edited)
            print(f"saved {out['name']} revision {out['revision']}")
            return 0
    except NoBridge:  # the skills on this machine's disk
        skills = Skills(_local(settings))
        if action == "list":
            rows = [s.summary() for s in asyncio.run(skills.list())]
        elif action == "show":
            print(json.dumps(asyncio.run(skills.get(args.name)).model_dump(mode="json", exclude_none=True),
                             indent=2, ensure_ascii=False))
            return 0
        elif action == "delete":
            if not asyncio.run(skills.delete(args.name)):
                asyncio.run(skills.get(args.name))
            print(f"deleted {args.name}")
            return 0
        else:
            edited = _edit(asyncio.run(skills.get(args.name)).model_dump(mode="json", exclude_none=True))
            if edited is not None:
                saved = asyncio.run(skills.save(parse(edited, args.name)))
                print(f"saved {saved.name} revision {saved.revision}")
            return 0
    if not rows:
        print("No skills yet. Record one: dbg-bridge record NAME --page PAGEID")
    for s in rows:
        params = ", ".join(f"{k}={v!r}" if v is not None else f"{k} (secret)" for k, v in s["params"].items())
        print(f"{s['name']:<24} r{s['revision']:<3} {s['kind']:<7} {s['steps']:>3} steps  {s['scope']}"
              + (f"  params: {params}" if params else ""))
    return 0


def _edit(doc: dict[str, Any]) -> dict[str, Any] | None:
    """The document after the human edited it in $EDITOR (None: unchanged)."""
    text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        f.write(text)
    try:
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        subprocess.run([*shlex.split(editor), f.name], check=False)
        with open(f.name, encoding="utf-8") as g:
            new = g.read()
    finally:
        os.unlink(f.name)
    if new == text:
        return None
    try:
        return json.loads(new)
    except ValueError as exc:
        raise ApiError("bad_skill", f"The edited skill is not JSON ({exc}); nothing was saved.") from None


def memory(api: Api, args: argparse.Namespace, settings: Settings) -> int:
    from bridge.skills.memory import Memory

    if args.memory_cmd == "forget":
        try:
            api.call("DELETE", f"/v1/memory/{args.id}")
        except NoBridge:
            asyncio.run(Memory(_local(settings)).forget(args.id))
        print(f"forgot {args.id}")
        return 0
    try:
        facts = api.call("GET", "/v1/memory", scope=args.origin)["facts"]
    except NoBridge:
        facts = [f.model_dump() for f in asyncio.run(Memory(_local(settings)).list(args.origin))]
    if not facts:
        print("No facts yet: they are learned after each run and skill run.")
    for f in facts:
        print(f"{f['id']}  {f['kind']:<10} {f['scope']}  {f['text']}"
              + ("  (from page)" if f["source"] == "page" else "") + f"  [run {f['run']}]")
    return 0
