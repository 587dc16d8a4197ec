#!/usr/bin/env python3
"""The scan alone (walk + ignore matching), two versions of cruxe interleaved, CPU seconds.

usage: python3 bench/scan_speed.py --before SRC --after SRC [--rounds 6] [--gitignore] DIR [DIR...]

SRC is a directory holding a `cruxe` package (a checkout, or `git archive REV cruxe | tar -x`).
Each round runs, per DIR, one child process per version, alternating which goes first; a child
scans once to warm the page cache, then five times, and reports its least CPU time. Prints, per
DIR, the files kept / excluded / pruned by each version (they must agree) and the minimum and
median over rounds. With `--gitignore`, each DIR is also scanned as a temporary copy with a
typical Python project `.gitignore` (GITIGNORE below: `**/`, anchors, a negation) at its root. Then the worst case of one hostile pattern against a name of n `a`s, per
version: the CPU seconds of one match, stopped at 60 s; and, for a version with `cruxe.ignore`,
the CPU seconds to compile an ignore file of 10,000 varied patterns.
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

SCAN = """
import sys, time
from cruxe.scan import scan
scan(sys.argv[1])
cpu = []
for _ in range(5):
    t = time.process_time()
    r = scan(sys.argv[1])
    cpu.append(time.process_time() - t)
print(min(cpu), len(r.files), sum(r.excluded.values()), sum(r.pruned_dirs.values()))
"""

GITIGNORE = """\
__pycache__/
*.py[cod]
*$py.class
*.so
build/
develop-eggs/
dist/
eggs/
.eggs/
/lib/
lib64/
parts/
sdist/
var/
wheels/
*.egg-info/
*.egg
MANIFEST
*.manifest
*.spec
htmlcov/
.tox/
.nox/
.coverage
.coverage.*
.cache
coverage.xml
*.cover
.hypothesis/
.pytest_cache/
*.mo
*.pot
*.log
local_settings.py
db.sqlite3
docs/_build/
target/
.ipynb_checkpoints
.env
.venv
env/
venv/
.mypy_cache/
**/node_modules/
tests/**/*.tmp
!tests/keep.tmp
*~
.*.swp
"""

HOSTILE = "*a*a*a*a*a*a*a*a*a*a*a*a*b"
WORST = """
import sys, time
n = int(sys.argv[1])
try:
    from cruxe import ignore
    rules = ignore.parse(sys.argv[2].encode(), "bench", [])
    match = lambda s: rules.decide(s.encode(), s.encode(), False)
except ImportError:  # the pathspec-based scanner
    import pathspec
    spec = pathspec.GitIgnoreSpec.from_lines([sys.argv[2]])
    match = spec.check_file
t = time.process_time()
match("a" * n)
print(time.process_time() - t)
"""


def run(src: str, code: str, *args: str, timeout: float | None = None) -> list[str]:
    env = {"PYTHONPATH": src, "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True, text=True,
                          check=True, timeout=timeout)
    return done.stdout.split()


def scans(versions: dict[str, str], dirs: list[str], rounds: int) -> None:
    cpu: dict[tuple[str, str], list[float]] = {(d, v): [] for d in dirs for v in versions}
    counts: dict[tuple[str, str], list[str]] = {}
    for r in range(rounds):
        order = list(versions) if r % 2 == 0 else list(reversed(versions))
        for d in dirs:
            for v in order:
                out = run(versions[v], SCAN, d)
                cpu[(d, v)].append(float(out[0]))
                counts[(d, v)] = out[1:]
    for d in dirs:
        print(d)
        for v in versions:
            xs = cpu[(d, v)]
            print(f"  {v:6} kept/excluded/pruned {'/'.join(counts[(d, v)])}: CPU s min {min(xs):.4f} "
                  f"median {statistics.median(xs):.4f} ({len(xs)} rounds)")


def worst(versions: dict[str, str]) -> None:
    print(f"one match of {HOSTILE!r} against n x 'a' (CPU s)")
    for v, src in versions.items():
        for n in (20, 25, 30, 35, 4000):
            try:
                print(f"  {v:6} n={n}: {float(run(src, WORST, str(n), HOSTILE, timeout=60)[0]):.6f}")
            except subprocess.TimeoutExpired:
                print(f"  {v:6} n={n}: over 60 s")
                break


COMPILE = """
import time
from cruxe import ignore
lines = [f"dir{i}/**/*.ext{i % 50}" if i % 3 else f"*name{i}*.py" for i in range(10_000)]
data = "\\n".join(lines).encode()
t = time.process_time()
ignore.parse(data, "bench", [])
print(time.process_time() - t, len(data))
"""


def compile_cost(versions: dict[str, str]) -> None:
    for v, src in versions.items():
        try:
            cpu, size = run(src, COMPILE)
        except subprocess.CalledProcessError:
            continue  # no cruxe.ignore in that version
        print(f"  {v:6} compiling 10,000 patterns ({int(size):,} bytes): {float(cpu):.2f} CPU s")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--gitignore", action="store_true")
    ap.add_argument("dirs", nargs="+")
    a = ap.parse_args()
    versions = {"before": a.before, "after": a.after}
    with tempfile.TemporaryDirectory() as tmp:
        dirs = list(a.dirs)
        if a.gitignore:
            for i, d in enumerate(a.dirs):
                copy = Path(tmp) / f"{i}-{Path(d).name}-with-gitignore"
                shutil.copytree(d, copy, symlinks=True)
                (copy / ".gitignore").write_text(GITIGNORE)
                dirs.append(str(copy))
        scans(versions, dirs, a.rounds)
    worst(versions)
    compile_cost(versions)


if __name__ == "__main__":
    main()
