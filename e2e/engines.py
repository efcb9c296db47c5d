"""Browsers that are not Chromium, launched as plain child processes on one URL: Debian's Firefox ESR (headless, a
throwaway profile) and WebKitGTK (e2e/webkit_window.py in a private Xvfb). No WebDriver, no CDP: once the page is
open, the page's dbg-bridge client is the only driver."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.support import stop_group

FIREFOX = "/usr/bin/firefox-esr"
WEBKIT_WINDOW = Path(__file__).resolve().parent / "webkit_window.py"

#: user.js of the throwaway profile: no first-run pages, updates, telemetry, studies, safe-browsing lists or other
#: background traffic; no proxy (the tests talk to loopback only); no session restore.
FIREFOX_PREFS = {
    "browser.shell.checkDefaultBrowser": False,
    "browser.startup.homepage_override.mstone": "ignore",
    "browser.startup.page": 0,
    "browser.aboutwelcome.enabled": False,
    "browser.newtabpage.enabled": False,
    "browser.sessionstore.resume_from_crash": False,
    "browser.tabs.warnOnClose": False,
    "startup.homepage_welcome_url": "about:blank",
    "startup.homepage_welcome_url.additional": "",
    "trailhead.firstrun.didSeeAboutWelcome": True,
    "toolkit.startup.max_resumed_crashes": -1,
    "app.update.auto": False,
    "app.update.checkInstallTime": False,
    "app.update.disabledForTesting": True,
    "app.normandy.enabled": False,
    "app.shield.optoutstudies.enabled": False,
    "extensions.update.enabled": False,
    "extensions.getAddons.cache.enabled": False,
    "extensions.blocklist.enabled": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "datareporting.healthreport.uploadEnabled": False,
    "toolkit.telemetry.enabled": False,
    "toolkit.telemetry.unified": False,
    "toolkit.telemetry.server": "",
    "browser.ping-centre.telemetry": False,
    "browser.safebrowsing.malware.enabled": False,
    "browser.safebrowsing.phishing.enabled": False,
    "browser.safebrowsing.downloads.enabled": False,
    "browser.safebrowsing.blockedURIs.enabled": False,
    "browser.region.network.url": "",
    "browser.search.update": False,
    "services.settings.server": "http://127.0.0.1:9/",
    "media.gmp-manager.url": "",
    "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False,
    "network.dns.disablePrefetch": True,
    "network.prefetch-next": False,
    "network.proxy.type": 0,
    "dom.disable_open_during_load": False,
}


def user_js(prefs: dict[str, object]) -> str:
    def lit(v: object) -> str:
        return ("true" if v else "false") if isinstance(v, bool) else str(v) if isinstance(v, int) else f'"{v}"'

    return "".join(f'user_pref("{k}", {lit(v)});\n' for k, v in prefs.items())


class Engine:
    """One browser process showing one URL; `stop()` ends it and everything it started, and reaps it."""

    name = ""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[bytes] | None = None
        self.tmp = Path(tempfile.mkdtemp(prefix=f"dbg-{self.name}-"))
        self.log = self.tmp / "browser.log"

    def command(self, url: str) -> list[str]:
        raise NotImplementedError

    def env(self) -> dict[str, str]:
        return dict(os.environ)

    def start(self, url: str) -> Engine:
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(self.command(url), env=self.env(), stdin=subprocess.DEVNULL, stdout=log,
                                         stderr=subprocess.STDOUT, start_new_session=True)
        return self

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def log_tail(self) -> str:
        return self.log.read_text(errors="replace")[-3000:] if self.log.exists() else ""

    def stop(self) -> None:
        if self.proc is not None:
            stop_group(self.proc)
            self.proc = None
        shutil.rmtree(self.tmp, ignore_errors=True)


class Firefox(Engine):
    """`firefox-esr --headless --no-remote --profile <tmp>` with a user.js that keeps it quiet."""

    name = "firefox"

    def command(self, url: str) -> list[str]:
        profile = self.tmp / "profile"
        profile.mkdir()
        (profile / "user.js").write_text(user_js(FIREFOX_PREFS))
        return [FIREFOX, "--headless", "--no-remote", "--profile", str(profile), url]

    def env(self) -> dict[str, str]:
        env = super().env()
        env.pop("DISPLAY", None)
        env.update(MOZ_HEADLESS="1", MOZ_CRASHREPORTER_DISABLE="1", MOZ_DISABLE_AUTO_SAFE_MODE="1")
        return env


class WebKitGtk(Engine):
    """e2e/webkit_window.py (GTK 4, WebKitGTK 6.0) on a private Xvfb display with a private session bus."""

    name = "webkit"

    def __init__(self) -> None:
        super().__init__()
        from bridge.desktop.session import start_private

        self.desktop = start_private((1280, 900))

    def command(self, url: str) -> list[str]:
        return [sys.executable, str(WEBKIT_WINDOW), url, str(self.tmp)]

    def env(self) -> dict[str, str]:
        return dict(self.desktop.env)

    def stop(self) -> None:
        super().stop()
        self.desktop.stop()


ENGINES: dict[str, type[Engine]] = {"firefox": Firefox, "webkit": WebKitGtk}
