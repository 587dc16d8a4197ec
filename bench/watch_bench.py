#!/usr/bin/env python3
"""`cruxe watch` on a real tree: idle CPU and edit-to-answer latency (issue 20, item 2).

usage: python3 bench/watch_bench.py [--src /usr/share/go-1.19/src] [--work /tmp/cruxe_watch_bench]
                                    [--edits 20] [--idle-seconds 20] [--poll]

Copies SRC under WORK (edits never touch the original), indexes it, starts `watch` in a thread
of this process, measures the process's CPU time over IDLE_SECONDS with nothing changing, then
makes EDITS edits one at a time (each appends a uniquely named function to a random indexed
Go file, in place, as an editor that rewrites the file does) and times each until `locate_symbol`
answers the new name. Prints one JSON object.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import threading
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parents[1] / "tests")]

from support.locations import GO_SRC  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", default=str(GO_SRC))
    ap.add_argument("--work", default="/tmp/cruxe_watch_bench")
    ap.add_argument("--edits", type=int, default=20)
    ap.add_argument("--idle-seconds", type=float, default=20)
    ap.add_argument("--poll", action="store_true", help="poll (watch's events=False) instead of inotify")
    a = ap.parse_args()
    work = Path(a.work)
    tree, home = work / "tree", work / "home"
    if not tree.exists():
        shutil.copytree(a.src, tree, symlinks=True)
    os.environ["CRUXE_HOME"] = str(home)
    from cruxe.index import run_index
    from cruxe.tools import Server
    from cruxe.watch import WATCH_INTERVAL_S, watch

    run_index(tree)
    server = Server(tree)
    stop = threading.Event()
    t = threading.Thread(target=watch, args=(tree,), kwargs={"stop": stop, "events": not a.poll}, daemon=True)
    t.start()
    time.sleep(2)  # the first check reads the manifest
    c0, w0 = time.process_time(), time.perf_counter()
    time.sleep(a.idle_seconds)
    idle = (time.process_time() - c0) / (time.perf_counter() - w0)
    from cruxe.project import open_project
    from cruxe.store import manifest

    project = open_project(tree)
    ref = project.default_ref()
    indexed = manifest(project.store.current_generation(ref), project.id, ref)
    files = sorted(tree / p for p in indexed if p.endswith(".go") and not p.endswith("_test.go"))
    rng = random.Random(7)
    latencies, missed = [], []
    run = int(time.time())  # names unique to this run (the copy keeps earlier runs' edits)
    for i in range(a.edits):
        path = rng.choice(files)
        name = f"WatchBenchEdit{run}x{i}"
        t0 = time.perf_counter()
        with open(path, "a") as f:
            f.write(f"\nfunc {name}() {{}}\n")
        while time.perf_counter() - t0 < 60:
            payload, is_error = server.call_tool("locate_symbol", {"name": name, "freshness_policy": "best_effort"})
            if not is_error and payload.get("results"):
                break
            time.sleep(0.02)
        latencies.append(time.perf_counter() - t0)
        if latencies[-1] >= 60:
            missed.append(str(path.relative_to(tree)))
        time.sleep(0.5)
    stop.set()
    latencies.sort()
    print(json.dumps({"src": a.src, "files": len(files), "interval_s": WATCH_INTERVAL_S, "load": os.getloadavg()[0],
                      "date": time.strftime("%Y-%m-%d %H:%M"), "idle_cpu_fraction_of_a_core": round(idle, 4),
                      "edit_to_answer_s": {"median": round(latencies[len(latencies) // 2], 3),
                                           "p95": round(latencies[min(len(latencies) - 1, int(0.95 * len(latencies)))], 3),
                                           "max": round(latencies[-1], 3)}, "missed": missed}))


if __name__ == "__main__":
    main()
