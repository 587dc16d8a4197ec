#!/usr/bin/env python3
"""Pasted messages that a program builds apart from the raise: found?

usage: PYTHONPATH=. python3 bench/built_messages.py HOME ROOT [ROOT ...]

Cases come from a line scan independent of Cruxe: a string literal of 3+ words (holes allowed)
that is the value given to a variable whose name ends in `msg` or `message` (`msg = f"..."`,
`errMsg := fmt.Sprintf("...", ...)`, `message = "..."`), in a Python or Go source file (tests,
docs and examples left out); at most ~150 per ROOT, every k-th in sorted order. Each literal is
pasted as `Error: <text>` with its holes filled by a value (`{name}`, `%s`, `%d`, `%v` become
`spam42`), into `search_code` (limit 5) on an index of ROOT in HOME; a result is right when it
spans the literal's line.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cruxe.index import run_index  # noqa: E402
from cruxe.model import is_non_source_path  # noqa: E402
from cruxe.tools import Server  # noqa: E402

ASSIGNED = re.compile(r"""^\s*(?:var\s+)?\w*(?:msg|message|Msg|Message)\s*(?::=|=)\s*"""
                      r"""(?:fmt\.Sprintf\(\s*)?[fF]?(["'])((?:(?!\1)[^\\\n])+)\1""")
HOLE = re.compile(r"\{[^{}]*\}|%[-+ #0-9.]*[sdvrqxf]")
LIMIT_PER_ROOT = 150


def cases(root: Path) -> dict[str, list[tuple[str, int]]]:
    found: dict[str, list[tuple[str, int]]] = {}
    for f in sorted([*root.rglob("*.py"), *root.rglob("*.go")]):
        rel = str(f.relative_to(root))
        if is_non_source_path(rel):
            continue
        for i, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
            m = ASSIGNED.match(line)
            if m and len(HOLE.sub(" ", m.group(2)).split()) >= 3:
                found.setdefault(HOLE.sub("spam42", m.group(2)).strip(), []).append((rel, i))
    return found


def main() -> None:
    home = Path(sys.argv[1])
    n = at1 = at5 = 0
    for root in map(Path, sys.argv[2:]):
        run_index(root, home=home)
        server = Server(root, home=home)
        found = cases(root)
        for msg, sites in sorted(found.items())[:: max(1, len(found) // LIMIT_PER_ROOT)]:
            payload, _ = server.call_tool("search_code", {"query": "Error: " + msg, "limit": 5})
            results = [r for r in payload.get("results") or [] if r.get("path")]
            good = [any(r["path"] == p and int(r["line_start"]) <= ln <= int(r.get("line_end") or r["line_start"])
                        for p, ln in sites) for r in results]
            n += 1
            at1 += bool(good[:1] and good[0])
            at5 += any(good)
    print(f"n={n} @1 {at1 / n:.3f} @5 {at5 / n:.3f}")


if __name__ == "__main__":
    main()
