#!/usr/bin/env python3
"""Syncing a branch that is not checked out (issue 20 goal 2), and what it does to the base.

usage: python3 bench/branch_sync_bench.py [--src DIR] [--work DIR] [--changed 10,50] [--rounds 3]
                                          [--oracle] [--base-moves] [--redefine K]

Copies SRC (default: go-5k, the Go standard library subset of bench/agent_tasks) into a fresh git
repository under WORK with one commit on `main`, indexes `main` (the checked-out ref, the base), then
creates `feature` and indexes it once from git's objects. Each round commits N changed files on
`feature` (a function appended to each, through a scratch worktree so `main` stays checked out)
and times `run_index(ref="feature")`: wall and CPU seconds of the whole sync (the files that
differ from the base read from git's objects + the overlay's incremental index). Before and after,
the base's files (`refs/main/`) are hashed: the base must be byte-identical. Then `index --force` of feature (its first index, with every
round's files differing from the base) is timed too. At the end, the bytes
on disk of the overlay (`refs/feature/` and its export under `trees/`) beside the base's whole
index of nearly the same files, and how feature is stored (`storage` of index_status: an overlay,
or a whole index and why), and the overlay's edges by confidence (how many of its uses resolved,
to the overlay's definitions or the base's). With `--base-moves`: then `main` commits one
changed file and is synced, and the next sync of feature is timed (the overlay's edges are all
resolved again on the base's new state). With `--oracle`: feature's checkout (the scratch
worktree) is indexed as a whole index under another CRUXE_HOME, and each edge written in a file
the overlay holds is compared with the same edge there (same file, line, name and type): the
same definition (path and qualified name) or both unresolved: after the syncs, after the
forced index and (with `--base-moves`) after the base moved; `base_files`: the same for every
other file (the base's edges, with the overlay's fixes of them: `cruxe.store.basefix`). With
`--redefine K` (default 1): each round's first changed file also gets K methods named as the base
files' most used calls resolved by unique name and left unresolved, alternately (`base_names`):
definitions the branch adds whose names base files use. One JSON object on stdout.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench" / "agent_tasks"))


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=b", "-c", "user.email=b@b", *args], cwd=root, check=True,
                          capture_output=True, text=True).stdout.strip()


def tree_digest(path: Path) -> str:
    h = hashlib.blake2b()
    for p in sorted(path.rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(path)).encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def du(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.exists() else 0


def cpu() -> float:
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def default_src() -> Path:
    from corpora import materialize  # bench/agent_tasks
    return materialize(Path("/tmp/cruxe-branch-sync"), "go-5k")


def edge_confidences(gen_dir: Path) -> dict[str, int]:
    """The generation's edges by confidence (the `edges` view): resolved ones by how, the rest by why not."""
    con = sqlite3.connect(f"file:{gen_dir / 'index.db'}?mode=ro", uri=True)
    try:
        return {str(c): n for c, n in con.execute("SELECT confidence, count(*) FROM edges GROUP BY 1 ORDER BY 2 DESC")}
    finally:
        con.close()


def _targets(dbs: list[Path]) -> dict[str, tuple[str, str]]:
    """symbol id (hex) -> (path, qualified name), over the generations `dbs`."""
    out: dict[str, tuple[str, str]] = {}
    for db in dbs:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            out.update((i, (p, q)) for i, p, q in con.execute(
                "SELECT lower(hex(s.symbol_id)), f.path, s.qualified_name FROM symbols s JOIN paths f ON f.id = s.file_id"))
        finally:
            con.close()
    return out


def _edge_answers(db: Path, targets: dict, paths: set[str] | None, skip: frozenset[str] = frozenset(),
                  fixes: dict[int, str | None] | None = None) -> Counter:
    """(path, line, name, type, what it resolves to: a definition, or None) of each edge of `paths`
    (None: of every file but `skip`); `fixes`: base rowid -> the to_symbol_id an overlay gave it."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    fixes = fixes or {}
    try:
        got = Counter()
        for rowid, path, line, name, kind, to in con.execute(
                "SELECT rowid, source_file, source_line, to_name, edge_type, to_symbol_id FROM edges"):
            if (path in paths) if paths is not None else (path not in skip):
                to = fixes.get(rowid, to)
                got[(path, line, name, kind, targets.get(to) if to else None)] += 1
        return got
    finally:
        con.close()


def _fixes(overlay: Path) -> dict[int, str | None]:
    """The overlay's resolutions of base edges (`cruxe.store.basefix`): base rowid -> to id (hex)."""
    con = sqlite3.connect(f"file:{overlay}?mode=ro", uri=True)
    try:
        if not con.execute("SELECT 1 FROM sqlite_master WHERE name='base_edge_fixes'").fetchone():
            return {}
        return {r: to for r, to in con.execute(
            "SELECT base_rowid, nullif(lower(hex(to_symbol_id)), '') FROM base_edge_fixes")}
    finally:
        con.close()


def whole_index_of(scratch: Path, home: Path, run_index) -> Path:
    """feature's checkout (the scratch worktree) indexed as a whole index under `home`: its index.db."""
    from cruxe.project import open_project
    saved = os.environ["CRUXE_HOME"]
    run_index(scratch, home=home)
    os.environ["CRUXE_HOME"] = str(home)
    try:
        return open_project(scratch).store.current_generation("feature").path / "index.db"
    finally:
        os.environ["CRUXE_HOME"] = saved


def agreement(repo: Path, whole: Path) -> dict:
    """The overlay's edges against the whole index's (see the docstring)."""
    from cruxe.project import open_project
    store = open_project(repo).store
    overlay, base = store.current_generation("feature").path / "index.db", store.current_generation("main").path / "index.db"
    con = sqlite3.connect(f"file:{overlay}?mode=ro", uri=True)
    paths = {p for (p,) in con.execute("SELECT path FROM file_manifest")}
    con.close()
    targets = _targets([base, overlay])
    fixes = _fixes(overlay)
    mine = _edge_answers(overlay, targets, paths)
    truth = _edge_answers(whole, _targets([whole]), paths)
    # the files feature left alone: the base's edges, with the overlay's fixes of them
    mine_rest = _edge_answers(base, targets, None, frozenset(paths), fixes)
    truth_rest = _edge_answers(whole, _targets([whole]), None, frozenset(paths))
    return {**_compare(mine, truth), "base_files": {**_compare(mine_rest, truth_rest), "fixes": len(fixes)}}


def _compare(mine: Counter, truth: Counter) -> dict:
    both = mine & truth
    return {"edges": sum(truth.values()), "same": sum(both.values()),
            "resolved_in_whole": sum(n for k, n in truth.items() if k[4] is not None),
            "resolved_same": sum(n for k, n in both.items() if k[4] is not None),
            "resolved_in_overlay": sum(n for k, n in mine.items() if k[4] is not None)}


def base_names(repo: Path, n: int) -> list[str]:
    """Names base files use that a definition the branch adds would change: alternately the most
    used unresolved (not opaque) call names and the most used names resolved by unique name (a
    second definition makes them ambiguous), `n` in all: how the bench's branch redefines them."""
    from cruxe.project import open_project
    con = sqlite3.connect(f"file:{open_project(repo).store.current_generation('main').path / 'index.db'}?mode=ro",
                          uri=True)
    try:
        picks = [[name for (name,) in con.execute(
            "SELECT to_tail FROM edges WHERE edge_type='calls' AND " + where + " AND to_tail GLOB '[A-Za-z]*' "
            "GROUP BY to_tail ORDER BY count(*) DESC, to_tail LIMIT ?", (n,))]
            for where in ("confidence='unique_name'", "to_symbol_id IS NULL AND confidence<>'opaque'")]
    finally:
        con.close()
    out = [name for pair in zip(*picks) for name in pair]
    return out[:n]


def base_moves(repo: Path, rel: Path, run_index) -> dict:
    """main changes one file and is synced; then feature's sync is timed."""
    with open(repo / rel, "a", encoding="utf-8") as f:
        f.write("\nfunc benchBaseMoved() {}\n")
    git(repo, "commit", "-qam", "main moves")
    run_index(repo)
    t0, c0 = time.monotonic(), cpu()
    report = run_index(repo, ref="feature")
    return {"wall_s": round(time.monotonic() - t0, 2), "cpu_s": round(cpu() - c0, 2),
            "changed_files": report.changed_files}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", type=Path)
    ap.add_argument("--work", type=Path, default=Path("/tmp/cruxe-branch-sync-work"))
    ap.add_argument("--changed", default="10,50")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--base-moves", action="store_true")
    ap.add_argument("--oracle", action="store_true")
    ap.add_argument("--redefine", type=int, default=1,
                    help="per round, methods the branch adds named as base files' calls (base_names)")
    args = ap.parse_args()
    src = args.src or default_src()
    if args.work.exists():
        shutil.rmtree(args.work)
    repo, home, scratch = args.work / "repo", args.work / "home", args.work / "scratch"
    shutil.copytree(src, repo)
    os.environ["CRUXE_HOME"] = str(home)
    from cruxe.index import run_index
    from cruxe.project import open_project
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    run_index(repo)
    git(repo, "branch", "feature")
    t0, c0 = time.monotonic(), cpu()
    run_index(repo, ref="feature")
    first = {"wall_s": round(time.monotonic() - t0, 2), "cpu_s": round(cpu() - c0, 2)}
    base_dir = open_project(repo).store.ref_dir("main")
    base_before = tree_digest(base_dir)
    git(repo, "worktree", "add", "-q", str(scratch), "feature")
    files = sorted(p.relative_to(scratch) for p in scratch.rglob("*.go") if "testdata" not in p.parts)
    out: dict = {"src": str(src), "files": len(files), "first_index_of_feature": first, "syncs": {}}
    rounds = len(args.changed.split(",")) * args.rounds
    names = base_names(repo, rounds * args.redefine)
    out["redefined_names"] = names
    k = 0
    for n in [int(x) for x in args.changed.split(",")]:
        for rnd in range(args.rounds):
            for rel in files[k:k + n]:
                with open(scratch / rel, "a", encoding="utf-8") as f:
                    f.write(f"\nfunc benchBranchSync{k}_{rnd}() {{}}\n")
            with open(scratch / files[k], "a", encoding="utf-8") as f:
                for name in names[:args.redefine]:
                    f.write(f"\ntype benchT{k}{name} struct{{}}\n\nfunc (benchT{k}{name}) {name}() {{}}\n")
            names = names[args.redefine:]
            k += n
            git(scratch, "commit", "-qam", f"{n} files, round {rnd}")
            t0, c0 = time.monotonic(), cpu()
            report = run_index(repo, ref="feature")
            row = {"wall_s": round(time.monotonic() - t0, 2), "cpu_s": round(cpu() - c0, 2),
                   "changed_files": report.changed_files}
            out["syncs"].setdefault(str(n), []).append(row)
            print(n, rnd, row, file=sys.stderr, flush=True)
    whole = whole_index_of(scratch, args.work / "oracle-home", run_index) if args.oracle else None
    if whole:
        out["agreement_with_a_whole_index"] = {"after_syncs": agreement(repo, whole)}
    # the first index of a branch this many files apart: `--force` builds the overlay anew
    shutil.rmtree(open_project(repo).store.export_dir("feature"))  # exported anew too, as a first index is
    t0, c0 = time.monotonic(), cpu()
    run_index(repo, ref="feature", force=True)
    out["forced_index_of_feature"] = {"wall_s": round(time.monotonic() - t0, 2), "cpu_s": round(cpu() - c0, 2)}
    out["base_untouched"] = tree_digest(base_dir) == base_before
    out["overlay_edges"] = edge_confidences(open_project(repo).store.current_generation("feature").path)
    if whole:
        out["agreement_with_a_whole_index"]["after_force"] = agreement(repo, whole)
    if args.base_moves:
        out["after_base_moved"] = base_moves(repo, files[-1], run_index)
        if whole:
            out["agreement_with_a_whole_index"]["after_base_moved"] = agreement(repo, whole)
    store = open_project(repo).store
    out["bytes"] = {"overlay_index": du(store.ref_dir("feature")), "overlay_export": du(store.dir / "trees"),
                    "base_whole_index": du(base_dir)}
    from cruxe.freshness import index_state
    out["storage"] = index_state(open_project(repo), "feature").storage
    out["load"] = round(os.getloadavg()[0], 1)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
