"""Running one channel of a plan on Tantivy, and the SQLite lookups the query side needs.

Queries are built programmatically (term, phrase, boost, boolean), never parsed from a
string, so no user input can be misread as query syntax. Filters (repo, ref, language,
kinds) are wrapped in zero-score queries: they restrict, they never add to BM25.
"""
from __future__ import annotations

import logging
from typing import Any, Iterable

import tantivy

from ..errors import CruxeError
from ..store import Generation
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
CHUNK_LOOKUP_MAX = 5000  # chunks read for body previews: a 1 MiB file has a few hundred


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
    clauses = prune_common_terms(searcher, channel.clauses)
    query = channel_query(index.schema, channel, repo, ref, language, kinds, clauses)
    if query is None:
        return [], clauses
    try:
        result = searcher.search(query, channel.fetch, count=False)
    except ValueError as e:  # tantivy reports its failures as ValueError
        raise CruxeError("internal_error", f"search failed on the {channel.index} index: {e}") from e
    out = []
    for score, addr in result.hits:
        doc = {k: v[0] for k, v in searcher.doc(addr).to_dict().items() if v}
        out.append((float(score), doc))
    # Tantivy's order among equal scores follows segment layout; make it a function of content.
    out.sort(key=lambda h: (-h[0], h[1].get("path", ""), h[1].get("line_start", 0), h[1].get("symbol_id", "")))
    return out, clauses


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
        for row in _rows(gen.db.execute(f"SELECT {_SELECT} FROM symbol_relations WHERE symbol_id IN ({marks})",
                                        batch)):
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


def siblings(gen: Generation, repo: str, ref: str, rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Symbols sharing each row's parent (top-level rows: the other top-level symbols of the file)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        if row.get("parent_symbol_id"):
            cur = gen.db.execute(f"SELECT {_SELECT} FROM symbol_relations WHERE parent_symbol_id=? "
                                 f'AND repo=? AND "ref"=?', (row["parent_symbol_id"], repo, ref))
        else:
            cur = gen.db.execute(f'SELECT {_SELECT} FROM symbol_relations WHERE repo=? AND "ref"=? AND path=? '
                                 "AND parent_symbol_id IS NULL", (repo, ref, row["path"]))
        out[row["symbol_id"]] = [r for r in _rows(cur) if r["symbol_id"] != row["symbol_id"]]
    return out


def file_chunks(gen: Generation, repo: str, ref: str, paths: list[str]) -> dict[str, list[dict[str, Any]]]:
    """Stored snippet chunks (line range + content) of each path, in line order."""
    from ..model import file_key
    if not paths:
        return {}
    index = gen.tantivy["snippets"]
    schema = index.schema
    keys = sorted(set(paths))
    query = Q.boolean_query([(O.Should, Q.term_query(schema, "file_key", file_key(repo, ref, p), index_option="basic"))
                             for p in keys])
    searcher = gen.searcher("snippets")
    limit = min(max(1, searcher.num_docs), CHUNK_LOOKUP_MAX)
    out: dict[str, list[dict[str, Any]]] = {p: [] for p in keys}
    for _, addr in searcher.search(query, limit, count=False).hits:
        d = {k: v[0] for k, v in searcher.doc(addr).to_dict().items() if v}
        out.setdefault(d["path"], []).append(d)
    for chunks in out.values():
        chunks.sort(key=lambda d: d["line_start"])
    return out
