"""Storage: the package that knows the disk formats (SQLite and Tantivy). Outside
`cruxe/store/` no module runs SQL or names a Tantivy field (tests/test_store_wall.py).

    schema.py   the formats: tables, views, indexes, the Tantivy schemas and analyzer, codes
    layout.py   where data lives and how it is opened: generations, CURRENT, locks, jobs
    reads.py    named reads of a generation, returning records
    (here)      the write side: a generation's rows and documents, written in crash-safe order

This module is also the import surface: callers use `from . import store` / `store.X` and
never a submodule, so what moves between the modules stays the store's business.
"""
from __future__ import annotations

import os
import re
import sqlite3
from functools import lru_cache
from itertools import repeat
from operator import itemgetter
from typing import Any, Generator, Iterable, Iterator

import tantivy

from ..errors import CruxeError
from ..jsonenc import to_json  # the one compact encoder; a name here for the store's callers
from ..model import EdgeBlock
from .layout import (LOW_SPACE_BYTES, SQLITE_BUSY_TIMEOUT_MS, STORAGE_PROBLEMS, Generation, ProjectInfo,
                     ProjectStore, connect, is_corruption, is_engine_panic, now_iso, ref_slug, storage_error,
                     storage_kind, transaction)
from .fulltext import COMMON_TERM_MIN_DOCS, MAX_TERM_DOC_SHARE, prune_common_terms, search_index, warm_indices
from .reads import (Chunk, EdgeSite, FileDoc, OutlineRow, Symbol, all_symbols, branch_state, chunks, damaged,
                    disagreeing_files, document_counts, edges_to, file_language, file_warnings, innermost_symbols,
                    integrity_problem, manifest, outline_count, outline_rows, probe_index, probe_tables, read_doc,
                    siblings, skipped_files, symbols_by_id, symbols_named, tree_state, unresolved_count,
                    unresolved_edges, warm_tables)
from .schema import (_EDGE_INDEX_NAMES, _EDGE_INDEXES, _INDEX_SCHEMA, _SYMBOL_INDEX_NAMES, _SYMBOL_INDEXES,
                     CONFIDENCE_CODES, EDGE_TYPE_CODES, EDGES_DEFERRED_KEY, EDGES_RESOLVER_KEY, INDEX_NAMES,
                     LINE_FIELDS, SCHEMA_VERSION, SCHEMAS, STORED_ONLY, Field, id_blob)
# SQL fragments, re-exported only for the modules that still run SQL of their own (index.py,
# refs/resolve.py, refs/graph.py: helper indexwing moves their SQL into the store)
from .schema import RETRY_SQL, SYMBOL_VIEW_COLUMNS, confidence_sql, edge_type_sql, id_sql, name_lower_sql, tail_sql

__all__ = [
    "LOW_SPACE_BYTES", "SQLITE_BUSY_TIMEOUT_MS", "STORAGE_PROBLEMS", "Generation", "ProjectInfo", "ProjectStore",
    "connect", "is_corruption", "is_engine_panic", "now_iso", "ref_slug", "storage_error", "storage_kind",
    "transaction", "branch_state", "damaged", "disagreeing_files", "document_counts", "manifest", "read_doc",
    "skipped_files", "tree_state", "COMMON_TERM_MIN_DOCS", "MAX_TERM_DOC_SHARE", "prune_common_terms",
    "search_index", "warm_indices", "Chunk", "EdgeSite", "FileDoc", "OutlineRow", "Symbol", "all_symbols", "chunks",
    "edges_to", "file_language", "file_warnings", "innermost_symbols", "integrity_problem", "outline_count",
    "outline_rows", "probe_index", "probe_tables", "siblings", "symbols_by_id", "symbols_named", "unresolved_count",
    "unresolved_edges", "warm_tables", "LINE_FIELDS", "Field", "CONFIDENCE_CODES", "EDGE_TYPE_CODES", "EDGES_DEFERRED_KEY",
    "EDGES_RESOLVER_KEY", "INDEX_NAMES", "SCHEMA_VERSION", "SCHEMAS", "STORED_ONLY", "id_blob", "_INDEX_SCHEMA",
    "RETRY_SQL", "SYMBOL_VIEW_COLUMNS", "confidence_sql", "edge_type_sql", "id_sql", "name_lower_sql", "tail_sql",
    "WRITER_HEAP_BYTES", "IDENT_PATTERN", "PARTS_PATTERN", "code_terms", "crash_point", "SYMBOL_NAME",
    "SYMBOL_QUALIFIED", "SYMBOL_FILE", "folded_name", "file_ids", "defer_edge_indexes", "edges_deferred",
    "flush_spool", "orphan_paths", "record_unconfirmed", "clear_generation", "build_edge_indexes",
    "build_missing_indexes", "defer_symbol_indexes", "build_symbol_indexes", "FileEdges", "EDGE_ROWS",
    "insert_edges", "GenerationWriter", "name_tail", "mark_edges_dirty", "save_skipped_files", "save_tree_state",
    "to_json",
]

# Tantivy writer heaps, per index, sized to what each holds (a full heap flushes a segment):
# snippets carry the source text, symbols a row per definition, files a head per file. 64 MB
# each measured 192 MB of the indexer's peak for no speed gained on go-5k.
WRITER_HEAP_BYTES = {"snippets": 40_000_000, "symbols": 24_000_000, "files": 15_000_000}  # 15 MB: minimum

# Analyzers (not persisted by Tantivy: registered at every open).
# cruxe_ws: terms pre-split in Python, separated by whitespace; lower-cased by Tantivy. Every
# searched field uses it. Code is split here (`code_terms`, in the parser workers) into whole
# identifiers (IDENT_PATTERN: snake_case kept whole, no 40-byte limit) and identifier parts
# (PARTS_PATTERN: snake and simple camel splits). Tantivy's own regex tokenizer made the same
# tokens but cost ~6 of the 10 CPU-s of the snippets index on go-5k.
IDENT_PATTERN = r"[A-Za-z0-9_$]+"
PARTS_PATTERN = r"[A-Z]?[a-z0-9]+|[A-Z]+"
_PARTS_RE = re.compile(PARTS_PATTERN)
# bytes.translate tables: every byte that is not in an identifier (resp. a part) becomes a
# space, so splitting on whitespace gives exactly the pattern's matches (bytes of non-ASCII
# characters are never identifier bytes, as the patterns never match them either)
_IDENT_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_$")
_TO_IDENTS = bytes(b if b in _IDENT_BYTES else 32 for b in range(256))
_TO_PART_RUNS = bytes(b if b in _IDENT_BYTES and b not in b"_$" else 32 for b in range(256))


def code_terms(code: bytes) -> tuple[str, str]:
    """(identifiers, identifier parts) of UTF-8 code as whitespace-separated text, in text
    order, for the `content`/`content_head` and `content_parts` fields: the tokens and
    positions Tantivy's regex tokenizer gives for IDENT_PATTERN and PARTS_PATTERN, at a
    tenth (identifiers) and half (parts) of Python's findall. Runs of lower-case letters and
    digits are their own part; other runs are split by PARTS_PATTERN, memoized (the same
    identifiers come back throughout a repository)."""
    idents = code.translate(_TO_IDENTS).decode("ascii")
    parts = [run if run.islower() or run.isdigit() else _parts_of(run)
             for run in code.translate(_TO_PART_RUNS).decode("ascii").split()]
    return idents, " ".join(parts)


@lru_cache(maxsize=200_000)
def _parts_of(run: str) -> str:
    return " ".join(_PARTS_RE.findall(run))


# A test knob: `CRUXE_CRASH_AT=<point>[:<n>]` SIGKILLs the process the n-th time (default: the
# first) it reaches the named point of the write sequence (`crash_point`), so that tests can
# kill a job exactly between two of its commits. Unset, it costs a dictionary lookup.
_CRASH_AT = os.environ.get("CRUXE_CRASH_AT", "")
_crash_counts: dict[str, int] = {}


def crash_point(name: str) -> None:
    if not _CRASH_AT:
        return
    point, _, nth = _CRASH_AT.partition(":")
    if point != name:
        return
    _crash_counts[name] = _crash_counts.get(name, 0) + 1
    if _crash_counts[name] == int(nth or 1):
        os.kill(os.getpid(), 9)


# ---- writes into a generation (indexer side) -------------------------------------------------

# Rows as the indexer hands them over: the columns of `symbols`, with the file's path where
# the table has its id (`file_ids`).
SYMBOL_NAME, SYMBOL_QUALIFIED, SYMBOL_FILE = 2, 3, 6  # (symbol_id, symbol_stable_id, name,
#   qualified_name, kind, language, path, line_start, line_end, signature, visibility,
#   parent_symbol_id, content_hash, name_folded)


def folded_name(name: str) -> str | None:
    """The `name_folded` column: Python's lower() of a name that SQLite's lower(), which folds
    ASCII letters only, would fold differently (see `name_lower_sql`)."""
    return None if name.isascii() else name.lower()


def file_ids(db: sqlite3.Connection, paths: list[str]) -> dict[str, int]:
    """The `paths` ids of `paths`, adding the missing ones (inside the caller's transaction)."""
    db.executemany("INSERT OR IGNORE INTO paths(path) VALUES (?)", [(p,) for p in paths])
    ids: dict[str, int] = {}
    for i in range(0, len(paths), 500):
        chunk = paths[i:i + 500]
        ids.update(db.execute(f"SELECT path, id FROM paths WHERE path IN ({','.join('?' * len(chunk))})",
                              chunk).fetchall())
    return ids


def defer_edge_indexes(db: sqlite3.Connection, spool: bool = False) -> None:
    """Drop the edge indexes for a bulk build of an empty generation: inserting ~650k edge
    rows into three B-trees, then updating them as resolution rewrites the rows, costs more
    than building each index once from the final rows (`build_edge_indexes`). Nothing in a
    bulk build reads through them: new files have no rows to delete, the resolution reads in
    rowid order, and `find_references` answers `no_edges_available` until the resolution's
    transaction, which also builds the indexes, has committed. The resolver's version is
    forgotten too, so that this resolution is the full one, which reads through no index (a
    generation indexed while its repository was empty has a version, and nothing to keep).

    `spool`: the build also keeps its edges out of the table until its resolution inserts
    them resolved (a pending row written, read back and rewritten cost ~2.5 CPU-s on
    Django+Salt). Until then the generation is marked (`EDGES_DEFERRED_KEY`): a job that
    finds the mark knows the edges of its indexed files were lost with the job that kept them,
    and starts the build over (`clear_generation`)."""
    with transaction(db):
        for name in _EDGE_INDEX_NAMES:
            db.execute(f"DROP INDEX IF EXISTS {name}")
        db.execute("DELETE FROM meta WHERE key=?", (EDGES_RESOLVER_KEY,))
        if spool:
            db.execute("INSERT OR REPLACE INTO meta VALUES (?, '1')", (EDGES_DEFERRED_KEY,))


def edges_deferred(db: sqlite3.Connection) -> bool:
    """A bulk build kept its edges out of the table and has not inserted them yet."""
    return db.execute("SELECT 1 FROM meta WHERE key=?", (EDGES_DEFERRED_KEY,)).fetchone() is not None


def flush_spool(db: sqlite3.Connection, spool: list[FileEdges]) -> None:
    """Insert a bulk build's spooled edges pending, and lift the mark, in one transaction: the
    build grew past what it may hold in memory and goes on like any other (`cruxe.index`)."""
    with transaction(db):
        insert_edges(db, spool, file_ids(db, [path for path, _ in spool]))
        db.execute("DELETE FROM meta WHERE key=?", (EDGES_DEFERRED_KEY,))


# Paths whose Tantivy documents may exist without a manifest row. A batch commits Tantivy
# before SQLite, so a job killed between the two leaves documents of its new files that no
# manifest row names; were such a file gone (or ignored) by the next sync, nothing would ever
# delete them, and every later validation would fail on the surplus. A job therefore records
# its new paths here before its first Tantivy write, and clears them once their manifest rows
# are committed; the next job deletes the documents of any it finds still without a row.
_UNCONFIRMED_TABLE = "CREATE TABLE IF NOT EXISTS unconfirmed_paths (path TEXT PRIMARY KEY) WITHOUT ROWID"


def orphan_paths(db: sqlite3.Connection) -> list[str]:
    """The recorded new paths (`record_unconfirmed`) that never got a manifest row."""
    db.execute(_UNCONFIRMED_TABLE)  # generations made before the table existed
    return [r[0] for r in db.execute("SELECT u.path FROM unconfirmed_paths u WHERE NOT EXISTS "
                                     "(SELECT 1 FROM file_manifest m WHERE m.path = u.path) ORDER BY u.path")]


def record_unconfirmed(db: sqlite3.Connection, paths: Iterable[str]) -> None:
    """Replace the recorded paths with `paths` (none: the job's manifest rows are committed)."""
    with transaction(db):
        db.execute(_UNCONFIRMED_TABLE)
        db.execute("DELETE FROM unconfirmed_paths")
        db.executemany("INSERT OR IGNORE INTO unconfirmed_paths VALUES (?)", ((p,) for p in paths))


def clear_generation(db: sqlite3.Connection) -> None:
    """Forget every file of a generation (its Tantivy documents must be deleted first): what a
    bulk build that lost its spooled edges does before starting over."""
    with transaction(db):
        for table in ("symbol_edges", "symbols", "paths", "file_manifest", "edge_dirty_names", "branch_state"):
            db.execute(f"DELETE FROM {table}")
        db.execute("DELETE FROM meta WHERE key IN (?, ?)", (EDGES_DEFERRED_KEY, EDGES_RESOLVER_KEY))


def build_edge_indexes(db: sqlite3.Connection) -> None:
    """Create the edge indexes at the end of a bulk build, inside the resolution's transaction
    (the caller's), so that resolved edges and their indexes land together."""
    for statement in filter(str.strip, _EDGE_INDEXES.split(";")):
        db.execute(statement)


def build_missing_indexes(db: sqlite3.Connection) -> None:
    """Create the edge and symbol indexes that are missing, in one transaction: at the start of
    every job that is not a bulk build (a bulk build killed before its end left them out)."""
    db.executescript(f"BEGIN IMMEDIATE;{_EDGE_INDEXES}{_SYMBOL_INDEXES}COMMIT;")


def defer_symbol_indexes(db: sqlite3.Connection) -> None:
    """Drop the symbol indexes for a bulk build of an empty generation: ~160k rows in random
    id and name order cost three B-trees more than one sort each at the end
    (`build_symbol_indexes`, after the last batch and before the resolution reads symbols).
    Readers in between still get correct answers, by scanning."""
    with transaction(db):
        for name in _SYMBOL_INDEX_NAMES:
            db.execute(f"DROP INDEX IF EXISTS {name}")


def build_symbol_indexes(db: sqlite3.Connection) -> None:
    """Create the symbol indexes after a bulk build's last batch (`build_missing_indexes`
    repairs a build killed before)."""
    db.executescript(f"BEGIN IMMEDIATE;{_SYMBOL_INDEXES}COMMIT;")


FileEdges = tuple[str, EdgeBlock]  # a file's path and its references


EDGE_ROWS = 64  # x 9 columns: within SQLite's 999 variables of before 3.32
_EDGE_VALUES = "(?,?,?,?,?,?,?,nullif(?,''),nullif(?,''))"
_INSERT_EDGES_ONE = f"INSERT INTO symbol_edges VALUES {_EDGE_VALUES}"
_INSERT_EDGES_MANY = f"INSERT INTO symbol_edges VALUES {','.join([_EDGE_VALUES] * EDGE_ROWS)}"
_EDGE_COLS = 9
_FLAT_MAX = 64 * EDGE_ROWS * _EDGE_COLS  # parameters laid out (64 statements' worth) before they run


def _statements(flat: list, per: int) -> Generator[list, None, list]:
    """Yield the whole statements' parameters of `flat` (rows of _EDGE_COLS), `per` a
    statement; return what is left over (fewer than a statement's rows)."""
    full = len(flat) - len(flat) % per
    for i in range(0, full, per):
        yield flat[i:i + per]
    return flat[full:]


def insert_edges(c: sqlite3.Connection, edges: list[FileEdges], ids: dict[str, int],
                  outcomes: list[tuple[list[bytes | None], bytes]] | None = None) -> None:
    """Insert edges file by file, in the order given, and record each file's rowid range in
    `paths`. A row inserted without a rowid gets the table's largest plus one, so rows
    inserted in one statement are numbered in order; the count is checked, since deleting by
    range relies on it. Rows are pending (no target, no confidence) unless `outcomes` gives
    each file's (to_symbol_id blobs, confidence codes), aligned with `edges`."""
    base = c.execute("SELECT coalesce(max(rowid), 0) FROM symbol_edges").fetchone()[0]
    # EDGE_ROWS rows per statement: SQLite's work per statement (bind, step, reset) is most of
    # a one-row INSERT's cost (Django+Salt's 655k edges: 0.91 -> 0.66 CPU-s). The parameters
    # are laid out flat, a file's column at a time by slice assignment (no tuple per row:
    # 578k edges 0.73-0.80 -> 0.70 CPU-s, of which SQLite 0.59), and streamed some statements
    # at a time: a spool flushed past its limit is 2M edges, which at once would take the
    # memory the limit is there to cap.
    per = EDGE_ROWS * _EDGE_COLS
    rest: list = []  # the last rows, fewer than a statement's: inserted one by one

    def statements() -> Iterator[list]:
        nonlocal rest
        flat: list = []
        for k, (path, b) in enumerate(edges):
            n = len(b.types)
            if not n:
                continue
            part: list = [None] * (n * _EDGE_COLS)  # to_symbol_id, confidence: None (pending) unless given
            owners = [*b.symbol_ids, None]  # a `froms` of -1 (no enclosing symbol) indexes the None
            part[0::_EDGE_COLS] = map(owners.__getitem__, b.froms)
            if outcomes is not None:
                part[1::_EDGE_COLS], part[6::_EDGE_COLS] = outcomes[k]
            part[2::_EDGE_COLS] = b.column(b.names)
            part[3::_EDGE_COLS] = b.types
            part[4::_EDGE_COLS] = repeat(ids[path], n)
            part[5::_EDGE_COLS] = b.lines
            part[7::_EDGE_COLS] = b.column(b.modules)
            part[8::_EDGE_COLS] = b.column(b.receivers)
            flat += part
            if len(flat) >= _FLAT_MAX:
                flat = yield from _statements(flat, per)
        rest = yield from _statements(flat, per)
    c.executemany(_INSERT_EDGES_MANY, statements())
    c.executemany(_INSERT_EDGES_ONE, (rest[i:i + _EDGE_COLS] for i in range(0, len(rest), _EDGE_COLS)))
    total = sum(len(b.types) for _, b in edges)
    top = c.execute("SELECT coalesce(max(rowid), 0) FROM symbol_edges").fetchone()[0]
    if top != base + total:
        raise CruxeError("internal_error", f"edge rows numbered {base + 1}..{top}, expected {total} of them")
    spans, lo = [], base + 1
    for path, b in edges:
        if b.types:
            spans.append((lo, lo + len(b.types) - 1, ids[path]))
            lo += len(b.types)
    c.executemany("UPDATE paths SET edge_lo=?, edge_hi=? WHERE id=?", spans)


class GenerationWriter:
    """Batches of file changes into one generation, in the crash-safe order:
    Tantivy delete+add and commit, then one SQLite transaction ending with the manifest."""

    def __init__(self, gen: Generation, repo: str, ref: str, threads: int = 1):
        self.gen = gen
        self.repo = repo
        self.ref = ref
        self.writers = {n: gen.tantivy[n].writer(heap_size=WRITER_HEAP_BYTES[n], num_threads=threads)
                        for n in INDEX_NAMES}
        self.schemas = {n: gen.tantivy[n].schema for n in INDEX_NAMES}
        # A writer killed inside its commit leaves files the index's meta never took up (a
        # segment's `<id>.<opstamp>.del`, say). The next writer starts from the same committed
        # state, so its first commit picks the same names and fails on them
        # (`FileAlreadyExists`, every sync after that one; seen in test_crash's random kills).
        # Tantivy lists every file it writes as managed before writing it: collect the
        # unreferenced ones before the first commit.
        for w in self.writers.values():
            w.garbage_collect_files()

    def delete_file_docs(self, fkey: str) -> None:
        for w in self.writers.values():
            w.delete_documents_by_term("file_key", fkey)

    def add_docs(self, name: str, docs: Iterable[dict[str, Any]]) -> None:
        """Add documents whose STORED_ONLY fields are already UTF-8 bytes (the parser workers
        encode them: the main process is the indexer's bottleneck)."""
        w, schema = self.writers[name], self.schemas[name]
        for d in docs:
            w.add_document(tantivy.Document.from_dict(d, schema))  # a third cheaper than Document(**d)

    def commit_tantivy(self) -> None:
        for name, w in self.writers.items():
            w.commit()
            crash_point(f"tantivy_commit_{name}")

    def commit_sqlite(self, deleted: list[str], files: list[dict[str, Any]], touched: list[tuple[str, int, int]],
                      symbols: list[tuple], edges: list[FileEdges], state: dict[str, Any],
                      new_paths: frozenset[str] = frozenset(), spooled: bool = False) -> None:
        """One transaction: relations and edges of the re-extracted and deleted files, then
        their manifest rows (content hash last), then branch_state. `touched` files kept
        their content (only size/mtime moved): just their manifest row is refreshed.
        `new_paths` had no manifest row when the job started, so they have no rows to delete
        (rows and manifest commit together). `spooled`: a bulk build keeps the edges for its
        resolution to insert (`defer_edge_indexes`); their files get their `paths` ids here
        all the same, in the order they would get them with their edges."""
        c = self.gen.db
        key = (self.repo, self.ref)
        with transaction(c):
            replaced = [p for p in deleted + [f["path"] for f in files] if p not in new_paths]
            mark_edges_dirty(c, self.repo, self.ref, replaced, symbols, edges)
            for path in replaced:
                c.execute("DELETE FROM symbols WHERE file_id = (SELECT id FROM paths WHERE path=?)", (path,))
                c.execute("DELETE FROM symbol_edges WHERE rowid BETWEEN (SELECT edge_lo FROM paths WHERE path=?) "
                          "AND (SELECT edge_hi FROM paths WHERE path=?)", (path, path))
            c.executemany("UPDATE paths SET edge_lo=NULL, edge_hi=NULL WHERE path=?", [(p,) for p in replaced])
            ids = file_ids(c, sorted({s[SYMBOL_FILE] for s in symbols} | {path for path, _ in edges}))
            c.executemany("INSERT INTO symbols VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                          [(*s[:SYMBOL_FILE], ids[s[SYMBOL_FILE]], *s[SYMBOL_FILE + 1:]) for s in symbols])
            if not spooled:
                insert_edges(c, sorted(edges, key=itemgetter(0)), ids)
            for path in deleted:
                c.execute('DELETE FROM file_manifest WHERE repo=? AND "ref"=? AND path=?', (*key, path))
            c.executemany(
                'INSERT OR REPLACE INTO file_manifest VALUES (?,?,?,?,?,?,?,?,?,?)',
                [(*key, f["path"], f["content_hash"], f["size"], f["mtime_ns"],
                  f["language"], f["indexed_at"], f["symbol_count"], f["warnings"]) for f in files])
            c.executemany('UPDATE file_manifest SET size=?, mtime_ns=? WHERE repo=? AND "ref"=? AND path=?',
                          [(size, mtime, *key, path) for path, size, mtime in touched])
            c.execute(
                'INSERT INTO branch_state ("repo", "ref", last_indexed_commit, file_count, symbol_count, '
                "last_indexed_at, cursor, complete) VALUES (?,?,?,?,?,?,1,?) "
                'ON CONFLICT(repo, "ref") DO UPDATE SET last_indexed_commit=excluded.last_indexed_commit, '
                "file_count=excluded.file_count, symbol_count=excluded.symbol_count, "
                "last_indexed_at=excluded.last_indexed_at, cursor=cursor+1, complete=excluded.complete",
                (self.repo, self.ref, state.get("commit"),
                 c.execute('SELECT COUNT(*) FROM file_manifest WHERE repo=? AND "ref"=?',
                           (self.repo, self.ref)).fetchone()[0],
                 c.execute("SELECT COUNT(*) FROM symbols").fetchone()[0],
                 now_iso(), int(state.get("complete", False))))

    def close(self) -> None:
        for w in self.writers.values():
            try:
                w.wait_merging_threads()
            except ValueError:
                pass
        self.writers.clear()


_TAIL_SEPARATORS = re.compile(r"[.:/]")


def name_tail(name: str) -> str:
    """The last segment of a written name, as `tail_sql` computes it:
    `os.path` -> `path`, `crate::a::B` -> `B`, `net/http` -> `http`."""
    parts = _TAIL_SEPARATORS.split(name)
    return parts[-1]


def mark_edges_dirty(c: sqlite3.Connection, repo: str, ref: str, paths: list[str],
                     symbols: list[tuple], edges: list[FileEdges]) -> None:
    """Edge-resolution bookkeeping for `cruxe.refs.resolve_edges`, inside the batch transaction
    so a crash cannot lose it: edges resolved into the symbols of replaced files go back to
    pending (confidence NULL: their symbol ids are about to change), and the names whose
    definitions or imports the batch really changes (added or removed, not merely moved:
    compared as (path, qualified name) and (path, import) before and after) are recorded as
    dirty, since edges by those names elsewhere may now resolve differently. New edges
    arrive pending by themselves. Before the first resolution there is nothing to keep."""
    if c.execute("SELECT 1 FROM meta WHERE key=?", (EDGES_RESOLVER_KEY,)).fetchone() is None:
        return
    old_defs: set[tuple] = set()
    old_imports: set[tuple] = set()
    for path in paths:
        row = c.execute("SELECT id, edge_lo, edge_hi FROM paths WHERE path=?", (path,)).fetchone()
        if row is None:
            continue
        file_id, edge_range = row[:1], row[1:]
        c.execute("UPDATE symbol_edges SET to_symbol_id=NULL, confidence=NULL WHERE to_symbol_id IN "
                  "(SELECT symbol_id FROM symbols WHERE file_id=?)", file_id)
        old_defs.update((path, q, n) for q, n in c.execute(
            "SELECT qualified_name, name FROM symbols WHERE file_id=?", file_id))
        old_imports.update((path, t, m or "", r or "") for t, m, r in c.execute(
            "SELECT to_name, module, receiver FROM symbol_edges WHERE rowid BETWEEN ? AND ? AND edge_type=?",
            (*edge_range, EDGE_TYPE_CODES["imports"])))
    new_defs = {(row[SYMBOL_FILE], row[SYMBOL_QUALIFIED], row[SYMBOL_NAME]) for row in symbols}
    imports = EDGE_TYPE_CODES["imports"]
    new_imports = {(path, name, module, receiver)  # receiver of an import: the alias it binds
                   for path, b in edges
                   for t, name, module, receiver in zip(b.types, b.column(b.names), b.column(b.modules),
                                                        b.column(b.receivers)) if t == imports}
    names = {n for _, _, n in old_defs ^ new_defs}
    for _, to_name, _, alias in old_imports ^ new_imports:
        names.add(name_tail(to_name))
        if alias:
            names.add(alias)
    c.executemany("INSERT OR IGNORE INTO edge_dirty_names VALUES (?,?,?)", [(repo, ref, n) for n in sorted(names)])


def save_skipped_files(gen: Generation, warnings: list[str]) -> None:
    """The last job's problems that no manifest row can carry (files it did not index: too
    large, binary, unreadable, links out of the tree; invalid ignore lines), for `doctor`."""
    with transaction(gen.db) as c:
        c.execute("INSERT OR REPLACE INTO meta VALUES ('skipped_files', ?)", (to_json(warnings),))


def save_tree_state(gen: Generation, dir_mtimes: dict[str, int]) -> None:
    """The mtime of every directory the last job's scan walked, as it was when listed."""
    with transaction(gen.db) as c:
        c.execute("INSERT OR REPLACE INTO meta VALUES ('dir_mtimes', ?)", (to_json(dir_mtimes),))



