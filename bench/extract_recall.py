#!/usr/bin/env python3
"""Score Cruxe's symbol extraction against an independent oracle, per language.

usage: python bench/extract_recall.py --lang python|go|rust|typescript DIR... [--out OUTDIR]
                                      [--gt GT.jsonl] [--ctags] [--show N] [--json SUMMARY]

Runs our extractor directly (cruxe.languages.detect_language + cruxe.extract.extract over the
files of DIR, in a multiprocessing Pool of 2), writes our tags as JSON lines, runs the
language's oracle from the benchmark kit (tests/support/locations.py: $CRUXE_ORACLES, else the kit's) unless
`--gt` gives its output, and prints:

- recall: oracle symbols found by us with the same path, name and line. Which line is
  compared depends on what the oracle reports (see LANGS below):
    python     oracle `line` (ast: the def/class line)        vs our `name_line`
    go         oracle `line` (go/ast: `func` / type name / each const or var name)
                                                              vs our `line_start`
    rust, typescript: oracle `name_line` (identifier line)    vs our `name_line`;
               their `line` (first attribute/decorator/export) is then checked against
               our `line_start` and reported as "start lines exact".
- end lines exact: among matched symbols, oracle `end` == our `line_end`. Oracle kinds whose
  `end` is not the end of a definition are left out (Go const/var: go/ast gives the end of
  the identifier only) and the script says so.
- kinds agree: among matched, our kind is the one the oracle kind maps to.
- extra: our symbols with no oracle symbol at (path, name, line), per our kind, in files the
  oracle parsed cleanly. What the oracle never reports (Python variables and constants, Go
  interface method specs) is listed apart: extra by design, not errors.
- wall time of our extraction vs. the oracle, and with `--ctags` vs. universal-ctags run on
  exactly the same file list; also CPU seconds (our workers summed, ctags), which drift less
  than wall time when other jobs share the machine. Compare numbers from the same run.

Misses and end-line mismatches are written to OUTDIR (default /tmp/extract_recall/<lang>)
for diagnosis; `--show N` prints the first N of each.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from multiprocessing import Pool
from typing import Callable

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

from cruxe.extract import extract  # noqa: E402
from cruxe.languages import detect_language  # noqa: E402
from support.locations import ORACLES  # noqa: E402

WORKERS = 2


@dataclass(frozen=True)
class LangSpec:
    """How to walk DIR like the oracle does, run the oracle, and compare fields."""

    exts: tuple[str, ...]
    oracle: list[str]  # command; "{DIR}" replaced by the corpus dir
    key_field: str  # oracle line field used for matching
    our_key: str  # our Symbol field compared with it
    skip_dirs: frozenset[str] = frozenset()
    skip_suffixes: tuple[str, ...] = ()
    build: list[list[str]] = field(default_factory=list)  # commands run in the oracle copy
    oracle_dir: str = ""  # copied to /tmp before building (shared/ is read-only)
    start_field: str = ""  # oracle field compared with our line_start, when it differs
    no_end_kinds: frozenset[str] = frozenset()  # oracle kinds whose `end` is not meaningful
    kind_map: dict[str, tuple[str, ...]] = field(default_factory=dict)  # oracle kind -> ours
    ctags_lang: str = ""
    # our symbols the oracle never reports although their kind is one it knows
    # (e.g. Go interface method specs, kind method): counted apart from the real extras
    by_design: Callable[[dict], bool] | None = None


LANGS: dict[str, LangSpec] = {
    "python": LangSpec(
        exts=(".py",), skip_dirs=frozenset({"site-packages"}),
        oracle=[sys.executable, f"{ORACLES}/py_gt.py", "{DIR}"],
        key_field="line", our_key="name_line", ctags_lang="Python"),
    "go": LangSpec(
        exts=(".go",),
        oracle_dir="gogt", build=[["go", "build", "-o", "gogt", "."]],
        oracle=["/tmp/extract_recall_oracles/gogt/gogt", "{DIR}"],
        key_field="line", our_key="line_start",
        no_end_kinds=frozenset({"const", "var"}),
        by_design=lambda row: row["kind"] == "method" and row["has_parent"],  # interface methods
        kind_map={"func": ("function",), "type": ("type_alias",), "const": ("constant",),
                  "var": ("variable",)},
        ctags_lang="Go"),
    "rust": LangSpec(
        exts=(".rs",),
        oracle_dir="rsgt", build=[["cargo", "build", "--release", "--offline"]],
        oracle=["/tmp/extract_recall_oracles/rsgt/target/release/rsgt", "{DIR}"],
        key_field="name_line", our_key="name_line", start_field="line",
        kind_map={"const": ("constant",), "static": ("constant", "variable"), "type": ("type_alias",),
                  "union": ("struct",), "macro": ("function",), "field": ("variable",)},
        ctags_lang="Rust"),
    "typescript": LangSpec(
        exts=(".ts", ".tsx", ".mts", ".cts"), skip_dirs=frozenset({"node_modules"}),
        skip_suffixes=(".d.ts", ".d.mts", ".d.cts"),
        oracle=["node", f"{ORACLES}/ts_gt.js", "{DIR}"],
        key_field="name_line", our_key="name_line", start_field="line",
        kind_map={"type": ("type_alias",), "namespace": ("module",), "getter": ("method",),
                  "setter": ("method",), "enumerator": ("constant",), "property": ("variable", "method"),
                  "variable": ("variable", "function"),
                  "constant": ("constant", "function")},
        ctags_lang="TypeScript"),
}


# ---- our side -----------------------------------------------------------------------------

def list_files(root: str, spec: LangSpec) -> list[str]:
    """Repository-relative paths, walked the way the oracles walk (no symlinked dirs)."""
    out = []
    for dp, dns, fns in os.walk(root):
        dns[:] = sorted(d for d in dns if d not in spec.skip_dirs)
        for fn in sorted(fns):
            if fn.endswith(spec.exts) and not fn.endswith(spec.skip_suffixes):
                out.append(os.path.relpath(os.path.join(dp, fn), root))
    return out


def _extract_one(args: tuple[str, str]) -> tuple[str, list[tuple], list[str], int]:
    root, rel = args
    lang = detect_language(rel)
    with open(os.path.join(root, rel), "rb") as f:
        source = f.read()
    fx = extract(rel, source, lang or "")
    syms = [(s.name, s.kind, s.line_start, s.line_end, s.name_line or s.line_start, s.qualified_name,
             s.parent is not None) for s in fx.symbols]
    return rel, syms, fx.warnings, fx.parse_errors


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def run_ours(root: str, files: list[str], out_path: str) -> tuple[dict, float, float, dict]:
    cpu0 = _children_cpu()
    t0 = time.perf_counter()
    results = []
    with Pool(WORKERS) as pool:
        for r in pool.imap_unordered(_extract_one, [(root, f) for f in files], chunksize=8):
            results.append(r)
        pool.close()
        pool.join()
    elapsed = time.perf_counter() - t0
    cpu = _children_cpu() - cpu0
    ours: dict[str, list[dict]] = {}
    stats = {"files": len(files), "failed": [], "files_with_errors": 0}
    with open(out_path, "w") as out:
        for rel, syms, warnings, perr in sorted(results):
            stats["files_with_errors"] += bool(perr)
            stats["failed"] += [w for w in warnings if "indexed as text only" in w]
            rows = [{"path": rel, "name": n, "kind": k, "line_start": a, "line_end": b,
                     "name_line": nl, "qualified_name": q, "has_parent": hp}
                    for n, k, a, b, nl, q, hp in syms]
            ours[rel] = rows
            for row in rows:
                out.write(json.dumps(row) + "\n")
    return ours, elapsed, cpu, stats


# ---- oracle side --------------------------------------------------------------------------

def build_oracle(spec: LangSpec) -> None:
    if not spec.oracle_dir or os.path.exists(spec.oracle[0]):
        return
    dst = os.path.join("/tmp/extract_recall_oracles", spec.oracle_dir)
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(os.path.join(ORACLES, spec.oracle_dir), dst)
    env = dict(os.environ, GOPROXY="off", GOFLAGS="-mod=mod")
    for cmd in spec.build:
        subprocess.run(cmd, cwd=dst, check=True, env=env)


def run_oracle(spec: LangSpec, root: str, dirs: list[str], out_path: str) -> tuple[float, set[str]]:
    """Runs the oracle over `dirs` into out_path; returns (seconds, paths it could not parse)."""
    build_oracle(spec)
    cmd = [x for a in spec.oracle for x in (dirs if a == "{DIR}" else [a])]
    t0 = time.perf_counter()
    with open(out_path, "w") as out:
        proc = subprocess.run(cmd, stdout=out, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        sys.exit(f"oracle failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr[-2000:]}")
    bad = set()
    for line in proc.stderr.splitlines():
        if line.startswith(("PARSE-ERROR ", "VISIT-ERROR ")):
            p = line.split(" ", 1)[1].rsplit(":", 1)[0] if ": " in line else line.split(" ", 1)[1]
            bad.add(_rel(p, root))
    return elapsed, bad


def run_ctags(spec: LangSpec, root: str, files: list[str], out_dir: str) -> tuple[float, float] | None:
    """(wall, cpu) seconds of universal-ctags over exactly the files we extract (`-R` would
    also read what the oracle skips, e.g. site-packages)."""
    if not shutil.which("ctags") or not spec.ctags_lang:
        return None
    listing = os.path.join(out_dir, "ctags_files.txt")
    with open(listing, "w") as f:
        f.write("".join(os.path.join(root, rel) + "\n" for rel in files))
    cpu0 = _children_cpu()
    t0 = time.perf_counter()
    subprocess.run(["ctags", "-L", listing, "--output-format=json", "--fields=+neKS",
                    f"--languages={spec.ctags_lang}", "-f", "/dev/null"], check=False, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0, _children_cpu() - cpu0


def _rel(p: str, root: str) -> str:
    return os.path.relpath(os.path.normpath(p), os.path.normpath(root))


def load_gt(path: str, root: str) -> list[dict]:
    rows = []
    with open(path) as f:
        for line in f:
            g = json.loads(line)
            g["path"] = _rel(g["path"], root)
            rows.append(g)
    return rows


# ---- scoring ------------------------------------------------------------------------------

def score(spec: LangSpec, gt: list[dict], ours: dict[str, list[dict]], bad_files: set[str]) -> dict:
    index: dict[tuple, list[dict]] = collections.defaultdict(list)
    for rows in ours.values():
        for r in rows:
            index[(r["path"], r["name"], r[spec.our_key])].append(r)
    tot, hit, end_n, end_ok, kind_ok, start_n, start_ok = (collections.Counter() for _ in range(7))
    used: set[int] = set()
    misses, end_bad = [], []
    for g in gt:
        k = g["kind"]
        tot[k] += 1
        cands = index.get((g["path"], g["name"], g.get(spec.key_field, g["line"])))
        if not cands:
            misses.append(g)
            continue
        free = [c for c in cands if id(c) not in used] or cands
        mine = free[0]
        used.add(id(mine))
        hit[k] += 1
        kind_ok[k] += mine["kind"] in spec.kind_map.get(k, (k,))
        if k not in spec.no_end_kinds and "end" in g:
            end_n[k] += 1
            if mine["line_end"] == g["end"]:
                end_ok[k] += 1
            else:
                end_bad.append({**g, "our_end": mine["line_end"], "our_start": mine["line_start"]})
        if spec.start_field and spec.start_field in g:
            start_n[k] += 1
            start_ok[k] += mine["line_start"] == g[spec.start_field]
    oracle_kinds = {o for k in tot for o in spec.kind_map.get(k, (k,))}
    extra, extra_by_design = collections.Counter(), collections.Counter()
    for path, rows in ours.items():
        if path in bad_files:
            continue
        for r in rows:
            if id(r) in used:
                continue
            designed = r["kind"] not in oracle_kinds or (spec.by_design is not None and spec.by_design(r))
            (extra_by_design if designed else extra)[r["kind"]] += 1
    return {"tot": tot, "hit": hit, "end_n": end_n, "end_ok": end_ok, "kind_ok": kind_ok,
            "start_n": start_n, "start_ok": start_ok, "extra": extra,
            "extra_by_design": extra_by_design, "misses": misses, "end_bad": end_bad}


def _ratio(a: int, b: int) -> str:
    return f"{a / b:.4f}" if b else "  n/a "


def report(lang: str, spec: LangSpec, s: dict, times: dict, stats: dict, bad: set[str]) -> None:
    T, H = sum(s["tot"].values()), sum(s["hit"].values())
    EN, EO = sum(s["end_n"].values()), sum(s["end_ok"].values())
    print(f"== {lang}: {stats['files']} files, oracle symbols {T}, "
          f"oracle parse errors {len(bad)}, our files with syntax errors {stats['files_with_errors']}, "
          f"extraction failures {len(stats['failed'])}")
    print(f"recall          {H}/{T} = {_ratio(H, T)}   (oracle {spec.key_field} vs our {spec.our_key})")
    print(f"end lines exact {EO}/{EN} = {_ratio(EO, EN)}"
          + (f"   (not compared: {', '.join(sorted(spec.no_end_kinds))})" if spec.no_end_kinds else ""))
    print(f"kinds agree     {sum(s['kind_ok'].values())}/{H} = {_ratio(sum(s['kind_ok'].values()), H)}")
    if spec.start_field:
        SN, SO = sum(s["start_n"].values()), sum(s["start_ok"].values())
        print(f"start lines exact {SO}/{SN} = {_ratio(SO, SN)}   (oracle {spec.start_field} vs our line_start)")
    print(f"{'kind':12s} {'recall':>22s} {'end exact':>20s} {'kind ok':>8s}")
    for k, n in s["tot"].most_common():
        h = s["hit"][k]
        print(f"{k:12s} {h:8d}/{n:<7d} {_ratio(h, n)} {s['end_ok'][k]:7d}/{s['end_n'][k]:<6d} "
              f"{_ratio(s['end_ok'][k], s['end_n'][k])} {_ratio(s['kind_ok'][k], h)}")
    print("extra (our symbols the oracle lacks, oracle-known kinds):", dict(s["extra"].most_common()))
    print("extra by design (what the oracle does not report):", dict(s["extra_by_design"].most_common()))
    line = f"wall: ours {times['ours']:.2f}s (pool of {WORKERS}), oracle {times['oracle']:.2f}s"
    if times.get("ctags") is not None:
        line += f", ctags {times['ctags']:.2f}s, ours/ctags {times['ours'] / times['ctags']:.2f}x"
    print(line)
    line = f"cpu:  ours {times['ours_cpu']:.2f}s (sum over workers)"
    if times.get("ctags_cpu"):
        line += f", ctags {times['ctags_cpu']:.2f}s, ours/ctags {times['ours_cpu'] / times['ctags_cpu']:.2f}x"
    print(line + f"; load average {os.getloadavg()[0]:.1f}")
    for w in stats["failed"][:10]:
        print("FAILED:", w)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lang", required=True, choices=sorted(LANGS))
    ap.add_argument("dirs", nargs="+", metavar="DIR",
                    help="corpus dir(s); several (rs-5k's four) are scored relative to their common parent")
    ap.add_argument("--out", default=None)
    ap.add_argument("--gt", default=None, help="precomputed oracle output (skips running the oracle)")
    ap.add_argument("--ctags", action="store_true", help="also time universal-ctags on DIR")
    ap.add_argument("--show", type=int, default=0, help="print the first N misses and end mismatches")
    ap.add_argument("--json", default=None, help="write the summary numbers to this file")
    a = ap.parse_args(argv)
    spec = LANGS[a.lang]
    dirs = [os.path.abspath(d) for d in a.dirs]
    root = os.path.commonpath(dirs) if len(dirs) > 1 else dirs[0]
    out_dir = a.out or f"/tmp/extract_recall/{a.lang}"
    os.makedirs(out_dir, exist_ok=True)
    files = [os.path.normpath(os.path.join(os.path.relpath(d, root), f)) for d in dirs for f in list_files(d, spec)]
    ours, t_ours, cpu_ours, stats = run_ours(root, files, os.path.join(out_dir, "ours.jsonl"))
    bad: set[str] = set()
    gt_path = a.gt or os.path.join(out_dir, "gt.jsonl")
    t_oracle = 0.0
    if not a.gt:
        t_oracle, bad = run_oracle(spec, root, dirs, gt_path)
    gt = load_gt(gt_path, root)
    ctags = run_ctags(spec, root, files, out_dir) if a.ctags else None
    times = {"ours": t_ours, "ours_cpu": cpu_ours, "oracle": t_oracle,
             "ctags": ctags[0] if ctags else None, "ctags_cpu": ctags[1] if ctags else None}
    s = score(spec, gt, ours, bad)
    report(a.lang, spec, s, times, stats, bad)
    for name in ("misses", "end_bad"):
        with open(os.path.join(out_dir, f"{name}.jsonl"), "w") as f:
            for row in s[name]:
                f.write(json.dumps(row) + "\n")
        for row in s[name][:a.show]:
            print(name, json.dumps(row))
    if a.json:
        T, H = sum(s["tot"].values()), sum(s["hit"].values())
        EN, EO = sum(s["end_n"].values()), sum(s["end_ok"].values())
        with open(a.json, "w") as f:
            json.dump({"lang": a.lang, "dir": root, "files": stats["files"], "oracle_symbols": T,
                       "recall": H / T if T else None, "end_exact": EO / EN if EN else None,
                       "extraction_failures": len(stats["failed"]), **{f"seconds_{k}": v for k, v in times.items()}},
                      f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
