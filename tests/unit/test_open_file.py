"""open_file confinement and the editor command: no traversal, no symlink escape, no shell."""

from pathlib import Path

import pytest

from bridge.human import confine, editor_argv


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "App.jsx").write_text("x")
    (tmp_path / "escape").symlink_to("/etc")
    return tmp_path


def test_relative_and_vite_style_paths_resolve_inside_the_root(root):
    assert confine(root, "src/App.jsx") == (root / "src/App.jsx").resolve()
    assert confine(root, "/src/App.jsx") == (root / "src/App.jsx").resolve()
    assert confine(root, str(root / "src/App.jsx")) == (root / "src/App.jsx").resolve()


@pytest.mark.parametrize("bad", ["../outside.txt", "src/../../x", "/etc/passwd", "escape/hostname", "", "src"])
def test_escapes_and_non_files_are_refused(root, bad):
    with pytest.raises(ValueError):
        confine(root, bad)


def test_editor_template_becomes_argv_without_a_shell(tmp_path):
    f = tmp_path / "a b; rm -rf ~.js"
    argv = editor_argv("code -g {file}:{line}:{column}", f, 3, None)
    assert argv == ["code", "-g", f"{f}:3:1"]
