#!/usr/bin/env bash
# Command 2: install everything the tests need on a fresh Debian machine, then run the whole suite.
#   Debian's chromium (never `playwright install`), Python deps in ./.venv, TypeScript (for tsc --checkJs) in ./.tools.
# Extra arguments go to pytest (e.g. -k frames, -x).
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null; then SUDO="sudo"; fi

if [ ! -x /usr/bin/chromium ]; then
  echo "==> installing Debian chromium (apt)"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null
fi

if [ ! -x .venv/bin/python ]; then
  echo "==> creating .venv"
  python3 -m venv .venv
fi
echo "==> installing Python packages (pip install -e '.[test]')"
.venv/bin/pip install --disable-pip-version-check -q -e '.[test]' 2>&1 | grep -v '^WARNING: Location' || true

if [ ! -x .tools/node_modules/.bin/tsc ]; then
  echo "==> installing TypeScript into .tools (checks inject/dbg_client.js; no build step)"
  mkdir -p .tools
  npm install --prefix .tools --no-audit --no-fund --silent typescript@5 >/dev/null
fi

echo "==> running the test suite"
exec .venv/bin/python -m pytest "$@"
