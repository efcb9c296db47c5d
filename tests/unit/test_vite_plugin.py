"""The Vite plugin's own tests (node --test): JSX tagging, source maps, dev-only injection."""

import shutil
import subprocess
from pathlib import Path

PLUGIN = Path(__file__).resolve().parents[2] / "plugins" / "vite"


def test_vite_plugin_node_tests_pass():
    node = shutil.which("node")
    assert node, "Node.js is required (./scripts/test.sh expects it on PATH)"
    assert (PLUGIN / "node_modules" / "@babel" / "parser").exists(), "run ./scripts/test.sh (npm ci in plugins/vite)"
    proc = subprocess.run([node, "--test", "test/"], cwd=PLUGIN, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "# fail 0" in proc.stdout
