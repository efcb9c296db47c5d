"""page_act's upload: files from the folders the human named (--upload-dir) handed to a page's file input, as if
picked in its file chooser (which synthetic input cannot open, and real input cannot fill from here).

The agent names paths; the bridge confines each to an upload folder (no '..', no symlink out, no dotfile or
secret-looking name: the same rules as open_file), bounds the total size, asks the human (consent class `upload`,
with the file list), then sends the contents with the act. The page builds File objects from them."""

from __future__ import annotations

import base64
import mimetypes
from pathlib import Path

from bridge import errors
from bridge.pages import commands as m
from bridge.human.editor import Refused, confine, secret_like
from bridge.tools.page.handle import Page


def pick(dirs: list[Path], name: str, secrets_ok: bool = False) -> Path:
    """The file `name` under one of `dirs` (relative names tried against each in turn), or a named error."""
    why = ""
    for root in dirs:
        try:
            path = confine(root, name)
        except Refused as exc:
            why = str(exc)
            continue
        part = secret_like(root, path)
        if part is not None and not secrets_ok:
            raise errors.BridgeError(f"{name} is not handed to pages: {part!r} looks like a dotfile or a secret. "
                                     "Copy what the page needs to a plain file in the upload folder.",
                                     code="upload_refused")
        return path
    folders = ", ".join(str(d) for d in dirs)
    raise errors.BridgeError(f"{name} is not a file in the upload folders ({folders}): {why}. Name a file under "
                             "them (relative names are read from there).", code="upload_refused")


async def files_of(page: Page, params: m.ActParams) -> list[list[m.Upload] | None] | None:
    """The files of each upload action of an act, read after the human's consent (the act's `uploads`, by the
    action's place in the batch); None when no action uploads."""
    batch = params.actions if params.actions is not None else [params]
    if not any(a.action == "upload" for a in batch):
        return None
    settings = page.settings
    if not settings.upload_dir:
        raise errors.BridgeError("Uploads are off: the bridge hands pages only files from folders the human names. "
                                 "Start it with --upload-dir DIR (or upload_dir in config.toml) and put the files "
                                 "there.", code="upload_not_allowed")
    chosen: list[list[Path] | None] = []
    listed: list[str] = []
    total = 0
    for a in batch:
        if a.action != "upload":
            chosen.append(None)
            continue
        if not a.files:
            raise errors.BridgeError("upload needs `files`: paths under the upload folder.", code="invalid_argument")
        got = []
        for name in a.files:
            path = pick(settings.upload_dir, name)
            total += path.stat().st_size
            if total > settings.upload_max_bytes:
                raise errors.BridgeError(f"The files come to more than upload_max_bytes ({settings.upload_max_bytes}"
                                         " bytes). Upload fewer or smaller files.", code="upload_too_large")
            got.append(path)
            listed.append(f"{path} ({path.stat().st_size} bytes)")
        chosen.append(got)
    # the human answers in the cockpit (bridge/human/consent.py COCKPIT_ONLY); no file is read before they allow it
    await page.consent("upload", "\n".join(listed))
    return [None if paths is None else [read(path) for path in paths] for paths in chosen]


def read(path: Path) -> m.Upload:
    return m.Upload(name=path.name, type=mimetypes.guess_type(path.name)[0] or "",
                    data=base64.b64encode(path.read_bytes()).decode("ascii"))
