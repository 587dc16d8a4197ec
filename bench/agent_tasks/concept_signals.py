#!/usr/bin/env python3
"""Would another signal put more concept answers in the first five? An offline experiment over
the agent tasks' concept questions (tune split only), for signals Cruxe does not use.

usage: python3 bench/agent_tasks/concept_signals.py --work DIR [--wordllama SITE_DIR]

WORK is a work directory `run.py` has already indexed (its `home` and `repos`). Each tune concept
question is answered by `search_code` with limit 100 (in-process, as `run.py` calls it); the
first K results are then re-ranked by reciprocal rank (k 60, Cruxe's fusion constant) plus a
weighted signal, and @1 / @5 are scored as `run.py` scores them. Weight 0 reproduces Cruxe's
own order. Signals:

- `usage`: log(1 + references to the result's definition) from the index's resolved edges
  (calls and references, imports left out), as a popularity prior; `usage-files` counts the
  distinct files they come from;
- `embedding` (with --wordllama): cosine between the question and the result's text (its name
  split into words, the comment lines above it and its first 15 lines) under WordLlama's
  static token embeddings (l2_supercat, 256 dimensions, mean of token vectors). SITE_DIR is a
  site-packages holding the `wordllama` wheel's data and numpy, tokenizers and safetensors;
  none of those is Cruxe's dependency. It also scores the embedding alone over every
  function-like definition of the corpus (the rank of the answer among all of them).

The index's tables are read directly (this is a bench reading the store's files, not code the
product runs).
"""
from __future__ import annotations

import argparse
import json
import math
import re
import sqlite3
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run import matches  # noqa: E402

RRF_K = 60
KINDS = ("function", "method", "class", "struct", "interface", "trait", "type", "enum")


def index_db(home: Path, root: Path) -> sqlite3.Connection:
    for d in sorted((home / "data").iterdir()):
        state = sqlite3.connect(d / "state.db")
        (repo_root,) = state.execute("SELECT repo_root FROM projects").fetchone()
        if Path(repo_root) == root:
            return sqlite3.connect(next(d.glob("refs/live/gen-*/index.db")))
    raise SystemExit(f"no index for {root} in {home}")


def usage_counts(db: sqlite3.Connection) -> dict[tuple[str, int], tuple[int, int]]:
    """(path, line_start) of each definition -> (references to it, distinct files they come from)."""
    sql = ("SELECT p.path, s.line_start, count(e.rowid), count(DISTINCT e.file_id) FROM symbols s "
           "JOIN paths p ON p.id = s.file_id LEFT JOIN symbol_edges e ON e.to_symbol_id = s.symbol_id "
           "AND e.edge_type <> 2 GROUP BY s.symbol_id")
    return {(p, ls): (n, f) for p, ls, n, f in db.execute(sql)}


def ok(task: dict, r: dict) -> bool:
    hit = (r["path"], int(r["line_start"]), int(r.get("line_end") or r["line_start"]))
    return any(matches("concept", hit, e) for e in task["expected"])


def rerank(results: list[dict], signal: list[float], weight: float, k: int) -> list[dict]:
    n = min(k, len(results))
    score = [1 / (RRF_K + i) + weight * signal[i] for i in range(n)]
    return [results[i] for i in sorted(range(n), key=lambda i: (-score[i], i))] + results[n:]


def evaluate(cases: list[tuple[dict, list[dict], list[float]]], weight: float, k: int) -> tuple[float, float]:
    at1 = at5 = 0
    for task, results, signal in cases:
        top = rerank(results, signal, weight, k)[:5]
        at1 += bool(top) and ok(task, top[0])
        at5 += any(ok(task, r) for r in top)
    return at1 / len(cases), at5 / len(cases)


class Embedder:
    """Mean of WordLlama's static token vectors, L2-normalised."""

    def __init__(self, site: Path):
        sys.path.insert(0, str(site))
        import numpy as np
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer
        self.np = np
        base = site / "wordllama"
        self.tok = Tokenizer.from_file(str(base / "tokenizers/l2_supercat_tokenizer_config.json"))
        self.tok.no_padding()
        self.tok.no_truncation()
        self.w = load_file(str(base / "weights/l2_supercat_256.safetensors"))["embedding.weight"].astype(np.float32)

    def __call__(self, texts: list[str]):
        np = self.np
        out = np.zeros((len(texts), self.w.shape[1]), np.float32)
        for i, enc in enumerate(self.tok.encode_batch(texts, add_special_tokens=False)):
            if enc.ids:
                out[i] = self.w[enc.ids].mean(0)
        norm = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norm == 0, 1, norm)


_COMMENT = re.compile(r"^\s*(#|//|/\*|\*|\"\"\"|@|#\[)")


def words(name: str) -> str:
    return re.sub(r"[_\W]+", " ", re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)).lower()


def definition_text(lines: list[str], name: str, start: int, end: int) -> str:
    above, i = [], start - 2
    while i >= 0 and _COMMENT.match(lines[i]) and len(above) < 30:
        above.append(lines[i])
        i -= 1
    body = lines[start - 1:min(end, start + 14)]
    return f"{words(name)} . {' '.join(reversed(above))} {' '.join(body)}"[:2000]


def texts(root: Path, rows: list[tuple[str, str, int, int]]) -> list[str]:
    cache: dict[str, list[str]] = {}
    out = []
    for path, name, start, end in rows:
        if path not in cache:
            try:
                cache[path] = (root / path).read_text(errors="replace").splitlines()
            except OSError:
                cache[path] = []
        out.append(definition_text(cache[path], name, start, end))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--wordllama", type=Path, help="site-packages holding wordllama, numpy, tokenizers, safetensors")
    a = ap.parse_args()
    from cruxe.tools import Server

    tasks = [json.loads(line) for line in (HERE / "tasks.jsonl").read_text().splitlines() if line.strip()]
    tasks = [t for t in tasks if t["kind"] == "concept" and t["split"] == "tune"]
    home = a.work / "home"
    embed = Embedder(a.wordllama) if a.wordllama else None
    signals: dict[str, list] = {"usage": [], "usage-files": [], "embedding": []}
    alone = []
    for corpus in sorted({t["corpus"] for t in tasks}):
        root = a.work / "repos" / corpus
        db = index_db(home, root)
        counts = usage_counts(db)
        server = Server(root, home=home)
        defs = None
        for t in (t for t in tasks if t["corpus"] == corpus):
            payload, _ = server.call_tool("search_code", {"query": t["args"]["query"], "limit": 100})
            results = [r for r in payload.get("results") or [] if r.get("path")]
            keys = [(r["path"], int(r["line_start"])) for r in results]
            signals["usage"].append((t, results, [math.log1p(counts.get(k, (0, 0))[0]) for k in keys]))
            signals["usage-files"].append((t, results, [math.log1p(counts.get(k, (0, 0))[1]) for k in keys]))
            if embed is None:
                continue
            q = embed([t["args"]["query"]])[0]
            rows = [(r["path"], r.get("name") or "", int(r["line_start"]), int(r.get("line_end") or r["line_start"]))
                    for r in results]
            signals["embedding"].append((t, results, list(embed(texts(root, rows)) @ q)))
            if defs is None:
                marks = ",".join("?" * len(KINDS))
                defs = db.execute(f"SELECT p.path, s.name, s.line_start, s.line_end FROM symbols s JOIN paths p "
                                  f"ON p.id = s.file_id WHERE s.kind IN ({marks}) ORDER BY p.path, s.line_start",
                                  KINDS).fetchall()
                matrix = embed(texts(root, defs))
            order = (-(matrix @ q)).argsort(kind="stable")
            alone.append(next((i + 1 for i, j in enumerate(order)
                               if ok(t, {"path": defs[j][0], "line_start": defs[j][2], "line_end": defs[j][2]})), None))
    print("| signal | K | weight | concept @1 | concept @5 |\n|---|---|---|---|---|")
    grid = {"usage": (0.0001, 0.0002, 0.0005, 0.002), "usage-files": (0.0001, 0.0002, 0.0005, 0.002),
            "embedding": (0.002, 0.005, 0.01, 0.02)}
    for name, cases in signals.items():
        if not cases:
            continue
        for k in (10, 30, 100):
            for w in (0.0, *grid[name]):
                at1, at5 = evaluate(cases, w, k)
                print(f"| {name} | {k} | {w:g} | {at1:.2f} | {at5:.2f} |")
    if alone:
        n = len(alone)
        print("\nembedding alone over every definition: " + ", ".join(
            f"@{c} {sum(1 for r in alone if r and r <= c) / n:.2f}" for c in (1, 5, 30, 100)))


if __name__ == "__main__":
    main()
