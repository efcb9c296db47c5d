"""The page client mirrors the protocol module and type-checks with tsc --checkJs (no build step)."""

import json
import re
import subprocess
from pathlib import Path

from bridge.pages import protocol
from bridge.inject import PARTS, TYPES, client_script

ROOT = Path(__file__).resolve().parents[2]
CLIENT = client_script()
TSC = ROOT / ".tools" / "node_modules" / ".bin" / "tsc"


def _commands_block() -> str:
    start = CLIENT.index("const COMMANDS = {")
    end = CLIENT.index("\n};", start)
    return CLIENT[start:end]


def test_client_and_bridge_name_the_same_commands():
    names = set(re.findall(r"^  async (\w+)\(", _commands_block(), re.M))
    assert names == set(protocol.COMMANDS)


def test_client_speaks_the_bridges_protocol_version():
    m = re.search(r"const PROTOCOL_VERSION = (\d+);", CLIENT)
    assert m and int(m.group(1)) == protocol.PROTOCOL_VERSION


def test_client_typedefs_name_every_wire_message_type():
    """The client's wire typedefs are generated from the protocol's models (so they cannot drift by hand)."""
    types = (ROOT / "inject" / "command_types.js").read_text()
    for model in (*protocol.UP_MODELS, *protocol.DOWN_MODELS):
        assert f"}} {model.__name__}\n" in types, model.__name__
    for literal in ("'registered'", "'exec'", "'ping'", "'ack'", "'cancel'", "'result'", "'frames'", "'bye'",
                    "'leaving'", "'event'"):
        assert f"type: {literal}" in types, literal


def test_client_type_checks_with_tsc_checkjs():
    assert TSC.exists(), "TypeScript is missing: ./scripts/test.sh installs it into .tools/"
    proc = subprocess.run([str(TSC), "-p", str(ROOT / "inject" / "jsconfig.json")], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_cockpit_script_type_checks_with_tsc_checkjs():
    for name in ("cockpit.js", "desktop.js", "runs.js", "skills.js"):
        script = (ROOT / "cockpit" / "static" / name).read_text()
        assert script.startswith("// @ts-check") and script.count("\n") <= 500, name
    proc = subprocess.run([str(TSC), "-p", str(ROOT / "cockpit" / "static" / "jsconfig.json")], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_every_part_is_listed_type_checked_and_small():
    on_disk = {p.name for p in (ROOT / "inject").glob("*.js")}
    assert on_disk == set(PARTS) | set(TYPES)
    assert json.loads((ROOT / "inject" / "jsconfig.json").read_text())["files"] == [*PARTS, *TYPES]
    for name in PARTS + TYPES:
        lines = (ROOT / "inject" / name).read_text().count("\n")
        assert lines <= 420, f"inject/{name} has {lines} lines: split it by concept"


def test_the_served_client_is_one_classic_script_in_one_iife():
    assert CLIENT.startswith("(function () {") and CLIENT.rstrip().endswith("})();")
    assert "import " not in CLIENT.split("\n", 3)[1] and "export " not in CLIENT



def test_no_two_parts_declare_the_same_top_level_name():
    """The parts share one IIFE: a function declared twice is silently the later one (a `domQuiet` in two parts once
    turned an act's wait into a no-op), and tsc does not flag it across files."""
    seen: dict[str, str] = {}
    for part in PARTS:
        text = (ROOT / "inject" / part).read_text()
        for name in re.findall(r"^(?:async )?function (\w+)|^(?:const|let|var|class) (\w+)", text, re.M):
            name = name[0] or name[1]
            assert name not in seen, f"{name} is declared in {seen[name]} and {part}"
            seen[name] = part
