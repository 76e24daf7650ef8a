"""What machine and device a proof runs on; run by the proof host like a proof.

Prints one ``PROBE=<json>`` line. It runs in a forked child, so that the host itself never
initialises CUDA (a forked child of a process that did could not use it). torch tells the
torch version and the accelerator; a host for proofs that never import torch sets
``LDR_PROBE_TORCH=0``, and then (or where torch is not installed) ``torch`` is null and no
accelerator is looked for.
"""

import json
import os
import platform
import subprocess
import sys


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if line.lower().startswith("model name"):
                    return " ".join(line.split(":", 1)[1].split())
    except OSError:
        pass
    if sys.platform == "darwin":
        try:
            out = subprocess.run(["sysctl", "-n", "machdep.cpu.brand_string"],
                                 capture_output=True, text=True, timeout=5)
            if out.stdout.strip():
                return out.stdout.strip()
        except (OSError, subprocess.SubprocessError):
            pass
    return platform.processor() or platform.machine() or "unknown CPU"


def _torch():
    """torch, or None: not asked for (``LDR_PROBE_TORCH=0``) or not installed."""
    if os.environ.get("LDR_PROBE_TORCH", "1") == "0":
        return None
    try:
        import torch
    except ImportError:
        return None
    return torch


def main() -> None:
    torch = _torch()
    info = {
        "torch": None if torch is None else torch.__version__,
        "python": platform.python_version(),
        "os": platform.platform(),
        "machine": platform.machine(),
        "cpu": cpu_model(),
        "cpus": os.cpu_count(),
        "accelerator": None,
        "accelerator_name": None,
    }
    if torch is None:
        pass
    elif torch.cuda.is_available():
        info["accelerator"] = "cuda"
        info["accelerator_name"] = torch.cuda.get_device_name(0)
    elif getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        info["accelerator"] = "mps"
        info["accelerator_name"] = f"Apple GPU ({info['cpu']})"
    print("PROBE=" + json.dumps(info))


if __name__ == "__main__":
    main()
