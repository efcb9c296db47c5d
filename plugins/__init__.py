"""The bundler plugins (vite/, webpack/), shipped in the wheel as package data of `bridge.plugins`:
`dbg-bridge plugin vite|webpack` packs one into an npm tarball (bridge/cli/plugin.py)."""
