"""The runner the pasted-message benches share (`built_messages.py`, `gettext_messages.py`,
`rust_panics.py`): each finds its cases by a text scan of its own, independent of Cruxe, as
{pasted text: [(path, line) of a site that emits it]}; this pastes every k-th of them, in sorted
order, into `search_code` (limit 5) on an index of the root, and scores a result right when it
spans a site's line."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable, Iterator

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cruxe.index import run_index  # noqa: E402
from cruxe.model import is_non_source_path  # noqa: E402
from cruxe.tools import Server  # noqa: E402

Cases = dict[str, list[tuple[str, int]]]


def source_lines(root: Path, *suffixes: str) -> Iterator[tuple[str, int, str]]:
    """(path, line number, text) of every line of the root's source files with these suffixes
    (tests, docs and examples left out), files in path order."""
    for f in sorted(p for s in suffixes for p in root.rglob("*" + s)):
        rel = str(f.relative_to(root))
        if not is_non_source_path(rel):
            for i, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
                yield rel, i, line


def server_for(root: Path, home: Path) -> Server:
    """A server over `root`, indexed into `home` first."""
    run_index(root, home=home)
    return Server(root, home=home)


def score(server: Server, cases: Cases, at_most: int) -> tuple[int, int, int]:
    """(cases asked, right first, right in the first five) over every k-th case in sorted
    order, k = len(cases) // at_most (all of them below twice `at_most`)."""
    n = at1 = at5 = 0
    for text, sites in sorted(cases.items())[:: max(1, len(cases) // at_most)]:
        payload, _ = server.call_tool("search_code", {"query": text, "limit": 5})
        results = [r for r in payload.get("results") or [] if r.get("path")]
        good = [any(r["path"] == p and int(r["line_start"]) <= ln <= int(r.get("line_end") or r["line_start"])
                    for p, ln in sites) for r in results]
        n += 1
        at1 += bool(good[:1] and good[0])
        at5 += any(good)
    return n, at1, at5


def report(label: str, n: int, at1: int, at5: int) -> str:
    return f"{label}n={n} @1 {at1 / n:.3f} @5 {at5 / n:.3f}" if n else f"{label}n=0"


def main(cases_of: Callable[[Path], Cases], at_most: int) -> None:
    """`bench/X.py HOME ROOT [ROOT ...]`: every root indexed into HOME, its cases scored, the sum
    printed."""
    home = Path(sys.argv[1])
    n = at1 = at5 = 0
    for root in map(Path, sys.argv[2:]):
        a, b, c = score(server_for(root, home), cases_of(root), at_most)
        n, at1, at5 = n + a, at1 + b, at5 + c
    print(report("", n, at1, at5))
