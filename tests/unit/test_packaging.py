"""The wheel carries every package: the explicit list in pyproject.toml (needed for the inject/ and cockpit/
mappings) cannot fall behind the tree."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_python_package_of_the_bridge_is_in_the_wheel_list():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    on_disk = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "bridge").rglob("__init__.py")}
    assert on_disk <= listed, f"add to [tool.setuptools] packages in pyproject.toml: {sorted(on_disk - listed)}"
