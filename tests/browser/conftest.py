"""Browser tests: a built site served on 127.0.0.1, driven by the system Chromium.

Needs /usr/bin/chromium (Debian package `chromium`); never `playwright install`.
Two sites are built once per session:

* ``project_site``: the real project (mkdocs.yml, the ``ldr`` plugin, committed records under
  proofs/_results/) with the theme's fixture pages added under ``theme-check/``;
* ``fixture_site``: the theme alone on fixture records (tests/browser/fixtures), for the cases
  the committed records do not cover (a two-clock accelerator record).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1])]

from browser_support import LOCAL_HOSTS, Served, Watch  # noqa: E402,F401 - the tests' names
from build_site import build_fixture_site, build_project_site  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run"]
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
