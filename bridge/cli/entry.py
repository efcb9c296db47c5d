"""`dbg-bridge serve | mcp | doctor | token`: every Settings field is a flag and a DBG_* variable."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import socket
import sys
from typing import Any

from bridge import __version__
from bridge.shared import seam as shared_state
from bridge.cli.command import invocation
from bridge.server import running
from bridge.settings import ENV_PREFIX, RUN_BUDGETS, Settings, SettingsError, is_list, is_table, load_settings

#: The port a bridge takes when none is given (the plugins' default).
DEFAULT_PORT = Settings.model_fields["port"].default

LOG_FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"


#: What a setting means to a command other than `serve` (where the field's own description applies).
MEANING = {
    "mcp": {"host": "Host of the bridge to forward to (one is started there if none answers).",
            "port": "Port of the bridge to forward to (one is started there if none answers).",
            "token": "Bearer token for that bridge (default: the token file).",
            "no_auth": "The bridge at --port serves /mcp without a token."},
    "doctor": {"host": "Interface the bridge would bind (checked free).",
               "model_url": "The model endpoint to check (it answers; its context window fits a run's prompt; it "
                            "calls tools).",
               "port": "Port the bridge would bind (checked free, or already serving dbg-bridge)."},
    "token": {"token": "Print this token instead of the stored one."},
    "run": {"host": "Host of the bridge to run on (one is started there if none answers).",
            "port": "Port of the bridge to run on (one is started there if none answers).",
            "token": "Bearer token for that bridge (default: the token file).",
            "no_auth": "The bridge at --port serves /v1 without a token.",
            "model": "Model for this run ('client': the connected MCP client's own model, by sampling).",
            **{b.setting: f"This run's budget: {b.help[0].lower()}{b.help[1:-1]} (default: the bridge's setting)."
               for b in RUN_BUDGETS}},
}

#: `run`'s settings flags; model_url and the other model settings reach a bridge `run` starts.
RUN_FLAGS = {"host", "port", "config_dir", "token", "no_auth", "model_url", "model", "model_key", "model_timeout",
             "model_retries", "model_stream", *(b.setting for b in RUN_BUDGETS)}


def _add_settings_flags(parser: argparse.ArgumentParser, only: set[str] | None = None, cmd: str = "serve") -> None:
    for name, field in Settings.model_fields.items():
        if (only is not None and name not in only) or is_table(name):
            continue
        flag = "--" + name.replace("_", "-")
        # argparse formats help with %: a description's own % (e.g. "75 %") must be doubled
        meaning = MEANING.get(cmd, {}).get(name, field.description) or ""
        help_ = f"{meaning.replace('%', '%%')} [env {ENV_PREFIX}{name.upper()}]"
        if field.annotation is bool:
            parser.add_argument(flag, dest=name, action="store_const", const=True, default=None, help=help_)
        elif is_list(name):
            parser.add_argument(flag, dest=name, default=None, metavar=name.upper(),
                                type=lambda s: [o.strip() for o in s.split(",") if o.strip()],
                                help=help_ + (" Comma-separated; 'http://host:*' allows any port." if
                                              name == "allow_origins" else " Comma-separated; empty for none."))
        else:
            default = field.get_default(call_default_factory=True)
            parser.add_argument(flag, dest=name, default=None, metavar=name.upper(),
                                help=help_ + (f" (default {default})" if default not in (None, []) else ""))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dbg-bridge",
        description="Let any MCP client see and operate your running web app: every tab, every iframe.",
        epilog="Settings come from defaults < config.toml in the config dir < DBG_* variables < flags.",
    )
    parser.add_argument("--version", action="version", version=f"dbg-bridge {__version__}")
    sub = parser.add_subparsers(dest="cmd", metavar="COMMAND")
    serve = sub.add_parser("serve", help="Run the bridge (default).", description="Run the bridge on loopback.")
    _add_settings_flags(serve)
    serve.add_argument("--ready-file", default=None, help="Write the bound base URL to this file once listening.")
    mcp = sub.add_parser("mcp", help="Serve MCP over stdio, forwarding to a running bridge (starts one if needed).",
                         description="For MCP clients that spawn a command: speaks MCP on stdin/stdout and "
                                     "forwards to the bridge at --port, starting `dbg-bridge serve` if none answers.")
    _add_settings_flags(mcp, {"host", "port", "config_dir", "token", "no_auth"}, "mcp")
    doctor = sub.add_parser("doctor", help="Check this machine's setup and say how to fix each miss.",
                            description="Check the port, the token file, Python packages, Chromium and the desktop "
                                        "tools' needs, and say how to fix each miss.")
    _add_settings_flags(doctor, {"host", "port", "config_dir", "desktop_enabled", "desktop_backend", "desktop_display",
                                 "desktop_user", "model_url", "model", "model_key", "model_timeout", "disable_tools"},
                        "doctor")
    run = sub.add_parser(
        "run", help="Run one task with the bridge's agent (plan, act, verify), printing each step.",
        description="Run TASK on the bridge's agent through the runs API (/v1/runs): prints the plan and each step "
                    "as it happens, answers a takeover here (resume / skip / abort and a note), Ctrl+C cancels. "
                    "Starts a bridge if none answers (it stops when the run ends).",
        epilog="Exit codes: 0 done, 1 failed, 3 blocked, 4 needs_clarification, 5 cancelled, 6 no run started "
               "(bridge or model not reachable, bad input), 2 bad flags.")
    run.add_argument("task", help="What to do, in words.")
    run.add_argument("--bridge", default=None, metavar="URL", help="A running bridge's base URL (default: "
                                                                   "http://HOST:PORT).")
    run.add_argument("--dryrun", action="store_true", help="Plan and print the plan; call no tool that is not "
                                                           "read-only.")
    run.add_argument("--allow", default=None, metavar="LIST", type=lambda s: [o.strip() for o in s.split(",") if o.strip()],
                     help="Consent classes (eval, navigate, submit) or tool names/globs this run may use without "
                          "asking the human (printed at the start). Comma-separated.")
    run.add_argument("--save-skill", default=None, metavar="NAME", help="When the run ends done, save its "
                     "successful steps as the skill NAME (dbg-bridge skill show NAME).")
    _add_settings_flags(run, RUN_FLAGS, "run")
    runs = sub.add_parser("runs", help="List the runs in the config dir, or print one (runs show ID).",
                          description="List past runs from their traces (<config dir>/runs/*.jsonl), newest first; "
                                      "`runs show ID` prints one run's events.")
    runs.add_argument("action", nargs="?", choices=["show"], help="show: print one run")
    runs.add_argument("id", nargs="?", help="The run's id (from `dbg-bridge runs`).")
    _add_settings_flags(runs, {"config_dir"}, "runs")
    token = sub.add_parser("token", help="Print the MCP bearer token (creating it if missing).",
                           description="Print the MCP bearer token, creating the token file (0600) if missing.")
    _add_settings_flags(token, {"config_dir", "token"}, "token")
    plugin = sub.add_parser(
        "plugin", help="Pack the Vite or webpack plugin as an npm tarball and print its path.",
        description="Write vite-plugin-dbg-bridge-VERSION.tgz (or dbg-bridge-webpack-plugin-VERSION.tgz) into --out "
                    "(default: the current folder) and print its path, for: npm i -D \"$(dbg-bridge plugin vite)\". "
                    "The plugin starts this bridge (this Python) when none answers.")
    plugin.add_argument("name", choices=["vite", "webpack"], help="Which plugin.")
    plugin.add_argument("--out", default=None, metavar="DIR", help="Where to write the tarball (default: .).")
    _add_settings_flags(plugin, {"config_dir"}, "plugin")
    from bridge.cli.skills import add_parsers

    add_parsers(sub, _add_settings_flags)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    cmd = args.cmd or "serve"
    values: dict[str, Any] = {k: v for k, v in vars(args).items() if k in Settings.model_fields}
    try:
        settings = load_settings(values)
    except SettingsError as exc:
        print(f"dbg-bridge: {exc}", file=sys.stderr)
        return 2
    if cmd == "serve":
        return serve(settings, ready_file=getattr(args, "ready_file", None))
    if cmd == "mcp":
        from bridge.cli.stdio_proxy import run_stdio

        return run_stdio(settings)
    if cmd == "doctor":
        from bridge.cli.doctor import run_doctor

        return run_doctor(settings)
    if cmd == "run":
        from bridge.cli.runs import BUDGET_FLAGS, run_command

        budgets = {key: values[name] for name, key in BUDGET_FLAGS.items() if values.get(name) is not None}
        body: dict[str, Any] = {"dryrun": args.dryrun, "allow": args.allow or [], "budgets": budgets}
        if settings.model != Settings.model_fields["model"].default:
            body["model"] = settings.model
        if settings.model_url:  # this run's endpoint and key, whatever the bridge was started with
            body["model_url"] = settings.model_url
            if settings.model_key:
                body["model_key"] = settings.model_key
        return run_command(settings, args.task, args.bridge, body, save_skill=args.save_skill,
                           port_given=values.get("port") is not None)
    if cmd == "runs":
        from bridge.cli.runs import runs_command

        if args.action == "show" and not args.id:
            parser.error("runs show needs a run id")
        return runs_command(settings.config_dir, args.id if args.action == "show" else None)
    if cmd == "token":
        from bridge.server.security import load_or_create_token

        print(load_or_create_token(settings))
        return 0
    if cmd == "plugin":
        from bridge.cli.plugin import run_plugin

        return run_plugin(args.name, args.out, settings)
    if cmd in ("record", "skill", "memory"):
        from bridge.cli.skills import main as skills_main

        return skills_main(cmd, args, settings)
    parser.error(f"unknown command {cmd}")
    return 2


def _bind(settings: Settings) -> socket.socket:
    family = socket.AF_INET6 if ":" in settings.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Accepted sockets inherit this. Without it every chunked response (the MCP SDK writes several body
    # messages) waits ~40 ms for a delayed ACK: Nagle's algorithm against the client's delayed ACK.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((settings.host, settings.port))
    sock.listen(2048)
    sock.setblocking(False)
    return sock


def banner(settings: Settings, token: str | None) -> str:
    base = settings.base_url()
    mcp_url = f"{base}/mcp"
    header = {"Authorization": f"Bearer {token}"} if token else {}
    claude = f"claude mcp add --transport http dbg-bridge {mcp_url}"
    if token:
        claude += f' --header "Authorization: Bearer {token}"'
    cursor = json.dumps({"mcpServers": {"dbg-bridge": {"url": mcp_url, **({"headers": header} if header else {})}}})
    vscode = json.dumps({"servers": {"dbg-bridge": {"type": "http", "url": mcp_url,
                                                    **({"headers": header} if header else {})}}})
    lines = [
        f"dbg-bridge {__version__} listening on {base}",
        f"  Cockpit        {base}/",
        f"  MCP endpoint   {mcp_url}",
        f"  Access token   {token}" if token else "  Access token   none (--no-auth)",
        f"  Demo page      {base}/demo",
        f"  Inject         <script src=\"{base}/inject/dbg_client.js\"></script>",
        f"  Vite plugin    npm i -D \"$({invocation(settings, 'plugin vite')})\"   (in your app's folder; or plugin "
        "webpack)",
        *([f"  Plugins        DBG_BRIDGE_URL={base} (before starting the dev server), or the plugin's bridge "
           f"option: dbgBridge({{ bridge: '{base}' }})"] if settings.port != DEFAULT_PORT else []),
        "",
        "Connect an MCP client:",
        f"  Claude Code    {claude}",
        f"  Cursor         ~/.cursor/mcp.json: {cursor}",
        f"  VS Code        .vscode/mcp.json:   {vscode}",
        f"  stdio clients  {invocation(settings, 'mcp')}",
        "",
        f"The token again: {invocation(settings, 'token')}",
        f"Check this machine: {invocation(settings, 'doctor')}",
        "Press Ctrl+C to stop.",
    ]
    return "\n".join(lines)


async def _settle_heap(period: float = 10.0) -> None:
    """The served process only (tests build apps in their own process): freeze the heap after startup, then again
    every `period` seconds (bridge/server/heap.py)."""
    from bridge.server.heap import Heap

    heap = Heap()
    while True:
        heap.settle()
        await asyncio.sleep(period)


def serve(settings: Settings, ready_file: str | None = None) -> int:
    import uvicorn

    from bridge.server.app import create_app
    from bridge.server.security import RedactSecrets, load_or_create_token

    logging.basicConfig(level=settings.log_level.upper(), format=LOG_FORMAT, stream=sys.stderr)
    if settings.no_auth and not settings.is_loopback:
        print("dbg-bridge: --no-auth is only allowed on a loopback --host.", file=sys.stderr)
        return 2
    if not settings.is_loopback:
        print(f"WARNING: binding {settings.host}: other machines can reach this bridge. Keep the token secret.",
              file=sys.stderr)
    if (lacking := shared_state.missing(settings)) is not None:
        print(f"dbg-bridge: {lacking}", file=sys.stderr)
        return 2
    try:
        sock = _bind(settings)
    except OSError as exc:
        print(f"dbg-bridge: cannot listen on {settings.host}:{settings.port}: {exc.strerror}. "
              "Another bridge may be running (try `dbg-bridge doctor`), or pick a port with --port (0 = any free).",
              file=sys.stderr)
        return 1
    settings = settings.model_copy(update={"port": sock.getsockname()[1]})
    token = None if settings.no_auth else load_or_create_token(settings)
    app = create_app(settings, token)
    logging.getLogger().setLevel(settings.log_level.upper())
    for handler in logging.getLogger().handlers:
        handler.addFilter(RedactSecrets())
    # No permessage-deflate: page frames are small and local, and each WebSocket's zlib state cost ~45 KB of RSS.
    # Keep idle connections longer than clients do (httpx drops them after 5 s, uvicorn's default): with equal
    # timeouts a call made ~5 s after the last one can be sent on a socket the bridge is closing (ReadError).
    # No WebSocket pings on loopback: the kernel closes a local page's socket when its browser goes, and at 2,000
    # pages uvicorn's ping every 20 s per connection was 1% of a core with no call running (bench/many_pages.py).
    config = uvicorn.Config(app, log_level=settings.log_level, access_log=False, ws_max_size=settings.max_body,
                            ws_per_message_deflate=False, timeout_keep_alive=75, lifespan="on",
                            timeout_graceful_shutdown=2, log_config=None,
                            ws_ping_interval=None if settings.is_loopback else 20.0)
    server = uvicorn.Server(config)

    async def run() -> None:
        task = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started and not task.done():
            await asyncio.sleep(0.01)
        if server.started:
            print(banner(settings, token), flush=True)
            if ready_file:
                with open(ready_file, "w") as f:
                    f.write(settings.base_url())
            running.write(settings)
        settler = asyncio.create_task(_settle_heap())
        try:
            await task
        finally:
            settler.cancel()
            running.clear(settings)

    try:
        # uvicorn's own loop choice (uvloop when installed, as with uvicorn[standard]): Server.serve() alone leaves
        # the bridge on the default asyncio loop, which costs it roughly a tenth more CPU per tool call.
        with asyncio.Runner(loop_factory=config.get_loop_factory()) as runner:
            runner.run(run())
    except KeyboardInterrupt:
        pass
    return 0
