"""The cockpit: the human's console at `/` (routes, templates, JS/CSS), shipped as the package `bridge.cockpit`."""
