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
from pathlib import Path

import message_cases
from message_cases import Cases, source_lines

ASSIGNED = re.compile(r"""^\s*(?:var\s+)?\w*(?:msg|message|Msg|Message)\s*(?::=|=)\s*"""
                      r"""(?:fmt\.Sprintf\(\s*)?[fF]?(["'])((?:(?!\1)[^\\\n])+)\1""")
HOLE = re.compile(r"\{[^{}]*\}|%[-+ #0-9.]*[sdvrqxf]")
LIMIT_PER_ROOT = 150


def cases(root: Path) -> Cases:
    found: Cases = {}
    for rel, i, line in source_lines(root, ".py", ".go"):
        m = ASSIGNED.match(line)
        if m and len(HOLE.sub(" ", m.group(2)).split()) >= 3:
            found.setdefault("Error: " + HOLE.sub("spam42", m.group(2)).strip(), []).append((rel, i))
    return found


if __name__ == "__main__":
    message_cases.main(cases, LIMIT_PER_ROOT)
