"""How the proofs time things: warm up, take many samples, report the median and its spread.

A sample times a loop of `loops` calls and divides by `loops`, so that a call much shorter
than the clock's resolution is still measured; `loops` is calibrated once per case so that
a sample lasts about `target_ms`. Cases are sampled in turns (one sample of each case per
round), so a burst of load from elsewhere on the machine spreads over all of them instead of
spoiling one. The spread is the interquartile range (IQR) of the samples: half of them lie
inside it. Standard library and torch only; nothing here knows about the site.
"""

import os
import statistics
import time


class Timing:
    """The samples of one case, in microseconds per call, with what was timed."""

    def __init__(self, what, samples_us, loops):
        self.what = what
        self.samples_us = sorted(samples_us)
        self.loops = loops
        self.median_us = statistics.median(self.samples_us)
        q = statistics.quantiles(self.samples_us, n=4) if len(self.samples_us) > 1 else [self.median_us] * 3
        self.q1_us, self.q3_us = q[0], q[2]
        self.iqr_us = self.q3_us - self.q1_us

    @property
    def spread(self):
        """The IQR as a share of the median (0.05: half the samples within 5 %)."""
        return self.iqr_us / self.median_us if self.median_us else 0.0

    def data(self):
        return {"what": self.what, "median_us": self.median_us, "q1_us": self.q1_us,
                "q3_us": self.q3_us, "iqr_us": self.iqr_us, "spread": self.spread,
                "samples": len(self.samples_us), "loops": self.loops}


def per_call_us(fn, loops, clock=time.perf_counter_ns):
    start = clock()
    for _ in range(loops):
        fn()
    return (clock() - start) / loops / 1000.0


def calibrate(fn, target_ms, warmup):
    """Warm the case up, then pick how many calls one sample loops over."""
    for _ in range(warmup):
        fn()
    guess = min(per_call_us(fn, 3) for _ in range(3))
    return max(1, int(target_ms * 1000.0 / max(guess, 1e-3)))


def measure(cases, samples=21, target_ms=2.0, warmup=5, sync=None):
    """Time each case of {key: (what, fn)}: a dict {key: Timing}, sampled in interleaved rounds.

    `sync`, when given, is called after each sample's loop and counted in it (an
    accelerator's queue must drain before its clock is read)."""
    if samples < 5:
        raise ValueError("measure: take at least 5 samples, so a median and quartiles mean something")

    def with_sync(fn):
        return fn if sync is None else (lambda: (fn(), sync()))

    loops = {key: calibrate(with_sync(fn), target_ms, warmup) for key, (_, fn) in cases.items()}
    seen = {key: [] for key in cases}
    for _ in range(samples):
        for key, (_, fn) in cases.items():
            start = time.perf_counter_ns()
            for _ in range(loops[key]):
                fn()
            if sync is not None:
                sync()
            seen[key].append((time.perf_counter_ns() - start) / loops[key] / 1000.0)
    return {key: Timing(what, seen[key], loops[key]) for key, (what, _) in cases.items()}


def method_line(samples, target_ms, warmup=5):
    """One line saying how the numbers below were taken."""
    return (f"median of {samples} samples per case, each a loop of calls lasting about"
            f" {target_ms:g} ms (calls per loop calibrated after {warmup} warm-up calls),"
            " cases taken in turns; spread = interquartile range")


def show(timing, unit="us", width=28):
    """One table row: what, median, and the IQR as +- half of it, in us or ms."""
    scale, digits = (1.0, 2) if unit == "us" else (1000.0, 3)
    med = timing.median_us / scale
    half = timing.iqr_us / 2 / scale
    return f"  {timing.what:<{width}} {med:>10.{digits}f} {unit}  +-{half:<8.{digits}f} ({timing.spread:5.1%} IQR)"


def cache_sizes():
    """Cache sizes in bytes by level, as Linux reports them for CPU 0 ({} elsewhere)."""
    sizes = {}
    base = "/sys/devices/system/cpu/cpu0/cache"
    try:
        entries = sorted(os.listdir(base))
    except OSError:
        return sizes
    for entry in entries:
        try:
            with open(os.path.join(base, entry, "level")) as f:
                level = int(f.read())
            with open(os.path.join(base, entry, "type")) as f:
                kind = f.read().strip()
            with open(os.path.join(base, entry, "size")) as f:
                text = f.read().strip()
        except (OSError, ValueError):
            continue
        if kind == "Instruction":
            continue
        mult = {"K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}.get(text[-1:], 1)
        sizes[f"l{level}_bytes"] = int(text.rstrip("KMG")) * mult
    return sizes
