#!/usr/bin/env python3
"""Write bench/agent_tasks/tasks.jsonl from the corpora, the kit's oracles and concepts.py.

usage: python3 bench/agent_tasks/build_tasks.py [--work /tmp/agenttasks-work] [--holdout]

Copies each corpus subset under WORK (corpora.py), runs the language's oracle over it (output
kept in WORK/gt/<corpus>.jsonl), then samples definition, error and caller tasks with fixed
seeds and resolves the hand-written concept questions. Deterministic: the same corpora give
the same file. Never reads anything Cruxe produced. `--holdout` writes holdout.jsonl instead, by
the same builders over the holdout corpora (corpora.HOLDOUT) and holdout_concepts.py.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1] / "tests")]

import build_callers  # noqa: E402
import build_definitions  # noqa: E402
import build_errors  # noqa: E402
from common import assign_splits, body_span, load_oracle  # noqa: E402
from concepts import CONCEPTS  # noqa: E402
from corpora import CORPORA, HOLDOUT, materialize  # noqa: E402
from holdout_concepts import HOLDOUT_CONCEPTS  # noqa: E402
from support.locations import ORACLES  # noqa: E402

PER_CORPUS = {"definition": 5, "error": 15, "callers": 15}  # definition: per subkind (3 subkinds)


def oracle(work: Path, corpus: str, lang: str, root: Path) -> list[dict]:
    out = work / "gt" / f"{corpus}.jsonl"
    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        cmd = {"python": [sys.executable, str(ORACLES / "py_gt.py")],
               "go": ["/tmp/cruxe-oracle-gogt/gogt"],
               "rust": ["/tmp/cruxe-oracle-rsgt/target/release/rsgt"],
               "typescript": ["node", str(ORACLES / "ts_gt.js")]}[lang]
        # the oracles print paths as given: run from WORK so rows read repos/<corpus>/...
        with out.open("w") as fh:
            subprocess.run([*cmd, f"repos/{corpus}"], cwd=work, stdout=fh, stderr=subprocess.DEVNULL, check=True)
    return load_oracle(out, corpus)


def concept_tasks(corpus: str, root: Path, rows: list[dict], concepts: list[dict] = CONCEPTS) -> list[dict]:
    tasks = []
    for c in (c for c in concepts if c["corpus"] == corpus):
        targets = [(c["path"], c["name"], c["scope"]), *c.get("also", [])]
        expected = []
        for path, name, scope in targets:
            found = [r for r in rows if r["path"] == path and r["name"] == name and (r.get("scope") or "") == scope]
            if not found:
                raise SystemExit(f"concept target not in the oracle: {path} {name} {scope!r}")
            spans = [body_span(root, r) for r in found]  # overloads: one span over all of them
            expected.append({"path": path, "line_start": min(s["line_start"] for s in spans),
                             "line_end": max(s["line_end"] for s in spans)})
        q = c["question"]
        tasks.append({"id": f"{corpus}/concept/{c['path']}:{c['name']}", "corpus": corpus, "kind": "concept",
                      "subkind": "alternatives" if c.get("also") else "single", "query": q,
                      "tool": "search_code", "args": {"query": q}, "expected": expected,
                      "answer_names": sorted({t[1] for t in targets}),
                      "rg": ["-n", "-i", concept_rg(q)],
                      "truth": "written by reading the function; span from the oracle (whole definition)"})
    return tasks


STOP = set("a an the of to in on for with and or by as at is be it its that this from into each one "
           "when whether without so their them than then every any all before after only which how "
           "get make turn tell return given use using out up such".split())


def concept_rg(question: str) -> str:
    """An agent's first grep for an English question: its two longest content words, either order."""
    words = sorted({w.strip(",.").lower() for w in question.split()} - STOP, key=lambda w: (-len(w), w))[:2]
    a, b = (w.replace("-", ".") for w in words)
    return f"{a}.*{b}|{b}.*{a}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", default="/tmp/agenttasks-work")
    ap.add_argument("--out", help="default: tasks.jsonl, or holdout.jsonl with --holdout")
    ap.add_argument("--holdout", action="store_true", help="the holdout corpora and their concept questions")
    a = ap.parse_args()
    work = Path(a.work)
    out = a.out or str(HERE / ("holdout.jsonl" if a.holdout else "tasks.jsonl"))
    corpora, concepts = (HOLDOUT, HOLDOUT_CONCEPTS) if a.holdout else (CORPORA, CONCEPTS)
    tasks = []
    for corpus, (lang, _) in corpora.items():
        root = materialize(work, corpus)
        rows = oracle(work, corpus, lang, root)
        tasks += build_definitions.build(corpus, lang, root, rows, PER_CORPUS["definition"])
        tasks += concept_tasks(corpus, root, rows, concepts)
        tasks += build_errors.build(corpus, lang, root, PER_CORPUS["error"])
        tasks += build_callers.build(corpus, lang, root, rows, PER_CORPUS["callers"])
    assign_splits(tasks)
    seen = set()
    with open(out, "w") as fh:
        for t in tasks:
            if t["id"] in seen:
                raise SystemExit(f"duplicate task id {t['id']}")
            seen.add(t["id"])
            fh.write(json.dumps(t, ensure_ascii=False, sort_keys=False) + "\n")
    print(f"{len(tasks)} tasks -> {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
