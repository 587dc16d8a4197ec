"""An overlay's resolutions of base edges: the base's rows an overlay shadows one edge at a time.

A base file the ref left alone keeps the base's edges, but what some of them resolve to depends on
definitions the ref added, changed or removed: a call the base left unresolved may now name the
ref's new definition, one the base resolved by unique name may now be ambiguous, and one resolved
through a receiver's type (`self.x.run()`, `x` declared in a class the ref changed) may now name
another class's method (which edges: `refs.resolve._redefined`, a whole index's rule). The overlay's
resolution (`refs.resolve`) re-resolves those edges over both layers and writes each edge whose
answer differs from the base's into the overlay's own `base_edge_fixes` table (a full resolution:
all of them; an incremental one: those of the edges it retried, by the names it finds dirty, newly
redefined or no longer redefined), keyed by the base row's rowid (stable while the base state the
overlay was resolved on holds: another state re-resolves everything, these rows too). Reads
(`layers`) drop a fixed base row and read its fix in its place. The base generation is never
written.

The table is made by the first resolution that writes it (an overlay made before has none, and
reads treat that as no fixes): base generations and whole indexes never hold it."""
from __future__ import annotations

import json
import sqlite3
from typing import Any, Iterator

from ..jsonenc import to_json
from .reads import EdgeSite, _CONFIDENCE_LABELS, _unresolved_where
from .schema import EDGE_TYPE_CODES, edge_type_sql, id_blob, id_sql, tail_sql

FIX_NAMES_KEY = "base_fix_names"  # meta key: the names the overlay's fixes were computed for
_FIX_DDL = """CREATE TABLE IF NOT EXISTS base_edge_fixes (
  base_rowid INTEGER PRIMARY KEY, path TEXT NOT NULL, source_line INTEGER NOT NULL, edge_type INTEGER NOT NULL,
  from_symbol_id BLOB, to_name TEXT NOT NULL, to_symbol_id BLOB, confidence INTEGER)"""
_SITE_COLS = f"e.path, e.source_line, {edge_type_sql('e')}, {id_sql('e.from_symbol_id')}, e.confidence"


def write_fixes(db: sqlite3.Connection, fixes: list[tuple[int, str, int, str, str | None, str, str | None, int]],
                names: set[str], redo: set[str] | None, retried: list[int]) -> None:
    """Inside the resolution's transaction: the overlay's fixes of the base edges `retried` (base
    rowids) and of those by a name in `redo` (None: of every edge) become `fixes`, each (base rowid,
    path, line, edge type label, from id, to_name, to id, confidence code; ids hex); those by a name
    no longer in `names` (the names the ref redefines, recorded for the next resolution:
    `fixed_names`) go."""
    db.execute(_FIX_DDL)
    if redo is None:
        db.execute("DELETE FROM base_edge_fixes")
    else:
        gone = sorted(redo | ((fixed_names(db) or set()) - names))
        for i in range(0, len(gone), 500):
            chunk = gone[i:i + 500]
            db.execute(f"DELETE FROM base_edge_fixes WHERE {tail_sql()} IN ({','.join('?' * len(chunk))})", chunk)
        for i in range(0, len(retried), 500):
            chunk = retried[i:i + 500]
            db.execute(f"DELETE FROM base_edge_fixes WHERE base_rowid IN ({','.join('?' * len(chunk))})", chunk)
    db.executemany("INSERT OR REPLACE INTO base_edge_fixes VALUES (?,?,?,?,?,?,?,?)",
                   [(r, p, ln, EDGE_TYPE_CODES[t], id_blob(f), name, id_blob(to), c)
                    for r, p, ln, t, f, name, to, c in fixes])
    db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (FIX_NAMES_KEY, to_json(sorted(names))))


def fixed_names(db: sqlite3.Connection) -> set[str] | None:
    """The names the overlay's last resolution found redefined (`write_fixes`); None: none recorded
    (never computed, or damaged): every name is done again."""
    row = db.execute("SELECT value FROM meta WHERE key=?", (FIX_NAMES_KEY,)).fetchone()
    try:
        return set(json.loads(row[0])) if row else None
    except (ValueError, TypeError):
        return None


def dirty_names(db: sqlite3.Connection, repo: str, ref: str) -> set[str]:
    """The names the job's batches marked dirty (`edge_dirty_names`), before the resolution clears them."""
    return {n for (n,) in db.execute('SELECT name FROM edge_dirty_names WHERE repo=? AND "ref"=?', (repo, ref))}


def _has_fixes(gen: Any) -> bool:
    """`gen` (None: no fixes to read) holds the table."""
    return gen is not None and gen.db.execute(
        "SELECT 1 FROM sqlite_master WHERE type='table' AND name='base_edge_fixes'").fetchone() is not None


def drop_fixes(db: sqlite3.Connection) -> None:
    """Inside a resolution's transaction that is not over a base: fixes of another one's rows
    must not outlive it (no write when there are none)."""
    db.execute("DROP TABLE IF EXISTS base_edge_fixes")
    db.execute("DELETE FROM meta WHERE key=?", (FIX_NAMES_KEY,))


def fix_count(gen: Any) -> int:
    """How many base edges the overlay `gen` resolved anew."""
    return gen.db.execute("SELECT count(*) FROM base_edge_fixes").fetchone()[0] if _has_fixes(gen) else 0


def fixed_among(gen: Any, rowids: list[int]) -> set[int]:
    """The base rowids among `rowids` that the overlay `gen` (its top generation) resolved anew."""
    if not rowids or not _has_fixes(gen):
        return set()
    out: set[int] = set()
    for i in range(0, len(rowids), 500):
        chunk = rowids[i:i + 500]
        out.update(r for (r,) in gen.db.execute(
            f"SELECT base_rowid FROM base_edge_fixes WHERE base_rowid IN ({','.join('?' * len(chunk))})", chunk))
    return out


def fixes_to(gen: Any, ids: list[str], edge_type: str | None = None) -> list[EdgeSite]:
    """The fixed base edges resolved to any of the definitions `ids`."""
    if not _has_fixes(gen):
        return []
    sql = (f"SELECT {_SITE_COLS} FROM base_edge_fixes e WHERE e.to_symbol_id IN ({','.join('?' * len(ids))})")
    args: list[Any] = [id_blob(i) for i in ids]
    if edge_type is not None:
        sql += " AND e.edge_type=?"
        args.append(EDGE_TYPE_CODES[edge_type])
    return [EdgeSite(p, ln, t, f, _CONFIDENCE_LABELS.get(c)) for p, ln, t, f, c in gen.db.execute(sql, args)]


def fixes_unresolved(gen: Any, name: str, edge_type: str | None = None) -> Iterator[EdgeSite]:
    """The fixed base edges naming `name` that no definition was tied to (`reads.unresolved_edges`'
    rule), in (path, line) order."""
    if not _has_fixes(gen):
        return iter(())
    where, args = _unresolved_where(name, edge_type)
    cursor = gen.db.execute(f"SELECT {_SITE_COLS} FROM base_edge_fixes e WHERE {where} ORDER BY e.path, "
                            "e.source_line", args)
    return (EdgeSite(p, ln, t, f, _CONFIDENCE_LABELS.get(c)) for p, ln, t, f, c in cursor)
