#!/usr/bin/env python3
"""locate_symbol accuracy against an independent oracle (SC-002, FR-009).

usage: python bench/locate_accuracy.py --lang python|go|rust|typescript DIR
                                       [--n 500] [--seed 7] [--home DIR] [--gt GT.jsonl] [--show N]

1. DIR is indexed with run_index into --home (a fresh temp dir unless given; a kept one is
   synced, which is a no-op when nothing changed).
2. The language's oracle from the benchmark kit lists every definition (`path, name, line,
   end`): py_gt.py (stdlib ast), gogt (go/parser; built into /tmp from a copy), rsgt (syn;
   cargo build --release in a /tmp copy), ts_gt.js (TypeScript compiler API). `--gt` reuses
   a saved oracle output.
3. Oracle rows in files Cruxe did not index (scanner rules: vendor/, build/, > 1 MiB, ...) are
   left out and counted. Names are grouped by how many definitions the oracle has.
4. A seeded sample of N names defined once, and of N names defined 2-5 times, are looked up
   with `locate_symbol(name, limit=10)`; a definition is found when a hit has the same path
   and name and its line range holds the oracle's line (`name_line` when the oracle gives it,
   since Cruxe's ranges include decorators/attributes and the oracle's `line` may not).
Reports top-1 for names defined once (goal >= 0.99) and all-definitions-in-top-10 for names
defined 2-5 times (goal >= 0.95), plus lookup latency.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

from nl_search import open_index  # noqa: E402

from cruxe.model import Hit  # noqa: E402
from cruxe.query import locate_symbol  # noqa: E402
from support.locations import ORACLES  # noqa: E402



def oracle_command(lang: str, directory: str) -> list[str]:
    if lang == "python":
        return [sys.executable, os.path.join(ORACLES, "py_gt.py"), directory]
    if lang == "typescript":
        return ["node", os.path.join(ORACLES, "ts_gt.js"), directory]
    if lang == "go":
        return [build("gogt", ["go", "build", "-o", "gogt", "."], "gogt", {"GOPROXY": "off"}), directory]
    if lang == "rust":
        return [build("rsgt", ["cargo", "build", "--release", "--offline"], "target/release/rsgt", {}), directory]
    raise SystemExit(f"no oracle for {lang}")


def build(name: str, cmd: list[str], binary: str, env: dict[str, str]) -> str:
    """Build an oracle in a /tmp copy (the kit is read-only) once; reuse it afterwards."""
    work = f"/tmp/cruxe-oracle-{name}"
    out = os.path.join(work, binary)
    if not os.path.exists(out):
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(os.path.join(ORACLES, name), work)
        subprocess.run(cmd, cwd=work, check=True, env={**os.environ, **env})
    return out


def load_oracle(lang: str, directory: str, gt: str | None) -> list[dict]:
    if gt:
        lines = open(gt).read().splitlines()
    else:
        run = subprocess.run(oracle_command(lang, directory), capture_output=True, text=True, check=True)
        lines = run.stdout.splitlines()
    rows = []
    for line in lines:
        r = json.loads(line)
        path = r["path"]
        if os.path.isabs(path):
            path = os.path.relpath(path, directory)
        r["path"] = path.replace(os.sep, "/")
        rows.append(r)
    return rows


def indexed_paths(gen, repo: str, ref: str) -> set[str]:
    return {r[0] for r in gen.db.execute('SELECT path FROM file_manifest WHERE repo=? AND "ref"=?', (repo, ref))}


def found(hits: list[Hit], row: dict) -> bool:
    line = row.get("name_line") or row["line"]
    return any(h.path == row["path"] and h.name == row["name"] and h.line_start <= line <= h.line_end
               for h in hits)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--lang", required=True, choices=["python", "go", "rust", "typescript"])
    ap.add_argument("--n", type=int, default=500)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--home")
    ap.add_argument("--gt")
    ap.add_argument("--show", type=int, default=0)
    args = ap.parse_args()
    directory = os.path.abspath(args.dir)
    gen, repo, ref, secs = open_index(directory, args.home)
    rows = load_oracle(args.lang, directory, args.gt)
    indexed = indexed_paths(gen, repo, ref)
    kept = [r for r in rows if r["path"] in indexed]
    by_name: dict[str, list[dict]] = collections.defaultdict(list)
    for r in kept:
        by_name[r["name"]].append(r)
    rng = random.Random(args.seed)
    once = sorted(n for n, rs in by_name.items() if len(rs) == 1)
    few = sorted(n for n, rs in by_name.items() if 2 <= len(rs) <= 5)
    once_s = rng.sample(once, min(args.n, len(once)))
    few_s = rng.sample(few, min(args.n, len(few)))
    times: list[float] = []
    misses: list[str] = []

    def lookup(name: str) -> list:
        t0 = time.perf_counter()
        hits, _ = locate_symbol(gen, repo, ref, name, limit=10)
        times.append((time.perf_counter() - t0) * 1000)
        return hits

    top1 = 0
    for name in once_s:
        hits = lookup(name)
        ok = bool(hits) and found(hits[:1], by_name[name][0])
        top1 += ok
        if not ok:
            misses.append(f"once {name}: want {by_name[name][0]['path']}:{by_name[name][0]['line']} "
                          f"got {[(h.path, h.line_start, h.kind) for h in hits[:2]]}")
    all10 = 0
    for name in few_s:
        hits = lookup(name)
        ok = all(found(hits, r) for r in by_name[name])
        all10 += ok
        if not ok:
            misses.append(f"few {name}: {len(by_name[name])} defs, got {len(hits)} hits")
    print(f"corpus {directory} lang={args.lang} seed={args.seed} index_or_sync_s={secs:.1f}")
    print(f"oracle rows {len(rows)}; in indexed files {len(kept)} ({len(rows) - len(kept)} in files Cruxe skips)")
    print(f"names defined once: {len(once)} (sampled {len(once_s)})  top-1 {top1 / max(1, len(once_s)):.4f}")
    print(f"names defined 2-5x: {len(few)} (sampled {len(few_s)})  all-in-top-10 {all10 / max(1, len(few_s)):.4f}")
    print(f"locate latency ms: p50 {statistics.median(times):.2f}  p95 {sorted(times)[int(0.95 * len(times))]:.2f}")
    for m in misses[:args.show]:
        print("MISS", m)


if __name__ == "__main__":
    main()
