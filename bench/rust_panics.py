#!/usr/bin/env python3
"""Pasted Rust failures whose text is no string literal in a panic: found?

usage: PYTHONPATH=. python3 bench/rust_panics.py HOME ROOT [ROOT ...]

Cases come from a text scan independent of Cruxe, over the source files of each ROOT (tests,
benches, docs and examples left out, comment lines skipped), per form and ROOT every k-th in
sorted order, k = cases // 100 (all of them below 200):
- `assert`: a one-line `assert!(COND);` / `debug_assert!(COND);` whose COND holds no comma (no
  message of its own) and 2+ words, pasted as Rust prints it:
  `thread 'main' panicked at 'assertion failed: COND', src/main.rs:41:10`;
- `display`: a literal of 3+ words without holes written by a `Display` impl
  (`"...".fmt(f)`, `f.write_str("...")`, `f.pad("...")`, `write!(f, "...")` on the line), pasted
  as an application prints an error it got: `Error: <literal>`.
Each goes to `search_code` (limit 5) on an index of ROOT in HOME; a result is right when it
spans a line holding the site. Prints @1 / @5 per form.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

from message_cases import Cases, report, score, server_for, source_lines

ASSERT = re.compile(r"^\s*(?:debug_)?assert!\((.+)\);\s*$")
DISPLAY = re.compile(r'"([A-Za-z][^"\\{}%]{10,120})"\s*\.fmt\(|(?:write_str|pad)\(\s*"([A-Za-z][^"\\{}%]{10,120})"\s*\)'
                     r'|write!\(\s*f\s*,\s*"([A-Za-z][^"\\{}%]{10,120})"\s*\)')
PER_FORM = 100


def cases(root: Path) -> dict[str, Cases]:
    out: dict[str, Cases] = {"assert": {}, "display": {}}
    for rel, i, line in source_lines(root, ".rs"):
        if line.lstrip().startswith("//"):
            continue
        m = ASSERT.match(line)
        if m and "," not in m.group(1) and len(re.findall(r"[A-Za-z_]\w*", m.group(1))) >= 2:
            text = "thread 'main' panicked at 'assertion failed: " + " ".join(m.group(1).split()) + \
                   "', src/main.rs:41:10"
            out["assert"].setdefault(text, []).append((rel, i))
        for d in DISPLAY.finditer(line):
            msg = next(g for g in d.groups() if g)
            if len(msg.split()) >= 3:
                out["display"].setdefault("Error: " + msg, []).append((rel, i))
    return out


def main() -> None:
    home = Path(sys.argv[1])
    for root in map(Path, sys.argv[2:]):
        server = server_for(root, home)
        for form, found in cases(root).items():
            n, at1, at5 = score(server, found, PER_FORM)
            if n:
                print(report(f"{root.name} {form}: ", n, at1, at5))


if __name__ == "__main__":
    main()
