"""The test tiers (the root conftest.py's TIERS) match the markers pyproject declares and the folders that hold tests:
every test carries its tier's marker, so `-m` selects tiers as the declarations say."""

from __future__ import annotations

import importlib.util
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def tiers() -> tuple[tuple[str, str], ...]:
    spec = importlib.util.spec_from_file_location("root_conftest", ROOT / "conftest.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.TIERS


def declared_markers() -> set[str]:
    ini = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    return {line.split(":", 1)[0].strip() for line in ini["markers"]}


def test_every_tier_marker_is_declared_in_pyproject_and_every_declared_marker_is_a_tier():
    assert {marker for _, marker in tiers()} == declared_markers()


def test_every_folder_that_holds_tests_is_a_tier():
    folders = {p.parent.relative_to(ROOT).as_posix()
               for top in ("tests", "e2e") for p in (ROOT / top).rglob("test_*.py")}
    tier_paths = [path for path, _ in tiers()]
    strays = sorted(f for f in folders if not any(f == t or f.startswith(t + "/") for t in tier_paths))
    assert strays == [], f"test folders outside every tier (add them to TIERS in conftest.py): {strays}"
