"""Helpers for the browser tests: where records and screenshots live, a folder served on
127.0.0.1 (Served) and what a page requests and logs (Watch). Tests import them from here, never
from ``conftest`` (a name every test folder has: which one a bare import finds depends on the run)."""

from __future__ import annotations

import functools
import http.server
import io
import json
import threading
from pathlib import Path
from urllib.parse import urlparse

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SCREENSHOTS = HERE / "screenshots"


def record(name: str, device_class: str = "cpu") -> dict:
    """A committed proof record's data, as the project stores it."""
    return json.loads((ROOT / "proofs" / "_results" / f"{name}.{device_class}.json").read_text())["data"]


def embedded_record(name: str, device_class: str = "cpu") -> dict:
    """A committed record's data as an instrument's script gets it: its floats at six
    significant digits, whole ones as ints (build_hooks/series/instruments/_common.py)."""
    from build_hooks.series.instruments._common import compact

    return compact(record(name, device_class))


def fixture_record(name: str, device_class: str = "cpu") -> dict:
    return json.loads((HERE / "fixtures" / f"{name}.{device_class}.json").read_text())["data"]


def instant_ready(page):
    """Wait until mkdocs-material's instant navigation takes clicks.

    Its click handler subscribes only once ``sitemap.xml`` has been fetched and parsed (a
    link outside the sitemap is followed as a full page load), so a click made before that,
    as on a busy machine, reloads the page. ``networkidle`` comes 500 ms after the last
    request ends, the sitemap's included.
    """
    page.wait_for_function("() => performance.getEntriesByType('resource')"
                           ".some(e => e.name.endsWith('/sitemap.xml') && e.responseEnd > 0)")
    page.wait_for_load_state("networkidle")


def click_nav(page, path: str):
    """Click the navigation link to ``path`` (the project's own parts may have the same names)."""
    instant_ready(page)
    page.evaluate("p => { const a = Array.from(document.querySelectorAll('a.md-nav__link'))"
                  ".find(a => a.href.endsWith('/' + p)); a.setAttribute('data-test-target', p); }", path)
    page.click(f"a[data-test-target='{path}']")


LOCAL_HOSTS = {"127.0.0.1", "localhost"}


SEARCH_INDEX = "search/search_index.json"
FULL_SEARCH = {"name": "ldr-search", "value": "full"}
"""The cookie that asks a Served site for its whole search index (``Served.full_search``)."""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    """Serves the site's files, except that mkdocs-material's search index comes as a one-page
    index unless the request carries the FULL_SEARCH cookie. The theme's search worker builds a
    lunr index of the whole site after every page load: 0.3 s of CPU in a fresh context for this
    site's 300 KB, most of what a page costs once it has loaded. No test here searches; a test
    that loads pages as a reader does, requests and all, asks for the whole index."""

    def log_message(self, *args):
        pass

    def send_head(self):
        cookie = f"{FULL_SEARCH['name']}={FULL_SEARCH['value']}"
        if self.path.split("?")[0].lstrip("/") != SEARCH_INDEX or cookie in self.headers.get("Cookie", ""):
            return super().send_head()
        whole = json.loads((Path(self.directory) / SEARCH_INDEX).read_text(encoding="utf-8"))
        body = json.dumps({**whole, "docs": whole["docs"][:1]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)


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

    def full_search(self, context) -> None:
        """Have ``context`` get the site's whole search index, as a reader's browser does."""
        context.add_cookies([{**FULL_SEARCH, "url": self.base}])

    def close(self):
        self.server.shutdown()
        self.server.server_close()


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


# --- one page sent from URL to URL --------------------------------------------------------------
# Where what a test checks does not need a fresh browser context per page (no cold cache, no
# stored setting): a new context is a new renderer process and a cold cache, about 0.3 to 0.6 s a
# page on a busy machine, before the page even starts.

READY = "() => !!document.querySelector('[data-ldr-meter][data-ldr-ready]')"
"""The page's scripts have run: the depth meter, on every page, marks itself ready (as open_page waits)."""


def visit(page, url: str) -> None:
    """A full load of ``url`` in ``page`` (page.goto, not instant navigation), once the meter is ready."""
    page.goto(url, wait_until="load")
    page.wait_for_function(READY)


class Visits(Watch):
    """A Watch for one page that visits many URLs: ``check_visit(where)`` checks what was
    requested and logged since the previous call (the page's and its workers'), and says where."""

    def __init__(self, page):
        super().__init__(page)
        self._since = (0, 0)

    def check_visit(self, where: str) -> None:
        requests, errors = self.requests[self._since[0]:], self.errors[self._since[1]:]
        self._since = (len(self.requests), len(self.errors))
        external = [u for u in requests if urlparse(u).scheme not in ("data", "blob", "about")
                    and urlparse(u).hostname not in LOCAL_HOSTS]
        assert not external, f"{where}: requests left localhost: {external}"
        assert not errors, f"{where}: console errors: {errors}"


SETTLED = """async () => {
  const frame = () => new Promise(done => requestAnimationFrame(() => done()));
  await frame();               // laid out once: the fonts its text needs are requested
  await document.fonts.ready;  // and arrived (or failed)
  await frame(); await frame();  // the frame that lays the page out with them, and one more
}"""
"""Resolves once the page's first frames and its fonts are done: a deterministic wait for what a
page does after its scripts' ready mark (no fixed sleep, however busy the machine)."""


def two_at_a_time(items, start, finish) -> list:
    """``finish(item, *start(item))`` for each item, in order, with the next item started before
    the one before it is finished: while one page waits, idle, for its network or for the end of
    its watch window, the next one loads. ``start`` returns the browser context it opened first
    (``finish`` closes it); a context still open when something fails is closed here."""
    done, running = [], []
    try:
        for item in items:
            running.append((item, start(item)))
            if len(running) == 2:
                first, state = running.pop(0)
                done.append(finish(first, *state))
        while running:
            first, state = running.pop(0)
            done.append(finish(first, *state))
    finally:
        for _, state in running:
            state[0].close()
    return done


def read_by(kind: str, data: dict) -> dict:
    """The part of a record an instrument embeds: the keys its script reads (its module's READS)."""
    import importlib

    reads = importlib.import_module(f"build_hooks.series.instruments.{kind.replace('-', '_')}").READS
    return {key: data[key] for key in reads}


def settle(page) -> None:
    """Two animation frames: the scroll handlers (mkdocs-material's and ours) have run, and what a
    scroll brought near is drawn (content-visibility: auto decides in the frame after it)."""
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def move_and_read(page, move: str, arg, probe: str, frames: int = 2):
    """``move(arg)`` in the page (a scroll), then ``frames`` animation frames (two: as settle
    waits), then what ``probe``, a function of no arguments, reads: one round trip to the browser
    where the scroll, the wait and each read took one apiece (a walk down a long page makes
    hundreds)."""
    return page.evaluate(f"""async arg => {{ ({move})(arg);
      for (let i = 0; i < {int(frames)}; i++) await new Promise(done => requestAnimationFrame(done));
      return ({probe})(); }}""", arg)


SCROLL_TO = "y => scrollTo(0, y)"
"""``move_and_read``'s move to a height."""


# The page's long blocks off screen are skipped until the reader nears them (content-visibility:
# auto, build_hooks/assets/ldr-proofs.css): what they hold has no layout of its own, so a test that
# measures every element of a page draws every block first, then waits two frames for the
# observers (mkdocs-material's and ours) that react to the new sizes.
DRAW_ALL = ".md-typeset > * { content-visibility: visible !important; }"


MOUNT_CODE = """async () => {
  // a frame draws the runs of far blocks now on screen, the next tells what is on screen in them
  const frames = () => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
  for (let y = 0; y < document.documentElement.scrollHeight; y += innerHeight / 2) {
    scrollTo(0, y);
    await frames();
  }
  // a run drawn shorter than it stood in moves what follows up, past a step: those, one by one
  for (const code of document.querySelectorAll('.md-content pre > code')) {
    if (code.closest('pre').querySelector('.md-code__nav')) continue;
    code.scrollIntoView({block: 'center'});
    await frames();
  }
  scrollTo(0, 0);
}"""


def mount_code(page) -> None:
    """Have mkdocs-material mount every code block of the page (its copy button, its tab stop):
    the site mounts a code block only once it has been on screen (content.lazy in mkdocs.yml).
    The page is scrolled through a screen at a time, in a viewport a few screens tall; its width,
    and so the layout, stays."""
    size = page.viewport_size
    page.set_viewport_size({"width": size["width"], "height": 3000})
    page.evaluate(MOUNT_CODE)
    page.wait_for_function("""() => [...document.querySelectorAll('.md-content pre > code')]
      .every(c => c.closest('pre').querySelector('.md-code__nav'))""")
    page.set_viewport_size(size)


def draw_all(page) -> None:
    page.add_style_tag(content=DRAW_ALL)
    skipped = page.evaluate("() => [...document.querySelectorAll('.md-typeset > *')]"
                            ".filter(e => getComputedStyle(e).contentVisibility !== 'visible').length")
    assert skipped == 0, f"{skipped} block(s) still skipped"
    settle(page)
