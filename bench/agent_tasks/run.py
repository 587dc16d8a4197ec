#!/usr/bin/env python3
"""The agent task benchmark: each task answered by ONE default Cruxe tool call and by the `rg`
command an agent would try first, in the same run; scored against truth read from the code.

usage: python3 bench/agent_tasks/run.py [--corpus ID] [--kind KIND] [--split tune|validation]
                                        [--limit N] [--work DIR] [--json OUT] [--tasks FILE]

Each corpus subset is copied under WORK/repos and indexed into WORK/home (CRUXE_HOME); a later
run syncs the kept index (a no-op when nothing changed). Tools are called in-process through
`cruxe.tools.Server.call_tool`, so the payload is exactly the MCP `structuredContent`; tokens are
o200k_base tokens of its compact JSON text (the MCP `content` text) and of rg's stdout.
Scoring (README.md): @1/@5 = an expected location among the first 1/5 results; callers =
recall and precision of the listed call sites. Prints a markdown table; --json writes every
task's outcome and the summary.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpora import ALL_CORPORA, materialize  # noqa: E402
from common import KINDS  # noqa: E402

RG_TIMEOUT_S = 60


def _code_path() -> str:
    """PYTHONPATH for an index child: the code this process answers with first (the child runs
    with `-P`, so the current directory's checkout never stands in for it)."""
    import cruxe
    return os.pathsep.join([str(Path(cruxe.__file__).resolve().parents[1]),
                            *filter(None, [os.environ.get("PYTHONPATH")])])


def load_tasks(path: Path, a: argparse.Namespace) -> list[dict]:
    tasks = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    tasks = [t for t in tasks if (not a.corpus or t["corpus"] == a.corpus) and (not a.kind or t["kind"] == a.kind)
             and (not a.split or t["split"] == a.split)]
    return tasks[: a.limit] if a.limit else tasks


def ensure_index(work: Path, corpus: str) -> tuple[Path, float]:
    """Copy and index the corpus (or sync a kept index); returns its root and the seconds spent."""
    root = materialize(work, corpus)
    home = work / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "CRUXE_HOME": str(home), "PYTHONPATH": _code_path()}
    t = time.perf_counter()
    subprocess.run([sys.executable, "-P", "-m", "cruxe", "index", "--path", str(root), "--quiet"], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    return root, time.perf_counter() - t


# ---- answering ------------------------------------------------------------------------------------

def cruxe_answer(server, task: dict) -> tuple[list[tuple[str, int, int]], str, bool]:
    """(path, line_start, line_end) of each listed result in order, the MCP text, is_error."""
    payload, is_error = server.call_tool(task["tool"], task["args"])
    text = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
    items = payload.get("references" if task["tool"] == "find_references" else "results") or []
    hits = [(r["path"], int(r.get("line_start") or 0), int(r.get("line_end") or r.get("line_start") or 0))
            for r in items if r.get("path")]
    return hits, text, is_error


def rg_answer(root: Path, task: dict) -> tuple[list[tuple[str, int, int]], str]:
    """The task's rg command, run at the corpus root (sorted by path so the order is stable)."""
    cmd = ["rg", "--no-heading", "--with-filename", "--color", "never", "--sort", "path", *task["rg"], "."]
    try:
        out = subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=RG_TIMEOUT_S,
                             stdin=subprocess.DEVNULL, errors="replace").stdout
    except subprocess.TimeoutExpired:
        return [], ""
    hits = []
    for line in out.splitlines():
        path, _, rest = line.partition(":")
        no, _, _ = rest.partition(":")
        if no.isdigit():
            path = path[2:] if path.startswith("./") else path
            hits.append((path, int(no), int(no)))
    return hits, out


# ---- scoring --------------------------------------------------------------------------------------

def matches(kind: str, hit: tuple[str, int, int], exp: dict) -> bool:
    """Definition/concept: the result starts inside the expected span. Error: the result's span
    overlaps the emitting statement (an enclosing function is a right answer). Callers: the
    listed line lies on the call site."""
    path, start, end = hit
    if path != exp["path"]:
        return False
    if kind == "error":
        return start <= exp["line_end"] and end >= exp["line_start"]
    return exp["line_start"] <= start <= exp["line_end"]


def score(task: dict, hits: list[tuple[str, int, int]]) -> dict:
    kind, expected = task["kind"], task["expected"]
    good = [any(matches(kind, h, e) for e in expected) for h in hits]
    out = {"at1": bool(good[:1] and good[0]), "at5": any(good[:5]), "listed": len(hits)}
    if kind == "callers":
        listed = list(dict.fromkeys(hits))
        found = sum(1 for e in expected if any(matches(kind, h, e) for h in listed))
        true_listed = sum(1 for h in listed if any(matches(kind, h, e) for e in expected))
        out["recall"] = found / len(expected)
        out["precision"] = true_listed / len(listed) if listed else 0.0
    return out


TOKEN_PIECE = 50_000  # characters: bpe_openai refuses a very long input


def count_tokens(enc, text: str) -> int:
    """o200k tokens of `text`; an answer too long for the encoder in one piece (rg printing a
    megabyte-long matched line) is counted line by line, in pieces: the sum differs from the
    whole's count only at the piece boundaries."""
    try:
        return len(enc.encode(text))
    except ValueError:
        pieces = (line[i:i + TOKEN_PIECE] for line in text.splitlines(keepends=True)
                  for i in range(0, len(line), TOKEN_PIECE))
        return sum(len(enc.encode(p)) for p in pieces)


def run(tasks: list[dict], work: Path) -> tuple[list[dict], dict]:
    from bpe_openai import get_encoding

    from cruxe.tools import Server

    enc = get_encoding("o200k_base")
    home = work / "home"
    os.environ["CRUXE_HOME"] = str(home)
    records, index_s = [], {}
    for corpus in [c for c in ALL_CORPORA if any(t["corpus"] == c for t in tasks)]:
        root, index_s[corpus] = ensure_index(work, corpus)
        server = Server(root, home=home)
        for t in (t for t in tasks if t["corpus"] == corpus):
            c_hits, c_text, c_err = cruxe_answer(server, t)
            r_hits, r_text = rg_answer(root, t)
            records.append({"id": t["id"], "corpus": corpus, "kind": t["kind"], "subkind": t["subkind"],
                            "split": t["split"],
                            "cruxe": {**score(t, c_hits), "tokens": count_tokens(enc, c_text), "error": c_err},
                            "rg": {**score(t, r_hits), "tokens": count_tokens(enc, r_text)}})
    order = {t["id"]: i for i, t in enumerate(tasks)}
    records.sort(key=lambda r: order[r["id"]])
    return records, {k: round(v, 1) for k, v in index_s.items()}


def summarize(records: list[dict]) -> dict:
    out = {}
    for split in ("all", "tune", "validation"):
        for kind in ("all", *KINDS):
            rs = [r for r in records if split in ("all", r["split"]) and kind in ("all", r["kind"])]
            if rs:
                out[f"{split}/{kind}"] = {"tasks": len(rs), **{tool: _agg(rs, tool) for tool in ("cruxe", "rg")}}
    return out


def _agg(rs: list[dict], tool: str) -> dict:
    xs = [r[tool] for r in rs]
    agg = {"at1": _mean(x["at1"] for x in xs), "at5": _mean(x["at5"] for x in xs),
           "median_tokens": statistics.median(x["tokens"] for x in xs)}
    callers = [x for r, x in zip(rs, xs) if r["kind"] == "callers"]
    if callers:
        agg["recall"] = _mean(x["recall"] for x in callers)
        agg["precision"] = _mean(x["precision"] for x in callers)
    return agg


def _mean(values) -> float:
    v = [float(x) for x in values]
    return round(sum(v) / len(v), 3) if v else 0.0


def table(summary: dict) -> str:
    head = ("| split | kind | tasks | Cruxe @1 | rg @1 | Cruxe @5 | rg @5 | Cruxe R / P (callers) "
            "| rg R / P (callers) | Cruxe median tok | rg median tok |\n|---|---|---|---|---|---|---|---|---|---|---|")
    rows = []
    for key, s in summary.items():
        split, kind = key.split("/")
        c, r = s["cruxe"], s["rg"]
        rp = (lambda a: f"{a['recall']:.2f} / {a['precision']:.2f}" if "recall" in a else "")
        rows.append(f"| {split} | {kind} | {s['tasks']} | {c['at1']:.2f} | {r['at1']:.2f} | {c['at5']:.2f} | "
                    f"{r['at5']:.2f} | {rp(c)} | {rp(r)} | {c['median_tokens']:g} | {r['median_tokens']:g} |")
    return "\n".join([head, *rows])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", choices=sorted(ALL_CORPORA))
    ap.add_argument("--kind", choices=KINDS)
    ap.add_argument("--split", choices=("tune", "validation"))
    ap.add_argument("--limit", type=int)
    ap.add_argument("--work", default="/tmp/agenttasks-work")
    ap.add_argument("--json", help="write per-task outcomes and the summary here")
    ap.add_argument("--tasks", default=str(HERE / "tasks.jsonl"))
    a = ap.parse_args()
    tasks = load_tasks(Path(a.tasks), a)
    if not tasks:
        raise SystemExit("no task matches the filters")
    t0 = time.perf_counter()
    records, index_s = run(tasks, Path(a.work))
    summary = summarize(records)
    if a.json:
        Path(a.json).write_text(json.dumps({"date": time.strftime("%Y-%m-%d"), "index_seconds": index_s,
                                            "wall_seconds": round(time.perf_counter() - t0, 1),
                                            "summary": summary, "tasks": records}, indent=1) + "\n")
    print(table(summary))


if __name__ == "__main__":
    main()
