#!/usr/bin/env python3
"""What reference edges cost at index time, and what a one-file sync costs with them.

usage: python3 bench/refs/edge_cost.py [DIR ...] [--runs 2] [--warmup 1] [--touch REL_PATH] [--base CHECKOUT]

Default corpus: the Django 5.2 and Salt 3008 sdists (about 5.8k Python files). Each DIR is
copied once into a temporary repository. Then, alternating so that machine load hits both
alike, full `cruxe index` runs (the real CLI with its parser pool, fresh CRUXE_HOME each)
are timed in two variants (after `--warmup` untimed runs of each: the first index of an
invocation was often its slowest, by up to 10-15 points of the ratio, and it was always the
with-edges run of the first round):

  with_edges     the shipped pipeline: reference capture in extraction, edge rows, resolution
  without_edges  Python reference capture switched off in extraction (definitions-only
                 query, no name uses) and resolve_edges skipped (but for the symbol indexes
                 a bulk build's resolution builds, which the index needs either way); the switch is a
                 sitecustomize module on PYTHONPATH, so the parser processes get it too

overhead = median(with) / median(without) - 1 (the brief's budget: <= +30%; also per round, each
with/without pair back to back, in paired_overheads), on wall time and on
CPU time (the index process and its parser workers: steadier when other jobs share the
machine; wall time also shows what parallel parsing hides). Then, on the
last with-edges index: one file gains a line at its top (every symbol in it moves, so
every edge into it must be re-resolved) and a sync is timed in-process and as a
`cruxe sync` CLI process (interpreter start included), with the resolver's own counts.
One JSON object on stdout.

`--base CHECKOUT` (another working tree of this repository, e.g. `git worktree add /tmp/base
HEAD~1`): an A/B in one sitting. Every round then indexes with both trees' code, the two
trees' turns alternating from round to round, and the output gains `base` with the same
figures for that code: the two codes' ratios are then measured under the same drift of the
machine, which between separate invocations moves the ratio by several points.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

DEFAULT_DIRS = ["/tmp/corpora/sdist/django-5.2.19", "/tmp/corpora/sdist/salt-3008.5"]
DEFAULT_TOUCH = "django-5.2.19/django/db/models/query.py"


# Imported by every Python process started with PYTHONPATH pointing at its directory
# (parser workers included) when CRUXE_BENCH_NO_EDGES is set: the "without edges" variant.
_SITECUSTOMIZE = """
import os
if os.environ.get("CRUXE_BENCH_NO_EDGES"):
    import cruxe.index as ix
    import cruxe.languages.python as py
    py.QUERY = "\\n".join(ln for ln in py.QUERY.splitlines() if ln.endswith("@def"))  # definition patterns only
    py.name_uses = lambda *a, **k: None
    index_into = ix._index_into

    def resolve_nothing(gen, *a, spool=None, **k):  # a spool's resolution also builds the symbol indexes
        if spool is not None:
            from cruxe.store import build_symbol_indexes
            build_symbol_indexes(gen.db)
        return {}

    def without_resolution(*a, **k):
        # the resolver is switched off when the indexer starts its job: a parser worker never
        # imports cruxe.refs, and importing it in every process would charge this variant for it
        import cruxe.refs as refs
        import cruxe.refs.resolve as resolve
        refs.resolve_edges = resolve_nothing
        resolve.resolve_spool = lambda gen, *a, **k: resolve_nothing(gen, spool=True)
        return index_into(*a, **k)
    ix._index_into = without_resolution
"""


def full_index(repo: Path, home: Path, hook_dir: Path, edges: bool, root: Path = ROOT) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the index process and its parser workers), with the code
    of checkout `root`."""
    env = {**os.environ, "CRUXE_HOME": str(home),
           "PYTHONPATH": os.pathsep.join([str(hook_dir), str(root), os.environ.get("PYTHONPATH", "")])}
    if not edges:
        env["CRUXE_BENCH_NO_EDGES"] = "1"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "cruxe", "index", "--path", str(repo), "--quiet"], env=env,
                          capture_output=True, text=True, cwd=root)
    seconds = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(proc.stderr[-2000:])
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return seconds, cpu


def corpus_size(repo: Path) -> dict:
    from cruxe.project import open_project
    project = open_project(repo)
    gen = project.store.current_generation("live")
    files, symbols = gen.db.execute('SELECT file_count, symbol_count FROM branch_state').fetchone()
    return {"files": files, "symbols": symbols}


def edge_counts(repo: Path) -> dict:
    from cruxe.project import open_project
    project = open_project(repo)
    gen = project.store.current_generation("live")
    rows = gen.db.execute("SELECT edge_type, to_symbol_id IS NOT NULL, COUNT(*) FROM edges GROUP BY 1, 2")
    out: dict = {}
    for edge_type, resolved, n in rows:
        out.setdefault(edge_type, {"resolved": 0, "unresolved": 0})["resolved" if resolved else "unresolved"] += n
    return out


def one_file_sync(repo: Path, rel: str) -> dict:
    import cruxe.refs as refs
    from cruxe.index import run_index
    stats: dict = {}
    original = refs.resolve_edges

    def spy(*a, **k):  # index._index_into looks the resolver up on cruxe.refs at call time
        result = original(*a, **k)
        stats.update(result or {})  # (resolve_edges now returns nothing: it logs its counts)
        return result
    target = repo / rel
    target.write_text("# moved\n" + target.read_text())
    refs.resolve_edges = spy
    try:
        t = time.perf_counter()
        run_index(repo)
        in_process = time.perf_counter() - t
    finally:
        refs.resolve_edges = original
    target.write_text(target.read_text()[len("# moved\n"):])
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "cruxe", "sync", "--path", str(repo), "--quiet"],
                          env=os.environ.copy(), capture_output=True, text=True, cwd=ROOT)
    cli = time.perf_counter() - t
    if proc.returncode != 0:
        sys.exit(proc.stderr[-2000:])
    return {"file": rel, "in_process_s": round(in_process, 3), "cli_s": round(cli, 3), "resolver": stats}


def figures(times: dict[str, list[float]], cpu: dict[str, list[float]]) -> dict:
    """One code's runs and their overheads."""
    def ratio(values: dict[str, list[float]]) -> float:
        return round(statistics.median(values["with_edges"]) / statistics.median(values["without_edges"]) - 1, 3)
    return {"index_s": {k: [round(x, 1) for x in v] for k, v in times.items()},
            "overhead": ratio(times),
            "cpu_s": {k: [round(x, 1) for x in v] for k, v in cpu.items()},
            "cpu_overhead": ratio(cpu),
            # each round's with/without pair ran back to back: their ratios drift less with
            # the machine than the medians of all runs do
            "paired_overheads": [round(w / o - 1, 3) for w, o in zip(times["with_edges"], times["without_edges"])],
            "paired_cpu_overheads": [round(w / o - 1, 3) for w, o in zip(cpu["with_edges"], cpu["without_edges"])]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="*", default=DEFAULT_DIRS)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--warmup", type=int, default=1, help="untimed runs of each variant first")
    ap.add_argument("--touch", default=DEFAULT_TOUCH, help="file (relative to the copy) for the one-file sync")
    ap.add_argument("--base", type=Path, help="another checkout whose code runs in the same rounds (an A/B)")
    a = ap.parse_args()
    if a.base is not None and not (a.base / "cruxe" / "__init__.py").is_file():
        sys.exit(f"--base {a.base}: not a checkout of this repository (no cruxe/__init__.py)")
    codes = {"head": ROOT, **({"base": a.base.resolve()} if a.base is not None else {})}
    work = Path(tempfile.mkdtemp(prefix="cruxe-edge-cost-"))
    repo = work / "repo"
    try:
        for d in a.dirs:
            shutil.copytree(d, repo / Path(d).name, symlinks=True)
        hook_dir = work / "hook"
        hook_dir.mkdir()
        (hook_dir / "sitecustomize.py").write_text(_SITECUSTOMIZE)
        for i in range(a.warmup):
            for code, root in codes.items():
                for mode in ("without_edges", "with_edges"):
                    seconds, cpu_s = full_index(repo, work / f"warmup-{code}-{mode}-{i}", hook_dir,
                                                mode == "with_edges", root)
                    print(f"warm-up {i} {code} {mode}: {seconds:.1f}s wall, {cpu_s:.1f}s cpu (not counted)",
                          file=sys.stderr)
                    shutil.rmtree(work / f"warmup-{code}-{mode}-{i}", ignore_errors=True)
        times = {code: {"with_edges": [], "without_edges": []} for code in codes}
        cpu = {code: {"with_edges": [], "without_edges": []} for code in codes}
        for i in range(a.runs):
            order = list(codes) if i % 2 == 0 else list(reversed(codes))
            for code in order:
                for mode in (("with_edges", "without_edges") if i % 2 == 0 else ("without_edges", "with_edges")):
                    home = work / f"home-{code}-{mode}-{i}"
                    seconds, cpu_s = full_index(repo, home, hook_dir, mode == "with_edges", codes[code])
                    times[code][mode].append(seconds)
                    cpu[code][mode].append(cpu_s)
                    print(f"run {i} {code} {mode}: {seconds:.1f}s wall, {cpu_s:.1f}s cpu", file=sys.stderr)
        last_home = work / f"home-head-with_edges-{a.runs - 1}"
        os.environ["CRUXE_HOME"] = str(last_home)
        out = {"corpus": [Path(d).name for d in a.dirs], **corpus_size(repo), "runs": a.runs, "warmup": a.warmup,
               "machine": f"{os.cpu_count()} cores", "date": time.strftime("%Y-%m-%d"),
               **figures(times["head"], cpu["head"]),
               "edges": edge_counts(repo),
               "one_file_sync": one_file_sync(repo, a.touch)}
        if "base" in codes:
            out["base"] = {"checkout": str(codes["base"]), **figures(times["base"], cpu["base"])}
        print(json.dumps(out, indent=1))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
