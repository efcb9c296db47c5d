"""Regenerate the docs that come from the code (a test fails when they are stale): docs/tools.md, docs/settings.md,
docs/commands.md, docs/layout.md's map, the tool tables in README.md and docs/desktop.md, docs/index.md (the site's
home page, from README.md) and the client's JSDoc wire types (inject/command_types.js)."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's bridge/, whichever checkout the venv was installed from

from bridge.gen.reference import DOCS  # noqa: E402

if __name__ == "__main__":
    for rel, render in DOCS.items():
        (ROOT / rel).write_text(render())
        print(f"wrote {rel}")
