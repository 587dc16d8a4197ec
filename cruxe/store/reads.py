"""Named reads of a generation, returning records: what every module outside the store asks
of the disk. Each read chooses its own SQL and Tantivy query (and so the index it uses).
"""
from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, fields
from typing import Any, Iterator

import tantivy

from ..errors import CruxeError
from ..model import file_key
from .layout import Generation
from .schema import (CONFIDENCE_CODES, EDGE_TYPE_CODES, INDEX_NAMES, PROBED_FIELDS, RETRY_SQL, SYMBOL_VIEW_COLUMNS,
                     edge_type_sql, id_blob, id_sql, name_lower_sql, tail_sql)

SQL_VARS_PER_QUERY = 300  # well under SQLite's bound-variable limit, per IN/VALUES batch

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



def counts_in(gen: Generation, repo: str, ref: str, paths: list[str]) -> tuple[int, int]:
    """(files, symbols) the generation holds of `paths`: what an overlay shadows of its base."""
    files = symbols = 0
    for i in range(0, len(paths), 500):
        chunk = paths[i:i + 500]
        marks = ",".join("?" * len(chunk))
        files += gen.db.execute(f'SELECT count(*) FROM file_manifest WHERE repo=? AND "ref"=? AND path IN ({marks})',
                                (repo, ref, *chunk)).fetchone()[0]
        symbols += gen.db.execute(f"SELECT count(*) FROM symbols s JOIN paths f ON f.id = s.file_id "
                                  f"WHERE f.path IN ({marks})", chunk).fetchone()[0]
    return files, symbols


def tree_state(gen: Generation) -> dict[str, int] | None:
    """`save_tree_state`'s directories, or None for an index built before it was kept."""
    row = gen.db.execute("SELECT value FROM meta WHERE key='dir_mtimes'").fetchone()
    return json.loads(row[0]) if row else None


def overlay_info(gen: Generation) -> dict[str, Any] | None:
    """What `writer.save_overlay` recorded: None for a whole index. A value that is not an
    overlay record (damage) is refused rather than merged with a base."""
    row = gen.db.execute("SELECT value FROM meta WHERE key='overlay'").fetchone()
    if row is None:
        return None
    try:
        info = json.loads(row[0])
    except ValueError:
        info = None
    if not isinstance(info, dict) or not isinstance(info.get("paths"), list) or not info.get("base_ref"):
        raise CruxeError("index_incompatible", "the overlay record of this index is damaged",
                         {"schema_status": "corrupt_manifest", "remediation": "cruxe index --force"})
    return info


def paths_indexed_since(gen: Generation, repo: str, ref: str, since: str) -> list[str]:
    """The paths whose rows a job wrote at or after `since` (`now_iso`'s form, which sorts as
    text): what a base indexed again after an overlay was built on it."""
    return [r[0] for r in gen.db.execute('SELECT path FROM file_manifest WHERE repo=? AND "ref"=? AND indexed_at >= ?',
                                         (repo, ref, since))]


def storage_note(gen: Generation) -> str | None:
    """Why a ref not checked out is a whole index rather than an overlay (`writer.save_overlay`)."""
    row = gen.db.execute("SELECT value FROM meta WHERE key='storage_note'").fetchone()
    return row[0] if row else None


def extraction_version(gen: Generation) -> str | None:
    """The extractors' version that wrote the generation (`save_extraction_version`); None for one
    written before versions were kept."""
    row = gen.db.execute("SELECT value FROM meta WHERE key='extraction_version'").fetchone()
    return row[0] if row else None


def dirty_paths(gen: Generation) -> frozenset[str] | None:
    """The files the last job indexed that were not known to be its commit's
    (`save_tree_state`); None when that is not known."""
    row = gen.db.execute("SELECT value FROM meta WHERE key='dirty_paths'").fetchone()
    listed = json.loads(row[0]) if row else None
    return frozenset(listed) if isinstance(listed, list) else None


def tree_clean(gen: Generation) -> bool:
    """Whether the last job's files were known to be its commit's (`save_tree_state`); False
    for an index that did not say."""
    row = gen.db.execute("SELECT value FROM meta WHERE key='tree_clean'").fetchone()
    return bool(row) and row[0] == "1"


def skipped_files(gen: Generation) -> list[str]:
    row = gen.db.execute("SELECT value FROM meta WHERE key='skipped_files'").fetchone()
    return json.loads(row[0]) if row else []


# ---- symbols ----------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Symbol:
    """A definition, as the `symbol_relations` view shows it (ids as hex)."""

    symbol_id: str
    symbol_stable_id: str
    name: str
    qualified_name: str
    kind: str
    language: str
    path: str
    line_start: int
    line_end: int
    signature: str | None
    visibility: str | None
    parent_symbol_id: str | None


_SYMBOL_COLUMNS = tuple(f.name for f in fields(Symbol))
_SELECT = ", ".join(_SYMBOL_COLUMNS)
_S_SELECT = ", ".join("s." + c for c in _SYMBOL_COLUMNS)


def _symbols(cursor: Iterator[Any]) -> list[Symbol]:
    return [Symbol(*r) for r in cursor]


def symbols_named(gen: Generation, name_lower: str) -> list[Symbol]:
    """The definitions whose lower-cased name is `name_lower`, in (path, line, id) order."""
    return _symbols(gen.db.execute(
        f"SELECT {_SELECT} FROM (SELECT {SYMBOL_VIEW_COLUMNS}, s.symbol_id AS id_bytes FROM symbols s "
        f"INDEXED BY sr_name JOIN paths f ON f.id = s.file_id WHERE {name_lower_sql('s')}=?) "
        "ORDER BY path, line_start, id_bytes", (name_lower,)))


def symbols_by_id(gen: Generation, ids: list[str]) -> dict[str, Symbol]:
    """The definitions of `ids` (hex) that exist, by id."""
    out: dict[str, Symbol] = {}
    ids = sorted(set(i for i in ids if i))
    for i in range(0, len(ids), SQL_VARS_PER_QUERY):
        batch = ids[i:i + SQL_VARS_PER_QUERY]
        marks = ",".join("?" * len(batch))
        for row in _symbols(gen.db.execute(f"SELECT {_SELECT} FROM (SELECT {SYMBOL_VIEW_COLUMNS} FROM symbols s "
                                           f"JOIN paths f ON f.id = s.file_id WHERE s.symbol_id IN ({marks}))",
                                           [id_blob(i) for i in batch])):
            out[row.symbol_id] = row
    return out


def innermost_symbols(gen: Generation, repo: str, ref: str,
                      points: list[tuple[str, int]]) -> dict[tuple[str, int], Symbol]:
    """For each (path, line), the innermost symbol whose range contains the line.

    The innermost container is the one starting last: a correlated subquery walks the
    (path, line_start) index backwards from the line and stops at the first container, so a
    line near the end of a file with thousands of symbols costs one seek, not a scan.
    Containers starting on that same line are then compared in Python. One statement per
    batch of points."""
    out: dict[tuple[str, int], Symbol] = {}
    pts = sorted(set(points))
    step = SQL_VARS_PER_QUERY // 2
    for i in range(0, len(pts), step):
        batch = pts[i:i + step]
        values = ",".join("(?,?)" for _ in batch)
        sql = (f"WITH q(qpath, qline) AS (VALUES {values}), best AS (SELECT qpath, qline, "
               f'(SELECT s.line_start FROM symbol_relations s WHERE s.repo=? AND s."ref"=? AND s.path=q.qpath '
               f"AND s.line_start<=q.qline AND s.line_end>=q.qline ORDER BY s.line_start DESC LIMIT 1) AS ls "
               f"FROM q) SELECT best.qpath, best.qline, {_S_SELECT} FROM best JOIN symbol_relations s "
               f'ON s.repo=? AND s."ref"=? AND s.path=best.qpath AND s.line_start=best.ls AND s.line_end>=best.qline')
        args: list[Any] = [x for p in batch for x in p] + [repo, ref, repo, ref]
        for r in gen.db.execute(sql, args):
            key = (r[0], r[1])
            row = Symbol(*r[2:])
            best = out.get(key)
            if best is None or _narrower(row, best):
                out[key] = row
    return out


def _narrower(a: Symbol, b: Symbol) -> bool:
    """Innermost first: the shorter span, then the later start, then the id (a total order)."""
    ka = (a.line_end - a.line_start, -a.line_start, a.symbol_id)
    kb = (b.line_end - b.line_start, -b.line_start, b.symbol_id)
    return ka < kb


def siblings(gen: Generation, repo: str, ref: str, row: Symbol, parent: Symbol | None, n: int) -> list[Symbol]:
    """Up to n symbols sharing `row`'s parent (top-level: the file's other top-level symbols),
    nearest by line first. Children lie inside the parent's line range, so two short walks
    of the (path, line_start) index, one each way from the row, find them: no scan of the
    table (parent_symbol_id has no index) and none of a file's thousands of rows."""
    lo, hi = (parent.line_start, parent.line_end) if parent else (0, 1 << 62)
    line = row.line_start
    base = (f'SELECT {_SELECT} FROM symbol_relations WHERE repo=? AND "ref"=? AND path=? '
            "AND parent_symbol_id IS ? AND symbol_id != ? ")
    args = (repo, ref, row.path, row.parent_symbol_id, row.symbol_id)
    before = _symbols(gen.db.execute(base + "AND line_start >= ? AND line_start <= ? ORDER BY line_start DESC "
                                     "LIMIT ?", (*args, lo, line, n)))
    after = _symbols(gen.db.execute(base + "AND line_start > ? AND line_start <= ? ORDER BY line_start LIMIT ?",
                                    (*args, line, hi, n)))
    near = sorted(before + after, key=lambda r: (abs(r.line_start - line), r.line_start, r.symbol_id))
    return sorted(near[:n], key=lambda r: (r.line_start, r.symbol_id))


def all_symbols(gen: Generation, repo: str, ref: str) -> Iterator[Symbol]:
    """Every definition, by path, then line (outer first), name and id; read lazily."""
    cursor = gen.db.execute(
        f'SELECT {_SELECT} FROM symbol_relations WHERE repo=? AND "ref"=? '
        "ORDER BY path, line_start, line_end DESC, name, symbol_id", (repo, ref))
    return (Symbol(*r) for r in cursor)


# ---- a file's outline -----------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class OutlineRow:
    """What a file outline shows of one definition, and where it hangs."""

    symbol_id: str
    parent_symbol_id: str | None
    name: str
    kind: str
    line_start: int
    line_end: int
    signature: str | None
    visibility: str | None
    qualified_name: str
    language: str


_OUTLINE_SELECT = ", ".join(f.name for f in fields(OutlineRow))


def file_language(gen: Generation, repo: str, ref: str, path: str) -> str | None:
    """The language of an indexed file ("" when none was detected), None when `path` is not
    in the manifest."""
    row = gen.db.execute('SELECT language FROM file_manifest WHERE repo=? AND "ref"=? AND path=?',
                         (repo, ref, path)).fetchone()
    return None if row is None else row[0] or ""


def outline_rows(gen: Generation, repo: str, ref: str, path: str, top_only: bool) -> Iterator[OutlineRow]:
    """A file's definitions (top-level ones only with `top_only`) in line order, parents
    before their children; read lazily, so a caller may stop early."""
    cursor = gen.db.execute(
        f'SELECT {_OUTLINE_SELECT} FROM symbol_relations WHERE repo=? AND "ref"=? AND path=? '
        + ("AND parent_symbol_id IS NULL " if top_only else "")
        + "ORDER BY line_start, line_end DESC, name, symbol_id", (repo, ref, path))
    return (OutlineRow(*r) for r in cursor)


def outline_count(gen: Generation, repo: str, ref: str, path: str, top_only: bool) -> int:
    """How many rows `outline_rows` has."""
    return gen.db.execute('SELECT COUNT(*) FROM symbol_relations WHERE repo=? AND "ref"=? AND path=?'
                          + (" AND parent_symbol_id IS NULL" if top_only else ""), (repo, ref, path)).fetchone()[0]


# ---- a file's text: the snippet chunks --------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Chunk:
    """A stored snippet: lines line_start..line_end of a file, their text in `source`."""

    path: str
    line_start: int
    line_end: int
    language: str
    source: str
    chunk_kind: str

    @classmethod
    def of(cls, doc: dict[str, Any]) -> Chunk:
        return cls(doc.get("path", ""), doc["line_start"], doc["line_end"], doc.get("language", ""),
                   doc.get("source", ""), doc.get("chunk_kind", ""))


@dataclass(frozen=True, slots=True)
class FileDoc:
    """A file's document in the files index."""

    path: str
    line_start: int
    line_end: int
    language: str

    @classmethod
    def of(cls, doc: dict[str, Any]) -> FileDoc:
        return cls(doc["path"], doc.get("line_start", 1), doc.get("line_end", 1), doc.get("language", ""))


def chunks(gen: Generation, repo: str, ref: str, path: str, lines: tuple[int, int] | None = None) -> list[Chunk]:
    """The stored chunks of `path`, in line order: all of them, or those covering `lines`
    (first, last).

    A file's chunks are added together and in line order, so they sit on consecutive doc ids
    of one segment: a binary search over their addresses fetches O(log n) chunks, not all of
    a file's hundreds. The answer is checked (the chunks must cover the lines without a
    gap); if the layout ever differs, every chunk of the file is read instead."""
    searcher = gen.searcher("snippets")
    fkey = file_key(repo, ref, path)
    n = searcher.doc_freq("file_key", fkey)
    if n == 0:
        return []
    query = tantivy.Query.term_query(gen.tantivy["snippets"].schema, "file_key", fkey, index_option="basic")
    addrs = sorted((a for _, a in searcher.search(query, n, count=False).hits), key=lambda a: (a.segment_ord, a.doc))
    cache: dict[int, Chunk] = {}

    def chunk(i: int) -> Chunk:
        if i not in cache:
            cache[i] = Chunk.of(read_doc(searcher, addrs[i]))
        return cache[i]

    if lines is not None:
        start, end = lines
        lo, hi = 0, len(addrs) - 1
        while lo < hi:  # last chunk starting at or before `start`
            mid = (lo + hi + 1) // 2
            lo, hi = (mid, hi) if chunk(mid).line_start <= start else (lo, mid - 1)
        out = [chunk(lo)] if addrs else []
        while out and out[-1].line_end < end and lo + len(out) < len(addrs):
            out.append(chunk(lo + len(out)))
        if _covers(out, start, end, at_file_end=lo + len(out) == len(addrs)):
            return out
    everything = sorted((chunk(i) for i in range(len(addrs))), key=lambda c: c.line_start)
    if lines is None:
        return everything
    return [c for c in everything if c.line_end >= lines[0] and c.line_start <= lines[1]]


def _covers(chunks: list[Chunk], start: int, end: int, at_file_end: bool) -> bool:
    """Contiguous chunks from at or before `start` through `end` (or through the file's end)."""
    if not chunks or chunks[0].line_start > start:
        return False
    if any(b.line_start != a.line_end + 1 for a, b in zip(chunks, chunks[1:])):
        return False
    return chunks[-1].line_end >= end or at_file_end


# ---- references ---------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class EdgeSite:
    """Where an edge was written: its file and line, its type, the definition it is written
    in (hex id, None at module level), how it was resolved (None: pending) and its receiver
    as written (`super()` in `super().save()`; None: a bare name, or not recorded)."""

    path: str
    line: int
    edge_type: str
    from_symbol_id: str | None
    confidence: str | None
    receiver: str | None = None


_CONFIDENCE_LABELS = {code: label for label, code in CONFIDENCE_CODES.items()}


def edges_to(gen: Generation, ids: list[str], edge_type: str | None = None) -> list[EdgeSite]:
    """The edges resolved to any of the definitions `ids` (of one type, when given)."""
    return [site for _, site in edges_to_rows(gen, ids, edge_type)]


_SITE_SQL = (f"SELECT e.rowid, f.path, e.source_line, {edge_type_sql('e')}, {id_sql('e.from_symbol_id')}, "
             "e.confidence, e.receiver FROM symbol_edges e JOIN paths f ON f.id = e.file_id")


def edges_to_rows(gen: Generation, ids: list[str], edge_type: str | None = None) -> list[tuple[int, EdgeSite]]:
    """`edges_to`, each site with its row's rowid (what an overlay's fixes of base rows name: `basefix`)."""
    sql = f"{_SITE_SQL} WHERE e.to_symbol_id IN ({','.join('?' * len(ids))})"
    args: list[Any] = [id_blob(i) for i in ids]
    if edge_type is not None:
        sql += " AND e.edge_type=?"
        args.append(EDGE_TYPE_CODES[edge_type])
    return [(r, EdgeSite(p, ln, t, f, _CONFIDENCE_LABELS.get(c), v)) for r, p, ln, t, f, c, v in gen.db.execute(sql, args)]


def _like_escape(s: str) -> str:
    return s.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _unresolved_where(name: str, edge_type: str | None, modules: bool = True) -> tuple[str, list[Any]]:
    """Edges naming `name` (as written, or as the last segment of `a.name` / `a::name`) that
    no definition was tied to, restricted to one edge type when asked, without those the
    resolver tied to a module of the repository unless `modules`. The `to_tail` term is
    the same condition in indexed and case-sensitive form (LIKE folds ASCII case): it keeps
    the match exact and off a full scan of the edge table (the se_tail index)."""
    sql = (f"{RETRY_SQL} AND e.to_symbol_id IS NULL AND {tail_sql('e')} = ? "
           "AND (e.to_name = ? OR e.to_name LIKE ? ESCAPE '\\' OR e.to_name LIKE ? ESCAPE '\\')")
    args: list[Any] = [name, name, "%." + _like_escape(name), "%::" + _like_escape(name)]
    if edge_type is not None:
        sql += " AND e.edge_type = ?"
        args.append(EDGE_TYPE_CODES[edge_type])
    if not modules:
        sql += " AND (e.confidence IS NULL OR e.confidence != ?)"
        args.append(CONFIDENCE_CODES["module"])
    return sql, args


def unresolved_count(gen: Generation, name: str, edge_type: str | None = None, modules: bool = True) -> int:
    """Spec 04's count of the edges naming `name` that no definition was tied to (`modules`:
    `_unresolved_where`)."""
    where, args = _unresolved_where(name, edge_type, modules)
    return int(gen.db.execute(f"SELECT COUNT(*) FROM symbol_edges e WHERE {where}", args).fetchone()[0])


def unresolved_edges(gen: Generation, name: str, edge_type: str | None = None,
                     modules: bool = True) -> Iterator[EdgeSite]:
    """The edges `unresolved_count` counts, in (path, line) order; read lazily."""
    return (site for _, site in unresolved_rows(gen, name, edge_type, modules))


def unresolved_rows(gen: Generation, name: str, edge_type: str | None = None,
                    modules: bool = True) -> Iterator[tuple[int, EdgeSite]]:
    """`unresolved_edges`, each site with its row's rowid."""
    where, args = _unresolved_where(name, edge_type, modules)
    cursor = gen.db.execute(f"{_SITE_SQL} WHERE {where} ORDER BY f.path, e.source_line", args)
    return ((r, EdgeSite(p, ln, t, f, _CONFIDENCE_LABELS.get(c), v)) for r, p, ln, t, f, c, v in cursor)


# ---- health and warm-up -----------------------------------------------------------------------

def file_warnings(gen: Generation, repo: str, ref: str) -> list[str]:
    """The warnings of the indexed files (their manifest rows), in path order."""
    out: list[str] = []
    for (w,) in gen.db.execute('SELECT warnings FROM file_manifest WHERE repo=? AND "ref"=? '
                               "AND warnings IS NOT NULL ORDER BY path", (repo, ref)):
        out.extend(json.loads(w))
    return out


def probe_tables(gen: Generation) -> None:
    """Read one row of the symbols: raises sqlite3.DatabaseError when index.db is unreadable."""
    gen.db.execute("SELECT 1 FROM symbol_relations LIMIT 1").fetchall()


def integrity_problem(gen: Generation) -> str | None:
    """SQLite's integrity_check of index.db (reads the whole file): None when it is sound."""
    res = gen.db.execute("PRAGMA integrity_check").fetchone()[0]
    return None if res == "ok" else res


def warm_tables(gen: Generation) -> None:
    """Count the symbols and the manifest: their pages are then in the OS cache."""
    gen.db.execute("SELECT COUNT(*) FROM symbol_relations").fetchone()
    gen.db.execute("SELECT COUNT(*) FROM file_manifest").fetchone()


PROBE_TERM = "main"  # any term: the lookup reads each field's dictionary whether or not it is there


def probe_index(gen: Generation, name: str, thorough: bool = False) -> None:
    """Index `name` answers a term query on every indexed field (it reads each term
    dictionary, which opening does not: a scribbled `.term` file passed opening and counting
    while every search failed); `thorough` also reads every stored document and every term's
    postings of every field, which finds damaged store blocks, dictionaries and postings that
    one query does not touch. Raises what Tantivy raises."""
    searcher = gen.searcher(name)
    _probe(gen.tantivy[name].schema, searcher, name)
    if thorough and searcher.num_docs:
        for _, addr in searcher.search(tantivy.Query.all_query(), limit=searcher.num_docs).hits:
            searcher.doc(addr)
        for field in PROBED_FIELDS[name]:  # a filter: every posting list read
            searcher.terms_with_prefix(field, "", filter_query=tantivy.Query.all_query())


def _probe(schema: tantivy.Schema, searcher: tantivy.Searcher, name: str) -> None:
    """One term query per field, and the first document's stored fields."""
    for field in PROBED_FIELDS[name]:
        searcher.doc_freq(field, PROBE_TERM)
        searcher.search(tantivy.Query.term_query(schema, field, PROBE_TERM), 1)
    hits = searcher.search(tantivy.Query.all_query(), 1).hits
    if hits:
        searcher.doc(hits[0][1])
