"""The named reads of `reads` and `fulltext`, for a ref that may be stored as an overlay.

Each read takes a `Generation` (a whole index: the plain read runs) or an `Overlay` (the files
that differ from the base, over the base ref's generation): then the overlay answers for every
path it shadows (changed, added, or deleted on the ref: a tombstone) and the base for the rest.
A read of one file goes to the one layer that holds it; a read across files runs on both and
merges, the base's rows of shadowed paths dropped. Query code calls these through `store` and
never needs to know which kind of index it reads.

References across layers: an overlay's edges were resolved over its base (`refs.graph.
LayeredGraph`), so an overlay file's use of a base definition points at the base's id and is
found by the plain read of the overlay's edges. A definition in the overlay is found from base
files through its counterpart in the base (same path, qualified name and kind: the definition
those base files' edges were resolved to), and from overlay files directly. A base edge whose
target's file the ref changed and whose target is gone on the ref is never listed (no
definition of the ref leads to it).

Withheld files (`Withheld`: files a ref's last job read with edits its commit lacks) are left
out of every read across files, like a tombstone without a replacement.
"""
from __future__ import annotations

import heapq
import math
from typing import Any, Iterable, Iterator

from . import basefix, fulltext, reads
from .layout import Generation, Overlay, Withheld
from .reads import Chunk, EdgeSite, OutlineRow, Symbol

View = Generation | Overlay | Withheld


def _own(gen: View) -> Generation | Overlay:
    """The index itself, without the files a `Withheld` leaves out of reads across files."""
    return gen.inner if isinstance(gen, Withheld) else gen


def _kept(gen: Withheld, items: Iterable[Any]) -> list[Any]:
    """The items (anything with a `path`) of files the view does not withhold."""
    return [x for x in items if x.path not in gen.withheld]


def _route(gen: View, ref: str, path: str) -> tuple[Generation, str]:
    """The generation, and the ref its rows carry, that answers for one file."""
    gen = _own(gen)
    if isinstance(gen, Overlay):
        return (gen.top, ref) if gen.layer_of(path) == "overlay" else (gen.base, gen.base_ref)
    return gen, ref


def _visible(gen: Overlay, items: Iterable[Any]) -> Iterator[Any]:
    """The base's items (anything with a `path`) whose path the overlay does not shadow."""
    return (x for x in items if x.path not in gen.shadow)


# ---- one file ----------------------------------------------------------------------------------

def file_language(gen: View, repo: str, ref: str, path: str) -> str | None:
    g, r = _route(gen, ref, path)
    return reads.file_language(g, repo, r, path)


def outline_rows(gen: View, repo: str, ref: str, path: str, top_only: bool) -> Iterator[OutlineRow]:
    g, r = _route(gen, ref, path)
    return reads.outline_rows(g, repo, r, path, top_only)


def outline_count(gen: View, repo: str, ref: str, path: str, top_only: bool) -> int:
    g, r = _route(gen, ref, path)
    return reads.outline_count(g, repo, r, path, top_only)


def chunks(gen: View, repo: str, ref: str, path: str, lines: tuple[int, int] | None = None) -> list[Chunk]:
    g, r = _route(gen, ref, path)
    return reads.chunks(g, repo, r, path, lines)


def siblings(gen: View, repo: str, ref: str, row: Symbol, parent: Symbol | None, n: int) -> list[Symbol]:
    g, r = _route(gen, ref, row.path)
    return reads.siblings(g, repo, r, row, parent, n)


def innermost_symbols(gen: View, repo: str, ref: str,
                      points: list[tuple[str, int]]) -> dict[tuple[str, int], Symbol]:
    gen = _own(gen)
    if not isinstance(gen, Overlay):
        return reads.innermost_symbols(gen, repo, ref, points)
    mine = [p for p in points if gen.layer_of(p[0]) == "overlay"]
    rest = [p for p in points if gen.layer_of(p[0]) == "base"]
    out = reads.innermost_symbols(gen.base, repo, gen.base_ref, rest) if rest else {}
    if mine:
        out.update(reads.innermost_symbols(gen.top, repo, ref, mine))
    return out


# ---- across files ------------------------------------------------------------------------------

def symbols_named(gen: View, name_lower: str) -> list[Symbol]:
    if isinstance(gen, Withheld):
        return _kept(gen, symbols_named(gen.inner, name_lower))
    if not isinstance(gen, Overlay):
        return reads.symbols_named(gen, name_lower)
    rows = reads.symbols_named(gen.top, name_lower) + list(_visible(gen, reads.symbols_named(gen.base, name_lower)))
    return sorted(rows, key=lambda s: (s.path, s.line_start, s.symbol_id))


def symbols_by_id(gen: View, ids: list[str]) -> dict[str, Symbol]:
    if isinstance(gen, Withheld):
        return {i: s for i, s in symbols_by_id(gen.inner, ids).items() if s.path not in gen.withheld}
    if not isinstance(gen, Overlay):
        return reads.symbols_by_id(gen, ids)
    out = {i: s for i, s in reads.symbols_by_id(gen.base, ids).items() if s.path not in gen.shadow}
    out.update(reads.symbols_by_id(gen.top, ids))
    return out


def all_symbols(gen: View, repo: str, ref: str) -> Iterator[Symbol]:
    if isinstance(gen, Withheld):
        return (s for s in all_symbols(gen.inner, repo, ref) if s.path not in gen.withheld)
    if not isinstance(gen, Overlay):
        return reads.all_symbols(gen, repo, ref)
    return heapq.merge(reads.all_symbols(gen.top, repo, ref),
                       _visible(gen, reads.all_symbols(gen.base, repo, gen.base_ref)),
                       key=lambda s: (s.path, s.line_start, -s.line_end, s.name, s.symbol_id))


def manifest(gen: View, repo: str, ref: str) -> dict[str, tuple[str, int, int]]:
    """Every file the ref's index holds (withheld ones too: what is stored, not what answers)."""
    gen = _own(gen)
    if not isinstance(gen, Overlay):
        return reads.manifest(gen, repo, ref)
    out = {p: v for p, v in reads.manifest(gen.base, repo, gen.base_ref).items() if p not in gen.shadow}
    out.update(reads.manifest(gen.top, repo, ref))
    return out


def file_warnings(gen: View, repo: str, ref: str) -> list[str]:
    gen = _own(gen)
    if not isinstance(gen, Overlay):
        return reads.file_warnings(gen, repo, ref)
    return reads.file_warnings(gen.top, repo, ref)


def probe_tables(gen: View) -> None:
    gen = _own(gen)
    if isinstance(gen, Overlay):
        reads.probe_tables(gen.base)
        gen = gen.top
    reads.probe_tables(gen)


def layer_of(gen: View, path: str) -> str | None:
    """"overlay" or "base" on a ref stored as an overlay; None for a whole index (no layers)."""
    gen = _own(gen)
    return gen.layer_of(path) if isinstance(gen, Overlay) else None


# ---- references --------------------------------------------------------------------------------

def edges_to(gen: View, ids: list[str], edge_type: str | None = None) -> list[EdgeSite]:
    if isinstance(gen, Withheld):
        return _kept(gen, edges_to(gen.inner, ids, edge_type))
    if not isinstance(gen, Overlay):
        return reads.edges_to(gen, ids, edge_type)
    base_ids = list(ids) + _counterparts(gen, ids)
    found = (reads.edges_to(gen.top, ids, edge_type)
             + _base_sites(gen, reads.edges_to_rows(gen.base, base_ids, edge_type))
             + basefix.fixes_to(_fixes(gen), ids, edge_type))
    return sorted(found, key=lambda e: (e.path, e.line, e.edge_type, e.from_symbol_id or ""))


def _base_sites(gen: Overlay, found: Iterable[tuple[int, EdgeSite]]) -> list[EdgeSite]:
    """The base's edge sites the overlay does not shadow: neither by path (a file the ref
    changed) nor by edge (a base row the overlay resolved anew: `basefix`)."""
    found = [(r, e) for r, e in found if e.path not in gen.shadow]
    fixed = basefix.fixed_among(_fixes(gen), [r for r, _ in found])
    return [e for r, e in found if r not in fixed]


def _fixes(gen: Overlay) -> Generation | None:
    """The generation holding the overlay's fixes of base edges (`basefix`), when they hold for
    the base it is read over: the base generation they were computed on, no file of which was
    indexed again since (their rowids name that generation's rows). Else None: the base's own
    answers, until the overlay's next sync recomputes them."""
    hidden = gen.shadow - frozenset(gen.info["paths"])
    same = gen.base.number == int(gen.info.get("base_generation") or 0)
    return gen.top if same and not hidden else None


def _counterparts(gen: Overlay, ids: list[str]) -> list[str]:
    """The base's ids of the overlay definitions `ids` (same path, qualified name and kind): what
    the base files' edges were resolved to before the ref changed those files."""
    out: list[str] = []
    for row in reads.symbols_by_id(gen.top, ids).values():
        out += [s.symbol_id for s in reads.symbols_named(gen.base, row.name.lower())
                if (s.path, s.qualified_name, s.kind) == (row.path, row.qualified_name, row.kind)]
    return out


def unresolved_count(gen: View, name: str, edge_type: str | None = None, modules: bool = True) -> int:
    if isinstance(gen, (Withheld, Overlay)):
        return sum(1 for _ in unresolved_edges(gen, name, edge_type, modules))
    return reads.unresolved_count(gen, name, edge_type, modules)


def unresolved_edges(gen: View, name: str, edge_type: str | None = None, modules: bool = True) -> Iterator[EdgeSite]:
    if isinstance(gen, Withheld):
        return (e for e in unresolved_edges(gen.inner, name, edge_type, modules) if e.path not in gen.withheld)
    if not isinstance(gen, Overlay):
        return reads.unresolved_edges(gen, name, edge_type, modules)
    merged = heapq.merge(reads.unresolved_edges(gen.top, name, edge_type),
                         _base_sites(gen, reads.unresolved_rows(gen.base, name, edge_type)),
                         basefix.fixes_unresolved(_fixes(gen), name, edge_type),
                         key=lambda e: (e.path, e.line))
    return merged if modules else (e for e in merged if e.confidence != "module")


# ---- full text ---------------------------------------------------------------------------------

def search_index(gen: View, index: str, clauses: tuple[Any, ...], fetch: int, repo: str, ref: str,
                 language: str | None, kinds: tuple[str, ...],
                 exclude: frozenset[str] = frozenset()) -> tuple[list[tuple[float, Any]], tuple[Any, ...]]:
    """`fulltext.search_index`, on an overlay run on both layers (the base's shadowed paths
    excluded in the query itself, so the base still yields `fetch` hits) and merged by score.

    BM25 scores of two indexes are not on one scale: a term's IDF is computed from each index's
    own counts, and the overlay is small, so its IDFs run low and its hits would rank under the
    base's. Each overlay score is multiplied by the ratio of the clauses' IDFs over both layers to
    their IDFs in the overlay alone (boost-weighted, over the terms the overlay holds): exact for a
    one-term clause, an approximation for several (a hit's score sums only the terms it has).

    `exclude` (and a `Withheld` view's files): paths left out in the query itself, as the
    shadowed ones are, so a page is full and the hits counted are those that may answer."""
    if isinstance(gen, Withheld):
        return search_index(gen.inner, index, clauses, fetch, repo, ref, language, kinds, exclude | gen.withheld)
    if not isinstance(gen, Overlay):
        return fulltext.search_index(gen, index, clauses, fetch, repo, ref, language, kinds, exclude=exclude)
    base, base_clauses = fulltext.search_index(gen.base, index, clauses, fetch, repo, gen.base_ref, language, kinds,
                                               exclude=gen.shadow | exclude)
    # the overlay searches the terms the base kept (a small index prunes no common term): both
    # layers rank on the same words
    top, top_clauses = fulltext.search_index(gen.top, index, base_clauses or clauses, fetch, repo, ref, language,
                                             kinds, exclude=exclude)
    scale = _idf_scale(gen, index, top_clauses)
    hits = base + [(score * scale, found) for score, found in top]
    hits.sort(key=fulltext.content_order)
    return hits[:fetch], base_clauses or top_clauses


def _idf(n_docs: int, df: int) -> float:
    return math.log(1 + (n_docs - df + 0.5) / (df + 0.5))


def _idf_scale(gen: Overlay, index: str, clauses: tuple[Any, ...]) -> float:
    top, base = gen.top.searcher(index), gen.base.searcher(index)
    n_top, n_all = top.num_docs, top.num_docs + base.num_docs
    alone = merged = 0.0
    for c in clauses:
        for t in c.terms:
            df = top.doc_freq(c.field, t)
            if df:
                alone += c.boost * _idf(n_top, df)
                merged += c.boost * _idf(n_all, df + base.doc_freq(c.field, t))
    return merged / alone if alone > 0 else 1.0


def warm_tables(gen: View) -> None:
    gen = _own(gen)
    for g in (gen.top, gen.base) if isinstance(gen, Overlay) else (gen,):
        reads.warm_tables(g)


def warm_indices(gen: View, terms: Iterable[str]) -> None:
    gen = _own(gen)
    for g in (gen.top, gen.base) if isinstance(gen, Overlay) else (gen,):
        fulltext.warm_indices(g, terms)


def paths_by_name(gen: View, repo: str, ref: str) -> dict[str, list[str]]:
    """Indexed files by file name (a `Withheld` view's files left out)."""
    withheld = gen.withheld if isinstance(gen, Withheld) else frozenset()
    by_name: dict[str, list[str]] = {}
    for path in manifest(gen, repo, ref):
        if path not in withheld:
            by_name.setdefault(path.rsplit("/", 1)[-1], []).append(path)
    return by_name
