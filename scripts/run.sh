#!/usr/bin/env bash
# Command 1: install dbg-bridge into ./.venv and run it. The built-in demo page is at /demo.
# Extra arguments go to `dbg-bridge serve` (e.g. --port 0). Ctrl+C stops it.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x .venv/bin/python ]; then
  echo "==> creating .venv"
  python3 -m venv .venv
fi
echo "==> installing dbg-bridge (pip install -e .)"
.venv/bin/pip install --disable-pip-version-check -q -e . 2>&1 | grep -v '^WARNING: Location' || true
.venv/bin/dbg-bridge --version >/dev/null
exec .venv/bin/dbg-bridge serve "$@"
