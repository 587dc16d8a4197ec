#!/usr/bin/env python3
"""Natural-language search quality: docstring queries against `search_code`, beside ripgrep.

usage: python bench/nl_search.py [--lang python|go] [--n 200] [--seed 7] [--home DIR] [--show N] DIR

Queries come from the code itself, read independently of Cruxe: the first line of each
Python docstring (stdlib `ast`) or Go doc comment (the `// Name ...` block right above a
`func`/`type`), with the words of the symbol's own name removed (so the name cannot be
matched by itself) and only queries of 3+ remaining words kept; a seeded sample of N.

For each query, Cruxe (`search_code`, limit 10, warm, in-process) is scored on
- MRR@10 and recall@5 of the documented symbol (same path and name, its def line inside the
  hit's line range);
- file-MRR@10 and file-recall@10: the first hit in the symbol's file.
The baseline ranks files by ripgrep hit counts of the query words (`rg -c -i -w -F -e w ...`,
ties by path) in the same run; it scores file-MRR@10 and file-recall@10.
Goal (brief): file-recall@10 >= 0.6 and Cruxe's MRR >= 2x the baseline's.

DIR is indexed into --home (default: a fresh temp dir; pass a kept dir to reuse an index: a
second run is an incremental no-op sync).
"""
from __future__ import annotations

import argparse
import ast
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from cruxe.codetokens import split_identifier  # noqa: E402
from cruxe.errors import CruxeError  # noqa: E402
from cruxe.index import run_index  # noqa: E402
from cruxe.project import open_project  # noqa: E402
from cruxe.query import search_code  # noqa: E402

EXTS = {"python": (".py",), "go": (".go",)}
SKIP_DIRS = {".git", "node_modules", "__pycache__", "vendor", "testdata", "site-packages"}
MIN_WORDS = 3
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


def open_index(directory: str, home: str | None) -> tuple[object, str, str, float]:
    """Index DIR (or sync a kept index) and return (generation, repo, ref, seconds)."""
    home_path = Path(home) if home else Path(tempfile.mkdtemp(prefix="cruxe-bench-"))
    t0 = time.perf_counter()
    try:
        run_index(directory, home=home_path)
    except CruxeError as e:  # a kept index from an older schema: rebuild it
        if e.code != "index_incompatible":
            raise
        run_index(directory, home=home_path, force=True)
    secs = time.perf_counter() - t0
    project = open_project(directory, home_path)
    ref = project.default_ref()
    return project.store.current_generation(ref), project.id, ref, secs


def source_files(directory: str, lang: str):
    for dp, dns, fns in os.walk(directory):
        dns[:] = sorted(d for d in dns if d not in SKIP_DIRS and not d.startswith("."))
        for fn in sorted(fns):
            if fn.endswith(EXTS[lang]):
                full = os.path.join(dp, fn)
                yield full, os.path.relpath(full, directory).replace(os.sep, "/")


def python_docs(directory: str):
    """(path, name, def line, first docstring line) for every documented def/class."""
    warnings.simplefilter("ignore")
    for full, rel in source_files(directory, "python"):
        try:
            tree = ast.parse(Path(full).read_bytes(), full)
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                doc = ast.get_docstring(node)
                if doc:
                    yield rel, node.name, node.lineno, doc.strip().split("\n", 1)[0]


_GO_DECL = re.compile(r"^(?:func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)|type\s+([A-Za-z_]\w*))")


def go_docs(directory: str):
    """The Go convention: a `//` comment block directly above a top-level func/type."""
    for full, rel in source_files(directory, "go"):
        try:
            lines = Path(full).read_text("utf-8", "replace").split("\n")
        except OSError:
            continue
        for i, line in enumerate(lines):
            m = _GO_DECL.match(line)
            if not m or i == 0 or not lines[i - 1].startswith("//"):
                continue
            j = i - 1
            while j > 0 and lines[j - 1].startswith("//"):
                j -= 1
            yield rel, m.group(1) or m.group(2), i + 1, lines[j][2:].strip()


def make_query(name: str, first_line: str) -> str | None:
    own = {name.lower(), *split_identifier(name)}
    words = [w for w in _WORD.findall(first_line) if w.lower() not in own]
    return " ".join(words) if len(words) >= MIN_WORDS else None


def sample_queries(directory: str, lang: str, n: int, seed: int) -> list[dict]:
    docs = python_docs(directory) if lang == "python" else go_docs(directory)
    items = []
    for path, name, line, first in docs:
        q = make_query(name, first)
        if q:
            items.append({"path": path, "name": name, "line": line, "query": q})
    items.sort(key=lambda d: (d["path"], d["line"], d["name"]))
    rng = random.Random(seed)
    return rng.sample(items, min(n, len(items)))


def rg_rank(directory: str, query: str, lang: str) -> list[str]:
    """Files ranked by ripgrep's count of lines holding any query word (ties by path)."""
    cmd = ["rg", "-c", "-i", "-w", "-F", "--no-messages"]
    for ext in EXTS[lang]:
        cmd += ["-g", f"*{ext}"]
    for w in query.split():
        cmd += ["-e", w]
    out = subprocess.run(cmd + ["."], cwd=directory, capture_output=True, text=True).stdout
    counts = []
    for line in out.splitlines():
        path, _, c = line.rpartition(":")
        if c.isdigit():
            counts.append((-int(c), path[2:] if path.startswith("./") else path))
    return [p for _, p in sorted(counts)[:10]]


def reciprocal(rank: int | None) -> float:
    return 1.0 / rank if rank else 0.0


def evaluate(gen, repo: str, ref: str, directory: str, queries: list[dict], lang: str, show: int) -> dict:
    tot = {k: 0.0 for k in ("mrr", "r5", "fmrr", "fr10", "base_fmrr", "base_fr10", "ms")}
    shown = 0
    for q in queries:
        t0 = time.perf_counter()
        hits, _, _ = search_code(gen, repo, ref, q["query"], limit=10)
        tot["ms"] += (time.perf_counter() - t0) * 1000
        sym = next((i + 1 for i, h in enumerate(hits) if h.path == q["path"] and h.name == q["name"]
                    and h.line_start <= q["line"] <= h.line_end), None)
        frank = next((i + 1 for i, h in enumerate(hits) if h.path == q["path"]), None)
        base = rg_rank(directory, q["query"], lang)
        brank = base.index(q["path"]) + 1 if q["path"] in base else None
        tot["mrr"] += reciprocal(sym)
        tot["r5"] += 1.0 if sym and sym <= 5 else 0.0
        tot["fmrr"] += reciprocal(frank)
        tot["fr10"] += 1.0 if frank else 0.0
        tot["base_fmrr"] += reciprocal(brank)
        tot["base_fr10"] += 1.0 if brank else 0.0
        if shown < show and not frank:
            shown += 1
            print(f"MISS {q['query']!r} -> {q['path']}:{q['line']} {q['name']}")
            for h in hits[:3]:
                print(f"     got {h['path']}:{h['line_start']} {h['name']} {h['score']}")
    n = max(1, len(queries))
    return {k: v / n for k, v in tot.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--lang", default="python", choices=sorted(EXTS))
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--home")
    ap.add_argument("--show", type=int, default=0)
    args = ap.parse_args()
    directory = os.path.abspath(args.dir)
    gen, repo, ref, secs = open_index(directory, args.home)
    queries = sample_queries(directory, args.lang, args.n, args.seed)
    r = evaluate(gen, repo, ref, directory, queries, args.lang, args.show)
    print(f"corpus {directory} lang={args.lang} queries={len(queries)} seed={args.seed} index_or_sync_s={secs:.1f}")
    print(f"cruxe    symbol MRR@10 {r['mrr']:.3f}  recall@5 {r['r5']:.3f}  "
          f"file MRR@10 {r['fmrr']:.3f}  file-recall@10 {r['fr10']:.3f}  mean {r['ms']:.1f} ms/query")
    print(f"ripgrep  file MRR@10 {r['base_fmrr']:.3f}  file-recall@10 {r['base_fr10']:.3f}")
    ratio = r["fmrr"] / r["base_fmrr"] if r["base_fmrr"] else float("inf")
    print(f"file-MRR ratio cruxe/ripgrep {ratio:.2f}x  (symbol MRR vs ripgrep file MRR: "
          f"{(r['mrr'] / r['base_fmrr']) if r['base_fmrr'] else float('inf'):.2f}x)")


if __name__ == "__main__":
    main()
