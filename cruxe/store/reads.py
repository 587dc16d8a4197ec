"""Named reads of a generation, returning records: what every module outside the store asks
of the disk. Each read chooses its own SQL and Tantivy query (and so the index it uses).
"""
from __future__ import annotations

import json
import sqlite3
from typing import Any

import tantivy

from ..errors import CruxeError
from .layout import Generation
from .schema import INDEX_NAMES

def damaged(what: str, e: BaseException) -> CruxeError:
    """A Tantivy read failure. Cruxe builds its queries itself, so a ValueError from a search
    or a stored-document read means damaged index files, not bad input."""
    return CruxeError("index_incompatible", f"{what}: the index is damaged ({e})",
                      {"schema_status": "corrupt_manifest", "remediation": "cruxe index --force"})


def read_doc(searcher: tantivy.Searcher, addr: tantivy.DocAddress) -> dict[str, Any]:
    """A stored document as {field: first value}, empty fields left out."""
    try:
        return {k: v[0].decode("utf-8") if isinstance(v[0], bytes) else v[0]
                for k, v in searcher.doc(addr).to_dict().items() if v and v[0] != b""}
    except ValueError as e:
        raise damaged("reading a stored document", e) from e


def manifest(gen: Generation, repo: str, ref: str) -> dict[str, tuple[str, int, int]]:
    """path -> (content_hash, size, mtime_ns) for every file of the generation."""
    rows = gen.db.execute('SELECT path, content_hash, size, mtime_ns FROM file_manifest '
                          'WHERE repo=? AND "ref"=?', (repo, ref))
    return {r[0]: (r[1], r[2], r[3]) for r in rows}


def document_counts(gen: Generation, name: str) -> dict[str, int]:
    """Live documents per path in one Tantivy index: the `path` terms, each counted over the
    documents an all-query matches (deleted ones are not, though their terms stay until a
    merge drops them)."""
    searcher = gen.searcher(name)
    if not searcher.num_docs:
        return {}
    return {t: c for t, c in searcher.terms_with_prefix("path", "", filter_query=tantivy.Query.all_query()) if c}


def disagreeing_files(gen: Generation, repo: str, ref: str) -> dict[str, dict[str, tuple[int, int]]]:
    """path -> {index: (documents the manifest implies, documents found)} for every file whose
    documents disagree with the manifest: one file document and a symbol document per symbol
    for each manifest row; no document at all for a path with no row. (A file's snippet count
    is not recorded, so its snippets are checked for the second rule only.)"""
    expected = {p: n for p, n in gen.db.execute('SELECT path, symbol_count FROM file_manifest WHERE repo=? AND "ref"=?',
                                                (repo, ref))}
    out: dict[str, dict[str, tuple[int, int]]] = {}
    for name in INDEX_NAMES:
        found = document_counts(gen, name)
        for path in set(found) if name == "snippets" else set(found) | set(expected):
            if path not in expected:
                want = 0
            elif name == "snippets":
                continue
            else:
                want = 1 if name == "files" else expected[path]
            if found.get(path, 0) != want:
                out.setdefault(path, {})[name] = (want, found.get(path, 0))
    return dict(sorted(out.items()))


def branch_state(gen: Generation, repo: str, ref: str) -> dict[str, Any] | None:
    try:
        row = gen.db.execute('SELECT * FROM branch_state WHERE repo=? AND "ref"=?', (repo, ref)).fetchone()
    except sqlite3.DatabaseError as e:
        raise CruxeError("index_incompatible", f"index.db is unreadable: {e}",
                         {"remediation": "cruxe index --force"}) from e
    return dict(row) if row else None



def tree_state(gen: Generation) -> dict[str, int] | None:
    """`save_tree_state`'s directories, or None for an index built before it was kept."""
    row = gen.db.execute("SELECT value FROM meta WHERE key='dir_mtimes'").fetchone()
    return json.loads(row[0]) if row else None


def skipped_files(gen: Generation) -> list[str]:
    row = gen.db.execute("SELECT value FROM meta WHERE key='skipped_files'").fetchone()
    return json.loads(row[0]) if row else []
