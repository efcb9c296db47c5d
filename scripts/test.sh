#!/usr/bin/env bash
# Command 2: install everything the tests need on a fresh Debian machine, then run the whole suite.
#   Debian's chromium (never `playwright install`), the desktop packages (Xvfb, openbox, AT-SPI, tesseract), Debian's
#   firefox-esr and WebKitGTK (the page client in other engines), Python deps in ./.venv, TypeScript (for
#   tsc --checkJs) in ./.tools.
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

# the desktop_* tests: a private desktop (Xvfb, openbox, D-Bus, AT-SPI), a GTK and a Tk test app, tesseract for OCR,
# and what PyGObject needs to build (Debian 12 has no girepository-2.0, so pip builds pygobject<3.52 from source);
# e2e/test_engines.py: Firefox ESR and WebKitGTK 6.0 on GTK 4 (e2e/webkit_window.py runs on the venv's PyGObject)
# + redis-server: the team-bridge tests (e2e/test_cluster.py) start a private one per run; haproxy: a real load
# balancer in front of the replicas; sway, grim, wtype: the Wayland desktop backend on headless sway
DESKTOP_PKGS="redis-server xvfb openbox x11-utils xdotool at-spi2-core dbus gir1.2-atspi-2.0 gir1.2-gtk-3.0 \
  libgirepository1.0-dev libcairo2-dev pkg-config gcc python3-dev python3-tk tesseract-ocr \
  x11-xserver-utils gnome-calculator qt6ct galculator \
  firefox-esr gir1.2-webkit-6.0 gir1.2-gtk-4.0 \
  sway grim wtype qt6-wayland python3-gi haproxy gnome-text-editor"
missing=""
for pkg in $DESKTOP_PKGS; do
  dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null | grep -qx installed || missing="$missing $pkg"
done
if [ -n "$missing" ]; then
  echo "==> installing desktop test packages (apt):$missing"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q
  # shellcheck disable=SC2086
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing >/dev/null
fi

if [ ! -x .venv/bin/python ]; then
  echo "==> creating .venv"
  python3 -m venv .venv
fi
echo "==> installing Python packages (pip install -e '.[test,desktop]')"
.venv/bin/pip install --disable-pip-version-check -q -e '.[test,desktop]' 2>&1 | grep -v '^WARNING: Location' || true

if [ ! -x .tools/node_modules/.bin/tsc ]; then
  echo "==> installing TypeScript into .tools (checks inject/dbg_client.js; no build step)"
  mkdir -p .tools
  npm install --prefix .tools --no-audit --no-fund --silent typescript@5 >/dev/null
fi

if [ ! -x .tools/conformance/node_modules/.bin/conformance ]; then
  echo "==> installing the official MCP conformance suite on Node 22 into .tools/conformance (e2e/test_conformance.py)"
  mkdir -p .tools/conformance
  [ -f .tools/conformance/package.json ] || echo '{"private": true}' > .tools/conformance/package.json
  npm install --prefix .tools/conformance --no-audit --no-fund --silent \
    node@22.23.3 @modelcontextprotocol/conformance@0.1.16 >/dev/null
fi
if [ ! -x .tools/inspector/node_modules/.bin/mcp-inspector ]; then
  echo "==> installing the MCP Inspector 2.12.0 into .tools/inspector (e2e/test_schema_portability.py; runs on Node 22)"
  mkdir -p .tools/inspector
  [ -f .tools/inspector/package.json ] || echo '{"private": true}' > .tools/inspector/package.json
  npm install --prefix .tools/inspector --no-audit --no-fund --silent @modelcontextprotocol/inspector@2.12.0 >/dev/null
fi

for app in plugins/vite e2e/frameworks/react e2e/frameworks/vue e2e/frameworks/react-vite8 e2e/frameworks/react-ts \
    e2e/frameworks/preact e2e/webpack_app e2e/ts_client $(ls -d e2e/apps/*/ | sed 's:/$::'); do
  # the Vite plugin's deps, the real React and Vue apps on Vite 7 and the React app on Vite 8 (Vite dev server) for
  # e2e/test_frameworks.py, the webpack 5 app for e2e/test_webpack.py, and the third-party corpus (apps from npm, pinned,
  # served as published) for e2e/test_third_party.py; skipped when up to date.
  # The framework apps are committed as generated (scripts/scaffold_framework_apps.sh is not run here: it needs
  # create-vite from the network)
  if [ ! "$app/node_modules/.package-lock.json" -nt "$app/package-lock.json" ]; then
    echo "==> installing $app (npm ci)"
    npm ci --prefix "$app" --no-audit --no-fund --loglevel=error >/dev/null
  fi
done

# Further set-up steps, one file per concern (each idempotent, cached under .tools/): see scripts/setup.d/README
for step in scripts/setup.d/*.sh; do
  [ -e "$step" ] || continue
  # shellcheck disable=SC1090
  . "$step"
done

echo "==> running the test suite"
exec .venv/bin/python -m pytest "$@"
