"""Indexed text of files, from the snippet store (its chunks cover every file exactly once).

find_references shows each reference's source line, the Go/Rust/TS resolvers read
go.mod / Cargo.toml / tsconfig.json: all of it comes from what was indexed, never from the
disk, so an answer matches the index it describes and never reads outside the repository.
The chunks are read by `store.chunks`.
"""
from __future__ import annotations

from .store import Chunk, Generation, chunks


def file_text(gen: Generation, repo: str, ref: str, path: str) -> str | None:
    found = chunks(gen, repo, ref, path)
    return "\n".join(c.source for c in found) if found else None


def line_of(found: list[Chunk], n: int) -> str | None:
    """Line `n` (1-based) of a file given its chunks; None when the index holds no text for it."""
    for c in found:
        a, b = int(c.line_start), int(c.line_end)
        if a <= n <= b:
            body = c.source.split("\n")
            return body[n - a] if n - a < len(body) else None
    return None


def numbered_lines(found: list[Chunk], lo: int = 1, hi: int | None = None) -> dict[int, str]:
    """The lines `lo`..`hi` (1-based, inclusive; `hi` None: to the end) that the chunks hold,
    by number."""
    out: dict[int, str] = {}
    for c in found:
        for i, text in enumerate(c.source.split("\n")):
            n = int(c.line_start) + i
            if lo <= n and (hi is None or n <= hi):
                out.setdefault(n, text)
    return out
