#!/usr/bin/env python3
"""Same-run A/B of indexing cost between two checkouts of Cruxe, or of one choice inside one.

usage:
  python3 bench/index_ab.py versions A_DIR B_DIR --corpus DIR [--corpus DIR] [--rounds 3]
  python3 bench/index_ab.py resolution --corpus DIR [--rounds 4]

`versions`: for each round and corpus, A and B in alternating order, each indexes a fresh copy of
the corpus with its own CLI (`python -m cruxe index`, PYTHONPATH = that checkout, a fresh
CRUXE_HOME), then one source file is edited and `cruxe sync` runs. Prints CPU seconds (user +
sys of the CLI process tree: RUSAGE_CHILDREN) of the full index and of the sync.

`resolution`: this checkout, in-process `run_index` of a fresh copy, with reference resolution in
worker processes as shipped against resolution in the indexing process (`PARALLEL_EDGES` raised
past any corpus), alternating; wall and CPU seconds. Its purpose is wall time, which CPU seconds
cannot show.

Copies go under --work (default /tmp/cruxe-index-ab). One JSON object on stdout at the end.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE_SUFFIXES = {".py": "# ab\n", ".go": "// ab\n", ".rs": "// ab\n", ".ts": "// ab\n"}


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _fresh_copy(corpus: Path, work: Path, tag: str) -> tuple[Path, Path]:
    repo, home = work / tag / corpus.name, work / f"home-{tag}-{corpus.name}"
    for p in (repo, home):
        if p.exists():
            shutil.rmtree(p)
    repo.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(corpus, repo)
    return repo, home


def _edit_one_file(repo: Path) -> None:
    files = sorted(p for p in repo.rglob("*") if p.suffix in SOURCE_SUFFIXES and p.is_file())
    f = files[len(files) // 2]
    f.write_text(f.read_text(encoding="utf-8", errors="replace") + "\n" + SOURCE_SUFFIXES[f.suffix])


def _cli_cpu(checkout: Path, repo: Path, home: Path, *args: str) -> float:
    env = {**os.environ, "CRUXE_HOME": str(home), "PYTHONPATH": str(checkout)}
    before = _children_cpu()
    subprocess.run([sys.executable, "-m", "cruxe", *args, "--quiet"], env=env, cwd=repo, check=True,
                   capture_output=True)
    return _children_cpu() - before


def versions(a: Path, b: Path, corpora: list[Path], rounds: int, work: Path) -> dict:
    out: dict[str, list] = {}
    for rnd in range(rounds):
        for corpus in corpora:
            for tag, checkout in ([("A", a), ("B", b)] if rnd % 2 == 0 else [("B", b), ("A", a)]):
                repo, home = _fresh_copy(corpus, work, tag)
                full = _cli_cpu(checkout, repo, home, "index")
                _edit_one_file(repo)
                sync = _cli_cpu(checkout, repo, home, "sync")
                out.setdefault(f"{corpus.name}/{tag}", []).append({"full_cpu_s": round(full, 2),
                                                                   "sync_cpu_s": round(sync, 3)})
                print(rnd, corpus.name, tag, out[f"{corpus.name}/{tag}"][-1], file=sys.stderr, flush=True)
    return out


def resolution(corpora: list[Path], rounds: int, work: Path) -> dict:
    sys.path.insert(0, str(ROOT))
    from cruxe.index import run_index
    from cruxe.refs import resolve
    shipped = resolve.PARALLEL_EDGES
    out: dict[str, list] = {}
    for rnd in range(rounds):
        for corpus in corpora:
            for tag in (["workers", "in_process"] if rnd % 2 == 0 else ["in_process", "workers"]):
                repo, home = _fresh_copy(corpus, work, tag)
                resolve.PARALLEL_EDGES = shipped if tag == "workers" else 10 ** 15
                cpu0 = resource.getrusage(resource.RUSAGE_SELF)
                cpu0 = cpu0.ru_utime + cpu0.ru_stime + _children_cpu()
                t0 = time.monotonic()
                run_index(repo, home=home)
                wall = time.monotonic() - t0
                cpu1 = resource.getrusage(resource.RUSAGE_SELF)
                cpu = cpu1.ru_utime + cpu1.ru_stime + _children_cpu() - cpu0
                row = {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "load": round(os.getloadavg()[0], 1)}
                out.setdefault(f"{corpus.name}/{tag}", []).append(row)
                print(rnd, corpus.name, tag, row, file=sys.stderr, flush=True)
    resolve.PARALLEL_EDGES = shipped
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    v = sub.add_parser("versions", help="two checkouts, full index and one-file sync CPU seconds")
    v.add_argument("a", type=Path)
    v.add_argument("b", type=Path)
    r = sub.add_parser("resolution", help="resolution in workers or in process, wall and CPU seconds")
    for p in (v, r):
        p.add_argument("--corpus", type=Path, action="append", required=True)
        p.add_argument("--rounds", type=int, default=3)
        p.add_argument("--work", type=Path, default=Path("/tmp/cruxe-index-ab"))
    args = ap.parse_args()
    if args.what == "versions":
        result = versions(args.a.resolve(), args.b.resolve(), args.corpus, args.rounds, args.work)
    else:
        result = resolution(args.corpus, args.rounds, args.work)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
