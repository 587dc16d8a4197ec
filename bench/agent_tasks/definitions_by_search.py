#!/usr/bin/env python3
"""The definition tasks asked of `search_code` with the bare name, as an agent that only uses
the search tool asks them, beside the task's own `locate_symbol` call, in the same run.

usage: python3 bench/agent_tasks/definitions_by_search.py [--tasks FILE ...] [--split tune|validation]
                                                          [--work DIR]

Same corpora, indexes and scoring as run.py (an expected location among the first 1 / 5
results). Prints one line per task file: tasks, search_code @1 / @5, locate_symbol @1, and the
ids search_code does not answer first.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run import ensure_index, load_tasks, matches  # noqa: E402


def ranks(server, tool: str, args: dict, expected: list[dict]) -> tuple[bool, bool]:
    payload, _ = server.call_tool(tool, args)
    hits = [(r["path"], int(r.get("line_start") or 0), int(r.get("line_end") or 0))
            for r in payload.get("results") or [] if r.get("path")]
    good = [any(matches("definition", h, e) for e in expected) for h in hits]
    return bool(good[:1] and good[0]), any(good[:5])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", nargs="+", default=[str(HERE / "tasks.jsonl")])
    ap.add_argument("--split", choices=("tune", "validation"))
    ap.add_argument("--work", default="/tmp/agenttasks-work")
    a = ap.parse_args()
    work = Path(a.work)
    os.environ["CRUXE_HOME"] = str(work / "home")
    from cruxe.tools import Server
    for path in a.tasks:
        filters = argparse.Namespace(corpus=None, kind="definition", split=a.split, limit=None)
        servers: dict[str, Server] = {}
        s1 = s5 = l1 = 0
        missed = []
        tasks = load_tasks(Path(path), filters)
        for t in tasks:
            if t["corpus"] not in servers:
                servers[t["corpus"]] = Server(ensure_index(work, t["corpus"])[0], home=work / "home")
            srv = servers[t["corpus"]]
            at1, at5 = ranks(srv, "search_code", {"query": t["args"]["name"]}, t["expected"])
            s1, s5 = s1 + at1, s5 + at5
            l1 += ranks(srv, t["tool"], t["args"], t["expected"])[0]
            if not at1:
                missed.append(t["id"])
        print(json.dumps({"tasks": Path(path).name, "n": len(tasks), "search_code_at1": s1, "search_code_at5": s5,
                          "locate_symbol_at1": l1, "search_code_not_first": missed}))


if __name__ == "__main__":
    main()
