"""Regenerate docs/tools.md, docs/settings.md, docs/commands.md and the client's CommandName typedef from the code (a test fails when they are stale)."""

from pathlib import Path

from bridge.gen.reference import DOCS

ROOT = Path(__file__).resolve().parents[1]

if __name__ == "__main__":
    for rel, render in DOCS.items():
        (ROOT / rel).write_text(render())
        print(f"wrote {rel}")
