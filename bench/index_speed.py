#!/usr/bin/env python3
"""Indexing speed, memory and size on one corpus, beside universal-ctags in the same run.

usage: python3 bench/index_speed.py NAME DIR [DIR...] [--runs 1]

Prints one JSON object: corpus files/bytes; ctags wall time (the anchor); cruxe full index wall
time (whole CLI process) and its ratio to ctags; the tree-sitter parse-only floor (same worker
count); `cruxe sync` with nothing changed and with one file changed (whole CLI process,
interpreter start included); peak RSS of the largest process of the index run (the main
process or one worker) and, sampled every 0.1 s, of all its processes summed; index bytes /
source bytes. Each DIR is first copied to a temp
directory (the one-file change edits the copy) and indexed as its own repository; the figures
of several DIRs are summed.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from multiprocessing import get_context
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cruxe.scan import scan  # noqa: E402


def timed(cmd: list[str], env: dict[str, str], cwd: str | None = None) -> tuple[float, int, str]:
    """Wall seconds, peak RSS (KiB, children) and stderr of a command."""
    dt, peak, _, out = timed_tree(cmd, env, cwd, sample=False)
    return dt, peak, out


def _tree_rss_kib(root: int) -> int:
    """Resident KiB of `root` and all its descendants now (from /proc)."""
    parent: dict[int, int] = {}
    rss: dict[int, int] = {}
    page_kib = os.sysconf("SC_PAGE_SIZE") // 1024
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            parent[int(d)] = int(fields[1])
            rss[int(d)] = int(fields[21]) * page_kib
        except (OSError, IndexError, ValueError):
            continue
    total = 0
    for pid in rss:
        p = pid
        while p > 1 and p != root:
            p = parent.get(p, 0)
        if p == root:
            total += rss[pid]
    return total


def timed_tree(cmd: list[str], env: dict[str, str], cwd: str | None = None,
               sample: bool = True) -> tuple[float, int, int, str]:
    """Wall seconds, peak RSS of the largest process (KiB, rusage), peak RSS summed over the
    process and its children (KiB, sampled every 0.1 s when `sample`), and stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    summed = 0
    if sample:
        while p.poll() is None:
            summed = max(summed, _tree_rss_kib(p.pid))
            time.sleep(0.1)
    out, err = p.communicate()
    dt = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit(f"{cmd} failed: {err[-2000:]}")
    return dt, max(before, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss), summed, out


def _parse_only(path_lang: tuple[str, str]) -> int:
    from cruxe.languages._common import parse
    lang = {"tsx": "tsx"}.get(path_lang[1], path_lang[1])
    with open(path_lang[0], "rb") as f:
        return parse(lang, f.read()).root_node.end_byte


def parse_floor(dirs: list[str], workers: int) -> float:
    files = [(f.abs_path, f.language) for d in dirs for f in scan(d).files if f.language]
    t = time.perf_counter()
    with get_context("spawn").Pool(workers) as pool:
        pool.map(_parse_only, files, chunksize=16)
    return time.perf_counter() - t


def dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("name")
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    a = ap.parse_args()
    home = tempfile.mkdtemp(prefix="cruxe-bench-")
    env = {**os.environ, "CRUXE_HOME": home}
    cruxe = [sys.executable, "-m", "cruxe"]
    work = Path(tempfile.mkdtemp(prefix="cruxe-corpus-"))
    copies = []
    for i, d in enumerate(a.dirs):
        dst = work / f"{i}-{Path(d).name}"
        shutil.copytree(d, dst, symlinks=True)
        copies.append(str(dst))
    a.dirs = copies
    out: dict = {"corpus": a.name, "date": time.strftime("%Y-%m-%d"), "machine": f"{os.cpu_count()} cores"}
    src = [f for d in a.dirs for f in scan(d).files if f.language]
    out["files"] = len(src)
    out["source_mb"] = round(sum(f.size for f in src) / 1e6, 1)
    if shutil.which("ctags"):
        ctags = 0.0
        for d in a.dirs:
            dt, _, _ = timed(["ctags", "-R", "--output-format=json", "--fields=+neKS", "-f", os.devnull, d], env)
            ctags += dt
        out["ctags_s"] = round(ctags, 2)
    full = sync0 = sync1 = 0.0
    rss = rss_sum = 0
    idx_bytes = 0
    for d in a.dirs:
        dt, peak, summed, _ = timed_tree([*cruxe, "index", "--path", d, "--quiet", "--workers", str(a.workers)], env)
        full += dt
        rss, rss_sum = max(rss, peak), max(rss_sum, summed)
        dt, _, _ = timed([*cruxe, "sync", "--path", d, "--quiet"], env)
        sync0 += dt
    # one changed file: append a comment to the first source file of the first dir, then restore
    first = next(f for f in scan(a.dirs[0]).files if f.language)
    original = Path(first.abs_path).read_bytes()
    comment = b"\n# cruxe bench\n" if first.language == "python" else b"\n// cruxe bench\n"
    try:
        Path(first.abs_path).write_bytes(original + comment)
        sync1, _, _ = timed([*cruxe, "sync", "--path", a.dirs[0], "--quiet"], env)
    finally:
        Path(first.abs_path).write_bytes(original)
        timed([*cruxe, "sync", "--path", a.dirs[0], "--quiet"], env)
    idx_bytes = dir_bytes(Path(home) / "data")
    out.update({
        "cruxe_full_s": round(full, 2),
        "ratio_to_ctags": round(full / out["ctags_s"], 2) if out.get("ctags_s") else None,
        "parse_only_s": round(parse_floor(a.dirs, a.workers), 2),
        "sync_noop_s": round(sync0 / len(a.dirs), 3),
        "sync_one_file_s": round(sync1, 3),
        "peak_rss_mb": round(rss / 1024, 1),
        "peak_rss_summed_mb": round(rss_sum / 1024, 1),
        "index_mb": round(idx_bytes / 1e6, 1),
        "index_to_source": round(idx_bytes / max(1, sum(f.size for f in src)), 2),
    })
    print(json.dumps(out))
    shutil.rmtree(home, ignore_errors=True)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
