"""inplace-lab.js run by Node against a minimal stand-in for the DOM the renderer writes: for every
op and write of the committed version_counter record, the readouts it sets are the row's (node,
versions, saved slots, verdict), the right tensor boxes are marked saved or written, and a missing
row is an error rather than a wrong readout. The browser tests check the real page; this runs
wherever Node does."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from theme_support import ROOT

from build_hooks.series.instruments._common import fmt
from build_hooks.series.instruments.inplace_lab import program, verdict

SCRIPT = ROOT / "theme" / "assets" / "js" / "inplace-lab.js"

HARNESS = r"""
const fs = require("fs");
const rec = JSON.parse(fs.readFileSync(0, "utf8"));
function classList() { const s = new Set();
  return { toggle: (c, on) => on ? s.add(c) : s.delete(c), has: c => s.has(c), all: () => [...s].sort() }; }
function node(attrs) { const a = Object.assign({}, attrs); const handlers = {};
  return { attrs: a, classList: classList(), textContent: "", value: a.value, checked: !!a.checked,
           name: "ldr-lab-write",
           getAttribute: k => a[k], setAttribute: (k, v) => { a[k] = String(v); },
           addEventListener: (e, f) => { handlers[e] = f; }, fire: e => handlers[e] && handlers[e]() }; }
const select = node({value: rec.data.LAB[0].op});
const radios = ["none", "input", "output"].map(w => node({value: w, checked: w === "none"}));
const figure = node({}), code = node({});
const tensors = [node({"data-tensor": "a"}), node({"data-tensor": "out"})];
const outputs = {};
const root = {
  querySelector: s => ({".ldr-select": select, ".ldr-lab": figure, ".ldr-lab__program": code})[s] || null };
global.document = { querySelectorAll: () => [root] };
let setup = null;
global.window = global;
global.ldr = {
  mount: (kind, f) => { if (kind !== "inplace-lab") throw new Error(kind); setup = f; },
  all: (r, s) => s === 'input[type="radio"]' ? radios : s === ".ldr-lab__tensor" ? tensors : [],
  set: (r, key, value, text) => { outputs[key] = [String(value), text]; },
  fmt: v => FMT[String(v)],
};
const FMT = rec.fmt;
require(process.argv[1]);
setup(root, rec);
const seen = [];
for (const row of rec.data.LAB) {
  select.value = row.op;
  radios.forEach(r => { r.checked = r.value === row.write; });
  (row.write === "none" ? select : radios.find(r => r.value === row.write)).fire("change");
  seen.push({outputs: JSON.parse(JSON.stringify(outputs)), code: code.textContent, state: figure.attrs["data-state"],
             a: tensors[0].classList.all(), out: tensors[1].classList.all(), names: radios.map(r => r.name)});
}
let missing = null;
try { select.value = "no such op"; select.fire("change"); } catch (e) { missing = String(e.message); }
process.stdout.write(JSON.stringify({seen, missing}));
"""


def run_lab(data: dict) -> dict:
    # ldr.fmt is the site's number rule, tested elsewhere: here it answers what the Python rule
    # says, keyed by JavaScript's String(v) (1.0 reads "1", other floats as Python's repr)
    grads = {str(int(g)) if float(g).is_integer() else repr(float(g)): fmt(float(g))
             for row in data["LAB"] if row["ran"] for g in row["grad"]}
    payload = json.dumps({"data": data, "fmt": grads})
    done = subprocess.run(["node", "-e", HARNESS, str(SCRIPT)], input=payload, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_every_row_is_read_out_as_recorded():
    data = json.loads((ROOT / "proofs" / "_results" / "version_counter.cpu.json").read_text())["data"]
    result = run_lab(data)
    assert len(result["seen"]) == len(data["LAB"])
    for row, seen in zip(data["LAB"], result["seen"]):
        out = seen["outputs"]
        assert out["node"] == [row["node"], row["node"]]
        assert out["a_version"][0] == str(row["versions"]["a"]) and out["out_version"][0] == str(row["versions"]["out"])
        assert out["saved"][0] == str(len(row["saved"]))
        assert out["verdict"] == ["ran" if row["ran"] else "error", verdict(row)], (row["op"], row["write"])
        assert seen["state"] == ("ran" if row["ran"] else "error")
        assert seen["code"] == program(row)
        for tensor, holds, target in (("a", "input", "input"), ("out", "output", "output")):
            kept = any(s["holds"] == holds for s in row["saved"])
            assert ("ldr-lab__tensor--saved" in seen[tensor]) == kept
            assert ("ldr-lab__tensor--written" in seen[tensor]) == (row["write"] == target)
            assert out[f"{tensor}_kept"][1] == ("saved by the node" if kept else "not saved")
        assert set(seen["names"]) == {"ldr-lab-write-0"}
    assert result["missing"] == "no LAB row for no such op / output"


STEPPER = ROOT / "theme" / "assets" / "js" / "engine-stepper.js"

STEPPER_HARNESS = r"""
const fs = require("fs");
const rec = JSON.parse(fs.readFileSync(0, "utf8"));
function classList() { const s = new Set();
  return { toggle: (c, on) => on ? s.add(c) : s.delete(c), all: () => [...s].sort() }; }
function node(attrs) { const a = Object.assign({}, attrs); const handlers = {};
  return { classList: classList(), getAttribute: k => a[k], setAttribute: (k, v) => { a[k] = String(v); },
           addEventListener: (e, f) => { handlers[e] = f; }, fire: (e, arg) => handlers[e] && handlers[e](arg) }; }
const rows = rec.data.ORDER;
const marks = rows.map(r => node({"data-step": String(r.step)}));
const edges = [];
rows.forEach(r => r.after.forEach(f => edges.push(node({"data-from": String(f), "data-to": String(r.step)}))));
const buttons = ["first", "prev", "next", "last"].map(m => node({"data-step-to": m}));
const figure = node({});
// the figure's drawing and the geometry reveal() reads: a laptop's, where nothing scrolls
const svg = { style: {minWidth: "", maxWidth: "100%"} };
Object.assign(figure, { querySelector: s => s === "svg" ? svg : null, scrollWidth: 500, clientWidth: 500,
                        scrollLeft: 0, getBoundingClientRect: () => ({left: 0, right: 500}) });
marks.forEach(m => { m.getBoundingClientRect = () => ({left: 10, right: 40}); });
global.matchMedia = () => ({ matches: false, addEventListener: () => {} });
const outputs = {};
const rootHandlers = {};
const root = { querySelector: s => s === ".ldr-figure" ? figure : null,
               addEventListener: (e, f) => { rootHandlers[e] = f; } };
let setup = null;
global.window = global;
global.ldr = {
  mount: (kind, f) => { if (kind !== "engine-stepper") throw new Error(kind); setup = f; },
  all: (r, s) => s === ".ldr-mark" ? marks : s === ".ldr-edge" ? edges : s === "[data-step-to]" ? buttons : [],
  set: (r, key, value, text) => { outputs[key] = [String(value), text]; },
};
require(process.argv[1]);
setup(root, rec);
function snap() { return {outputs: JSON.parse(JSON.stringify(outputs)),
  marks: marks.map(m => m.classList.all()), edges: edges.map(e => [e.getAttribute("data-to"), e.classList.all()])}; }
const seen = [snap()];
for (let i = 1; i < rows.length; i++) { buttons[2].fire("click"); seen.push(snap()); }
buttons[2].fire("click"); const pastEnd = snap();
const key = k => rootHandlers.keydown({key: k, target: {tagName: "DIV"}, preventDefault: () => {}});
key("Home"); const home = snap(); key("ArrowRight"); const right = snap(); key("End"); const end = snap();
marks[3].fire("click"); const clicked = snap();
process.stdout.write(JSON.stringify({seen, pastEnd, home, right, end, clicked,
                                     tabindex: figure.getAttribute("tabindex")}));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_stepper_shows_each_recorded_step():
    data = json.loads((ROOT / "proofs" / "_results" / "engine_order.cpu.json").read_text())["data"]
    rows = data["ORDER"]
    done = subprocess.run(["node", "-e", STEPPER_HARNESS, str(STEPPER)], input=json.dumps({"data": data}),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)

    def seq(s):
        return "max" if s == 2 ** 64 - 1 else str(s)

    for k, (row, seen) in enumerate(zip(rows, result["seen"])):
        out = seen["outputs"]
        assert out["step"] == [str(k + 1), f"{k + 1} of {len(rows)}"]
        assert out["name"][1] == row["name"] and out["seq"][1] == seq(row["seq"])
        assert out["ready"][1] == ", ".join(f'{rows[s]["name"]} ({seq(rows[s]["seq"])})' for s in row["ready"])
        for j, classes in enumerate(seen["marks"]):
            assert ("ldr-mark--current" in classes) == (j == k)
            assert ("ldr-mark--visited" in classes) == (j < k)
            assert ("ldr-mark--ready" in classes) == (j != k and j in row["ready"])
        assert all(("ldr-edge--current" in classes) == (int(to) == k) for to, classes in seen["edges"])
    assert result["pastEnd"]["outputs"]["step"][0] == str(len(rows))
    assert result["home"]["outputs"]["step"][0] == "1" and result["right"]["outputs"]["step"][0] == "2"
    assert result["end"]["outputs"]["step"][0] == str(len(rows))
    assert result["clicked"]["outputs"]["step"][0] == "4" and result["tabindex"] == "0"
