#!/usr/bin/env python3
"""The identity harness: proves a refactor behaviour-identical by dumping what an index holds and
what the tools answer, before and after, and diffing the two dumps.

usage: python3 bench/identity.py dump --out DIR [--work W] [--repos R] [--corpus ID ...] [--queries N]
       python3 bench/identity.py compare A B

`dump`, for each agent-task corpus (bench/agent_tasks/corpora.py), copies the corpus under
R/repos (once; R is shared by every dump, because symbol ids and project ids hash the repository
root, so two dumps compare only when their copies sit at the same path), indexes it from scratch
into a fresh CRUXE_HOME under W (the CLI, `cruxe index`), and writes three files to DIR:
  <corpus>.symbols.jsonl  the `symbols` table, one sorted JSON line per row
  <corpus>.edges.jsonl    the `symbol_edges` table, likewise
  <corpus>.answers.jsonl  every tool answer of the benches: each task of tasks.jsonl (both splits)
                          called as run.py calls it, then the calls mcp_bench.py makes (its
                          seeded name sample, over the in-process server), one line per call
                          keyed by a stable id: {"id", "error", "answer"}, compact JSON
Rows drop rowids; integer file ids become paths; symbol ids become `<stable id>@<path>:<line>`
(the symbol's stable id and location: stable ids alone repeat across files); other blobs become
hex. Answers mask the fields in MASKED (their values vary from run to run) and nothing else.

`compare A B` checks every file of either dump: identical, or the count of differing lines and
the first 5 on each side (answers: by call id, each from just before its first difference).
Table rows are compared on the columns both dumps have (a column added or removed is listed,
not counted as a difference). Exit status 1 if anything differs.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "agent_tasks"))

from corpora import CORPORA, materialize  # noqa: E402

TASKS = HERE / "agent_tasks" / "tasks.jsonl"
# The answer fields whose values vary from run to run, masked wherever they occur in an answer:
# health_check's server uptime and the index's build time. Nothing else is (no other clock
# reading, duration or job id occurs in these answers: the index is built before the calls).
MASKED = ("uptime_seconds", "last_indexed_at")
MASK = "<masked>"
TABLES = {"symbols": "symbols", "edges": "symbol_edges"}
KINDS = ("symbols", "edges", "answers")
DIFF_SHOWN = 5


def _code_path() -> str:
    """PYTHONPATH for an index child: the code this process answers with first (the child runs
    with `-P`, so the current directory's checkout never stands in for it)."""
    import cruxe
    return os.pathsep.join([str(Path(cruxe.__file__).resolve().parents[1]),
                            *filter(None, [os.environ.get("PYTHONPATH")])])


def log(msg: str) -> None:
    print(f"[identity {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def compact(obj) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False, sort_keys=True)


# ---- dump: the tables ------------------------------------------------------------------------------

def index_corpus(root: Path, home: Path) -> Path:
    """A full index of `root` into the fresh `home`; returns the generation's index.db."""
    if home.exists():
        shutil.rmtree(home)
    home.mkdir(parents=True)
    env = {**os.environ, "CRUXE_HOME": str(home), "PYTHONPATH": _code_path()}
    subprocess.run([sys.executable, "-P", "-m", "cruxe", "index", "--path", str(root), "--quiet"], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    dbs = sorted(home.rglob("index.db"), key=lambda p: p.stat().st_mtime)
    if not dbs:
        raise SystemExit(f"no index.db under {home} after indexing {root}")
    return dbs[-1]


def _symbol_keys(db: sqlite3.Connection, paths: dict[int, str]) -> dict[bytes, str]:
    """symbol_id -> `<stable id hex>@<path>:<line_start>` (ids hash the repository root)."""
    return {sid: f"{stable.hex()}@{paths[fid]}:{line}" for sid, stable, fid, line in
            db.execute("SELECT symbol_id, symbol_stable_id, file_id, line_start FROM symbols")}


def _value(column: str, v, paths: dict[int, str], keys: dict[bytes, str]):
    if column == "file_id":
        return paths.get(v, f"<file {v} missing>")
    if column.endswith("symbol_id") and column != "symbol_stable_id" and v is not None:
        return keys.get(v, f"<not a symbol: {v.hex() if isinstance(v, bytes) else v}>")
    return v.hex() if isinstance(v, bytes) else v


def dump_table(db: sqlite3.Connection, table: str, out: Path) -> list[str]:
    """Write the table's rows as sorted JSON lines; returns its columns."""
    paths = dict(db.execute("SELECT id, path FROM paths"))
    keys = _symbol_keys(db, paths)
    cur = db.execute(f"SELECT * FROM {table}")  # noqa: S608 - a fixed table name
    columns = [d[0] for d in cur.description]
    lines = sorted(compact({c: _value(c, v, paths, keys) for c, v in zip(columns, row)}) for row in cur)
    out.write_text("".join(line + "\n" for line in lines))
    return columns


# ---- dump: the answers -----------------------------------------------------------------------------

def mask(obj):
    if isinstance(obj, dict):
        return {k: (MASK if k in MASKED and v is not None else mask(v)) for k, v in obj.items()}
    if isinstance(obj, list):
        return [mask(v) for v in obj]
    return obj


def task_calls(corpus: str):
    """(id, tool, args) of every agent task of the corpus, both splits, as run.py calls them."""
    for line in TASKS.read_text().splitlines():
        if line.strip():
            t = json.loads(line)
            if t["corpus"] == corpus:
                yield f"task/{t['id']}", t["tool"], t["args"]


def mcp_bench_calls(db: sqlite3.Connection, queries: int):
    """(id, tool, args) of the tool calls bench/mcp_bench.py makes, in its order, with its seeded
    sample (its SQL, read from the tables rather than the views: the same rows)."""
    rng = random.Random(7)
    names = [r[0] for r in db.execute("SELECT DISTINCT name FROM symbols WHERE length(name) > 3 ORDER BY name")]
    sample = rng.sample(names, min(queries, len(names)))
    per_file = "SELECT f.path FROM symbols s JOIN paths f ON f.id = s.file_id GROUP BY f.path "
    big = [r[0] for r in db.execute(per_file + "HAVING COUNT(*) >= 200 ORDER BY f.path")]
    outline_files = big or [r[0] for r in db.execute(per_file + "ORDER BY COUNT(*) DESC, f.path LIMIT 20")]
    yield "mcp/first/locate_symbol", "locate_symbol", {"name": sample[0]}
    yield "mcp/first/health_check", "health_check", {}
    for i, name in enumerate(sample):
        query = name if i % 2 else f"{name} handling"
        yield f"mcp/{i}/locate_symbol", "locate_symbol", {"name": name}
        yield f"mcp/{i}/search_code", "search_code", {"query": query}
        yield f"mcp/{i}/get_file_outline", "get_file_outline", {"path": outline_files[i % len(outline_files)]}
        yield f"mcp/{i}/health_check", "health_check", {}
        if i < 100:
            for level in ("location", "signature", "context"):
                yield f"mcp/{i}/search_code/{level}", "search_code", {"query": query, "detail_level": level}
            yield f"mcp/{i}/search_code/context-compact", "search_code", {"query": query, "detail_level": "context",
                                                                          "compact": True}


def dump_answers(root: Path, home: Path, db: sqlite3.Connection, corpus: str, queries: int, out: Path) -> int:
    from cruxe.tools import Server

    os.environ["CRUXE_HOME"] = str(home)
    server = Server(root, home=home)
    calls = [*task_calls(corpus), *mcp_bench_calls(db, queries)]
    with out.open("w") as f:
        for call_id, tool, args in calls:
            payload, is_error = server.call_tool(tool, json.loads(json.dumps(args)))
            f.write(compact({"id": call_id, "error": is_error, "answer": mask(payload)}) + "\n")
    return len(calls)


def dump(a: argparse.Namespace) -> None:
    out, work, repos = Path(a.out), Path(a.work), Path(a.repos)
    out.mkdir(parents=True, exist_ok=True)
    manifest = {"corpora": {}, "masked": list(MASKED), "cruxe": _cruxe_location()}
    for corpus in a.corpus or list(CORPORA):
        t = time.perf_counter()
        root = materialize(repos, corpus)
        home = work / "home" / corpus
        db_path = index_corpus(root, home)
        log(f"{corpus}: indexed in {time.perf_counter() - t:.0f} s ({db_path})")
        db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
        entry = {kind: dump_table(db, table, out / f"{corpus}.{kind}.jsonl") for kind, table in TABLES.items()}
        entry["calls"] = dump_answers(root, home, db, corpus, a.queries, out / f"{corpus}.answers.jsonl")
        db.close()
        manifest["corpora"][corpus] = entry
        log(f"{corpus}: dumped in {time.perf_counter() - t:.0f} s, {entry['calls']} calls")
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")


def _cruxe_location() -> str:
    import cruxe

    return str(Path(cruxe.__file__).resolve().parent)


# ---- compare ---------------------------------------------------------------------------------------

def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line]


def _table_lines(rows: list[dict], columns: list[str]) -> list[str]:
    return sorted(compact({c: r.get(c) for c in columns}) for r in rows)


def _excerpt(line: str, other: str) -> str:
    """The line from a little before its first difference with `other`."""
    at = next((i for i, (x, y) in enumerate(zip(line, other)) if x != y), min(len(line), len(other)))
    start = max(0, at - 80)
    return ("..." if start else "") + line[start:start + 300]


def compare_answers(rows_a: list[dict], rows_b: list[dict]) -> tuple[bool, list[str]]:
    """Answers by call id: the ids missing on either side and those answered differently."""
    a, b = ({r["id"]: compact(r) for r in rows} for rows in (rows_a, rows_b))
    differ = [i for i in a if i in b and a[i] != b[i]]
    missing = [i for i in a if i not in b] + [i for i in b if i not in a]
    if not differ and not missing:
        return True, []
    report = [f"  {len(differ)} of {len(a)} calls answered differently, {len(missing)} calls on one side only"]
    report += [f"  only on one side: {i}" for i in missing[:DIFF_SHOWN]]
    for i in differ[:DIFF_SHOWN]:
        report += [f"  {i}", f"    A: {_excerpt(a[i], b[i])}", f"    B: {_excerpt(b[i], a[i])}"]
    return False, report


def compare_file(a: Path, b: Path, kind: str) -> tuple[bool, list[str]]:
    """(identical, report lines) of one dump file against the other."""
    if not a.exists() or not b.exists():
        return False, [f"  missing in {'A' if not a.exists() else 'B'}"]
    rows_a, rows_b = _rows(a), _rows(b)
    if kind == "answers":
        return compare_answers(rows_a, rows_b)
    report = []
    cols_a = list(rows_a[0]) if rows_a else []
    cols_b = list(rows_b[0]) if rows_b else []
    common = [c for c in cols_a if c in cols_b]
    if set(cols_a) != set(cols_b):
        report.append(f"  columns only in A: {sorted(set(cols_a) - set(cols_b))}, "
                      f"only in B: {sorted(set(cols_b) - set(cols_a))} (compared on the {len(common)} shared)")
    lines_a, lines_b = _table_lines(rows_a, common), _table_lines(rows_b, common)
    only_a = sorted((Counter(lines_a) - Counter(lines_b)).elements())
    only_b = sorted((Counter(lines_b) - Counter(lines_a)).elements())
    if not only_a and not only_b:
        return True, report
    report.append(f"  {len(only_a)} lines only in A, {len(only_b)} only in B (of {len(lines_a)} / {len(lines_b)})")
    for i in range(min(DIFF_SHOWN, max(len(only_a), len(only_b)))):
        line_a, line_b = (only_a[i] if i < len(only_a) else ""), (only_b[i] if i < len(only_b) else "")
        report += [f"  A: {_excerpt(line_a, line_b) if line_a else '-'}",
                   f"  B: {_excerpt(line_b, line_a) if line_b else '-'}"]
    return False, report


def compare(a: argparse.Namespace) -> int:
    dir_a, dir_b = Path(a.a), Path(a.b)
    names = sorted({p.name for d in (dir_a, dir_b) for p in d.glob("*.jsonl")})
    if not names:
        print(f"no dump files in {dir_a} or {dir_b}")
        return 1
    same_all = True
    for name in names:
        kind = name.rsplit(".", 2)[-2]
        same, report = compare_file(dir_a / name, dir_b / name, kind)
        same_all &= same
        print(f"{name}: {'identical' if same else 'DIFFERS'}")
        for line in report:
            print(line)
    print("all identical" if same_all else "differences found")
    return 0 if same_all else 1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump", help="index each corpus afresh and dump its tables and answers")
    d.add_argument("--out", required=True, help="the dump directory")
    d.add_argument("--work", default="/tmp/identity/work", help="holds the fresh CRUXE_HOME (W/home)")
    d.add_argument("--repos", default="/tmp/identity",
                   help="the corpus copies go under R/repos; keep it the same for dumps you compare")
    d.add_argument("--corpus", action="append", choices=sorted(CORPORA), help="only this corpus (repeatable)")
    d.add_argument("--queries", type=int, default=200, help="mcp_bench's name sample size (its default)")
    c = sub.add_parser("compare", help="diff two dumps; exit 1 if anything differs")
    c.add_argument("a")
    c.add_argument("b")
    a = ap.parse_args()
    if a.cmd == "dump":
        dump(a)
    else:
        sys.exit(compare(a))


if __name__ == "__main__":
    main()
