#!/usr/bin/env python3
"""Pasted lines of code: is the line an agent pastes (whole, or its first words) answered first?

usage: PYTHONPATH=. python3 bench/pasted_lines.py HOME ROOT [--n 200] [--seed 7] [--json OUT]

Agents search for a line they saw (in a diff, a log, a review comment) the way they grep for it.
Cases come from the files themselves: N random lines of ROOT's source files (not tests, docs or
examples), each 15-120 characters with at least three identifiers, no comment, and found once
in the whole tree (every file, tests included, counted as a plain substring). A case asks
`search_code` two ways: the whole line (stripped), and its first words (the shortest prefix of
at least 60% of its characters ending at a space that is still unique in the tree). Right at @1 when
the first result's span holds the line, @5 among the first five. The anchor is `rg -F`
on the same text, answered in path order: @1 when its first printed line is the one.
"""
from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cruxe.model import is_non_source_path  # noqa: E402
from cruxe.tools import Server  # noqa: E402

SUFFIXES = (".py", ".go", ".rs", ".ts", ".tsx")
_IDENT = re.compile(r"[A-Za-z_]\w*")
_COMMENT = re.compile(r"^\s*(#|//|/\*|\*|\"\"\"|''')")


def corpus(root: Path) -> dict[str, list[str]]:
    return {str(f.relative_to(root)): f.read_text(errors="replace").split("\n")
            for f in sorted(root.rglob("*")) if f.suffix in SUFFIXES and f.is_file()}


def cases(files: dict[str, list[str]], n: int, seed: int) -> list[dict]:
    blob = "\n".join("\n".join(lines) for lines in files.values())
    pool = [(p, i + 1, line.strip()) for p, lines in files.items() if not is_non_source_path(p)
            for i, line in enumerate(lines)
            if 15 <= len(line.strip()) <= 120 and len(_IDENT.findall(line)) >= 3 and not _COMMENT.match(line)]
    rng = random.Random(seed)
    rng.shuffle(pool)
    out = []
    for path, line, text in pool:
        if blob.count(text) != 1:
            continue
        prefix = _prefix(text, blob)
        out.append({"path": path, "line": line, "whole": text, "prefix": prefix})
        if len(out) == n:
            break
    return out


def _prefix(text: str, blob: str) -> str | None:
    for i in range(int(len(text) * 0.6), len(text)):
        if text[i] == " " and blob.count(text[:i]) == 1:
            return text[:i]
    return None


def cruxe_rank(server: Server, query: str, path: str, line: int) -> int | None:
    payload, _ = server.call_tool("search_code", {"query": query})
    for k, r in enumerate(payload.get("results") or []):
        if r.get("path") == path and int(r.get("line_start") or 0) <= line <= int(r.get("line_end") or r.get("line_start") or 0):
            return k + 1
    return None


def rg_first(root: Path, query: str, path: str, line: int) -> bool:
    out = subprocess.run(["rg", "-F", "-n", "--no-heading", "--with-filename", "--sort", "path", "--", query, "."],
                         cwd=root, capture_output=True, text=True, errors="replace").stdout.split("\n", 1)[0]
    return out.startswith(f"./{path}:{line}:") or out.startswith(f"{path}:{line}:")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("home", type=Path)
    ap.add_argument("root", type=Path)
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json", type=Path)
    a = ap.parse_args()
    server = Server(a.root, home=a.home)
    rows = []
    for c in cases(corpus(a.root), a.n, a.seed):
        for form in ("whole", "prefix"):
            if c[form] is None:
                continue
            rank = cruxe_rank(server, c[form], c["path"], c["line"])
            rows.append({**c, "form": form, "rank": rank, "rg_at1": rg_first(a.root, c[form], c["path"], c["line"])})
    summary = {}
    for form in ("whole", "prefix"):
        rs = [r for r in rows if r["form"] == form]
        if rs:
            summary[form] = {"cases": len(rs), "at1": round(sum(r["rank"] == 1 for r in rs) / len(rs), 3),
                             "at5": round(sum(r["rank"] is not None and r["rank"] <= 5 for r in rs) / len(rs), 3),
                             "rg_at1": round(sum(r["rg_at1"] for r in rs) / len(rs), 3)}
    print(json.dumps(summary))
    if a.json:
        a.json.write_text(json.dumps({"summary": summary, "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
