"""Scale benchmark: a generated site shaped like the finished series, against plain mkdocs-material.

    .venv/bin/python bench/bench_scale.py [--sizes 1,3,12] [--rounds 11] [--profile 12]

For each size (chapters), a temporary project is generated: chapters of about 5,000 words
with eight proofs each (most under 0.2 s, some parallel-safe, a 1 to 3 s timing proof in every
other chapter), six Excalidraw drawings of 20 to 150 elements, 25 inline values, 10 excerpts,
sections on the depth meter's floors and one instrument (fed by a copy of this repo's proof
for it), and a ```corrections fence (an author's note for the last upgrade in odd chapters,
empty in even ones), as the series' chapters have; beside them a page with the ```proofs-index
and an upgrade page whose ```drift-report is a row per proof, linking to a page with the full
report (docs/proofs.md and docs/drift/ in this repo).
So that drift and the corrections notes have something to compare, every record the first
build writes is also kept as an older torch's run (OLD_TORCH) in the store's history
(proofs/_results/_history/<torch>/: some proofs' values and output lines changed by 30 %, some
by 0.5 %, the rest unchanged; the instruments' proofs take this repo's own 2.13.0 records),
with measured noise for the pinned version (_noise/<torch>/), as `ldr run --repeat 3` writes
it; the history is committed state, so every build from then on (fresh clone, cold, warm) has
it. The same pages with every directive replaced by a paragraph of about its size, built
by plain mkdocs-material with the same theme, are the baseline. Printed, per size, as ratios:

* warm build (every record fresh): `mkdocs build` in a fresh process, and rebuilt in one
  process as `mkdocs serve` does, ours / plain (interleaved, medians, after one untimed build
  of each side), in wall seconds and in CPU seconds (the build's own user + system time: on a
  machine shared with other work the steadier of the two), the best run of each side (noise
  only ever adds time, so the fastest run is the closest to the build's own cost), the median
  of each round's own ratio (its two builds run back to back, so a slow spell of the machine
  falls on both), and, where valgrind is installed, the
  instructions each side executes in one warm build (callgrind): a count that is the same on
  every run, which the wall clock of a shared machine is not;
* the first build of a fresh clone (records committed, no .cache: drawings, highlighted
  sources, proof metadata and page locations all made again), for information;
* cold build (no record: every proof runs; .cache kept), against the sum of the proofs' own
  runtimes (the wall times in the records it wrote) plus the plain build (timed without the
  memory sampler, which runs on one more cold build of each side). Each cold build starts its
  own proof host and imports torch (1.4 to 2 s), as an author's command-line build does;
* the runner's overhead per proof (the same proofs run one at a time, minus their runtimes);
* peak memory: the warm build's process, ours / plain; the cold build's process tree
  (build + proof host + proofs) against 1.5 x plain plus the proof host alone;
* the reload after a prose edit under `mkdocs serve`, ours / plain (interleaved, medians).

And how the added cost per chapter moves from size to size: it should stay flat (grow with
the pages), not grow with the chapters (pages times proofs). The machine may be shared: every
comparison alternates the two sides and takes medians, and the figures are still noisy.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))
os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")

WORDS = ("tensor stride storage kernel dispatcher autograd graph memory allocator device stream "
         "view copy layout dtype element shape size offset contiguous buffer operator schema key "
         "backend thread cache bandwidth latency call toll loop register vector batch gradient "
         "node edge engine hook module parameter compiler trace guard frame bytecode graph break "
         "the a of to and in is that it for on with as by this each every one two which when "
         "reads writes costs holds moves returns keeps asks finds runs pays waits builds").split()
FLOORS = ("python", "binding", "dispatcher", "autograd", "kernel", "memory", "runtime", "hardware")
INSTRUMENTS = (("stride-explorer", "view_ops"), ("graph-walker", "autograd_graph"),
               ("promotion-table", "type_promotion"), ("library-sizes", "where_code_lives"),
               ("toll-meter", "dispatch_cost"), ("two-clocks", "two_clocks"))
TIME = "/usr/bin/time"
PROOFS_PER_CHAPTER = 8
DRAWINGS_PER_CHAPTER = 6
VALUES_PER_CHAPTER = 25
EXCERPTS_PER_CHAPTER = 10
SECTIONS = 10
PLAIN_DIRECTIVES = re.compile(r"^```(proof|proof-output|figure|instrument|corrections|proofs-index|drift-report)\n"
                              r"(.*?)^```\n", re.S | re.M)
OLD_TORCH = "2.13.0"  # the version the generated history was "recorded" under
PIN = re.search(r'"torch==([^"]+)"', (REPO / "pyproject.toml").read_text()).group(1)
DRIFT_PAGE = f"drift/{OLD_TORCH}-to-{PIN}.md"  # a row per proof, linking to the full report:
DRIFT_FULL = f"drift/{OLD_TORCH}-to-{PIN}/every-value.md"

FAST_PROOF = '''"""Case {c}.{p}: what {op} does to a {n}-element tensor

Applies {op} to a small tensor and prints its header: sizes, strides, offset and whether the
result shares the input's storage. Part {c}, proof {p} of the generated series.
"""

import json

import torch

PROOF = {{"timeout": 60, "parallel": {parallel}}}

x = torch.arange({n}.0).reshape({rows}, {cols})
y = {expr}
rows = []
for i in range({lines}):
    z = (x * (i + 1)).sum()
    rows.append({{"i": i, "sum": float(z), "ratio": float(z) / (i + 1)}})
    print(f"step {{i}}: the sum of {op} is {{float(z):.1f}} over {n} elements")
print(f"the header of {op}: size {{tuple(y.shape)}}, stride {{y.stride()}}, offset {{y.storage_offset()}}")
print(f"shares storage: {{y.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()}}")
print("VALUES=" + json.dumps({{"n": {n}, "rows": {rows}, "cols": {cols}, "first": rows[0]["sum"],
                              "last": rows[-1]["sum"], "mean": sum(r["ratio"] for r in rows) / len(rows),
                              "steps": rows}}))
'''

TIMING_PROOF = '''"""Part {c}: the cost of waiting {secs} s for the device

Times a loop of small adds against a fixed wait, the way a timing proof would. It runs alone
(not parallel-safe): its numbers depend on the machine being quiet.
"""

import json
import time

import torch

PROOF = {{"timeout": 60, "parallel": False}}

x = torch.ones(64)
start = time.perf_counter()
time.sleep({secs})
adds = 0
t0 = time.perf_counter()
while time.perf_counter() - t0 < 0.05:
    x = x + 1
    adds += 1
wall = time.perf_counter() - start
for i in range(6):
    print(f"step {{i}}: {{adds}} adds in 50 ms, one add every {{50000 / adds:.2f}} us")
print(f"total wait: {{wall:.2f}} s")
print("VALUES=" + json.dumps({{"n": adds, "rows": 6, "cols": 1, "first": 50000 / adds, "last": wall,
                              "mean": wall / 6,
                              "steps": [{{"i": i, "sum": adds * i, "ratio": float(i)}} for i in range(6)]}}))
'''

OPS = ("x.t()", "x[:, ::2]", "x[1:]", "x.reshape(-1)", "x.contiguous()", "x.unsqueeze(0)",
       "x.narrow(1, 0, 2)", "x.clone()")


def words(rng: random.Random, count: int) -> str:
    out = []
    while count > 0:
        n = min(count, rng.randint(12, 22))
        sentence = " ".join(rng.choice(WORDS) for _ in range(n))
        out.append(sentence[0].upper() + sentence[1:] + ".")
        count -= n
    return " ".join(out)


def drawing(rng: random.Random, name: str, count: int) -> dict:
    """An Excalidraw scene of ``count`` elements: labelled boxes in rows, arrows between them,
    a title and free notes."""
    elements = []
    seed = [rng.randint(1, 2**31 - 1)]

    def base(kind: str, x: float, y: float, w: float, h: float, **extra) -> dict:
        seed[0] += 7919
        index = len(elements)
        item = {"id": f"{name}-{index:03d}", "type": kind, "x": x, "y": y, "width": w, "height": h,
                "angle": 0, "strokeColor": rng.choice(("#1e1e1e", "#1971c2", "#f08c00", "#2f9e44")),
                "backgroundColor": rng.choice(("transparent", "#f8f9fa", "#a5d8ff", "#ffec99")),
                "fillStyle": rng.choice(("solid", "hachure")), "strokeWidth": 2, "strokeStyle": "solid",
                "roughness": 1, "opacity": 100, "groupIds": [], "frameId": None, "index": f"a{index:03d}",
                "roundness": None, "seed": seed[0], "version": 1, "versionNonce": seed[0] ^ 0x5bd1e995,
                "isDeleted": False, "boundElements": None, "updated": 1764000000000, "link": None,
                "locked": False}
        item.update(extra)
        elements.append(item)
        return item

    def text(x: float, y: float, value: str, size: int = 16, container: str | None = None) -> dict:
        width = 0.55 * size * len(value)
        return base("text", x, y, width, size * 1.25, backgroundColor="transparent", text=value,
                    fontSize=size, fontFamily=5, textAlign="center" if container else "left",
                    verticalAlign="middle" if container else "top", containerId=container,
                    originalText=value, autoResize=True, lineHeight=1.25)

    text(20, 0, f"Figure {name}", 24)
    column = 0
    previous = None
    while len(elements) < count - 1:
        x, y = 20 + (column % 6) * 140, 60 + (column // 6) * 110
        box = base("rectangle", x, y, 110, 60, boundElements=[])
        label = text(x + 10, y + 20, rng.choice(WORDS)[:10], 16, container=box["id"])
        box["boundElements"].append({"type": "text", "id": label["id"]})
        if previous is not None and len(elements) < count - 1:
            px, py = previous["x"] + 110, previous["y"] + 30
            dx, dy = x - px, y + 30 - py
            base("arrow", px, py, abs(dx), abs(dy), backgroundColor="transparent", points=[[0, 0], [dx, dy]],
                 lastCommittedPoint=None, startArrowhead=None, endArrowhead="arrow", elbowed=False,
                 startBinding=None, endBinding=None)
        previous = box
        column += 1
    while len(elements) < count:
        text(20, 60 + (column // 6 + 1) * 110, words(rng, 6)[:40], 14)
    return {"type": "excalidraw", "version": 2, "source": "bench_scale", "elements": elements[:count],
            "appState": {"gridSize": 20, "viewBackgroundColor": "#ffffff"}, "files": {}}


def chapter(rng: random.Random, c: int, proofs: list[str], drawings: list[str], instrument: tuple[str, str]) -> str:
    """A chapter of about 5,000 words with its directives spread over ten sections."""
    blocks = [f"# Part {c}: generated chapter {c}\n", "The marker is start. " + words(rng, 120) + "\n"]
    # The author's note for the last upgrade (Parts 0 and 1 of the series have one); an empty
    # fence still lists what changed on the page.
    note = (f'- torch: {PIN}\n  date: 2026-12-01\n  note: "{words(rng, 50)}"\n' if c % 2 else "")
    blocks.append(f"```corrections\n{note}```\n")
    values = [(p, k) for p in proofs for k in ("first", "last", "mean", "steps.2.sum")]
    rng.shuffle(values)
    per_section = -(-VALUES_PER_CHAPTER // SECTIONS)
    placed_values = 0
    excerpts = [(proofs[i % len(proofs)], i) for i in range(EXCERPTS_PER_CHAPTER)]
    for s in range(SECTIONS):
        floor = FLOORS[(c + s) % len(FLOORS)]
        blocks.append(f"## Section {c}.{s} {{ #section-{s} data-floor=\"{floor}\" }}\n")
        for _ in range(3):
            sentence = words(rng, 130)
            for _ in range(per_section // 3 + 1):
                if placed_values < VALUES_PER_CHAPTER:
                    name, key = values[placed_values % len(values)]
                    fmt = rng.choice(("| .2f", "| .1f", "", "| .3g"))
                    sentence += f" The value is {{{{ {name}.VALUES.{key} {fmt} }}}} here."
                    placed_values += 1
            blocks.append(sentence + "\n")
        if s < len(excerpts):
            name, i = excerpts[s]
            how = (f'grep: "step {i % 4}"', 'from: "step 1"\nto: "step 3"', 'lines: "1-2"')[i % 3]
            blocks.append(f"```proof-output\nproof: {name}\n{how}\n```\n")
        if s < len(drawings):
            blocks.append(f"```figure\nsrc: {drawings[s]}.excalidraw\nalt: \"{words(rng, 18)}\"\n"
                          f"caption: \"{words(rng, 12)}\"\n```\n")
        if s == 4:
            blocks.append(f"```instrument\nname: {instrument[0]}\nproof: {instrument[1]}\n```\n")
        if s % 3 == 0:
            blocks.append("```python\nx = torch.arange(12.0).reshape(3, 4)\ny = x.t()\nprint(y.stride())\n```\n")
        if s % 4 == 1:
            blocks.append("!!! note \"A detail\"\n    " + words(rng, 60) + "\n")
        blocks.append(words(rng, 90) + "\n")
    blocks.append("## The proofs { #the-proofs }\n")
    for name in proofs:
        blocks.append(f"```proof\n{name}\n```\n")
    blocks.append(f"```proof\n{instrument[1]}\n```\n")
    return "\n".join(blocks)


def plain_page(text: str) -> str:
    """The page without directives: each fence becomes a paragraph of about its size, each
    inline value a number."""
    from build_hooks.pages.locate import VALUE

    def paragraph(match: re.Match) -> str:
        size = max(4, len(match.group(0).split()))
        return " ".join(["placeholder"] * size) + "\n"

    return VALUE.sub("1.25", PLAIN_DIRECTIVES.sub(paragraph, text))


def generate(base: Path, chapters: int, seed: int = 7) -> dict:
    """Two projects under ``base``: ``ldr`` (the series' shape) and ``plain`` (the baseline)."""
    rng = random.Random(seed)
    ldr, plain = base / "ldr", base / "plain"
    for root in (ldr, plain):
        (root / "docs").mkdir(parents=True)
        shutil.copytree(REPO / "theme", root / "theme")
        shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    (ldr / "proofs").mkdir()
    (ldr / "drawings").mkdir()
    stats = {"chapters": chapters, "proofs": 0, "drawings": 0, "elements": 0, "words": 0, "values": 0,
             "excerpts": 0, "timing": 0, "parallel": 0}
    nav = []
    used_instruments = set()
    for c in range(1, chapters + 1):
        names = []
        for p in range(PROOFS_PER_CHAPTER):
            name = f"c{c:02d}_p{p}"
            if p == PROOFS_PER_CHAPTER - 1 and c % 2 == 0:
                secs = 1.0 + (c * 0.37) % 2.0
                source = TIMING_PROOF.format(c=c, secs=round(secs, 2))
                stats["timing"] += 1
            else:
                parallel = p % 4 != 3
                stats["parallel"] += parallel
                rows, cols = rng.choice(((3, 4), (4, 6), (8, 8), (16, 4)))
                source = FAST_PROOF.format(c=c, p=p, op=OPS[p % len(OPS)], expr=OPS[p % len(OPS)],
                                           n=rows * cols, rows=rows, cols=cols, lines=6 + p,
                                           parallel=parallel)
            (ldr / "proofs" / f"{name}.py").write_text(source)
            names.append(name)
        instrument = INSTRUMENTS[(c - 1) % len(INSTRUMENTS)]
        if instrument[1] not in used_instruments:
            used_instruments.add(instrument[1])
            shutil.copy(REPO / "proofs" / f"{instrument[1]}.py", ldr / "proofs" / f"{instrument[1]}.py")
            if instrument[1] in ("dispatch_cost", "two_clocks"):
                stats["timing"] += 1
        drawings = []
        for d in range(DRAWINGS_PER_CHAPTER):
            name = f"c{c:02d}-d{d}"
            count = rng.randint(20, 150)
            (ldr / "drawings" / f"{name}.excalidraw").write_text(json.dumps(drawing(rng, name, count)))
            stats["elements"] += count
            drawings.append(name)
        text = chapter(rng, c, names, drawings, instrument)
        page = f"part-{c:02d}.md"
        (ldr / "docs" / page).write_text(text)
        (plain / "docs" / page).write_text(plain_page(text))
        nav.append(page)
        stats["words"] += len(plain_page(text).split())
        stats["values"] += text.count("{{ ")
        stats["excerpts"] += text.count("```proof-output")
        stats["drawings"] += len(drawings)
    index = "# The series\n\n" + words(rng, 200) + "\n"
    # The series' proofs page and upgrade report (docs/proofs.md, docs/drift/).
    every = "# Every proof\n\n" + words(rng, 90) + "\n\n```proofs-index\n```\n"
    upgrade = (f"# Upgrade report: torch {OLD_TORCH} to {PIN}\n\n" + words(rng, 150) + "\n\n"
               + words(rng, 60) + f"\n\n```drift-report\nfrom: {OLD_TORCH}\nto: {PIN}\ndetails: {DRIFT_FULL}\n```\n")
    full = (f"# Every value: torch {OLD_TORCH} to {PIN}\n\n" + words(rng, 60)
            + f"\n\n```drift-report\nfrom: {OLD_TORCH}\nto: {PIN}\n```\n")
    for root in (ldr, plain):
        (root / "docs" / "index.md").write_text(index)
        (root / "docs" / "drift").mkdir()
    (ldr / "docs" / "proofs.md").write_text(every)
    (plain / "docs" / DRIFT_FULL).parent.mkdir(parents=True)
    for name, text in (("proofs.md", every), (DRIFT_PAGE, upgrade), (DRIFT_FULL, full)):
        (plain / "docs" / name).write_text(plain_page(text))
    for helper in (REPO / "proofs").glob("_*.py"):  # local helpers the instruments' proofs import (_timing)
        shutil.copy(helper, ldr / "proofs" / helper.name)
    stats["proofs"] = len([p for p in (ldr / "proofs").glob("*.py") if not p.name.startswith("_")])
    config = (REPO / "mkdocs.yml").read_text()
    config = re.sub(r"\nnav:\n(  .*\n?)*", "\nnav:\n  - Home: index.md\n  - proofs.md\n"
                    + "".join(f"  - {p}\n" for p in nav)
                    + f"  - Upgrades:\n      - {DRIFT_PAGE}\n      - {DRIFT_FULL}\n", config)
    (ldr / "mkdocs.yml").write_text(config)
    (plain / "mkdocs.yml").write_text(plain_config(config))
    # The upgrade page joins once the history exists (put_history): a drift report between
    # versions the store has not recorded is an error.
    return {"ldr": ldr, "plain": plain, "stats": stats,
            "pending": {f"docs/{DRIFT_PAGE}": upgrade, f"docs/{DRIFT_FULL}": full}}


def _scaled(value, factor: float):
    """``value`` with every float in it (not ints, not bools) multiplied by ``factor``."""
    if isinstance(value, dict):
        return {k: _scaled(v, factor) for k, v in value.items()}
    if isinstance(value, list):
        return [_scaled(v, factor) for v in value]
    if isinstance(value, float):
        return round(value * factor, 6)
    return value


def _leaves(value, prefix: str = "") -> dict:
    """Every numeric leaf by its data path (``VALUES.steps.2.sum``), as datalines.flatten."""
    if isinstance(value, dict):
        return {k: v for key, item in value.items() for k, v in _leaves(item, f"{prefix}.{key}" if prefix
                                                                        else str(key)).items()}
    if isinstance(value, list):
        return {k: v for i, item in enumerate(value) for k, v in _leaves(item, f"{prefix}.{i}").items()}
    return {prefix: value} if isinstance(value, (int, float)) and not isinstance(value, bool) else {}


def history(root: Path) -> dict[str, str]:
    """What an upgrade leaves in the store, made from the records a first build wrote: each
    record as run under OLD_TORCH (``_history/<old>/``; a third of the proofs' floats 30 % higher
    then, their output lines with them, one in eight of the rest 0.5 % higher, the others the
    same; the instruments' proofs take this repo's own records of that version where it has
    them), and the pinned version's noise from three repeated runs (``_noise/<pin>/``, 1 % MAD
    on every number; this repo's own noise files for the instruments' proofs). Path under
    ``root`` -> text."""
    results = root / "proofs" / "_results"
    ours = REPO / "proofs" / "_results"
    out: dict[str, str] = {}
    for path in sorted(results.glob("*.json")):
        record = json.loads(path.read_text())
        if record.get("status") != "ok":
            continue
        version = record["torch"].split("+")[0]
        for folder, kept in ((f"_history/{OLD_TORCH}", ours / "_history" / OLD_TORCH / path.name),
                             (f"_noise/{version}", ours / "_noise" / version / path.name)):
            if kept.is_file() and (REPO / "proofs" / f"{record['proof']}.py").is_file():
                out[f"{folder}/{path.name}"] = kept.read_text()
        if f"_history/{OLD_TORCH}/{path.name}" not in out:
            digest = int(record["script_sha256"][:8], 16)
            factor = 1.3 if digest % 3 == 0 else 1.005 if digest % 8 == 1 else 1.0
            old = dict(record, torch=OLD_TORCH, torch_build=f"{OLD_TORCH}+cpu", wall_s=round(record["wall_s"] * 1.2, 3),
                       data=_scaled(record["data"], factor),
                       measured_at=f"2026-11-{1 + digest % 28:02d}T09:{digest % 60:02d}:00Z")
            if factor != 1.0:
                sums = re.compile(r"(?<=is )\d+\.\d(?= over)")
                old["stdout"] = ["VALUES=" + json.dumps(old["data"]["VALUES"]) if line.startswith("VALUES=")
                                 else sums.sub(lambda m, f=factor: f"{float(m.group(0)) * f:.1f}", line)
                                 for line in record["stdout"]]
            out[f"_history/{OLD_TORCH}/{path.name}"] = json.dumps(old, indent=2, sort_keys=True) + "\n"
        if f"_noise/{version}/{path.name}" not in out:
            numbers = _leaves(record["data"])
            out[f"_noise/{version}/{path.name}"] = json.dumps({
                "format": 2, "proof": record["proof"], "device_class": record["device_class"], "torch": version,
                "runs": 3, "measured_at": record["measured_at"],
                "stats": {k: {"median": v, "mad": abs(v) * 0.01} for k, v in numbers.items()},
                "spread": {k: 0.03 for k in numbers}}, indent=2, sort_keys=True) + "\n"
    return {f"proofs/_results/{name}": text for name, text in out.items()}


def put_history(root: Path, files: dict[str, str]) -> None:
    """Write the history made by :func:`history` (and the upgrade page held back by
    :func:`generate`) into the project, again after the store was removed."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def plain_config(config: str) -> str:
    """The same site without anything of ours: no ldr plugin, no ldr Markdown extension or
    fences (which would import this package and scan every page), no `watch:` call, none of
    the package's stylesheets; the theme folder stays (the same templates on both sides)."""
    config = re.sub(r"\n  - ldr(:\n(      .*\n)*)?", "\n", config)
    config = re.sub(r"\nwatch: .*", "", config)
    config = re.sub(r"  - pymdownx\.superfences:\n +custom_fences:\n( {6,}- .*\n)*",
                    "  - pymdownx.superfences\n", config)
    config = re.sub(r"\n  - build_hooks\.hosts\.markdown\.extension\b.*(\n {6,}.*)*", "", config)
    config = re.sub(r"\n  - assets/ldr/[\w.-]+", "", config)
    config = re.sub(r"\nextra_(css|javascript):(?=\n(?!  - ))", "", config)  # emptied
    if "build_hooks" in config or "assets/ldr/" in config:
        raise RuntimeError("the plain baseline's mkdocs.yml still names this package:\n" + config)
    return config


# -- measuring ----------------------------------------------------------------------------
PYCACHE: list[str] = []  # set by main(): a temporary folder for bytecode


def _env() -> dict:
    """The builds' environment: as an author's, bytecode cached (in a temporary folder, so that
    nothing is written into the checkout) even where PYTHONDONTWRITEBYTECODE is set; without
    it, each fresh process would compile this project's modules (not mkdocs-material's, which
    pip compiled) and the comparison would be unfair."""
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1",
               PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    if PYCACHE:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = PYCACHE[0]
    return env


class TreeMemory:
    """Samples the proportional set size (PSS: shared pages split between the processes that
    map them, so forked proofs do not count torch twice) of a process and its descendants."""

    def __init__(self, pid: int, every: float = 0.05):
        self.pid, self.every = pid, every
        self.peak_total = self.peak_main = self.peak_host = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    @staticmethod
    def _pss(pid: int) -> int:
        try:
            with open(f"/proc/{pid}/smaps_rollup") as handle:
                for line in handle:
                    if line.startswith("Pss:"):
                        return int(line.split()[1]) * 1024
        except OSError:
            pass
        return 0

    def _tree(self) -> tuple[list[int], set[int]]:
        parents, hosts = {}, set()
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/stat", "rb") as handle:
                    parents[int(name)] = int(handle.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
        tree, frontier = [self.pid], [self.pid]
        while frontier:
            kids = [p for p, parent in parents.items() if parent in frontier]
            tree += kids
            frontier = kids
        for pid in tree[1:]:
            try:
                if b"run/host.py" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    hosts.add(pid)
            except OSError:
                pass
        return tree, hosts

    def _run(self) -> None:
        while not self._stop.is_set():
            tree, hosts = self._tree()
            sizes = {pid: self._pss(pid) for pid in tree}
            self.peak_total = max(self.peak_total, sum(sizes.values()))
            self.peak_main = max(self.peak_main, sizes.get(self.pid, 0))
            self.peak_host = max(self.peak_host, sum(sizes[p] for p in hosts))
            self._stop.wait(self.every)

    def stop(self) -> TreeMemory:
        self._stop.set()
        self._thread.join(5)
        return self


def fresh_build(root: Path, site: Path, sample: bool = False, env: dict | None = None) -> dict:
    """`mkdocs build` in a fresh process: seconds, max RSS (wait4), and sampled PSS if asked."""
    command = [sys.executable, "-m", "mkdocs", "build", "-q", "-d", str(site)]
    peak = None
    if not sample and os.path.exists(TIME):
        # wait4's max RSS keeps the high-water mark of the forking parent (this benchmark) across
        # exec; /usr/bin/time forks the build from a small process, so its figure is the build's.
        peak = Path(tempfile.mkstemp(prefix="bench-scale-rss-")[1])
        command = [TIME, "-f", "%M", "-o", str(peak), *command]
    started = time.perf_counter()
    proc = subprocess.Popen(command, cwd=root, env={**_env(), **(env or {})}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    memory = TreeMemory(proc.pid) if sample else None
    stderr = b""
    deadline = started + 400
    while True:  # wait4 gives this child's own peak RSS; a bounded wait
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            proc.kill()
            raise RuntimeError(f"mkdocs build in {root} did not finish in 400 s")
        time.sleep(0.01)
    elapsed = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    stderr = proc.stderr.read()
    proc.stderr.close()
    if memory:
        memory.stop()
    if proc.returncode != 0:
        raise RuntimeError(f"mkdocs build in {root} failed:\n{stderr.decode(errors='replace')[-3000:]}")
    out = {"s": elapsed, "cpu": usage.ru_utime + usage.ru_stime, "maxrss": usage.ru_maxrss * 1024}
    if peak is not None:
        with contextlib.suppress(ValueError, IndexError):
            out["maxrss"] = int(peak.read_text().split()[-1]) * 1024
        peak.unlink()
    if memory:
        out.update(total=memory.peak_total, main=memory.peak_main, host=memory.peak_host)
    return out


def instructions(roots: dict[str, Path], sites: dict[str, Path]) -> dict[str, int] | None:
    """Instructions executed by one warm `mkdocs build` of each side, counted by valgrind's
    callgrind (both sides at once, one per core): the same every run, so it shows what the
    wall clock of a shared machine cannot, whether ours does more work than plain. None
    without valgrind."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None
    procs = {}
    for kind, root in roots.items():
        command = [valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-m",
                   "mkdocs", "build", "-q", "-d", str(sites[kind])]
        procs[kind] = subprocess.Popen(command, cwd=root, env={**_env(), "PYTHONHASHSEED": "0"},
                                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    out = {}
    for kind, proc in procs.items():
        _, err = proc.communicate(timeout=600)
        found = re.search(r"Collected : (\d+)", err)
        if proc.returncode != 0 or not found:
            return None
        out[kind] = int(found.group(1))
    return out


def inproc_build(root: Path, site: Path) -> tuple[float, float]:
    """A rebuild in this process, as `mkdocs serve` does (imports and caches warm): wall and
    CPU seconds."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    cwd = os.getcwd()
    os.chdir(root)
    try:
        started, cpu = time.perf_counter(), time.process_time()
        config = load_config(str(root / "mkdocs.yml"), site_dir=str(site))
        config.plugins.on_startup(command="build", dirty=False)
        build(config)
        config.plugins.on_shutdown()
        return time.perf_counter() - started, time.process_time() - cpu
    finally:
        os.chdir(cwd)


def recorded_walls(root: Path) -> dict[str, float]:
    walls = {}
    for path in (root / "proofs" / "_results").glob("*.cpu.json"):
        record = json.loads(path.read_text())
        walls[record["proof"]] = record["wall_s"]
    return walls


def runner_overhead(root: Path) -> dict:
    """The same proofs again, one at a time in the warm host, minus their own runtimes."""
    from build_hooks.run.library import Library

    library = Library(root, slots=1)
    names = [n for n, p in library.proofs.items() if p.parallel]
    library.runner().start()
    library.runner().probe()
    started = time.perf_counter()
    library.run(names, force=True)
    elapsed = time.perf_counter() - started
    walls = recorded_walls(root)
    library.close()
    return {"per_proof_s": (elapsed - sum(walls[n] for n in names)) / len(names), "count": len(names)}


def reload_latency(roots: dict[str, Path], rounds: int) -> dict[str, float]:
    """Median time from saving a chapter's prose to its new text being served, per side."""
    from serve_support import Server

    servers = {}
    times: dict[str, list[float]] = {"ldr": [], "plain": []}
    try:
        for kind, root in roots.items():
            servers[kind] = Server(root)
        for server in servers.values():
            server.wait_for("part-01/", lambda body: "Part 1" in body, 300)
        time.sleep(0.5)
        for i in range(rounds):
            for kind in (("ldr", "plain") if i % 2 else ("plain", "ldr")):
                page = roots[kind] / "docs" / "part-01.md"
                marker = f"marker{i}{kind}"
                text = re.sub(r"The marker is \w+\.", f"The marker is {marker}.", page.read_text(), count=1)
                started = time.perf_counter()
                page.write_text(text)
                servers[kind].wait_for("part-01/", lambda body, m=marker: m in body, 300, every=0.01)
                times[kind].append(time.perf_counter() - started)
                time.sleep(0.3)
    finally:
        for server in servers.values():
            server.cleanup()
    return {kind: statistics.median(values) for kind, values in times.items()}


def measure(base: Path, chapters: int, rounds: int, serve_rounds: int, colds: int, counting: bool = True) -> dict:
    made = generate(base, chapters)
    roots = {"ldr": made["ldr"], "plain": made["plain"]}
    sites = {kind: base / f"site-{kind}" for kind in roots}
    out = {"stats": made["stats"]}
    # First build of a fresh clone: records committed (made here by a first build, with the
    # history an upgrade leaves beside them), no .cache.
    fresh_build(roots["ldr"], sites["ldr"])
    kept = history(roots["ldr"]) | made["pending"]
    put_history(roots["ldr"], kept)
    out["stats"]["history"] = sum("/_history/" in name for name in kept)
    shutil.rmtree(roots["ldr"] / ".cache", ignore_errors=True)
    clone = fresh_build(roots["ldr"], sites["ldr"])
    clone_plain = fresh_build(roots["plain"], sites["plain"])
    out["clone"] = {"ldr": clone["s"], "plain": clone_plain["s"]}
    # Cold: no record (a proof host starts, every proof runs; the caches of drawings and
    # highlighted sources are warm), against the proofs' own runtimes plus a plain build,
    # sampled for memory (both sides).
    # Timed without the memory sampler (reading /proc of a process that holds torch every 50 ms
    # costs CPU); one more cold build of each side is sampled for memory.
    # Each starts its own proof host, which imports torch.
    colds_s, plain_cold = [], []
    for _ in range(colds):
        shutil.rmtree(roots["ldr"] / "proofs" / "_results", ignore_errors=True)
        put_history(roots["ldr"], kept)  # committed: only the current records are missing
        cold = fresh_build(roots["ldr"], sites["ldr"])
        plain = fresh_build(roots["plain"], sites["plain"])
        colds_s.append(cold["s"])
        plain_cold.append(plain["s"])
        walls = recorded_walls(roots["ldr"])
    shutil.rmtree(roots["ldr"] / "proofs" / "_results", ignore_errors=True)
    put_history(roots["ldr"], kept)
    # Sampled with the build's own host in its process tree.
    out["memory_cold"] = fresh_build(roots["ldr"], sites["ldr"], sample=True)
    out["memory_plain"] = fresh_build(roots["plain"], sites["plain"], sample=True)
    out["proof_runtime_s"] = sum(walls.values())
    out["cold_s"], out["cold_plain_s"] = statistics.median(colds_s), statistics.median(plain_cold)
    out["overhead"] = runner_overhead(roots["ldr"])
    # Warm: every record fresh; a fresh process each time, then rebuilt in this process.
    # One untimed build of each side first: a build that ran proofs keeps no converted page
    # (hosts/mkdocs/pagecache.py), so the first build after the cold ones converts every page
    # again. Timed, it was one of the rounds: a build that is neither cold nor warm, in the median.
    for kind in roots:
        fresh_build(roots[kind], sites[kind])
    fresh = {"ldr": [], "plain": []}
    for i in range(rounds):
        for kind in (("ldr", "plain") if i % 2 else ("plain", "ldr")):
            fresh[kind].append(fresh_build(roots[kind], sites[kind]))
    out["fresh"] = {k: statistics.median(r["s"] for r in v) for k, v in fresh.items()}
    # each round's two builds run back to back: their ratio leaves out what slowed the machine
    # for a while (both sides alike), which the medians of each side keep
    out["fresh_paired"] = statistics.median(a["s"] / b["s"] for a, b in zip(fresh["ldr"], fresh["plain"]))
    out["fresh_best"] = {k: min(r["s"] for r in v) for k, v in fresh.items()}
    out["fresh_cpu"] = {k: statistics.median(r["cpu"] for r in v) for k, v in fresh.items()}
    out["maxrss"] = {k: statistics.median(r["maxrss"] for r in v) for k, v in fresh.items()}
    out["instructions"] = instructions(roots, sites) if counting else None
    inproc = {"ldr": [], "plain": []}
    for kind in roots:
        inproc_build(roots[kind], sites[kind])  # warms imports and the caches
    for i in range(rounds):
        for kind in (("ldr", "plain") if i % 2 else ("plain", "ldr")):
            inproc[kind].append(inproc_build(roots[kind], sites[kind]))
    out["inproc"] = {k: statistics.median(w for w, _ in v) for k, v in inproc.items()}
    out["inproc_best"] = {k: min(w for w, _ in v) for k, v in inproc.items()}
    out["inproc_cpu"] = {k: statistics.median(c for _, c in v) for k, v in inproc.items()}
    from build_hooks.run.runner import _SHARED
    out["warm_ran_proofs"] = any(r.proc is not None for r in _SHARED.values())
    out["reload"] = reload_latency(roots, serve_rounds) if serve_rounds else None
    return out


def profile(base: Path, chapters: int, top: int) -> None:
    """cProfile of warm in-process rebuilds: the build's top costs, cumulative."""
    import cProfile
    import pstats

    made = generate(base, chapters)
    fresh_build(made["ldr"], base / "site-ldr")  # records and caches
    put_history(made["ldr"], history(made["ldr"]) | made["pending"])
    fresh_build(made["ldr"], base / "site-ldr")  # the caches again, with the history
    inproc_build(made["ldr"], base / "site-ldr")
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(3):
        inproc_build(made["ldr"], base / "site-ldr")
    profiler.disable()
    stats = pstats.Stats(profiler)
    stats.sort_stats("cumulative")
    print(f"warm in-process rebuild at {chapters} chapters, 3 rebuilds, cumulative:")
    stats.print_stats(r"build_hooks|markdown_it|pymdownx|superfences|yaml|pygments", top)
    stats.sort_stats("tottime")
    print("own time:")
    stats.print_stats(top)


def verdict(r: float, target: float | None) -> str:
    return "" if target is None else ("  ok" if r <= target else f"  OVER {target}")


def ratio_line(label: str, ours: float, base: float, target: float | None, unit: str = "s") -> str:
    r = ours / base if base else float("nan")
    mark = verdict(r, target)
    if unit == "MB":
        return f"  {label:<46} {r:6.3f}  ({ours / 1e6:.0f} MB vs {base / 1e6:.0f} MB){mark}"
    return f"  {label:<46} {r:6.3f}  ({ours:.3f} {unit} vs {base:.3f} {unit}){mark}"


def report(results: dict[int, dict]) -> None:
    for chapters, r in results.items():
        st = r["stats"]
        print(f"\n{chapters} chapter(s): {st['words']:,} words, {st['proofs']} proofs ({st['parallel']} parallel-safe, "
              f"{st['timing']} timing), {st['drawings']} drawings ({st['elements']} elements), "
              f"{st['values']} inline values, {st['excerpts']} excerpts, {chapters} instruments, "
              f"{chapters} corrections notes, a proofs index and a drift report ({st.get('history', 0)} "
              f"records under {OLD_TORCH} in history)")
        print(ratio_line("warm build, fresh process / plain", r["fresh"]["ldr"], r["fresh"]["plain"], 1.05))
        print(ratio_line("  the same in CPU seconds", r["fresh_cpu"]["ldr"], r["fresh_cpu"]["plain"], 1.05))
        print(ratio_line("  best of each side's runs", r["fresh_best"]["ldr"], r["fresh_best"]["plain"], 1.05))
        paired = "  median of the rounds' own ratios"
        print(f"  {paired:<46} {r['fresh_paired']:6.3f}{verdict(r['fresh_paired'], 1.05)}")
        if r.get("instructions"):
            n = r["instructions"]
            print(f"  {'  instructions executed (callgrind)':<46} {n['ldr'] / n['plain']:6.3f}  "
                  f"({n['ldr'] / 1e9:.2f} G vs {n['plain'] / 1e9:.2f} G)"
                  + ("  ok" if n["ldr"] <= 1.05 * n["plain"] else "  OVER 1.05"))
        print(ratio_line("warm rebuild in one process / plain", r["inproc"]["ldr"], r["inproc"]["plain"], 1.05))
        print(ratio_line("  the same in CPU seconds", r["inproc_cpu"]["ldr"], r["inproc_cpu"]["plain"], 1.05))
        print(ratio_line("  best of each side's runs", r["inproc_best"]["ldr"], r["inproc_best"]["plain"], 1.05))
        print(ratio_line("fresh clone (records, no .cache) / plain", r["clone"]["ldr"], r["clone"]["plain"], None))
        budget = r["proof_runtime_s"] + r["cold_plain_s"]
        print(ratio_line("cold build / (proofs' runtimes + plain)", r["cold_s"], budget, 1.15))
        print(f"  {'runner overhead per proof':<46} {r['overhead']['per_proof_s'] * 1000:6.1f} ms "
              f"({r['overhead']['count']} proofs one at a time; target <= 5 ms)")
        print(ratio_line("peak RSS of the warm build / plain", r["maxrss"]["ldr"], r["maxrss"]["plain"], 1.5, "MB"))
        cold, plain = r["memory_cold"], r["memory_plain"]
        allowed = 1.5 * plain["total"] + cold["host"]
        print(ratio_line("cold peak PSS / (1.5 x plain + proof host)", cold["total"], allowed, 1.0, "MB")
              + f" [build {cold['main'] / 1e6:.0f} MB, host {cold['host'] / 1e6:.0f} MB]")
        if r["reload"]:
            print(ratio_line("reload after a prose edit under serve / plain", r["reload"]["ldr"],
                             r["reload"]["plain"], 1.10))
        if r["warm_ran_proofs"]:
            print("  WARNING: a proof host started during the warm builds")
    sizes = sorted(results)
    if len(sizes) > 1:
        print("\ngrowth: the cost added to plain, per chapter (flat = grows with the pages; rising = pages x proofs)")
        for label, key in (("warm, fresh process", "fresh"), ("  in CPU", "fresh_cpu"),
                           ("warm, one process", "inproc"), ("  in CPU", "inproc_cpu")):
            cells = [f"{c} ch: {(results[c][key]['ldr'] - results[c][key]['plain']) / c * 1000:6.0f} ms"
                     for c in sizes]
            print(f"  {label:<22} " + "   ".join(cells))
        beyond = {c: results[c]["cold_s"] - results[c]["proof_runtime_s"] - results[c]["cold_plain_s"] for c in sizes}
        cells = [f"{c} ch: {beyond[c] / c * 1000:6.0f} ms" for c in sizes]
        print(f"  {'cold, beyond budget':<22} " + "   ".join(cells))
        if all(results[c]["reload"] for c in sizes):
            cells = [f"{c} ch: {(results[c]['reload']['ldr'] - results[c]['reload']['plain']) / c * 1000:6.0f} ms"
                     for c in sizes]
            print(f"  {'serve reload':<22} " + "   ".join(cells))
        cells = [f"{c} ch: {results[c]['overhead']['per_proof_s'] * 1000:6.1f} ms" for c in sizes]
        print(f"  {'per-proof overhead':<22} " + "   ".join(cells))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,3,12", help="chapter counts (default 1,3,12)")
    parser.add_argument("--rounds", type=int, default=11, help="warm builds per side and size")
    parser.add_argument("--serve-rounds", type=int, default=6, help="prose edits per side and size (0: skip)")
    parser.add_argument("--colds", type=int, default=3, help="cold builds per size (median)")
    parser.add_argument("--no-instructions", action="store_true",
                        help="skip counting the warm builds' instructions with valgrind (about 2 minutes)")
    parser.add_argument("--profile", type=int, metavar="CHAPTERS", help="only profile warm rebuilds at this size")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    started = time.perf_counter()
    import logging
    logging.getLogger("mkdocs").setLevel(logging.ERROR)
    base = Path(tempfile.mkdtemp(prefix="bench-scale-"))
    PYCACHE[:] = [str(base / "pycache")]
    try:
        # The bytecode folder starts empty: compile what every build and proof host imports
        # once, before anything is timed, as pip compiled it on an author's machine (without
        # this the first cold build would time torch's compilation, seconds, not its import).
        subprocess.run([sys.executable, "-c", "import torch, jupytext, nbformat, mkdocs.commands.build, "
                        "material.plugins.search.plugin, build_hooks.hosts.mkdocs.plugin"],
                       env=_env(), check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if args.profile:
            profile(base, args.profile, args.top)
            return
        results = {}
        for chapters in (int(s) for s in args.sizes.split(",")):
            results[chapters] = measure(base / f"c{chapters}", chapters, args.rounds, args.serve_rounds, args.colds,
                                        counting=not args.no_instructions)
            print(f"[{chapters} chapter(s) measured, {time.perf_counter() - started:.0f} s so far]", flush=True)
        print("\nours / plain mkdocs-material on the same pages (medians of interleaved runs; a shared "
              f"machine, so expect noise of a few percent); {args.rounds} warm builds per side, "
              f"{args.serve_rounds} prose edits per side, {args.colds} cold build(s)")
        report(results)
    finally:
        shutil.rmtree(base, ignore_errors=True)
        print(f"\nbench_scale ran {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
