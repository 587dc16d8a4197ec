#!/usr/bin/env python3
"""Queries from several MCP clients while the index changes under them, at a larger scale
than tests/test_concurrency.py (whose harness, tests/support/concurrency.py, this reuses).

usage: python3 bench/concurrency_bench.py [--corpus stdlib|go-strings|DIR...] [--syncs 5]

Two stdio servers and one HTTP server (three connections) query a mixed set of tools
without pause through four phases: idle (the anchor), the first index, a `--force`
rebuild, and `--syncs` rounds of edits + `cruxe sync`. Then two `cruxe index --force` are
started together, five times (exactly one must run each time; the other exits 3).
Prints one JSON object: per phase the number of requests, failed requests (protocol
errors, unexpected tool errors, any "locked"), latency p50/p95/p99, and the metadata states
seen (indexing_status, result_completeness, freshness_status).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from support import concurrency as tcc  # noqa: E402
from support.locations import STDLIB  # noqa: E402

CORPORA = {"stdlib": [STDLIB / n for n in ("email", "json", "asyncio", "http", "xml", "unittest")]}


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return round(s[min(len(s) - 1, int(p / 100 * len(s)))] * 1000, 2) if s else 0.0


def phase_report(tally: tcc.Tally, seconds: float) -> dict:
    n = sum(tally.outcomes.values())
    return {"requests": n, "seconds": round(seconds, 1), "failed": len(tally.failures),
            "failure_examples": tally.failures[:5],
            "latency_ms": {"p50": pct(tally.latencies, 50), "p95": pct(tally.latencies, 95),
                           "p99": pct(tally.latencies, 99)},
            "states_seen": {"/".join(k): v for k, v in sorted(tally.metadata.items())},
            "tool_errors": {k: v for k, v in sorted(tally.outcomes.items()) if not k.endswith(":ok")}}


class Idle:
    """A stand-in job for the idle phase: ends after a fixed time."""

    def __init__(self, seconds: float):
        self.end = time.monotonic() + seconds

    def wait(self, timeout: float | None = None) -> int:
        time.sleep(max(0.0, self.end - time.monotonic()))
        return 0


def run_phase(fleet: tcc.Fleet, job, allowed: frozenset = frozenset()) -> dict:
    tally = tcc.Tally(allowed_errors=allowed)
    t = time.monotonic()
    code = fleet.run_during(job, tally, max_seconds=1800)
    out = phase_report(tally, time.monotonic() - t)
    out["job_exit_code"] = code
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", nargs="+", default=["stdlib"])
    ap.add_argument("--syncs", type=int, default=5)
    ap.add_argument("--idle-seconds", type=float, default=10)
    a = ap.parse_args()
    sources = [p for c in a.corpus for p in CORPORA.get(c, [Path(c)])]
    import logging
    logging.disable(logging.CRITICAL)
    with tempfile.TemporaryDirectory(prefix="cruxe-conc-") as tmp:
        repo, home = Path(tmp) / "repo", Path(tmp) / "home"
        for src in sources:
            shutil.copytree(src, repo / src.name, ignore=shutil.ignore_patterns("__pycache__"), symlinks=True)
        files = sum(1 for _ in repo.rglob("*.py"))
        # tcc.MIXED names stdlib email/json symbols: keep them meaningful on other corpora too
        fleet = tcc.Fleet(repo, home)
        fleet.repo, fleet.home = repo, home
        phases = {}
        try:
            phases["first_index"] = run_phase(fleet, tcc.start_job(fleet, "index"),
                                              frozenset(tcc.FIRST_INDEX_ERRORS))
            phases["idle_anchor"] = run_phase(fleet, Idle(a.idle_seconds))
            phases["force_rebuild"] = run_phase(fleet, tcc.start_job(fleet, "index", "--force"))
            syncs = []
            edited = sorted(repo.rglob("*.py"))[: max(10, files // 10)]
            for round_ in range(a.syncs):
                for p in edited[round_::2]:
                    p.write_text(p.read_text() + f"\n\ndef bench_edit_{round_}():\n    return {round_}\n")
                syncs.append(run_phase(fleet, tcc.start_job(fleet, "sync")))
            phases["syncs"] = syncs
            races = []
            for _ in range(5):
                jobs = [tcc.start_job(fleet, "index", "--force") for _ in range(2)]
                codes = sorted(j.wait(timeout=1800) for j in jobs)
                errs = [j.stderr.read() for j in jobs]
                races.append({"exit_codes": codes, "index_in_progress_messages": sum("index_in_progress" in e
                                                                                    for e in errs)})
        finally:
            http_log = fleet.close()
        result = {
            "bench": "concurrency", "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "machine": {"platform": platform.platform(), "cpus": os.cpu_count(), "python": platform.python_version()},
            "corpus": {"sources": [str(s) for s in sources], "py_files": files},
            "clients": {"stdio_servers": 2, "http_connections": 3}, "batch_files": tcc.BATCH_ENV,
            "phases": phases,
            "total_requests": sum(p["requests"] for p in [phases["first_index"], phases["idle_anchor"],
                                                          phases["force_rebuild"], *phases["syncs"]]),
            "total_failed": sum(p["failed"] for p in [phases["first_index"], phases["idle_anchor"],
                                                      phases["force_rebuild"], *phases["syncs"]]),
            "two_index_races": races,
            "races_exactly_one_ran": sum(r["exit_codes"] == [0, 3] for r in races),
            "locked_in_http_server_log": "database is locked" in http_log,
        }
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
