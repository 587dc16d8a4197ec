"""Indexed text of files, from the snippet store (its chunks cover every file exactly once).

find_references shows each reference's source line, the Go/Rust/TS resolvers read
go.mod / Cargo.toml / tsconfig.json, and locate_symbol and find_references read a Rust crate's
name from its Cargo.toml (`CrateNames`): all of it comes from what was indexed, never from the
disk, so an answer matches the index it describes and never reads outside the repository.
The chunks are read by `store.chunks`.
"""
from __future__ import annotations

import posixpath

from ..store import Chunk, Generation, chunks
from .rust import CARGO_NAME, crate_of


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


class CrateNames:
    """A file's path -> the package names of the Rust crate it belongs to (`[package]` and
    `[lib]` names of its crate directory's indexed Cargo.toml, `-` read as `_`), [] for other
    files: `hashbrown::HashMap::insert` names a crate the repository's paths need not say
    (`intent.qualified_matches`' home). Each Cargo.toml is read once, when first asked for."""

    def __init__(self, gen: Generation, repo: str, ref: str):
        self._gen, self._repo, self._ref = gen, repo, ref
        self._names: dict[str, list[str]] = {}

    def __call__(self, path: str) -> list[str]:
        if not path.endswith(".rs"):
            return []
        crate = crate_of(path)
        got = self._names.get(crate)
        if got is None:
            text = file_text(self._gen, self._repo, self._ref, posixpath.join(crate, "Cargo.toml"))
            got = self._names[crate] = [n.replace("-", "_") for n in CARGO_NAME.findall(text or "")]
        return got
