#!/usr/bin/env bash
# Regenerate the framework test apps in e2e/frameworks/<app> from the official create-vite templates, plus a
# known diff kept in the repo (e2e/frameworks/scaffold/<app>.patch: the test App component, the dbg-bridge
# plugin in vite.config.js, exact version pins, lint tooling dropped).
#
#   scripts/scaffold_framework_apps.sh            rewrite the apps (node_modules kept), then `git diff` shows any drift
#   scripts/scaffold_framework_apps.sh --check    regenerate in a scratch folder and compare with the committed apps
#   scripts/scaffold_framework_apps.sh react vue  only these apps
#
# Needs the npm registry (`npm create vite@<pinned>` downloads create-vite, and `npm install --package-lock-only`
# resolves the lock file). Not part of ./scripts/test.sh or CI: the committed apps are what the tests use.
# Each step, per app:
#   1. npm create vite@<pinned> <app> -- --template <react|vue|react-ts> --no-interactive   (in a temp folder)
#   2. git apply e2e/frameworks/scaffold/<app>.patch                           (fails on any mismatch)
#   3. npm install --package-lock-only, starting from the committed package-lock.json (keeps its resolutions)
set -euo pipefail
cd "$(dirname "$0")/.."
FRAMEWORKS=e2e/frameworks

# app  create-vite version  template  extra create-vite flags
APPS=(
  "react        8.3.0  react  --no-rolldown"   # create-vite 8.x: the last templates on Vite 7
  "vue          8.3.0  vue    --no-rolldown"
  "react-vite8  9.3.0  react  -"               # create-vite 9.x: Vite 8 (Rolldown)
  "react-ts     9.3.0  react-ts  -"            # React + TypeScript: the debugging app (e2e/test_debugging.py)
)

check=0
wanted=()
for arg in "$@"; do
  case "$arg" in
    --check) check=1 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    -*) echo "unknown option $arg" >&2; exit 2 ;;
    *) wanted+=("$arg") ;;
  esac
done

scratch=$(mktemp -d)
staged=()
cleanup() {
  rm -rf "$scratch"
  for dir in "${staged[@]}"; do rm -rf "$dir"; done
}
trap cleanup EXIT

status=0
for row in "${APPS[@]}"; do
  read -r app cv template extra <<<"$row"
  if [ ${#wanted[@]} -gt 0 ] && [[ ! " ${wanted[*]} " == *" $app "* ]]; then continue; fi
  [ "$extra" = "-" ] && extra=""
  echo "==> $app: create-vite@$cv --template $template + $FRAMEWORKS/scaffold/$app.patch"
  # 1. the official template (the folder name becomes the package name the patch expects)
  # shellcheck disable=SC2086
  (cd "$scratch" && npm create --yes "vite@$cv" "$app" -- --template "$template" --no-interactive --no-immediate $extra \
     </dev/null >"$scratch/$app.log" 2>&1) || { cat "$scratch/$app.log" >&2; exit 1; }
  # 2. the test additions (git apply outside any repository: plain patch semantics, no fuzz)
  git -C "$scratch/$app" apply --whitespace=nowarn "$PWD/$FRAMEWORKS/scaffold/$app.patch"
  # 3. the lock file, resolved beside the committed app (same depth: file:../../../plugins/vite must resolve)
  stage="$FRAMEWORKS/.scaffold-$app"
  rm -rf "$stage"
  staged+=("$stage")
  cp -a "$scratch/$app" "$stage"
  if [ -f "$FRAMEWORKS/$app/package-lock.json" ]; then cp "$FRAMEWORKS/$app/package-lock.json" "$stage/"; fi
  (cd "$stage" && npm install --package-lock-only --no-audit --no-fund --loglevel=error >/dev/null)
  if [ "$check" = 1 ]; then
    if diff -r --exclude=node_modules "$stage" "$FRAMEWORKS/$app"; then
      echo "    $FRAMEWORKS/$app is the template plus the patch"
    else
      echo "    $FRAMEWORKS/$app differs from the template plus the patch (above)" >&2
      status=1
    fi
  else
    mkdir -p "$FRAMEWORKS/$app"
    find "$FRAMEWORKS/$app" -mindepth 1 -maxdepth 1 ! -name node_modules -exec rm -rf {} +
    cp -a "$stage/." "$FRAMEWORKS/$app/"
    echo "    wrote $FRAMEWORKS/$app (npm ci there to install)"
  fi
done
exit $status
