#!/usr/bin/env python3
"""Pasted messages that a Python program marks for translation (`_("...")`): found?

usage: PYTHONPATH=. python3 bench/gettext_messages.py HOME ROOT [ROOT ...]

Cases come from a text scan independent of Cruxe: each `_("...")` literal of 15-160 characters
and 3+ words without holes or quotes inside, in a source file (tests, docs and examples left
out); at most ~150 per ROOT, every k-th in sorted order. Each is pasted as `Error: <message>`
into `search_code` (limit 5) on an index of ROOT in HOME; a result is right when it spans a line
holding the literal. Corpora used: click 8.1.7 (PyPI sdist) and py-5k (Django + Salt).
"""
from __future__ import annotations

import re
from pathlib import Path

import message_cases
from message_cases import Cases, source_lines

MARKED = re.compile(r'''\b_\(\s*(["'])([^"'\\{}%\n]{15,160})\1\s*\)''')
LIMIT_PER_ROOT = 150


def cases(root: Path) -> Cases:
    found: Cases = {}
    for rel, i, line in source_lines(root, ".py"):
        for m in MARKED.finditer(line):
            msg = m.group(2).strip()
            if len(msg.split()) >= 3:
                found.setdefault("Error: " + msg, []).append((rel, i))
    return found


if __name__ == "__main__":
    message_cases.main(cases, LIMIT_PER_ROOT)
