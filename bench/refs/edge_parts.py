#!/usr/bin/env python3
"""The edge work part by part, in CPU seconds of this process: steadier than whole runs.

usage: python3 bench/refs/edge_parts.py [DIR ...] [--passes 2]

`edge_cost.py` times whole `cruxe index` runs, whose ratio swings by ±3 points from one sitting
to the next on a 2-core machine: too coarse for a change worth 1%. This bench measures the parts
of the edge work alone, in one process, so that two versions of the code can be compared part by
part (run it on each; CPU time drifts with the machine too, but by a few percent, not tens):

  extraction   `index.process_file` over every file, with and without Python reference capture
               (the same switch as edge_cost.py), alternating per 100 files, `--passes` passes,
               under the parser workers' garbage-collector threshold; the difference is the
               edge share of the parser workers' work
  graph        `Graph.preload` of the index built by this bench (what each resolution worker does)
  rules        `_resolutions` over every edge of it, fresh resolvers
  edge_indexes dropping and building the three edge indexes again
  inserts      SQLite's part of inserting every edge row into an empty copy of the table, 64 to
               a statement (the parameters laid out beforehand, as `store.insert_edges` does)

Default corpus: the Django 5.2 and Salt 3008 sdists. One JSON object on stdout.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from cruxe import index as ix  # noqa: E402
from cruxe.languages import python as py  # noqa: E402
from cruxe.refs import resolve as rs  # noqa: E402
from cruxe.refs.graph import Graph  # noqa: E402
from cruxe.filetext import file_text  # noqa: E402
from cruxe.scan import scan  # noqa: E402
from cruxe.store import _EDGE_INDEXES, _EDGE_INDEX_NAMES  # noqa: E402
from cruxe.store.edges import edge_count, stored_edges_after  # noqa: E402
from cruxe.store.writer import _INSERT_EDGES_MANY, EDGE_ROWS  # noqa: E402

DEFAULT_DIRS = ["/tmp/corpora/sdist/django-5.2.19", "/tmp/corpora/sdist/salt-3008.5"]


def cpu(fn, *a):
    gc.collect()
    t = time.process_time()
    out = fn(*a)
    return time.process_time() - t, out


def extraction(repo: Path, passes: int) -> dict:
    files = scan(repo).files
    items = [ix.WorkItem("r", "live", f.path, f.abs_path, f.size, f.mtime_ns, f.language, None, str(repo))
             for f in files]
    full_query, uses = py.QUERY, py.name_uses

    def switch(edges: bool) -> None:
        py.QUERY, py.name_uses = full_query, uses
        if not edges:
            py.QUERY = "\n".join(ln for ln in full_query.splitlines() if ln.endswith("@def"))  # definitions only
            py.name_uses = lambda *a, **k: None

    totals = {"with": 0.0, "without": 0.0}
    old = gc.get_threshold()
    gc.set_threshold(ix.WORKER_GC_THRESHOLD, *old[1:])
    try:
        for p in range(passes):
            for i in range(0, len(items), 100):
                group = items[i:i + 100]
                for mode in (("with", "without") if (i // 100 + p) % 2 == 0 else ("without", "with")):
                    switch(mode == "with")
                    t = time.process_time()
                    for item in group:
                        ix.process_file(item)
                    totals[mode] += time.process_time() - t
    finally:
        switch(True)
        gc.set_threshold(*old)
    per = {k: round(v / passes, 2) for k, v in totals.items()}
    return {"files": len(items), "with_s": per["with"], "without_s": per["without"],
            "edge_share_s": round(per["with"] - per["without"], 2)}


def stored_parts(home: Path) -> dict:
    projects = [p for p in (home / "data").iterdir()]
    gen_dir = sorted((projects[0] / "refs" / "live").glob("gen-*"))[-1]
    from cruxe.store import Generation
    gen = Generation(gen_dir, int(gen_dir.name.split("-")[1]))
    db = gen.db
    repo, ref = db.execute('SELECT repo, "ref" FROM branch_state').fetchone()
    gc.disable()  # as the resolution workers run
    try:
        g = Graph(db, repo, ref, lambda p: file_text(gen, repo, ref, p))
        graph_s, _ = cpu(g.preload)
        edges = g.edges(stored_edges_after(db, -1, edge_count(db)))
        rules_s, res = cpu(rs._resolutions, g, edges, {})
    finally:
        gc.enable()
    resolved = sum(1 for r in res if r[0] is not None)
    copy = Path(tempfile.mkdtemp(prefix="cruxe-edge-parts-")) / "index.db"
    try:
        shutil.copy(gen_dir / "index.db", copy)
        c = sqlite3.connect(copy, isolation_level=None)
        c.execute("PRAGMA journal_mode=WAL")
        c.execute("PRAGMA cache_size=-65536")
        rows = c.execute("SELECT from_symbol_id, to_symbol_id, to_name, edge_type, file_id, source_line, "
                         "confidence, coalesce(module, ''), coalesce(receiver, ''), coalesce(alias, '') FROM symbol_edges "
                         "ORDER BY rowid").fetchall()
        c.execute("BEGIN")
        for name in _EDGE_INDEX_NAMES:
            c.execute(f"DROP INDEX IF EXISTS {name}")
        c.execute("COMMIT")
        c.execute("BEGIN")
        index_s, _ = cpu(lambda: [c.execute(s) for s in filter(str.strip, _EDGE_INDEXES.split(";"))])
        c.execute("COMMIT")
        c.execute("BEGIN")
        for name in _EDGE_INDEX_NAMES:
            c.execute(f"DROP INDEX IF EXISTS {name}")
        c.execute("DELETE FROM symbol_edges")
        c.execute("COMMIT")
        width = len(rows[0]) if rows else 10
        whole = len(rows) - len(rows) % EDGE_ROWS
        flat = [v for r in rows[:whole] for v in r]
        per = EDGE_ROWS * width
        c.execute("BEGIN")
        insert_s, _ = cpu(c.executemany, _INSERT_EDGES_MANY, (flat[i:i + per] for i in range(0, len(flat), per)))
        c.execute("ROLLBACK")
        c.close()
    finally:
        shutil.rmtree(copy.parent, ignore_errors=True)
    return {"edges": len(edges), "resolved": resolved, "graph_s": round(graph_s, 3), "rules_s": round(rules_s, 3),
            "edge_indexes_s": round(index_s, 3), "inserts_sqlite_s": round(insert_s, 3), "inserted": whole}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="*", default=DEFAULT_DIRS)
    ap.add_argument("--passes", type=int, default=2)
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="cruxe-edge-parts-"))
    try:
        repo = work / "repo"
        for d in a.dirs:
            shutil.copytree(d, repo / Path(d).name, symlinks=True)
        out = {"corpus": [Path(d).name for d in a.dirs], "date": time.strftime("%Y-%m-%d %H:%M"),
               "machine": f"{os.cpu_count()} cores", "extraction": extraction(repo, a.passes)}
        ix.run_index(repo, home=work / "home")
        out.update(stored_parts(work / "home"))
        print(json.dumps(out, indent=1))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
