"""The layering rule, checked over the imports (docs/architecture.md states it): tools -> dispatch -> {registry,
pending, protocol}; routes -> {dispatch, protocol}; nothing imports app or cli; the dispatcher and the human loop's
objects get their parts passed in, never the bridge's state; the desktop knows nothing of routes, the cockpit or the
tools; the team bridge (bridge.cluster) is a backend behind bridge/shared_state.py that
knows no cockpit, route or tool, and nothing imports it but itself."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = {ROOT / "bridge": "bridge", ROOT / "cockpit": "bridge.cockpit", ROOT / "inject": "bridge.inject"}


def _modules() -> list[tuple[str, ast.AST]]:
    """(module name, its parsed code) for every module of the bridge, the cockpit and the page client."""
    out = []
    for base, package in PACKAGES.items():
        for path in base.rglob("*.py"):
            parts = [p for p in path.relative_to(base).with_suffix("").parts if p != "__init__"]
            out.append((".".join([package, *parts]), ast.parse(path.read_text())))
    return out


def imports() -> dict[str, set[str]]:
    """module -> the bridge modules it imports (at any depth of its code, lazy imports included)."""
    out: dict[str, set[str]] = {}
    for module, tree in _modules():
        found: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found |= {a.name for a in node.names if a.name.startswith("bridge")}
            elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("bridge"):
                found.add(node.module)
                found |= {f"{node.module}.{a.name}" for a in node.names}  # `from bridge import errors`
        out[module] = found
    return out


def under(module: str, *roots: str) -> bool:
    return any(module == r or module.startswith(r + ".") for r in roots)


def offenders(importer_roots: tuple[str, ...], forbidden: tuple[str, ...], allowed: set[str] = frozenset()) -> list:
    return sorted((m, i) for m, found in imports().items() if under(m, *importer_roots) and m not in allowed
                  for i in found if under(i, *forbidden))


def test_nothing_imports_app_or_cli_but_the_entry_points():
    assert offenders(("bridge",), ("bridge.app",), {"bridge.cli"}) == []
    assert offenders(("bridge",), ("bridge.cli",), {"bridge.__main__"}) == []


def test_the_low_layers_import_nothing_above_them():
    low = ("bridge.registry", "bridge.pending", "bridge.protocol", "bridge.errors", "bridge.inbox", "bridge.questions")
    assert offenders(low, ("bridge.dispatch", "bridge.tools", "bridge.routes", "bridge.cockpit", "bridge.mcp_server",
                           "bridge.human", "bridge.state")) == []


def test_dispatch_knows_no_tool_route_cockpit_or_mcp_server_nor_the_bridges_state():
    assert offenders(("bridge.dispatch",), ("bridge.tools", "bridge.routes", "bridge.cockpit", "bridge.mcp_server",
                                            "bridge.human", "bridge.state", "bridge.agent")) == []


def test_asking_consent_and_open_file_get_their_parts_passed_in_not_the_bridges_state():
    human = ("bridge.human.asking", "bridge.human.consent", "bridge.human.editor", "bridge.human.elicit",
             "bridge.human.parts")
    assert offenders(human, ("bridge.state", "bridge.tools", "bridge.routes", "bridge.cockpit")) == []


def test_only_the_audit_touches_its_listener_queues_the_cockpit_goes_through_listen_and_unlisten():
    touching = sorted(m for m, tree in _modules() if m != "bridge.audit" for node in ast.walk(tree)
                      if isinstance(node, ast.Attribute) and node.attr in ("_listeners", "listeners")
                      and not (isinstance(node.value, ast.Name) and node.value.id == "self"))
    assert touching == []


def test_no_parameter_or_attribute_is_named_d_outside_the_desktop_where_it_is_the_x_display():
    """`d` meant the Dispatcher in one file and the X display in another: now it is only the display."""
    named_d = sorted({m for m, tree in _modules() if not under(m, "bridge.desktop") for node in ast.walk(tree)
                      if (isinstance(node, ast.arg) and node.arg == "d")
                      or (isinstance(node, ast.Attribute) and node.attr == "d")})
    assert named_d == []


def test_tools_reach_pages_through_dispatch_never_through_routes_or_the_cockpit():
    assert offenders(("bridge.tools",), ("bridge.routes", "bridge.cockpit", "bridge.mcp_server")) == []


def test_routes_know_no_tools():
    assert offenders(("bridge.routes", "bridge.cockpit"), ("bridge.tools", "bridge.mcp_server")) == []


def test_the_desktop_knows_nothing_of_routes_the_cockpit_or_the_tools():
    assert offenders(("bridge.desktop",), ("bridge.routes", "bridge.cockpit", "bridge.tools", "bridge.mcp_server",
                                           "bridge.dispatch")) == []


def test_the_team_bridge_backend_knows_no_cockpit_route_tool_or_mcp_server():
    assert offenders(("bridge.cluster",), ("bridge.cockpit", "bridge.routes", "bridge.tools", "bridge.mcp_server",
                                           "bridge.app", "bridge.cli")) == []


def test_only_the_shared_state_table_names_the_team_bridge_and_it_imports_it_lazily():
    """Nothing outside bridge.cluster imports it: bridge/shared_state.py names it by an import string."""
    outside = [(m, i) for m, i in offenders(("bridge",), ("bridge.cluster",)) if not under(m, "bridge.cluster")]
    assert outside == []
    from bridge.shared_state import BACKENDS

    assert BACKENDS["redis"].startswith("bridge.cluster:")


def test_each_desktop_backend_is_a_package_the_others_and_the_shared_parts_do_not_import():
    """x11/ and wayland/ are reached through the backend table's import strings (its module and `doctor` may read a
    backend's list of programs); atspi/, recording/ and the shared modules work for both."""
    from bridge.desktop import BACKENDS

    backends = ("bridge.desktop.x11", "bridge.desktop.wayland")
    for backend in backends:
        others = tuple(b for b in backends if b != backend)
        assert offenders((backend,), others) == []
    shared = [(m, i) for m, i in offenders(("bridge",), backends, {"bridge.desktop", "bridge.doctor"})
              if not under(m, *backends)]
    assert shared == []
    assert BACKENDS["x11"] == "bridge.desktop.x11.backend:X11Backend"
    assert BACKENDS["wayland"] == "bridge.desktop.wayland.backend:WaylandBackend"
