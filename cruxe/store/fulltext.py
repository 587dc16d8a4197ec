"""Full-text queries on the Tantivy indices: one channel of a query plan, run.

Queries are built programmatically (term, phrase, boost, boolean), never parsed from a
string, so no user input can be misread as query syntax. Filters (repo, ref, language,
kinds) are wrapped in zero-score queries: they restrict, they never add to BM25.

A clause is anything with `field`, `terms`, `boost` and `phrase` (the planner's `Clause`, a
frozen dataclass): the clauses searched are the given ones, pruned with `dataclasses.replace`.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Iterable, Sequence, Union

import tantivy

from .layout import Generation
from .reads import Chunk, FileDoc, Symbol, damaged, read_doc, symbols_by_id
from .schema import INDEX_NAMES, WARM_FIELDS

Q = tantivy.Query
O = tantivy.Occur

# A term found in more than this share of a field's documents (and in at least
# COMMON_TERM_MIN_DOCS of them) is dropped at run time (`go` in the paths of a Go tree, `func`
# in its signatures): its IDF is near zero, so it barely moves the ranking, yet every one of
# those documents would have to be scored. Small indices are never pruned: there it is cheap.
MAX_TERM_DOC_SHARE = 0.15
COMMON_TERM_MIN_DOCS = 2000

Found = Union[Symbol, Chunk, FileDoc]  # what a hit of the symbols, snippets or files index is


def _filter(schema: tantivy.Schema, field: str, values: Iterable[str]) -> tantivy.Query:
    values = list(values)
    if len(values) == 1:
        q = Q.term_query(schema, field, values[0], index_option="basic")
    else:
        q = Q.boolean_query([(O.Should, Q.term_query(schema, field, v, index_option="basic")) for v in values])
    return Q.const_score_query(q, 0.0)


def _clause_query(schema: tantivy.Schema, c: Any) -> tantivy.Query | None:
    if c.phrase:
        if len(c.terms) < 2:
            return None
        q = Q.phrase_query(schema, c.field, list(c.terms))
    elif len(c.terms) == 1:
        q = Q.term_query(schema, c.field, c.terms[0], index_option="freq")
    else:
        q = Q.boolean_query([(O.Should, Q.term_query(schema, c.field, t, index_option="freq")) for t in c.terms])
    return Q.boost_query(q, c.boost)


def prune_common_terms(searcher: tantivy.Searcher, clauses: tuple[Any, ...]) -> tuple[Any, ...]:
    """Drop terms too common to rank (MAX_TERM_DOC_SHARE); phrases keep every word. When
    every term would go, the channel keeps its rarest one rather than nothing."""
    limit = max(COMMON_TERM_MIN_DOCS, MAX_TERM_DOC_SHARE * searcher.num_docs)
    out: list[Any] = []
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
            out.append(replace(c, terms=tuple(kept)))
    if not out and rarest is not None:
        c = clauses[rarest[1]]
        out.append(replace(c, terms=(rarest[2],), phrase=False))
    return tuple(out)


def split_phrases(searcher: tantivy.Searcher, clauses: tuple[Any, ...]) -> tuple[Any, ...]:
    """Phrases cut at the words their field never holds: in a pasted message those are the
    values a run filled in (`orders_2024`, a host name), and a phrase through them matches
    nothing. Each run of two or more known words stays a phrase; single words are left to
    the plan's bag-of-words clauses."""
    if not any(c.phrase for c in clauses):
        return clauses
    out: list[Any] = []
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
        out += [replace(c, terms=tuple(r), phrase=True) for r in runs if len(r) >= 2]
    return tuple(out)


def channel_query(schema: tantivy.Schema, index: str, clauses: Sequence[Any], repo: str, ref: str,
                  language: str | None, kinds: tuple[str, ...],
                  exclude: Iterable[str] = ()) -> tantivy.Query | None:
    """`exclude`: paths whose documents are never hits (a base's, where an overlay shadows them)."""
    scored = [q for q in (_clause_query(schema, c) for c in clauses) if q is not None]
    if not scored:
        return None
    must = [_filter(schema, "repo", [repo]), _filter(schema, "ref", [ref])]
    if language:
        must.append(_filter(schema, "language", [language]))
    if kinds and index == "symbols":
        must.append(_filter(schema, "kind", kinds))
    text = scored[0] if len(scored) == 1 else Q.boolean_query([(O.Should, q) for q in scored])
    exclude = sorted(exclude)
    cut = [(O.MustNot, Q.term_set_query(schema, "path", exclude))] if exclude else []
    return Q.boolean_query([(O.Must, q) for q in must] + [(O.Must, text)] + cut)


def search_index(gen: Generation, index: str, clauses: tuple[Any, ...], fetch: int, repo: str, ref: str,
                 language: str | None, kinds: tuple[str, ...],
                 exclude: Iterable[str] = ()) -> tuple[list[tuple[float, Found]], tuple[Any, ...]]:
    """(bm25, what was found) per hit of one index, best first, ties in a fixed order; and
    the clauses actually searched (after pruning common terms). A symbols hit is its row
    (`Symbol`), a snippets hit its `Chunk`, a files hit its `FileDoc`. An overlay's search is
    `layers.search_index`, which runs this on each layer."""
    searcher = gen.searcher(index)
    clauses = prune_common_terms(searcher, split_phrases(searcher, clauses))
    query = channel_query(gen.tantivy[index].schema, index, clauses, repo, ref, language, kinds, exclude)
    if query is None:
        return [], clauses
    try:
        found = _top_hits(searcher, query, fetch)
    except ValueError as e:  # our queries are well-formed: a failure here is damage
        raise damaged(f"searching the {index} index", e) from e
    docs = [(float(score), read_doc(searcher, addr)) for score, addr in found]
    out: list[tuple[float, Found]]
    if index == "symbols":
        out = _with_rows(gen, docs)
    elif index == "snippets":
        out = [(score, Chunk.of(d)) for score, d in docs]
    else:
        out = [(score, FileDoc.of(d)) for score, d in docs]
    # Tantivy's order among equal scores follows segment layout; make it a function of content.
    out.sort(key=content_order)
    return out[:fetch], clauses


def content_order(hit: tuple[float, Found]) -> tuple:
    """Best score first, then by what the hit is, never by where its repository lies (a symbol's
    id hashes the repository's id): two symbols on one line (`a, b = 1, 2`) by name and kind."""
    score, found = hit
    return (-score, found.path, found.line_start, getattr(found, "name", ""), getattr(found, "kind", ""),
            getattr(found, "symbol_id", ""))


# How far past `fetch` a tie at the cut-off is followed (see `_top_hits`).
TIE_FETCH_FACTOR = 8


def _top_hits(searcher: tantivy.Searcher, query: tantivy.Query, fetch: int) -> list[tuple[float, Any]]:
    """The best `fetch` hits and every hit tied with the last of them (up to `TIE_FETCH_FACTOR`
    times `fetch`). Among equal scores Tantivy keeps the lowest document addresses, and the
    address order follows how the indexer's workers happened to write segments (and symbol
    ids, which hash the repository's id): the same files indexed elsewhere fetched another
    subset of a tie. With the whole tie fetched, the caller's content order picks. One search
    of the widest size: collecting more addresses costs Tantivy less than searching again, and
    only the hits kept have their stored documents read (docs/BENCHMARKS.md, "Search latency")."""
    if fetch <= 0:
        return []
    hits = searcher.search(query, fetch * TIE_FETCH_FACTOR, count=False).hits
    if len(hits) <= fetch:
        return hits
    last = hits[fetch - 1][0]
    return [h for h in hits if h[0] >= last]


def _with_rows(gen: Generation, hits: list[tuple[float, dict[str, Any]]]) -> list[tuple[float, Found]]:
    """Symbol hits with their rows: a symbol document stores only its id (see
    schema.STORED_ONLY). An id with no row is a document whose file a running job is
    rewriting (Tantivy commits before SQLite does): it is left out, as it will be once the
    job's transaction lands."""
    rows = symbols_by_id(gen, [d.get("symbol_id", "") for _, d in hits])
    return [(score, rows[d["symbol_id"]]) for score, d in hits if d.get("symbol_id") in rows]


def warm_indices(gen: Generation, terms: Iterable[str]) -> None:
    """Run a few term queries on every index, so that the first real query finds the term
    dictionaries and postings it needs already read."""
    terms = tuple(terms)
    for name in INDEX_NAMES:
        searcher = gen.searcher(name)
        schema = gen.tantivy[name].schema
        for term in terms:
            searcher.search(Q.term_query(schema, WARM_FIELDS[name], term), 10)
