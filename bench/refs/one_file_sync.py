#!/usr/bin/env python3
"""What a one-file sync costs, repeated: a line added at the top of FILE (every definition in it
moves, every edge into it is re-resolved; the sync of `edge_cost.py`), synced in-process and as
a `cruxe sync` CLI process, and, with `--type-edit OLD NEW`, FILE's text OLD replaced by NEW (a
change of type information, such as a base list) synced in-process; the file is restored and
synced after each round. The CLI process imports cruxe from PYTHONPATH, so set it to the checkout
whose code is measured.

usage: PYTHONPATH=<checkout> python3 bench/refs/one_file_sync.py REPO --home HOME --file REL [--rounds 3]
       [--type-edit "class QuerySet(AltersData):" "class QuerySet(AltersData, BaseIterable):"]

REPO is indexed into HOME first when HOME does not exist (keep one HOME per code under test: a
resolver version of another code re-resolves everything once). One JSON object on stdout.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def _timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return round(time.perf_counter() - t, 3)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("repo", type=Path)
    ap.add_argument("--home", type=Path, required=True)
    ap.add_argument("--file", required=True, help="the file to edit, relative to REPO")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--type-edit", nargs=2, metavar=("OLD", "NEW"))
    a = ap.parse_args()
    os.environ["CRUXE_HOME"] = str(a.home)
    from cruxe.index import run_index
    if not a.home.exists():
        run_index(a.repo)
    target = a.repo / a.file
    original = target.read_text()
    if a.type_edit and a.type_edit[0] not in original:
        sys.exit(f"{a.file} does not contain {a.type_edit[0]!r}")
    out: dict = {"file": a.file, "in_process_s": [], "cli_s": [], "type_edit_s": []}
    cli = [sys.executable, "-m", "cruxe", "sync", "--path", str(a.repo), "--quiet"]
    try:
        for _ in range(a.rounds):
            target.write_text("# moved\n" + original)
            out["in_process_s"].append(_timed(lambda: run_index(a.repo)))
            target.write_text(original)
            out["cli_s"].append(_timed(lambda: subprocess.run(cli, check=True, capture_output=True)))
            if a.type_edit:
                target.write_text(original.replace(*a.type_edit))
                out["type_edit_s"].append(_timed(lambda: run_index(a.repo)))
                target.write_text(original)
                run_index(a.repo)
    finally:
        target.write_text(original)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
