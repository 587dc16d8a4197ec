#!/usr/bin/env python3
"""Questions about the implementation on projects with many tests: is the code that does the
work found before the tests that talk about it?

usage: python3 bench/test_pressure.py [--work DIR] [--show]

The corpora are two Python projects whose tests are a large share of the code and are named
after the features they test (httpx 0.27.0: `tests/client/test_redirects.py`; click 8.1.7),
fetched once from PyPI as sdists (`pip download --no-binary :all:`) into --work (default
/tmp/cruxe_test_pressure) and indexed into <work>/home. Neither is a corpus of the agent task
benchmark, and nothing was tuned on them beyond choosing TEST_BASE_SHARE among 0, 0.3 and 0.5.

bench/data/test_pressure.jsonl holds 30 questions an agent would ask while working on those
projects (no identifier of the answer in the question), each with the definition(s) that
answer it, read from the code; a result is right when its path is an expected path and its
line_start lies in the expected span. Reported: @1 and @5 of `search_code` (one default call,
limit 5), and the share of the first five results that are tests, docs or examples
(`model.is_non_source_path`). --show prints each question's rank and its first three results.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from cruxe.index import run_index  # noqa: E402
from cruxe.model import is_non_source_path  # noqa: E402
from cruxe.tools import Server  # noqa: E402

PROJECTS = {"httpx-0.27.0": "httpx==0.27.0", "click-8.1.7": "click==8.1.7"}


def fetch(work: Path) -> None:
    for name, spec in PROJECTS.items():
        if (work / name).is_dir():
            continue
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                        "-d", str(work), spec], check=True)
        subprocess.run(["tar", "xzf", str(work / f"{name}.tar.gz"), "-C", str(work)], check=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", type=Path, default=Path("/tmp/cruxe_test_pressure"))
    ap.add_argument("--show", action="store_true")
    a = ap.parse_args()
    a.work.mkdir(parents=True, exist_ok=True)
    fetch(a.work)
    home = a.work / "home"
    tasks = [json.loads(line) for line in (HERE / "data/test_pressure.jsonl").read_text().splitlines() if line]
    servers = {}
    at1 = at5 = non_source = 0
    for t in tasks:
        root = a.work / t["project"]
        if t["project"] not in servers:
            run_index(root, home=home)
            servers[t["project"]] = Server(root, home=home)
        payload, _ = servers[t["project"]].call_tool("search_code", {"query": t["query"], "limit": 5})
        results = [r for r in payload.get("results") or [] if r.get("path")]
        good = [any(r["path"] == e["path"] and e["line_start"] <= int(r["line_start"]) <= e["line_end"]
                    for e in t["expected"]) for r in results]
        at1 += bool(good[:1] and good[0])
        at5 += any(good)
        non_source += sum(is_non_source_path(r["path"]) for r in results)
        if a.show:
            rank = next((i + 1 for i, g in enumerate(good) if g), None)
            print(rank, t["query"], [f"{r['path']}:{r.get('name')}" for r in results[:3]])
    n = len(tasks)
    print(json.dumps({"questions": n, "at1": round(at1 / n, 3), "at5": round(at5 / n, 3),
                      "non_source_share_top5": round(non_source / (5 * n), 3)}))


if __name__ == "__main__":
    main()
