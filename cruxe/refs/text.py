"""Indexed text of files, from the snippet store (its chunks cover every file exactly once).

find_references shows each reference's source line and the Go/Rust/TS resolvers read
go.mod / Cargo.toml / tsconfig.json: all of it comes from what was indexed, never from the
disk, so an answer matches the index it describes and never reads outside the repository.
"""
from __future__ import annotations

from typing import Any

import tantivy

from ..model import file_key
from ..store import Generation, read_doc


def file_chunks(gen: Generation, repo: str, ref: str, path: str) -> list[dict[str, Any]]:
    """The stored chunks (line_start, line_end, content) of one file, in line order."""
    searcher = gen.searcher("snippets")
    fkey = file_key(repo, ref, path)
    n = searcher.doc_freq("file_key", fkey)
    if n == 0:
        return []
    query = tantivy.Query.term_query(gen.tantivy["snippets"].schema, "file_key", fkey, index_option="basic")
    chunks = [read_doc(searcher, addr) for _, addr in searcher.search(query, n, count=False).hits]
    return sorted(chunks, key=lambda c: c["line_start"])


def file_text(gen: Generation, repo: str, ref: str, path: str) -> str | None:
    chunks = file_chunks(gen, repo, ref, path)
    return "\n".join(c.get("source", "") for c in chunks) if chunks else None


def line_of(chunks: list[dict[str, Any]], n: int) -> str | None:
    """Line `n` (1-based) of a file given its chunks; None when the index holds no text for it."""
    for c in chunks:
        a, b = int(c["line_start"]), int(c["line_end"])
        if a <= n <= b:
            body = c.get("source", "").split("\n")
            return body[n - a] if n - a < len(body) else None
    return None
