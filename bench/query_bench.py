#!/usr/bin/env python3
"""Warm in-process latency of locate_symbol and search_code, beside ripgrep's full scan.

usage: python bench/query_bench.py [--n 300] [--seed 7] [--home DIR] [--rounds 3] DIR

DIR is indexed (or a kept --home synced). Queries, seeded from the index itself:
- locate: N symbol names sampled from symbol_relations;
- search: N/3 symbol names, N/3 file names (path intent), N/3 natural-language queries made
  of 3-5 words from sampled docstrings/doc comments (the `doc` column).
`search_code` with detail_level=context (previews, parents, related) is timed too.
Each query runs once to warm up, then `--rounds` times; the figure per query is its median.
`search` is timed as the tool runs it: search_code + shape_response, with ranking explain
`off` and `basic` (the goal: basic adds <= 10%). Goals on go-5k: locate p95 <= 5 ms,
search p95 <= 20 ms. ripgrep (`rg -uu -F -c WORD DIR`) is timed in the same run on the same
corpus, as the "no index" anchor.
"""
from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from nl_search import open_index  # noqa: E402

from cruxe.query import locate_symbol, search_code  # noqa: E402
from cruxe.shape import shape_response  # noqa: E402

_WORD = re.compile(r"[A-Za-z]{3,}")
BASE_METADATA = {"cruxe_protocol_version": "1.0", "freshness_status": "fresh", "indexing_status": "ready",
                 "result_completeness": "complete", "ref": "live", "schema_status": "compatible"}


def sample_queries(gen, repo: str, ref: str, n: int, seed: int) -> dict[str, list[str]]:
    rng = random.Random(seed)
    db = gen.db
    names = sorted({r[0] for r in db.execute('SELECT name FROM symbol_relations WHERE repo=? AND "ref"=?',
                                            (repo, ref))})
    paths = sorted(r[0] for r in db.execute('SELECT path FROM file_manifest WHERE repo=? AND "ref"=? '
                                            "AND language IS NOT NULL", (repo, ref)))
    nl = _prose_queries(db, repo, ref, rng, n)
    third = max(1, n // 3)
    return {
        "locate": rng.sample(names, min(n, len(names))),
        "search": (rng.sample(names, min(third, len(names)))
                   + [p.rsplit("/", 1)[-1] for p in rng.sample(paths, min(third, len(paths)))]
                   + nl[:third]),
    }


_COMMENT_STARTS = ("#", "//", '"""', "'''", "*", "/*")
INDEXED_DIR: list[str] = ["."]  # the directory main indexed (paths in the index are relative to it)


def _prose_queries(db, repo: str, ref: str, rng: random.Random, n: int) -> list[str]:
    """3-5 words of the first comment or docstring line inside sampled definitions, read from
    the files: the index keeps doc text in Tantivy only, not in a column."""
    rows = db.execute('SELECT path, line_start, line_end FROM symbol_relations WHERE repo=? AND "ref"=? '
                      "AND line_end > line_start + 2", (repo, ref))
    spans = sorted(tuple(r) for r in rows)
    out: list[str] = []
    for path, start, end in rng.sample(spans, min(len(spans), 3 * n)):
        try:
            with open(os.path.join(INDEXED_DIR[0], path), encoding="utf-8", errors="replace") as f:
                lines = f.read().split("\n")[start:end]
        except OSError:
            continue
        words = next((w for w in (_WORD.findall(t) for t in lines if t.strip().startswith(_COMMENT_STARTS))
                      if len(w) >= 3), None)
        if words:
            out.append(" ".join(words[:rng.randint(3, 5)]))
        if len(out) >= n:
            break
    return out


CPU: list[float] = []  # thread CPU time of every timed call: steadier than wall time on a busy host


def timed(fn, rounds: int) -> float:
    fn()  # warm
    times, cpu = [], []
    for _ in range(rounds):
        c0, t0 = time.thread_time(), time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.thread_time() - c0) * 1000)
    CPU.append(statistics.median(cpu))
    return statistics.median(times)


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def search_and_shape(gen, repo: str, ref: str, q: str, explain: str):
    hits, total, intent = search_code(gen, repo, ref, q, limit=10)
    return shape_response("search_code", hits, explain_level=explain, base_metadata=BASE_METADATA,
                          total_candidates=total, extra={"query_intent": intent})


def rg_scan(directory: str, words: list[str]) -> list[float]:
    out = []
    for w in words:
        t0 = time.perf_counter()
        subprocess.run(["rg", "-uu", "-F", "-c", w, directory], capture_output=True)
        out.append((time.perf_counter() - t0) * 1000)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--home")
    args = ap.parse_args()
    directory = os.path.abspath(args.dir)
    INDEXED_DIR[0] = directory
    gen, repo, ref, secs = open_index(directory, args.home)
    qs = sample_queries(gen, repo, ref, args.n, args.seed)
    loc = [timed(lambda q=q: locate_symbol(gen, repo, ref, q, limit=10), args.rounds) for q in qs["locate"]]
    loc_cpu = CPU[:]
    CPU.clear()
    off, basic = [], []
    for q in qs["search"]:
        # alternate the order so neither mode always runs on a cache the other warmed
        off.append(timed(lambda q=q: search_and_shape(gen, repo, ref, q, "off"), args.rounds))
        basic.append(timed(lambda q=q: search_and_shape(gen, repo, ref, q, "basic"), args.rounds))
    CPU.clear()
    raw = [timed(lambda q=q: search_code(gen, repo, ref, q, limit=10), args.rounds) for q in qs["search"]]
    raw_cpu = CPU[:]
    ctx = [timed(lambda q=q: search_code(gen, repo, ref, q, limit=10, detail_level="context"), args.rounds)
           for q in qs["search"]]
    rg = rg_scan(directory, [q for q in qs["locate"][:10]])
    print(f"corpus {directory} seed={args.seed} index_or_sync_s={secs:.1f} "
          f"locate_q={len(loc)} search_q={len(off)}")
    print(f"locate_symbol                 p50 {statistics.median(loc):6.2f} ms  p95 {pct(loc, .95):6.2f} ms")
    print(f"search_code (engine only)     p50 {statistics.median(raw):6.2f} ms  p95 {pct(raw, .95):6.2f} ms")
    print(f"search_code detail=context    p50 {statistics.median(ctx):6.2f} ms  p95 {pct(ctx, .95):6.2f} ms")
    print(f"search_code+shape explain=off p50 {statistics.median(off):6.2f} ms  p95 {pct(off, .95):6.2f} ms")
    print(f"search_code+shape basic       p50 {statistics.median(basic):6.2f} ms  p95 {pct(basic, .95):6.2f} ms  "
          f"(basic/off p95 {pct(basic, .95) / pct(off, .95):.3f}, mean {sum(basic) / sum(off):.3f})")
    print(f"CPU time (thread):  locate p95 {pct(loc_cpu, .95):.2f} ms  search engine p50 "
          f"{statistics.median(raw_cpu):.2f} ms  p95 {pct(raw_cpu, .95):.2f} ms  load avg {os.getloadavg()[0]:.1f}")
    print(f"rg -uu -F -c WORD (full scan) p50 {statistics.median(rg):6.1f} ms  (10 words)")


if __name__ == "__main__":
    main()
