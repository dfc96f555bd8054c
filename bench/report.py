"""What every benchmark shares: the machine it ran on, percentiles, and the JSON line it
writes to bench/out/<name>.json."""

from __future__ import annotations

import datetime
import json
import math
import os
import platform
from collections.abc import Mapping, Sequence
from pathlib import Path

OUT_DIR = Path(__file__).resolve().parent / "out"


def machine() -> dict[str, object]:
    cpu_model = "unknown"
    with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("model name"):
                cpu_model = line.split(":", 1)[1].strip()
                break
    ram_kib = 0
    with open("/proc/meminfo", encoding="utf-8") as meminfo:
        for line in meminfo:
            if line.startswith("MemTotal:"):
                ram_kib = int(line.split()[1])
                break
    return {
        "nproc": os.cpu_count(),
        "cpu_model": cpu_model,
        "ram_gib": round(ram_kib / (1 << 20), 1),
        "python": platform.python_version(),
    }


def percentile(values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile: the smallest value with at least `fraction` of all at or
    below it (p50 of 20 values is the 10th, p95 the 19th)."""
    if not values:
        raise ValueError("no values")
    ordered = sorted(values)
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


def write_result(name: str, figures: Mapping[str, object]) -> Path:
    """One JSON line with the figures, the machine and the time of the run."""
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    record = {
        "benchmark": name,
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "machine": machine(),
        **figures,
    }
    path = OUT_DIR / f"{name}.json"
    path.write_text(json.dumps(record, sort_keys=False) + "\n", encoding="utf-8")
    print(f"wrote {path}")
    return path


def verdict(value: float, target: float, *, below: bool = False) -> str:
    met = value < target if below else value >= target
    sign = "<" if below else ">="
    return f"target {sign} {target:g}: {'met' if met else 'MISSED'}"
