#!/usr/bin/env python3
"""The cost of freshness that sees edits on disk (issue 20, item 1).

usage: python3 bench/freshness_bench.py [--home DIR] [--checks 300] DIR

Indexes DIR (or syncs a kept --home), then times, in this process:
  check        `freshness.working_tree_changed` (all walked directories + a budget of files);
  index_state  the whole freshness step of a query (`freshness.index_state`);
  cycle        how many checks it takes to have looked at every indexed file once;
and, in the same run, the anchor: one `os.stat` of every indexed file (what a check that sees
every edit at once would cost). Prints one JSON object.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return round(values[min(len(values) - 1, int(q * len(values)))], 3)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--home", default="/tmp/cruxe_freshness_bench")
    ap.add_argument("--checks", type=int, default=300)
    a = ap.parse_args()
    os.environ["CRUXE_HOME"] = a.home
    from cruxe import freshness
    from cruxe.index import run_index
    from cruxe.project import open_project
    from cruxe.store import branch_state

    run_index(a.dir)
    project = open_project(a.dir)
    ref = project.default_ref()
    gen = project.store.current_generation(ref)
    bs = branch_state(gen, project.id, ref)
    freshness._PROBES.clear()
    t0 = time.perf_counter()
    freshness.working_tree_changed(project, gen, bs)
    first_ms = (time.perf_counter() - t0) * 1000
    probe = next(iter(freshness._PROBES.values()))
    checks = []
    for _ in range(a.checks):
        t0 = time.perf_counter()
        freshness.working_tree_changed(project, gen, bs)
        checks.append((time.perf_counter() - t0) * 1000)
    states = []
    for _ in range(a.checks):
        t0 = time.perf_counter()
        freshness.index_state(project, ref)
        states.append((time.perf_counter() - t0) * 1000)
    freshness._PROBES.clear()
    freshness.working_tree_changed(project, gen, bs)
    probe = next(iter(freshness._PROBES.values()))
    cycle, seen = 1, probe.file_at
    while probe.file_at >= seen and cycle < 10_000 and probe.file_at != 0:
        seen = probe.file_at
        freshness.working_tree_changed(project, gen, bs)
        cycle += 1
    anchor = []
    for _ in range(5):
        t0 = time.perf_counter()
        for path, _, _ in probe.files:
            os.stat(path)
        anchor.append((time.perf_counter() - t0) * 1000)
    print(json.dumps({
        "dir": a.dir, "files": len(probe.files), "dirs": len(probe.dirs), "date": time.strftime("%Y-%m-%d %H:%M"),
        "load": os.getloadavg()[0], "first_check_ms": round(first_ms, 2),
        "check_ms": {"p50": _pct(checks, 0.5), "p95": _pct(checks, 0.95)},
        "index_state_ms": {"p50": _pct(states, 0.5), "p95": _pct(states, 0.95)},
        "checks_per_file_cycle": cycle,
        "anchor_stat_every_file_ms": round(statistics.median(anchor), 2),
    }))


if __name__ == "__main__":
    main()
