"""The one settings object: defaults < config file < environment (DBG_*) < CLI flags."""

from __future__ import annotations

import fnmatch
import os
import tomllib
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Mapping

from pydantic import BaseModel, Field, ValidationError
from pydantic.fields import FieldInfo

ENV_PREFIX = "DBG_"
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def default_config_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "dbg-bridge"


@dataclass(frozen=True)
class RunBudget:
    """One run budget, defined once: it makes the setting `run_max_NAME` (so the flag `--run-max-NAME` and the
    variable `DBG_RUN_MAX_NAME`), a run request's `budgets.max_NAME` (bridge/runs/budgets.py `Budgets`, also
    `dbg-bridge run --run-max-NAME`) and the run's `Limits.NAME` the loop counts against."""

    name: str
    type: type
    default: int | float
    #: The least value: at least `low` (or above it, with `above`), and at most `high`.
    low: int | float
    high: int | float
    #: What it bounds, as the setting's description says it.
    help: str
    above: bool = False

    @property
    def setting(self) -> str:
        return f"run_max_{self.name}"

    @property
    def request(self) -> str:
        return f"max_{self.name}"

    def field(self, default: Any) -> FieldInfo:
        """The pydantic field: its bounds and help, with `default` (None in a run request: the setting's)."""
        return Field(default, **self.bounds, description=self.help)

    @property
    def bounds(self) -> dict[str, int | float]:
        return {"gt" if self.above else "ge": self.low, "le": self.high}


def run_budget(name: str) -> RunBudget:
    return next(b for b in RUN_BUDGETS if b.name == name)


#: Every run budget, one row each (docs/runs-and-skills.md, Budgets; the e2e and in-memory budget tests run each).
RUN_BUDGETS: tuple[RunBudget, ...] = (
    RunBudget("steps", int, 20, 1, 500, "Tool calls a run may make (a warning at 75 %)."),
    RunBudget("batches", int, 6, 1, 100, "Plans a run may make (the first, revisions, replans)."),
    RunBudget("replans", int, 3, 0, 100, "Replans after a failed step or a failed verification."),
    RunBudget("model_calls", int, 60, 1, 1000, "Model calls a run may make."),
    RunBudget("seconds", float, 900.0, 0, 86400, "Wall-clock seconds a run may take.", above=True),
)


class McpServer(BaseModel):
    """One `[mcp_servers.NAME]` table: a stdio command, or an HTTP url."""

    model_config = {"extra": "forbid"}

    command: str | None = Field(None, description="Program to start (stdio).")
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    url: str | None = Field(None, pattern=r"^https?://", description="Streamable HTTP endpoint.")
    headers: dict[str, str] = Field(default_factory=dict)
    timeout: float = Field(30.0, gt=0, description="Seconds one call to this server may take.")


class Settings(BaseModel):
    """Everything the bridge can be told. Each field is a `--flag` and a `DBG_FIELD` variable."""

    model_config = {"extra": "forbid", "validate_assignment": True}

    host: str = Field("127.0.0.1", description="Interface to bind. Anything but loopback prints a warning.")
    port: int = Field(7878, ge=0, le=65535, description="Port to bind; 0 picks a free one and prints it.")
    config_dir: Path = Field(default_factory=default_config_dir,
                             description="Where the token file and the audit log live.")
    no_auth: bool = Field(False, description="Serve /mcp without a bearer token (loopback only).")
    token: str | None = Field(None, description="Use this token instead of the one in the token file.")
    stateless: bool = Field(False, description="Serve /mcp statelessly with JSON responses (no sessions, no cancellation, no progress, no elicitation).")
    allow_origins: list[str] = Field(
        default_factory=list,
        description="Extra page origins allowed on the page channel (loopback origins are always allowed).",
    )
    page_ttl: float = Field(600.0, gt=0, description="Seconds a disconnected page keeps its pageId.")
    exec_timeout: float = Field(30.0, gt=0, description="Default seconds a page command may take.")
    max_exec_timeout: float = Field(300.0, gt=0, description="Largest timeout a caller may ask for.")
    max_body: int = Field(1 << 20, gt=1024, description="Largest request body the page channel accepts (bytes).")
    max_result: int = Field(512_000, gt=1024, description="Largest serialized result a page may return (chars).")
    heartbeat: float = Field(15.0, gt=0, description="Seconds between heartbeats on page streams.")
    log_level: Literal["debug", "info", "warning", "error"] = Field("info", description="Bridge log level.")
    no_consent: bool = Field(False, description="Run page_exec code without asking the human first (trusted setups).")
    consent_for: list[Literal["eval", "navigate", "submit", "tool", "upload"]] = Field(
        default_factory=lambda: ["eval", "navigate", "tool", "upload"],
        description="Actions that need the human's consent: eval (page_exec code), navigate (page_navigate to "
                    "another origin), submit (page_act that submits a form), tool (page_call_tool: a tool the page "
                    "registered through WebMCP, whatever it says it does), upload (page_act upload: files from "
                    "upload_dir handed to the page).")
    upload_dir: list[Path] = Field(
        default_factory=list,
        description="Folders page_act upload may take files from (their files may be handed to any page the agent "
                    "acts on, after consent; dotfiles and secret-looking names never). Empty: uploads are off.")
    upload_max_bytes: int = Field(10 << 20, ge=1, le=64 << 20,
                                  description="Largest total size of the files one page_act upload hands over.")
    push_sampling: bool = Field(False, description="Push messages the human writes to MCP clients that declare "
                                                   "sampling, and show the reply in the page (2025-11-25 sessions).")
    no_audit: bool = Field(False, description="Do not write audit.jsonl in the config dir (the cockpit still shows "
                                              "live activity).")
    audit_max_bytes: int = Field(5 << 20, ge=4096, description="Size at which audit.jsonl is rotated (bytes).")
    audit_keep: int = Field(3, ge=0, le=100, description="How many rotated audit files (audit.jsonl.1 …) to keep.")
    consent_wait: float = Field(60.0, gt=0, le=600, description="Seconds a consent prompt waits for the human.")
    editor: str | None = Field(None, description="Editor command for open_file, e.g. 'code -g {file}:{line}:{column}' "
                                                 "(default: code or cursor if found). Run as argv, never a shell.")
    project_root: Path = Field(default_factory=Path.cwd, description="open_file only opens files under this folder.")
    open_file_secrets: bool = Field(False, description="Let open_file open dotfiles and secret-looking files (.env*, "
                                                       "keys, *.pem, id_rsa…), which it refuses by default.")
    open_file_trust_picker: bool = Field(
        False, description="Open a file the in-page element picker asks for at once, without the cockpit's "
                           "confirmation (the page's own scripts could forge such a request).")
    open_file_per_minute: int = Field(6, ge=1, le=600, description="open_file requests a page origin may send a "
                                                                   "minute; more are refused (429).")
    max_pending_pages: int = Field(
        256, ge=1, description="Registered pages of one origin that never connected at most (and 16 times as many "
                               "disconnected ones); more registrations from that origin are refused (429) until some "
                               "connect or expire.")
    mirror_page_tools: bool = Field(
        False, description="Also list each page's WebMCP tools as MCP tools of their own (named <tab>_<frame>__<name>, "
                           "e.g. 5173_host__add_todo), announced with notifications/tools/list_changed as pages come "
                           "and go. Off: they are reached through page_tools and page_call_tool only.")
    disable_tools: list[str] = Field(
        default_factory=list,
        description="Tools not to offer: names or globs (page_exec, desktop_*), or @acting for every tool that is "
                    "not read-only.")
    cluster: str | None = Field(
        None, pattern=r"^(redis|rediss|unix)://",
        description="Join a team bridge: share pages, calls, questions and the inbox with every replica using this "
                    "Redis (redis://[user:password@]host:port/db, rediss:// for TLS). Without it nothing is shared.")
    advertise_url: str | None = Field(
        None, pattern=r"^https?://[^/\s]+$",
        description="The URL pages reach this replica's page channel by (scheme://host:port): every replica of a "
                    "team bridge lists its replicas' URLs in the register answer, and a page whose replica goes "
                    "away tries them in turn. Behind a load balancer, give every replica the balancer's URL. "
                    "Default: this bridge's own address.")
    public_hosts: list[str] = Field(
        default_factory=list,
        description="Host headers (host:port) accepted besides the bridge's own, e.g. the address of a load "
                    "balancer or proxy in front of it that forwards the Host it was called by. Off unless given; "
                    "the Origin rules are unchanged.")
    desktop_enabled: bool = Field(
        False, description="Serve the desktop_* tools (26 tools, about 13 K characters of every tools/list; nothing "
                           "starts until one is called). Off by default: turn it on with --desktop-enabled, "
                           "DBG_DESKTOP_ENABLED=1 or desktop_enabled = true in config.toml.")
    desktop_backend: str = Field(
        "auto", pattern=r"^(auto|x11|wayland|macos|windows|[A-Za-z_][\w.]*:[A-Za-z_]\w*)$",
        description="Desktop backend: auto picks by platform (on Linux wayland inside a sway session, where "
                    "WAYLAND_DISPLAY and SWAYSOCK are set, else x11; macOS and Windows answer not_available yet). "
                    "wayland works with wlroots compositors that speak sway's IPC; GNOME and KDE need portals and "
                    "libei, not built. Or an import string module:Class naming a backend of your own (the tests' "
                    "fake desktop: tests.inmemory.fake_desktop:FakeDesktop).")
    desktop_user: str = Field(
        "dbg-desktop", min_length=1,
        description="The unprivileged user a bridge running as root starts the private Wayland desktop (sway, its "
                    "bus and apps) as: sway refuses root.")
    desktop_display: str = Field(
        "private", pattern=r"^(private|[A-Za-z0-9.\-]*:\d+(\.\d+)?|wayland(-\d+)?)$",
        description="'private' starts a private desktop for the bridge (Xvfb + openbox, or headless sway for the "
                    "wayland backend, each with its own D-Bus); ':N' attaches to that existing X display, 'wayland' "
                    "(or wayland-N) to the sway session the bridge runs in; input on an attached one needs the "
                    "human's consent.")
    desktop_size: str = Field("1280x800", pattern=r"^\d{2,5}x\d{2,5}$",
                              description="Screen size of the private desktop (WIDTHxHEIGHT).")
    desktop_monitors: int = Field(1, ge=1, le=4, description="Monitors of the private desktop, side by side, each "
                                                             "desktop_size (the screen spans them all).")
    desktop_scale: int = Field(1, ge=1, le=3, description="Scale factor of the private desktop (HiDPI): apps draw "
                                                          "at 2x or 3x (GDK_SCALE, QT_SCALE_FACTOR, Xft.dpi).")
    desktop_handback_idle: float = Field(
        30, ge=0, le=86400,
        description="On an attached desktop, the human's own input takes the desktop from the agent; it comes back "
                    "when they hand it back in the cockpit's Desktop tab, or after this many seconds without their "
                    "input (0: only the cockpit).")
    desktop_allow: list[str] = Field(
        default_factory=list,
        description="Programs desktop_launch_app may start (names on PATH or paths; run as argv, never a shell).")
    desktop_browser: str = Field(
        "chromium", min_length=1,
        description="Browser desktop_open_url starts (a name on PATH or a path; it must be on desktop_allow too). "
                    "Chromium-family browsers get a throwaway profile and quiet first-run flags, Firefox a throwaway "
                    "profile; any other program just gets the URL as its argument.")

    # ---- the agent (`dbg-bridge run`, the runs API: bridge/runs/) ----
    model_url: str | None = Field(
        None, description="OpenAI-compatible chat-completions endpoint runs use (base URL ending in /v1). Falls back "
                          "to OPENAI_BASE_URL.")
    model: str = Field("default", min_length=1,
                       description="Model name runs send to model_url; 'client' uses the connected MCP client's own "
                                   "model (sampling, when that client declares it).")
    model_key: str | None = Field(None, description="API key for model_url (sent as a bearer token). Falls back to "
                                                    "OPENAI_API_KEY.")
    model_timeout: float = Field(120.0, gt=0, description="Seconds one model call may take.")
    model_retries: int = Field(3, ge=0, le=10, description="Retries (with backoff) of a model call on 429, 5xx or a "
                                                           "connection error.")
    model_stream: bool = Field(False, description="Ask the model endpoint to stream its answers (SSE).")
    # run_max_steps, run_max_batches, …: one field per row of RUN_BUDGETS
    for _budget in RUN_BUDGETS:
        __annotations__[_budget.setting] = _budget.type
        vars()[_budget.setting] = _budget.field(_budget.default)
    del _budget
    run_allow: list[str] = Field(
        default_factory=list,
        description="Consent classes (eval, navigate, submit) or tool names/globs a run may use without asking the "
                    "human (printed at the run's start).")
    takeover_wait: float = Field(900.0, gt=0, description="Seconds a run's pause_for_human waits for the human "
                                                          "before the run ends blocked.")
    mcp_servers: dict[str, McpServer] = Field(
        default_factory=dict,
        description="Other MCP servers whose tools runs get, as NAME__tool (config file only: "
                    "[mcp_servers.NAME] with command/args/env for stdio, or url/headers for HTTP; timeout).")

    def tool_disabled(self, name: str, read_only: bool) -> bool:
        """`disable_tools` entries: a tool name or glob (`desktop_*`, `page_exec`), or `@acting` for every tool that
        is not read-only (a bridge that can look but not touch)."""
        for pattern in self.disable_tools:
            if pattern == "@acting" and not read_only:
                return True
            if fnmatch.fnmatchcase(name, pattern):
                return True
        return False

    @property
    def token_file(self) -> Path:
        return self.config_dir / "token"

    @property
    def is_loopback(self) -> bool:
        return self.host in LOOPBACK_HOSTS

    def page_channel_url(self) -> str:
        """Where pages reach this bridge's page channel (what a team bridge's register answer lists)."""
        return self.advertise_url or self.base_url()

    def base_url(self, port: int | None = None) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "::", "") else self.host
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{port if port is not None else self.port}"


def config_file_path(env: Mapping[str, str]) -> Path:
    explicit = env.get(ENV_PREFIX + "CONFIG")
    if explicit:
        return Path(explicit)
    dir_ = env.get(ENV_PREFIX + "CONFIG_DIR")
    return (Path(dir_) if dir_ else default_config_dir()) / "config.toml"


def is_list(name: str) -> bool:
    """List settings are comma-separated in the environment and on the command line."""
    return typing.get_origin(Settings.model_fields[name].annotation) is list


def is_table(name: str) -> bool:
    """Table settings (mcp_servers) come from the config file only."""
    return typing.get_origin(Settings.model_fields[name].annotation) is dict


#: Variables other tools already use, read below the config file (DBG_* and flags still win).
FOREIGN_ENV = {"OPENAI_BASE_URL": "model_url", "OPENAI_API_KEY": "model_key"}


def _from_env(env: Mapping[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, field in Settings.model_fields.items():
        raw = env.get(ENV_PREFIX + name.upper())
        if raw is None or is_table(name):
            continue
        if field.annotation is bool:
            out[name] = raw.strip().lower() in ("1", "true", "yes", "on")
        elif is_list(name):
            out[name] = [o.strip() for o in raw.split(",") if o.strip()]
        else:
            out[name] = raw
    return out


class SettingsError(Exception):
    """A setting has a bad value; the message names the setting and where it came from."""


def _where(source: str, name: str) -> str:
    if source == "environment":
        return f"{ENV_PREFIX}{name.upper()} in the environment"
    if source == "command line":
        return f"--{name.replace('_', '-')} on the command line"
    return source


def load_settings(cli: Mapping[str, Any] | None = None, env: Mapping[str, str] | None = None) -> Settings:
    """Merge defaults < config file < environment < CLI flags (None means 'not given')."""
    env = os.environ if env is None else env
    layers: list[tuple[str, dict[str, Any]]] = [
        ("OPENAI_BASE_URL / OPENAI_API_KEY in the environment",
         {field: env[var] for var, field in FOREIGN_ENV.items() if env.get(var)})]
    path = config_file_path(env)
    if path.is_file():
        try:
            layers.append((str(path), tomllib.loads(path.read_text())))
        except tomllib.TOMLDecodeError as exc:
            raise SettingsError(f"{path} is not valid TOML: {exc}. Fix or delete it.") from exc
    layers.append(("environment", _from_env(env)))
    layers.append(("command line", {k: v for k, v in (cli or {}).items() if v is not None}))
    merged: dict[str, Any] = {}
    origin: dict[str, str] = {}
    for source, layer in layers:
        unknown = set(layer) - set(Settings.model_fields)
        if unknown:
            raise SettingsError(f"Unknown setting(s) {sorted(unknown)} in {source}. Known: {sorted(Settings.model_fields)}")
        merged.update(layer)
        origin.update({k: _where(source, k) for k in layer})
    try:
        return Settings(**merged)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc']))}: {e['msg']} (from {origin.get(str(e['loc'][0]) if e['loc'] else '', 'defaults')})"
            for e in exc.errors()
        )
        raise SettingsError(f"Invalid setting: {problems}") from exc
