"""The docs are generated from the code, or checked against it, and must not go stale: every path, flag and tool
name a page gives exists, every setting, tool and command is documented, and the README stays a front door."""

from __future__ import annotations

import argparse
import ast
import fnmatch
import re
import subprocess
from pathlib import Path

from bridge.cli.entry import build_parser
from bridge.gen.reference import DOCS
from bridge.human.inbox import KINDS
from bridge.settings import Settings, is_table
from bridge.tools import TOOLS

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

#: Flags the docs give for programs other than dbg-bridge, and whose they are.
FOREIGN_FLAGS = {
    "--header": "claude mcp add", "--transport": "claude mcp add / MCP Inspector", "--strict": "mkdocs build",
    "--check": "scripts/scaffold_framework_apps.sh", "--template": "npm create vite",
    "--no-interactive": "npm create vite",
    "--headless": "firefox", "--no-remote": "firefox", "--profile": "firefox", "--enable-features": "chromium",
    "--enable-experimental-web-platform-features": "chromium", "--snapshot-mode": "@playwright/mcp",
    "--backends": "bench/desktop.py", "--tools": "(tools/call, an MCP method in a diagram)",
    "--ctx": "scripts/model.sh", "--n_ctx": "llama_cpp.server", "--jinja": "llama-server",
    "--max-model-len": "vllm", "--enable-auto-tool-choice": "vllm",
}
#: Files the docs name that are not this repository's (and whose they are).
FOREIGN_FILES = {"user.js": "a Firefox profile's preferences file"}


def text(page: Path) -> str:
    return page.read_text()


def repo_files() -> list[str]:
    """The checkout's files, tracked or new and not ignored (node_modules, .venv and build output left out)."""
    out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, capture_output=True,
                         check=True).stdout.decode()
    return [f for f in out.split("\0") if f]


def expand(path: str) -> list[str]:
    """`e2e/frameworks/{react,vue}` -> both paths; `e2e/apps/<name>/x` -> a glob."""
    brace = re.search(r"\{([^{}]*)\}", path)
    if brace:
        return [p for option in brace.group(1).split(",")
                for p in expand(path[:brace.start()] + option + path[brace.end():])]
    return [re.sub(r"<[^<>]+>", "*", path)]


def test_generated_reference_docs_match_the_code():
    for rel, render in DOCS.items():
        assert (ROOT / rel).read_text() == render(), f"{rel} is stale: run `python scripts/gen_docs.py`"


def test_every_path_the_docs_name_exists():
    """A path from the repo's top (`bridge/...`, `scripts/...`) must exist as written; a file named by itself or from
    within its folder (`host.py`, `x11/backend.py`) must be the end of some file's path."""
    files = repo_files()
    dirs = {parent.as_posix() for f in files for parent in Path(f).parents}
    rooted = re.compile(r"(?<![\w/.$<>:-])(?:\./)?((?:bridge|inject|cockpit|scripts|e2e|tests|plugins|bench|docs)/"
                        r"[\w./{},<>*@+-]*)")
    named = re.compile(r"(?<![\w/.$<>:-])(?:\./)?((?:[\w.-]+/)*[\w-]+\.(?:py|js|sh|html|css|patch))\b")
    missing = []
    for page in PAGES:
        body = text(page)
        for match in rooted.finditer(body):
            for path in expand(match.group(1).rstrip(".,;:)").split("::")[0].rstrip("/")):
                if not any(fnmatch.fnmatchcase(f, path) for f in files) and path not in dirs:
                    missing.append(f"{page.name}: {path}")
        for match in named.finditer(body):
            name = match.group(1)
            if name not in FOREIGN_FILES and not any(f == name or f.endswith("/" + name) for f in files):
                missing.append(f"{page.name}: {name}")
    assert missing == [], "the docs name paths that do not exist (moved? renamed?): " + ", ".join(sorted(set(missing)))


def flags(parser: argparse.ArgumentParser) -> set[str]:
    """Every long option of a parser and its subcommands."""
    out = set()
    for action in parser._actions:
        out |= {o for o in action.option_strings if o.startswith("--")}
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                out |= flags(sub)
    return out


def test_every_flag_the_docs_name_is_a_flag_of_dbg_bridge():
    known = flags(build_parser()) | set(FOREIGN_FLAGS)
    unknown = set()
    for page in PAGES:
        for flag, placeholder in re.findall(r"(?<![\w-])(--[a-z][a-z0-9_-]*)([A-Z]+)?", text(page)):
            # `--run-max-NAME` stands for a family of flags: at least one must exist
            if flag not in known and not (placeholder and any(k.startswith(flag) for k in known)):
                unknown.add(f"{page.name}: {flag}{placeholder}")
    assert unknown == set(), f"the docs name flags dbg-bridge does not have (renamed?): {sorted(unknown)}"


def test_every_settings_flag_is_documented_as_the_parser_has_it():
    documented = text(ROOT / "docs" / "settings.md")
    parser_flags = flags(build_parser())
    for name in Settings.model_fields:
        flag = "--" + name.replace("_", "-")
        if is_table(name):
            assert flag not in parser_flags and f"| `{name}` | — (config file only)" in documented, name
        else:
            assert flag in parser_flags and f"`{flag}`" in documented, name


def test_every_tool_name_the_docs_use_is_a_tool_or_names_what_it_says():
    """A `page_…`/`desktop_…` name in the docs is a tool, or a setting, an inbox kind or an error code."""
    codes = set()
    for module in (ROOT / "bridge").rglob("*.py"):
        source = module.read_text()
        codes |= set(re.findall(r'\bcode\s*=\s*"([a-z_]+)"', source)) | set(re.findall(r"\[([a-z_]+)\]", source))
    known = {t.name for t in TOOLS} | set(Settings.model_fields) | set(KINDS) | codes
    unknown = {f"{page.name}: {name}" for page in PAGES for name in
               re.findall(r"`((?:page|user|desktop|skill|agent|inbox)(?:_[a-z]+)+)`", text(page)) if name not in known}
    assert unknown == set(), f"the docs name tools that do not exist (renamed?): {sorted(unknown)}"


def test_every_tool_is_in_a_table_and_the_reference():
    readme, desktop = text(ROOT / "README.md"), text(ROOT / "docs" / "desktop.md")
    reference = text(ROOT / "docs" / "tools.md")
    for tool in TOOLS:
        assert f"## `{tool.name}`" in reference, tool.name
        if not tool.name.startswith("agent_"):
            assert f"| `{tool.name}` |" in (desktop if tool.name.startswith("desktop_") else readme), tool.name


def test_every_command_is_named_on_the_readme():
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    line = next(line for line in text(ROOT / "README.md").splitlines() if line.startswith("`dbg-bridge serve |"))
    assert sorted(line.split("`")[1].removeprefix("dbg-bridge ").split(" | ")) == sorted(sub.choices)


def test_the_readme_is_a_front_door_to_every_page():
    readme = text(ROOT / "README.md")
    assert readme.count("\n") <= 300, "README.md is a front door (at most 300 lines): move the detail to a docs/ page"
    for page in sorted((ROOT / "docs").glob("*.md")):
        if page.name != "index.md":
            assert f"(docs/{page.name})" in readme, f"README.md's Read next does not link docs/{page.name}"


def test_every_tool_has_a_description_and_a_family_prefix():
    for tool in TOOLS:
        assert tool.description, tool.name
        assert tool.name.split("_")[0] in {"page", "user", "inbox", "skill", "desktop", "agent"}, tool.name


def test_every_setting_has_a_description():
    for name, field in Settings.model_fields.items():
        assert field.description, name


def test_every_module_says_what_it_is():
    """docs/layout.md is made of these docstrings: a module without one is a blank in the map."""
    modules = [p for top in ("bridge", "inject", "cockpit") for p in (ROOT / top).rglob("*.py")
               if not p.relative_to(ROOT).as_posix().startswith(("bridge/inject/", "bridge/cockpit/"))]
    blank = [p.relative_to(ROOT).as_posix() for p in modules if not ast.get_docstring(ast.parse(p.read_text()))]
    assert blank == []


def test_every_docs_page_the_code_names_exists():
    """Errors and comments send readers to docs pages (`See docs/commands.md`): those pages must be there."""
    sources = [f for f in repo_files() if f.endswith(".py") and f.startswith(("bridge/", "scripts/", "tests/", "e2e/"))]
    named = {(f, page) for f in sources for page in re.findall(r"\bdocs/[\w-]+\.md\b", (ROOT / f).read_text())}
    assert {(where, page) for where, page in named if not (ROOT / page).exists()} == set()
