"""docs/layout.md's map of the code, generated from the packages' and modules' docstrings: one section per Python
package (its docstring's first paragraph, then each module with its first sentence), so the map cannot name a
folder that does not exist or miss one that does."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: The Python packages the map covers, each walked for subpackages. bridge/inject and bridge/cockpit are the top-level
#: inject/ and cockpit/ (package-dir in pyproject.toml), so they are read there and not twice.
TOPS = ("bridge", "inject", "cockpit")
SKIP = {"bridge/inject", "bridge/cockpit"}


def docstring(path: Path) -> str:
    """A module's docstring, or '' when it has none."""
    return ast.get_docstring(ast.parse(path.read_text())) or ""


def first_paragraph(text: str) -> str:
    return " ".join(text.split("\n\n")[0].split())


def first_sentence(text: str) -> str:
    """The first sentence of the first paragraph: up to a full stop followed by a capital (or the paragraph's end)."""
    para = first_paragraph(text)
    match = re.search(r"(?<=[.!?])\s+(?=[A-Z`])", para)
    return para[:match.start()] if match else para


def js_comment(path: Path) -> str:
    """A JS file's leading comment (after `// @ts-check`), with the page client parts' common opening left out."""
    lines = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if line == "// @ts-check" or (not lines and not line):
            continue
        if not line.startswith(("//", "/*", "*")) or line == "*/":
            break
        lines.append(line.lstrip("/*").strip())
    return " ".join(lines).replace("dbg-bridge page client, part: ", "")


def describe(path: Path) -> str:
    return first_sentence(docstring(path) if path.suffix == ".py" else js_comment(path))


def folder(path: Path) -> str:
    """A subfolder's line: a package's first sentence, or what a folder of data files holds."""
    if (path / "__init__.py").exists():
        return first_sentence(docstring(path / "__init__.py"))
    return ", ".join(f"`{f.name}`" for f in sorted(path.iterdir())
                     if f.name != "__pycache__" and not f.name.startswith("."))


def packages() -> list[Path]:
    """Every package folder under TOPS (a folder with an __init__.py), parents before children, in path order."""
    found = []
    for top in TOPS:
        for init in sorted((ROOT / top).rglob("__init__.py")):
            rel = init.parent.relative_to(ROOT).as_posix()
            if not any(rel == s or rel.startswith(s + "/") for s in SKIP) and "node_modules" not in rel:
                found.append(init.parent)
    return found


def cell(text: str) -> str:
    return text.replace("|", "\\|")


def render_block() -> str:
    """The generated part of docs/layout.md: a section per package with a table of its modules."""
    out = []
    for pkg in packages():
        rel = pkg.relative_to(ROOT).as_posix()
        out.append(f"### `{rel}/`\n\n{first_paragraph(docstring(pkg / '__init__.py'))}\n")
        rows = [f"| `{module.name}` | {cell(describe(module)) or '—'} |"
                for module in sorted([*pkg.glob("*.py"), *pkg.glob("*.js")]) if module.name != "__init__.py"]
        folders = sorted(p for p in pkg.iterdir() if p.is_dir() and f"{rel}/{p.name}" not in SKIP
                         and p.name not in {"__pycache__", "node_modules"})
        rows += [f"| `{p.name}/` | {cell(folder(p))} |" for p in folders]
        if rows:
            out.append("| module | what it holds |\n|---|---|\n" + "\n".join(rows) + "\n")
    return "\n".join(out)
