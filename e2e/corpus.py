"""A static server for the third-party corpus (e2e/apps/<name>/node_modules/...): each app's files as published, with
the dbg-bridge script tag put at the top of every HTML page's <head> (what the Python middleware does)."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

APPS = Path(__file__).resolve().parent / "apps"

#: Files a published package refers to but does not ship, rebuilt to what its build makes. UIkit's test pages load
#: js/test.js, which its build generates from tests/js/index.js (a style switcher that writes the CSS and JS tags):
#: here only the tags, pointing at the published dist files.
SHIMS: dict[str, str] = {
    "/uikit/node_modules/uikit/tests/js/test.js": (
        "document.writeln('<link rel=\"stylesheet\" href=\"../dist/css/uikit.css\">');\n"
        "document.writeln('<script src=\"../dist/js/uikit.js\"></' + 'script>');\n"
        "document.writeln('<script src=\"../dist/js/uikit-icons.js\"></' + 'script>');\n"),
}


def inject(body: bytes, tag: bytes) -> bytes:
    low = body.lower()
    at = low.find(b"<head")
    at = low.find(b">", at) + 1 if at >= 0 else 0
    return body[:at] + tag + body[at:]


class _Handler(http.server.SimpleHTTPRequestHandler):
    tag: bytes = b""
    root: str = ""
    api: Callable[[str], Any] | None = None
    rewrite: dict[str, Any] = {}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, directory=self.root, **kwargs)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet test output
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def do_GET(self) -> None:  # noqa: N802
        if self.api is not None and self.answer_api():
            return None
        if self.path in SHIMS:
            data = SHIMS[self.path].encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/javascript")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return None
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        change = self.rewrite.get(self.path.split("?")[0])
        if change and isinstance(change[0], bytes):
            change = (change,)
        if (path.suffix != ".html" and not change) or not path.is_file():
            return super().do_GET()
        data = path.read_bytes()
        for old, new in change or ():
            data = data.replace(old, new)
        if path.suffix == ".html" and self.tag:
            data = inject(data, self.tag)
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8" if path.suffix == ".html" else "text/javascript")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


    def answer_api(self) -> bool:
        """Answer from `api` when it takes the path (returns JSON, not None)."""
        value = type(self).api(self.path)  # type: ignore[misc]
        if value is None:
            return False
        data = json.dumps(value).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        return True


class CorpusServer:
    """Serves e2e/apps on 127.0.0.1 (threaded, in-process); `url('todomvc/node_modules/todomvc/examples/backbone/')`."""

    def __init__(self, client_url: str | None, root: Path = APPS, api: Callable[[str], Any] | None = None,
                 rewrite: dict[str, tuple[bytes, bytes]] | None = None) -> None:
        """`api(path)` answers a GET with JSON when it returns something (a backend for the apps that call one);
        `rewrite` maps a URL path to one (old, new) byte replacement in that file (e.g. a CDN URL to the local
        copy); without client_url the pages are served untouched."""
        tag = f'<script src="{client_url}" data-attach="corpus"></script>'.encode() if client_url else b""
        handler = type("Handler", (_Handler,), {"tag": tag, "root": str(root), "api": staticmethod(api) if api else None,
                                                "rewrite": dict(rewrite or {})})
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}/{path.lstrip('/')}"

    def change(self, path: str, *pairs: tuple[bytes, bytes]) -> None:
        """From now on serve `path` (a URL path) with these (old, new) replacements, applied in order (a new version
        of the app deployed at the same URL); none: as published again."""
        rewrite = self.httpd.RequestHandlerClass.rewrite  # type: ignore[attr-defined]
        if pairs:
            rewrite[path] = pairs
        else:
            rewrite.pop(path, None)

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
