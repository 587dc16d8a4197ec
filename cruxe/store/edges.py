"""Reads and writes of the indexing wing that are not batch writes (`writer`): what the
indexer's validation counts, and what reference resolution reads and rewrites."""
from __future__ import annotations

import json
import sqlite3
from typing import NamedTuple

from ..jsonenc import to_json
from .layout import Generation, transaction
from .schema import (EDGE_TYPE_CODES, EDGES_DEFERRED_KEY, EDGES_RESOLVER_KEY, RETRY_SQL, confidence_sql, edge_type_sql,
                     id_blob, id_sql, name_lower_sql, name_tail, tail_sql)
from .writer import build_edge_indexes

EDGES_SHADOW_KEY = "edges_shadow"  # meta key: the paths an overlay's edges were resolved from the overlay for


class ManifestFile(NamedTuple):
    """A manifest row's stat fields, for a file indexed again whatever its hash."""

    size: int
    mtime_ns: int
    language: str | None


def manifest_files(gen: Generation, repo: str, ref: str) -> dict[str, ManifestFile]:
    """path -> its manifest row's size, mtime and language, for every file of the generation."""
    return {r[0]: ManifestFile(r[1], r[2], r[3]) for r in gen.db.execute(
        'SELECT path, size, mtime_ns, language FROM file_manifest WHERE repo=? AND "ref"=?', (repo, ref))}


def row_counts(gen: Generation, repo: str, ref: str) -> tuple[int, int]:
    """(manifest rows, symbol rows) of the generation: what its Tantivy indexes must match."""
    files = gen.db.execute('SELECT COUNT(*) FROM file_manifest WHERE repo=? AND "ref"=?', (repo, ref)).fetchone()[0]
    return files, gen.db.execute("SELECT COUNT(*) FROM symbols").fetchone()[0]


# ---- what reference resolution reads and writes (`cruxe.refs.resolve`, `cruxe.refs.graph`) ----

def rows(db: sqlite3.Connection, sql: str, args: tuple = ()) -> sqlite3.Cursor:
    """Plain tuples (the connection's Row factory costs more than the work done per row)."""
    cur = db.cursor()
    cur.row_factory = None
    return cur.execute(sql, args)


def resolved_shadow(db: sqlite3.Connection) -> frozenset[str] | None:
    """The paths an overlay's last resolution took from the overlay rather than the base
    (`finish_resolution`); None when none was recorded (a whole index, or never resolved)."""
    row = db.execute("SELECT value FROM meta WHERE key=?", (EDGES_SHADOW_KEY,)).fetchone()
    try:
        return frozenset(json.loads(row[0])) if row else None
    except (ValueError, TypeError):  # damaged: resolved anew, as if never recorded
        return None


def requeue_into(db: sqlite3.Connection, repo: str, ref: str, ids: list[str], names: set[str]) -> None:
    """The edges resolved into the symbols `ids` (hex) go back to pending, and `names` are
    dirty (`refs.resolve`): what an overlay does when the paths it shadows change and with them
    which of its base's definitions its edges may reach."""
    with transaction(db):
        for i in range(0, len(ids), 500):
            chunk = [id_blob(x) for x in ids[i:i + 500]]
            db.execute("UPDATE symbol_edges SET to_symbol_id=NULL, confidence=NULL WHERE to_symbol_id IN "
                       f"({','.join('?' * len(chunk))})", chunk)
        db.executemany("INSERT OR IGNORE INTO edge_dirty_names VALUES (?,?,?)", [(repo, ref, n) for n in sorted(names)])


def resolver_version(db: sqlite3.Connection) -> str | None:
    """The version of the rules that resolved the generation's edges (None: never resolved)."""
    row = db.execute("SELECT value FROM meta WHERE key=?", (EDGES_RESOLVER_KEY,)).fetchone()
    return row[0] if row else None


def finish_resolution(db: sqlite3.Connection, repo: str, ref: str, version: str, build_indexes: bool,
                      shadow: list[str] | None = None) -> None:
    """Inside the resolution's transaction: the dirty names are done, the rules' `version` is
    recorded, the edges are in the table (a bulk build's mark goes), and with `build_indexes`
    the edge indexes a bulk build left out are built on the final rows. `shadow`: an overlay's
    edges were resolved over its base with these paths the overlay's (`resolved_shadow`)."""
    db.execute('DELETE FROM edge_dirty_names WHERE repo=? AND "ref"=?', (repo, ref))
    if _has_dirty_types(db):
        db.execute('DELETE FROM edge_dirty_types WHERE repo=? AND "ref"=?', (repo, ref))
    db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (EDGES_RESOLVER_KEY, version))
    db.execute("DELETE FROM meta WHERE key=?", (EDGES_SHADOW_KEY,))
    if shadow is not None:
        db.execute("INSERT INTO meta VALUES (?, ?)", (EDGES_SHADOW_KEY, to_json(sorted(shadow))))
    db.execute("DELETE FROM meta WHERE key=?", (EDGES_DEFERRED_KEY,))
    if build_indexes:
        build_edge_indexes(db)


def _has_dirty_types(db: sqlite3.Connection) -> bool:
    return db.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='edge_dirty_types'").fetchone() is not None


def dirty_types(db: sqlite3.Connection, repo: str, ref: str) -> set[str]:
    """The type names the job's batches marked dirty (`writer.DIRTY_TYPES_DDL`): their members'
    names are dirty too."""
    if not _has_dirty_types(db):
        return set()
    return {n for (n,) in db.execute('SELECT name FROM edge_dirty_types WHERE repo=? AND "ref"=?', (repo, ref))}


def edge_count(db: sqlite3.Connection) -> int:
    return db.execute("SELECT count(*) FROM symbol_edges").fetchone()[0]


def edge_rowid_range(db: sqlite3.Connection) -> tuple[int | None, int | None]:
    """(smallest, largest) rowid of the edge table; (None, None) when it is empty."""
    return tuple(db.execute("SELECT min(rowid), max(rowid) FROM symbol_edges").fetchone())


def next_edge_rowid(db: sqlite3.Connection) -> int:
    """The rowid the next inserted edge gets (`insert_edges` checks it)."""
    return db.execute("SELECT coalesce(max(rowid), 0) FROM symbol_edges").fetchone()[0] + 1


def label_pending(db: sqlite3.Connection, confidence: int) -> None:
    """Every pending edge gets `confidence` (and no target): one set-wide statement."""
    db.execute("UPDATE symbol_edges SET confidence=? WHERE confidence IS NULL", (confidence,))


def write_resolutions(db: sqlite3.Connection, changed: list[tuple[bytes | None, int, int]]) -> None:
    """(to_symbol_id blob, confidence code, rowid) per edge whose resolution changed."""
    db.executemany("UPDATE symbol_edges SET to_symbol_id=?, confidence=? WHERE rowid=?", changed)


# An Edge's columns read from the tables (`e` symbol_edges, `f` paths) in SQL, for queries
# that read few rows with an index hint, or a file's edges by its rowid range
EDGE_TABLE_COLS = (f"e.rowid, f.path, e.source_line, {id_sql('e.from_symbol_id')}, e.to_name, {edge_type_sql('e')}, "
                   f"coalesce(e.module, ''), coalesce(e.receiver, ''), coalesce(e.alias, ''), "
                   f"{id_sql('e.to_symbol_id')}, "
                   f"{confidence_sql('e')}")


def pending_edges(db: sqlite3.Connection) -> sqlite3.Cursor:
    """Every pending edge (no confidence yet), as EDGE_TABLE_COLS rows."""
    return rows(db, f"SELECT {EDGE_TABLE_COLS} FROM symbol_edges e INDEXED BY se_pending CROSS JOIN paths f "
                "ON f.id = e.file_id WHERE e.confidence IS NULL")


def edges_named(db: sqlite3.Connection, names: list[str]) -> list[tuple]:
    """Every edge whose name's last segment is one of `names`, as EDGE_TABLE_COLS rows in rowid
    order: the unresolved and unique-name ones through se_tail, the others through the symbols
    of that name they resolved to (sr_name, then se_to). An edge resolved to a definition of
    another name (an import's alias) is not listed."""
    found: dict[int, tuple] = {}
    wanted = set(names)
    for i in range(0, len(names), 500):
        chunk = names[i:i + 500]
        marks = ",".join("?" * len(chunk))
        for row in rows(db, f"SELECT {EDGE_TABLE_COLS} FROM symbol_edges e INDEXED BY se_tail CROSS JOIN paths f "
                        f"ON f.id = e.file_id WHERE {tail_sql('e')} IN ({marks}) AND {RETRY_SQL}", tuple(chunk)):
            found[row[0]] = row
        lowered = sorted({n.lower() for n in chunk})
        for name, row in ((r[0], r[1:]) for r in rows(
                db, f"SELECT s.name, {EDGE_TABLE_COLS} FROM symbols s INDEXED BY sr_name CROSS JOIN symbol_edges e "
                f"INDEXED BY se_to ON e.to_symbol_id = s.symbol_id CROSS JOIN paths f ON f.id = e.file_id "
                f"WHERE {name_lower_sql('s')} IN ({','.join('?' * len(lowered))}) AND e.to_symbol_id IS NOT NULL",
                tuple(lowered))):
            if name in wanted and name_tail(row[4]) == name:
                found[row[0]] = row
    return [found[k] for k in sorted(found)]


# Up to this many names, `receivers_containing` has SQL test each of them per row; past it,
# every receiver comes back (one test per row costs less than many).
RECEIVER_TESTS = 24


def receivers_containing(db: sqlite3.Connection, names: list[str]) -> list[tuple[int, str]]:
    """(rowid, receiver) of the edges whose receiver text contains one of `names` (or, past
    RECEIVER_TESTS names, of every edge with a receiver: the caller tests them). One scan of
    the edge table: no index holds receivers."""
    if not names:
        return []
    test = "" if len(names) > RECEIVER_TESTS else f" AND ({' OR '.join(['instr(receiver, ?)'] * len(names))})"
    return list(rows(db, f"SELECT rowid, receiver FROM symbol_edges WHERE receiver IS NOT NULL AND receiver <> ''"
                     f"{test}", () if not test else tuple(names)))


def variables_writing(db: sqlite3.Connection, names: list[str]) -> list[tuple[str, str]]:
    """(name, signature) of the top-level variables whose signature contains one of `names` as
    text (past RECEIVER_TESTS names, of every top-level variable with a signature: the caller
    tests them). One scan of the symbol table."""
    if not names:
        return []
    test = "" if len(names) > RECEIVER_TESTS else f" AND ({' OR '.join(['instr(signature, ?)'] * len(names))})"
    return list(rows(db, "SELECT name, signature FROM symbols WHERE kind = 'variable' AND parent_symbol_id IS NULL "
                     f"AND signature IS NOT NULL{test}", () if not test else tuple(names)))


def edges_at(db: sqlite3.Connection, rowids: list[int]) -> list[tuple]:
    """The edges of these rowids, as EDGE_TABLE_COLS rows in rowid order."""
    out: list[tuple] = []
    for i in range(0, len(rowids), 500):
        chunk = rowids[i:i + 500]
        out.extend(rows(db, f"SELECT {EDGE_TABLE_COLS} FROM symbol_edges e CROSS JOIN paths f ON f.id = e.file_id "
                        f"WHERE e.rowid IN ({','.join('?' * len(chunk))})", tuple(chunk)))
    return sorted(out)


# The edge table's columns as stored, which `Graph.edges` turns into Edge values in Python
_STORED_EDGE_COLS = ("rowid, file_id, source_line, from_symbol_id, to_name, edge_type, module, receiver, alias, "
                     "to_symbol_id, confidence")


def stored_edges_after(db: sqlite3.Connection, rowid: int, limit: int) -> sqlite3.Cursor:
    """The next `limit` edges after `rowid`, in rowid order, as stored."""
    return rows(db, f"SELECT {_STORED_EDGE_COLS} FROM symbol_edges WHERE rowid > ? ORDER BY rowid LIMIT ?",
                (rowid, limit))


def stored_edges_between(db: sqlite3.Connection, lo: int, hi: int) -> sqlite3.Cursor:
    """The edges with lo <= rowid < hi, in rowid order, as stored."""
    return rows(db, f"SELECT {_STORED_EDGE_COLS} FROM symbol_edges WHERE rowid >= ? AND rowid < ? ORDER BY rowid",
                (lo, hi))


def stored_import_edges(db: sqlite3.Connection) -> sqlite3.Cursor:
    """Every import edge, as stored."""
    return rows(db, f"SELECT {_STORED_EDGE_COLS} FROM symbol_edges WHERE edge_type = {EDGE_TYPE_CODES['imports']}")


def path_names(db: sqlite3.Connection) -> dict[int, str]:
    """paths.id -> path."""
    return dict(rows(db, "SELECT id, path FROM paths"))


def file_languages(db: sqlite3.Connection, repo: str, ref: str) -> dict[str, str]:
    """path -> language ("" when none) of every indexed file."""
    return {r[0]: r[1] or "" for r in rows(
        db, 'SELECT path, language FROM file_manifest WHERE repo=? AND "ref"=? ORDER BY path', (repo, ref))}


_SYM_COLS = (f"{id_sql('s.symbol_id')}, s.name, s.qualified_name, s.kind, s.language, f.path, s.line_start, "
             f"s.line_end, {id_sql('s.parent_symbol_id')}, coalesce(s.signature, '')")
_SYMBOLS = "symbols s JOIN paths f ON f.id = s.file_id"  # a generation's rows are all of one repo and ref
_SYM_ORDER = "ORDER BY f.path, s.line_start, s.symbol_id"
# every symbol of a name, case-folded, through the sr_name index (spelled as its expression)
_BY_NAME = f"symbols s INDEXED BY sr_name JOIN paths f ON f.id = s.file_id WHERE {name_lower_sql('s')} = ?"


def stored_symbols_after(db: sqlite3.Connection, rowid: int) -> sqlite3.Cursor:
    """(rowid, symbol_id, name, qualified_name, kind, language, file_id, line_start, line_end,
    parent_symbol_id, signature or "") of the symbols after `rowid`, in the table's order, ids
    as stored (8-byte blobs: the caller's bytes.hex() per id costs less than SQL's hex())."""
    return rows(db, "SELECT s.rowid, s.symbol_id, s.name, s.qualified_name, s.kind, s.language, s.file_id, "
                "s.line_start, s.line_end, s.parent_symbol_id, coalesce(s.signature, '') FROM symbols s "
                "WHERE s.rowid > ? ORDER BY s.rowid", (rowid,))


# The symbol reads below give (id, name, qualified_name, kind, language, path, line_start,
# line_end, parent id, signature or ""), ids in hex: `refs.graph.Sym`'s fields.

def symbols_in_paths(db: sqlite3.Connection, paths: list[str]) -> sqlite3.Cursor:
    """The symbols of up to 500 files, in (path, line, id) order."""
    return rows(db, f"SELECT {_SYM_COLS} FROM {_SYMBOLS} WHERE f.path IN ({','.join('?' * len(paths))}) "
                f"{_SYM_ORDER}", tuple(paths))


def symbols_in_file(db: sqlite3.Connection, path: str) -> sqlite3.Cursor:
    """One file's symbols, in (line, id) order."""
    return rows(db, f"SELECT {_SYM_COLS} FROM {_SYMBOLS} WHERE f.path=? ORDER BY s.line_start, s.symbol_id", (path,))


def symbols_named(db: sqlite3.Connection, name: str) -> sqlite3.Cursor:
    """Every symbol whose name folds to `name.lower()`, in (path, line, id) order."""
    return rows(db, f"SELECT {_SYM_COLS} FROM {_BY_NAME} {_SYM_ORDER}", (name.lower(),))


def few_symbols_named(db: sqlite3.Connection, name: str, kinds: tuple[str, ...],
                      languages: tuple[str, ...]) -> sqlite3.Cursor:
    """Up to two symbols named exactly `name`, of one of `kinds`, in one of `languages`."""
    return rows(db, f"SELECT {_SYM_COLS} FROM {_BY_NAME} AND s.kind IN ({','.join('?' * len(kinds))}) "
                f"AND s.language IN ({','.join('?' * len(languages))}) AND s.name=? {_SYM_ORDER} LIMIT 2",
                (name.lower(), *kinds, *languages, name))


def symbol_by_id(db: sqlite3.Connection, symbol_id: str) -> tuple | None:
    return rows(db, f"SELECT {_SYM_COLS} FROM {_SYMBOLS} WHERE s.symbol_id=? LIMIT 1",
                (id_blob(symbol_id),)).fetchone()


_IMPORTS_OF = (f"SELECT {EDGE_TABLE_COLS} FROM paths f JOIN symbol_edges e ON e.rowid BETWEEN f.edge_lo AND f.edge_hi "
               f"WHERE e.edge_type = {EDGE_TYPE_CODES['imports']} AND f.path")


def imports_in_paths(db: sqlite3.Connection, paths: list[str]) -> sqlite3.Cursor:
    """The import edges of up to 500 files, as EDGE_TABLE_COLS rows in (path, line, rowid) order."""
    return rows(db, f"{_IMPORTS_OF} IN ({','.join('?' * len(paths))}) ORDER BY f.path, e.source_line, e.rowid",
                tuple(paths))


def imports_of_file(db: sqlite3.Connection, path: str) -> sqlite3.Cursor:
    """One file's import edges, as EDGE_TABLE_COLS rows in line order."""
    return rows(db, f"{_IMPORTS_OF} = ? ORDER BY e.source_line, e.rowid", (path,))
