"""The write side of a generation: what the indexer writes, and in which order.

Everything a job writes goes through here: the Tantivy documents and SQLite rows built from
one file's extraction (`build_documents`, run in the parser workers), the batch writer
(`GenerationWriter`: Tantivy commit first, then one SQLite transaction ending with the
manifest), the edge rows (`insert_edges`), a bulk build's deferred indexes and spool, and the
bookkeeping that lets the next job repair an interrupted one (`record_unconfirmed`,
`orphan_paths`, `clear_generation`). Reads live in the rest of `cruxe.store`.
"""
from __future__ import annotations

import os
import sqlite3
from itertools import repeat
from operator import itemgetter
from typing import Any, Callable, Generator, Iterable, Iterator, NamedTuple, Protocol

import tantivy

from .. import codetokens as ct
from .. import literals
from ..codetokens import code_terms
from ..errors import CruxeError
from ..jsonenc import to_json
from ..model import (EMPTY_EDGES, Documents, EdgeBlock, FileExtract, Reference, Symbol, file_key, symbol_content_hash,
                     symbol_id, symbol_stable_id, text_lines)
from .layout import Generation, now_iso, transaction
from .schema import (_EDGE_INDEX_NAMES, _EDGE_INDEXES, _SYMBOL_INDEX_NAMES, _SYMBOL_INDEXES, EDGE_TYPE_CODES,
                     EDGES_DEFERRED_KEY, EDGES_RESOLVER_KEY, INDEX_NAMES, id_blob)

# Tantivy writer heaps, per index, sized to what each holds (a full heap flushes a segment):
# snippets carry the source text, symbols a row per definition, files a head per file; equal
# large heaps cost peak memory for no speed (docs/BENCHMARKS.md). 15 MB is Tantivy's minimum.
WRITER_HEAP_BYTES = {"snippets": 40_000_000, "symbols": 24_000_000, "files": 15_000_000}


# A test knob: `CRUXE_CRASH_AT=<point>[:<n>]` SIGKILLs the process the n-th time (default: the
# first) it reaches the named point of the write sequence (`crash_point`), so that tests can
# kill a job exactly between two of its commits. Read at each point (a few per batch), so a
# test may set it after import; unset, it costs an environment lookup.
_crash_counts: dict[str, int] = {}


def crash_point(name: str) -> None:
    crash_at = os.environ.get("CRUXE_CRASH_AT", "")
    if not crash_at:
        return
    point, _, nth = crash_at.partition(":")
    if point != name:
        return
    _crash_counts[name] = _crash_counts.get(name, 0) + 1
    if _crash_counts[name] == int(nth or 1):
        os.kill(os.getpid(), 9)



# ---- documents and rows built from one file's extraction (run in the parser workers) ----------

CHUNK_MAX_LINES = 120  # a snippet longer than this is split: keeps snippet hits precise
CHUNK_SMALL_LINES = 3  # chunks this short are merged with their small neighbours ...
CHUNK_MERGE_LINES = 20  # ... into chunks of at most this many lines
CONTENT_HEAD_BYTES = 4096  # the files index sees the head of each file
DOC_MAX_CHARS = 2000  # doc text indexed per symbol (searched through doc_tokens; not stored)


class Source(Protocol):
    """What `build_documents` needs to know of a file besides its extraction (`index.WorkItem`)."""

    repo: str
    ref: str
    path: str
    language: str | None
    size: int


def _rust_field(language: str, s: Symbol, parent: Symbol | None) -> bool:
    """A Rust struct's, union's or enum variant's field: found by its name only (its doc and
    declaration are shown, not searched: a question in words is answered by code, and a
    field's words would only shift the weights of the words the definitions say)."""
    return language == "rust" and s.kind == "variable" and parent is not None and parent.kind in ("struct", "constant")


def build_documents(item: Source, fx: FileExtract, text: str) -> Documents:
    """Every Tantivy document and SQLite row of one file, from its extraction and text."""
    repo, ref, path = item.repo, item.ref, item.path
    fkey = file_key(repo, ref, path)
    language = item.language or ""
    path_tokens = ct.joined(ct.path_terms(path))
    common = {"repo": repo, "ref": ref, "file_key": fkey, "path": path, "path_tokens": path_tokens,
              "language": language}
    ids = unique_symbol_ids(repo, ref, path, fx)
    blobs = [id_blob(i) for i in ids]  # the stored form
    lines = text_lines(text)
    sym_docs, sym_rows = [], []
    for i, s in enumerate(fx.symbols):
        stable = symbol_stable_id(language, s.kind, s.qualified_name, s.signature)
        parent = fx.symbols[s.parent] if s.parent is not None else None
        words = not _rust_field(language, s, parent)
        sym_docs.append({
            **common, "symbol_id": ids[i].encode(),  # STORED_ONLY: bytes
            "symbol_exact": s.name.lower(), "name_tokens": ct.joined(ct.identifier_terms(s.name)),
            "qualified_tokens": ct.joined(ct.dotted_terms(s.qualified_name)),
            "signature_tokens": ct.joined(ct.text_terms(s.signature, 200)) if words else "",
            "doc_tokens": ct.joined(ct.text_terms(s.doc[:DOC_MAX_CHARS], 400)) if words else "",
            "kind": s.kind, "parent_name": parent.name if parent else "",
        })
        sym_rows.append(SymbolRow(blobs[i], id_blob(stable), s.name, s.qualified_name, s.kind, language, path,
                                  s.line_start, s.line_end, s.signature, s.visibility,
                                  blobs[s.parent] if s.parent is not None else None,
                                  id_blob(symbol_content_hash(fx.source, s.byte_start, s.byte_end)),
                                  folded_name(s.name)))
    snippet_docs = []
    ranges, runs = chunk_pieces(fx, lines)
    fields = literals.field_texts("\n".join(lines), language, [(a, b) for a, b, _ in ranges], runs)
    for (a, b, kind), messages in zip(ranges, fields):
        body = "\n".join(lines[a - 1:b]).encode()
        idents, parts = code_terms(body)
        doc = {**common, "line_start": a, "line_end": b, "chunk_kind": kind, "source": body,
               "content": idents, "content_parts": parts}
        if messages:  # most chunks emit none: no empty field for the single-threaded writer
            doc["error_literals"] = messages
        snippet_docs.append(doc)
    file_doc = {**common, "line_start": 1, "line_end": max(1, len(lines)), "filename": path.rsplit("/", 1)[-1].lower(),
                "content_head": code_terms(text[:CONTENT_HEAD_BYTES].encode())[0], "size": item.size}
    return Documents(sym_docs, sym_rows, snippet_docs, file_doc, edge_block(fx.references, blobs), fx.warnings,
                     len(fx.symbols))


def edge_block(refs: list[Reference], blobs: list[bytes]) -> EdgeBlock:
    """A file's references by column (`EdgeBlock`); `blobs`: its symbols' stored ids."""
    if not refs:
        return EMPTY_EDGES
    types, names, lines, froms, modules, aliases, receivers = zip(*refs)
    return EdgeBlock.of(bytes(map(EDGE_TYPE_CODES.__getitem__, types)), lines,
                        [-1 if i is None else i for i in froms], blobs, names, modules, receivers, aliases,
                        EDGE_TYPE_CODES["imports"])


def unique_symbol_ids(repo: str, ref: str, path: str, fx: FileExtract) -> list[str]:
    """`symbol_id` per symbol. Two definitions can share path, kind, first line and name (two
    `readonly x` members of type literals nested on one TypeScript line): the second and
    later get `#2`, `#3`... after the name in the hashed key, in extraction order, so ids stay
    unique in the file and a child is never its own parent."""
    ids: list[str] = []
    seen: dict[str, int] = {}
    for s in fx.symbols:
        sid = symbol_id(repo, ref, path, s.kind, s.line_start, s.name)
        n = seen.get(sid, 0) + 1
        seen[sid] = n
        ids.append(sid if n == 1 else symbol_id(repo, ref, path, s.kind, s.line_start, f"{s.name}#{n}"))
    return ids


def chunk_ranges(fx: FileExtract, lines: list[str]) -> list[tuple[int, int, str]]:
    """The file's snippet chunks (`chunk_pieces` without the runs)."""
    return chunk_pieces(fx, lines)[0]


def chunk_pieces(fx: FileExtract, lines: list[str]) -> tuple[list[tuple[int, int, str]], list[tuple[int, int]]]:
    """The file's snippet chunks, in line order, and the (first, last) indexes of each run of
    chunks cut out of one definition over CHUNK_MAX_LINES (any other chunk is a run of one; the
    literal scan reads a run as one text). Each top-level symbol is a chunk, with the
    comment, attribute and decorator lines right above it (a doc comment its extractor leaves
    outside its lines: Go, a JSDoc, a Python `#` block), and so is each gap between them; a
    gap of blank lines only is left out (nothing to find there); a run of small chunks
    (CHUNK_SMALL_LINES or fewer each: one-line constants, short comments) is merged into one
    chunk of at most CHUNK_MERGE_LINES; any chunk over CHUNK_MAX_LINES is cut into pieces.
    Blank gaps and single lines are common in real code (docs/BENCHMARKS.md), each a Tantivy
    document to write and score. A merged chunk that holds a symbol is a "symbol" chunk; a
    hit in it is joined to the symbol at its best line. A doc comment kept with its
    definition scores as the definition's words, not as a small gap merged with whatever
    precedes it; smaller chunks (a container cut at its methods) lost more questions than
    they found (docs/BENCHMARKS.md, "Snippet chunks")."""
    n_lines = len(lines)
    out: list[tuple[int, int, str]] = []
    cursor = 1
    tops = sorted((s.line_start, s.line_end) for s in fx.symbols if s.parent is None)
    for start, end in tops:
        if end < cursor:
            continue
        start = _leading_comments(lines, max(start, cursor), cursor)
        if start > cursor:
            out.append((cursor, start - 1, "gap"))
        out.append((start, end, "symbol"))
        cursor = end + 1
    if cursor <= n_lines:
        out.append((cursor, n_lines, "gap"))
    merged: list[tuple[int, int, str]] = []
    small_run: list[bool] = []  # per merged chunk: made of small chunks only (may grow)
    for a, b, kind in out:
        if a > b or (kind == "gap" and not any(lines[i].strip() for i in range(a - 1, min(b, n_lines)))):
            continue
        small = b - a + 1 <= CHUNK_SMALL_LINES
        if small and small_run and small_run[-1] and b - merged[-1][0] + 1 <= CHUNK_MERGE_LINES:
            pa, _, pkind = merged[-1]
            merged[-1] = (pa, b, "symbol" if "symbol" in (pkind, kind) else "gap")
            continue
        merged.append((a, b, kind))
        small_run.append(small)
    pieces: list[tuple[int, int, str]] = []
    runs: list[tuple[int, int]] = []
    for a, b, kind in merged:
        first = len(pieces)
        while b - a + 1 > CHUNK_MAX_LINES:
            pieces.append((a, a + CHUNK_MAX_LINES - 1, kind))
            a += CHUNK_MAX_LINES
        pieces.append((a, b, kind))
        if kind == "symbol":
            runs.append((first, len(pieces) - 1))
        else:  # top-level statements, not one definition: scanned piece by piece
            runs.extend((i, i) for i in range(first, len(pieces)))
    return pieces, runs


def _leading_comments(lines: list[str], start: int, floor: int) -> int:
    """`start` moved up over the comment, attribute and decorator lines right above it (no
    blank line between), not above `floor`."""
    while start > floor and ct.COMMENT_OR_ATTRIBUTE_LINE.match(lines[start - 2]):
        start -= 1
    return start


# ---- writes into a generation (indexer side) -------------------------------------------------

class SymbolRow(NamedTuple):
    """A `symbols` row as the parser workers hand it over: the table's columns, in its order,
    with the file's path where the table has its id (`file_ids`)."""

    symbol_id: bytes
    symbol_stable_id: bytes
    name: str
    qualified_name: str
    kind: str
    language: str
    path: str
    line_start: int
    line_end: int
    signature: str
    visibility: str
    parent_symbol_id: bytes | None
    content_hash: bytes
    name_folded: str | None

    def with_file_id(self, file_id: int) -> tuple:
        """The row to insert: the path replaced by its id."""
        return (*self[:6], file_id, *self[7:])


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
    """Drop the edge indexes for a bulk build of an empty generation: inserting hundreds of thousands of edge
    rows into three B-trees, then updating them as resolution rewrites the rows, costs more
    than building each index once from the final rows (`build_edge_indexes`). Nothing in a
    bulk build reads through them: new files have no rows to delete, the resolution reads in
    rowid order, and `find_references` answers `no_edges_available` until the resolution's
    transaction, which also builds the indexes, has committed. The resolver's version is
    forgotten too, so that this resolution is the full one, which reads through no index (a
    generation indexed while its repository was empty has a version, and nothing to keep).

    `spool`: the build also keeps its edges out of the table until its resolution inserts
    them resolved (a pending row written, read back and rewritten costs more: docs/BENCHMARKS.md).
    Until then the generation is marked (`EDGES_DEFERRED_KEY`): a job that
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
        db.execute(DIRTY_TYPES_DDL)
        for table in ("symbol_edges", "symbols", "paths", "file_manifest", "edge_dirty_names", "edge_dirty_types",
                      "branch_state"):
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
    """Drop the symbol indexes for a bulk build of an empty generation: many rows in random
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


EDGE_ROWS = 64  # x 10 columns: within SQLite's 999 variables of before 3.32
_EDGE_VALUES = "(?,?,?,?,?,?,?,nullif(?,''),nullif(?,''),nullif(?,''))"
_INSERT_EDGES_ONE = f"INSERT INTO symbol_edges VALUES {_EDGE_VALUES}"
_INSERT_EDGES_MANY = f"INSERT INTO symbol_edges VALUES {','.join([_EDGE_VALUES] * EDGE_ROWS)}"
_EDGE_COLS = 10
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
    # a one-row INSERT's cost (docs/BENCHMARKS.md). The parameters are laid out flat, a
    # file's column at a time by slice assignment (no tuple per row), and streamed some
    # statements at a time: a spool flushed past its limit is SPOOL_MAX_EDGES edges, which at
    # once would take the memory the limit is there to cap.
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
            part[9::_EDGE_COLS] = b.column(b.aliases)
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

    def __init__(self, gen: Generation, repo: str, ref: str, threads: int = 1, dirty_names: DirtyRule | None = None):
        """`dirty_names`: the resolver's rule for what a batch that replaces files changes
        (`_requeue_edges`); a writer without one commits no SQLite batch."""
        self.gen = gen
        self.dirty_names = dirty_names
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
                      symbols: list[SymbolRow], edges: list[FileEdges], state: dict[str, Any],
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
            if self.dirty_names is None:
                raise CruxeError("internal_error", "GenerationWriter.commit_sqlite needs the resolver's dirty-name rule")
            _requeue_edges(c, self.repo, self.ref, replaced, symbols, edges, self.dirty_names)
            for path in replaced:
                c.execute("DELETE FROM symbols WHERE file_id = (SELECT id FROM paths WHERE path=?)", (path,))
                c.execute("DELETE FROM symbol_edges WHERE rowid BETWEEN (SELECT edge_lo FROM paths WHERE path=?) "
                          "AND (SELECT edge_hi FROM paths WHERE path=?)", (path, path))
            c.executemany("UPDATE paths SET edge_lo=NULL, edge_hi=NULL WHERE path=?", [(p,) for p in replaced])
            ids = file_ids(c, sorted({s.path for s in symbols} | {path for path, _ in edges}))
            c.executemany("INSERT INTO symbols VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                          [s.with_file_id(ids[s.path]) for s in symbols])
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



# The resolver's rule (`cruxe.refs.dirty.dirty_names`): from the definitions (path, qualified
# name, name, kind, signature) and imports (path, name, module, alias) of the replaced files
# before and after the batch, the names whose edges elsewhere may now resolve differently, and
# the names of the types whose members' edges may too.
DirtyRule = Callable[[set[tuple], set[tuple], set[tuple], set[tuple]], tuple[Iterable[str], Iterable[str]]]
# The type names of the rule, beside `edge_dirty_names`; created on first use, so that a
# generation built before it needs no new schema (`edges.dirty_types` reads it).
DIRTY_TYPES_DDL = """CREATE TABLE IF NOT EXISTS edge_dirty_types (
  repo TEXT NOT NULL, "ref" TEXT NOT NULL, name TEXT NOT NULL, PRIMARY KEY (repo, "ref", name)) WITHOUT ROWID"""


def _requeue_edges(c: sqlite3.Connection, repo: str, ref: str, paths: list[str], symbols: list[SymbolRow],
                   edges: list[FileEdges], rule: DirtyRule) -> None:
    """Edge-resolution bookkeeping for `cruxe.refs.resolve_edges`, inside the batch transaction
    so a crash cannot lose it: edges resolved into the symbols of replaced files go back to
    pending (confidence NULL: their symbol ids are about to change), and the names `rule`
    finds in what the batch changes are recorded in `edge_dirty_names`. New edges arrive
    pending by themselves. Before the first resolution there is nothing to keep."""
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
        old_defs.update((path, q, n, k, sig) for q, n, k, sig in c.execute(
            "SELECT qualified_name, name, kind, coalesce(signature, '') FROM symbols WHERE file_id=?", file_id))
        old_imports.update((path, t, m or "", a or "") for t, m, a in c.execute(
            "SELECT to_name, module, alias FROM symbol_edges WHERE rowid BETWEEN ? AND ? AND edge_type=?",
            (*edge_range, EDGE_TYPE_CODES["imports"])))
    new_defs = {(row.path, row.qualified_name, row.name, row.kind, row.signature or "") for row in symbols}
    imports = EDGE_TYPE_CODES["imports"]
    new_imports = {(path, name, module, alias)
                   for path, b in edges
                   for t, name, module, alias in zip(b.types, b.column(b.names), b.column(b.modules),
                                                     b.column(b.aliases)) if t == imports}
    names, types = rule(old_defs, new_defs, old_imports, new_imports)
    c.executemany("INSERT OR IGNORE INTO edge_dirty_names VALUES (?,?,?)", [(repo, ref, n) for n in sorted(names)])
    if types:
        c.execute(DIRTY_TYPES_DDL)
        c.executemany("INSERT OR IGNORE INTO edge_dirty_types VALUES (?,?,?)", [(repo, ref, n) for n in sorted(types)])


def save_skipped_files(gen: Generation, warnings: list[str]) -> None:
    """The last job's problems that no manifest row can carry (files it did not index: too
    large, binary, unreadable, links out of the tree; invalid ignore lines), for `doctor`."""
    with transaction(gen.db) as c:
        c.execute("INSERT OR REPLACE INTO meta VALUES ('skipped_files', ?)", (to_json(warnings),))


def save_extraction_version(gen: Generation, version: str) -> None:
    """Which extractors write this generation (set when it is created; see extract.EXTRACTION_VERSION)."""
    with transaction(gen.db) as c:
        c.execute("INSERT OR REPLACE INTO meta VALUES ('extraction_version', ?)", (version,))


# Past this many files not known to be the commit's, none is listed (`reads.dirty_paths` None).
MAX_DIRTY_PATHS = 10_000


def save_tree_state(gen: Generation, dir_mtimes: dict[str, int], clean: bool = False,
                    dirty: frozenset[str] | None = None) -> None:
    """The mtime of every directory the last job's scan walked, as it was when listed, whether
    the files it indexed were known to be the commit's (`clean`: no uncommitted edit), and which
    were not (`dirty`; None: not known, or too many to list)."""
    listed = sorted(dirty) if dirty is not None and len(dirty) <= MAX_DIRTY_PATHS else None
    with transaction(gen.db) as c:
        c.execute("INSERT OR REPLACE INTO meta VALUES ('dir_mtimes', ?)", (to_json(dir_mtimes),))
        c.execute("INSERT OR REPLACE INTO meta VALUES ('tree_clean', ?)", ("1" if clean else "0",))
        c.execute("INSERT OR REPLACE INTO meta VALUES ('dirty_paths', ?)", (to_json(listed),))


def save_overlay(gen: Generation, info: dict | None, note: str | None = None) -> None:
    """Record what an overlay generation is built against (`reads.overlay_info`: the base ref,
    its commit, generation and write count, the merge-base, the commit and the paths that differ
    from the base), or that the generation is a whole index (None), with why a ref not checked
    out is one (`note`, `reads.storage_note`)."""
    with transaction(gen.db) as c:
        c.execute("DELETE FROM meta WHERE key IN ('overlay', 'storage_note')")
        if info is not None:
            c.execute("INSERT INTO meta VALUES ('overlay', ?)", (to_json(info),))
        if note is not None:
            c.execute("INSERT INTO meta VALUES ('storage_note', ?)", (note,))


def forget_commit(gen: Generation, repo: str, ref: str) -> None:
    """The ref's files are not known to be its recorded commit's (a checkout ran during the
    job): with no commit recorded, freshness calls the ref stale until a job records one."""
    with transaction(gen.db) as c:
        c.execute('UPDATE branch_state SET last_indexed_commit=NULL WHERE repo=? AND "ref"=?', (repo, ref))
