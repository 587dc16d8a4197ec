#!/usr/bin/env python3
"""`cruxe watch` on a generated tree of many files (issue 20, bad input: "a watch on 100k files").

usage: python3 bench/watch_scale_bench.py [--files 100000] [--per-dir 100] [--work /tmp/cruxe_watch_scale]
                                          [--idle-seconds 30] [--edits 3] [--poll]

Generates FILES tiny Go files (PER_DIR to a directory; kept between runs), indexes them, then measures
what the watch loop costs there: the time of one check (`watch.changed`, p50/p95 over 30), the first
check after a publish (it reads the manifest), the process's resident memory before and after the
watch starts, its CPU over IDLE_SECONDS with nothing changing, and how long an added file and an edit
in place take to show in `locate_symbol` (at most 180 s each), and what the watch warned (it checks
less often when a check costs too much: `watch.Pace`). One JSON object on stdout.
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import threading
import time
from pathlib import Path
import sys

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def generate(tree: Path, files: int, per_dir: int) -> None:
    if (tree / "DONE").exists():
        return
    for i in range(files):
        d = tree / f"d{i // per_dir:05d}"
        if i % per_dir == 0:
            d.mkdir(parents=True, exist_ok=True)
        (d / f"f{i:06d}.go").write_text(f"package d{i // per_dir}\n\nfunc F{i}() int {{ return {i} }}\n")
    (tree / "DONE").write_text("")


def time_to_answer(server, name: str, limit_s: float = 180) -> float | None:
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < limit_s:
        payload, is_error = server.call_tool("locate_symbol", {"name": name, "freshness_policy": "best_effort"})
        if not is_error and payload.get("results"):
            return round(time.perf_counter() - t0, 2)
        time.sleep(0.1)
    return None


def check_times(project, n: int = 30) -> dict:
    from cruxe.watch import changed
    t0 = time.perf_counter()
    changed(project)
    first = time.perf_counter() - t0
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        changed(project)
        times.append(time.perf_counter() - t0)
    times.sort()
    return {"first_ms": round(first * 1000, 1), "p50_ms": round(times[n // 2] * 1000, 2),
            "p95_ms": round(times[int(0.95 * n)] * 1000, 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--files", type=int, default=100_000)
    ap.add_argument("--per-dir", type=int, default=100)
    ap.add_argument("--work", type=Path, default=Path("/tmp/cruxe_watch_scale"))
    ap.add_argument("--idle-seconds", type=float, default=30)
    ap.add_argument("--edits", type=int, default=3)
    ap.add_argument("--poll", action="store_true", help="poll (watch's events=False) instead of inotify")
    a = ap.parse_args()
    tree = a.work / f"tree{a.files}x{a.per_dir}"
    os.environ["CRUXE_HOME"] = str(a.work / f"home{a.files}x{a.per_dir}")
    from cruxe.index import run_index
    from cruxe.project import open_project
    from cruxe.tools import Server
    from cruxe.watch import watch
    t0 = time.perf_counter()
    generate(tree, a.files, a.per_dir)
    out = {"files": a.files, "per_dir": a.per_dir, "generate_s": round(time.perf_counter() - t0, 1)}
    t0 = time.perf_counter()
    out["index_files"] = run_index(tree).file_count
    out["index_s"] = round(time.perf_counter() - t0, 1)
    project, server = open_project(tree), Server(tree)
    rss0 = rss_mb()
    out["check"] = check_times(project)
    out["rss_mb"] = {"before_watch": round(rss0, 1), "after_checks": round(rss_mb(), 1)}
    warnings: list[str] = []
    handler = logging.Handler(logging.WARNING)
    handler.emit = lambda record: warnings.append(record.getMessage())
    logging.getLogger("cruxe.watch").addHandler(handler)
    stop = threading.Event()
    thread = threading.Thread(target=watch, args=(tree,), kwargs={"stop": stop, "events": not a.poll}, daemon=True)
    thread.start()
    time.sleep(3)  # the watch's first check reads the manifest
    c0, w0 = time.process_time(), time.perf_counter()
    time.sleep(a.idle_seconds)
    out["idle_cpu_fraction_of_a_core"] = round((time.process_time() - c0) / (time.perf_counter() - w0), 4)
    out["rss_mb"]["watching"] = round(rss_mb(), 1)
    run = int(time.time())
    added, edited = [], []
    for k in range(a.edits):
        name = f"ScaleAdd{run}x{k}"
        (tree / "d00000" / f"added_{run}_{k}.go").write_text(f"package d0\n\nfunc {name}() {{}}\n")
        added.append(time_to_answer(server, name))
        name = f"ScaleEdit{run}x{k}"
        i = (k * 7919 + 1) % a.files  # an edit in place: no directory's mtime moves
        target = tree / f"d{i // a.per_dir:05d}" / f"f{i:06d}.go"
        with open(target, "a") as f:
            f.write(f"\nfunc {name}() {{}}\n")
        edited.append(time_to_answer(server, name))
    stop.set()
    out["add_to_answer_s"], out["edit_in_place_to_answer_s"] = added, edited
    out["watch_warnings"] = warnings
    out["load"] = round(os.getloadavg()[0], 2)
    out["date"] = time.strftime("%Y-%m-%d %H:%M")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
