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
