"""What a reader's browser gets: our pages against plain mkdocs-material on the same Markdown.

    .venv/bin/python bench/bench_reader.py [--pages part-01-the-tensor.md,...] [--runs 3]
        [--settle 1.5] [--tree PATH] [--json PATH] [--check]

Two builds of docs/: ours (`mkdocs build` with mkdocs.yml, LDR_RUN=false: the committed records
only) and plain mkdocs-material (a generated mkdocs.yml: same nav, theme and extensions, without
the ldr plugin, extension, fences, custom_dir and stylesheets; our fences become code blocks).
Each is served from 127.0.0.1 (HTTP/1.1, gzip -6 for text, as a static host does); each page loads in
Debian's chromium, cold (a fresh context per load), as a phone (390x844 at 3x, touch, 4x CPU
throttling, Lighthouse's "Fast 3G") and a laptop (1440x900, no throttling), the two sides
alternating, medians of --runs loads. "own requests" are the ones the plain page does not make.
TBT sums the long tasks' time over 50 ms from FCP to the load event plus --settle seconds.
Printed per page: ours, plain, ours/plain; then the issue's targets as ratios in the same run.
--tree builds another copy of the project instead of this checkout (its build_hooks imported
first), e.g. a commit's: `git archive COMMIT | tar -x -C /tmp/at-commit`; the venv's installed
entry points (the `ldr` plugin's module) must exist in that copy.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import yaml
from playwright.sync_api import Browser, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run",
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]  # no request leaves the machine
DEFAULT_PAGES = ["part-00-the-map.md", "part-01-the-tensor.md", "part-02-autograd.md",
                 *sorted(str(p.relative_to(DOCS)) for p in (DOCS / "drift").glob("*.md"))]
FAST_3G = {"offline": False, "latency": 562.5,  # Lighthouse's mobile throttling, as DevTools applies it
           "downloadThroughput": 1.6 * 1024 * 0.9 * 1024 / 8, "uploadThroughput": 750 * 0.9 * 1024 / 8}
PROFILES: dict[str, dict[str, Any]] = {
    "phone": {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 3, "is_mobile": True,
              "has_touch": True, "cpu": 4, "network": FAST_3G},
    "laptop": {"viewport": {"width": 1440, "height": 900}, "cpu": 1, "network": None},
}
GZIPPED = {".html", ".css", ".js", ".json", ".svg", ".xml", ".txt", ".py", ".excalidraw"}
OBSERVE = """
window.__ldr = {fcp: null, lcp: null, cls: 0, shifts: [], tasks: []};
const watch = (type, fn) => new PerformanceObserver(l => l.getEntries().forEach(fn)).observe({type, buffered: true});
watch('paint', e => { if (e.name === 'first-contentful-paint') __ldr.fcp = e.startTime; });
watch('largest-contentful-paint', e => { __ldr.lcp = e.startTime; });
watch('longtask', e => { __ldr.tasks.push([e.startTime, e.duration]); });
watch('layout-shift', e => { if (e.hadRecentInput) return; __ldr.cls += e.value; __ldr.shifts.push([e.startTime,
  e.value, (e.sources || []).map(s => s.node ? s.node.nodeName + '.' + (s.node.className || '') : '?').join(' ')]); });
"""
READ = """() => ({...__ldr, nodes: document.getElementsByTagName('*').length,
  load: performance.getEntriesByType('navigation')[0].loadEventEnd})"""
# (key, label, format) per table row
METRICS = [("html_bytes", "HTML bytes", "{:,.0f}"), ("html_gzip", "HTML gzip -9", "{:,.0f}"),
           ("transferred", "transferred bytes", "{:,.0f}"), ("requests", "requests", "{:.0f}"),
           ("own_requests", "own requests", "{:.0f}"), ("nodes", "DOM nodes", "{:,.0f}"),
           ("fcp", "FCP ms", "{:,.0f}"), ("lcp", "LCP ms", "{:,.0f}"), ("tbt", "TBT ms", "{:,.0f}"),
           ("load", "load event ms", "{:,.0f}"), ("cls_load", "layout shift at load", "{:.4f}"),
           ("cls", "layout shift settled", "{:.4f}")]


class _Loader(yaml.SafeLoader):
    """Reads mkdocs.yml without running its !ENV and !!python tags (they become None)."""


_Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
_Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)


def plain_config(tree: Path, path: Path) -> Path:
    """Write to `path` a plain mkdocs-material config for the pages of the project in `tree`."""
    cfg = yaml.load((tree / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_Loader)
    theme = {k: v for k, v in cfg["theme"].items() if k != "custom_dir"}
    theme["palette"] = [{k: v for k, v in p.items() if v != "custom"} for p in theme.get("palette", [])]
    extensions: list[Any] = []
    for ext in cfg.get("markdown_extensions", []):
        name = ext if isinstance(ext, str) else next(iter(ext))
        if name == "ldr" or name.startswith("build_hooks"):
            continue
        if name == "pymdownx.superfences" and isinstance(ext, dict):
            options = {k: v for k, v in (ext[name] or {}).items() if k != "custom_fences"}
            ext = {name: options} if options else name
        extensions.append(ext)
    plugins = [p for p in cfg.get("plugins", []) if (p if isinstance(p, str) else next(iter(p))) != "ldr"]
    plain = {"site_name": cfg["site_name"], "docs_dir": str(tree / cfg.get("docs_dir", "docs")),
             "use_directory_urls": cfg.get("use_directory_urls", True), "theme": theme,
             "plugins": plugins, "markdown_extensions": extensions, "nav": cfg.get("nav")}
    path.write_text(yaml.safe_dump(plain, sort_keys=False), encoding="utf-8")
    return path


def build(tree: Path, config: Path, site: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(tree), **env}
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(config), "-d", str(site)],
                   cwd=tree, env=env, check=True)
    return time.perf_counter() - start


class _Handler(SimpleHTTPRequestHandler):
    """Keep-alive, quiet, and gzip for text when the browser asks (as GitHub Pages or a CDN would)."""

    protocol_version = "HTTP/1.1"
    packed: dict[str, bytes] = {}

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        path = self.translate_path(self.path)
        if os.path.isdir(path) and self.path.split("?")[0].endswith("/"):
            path = os.path.join(path, "index.html")
        if not (os.path.isfile(path) and Path(path).suffix in GZIPPED
                and "gzip" in self.headers.get("Accept-Encoding", "")):
            return super().do_GET()
        if path not in self.packed:
            self.packed[path] = gzip.compress(Path(path).read_bytes(), compresslevel=6, mtime=0)
        body = self.packed[path]
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def serve(site: Path) -> tuple[ThreadingHTTPServer, str]:
    handler = type("Handler", (_Handler,), {"packed": {}})
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(site)))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def url_of(page: str) -> str:
    stem = page.removesuffix(".md")
    return "/" if stem == "index" else "/" + stem.removesuffix("/index") + "/"


def html_file(site: Path, page: str) -> Path:
    return site / url_of(page).lstrip("/") / "index.html"


def load(browser: Browser, base: str, page_url: str, profile: dict[str, Any], settle: float) -> dict[str, Any]:
    """One cold load: a fresh context, throttled as the profile says; the numbers after load + settle."""
    options = {k: v for k, v in profile.items() if k not in ("cpu", "network")}
    context = browser.new_context(**options)
    context.add_init_script(OBSERVE)
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    urls: dict[str, str] = {}
    sizes: dict[str, float] = {}
    failed: list[str] = []
    cdp.on("Network.requestWillBeSent", lambda e: urls.__setitem__(e["requestId"], e["request"]["url"]))
    cdp.on("Network.loadingFinished", lambda e: sizes.__setitem__(e["requestId"], e["encodedDataLength"]))
    cdp.on("Network.loadingFailed", lambda e: failed.append(urls.get(e["requestId"], "?")))
    cdp.send("Network.enable")
    if profile["network"]:
        cdp.send("Network.emulateNetworkConditions", profile["network"])
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": profile["cpu"]})
    try:
        page.goto(base + page_url, wait_until="load", timeout=180_000)
        cls_load = page.evaluate("__ldr.cls")
        page.wait_for_timeout(settle * 1000)
        got = page.evaluate(READ)
    finally:
        context.close()
    fcp, end = got["fcp"] or 0.0, got["load"] + settle * 1000
    tbt = sum(max(0.0, min(s + d, end) - max(s, fcp) - 50) for s, d in got["tasks"] if s + d > fcp and s < end)
    paths = sorted({u.removeprefix(base).split("?")[0] for u in urls.values() if u.startswith(base)})
    return {"transferred": sum(sizes.values()), "requests": len(paths), "paths": paths, "failed": failed,
            "nodes": got["nodes"], "fcp": fcp, "lcp": got["lcp"] or 0.0, "tbt": tbt, "load": got["load"],
            "cls_load": cls_load, "cls": got["cls"], "shifts": got["shifts"], "long_tasks": got["tasks"]}


def measure(browser: Browser, bases: dict[str, str], pages: list[str], runs: int,
            settle: float) -> dict[str, dict[str, dict[str, list[dict[str, Any]]]]]:
    """raw[page][profile][side] = one dict per run; the sides alternate which goes first."""
    raw: dict[str, dict[str, dict[str, list[dict[str, Any]]]]] = {}
    for run in range(runs):
        for page in pages:
            for name, profile in PROFILES.items():
                sides = ["ours", "plain"] if run % 2 == 0 else ["plain", "ours"]
                for side in sides:
                    got = load(browser, bases[side], url_of(page), profile, settle)
                    raw.setdefault(page, {}).setdefault(name, {}).setdefault(side, []).append(got)
                print(f"  run {run + 1}/{runs} {page} {name}", file=sys.stderr, flush=True)
    return raw


def summarise(raw: dict[str, Any], sites: dict[str, Path]) -> dict[str, Any]:
    """Medians per page, profile and side, with own requests counted against the plain page's."""
    out: dict[str, Any] = {}
    for page, profiles in raw.items():
        html = {side: html_file(site, page).read_bytes() for side, site in sites.items()}
        for name, sides in profiles.items():
            plain_paths = {p for run in sides["plain"] for p in run["paths"]}
            for side, runs in sides.items():
                for run in runs:
                    run["own"] = [p for p in run["paths"] if p not in plain_paths]
                    run["own_requests"] = len(run["own"])
                row = {k: statistics.median(run[k] for run in runs) for k, _, _ in METRICS if k in runs[0]}
                row |= {"html_bytes": len(html[side]), "html_gzip": len(gzip.compress(html[side], 9, mtime=0)),
                        "cls_max": max(run["cls"] for run in runs),
                        "own": sorted({p for run in runs for p in run["own"]}),
                        "shifted": sorted({f"{s[2][:90]} ({s[1]:.4f})" for run in runs for s in run["shifts"]}),
                        "failed": sorted({u for run in runs for u in run["failed"]})}
                out.setdefault(page, {}).setdefault(name, {})[side] = row
    return out


def ratio(ours: float, plain: float) -> float:
    return 1.0 if ours == plain else ours / plain if plain else float("inf")


def table(page: str, rows: dict[str, Any]) -> None:
    print(f"\n{page}  ({url_of(page)})")
    head = "".join(f"{name + ': ours':>14}{'plain':>11}{'ratio':>8}" for name in PROFILES)
    print(f"  {'':<22}{head}")
    for key, label, fmt in METRICS:
        cells = ""
        for name in PROFILES:
            ours, plain = rows[name]["ours"][key], rows[name]["plain"][key]
            r = ratio(ours, plain)
            cells += f"{fmt.format(ours):>14}{fmt.format(plain):>11}{'-' if r == float('inf') else f'{r:.2f}':>8}"
        print(f"  {label:<22}{cells}")
    for name in PROFILES:
        if rows[name]["ours"]["own"]:
            print(f"  own requests ({name}): {', '.join(rows[name]['ours']['own'])}")
        for side in ("ours", "plain"):
            for shift in rows[name][side]["shifted"]:
                print(f"  layout shift ({name}, {side}): {shift}")
            if rows[name][side]["failed"]:
                print(f"  failed requests ({name}, {side}): {', '.join(rows[name][side]['failed'])}")


def targets(summary: dict[str, Any]) -> list[tuple[str, str, float, bool]]:
    """(target, page, value, met) for the issue's targets, as ratios to plain in this run."""
    checks: list[tuple[str, str, float, bool]] = []
    for page, rows in summary.items():
        phone, laptop = rows["phone"], rows["laptop"]
        for label, key, rows_, limit in (("phone TBT <= 1.3x", "tbt", phone, 1.3),
                                         ("DOM nodes <= 2.5x", "nodes", phone, 2.5),
                                         ("HTML gzip <= 2x", "html_gzip", phone, 2.0),
                                         ("phone transferred <= 1.6x", "transferred", phone, 1.6),
                                         ("phone load <= 1.3x", "load", phone, 1.3)):
            r = ratio(rows_["ours"][key], rows_["plain"][key])
            checks.append((label, page, r, r <= limit))
        shift = max(phone["ours"]["cls_max"], laptop["ours"]["cls_max"])
        checks.append(("layout shift 0 (worst run)", page, shift, shift == 0))
        own = max(phone["ours"]["own_requests"], laptop["ours"]["own_requests"])
        checks.append(("own requests <= 3", page, own, own <= 3))
    return checks


def print_targets(checks: list[tuple[str, str, float, bool]], pages: list[str]) -> None:
    print("\ntargets (ours against plain in this run)")
    print(f"  {'':<28}" + "".join(f"{Path(p).stem[:18]:>20}" for p in pages))
    for label in dict.fromkeys(c[0] for c in checks):
        cells = ""
        for page in pages:
            _, _, value, met = next(c for c in checks if c[0] == label and c[1] == page)
            shown = f"{value:.4f}" if "shift" in label else f"{value:.0f}" if "requests" in label else f"{value:.2f}x"
            cells += f"{shown + (' PASS' if met else ' FAIL'):>20}"
        print(f"  {label:<28}{cells}")
    failed = sum(not c[3] for c in checks)
    print(f"\n{len(checks) - failed} of {len(checks)} targets met")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", default=",".join(DEFAULT_PAGES), help="pages under docs/, comma-separated")
    parser.add_argument("--runs", type=int, default=3, help="loads per page, profile and side (median)")
    parser.add_argument("--settle", type=float, default=1.5, help="seconds of idle after the load event")
    parser.add_argument("--tree", type=Path, default=ROOT, help="the project to build (default: this checkout)")
    parser.add_argument("--json", type=Path, help="write every number here")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args(argv)
    pages = [p.strip() for p in args.pages.split(",") if p.strip()]
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench_reader_") as tmp:
        sites = {"ours": Path(tmp) / "ours", "plain": Path(tmp) / "plain"}
        tree = args.tree.resolve()
        took = {"ours": build(tree, tree / "mkdocs.yml", sites["ours"], {"LDR_RUN": "false"}),
                "plain": build(tree, plain_config(tree, Path(tmp) / "plain.yml"), sites["plain"], {})}
        print(f"built: ours {took['ours']:.1f} s, plain {took['plain']:.1f} s", file=sys.stderr)
        missing = [p for p in pages for s in sites.values() if not html_file(s, p).is_file()]
        if missing:
            parser.error(f"not built: {', '.join(sorted(set(missing)))}")
        servers = {side: serve(site) for side, site in sites.items()}
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                try:
                    raw = measure(browser, {s: base for s, (_, base) in servers.items()}, pages, args.runs,
                                  args.settle)
                finally:
                    browser.close()
        finally:
            for server, _ in servers.values():
                server.shutdown()
        summary = summarise(raw, sites)
    print(f"ours vs plain mkdocs-material, medians of {args.runs} cold loads per cell; phone = 390x844 @3x, "
          f"4x CPU, Fast 3G; laptop = 1440x900, unthrottled; gzip served; settle {args.settle} s")
    for page in pages:
        table(page, summary[page])
    checks = targets(summary)
    print_targets(checks, pages)
    print(f"\nwall time {time.perf_counter() - started:.0f} s")
    if args.json:
        args.json.write_text(json.dumps({"runs": args.runs, "settle": args.settle, "summary": summary,
                                         "raw": raw, "targets": checks}, indent=1))
    return 1 if args.check and not all(c[3] for c in checks) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
