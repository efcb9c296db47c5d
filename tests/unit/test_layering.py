"""The layering rules, checked over the imports (docs/architecture.md states them): one rule per package of bridge/
(`RULES`: what it may import besides itself, as each package's docstring says); tools -> dispatch -> {registry,
pending, protocol}; routes -> {dispatch, protocol}; nothing imports the app or the CLI; the dispatcher and the human
loop's objects get their parts passed in, never the bridge's state; the desktop knows nothing of routes, the cockpit
or the tools; the team bridge (bridge.cluster) is a backend behind bridge/shared/seam.py that knows no cockpit, route
or tool, and nothing imports it but itself. And no import cycle, TYPE_CHECKING and lazy imports counted, but the
few allowed below with their reason."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = {ROOT / "bridge": "bridge", ROOT / "cockpit": "bridge.cockpit", ROOT / "inject": "bridge.inject"}


@functools.cache
def _modules() -> list[tuple[str, ast.AST]]:
    """(module name, its parsed code) for every module of the bridge, the cockpit and the page client."""
    out = []
    for base, package in PACKAGES.items():
        for path in base.rglob("*.py"):
            parts = [p for p in path.relative_to(base).with_suffix("").parts if p != "__init__"]
            out.append((".".join([package, *parts]), ast.parse(path.read_text())))
    return out


@functools.cache
def imports() -> dict[str, set[str]]:
    """module -> the bridge modules it imports (at any depth of its code, lazy imports included)."""
    out: dict[str, set[str]] = {}
    modules = dict(_modules())
    for module, tree in modules.items():
        found: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found |= {a.name for a in node.names if a.name.startswith("bridge")}
            elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("bridge"):
                names = {f"{node.module}.{a.name}" for a in node.names}  # `from bridge import errors`
                found |= names
                if not names <= modules.keys():  # a name from the package itself, not only its modules
                    found.add(node.module)
        out[module] = found
    return out


def under(module: str, *roots: str) -> bool:
    return any(module == r or module.startswith(r + ".") for r in roots)


def offenders(importer_roots: tuple[str, ...], forbidden: tuple[str, ...], allowed: set[str] = frozenset()) -> list:
    return sorted((m, i) for m, found in imports().items() if under(m, *importer_roots) and m not in allowed
                  for i in found if under(i, *forbidden))


def test_nothing_imports_app_or_cli_but_the_entry_points():
    assert offenders(("bridge",), ("bridge.server.app",), {"bridge.cli.entry"}) == []
    # doctor's model check measures the tools/list a run gets, built the way the docs generator builds it
    assert offenders(("bridge",), ("bridge.server.mcp_server",),
                     {"bridge.server.app", "bridge.gen.reference", "bridge.cli.model_probe"}) == []
    outside = [(m, i) for m, i in offenders(("bridge",), ("bridge.cli",), {"bridge.__main__"})
               if not under(m, "bridge.cli") and i not in ("bridge.cli.command", "bridge.cli.command.invocation")]
    assert outside == []  # but the cockpit printing a command the way the CLI does (bridge/cli/command.py)


def test_the_low_layers_import_nothing_above_them():
    low = ("bridge.pages.registry", "bridge.pages.pending", "bridge.pages.protocol", "bridge.errors",
           "bridge.human.inbox", "bridge.human.questions")
    loop = ("bridge.human.asking", "bridge.human.consent", "bridge.human.editor", "bridge.human.elicit",
            "bridge.human.events", "bridge.human.parts")
    assert offenders(low, ("bridge.pages.dispatch", "bridge.tools", "bridge.routes", "bridge.cockpit",
                           "bridge.server.mcp_server", *loop, "bridge.state")) == []


def test_dispatch_knows_no_tool_route_cockpit_or_mcp_server_nor_the_bridges_state():
    assert offenders(("bridge.pages.dispatch",), ("bridge.tools", "bridge.routes", "bridge.cockpit",
                                                  "bridge.server.mcp_server", "bridge.human", "bridge.state",
                                                  "bridge.runs", "bridge.skills")) == []


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
    assert offenders(("bridge.tools",), ("bridge.routes", "bridge.cockpit", "bridge.server.mcp_server")) == []


def test_routes_know_no_tools():
    assert offenders(("bridge.routes", "bridge.cockpit"), ("bridge.tools", "bridge.server.mcp_server")) == []


def test_the_desktop_knows_nothing_of_routes_the_cockpit_or_the_tools():
    assert offenders(("bridge.desktop",), ("bridge.routes", "bridge.cockpit", "bridge.tools",
                                           "bridge.server.mcp_server", "bridge.pages.dispatch")) == []


def test_the_team_bridge_backend_knows_no_cockpit_route_tool_or_mcp_server():
    assert offenders(("bridge.cluster",), ("bridge.cockpit", "bridge.routes", "bridge.tools",
                                           "bridge.server.mcp_server", "bridge.server.app", "bridge.cli")) == []


def test_only_the_shared_state_table_names_the_team_bridge_and_it_imports_it_lazily():
    """Nothing outside bridge.cluster imports it: bridge/shared/seam.py names it by an import string."""
    outside = [(m, i) for m, i in offenders(("bridge",), ("bridge.cluster",)) if not under(m, "bridge.cluster")]
    assert outside == []
    from bridge.shared.seam import BACKENDS

    assert BACKENDS["redis"].parts.startswith("bridge.cluster:") and BACKENDS["local"].parts.startswith("bridge.shared")


def test_each_desktop_backend_is_a_package_the_others_and_the_shared_parts_do_not_import():
    """x11/ and wayland/ are reached through the backend table's import strings (its module and `doctor` may read a
    backend's list of programs); atspi/, recording/ and the shared modules work for both."""
    from bridge.desktop import BACKENDS

    backends = ("bridge.desktop.x11", "bridge.desktop.wayland")
    for backend in backends:
        others = tuple(b for b in backends if b != backend)
        assert offenders((backend,), others) == []
    shared = [(m, i) for m, i in offenders(("bridge",), backends, {"bridge.desktop", "bridge.cli.doctor"})
              if not under(m, *backends)]
    assert shared == []
    assert BACKENDS["x11"] == "bridge.desktop.x11.backend:X11Backend"
    assert BACKENDS["wayland"] == "bridge.desktop.wayland.backend:WaylandBackend"


#: The server's request plumbing (everything in bridge/server/ but the app and the MCP server on top of them).
TOP_OF_SERVER = ("bridge.server.app", "bridge.server.mcp_server")
PLUMBING = tuple(m for m in (f"bridge.server.{p.stem}" for p in (ROOT / "bridge" / "server").glob("*.py")
                             if p.stem != "__init__") if m not in TOP_OF_SERVER)
ANYTHING = ("bridge",)
#: One rule per package (and per top-level module): what it may import besides itself, as its docstring says.
RULES: dict[str, tuple[str, ...]] = {
    "bridge.errors": (),
    "bridge.settings": (),
    "bridge.audit": (),
    "bridge.state": ("bridge.settings", "bridge.audit", "bridge.desktop", "bridge.pages", "bridge.human",
                     "bridge.shared", *PLUMBING),
    "bridge.desktop": ("bridge.errors",),
    # key names, keysyms and typing for every backend: the desktop's errors and actions (lazily), never a backend
    "bridge.desktop.keyboard": ("bridge.desktop.errors", "bridge.desktop.actions"),
    "bridge.pages": ("bridge.errors", "bridge.settings", "bridge.shared", "bridge.human.inbox", *PLUMBING),
    "bridge.pages.up_messages": ("bridge.human",),  # a page's messages come in here
    "bridge.human": ("bridge.errors", "bridge.settings", "bridge.audit", "bridge.pages", "bridge.shared.seam",
                     *PLUMBING),
    # built from their parts (bridge/shared/seam.py Parts), never from the bridge's state
    "bridge.shared": ("bridge.settings", "bridge.pages", "bridge.human.inbox", "bridge.human.questions"),
    "bridge.cluster": ("bridge.errors", "bridge.pages", "bridge.human", "bridge.shared.seam"),
    "bridge.tools": ("bridge.errors", "bridge.settings", "bridge.state", "bridge.desktop", "bridge.pages",
                     "bridge.human", "bridge.runs.budgets", *PLUMBING),
    # the page tools: of the other tools only their shared parts, and page_open's desktop route desktop_open_url
    "bridge.tools.page": ("bridge.errors", "bridge.settings", "bridge.state", "bridge.desktop", "bridge.pages",
                          "bridge.human", "bridge.tools.base", "bridge.tools.outputs", "bridge.tools.desktop.apps",
                          *PLUMBING),
    # the one road into tools (bridge/tools/road.py) is all runs and skills know of the tools
    "bridge.runs": ("bridge.errors", "bridge.settings", "bridge.pages", "bridge.human", "bridge.tools.road",
                    *PLUMBING),
    "bridge.skills": ("bridge.errors", "bridge.settings", "bridge.state", "bridge.pages", "bridge.tools.road",
                      "bridge.shared.seam", "bridge.runs.seams", "bridge.runs.trace"),
    "bridge.routes": ("bridge.errors", "bridge.state", "bridge.inject", "bridge.pages", "bridge.human",
                      "bridge.runs", "bridge.skills", *PLUMBING),
    "bridge.cockpit": ("bridge.errors", "bridge.state", "bridge.desktop", "bridge.pages", "bridge.human",
                       "bridge.runs", "bridge.skills", "bridge.routes", "bridge.cli.command", *PLUMBING),
    "bridge.server": ("bridge.settings",),  # the plumbing
    "bridge.server.app": ANYTHING,
    "bridge.server.mcp_server": ("bridge.errors", "bridge.settings", "bridge.state", "bridge.human", "bridge.tools"),
    "bridge.gen": ("bridge.settings", "bridge.state", "bridge.pages", "bridge.tools", "bridge.server.mcp_server"),
    "bridge.inject": (),
    "bridge.cli": ANYTHING,
    "bridge.__main__": ("bridge.cli",),
}


def rule_of(module: str) -> tuple[str, tuple[str, ...]]:
    """The most specific rule that covers a module: (its scope, what it may import)."""
    scope = max((s for s in RULES if under(module, s)), key=len)
    return scope, RULES[scope]


def test_every_package_and_top_level_module_has_a_rule():
    assert sorted(m for m, _ in _modules() if m != "bridge" and not any(under(m, s) for s in RULES)) == []


def test_each_package_imports_only_what_its_rule_allows():
    """The package's own modules and the package's version (`from bridge import __version__`) are always allowed (a
    sub-package with a rule of its own, e.g. bridge.tools.page, owns only its own modules); the server's plumbing may
    not import the app or the MCP server above it."""
    broken = []
    for module, found in imports().items():
        if module == "bridge":  # __version__ alone
            assert found == set()
            continue
        scope, allowed = rule_of(module)
        sub_package = (ROOT.joinpath(*scope.split("."))).is_dir() and scope.count(".") > 1
        package = scope if sub_package else ".".join(module.split(".")[:2])
        for i in found:
            own = under(i, package) and not (scope == "bridge.server" and under(i, *TOP_OF_SERVER))
            if i in ("bridge", "bridge.__version__") or own or under(i, *allowed):
                continue
            broken.append((module, i))
    assert broken == []


def test_each_new_package_says_what_it_holds_and_what_it_may_import():
    for package in ("cli", "gen", "pages", "runs", "server", "shared", "skills", "tools/page", "desktop/keyboard"):
        doc = ast.get_docstring(ast.parse((ROOT / "bridge" / package / "__init__.py").read_text())) or ""
        assert "import" in doc, package


def module_graph() -> dict[str, set[str]]:
    """module -> the bridge modules it imports: top-level, lazy and TYPE_CHECKING imports alike; `from pkg import
    mod` is an edge to mod (not to pkg's __init__, which the submodule's import does not need)."""
    modules = dict(_modules())

    def target(name: str) -> str | None:
        if name in modules:
            return name
        parent = name.rsplit(".", 1)[0]
        return parent if parent in modules else None

    graph: dict[str, set[str]] = {}
    for module, tree in modules.items():
        edges: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                edges |= {t for a in node.names if a.name.startswith("bridge") and (t := target(a.name))}
            elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("bridge"):
                for a in node.names:
                    sub = f"{node.module}.{a.name}"
                    t = sub if sub in modules else target(node.module)
                    if t:
                        edges.add(t)
        graph[module] = edges - {module}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


#: Import edges that close a cycle, allowed with the reason (remove the edge's entry when the cycle is gone).
ALLOWED_CYCLE_EDGES: dict[tuple[str, str], str] = {
    ("bridge.desktop.keyboard.type_text", "bridge.desktop.actions"):
        "both lazy: type_text.py is actions.type_text's body, split out for size, and reads actions' clickable_point",
}


def test_the_module_graph_has_no_cycle_but_the_allowed_ones():
    graph = module_graph()
    for (importer, imported), _reason in ALLOWED_CYCLE_EDGES.items():
        assert imported in graph[importer], f"{importer} -> {imported} is gone: drop it from ALLOWED_CYCLE_EDGES"
        graph[importer].discard(imported)
    assert cycles(graph) == []


def test_the_cycle_finder_finds_a_type_checking_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
