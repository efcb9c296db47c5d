"""The wheel carries every package: the explicit list in pyproject.toml (needed for the inject/ and cockpit/
mappings) cannot fall behind the tree."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_python_package_of_the_bridge_is_in_the_wheel_list():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    on_disk = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "bridge").rglob("__init__.py")}
    assert on_disk <= listed, f"add to [tool.setuptools] packages in pyproject.toml: {sorted(on_disk - listed)}"


def test_no_package_attribute_is_shadowed_by_a_submodule_of_the_same_name():
    """`import bridge.x.y` sets attribute `y` on `bridge.x`: a function of that name in `bridge/x/__init__.py` would
    be replaced by the module, depending on import order."""
    import ast

    for init in (ROOT / "bridge").rglob("__init__.py"):
        names = {n.name for n in ast.parse(init.read_text()).body if isinstance(n, ast.FunctionDef | ast.ClassDef)}
        submodules = {p.stem for p in init.parent.glob("*.py")} | {p.name for p in init.parent.iterdir() if p.is_dir()}
        assert not names & submodules, f"{init}: {sorted(names & submodules)} is both a definition and a submodule"


def test_the_console_script_entry_point_is_a_function_in_a_fresh_interpreter():
    """`dbg-bridge = "bridge.cli:main"` is run as `from bridge.cli import main; main()`: `main` must be the function
    (bridge/cli/__init__.py imports it lazily), never a submodule that an import put in its place."""
    import subprocess
    import sys

    script = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]["dbg-bridge"]
    module, name = script.split(":")
    code = f"import types; from {module} import {name} as f; assert isinstance(f, types.FunctionType), f; print(f.__module__)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "bridge.cli.entry"
