"""Running one channel of a plan on Tantivy, and the SQLite lookups the query side needs.

Queries are built programmatically (term, phrase, boost, boolean), never parsed from a
string, so no user input can be misread as query syntax. Filters (repo, ref, language,
kinds) are wrapped in zero-score queries: they restrict, they never add to BM25.
"""
from __future__ import annotations

import logging
from typing import Any, Iterable

import tantivy

from ..model import file_key
from ..store import SYMBOL_VIEW_COLUMNS, Generation, damaged, id_blob, read_doc
from .planner import Channel, Clause

log = logging.getLogger(__name__)

Q = tantivy.Query
O = tantivy.Occur

SYMBOL_COLUMNS = ("symbol_id", "symbol_stable_id", "name", "qualified_name", "kind", "language", "path",
                  "line_start", "line_end", "signature", "visibility", "parent_symbol_id")
_SELECT = ", ".join(SYMBOL_COLUMNS)
# A term found in more than this share of a field's documents (and in at least
# COMMON_TERM_MIN_DOCS of them) is dropped at run time (`go` in the paths of a Go tree, `func`
# in its signatures): its IDF is near zero, so it barely moves the ranking, yet every one of
# those documents would have to be scored. Small indices are never pruned: there it is cheap.
MAX_TERM_DOC_SHARE = 0.15
COMMON_TERM_MIN_DOCS = 2000
SQL_VARS_PER_QUERY = 300  # well under SQLite's bound-variable limit, per IN/VALUES batch


def _filter(schema: tantivy.Schema, field: str, values: Iterable[str]) -> tantivy.Query:
    values = list(values)
    if len(values) == 1:
        q = Q.term_query(schema, field, values[0], index_option="basic")
    else:
        q = Q.boolean_query([(O.Should, Q.term_query(schema, field, v, index_option="basic")) for v in values])
    return Q.const_score_query(q, 0.0)


def _clause_query(schema: tantivy.Schema, c: Clause) -> tantivy.Query | None:
    if c.phrase:
        if len(c.terms) < 2:
            return None
        q = Q.phrase_query(schema, c.field, list(c.terms))
    elif len(c.terms) == 1:
        q = Q.term_query(schema, c.field, c.terms[0], index_option="freq")
    else:
        q = Q.boolean_query([(O.Should, Q.term_query(schema, c.field, t, index_option="freq")) for t in c.terms])
    return Q.boost_query(q, c.boost)


def prune_common_terms(searcher: tantivy.Searcher, clauses: tuple[Clause, ...]) -> tuple[Clause, ...]:
    """Drop terms too common to rank (MAX_TERM_DOC_SHARE); phrases keep every word. When
    every term would go, the channel keeps its rarest one rather than nothing."""
    limit = max(COMMON_TERM_MIN_DOCS, MAX_TERM_DOC_SHARE * searcher.num_docs)
    out: list[Clause] = []
    rarest: tuple[int, int, str] | None = None
    for ci, c in enumerate(clauses):
        if c.phrase:
            out.append(c)
            continue
        kept = []
        for t in c.terms:
            df = searcher.doc_freq(c.field, t)
            if df <= limit:
                kept.append(t)
            elif rarest is None or (df, ci, t) < rarest:
                rarest = (df, ci, t)
        if kept:
            out.append(Clause(c.field, tuple(kept), c.boost, c.phrase))
    if not out and rarest is not None:
        c = clauses[rarest[1]]
        out.append(Clause(c.field, (rarest[2],), c.boost))
    return tuple(out)


def split_phrases(searcher: tantivy.Searcher, clauses: tuple[Clause, ...]) -> tuple[Clause, ...]:
    """Phrases cut at the words their field never holds: in a pasted message those are the
    values a run filled in (`orders_2024`, a host name), and a phrase through them matches
    nothing. Each run of two or more known words stays a phrase; single words are left to
    the plan's bag-of-words clauses."""
    if not any(c.phrase for c in clauses):
        return clauses
    out: list[Clause] = []
    for c in clauses:
        if not c.phrase:
            out.append(c)
            continue
        runs: list[list[str]] = [[]]
        for t in c.terms:
            if searcher.doc_freq(c.field, t) > 0:
                runs[-1].append(t)
            elif runs[-1]:
                runs.append([])
        out += [Clause(c.field, tuple(r), c.boost, True) for r in runs if len(r) >= 2]
    return tuple(out)


def channel_query(schema: tantivy.Schema, channel: Channel, repo: str, ref: str,
                  language: str | None, kinds: tuple[str, ...],
                  clauses: tuple[Clause, ...] | None = None) -> tantivy.Query | None:
    clauses = channel.clauses if clauses is None else clauses
    scored = [q for q in (_clause_query(schema, c) for c in clauses) if q is not None]
    if not scored:
        return None
    must = [_filter(schema, "repo", [repo]), _filter(schema, "ref", [ref])]
    if language:
        must.append(_filter(schema, "language", [language]))
    if kinds and channel.index == "symbols":
        must.append(_filter(schema, "kind", kinds))
    text = scored[0] if len(scored) == 1 else Q.boolean_query([(O.Should, q) for q in scored])
    return Q.boolean_query([(O.Must, q) for q in must] + [(O.Must, text)])


def run_channel(gen: Generation, channel: Channel, repo: str, ref: str, language: str | None,
                kinds: tuple[str, ...]) -> tuple[list[tuple[float, dict[str, Any]]], tuple[Clause, ...]]:
    """(bm25, stored fields as scalars) per hit, best first, ties in a fixed order; and the
    clauses actually searched (after pruning common terms)."""
    index = gen.tantivy[channel.index]
    searcher = gen.searcher(channel.index)
    clauses = prune_common_terms(searcher, split_phrases(searcher, channel.clauses))
    query = channel_query(index.schema, channel, repo, ref, language, kinds, clauses)
    if query is None:
        return [], clauses
    try:
        result = searcher.search(query, channel.fetch, count=False)
    except ValueError as e:  # our queries are well-formed: a failure here is damage
        raise damaged(f"searching the {channel.index} index", e) from e
    out = [(float(score), read_doc(searcher, addr)) for score, addr in result.hits]
    if channel.index == "symbols":
        out = _with_rows(gen, out)
    # Tantivy's order among equal scores follows segment layout; make it a function of content.
    out.sort(key=lambda h: (-h[0], h[1].get("path", ""), h[1].get("line_start", 0), h[1].get("symbol_id", "")))
    return out, clauses


def _with_rows(gen: Generation, hits: list[tuple[float, dict[str, Any]]]) -> list[tuple[float, dict[str, Any]]]:
    """Symbol hits with their rows: a symbol document stores only its id (see
    store.STORED_ONLY). An id with no row is a document whose file a running job is
    rewriting (Tantivy commits before SQLite does): it is left out, as it will be once the
    job's transaction lands."""
    rows = symbols_by_id(gen, [d.get("symbol_id", "") for _, d in hits])
    return [(score, rows[d["symbol_id"]]) for score, d in hits if d.get("symbol_id") in rows]


# ---- SQLite ---------------------------------------------------------------------------------

def _rows(cursor) -> list[dict[str, Any]]:
    return [dict(zip(SYMBOL_COLUMNS, r)) for r in cursor]


def symbols_by_name(gen: Generation, repo: str, ref: str, name_lower: str) -> list[dict[str, Any]]:
    return _rows(gen.db.execute(
        f'SELECT {_SELECT} FROM symbol_relations WHERE repo=? AND "ref"=? AND name_lower=?',
        (repo, ref, name_lower)))


def symbols_by_id(gen: Generation, ids: list[str]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    ids = sorted(set(i for i in ids if i))
    for i in range(0, len(ids), SQL_VARS_PER_QUERY):
        batch = ids[i:i + SQL_VARS_PER_QUERY]
        marks = ",".join("?" * len(batch))
        for row in _rows(gen.db.execute(f"SELECT {_SELECT} FROM (SELECT {SYMBOL_VIEW_COLUMNS} FROM symbols s "
                                        f"JOIN paths f ON f.id = s.file_id WHERE s.symbol_id IN ({marks}))",
                                        [id_blob(i) for i in batch])):
            out[row["symbol_id"]] = row
    return out


def innermost_symbols(gen: Generation, repo: str, ref: str,
                      points: list[tuple[str, int]]) -> dict[tuple[str, int], dict[str, Any]]:
    """For each (path, line), the innermost symbol whose range contains the line.

    The innermost container is the one starting last: a correlated subquery walks the
    (repo, ref, path, line_start) index backwards from the line and stops at the first
    container, so a line near the end of a file with thousands of symbols costs one seek,
    not a scan. Containers starting on that same line are then compared in Python.
    One statement per batch of points."""
    out: dict[tuple[str, int], dict[str, Any]] = {}
    pts = sorted(set(points))
    step = SQL_VARS_PER_QUERY // 2
    cols = ", ".join("s." + c for c in SYMBOL_COLUMNS)
    for i in range(0, len(pts), step):
        batch = pts[i:i + step]
        values = ",".join("(?,?)" for _ in batch)
        sql = (f"WITH q(qpath, qline) AS (VALUES {values}), best AS (SELECT qpath, qline, "
               f'(SELECT s.line_start FROM symbol_relations s WHERE s.repo=? AND s."ref"=? AND s.path=q.qpath '
               f"AND s.line_start<=q.qline AND s.line_end>=q.qline ORDER BY s.line_start DESC LIMIT 1) AS ls "
               f"FROM q) SELECT best.qpath, best.qline, {cols} FROM best JOIN symbol_relations s "
               f'ON s.repo=? AND s."ref"=? AND s.path=best.qpath AND s.line_start=best.ls AND s.line_end>=best.qline')
        args: list[Any] = [x for p in batch for x in p] + [repo, ref, repo, ref]
        for r in gen.db.execute(sql, args):
            key = (r[0], r[1])
            row = dict(zip(SYMBOL_COLUMNS, r[2:]))
            best = out.get(key)
            if best is None or _narrower(row, best):
                out[key] = row
    return out


def _narrower(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Innermost first: the shorter span, then the later start, then the id (a total order)."""
    ka = (a["line_end"] - a["line_start"], -a["line_start"], a["symbol_id"])
    kb = (b["line_end"] - b["line_start"], -b["line_start"], b["symbol_id"])
    return ka < kb


def siblings(gen: Generation, repo: str, ref: str, row: dict[str, Any], parent: dict[str, Any] | None,
             n: int) -> list[dict[str, Any]]:
    """Up to n symbols sharing `row`'s parent (top-level: the file's other top-level symbols),
    nearest by line first. Children lie inside the parent's line range, so two short walks
    of the (repo, ref, path, line_start) index, one each way from the row, find them: no
    scan of the table (parent_symbol_id has no index) and none of a file's thousands of rows."""
    lo, hi = (parent["line_start"], parent["line_end"]) if parent else (0, 1 << 62)
    line, pid = row["line_start"], row.get("parent_symbol_id")
    base = (f'SELECT {_SELECT} FROM symbol_relations WHERE repo=? AND "ref"=? AND path=? '
            "AND parent_symbol_id IS ? AND symbol_id != ? ")
    args = (repo, ref, row["path"], pid, row["symbol_id"])
    before = _rows(gen.db.execute(base + "AND line_start >= ? AND line_start <= ? ORDER BY line_start DESC LIMIT ?",
                                  (*args, lo, line, n)))
    after = _rows(gen.db.execute(base + "AND line_start > ? AND line_start <= ? ORDER BY line_start LIMIT ?",
                                 (*args, line, hi, n)))
    near = sorted(before + after, key=lambda r: (abs(r["line_start"] - line), r["line_start"], r["symbol_id"]))
    return sorted(near[:n], key=lambda r: (r["line_start"], r["symbol_id"]))


def chunks_covering(gen: Generation, repo: str, ref: str, path: str, start: int, end: int) -> list[dict[str, Any]]:
    """The stored snippet chunks of `path` that cover lines [start, end], in line order.

    A file's chunks are added together and in line order, so they sit on consecutive doc ids
    of one segment: a binary search over their addresses fetches O(log n) chunks, not all of
    a file's hundreds. The answer is checked (the chunks must cover the lines without a
    gap); if the layout ever differs, every chunk of the file is read instead."""
    index, searcher = gen.tantivy["snippets"], gen.searcher("snippets")
    fkey = file_key(repo, ref, path)
    n = searcher.doc_freq("file_key", fkey)
    if n == 0:
        return []
    query = Q.term_query(index.schema, "file_key", fkey, index_option="basic")
    addrs = sorted((a for _, a in searcher.search(query, n, count=False).hits), key=lambda a: (a.segment_ord, a.doc))
    cache: dict[int, dict[str, Any]] = {}

    def chunk(i: int) -> dict[str, Any]:
        if i not in cache:
            cache[i] = read_doc(searcher, addrs[i])
        return cache[i]

    lo, hi = 0, len(addrs) - 1
    while lo < hi:  # last chunk starting at or before `start`
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if chunk(mid)["line_start"] <= start else (lo, mid - 1)
    out = [chunk(lo)] if addrs else []
    while out and out[-1]["line_end"] < end and lo + len(out) < len(addrs):
        out.append(chunk(lo + len(out)))
    if _covers(out, start, end, at_file_end=lo + len(out) == len(addrs)):
        return out
    everything = sorted((chunk(i) for i in range(len(addrs))), key=lambda c: c["line_start"])
    return [c for c in everything if c["line_end"] >= start and c["line_start"] <= end]


def _covers(chunks: list[dict[str, Any]], start: int, end: int, at_file_end: bool) -> bool:
    """Contiguous chunks from at or before `start` through `end` (or through the file's end)."""
    if not chunks or chunks[0]["line_start"] > start:
        return False
    if any(b["line_start"] != a["line_end"] + 1 for a, b in zip(chunks, chunks[1:])):
        return False
    return chunks[-1]["line_end"] >= end or at_file_end
