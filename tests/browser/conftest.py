"""Browser tests: a built site served on 127.0.0.1, driven by the system Chromium.

Needs /usr/bin/chromium (Debian package `chromium`); never `playwright install`.
Two sites are built once per session:

* ``project_site``: the real project (mkdocs.yml, the ``ldr`` plugin, committed records under
  proofs/_results/) with the theme's fixture pages added under ``theme-check/``;
* ``fixture_site``: the theme alone on fixture records (tests/browser/fixtures), for the cases
  the committed records do not cover (a two-clock accelerator record).
"""

from __future__ import annotations

import functools
import http.server
import sys
import threading
from pathlib import Path
from urllib.parse import urlparse

import pytest

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1])]

from build_site import build_fixture_site, build_project_site  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run"]
LOCAL_HOSTS = {"127.0.0.1", "localhost"}


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class Served:
    def __init__(self, folder: Path, label: str):
        self.folder, self.label = folder, label
        handler = functools.partial(_Quiet, directory=str(folder))
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}/"

    def url(self, path: str = "") -> str:
        return self.base + path.lstrip("/")

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="session")
def project_site(tmp_path_factory):
    """The real project with the theme's fixture pages; a chapter that fails to build fails here."""
    out = tmp_path_factory.mktemp("project")
    served = Served(out / "site", "project")
    build_project_site(out, with_docs=True, site_url=served.base)
    served.with_docs = True
    yield served
    served.close()


@pytest.fixture(scope="session")
def fixture_site(tmp_path_factory):
    out = tmp_path_factory.mktemp("fixture")
    served = Served(out / "site", "fixture")
    build_fixture_site(out, site_url=served.base)
    yield served
    served.close()


@pytest.fixture(scope="module")
def browser():
    """One Chromium per test module: a sync Playwright left running for the whole session would
    stop other folders' browser tests from starting their own."""
    if not CHROMIUM.exists():
        pytest.skip("no /usr/bin/chromium (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        yield chromium
        chromium.close()


class Watch:
    """Every request a page makes and every console error it logs."""

    def __init__(self, page):
        self.requests: list[str] = []
        self.errors: list[str] = []
        # the context sees the page's requests and its workers' (search) too
        page.on("request", lambda req: self.requests.append(req.url))
        page.context.on("request", lambda req: self.requests.append(req.url))
        page.on("console", lambda msg: msg.type == "error" and self.errors.append(msg.text))
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))

    def external(self) -> list[str]:
        return [u for u in self.requests
                if urlparse(u).scheme not in ("data", "blob", "about") and urlparse(u).hostname not in LOCAL_HOSTS]

    def check(self):
        assert not self.external(), f"requests left localhost: {self.external()}"
        assert not self.errors, f"console errors: {self.errors}"


@pytest.fixture
def open_page(browser):
    contexts = []

    def _open(url: str, *, width: int = 1440, height: int = 900, scheme: str | None = None,
              javascript: bool = True):
        context = browser.new_context(viewport={"width": width, "height": height},
                                      java_script_enabled=javascript, color_scheme=scheme or "light")
        contexts.append(context)
        page = context.new_page()
        watch = Watch(page)
        page.goto(url, wait_until="load")
        if javascript:
            page.wait_for_function("() => !!document.querySelector('[data-ldr-meter][data-ldr-ready]')")
        return page, watch

    yield _open
    for context in contexts:
        context.close()
