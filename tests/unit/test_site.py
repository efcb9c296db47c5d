"""The docs site (mkdocs.yml, docs/) builds in strict mode: a broken link or anchor, a page missing from the nav,
or any other warning fails the build, and so this test."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_docs_site_builds_strictly(tmp_path: Path):
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-f",
                           str(ROOT / "mkdocs.yml"), "-d", str(tmp_path / "site")], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stdout}{done.stderr}"
    built = {p.relative_to(tmp_path / "site").as_posix() for p in (tmp_path / "site").rglob("*.html")}
    assert {f"{p.stem}.html" for p in (ROOT / "docs").glob("*.md")} <= built
    # a fence Python-Markdown cannot render (e.g. indented inside a list item) comes out as text with its backticks
    unrendered = [name for name in sorted(built) if "```" in (tmp_path / "site" / name).read_text()]
    assert unrendered == [], f"code fences shown as text (move them out of list items): {unrendered}"


def test_a_broken_link_fails_the_build(tmp_path: Path):
    """The strictness is real: the same config over a copy of docs/ with one dead link does not build."""
    docs = tmp_path / "docs"
    subprocess.run(["cp", "-r", str(ROOT / "docs"), str(docs)], check=True)
    (docs / "benchmarks.md").write_text((docs / "benchmarks.md").read_text() + "\n[gone](no-such-page.md)\n")
    config = tmp_path / "mkdocs.yml"
    config.write_text((ROOT / "mkdocs.yml").read_text())
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config),
                           "-d", str(tmp_path / "site")], capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "no-such-page.md" in done.stdout + done.stderr
