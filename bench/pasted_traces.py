#!/usr/bin/env python3
"""Pasted Python tracebacks: is the innermost frame's function answered first?

usage: PYTHONPATH=. python3 bench/pasted_traces.py HOME ROOT [--n 100] [--seed 7]

Cases come from the stdlib `ast` (an oracle independent of Cruxe): N random functions of ROOT's
non-test Python files, each with a random line of its body. A case pastes a three-frame
traceback as a user's run prints it: the file paths under an installed location
(`/usr/lib/python3/site-packages/<path>`), two outer frames from other
random functions, the innermost frame last, then `ValueError: <words>`. Right at @1 when the first
result is the innermost frame's function (the innermost `def` around the line, by ast; its
decorators are part of it); @3 when
the three frames' functions are the first three results in order.
"""
from __future__ import annotations

import argparse
import ast
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cruxe.index import run_index  # noqa: E402
from cruxe.model import is_non_source_path  # noqa: E402
from cruxe.tools import Server  # noqa: E402


def functions(root: Path) -> list[tuple[str, int, int, int, str]]:
    """(path, first line with its decorators, first body line, last line, name) of every
    function."""
    out = []
    for f in sorted(root.rglob("*.py")):
        rel = str(f.relative_to(root))
        if is_non_source_path(rel):
            continue
        try:
            tree = ast.parse(f.read_text(errors="replace"))
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
                start = min([node.lineno, *(d.lineno for d in node.decorator_list)])  # a definition starts at its decorators
                out.append((rel, start, node.body[0].lineno, node.end_lineno, node.name))
    return out


def innermost(defs_by_path: dict, path: str, line: int) -> tuple[str, int]:
    spans = [d for d in defs_by_path[path] if d[2] <= line <= d[3]]
    best = max(spans, key=lambda d: d[1])  # the def starting last holds the line innermost
    return best[4], best[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("home", type=Path)
    ap.add_argument("root", type=Path)
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--show", action="store_true", help="print each miss")
    a = ap.parse_args()
    run_index(a.root, home=a.home)
    server = Server(a.root, home=a.home)
    defs = functions(a.root)
    by_path: dict[str, list] = {}
    for d in defs:
        by_path.setdefault(d[0], []).append(d)
    rng = random.Random(a.seed)
    at1 = at3 = 0
    for _ in range(a.n):
        picks = []
        for d in rng.sample(defs, 3):
            line = rng.randint(d[2], d[3])
            picks.append((d[0], line, *innermost(by_path, d[0], line)))
        lines = ["Traceback (most recent call last):"]
        for path, line, name, _ in picks:  # outermost first, as Python prints
            lines += [f'  File "/usr/lib/python3/site-packages/{path}", line {line}, in {name}', "    x = y"]
        lines.append("ValueError: the value was not accepted")
        payload, _ = server.call_tool("search_code", {"query": "\n".join(lines), "limit": 5})
        got = [(r["path"], int(r["line_start"])) for r in payload.get("results") or []]
        want = [(p, def_line) for p, _, _, def_line in reversed(picks)]
        at1 += bool(got[:1] == want[:1])
        at3 += got[:3] == want
        if a.show and got[:1] != want[:1]:
            print("MISS", want, got[:3])
    print(f"n={a.n} innermost frame @1 {at1 / a.n:.3f}, three frames in order {at3 / a.n:.3f}")


if __name__ == "__main__":
    main()
