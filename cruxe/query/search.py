"""`search_code`: run a plan's channels, join snippets to symbols, fuse with RRF, rank.

Pipeline: plan -> one Tantivy search per channel -> snippet hits joined to the innermost
symbol containing their best-matching line, or to the definition below when that line is in
its doc comment (one SQLite query) -> RRF (k = 60, per-intent weights) over result identities
(for a question, half a symbols vote for an undocumented Rust callable the symbols channel
could not judge: `_undocumented_votes`) -> the additive signals of spec 04 -> full tie-break
sort; for a question in words, its first results then get `query_coverage` and are sorted again.

`bm25_score` in a hit's signals is the fused retrieval base, `RRF_SCALE * sum_c w_c/(k + rank_c)`.
Plain RRF scores are tiny (1/61 for a first place), which would let the boosts alone decide
the order (every class above every function, whatever matched). RRF_SCALE = 20 k makes a
first place in a weight-w channel worth ~20 w points and one rank step near the top ~0.3 w,
so the boosts (0.5..12) reorder neighbours and lift exact names (5 + 1) far, without erasing
what retrieval found; a question's coverage (up to QUERY_COVERAGE_BOOST, query/coverage.py)
moves the result that says all of it past several that match a word or two. Spec 04's examples
stay exact: they are statements about the boosts.
Measured on bench/nl_search.py (tuning sample, seed 11), symbol MRR@10 / file-recall@10:
scale 600 -> Django 0.652/0.925, Go 0.286/0.81; 1200 -> 0.653/0.93, 0.294/0.885; 2400 ->
0.652/0.925, 0.297/0.90. Smaller scales let kind weights push file results and the
described function below any type that matched a word.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from ..codetokens import ATTRIBUTE_LINE, COMMENT_LINE, COMMENT_OR_ATTRIBUTE_LINE
from .. import literals
from ..declarations import CALLABLE_KINDS, declarations
from ..errors import CruxeError
from ..intent import NAME_SEPARATORS, classify, file_and_name
from ..model import Hit, is_test_path
from ..reexports import reexported
from ..sourcetests import InSourceTests
from ..store import (LINE_FIELDS, Chunk, FileDoc, Symbol, innermost_symbols, search_index, symbols_by_id,
                     symbols_named)
from ..store import Field as F
from . import coverage, frames, locate, messages, pasted
from . import signals as sig
from .bodies import MAX_BODY_CHECKS, augmentations_below_originals
from .context import enrich
from .hits import a_field, symbol_hit, take
from .planner import CODE_SHAPED, RRF_K, Clause, Plan, plan as build_plan

RRF_SCALE = 20.0 * RRF_K
RESULT_TYPE_ORDER = {"symbol": 0, "snippet": 1, "file": 2}
SNIPPET_LINES = 3  # matching lines shown in a snippet hit
MAX_CHUNK_MEMBERS = 3  # definitions one container chunk can surface for a question
MAX_MEMBER_LINES = 40  # a container chunk's best matching lines read for its other members
SNIPPET_LINE_CHARS = 160


def search_code(gen, repo: str, ref: str, query: str, *, role: str | None = None,
                language: str | None = None, limit: int = 10,
                detail_level: str = "signature") -> tuple[list[Hit], int, dict[str, Any]]:
    """Ranked hits for a free-form query: (hits, total_candidates, {intent, confidence}), and
    for a pasted message `emitting_site: False` when no site found emits it (the hits then
    only share its words; the repository's class the paste names as its exception, when there is
    one, comes first, as a trace's places do: the message came from elsewhere, a dependency the
    class wraps or the OS)."""
    trace, message = frames.split_trace(query)
    placed = frames.places(gen, repo, ref, trace, every_file=not message) if trace else []
    if placed and not message:  # nothing but places: `parser.go:52`, a trace without its message
        hits, total = _frames_first(placed, [], limit), len(placed)
        _show_lines(gen, repo, ref, hits)
        intent, confidence = classify(query)
        explained = True
    else:
        # the message alone, whether or not a frame is a place here: frames in files the index
        # lacks (a package's bundled `dist/`, the user's own code) name nothing it holds, and
        # their words would be searched as the message's
        asked = message if trace and message else query
        if trace and not message:  # a location alone that no indexed file has: the files its path names
            asked = trace[0].path
        p = plan_query(gen, repo, ref, asked, role=role, language=language, limit=limit)
        hits, total, explained = run_plan(gen, repo, ref, p)
        intent, confidence = p.intent, p.confidence
        # a message a site emits is messages.py's (it knows the sites from the tests that
        # repeat them); a line of code with a literal in it is not a message any site emits
        pastable = not p.kinds and (p.intent == "symbol" or (p.intent == "error" and not explained)
                                    or (p.intent == "natural_language" and pasted.CODE_MARK.search(asked) is not None))
        lines = pasted.places(gen, repo, ref, asked, p.language) if pastable else []
        if lines:  # the query is a line of the code: where it is, first
            hits, total = _places_first(lines, hits, limit, "pasted_line"), total + len(lines)
            _show_lines(gen, repo, ref, hits[:len(lines)])
        if placed and explained and p.intent == "error" and not any(f.func for f in trace):
            # a bare location beside a message some site emits (Rust's `panicked at 'msg',
            # src/main.rs:21:35`): the location is the caller's (`#[track_caller]`), usually the
            # user's own binary, which a same-named file of the repository only seems to be;
            # the sites that emit the message come first, the places after them
            hits, total = _places_after(placed, hits, limit), total + len(placed)
        elif placed:  # the places say where it happened, whatever emits the message
            hits, total, explained = _frames_first(placed, hits, limit), total + len(placed), True
        elif p.intent == "error" and not explained:  # a message from elsewhere: the class it names
            raised = [(s.path, s.line_start, s) for s in _raised_classes(gen, asked)]
            hits, total = (_frames_first(raised, hits, limit), total + len(raised)) if raised else (hits, total)
    if detail_level == "context":
        enrich(gen, repo, ref, hits)
    info: dict[str, Any] = {"intent": intent, "confidence": confidence}
    if intent == "error" and not explained:
        info["emitting_site"] = False
    return hits, total, info


MAX_RAISED_CLASSES = 3  # more same-named classes than this: the name alone picks none


def _raised_classes(gen, query: str) -> list[Symbol]:
    """The repository's classes named as the exception a paste prints (`httpx.ConnectError: [Errno
    111] Connection refused`: the message is the OS's, or a dependency's that the repository maps
    to its own class), test code left out; none when the paste names none, or too many."""
    name = literals.exception_name(query)
    rows = [s for s in symbols_named(gen, name.lower()) if s.name == name and s.kind == "class"
            and not is_test_path(s.path)] if name else []
    return rows if len(rows) <= MAX_RAISED_CLASSES else []


def plan_query(gen, repo: str, ref: str, query: str, *, role: str | None = None,
               language: str | None = None, limit: int = 10) -> Plan:
    """The plan `search_code` runs: the pure plan, re-planned as an error when the index says
    the code emits the sentence as a message (`messages.emits_message`)."""
    p = build_plan(query, role=role, language=language, limit=limit)
    member = _member_asked(gen, repo, ref, query, p) if p.intent == "natural_language" else None
    if member is not None:
        p = build_plan(member, role=role, language=language, limit=limit)
    elif p.intent == "natural_language" and messages.emits_message(gen, repo, ref, p):
        p = build_plan(query, role=role, language=language, limit=limit, intent="error")
    elif (p.intent == "symbol" and CODE_SHAPED.search(p.target) and not p.kinds
          and not _defined(gen, repo, ref, p)):
        p = _uses_first(p)
    return p


_TYPE_THEN_MEMBER = re.compile(r"\s*([A-Z][\w$]*[a-z][\w$]*)\s+([A-Za-z_$][\w$]*)\s*")


def _member_asked(gen, repo: str, ref: str, query: str, p: Plan) -> str | None:
    """`ExtensionCodec register`: a type's name and a word, as agents write a member they mean
    (`ExtensionCodec.register`), when the type has a member so named; None otherwise (`Session
    handling` is a question)."""
    m = _TYPE_THEN_MEMBER.fullmatch(query)
    if m is None or p.kinds:
        return None
    asked = f"{m.group(1)}.{m.group(2)}"
    hits, _ = locate.locate_symbol(gen, repo, ref, asked, language=p.language, limit=1)
    ok = hits and hits[0].name == m.group(2) and m.group(1) in NAME_SEPARATORS.split(hits[0].qualified_name)[:-1]
    return asked if ok else None


def _defined(gen, repo: str, ref: str, p: Plan) -> bool:
    """Some definition of the index is named exactly as the symbol query's target."""
    clause = Clause(F.SYMBOL_EXACT, (p.target.lower(),), 1.0)
    docs, _ = search_index(gen, "symbols", (clause,), 1, repo, ref, p.language, ())
    return bool(docs)


def _uses_first(p: Plan) -> Plan:
    """An identifier written like code (a camel-case hump, an underscore: not a plain word such
    as `parse`, which may mean `parse_config` as well) that names no definition of the index (a
    struct field, a key, another package's constant: `ErrorUnused`, `IN_Q_OVERFLOW`) is found
    where the code writes it whole, as rg finds it: the snippet channel searches the whole
    identifier only (not its parts: `overflow` alone is in other names) and takes the symbol
    channel's weight, whose matches are then only definitions sharing a part of the name."""
    weights = {c.index: c.weight for c in p.channels}
    if "snippets" not in weights or "symbols" not in weights:
        return p
    swap = {"snippets": weights["symbols"], "symbols": weights["snippets"]}
    channels = []
    for c in p.channels:
        whole = tuple(x for x in c.clauses if x.field == F.CONTENT) if c.index == "snippets" else ()
        channels.append(c if c.name else replace(c, weight=swap.get(c.index, c.weight), clauses=whole or c.clauses))
    return replace(p, channels=tuple(channels),
                   notes=(*p.notes, "no definition of this name: where the code writes it first"))


def run_plan(gen, repo: str, ref: str, p: Plan) -> tuple[list[Hit], int, bool]:
    """(the first hits, how many candidates, whether a site the channels found emits the
    pasted message: always False unless the plan is a pasted message's)."""
    fused: dict[str, Hit] = {}
    rrf: dict[str, float] = {}
    fits: dict[tuple[str, int], tuple[float, int]] = {}
    fetched: dict[str, list[Chunk]] = {}  # path -> the snippet chunks the channels read
    values: frozenset[str] = frozenset()  # words the paste's literal phrases lost (messages.cut_values)
    emitted: dict[tuple[str, int], float] = {}  # (path, emitting line) -> how well its message fits the paste
    ranks: dict[str, dict[str, int]] = {}  # channel -> identity -> rank
    for channel in p.channels:
        asked = messages.cut_values(channel.clauses, values)
        docs, clauses = search_index(gen, channel.index, asked, channel.fetch, repo, ref, p.language, p.kinds)
        if p.intent == "natural_language" and channel.index == "symbols":
            docs = _without_fields(gen, repo, ref, asked, channel.fetch, p, docs)
        fit_lines: dict[tuple[str, int], int] = {}
        if p.intent == "error" and channel.index == "snippets":
            docs, emitting = messages.by_fit(docs, p, fits)
            fit_lines = {key: line for key, (line, _) in emitting.items()}
            emitted.update({(key[0], line): fit for key, (line, fit) in emitting.items()})
        if p.intent == "error" and channel.name == "literals":
            values = messages.pasted_values(asked, clauses, fits)
        cands = _candidates(gen, repo, ref, channel.index, docs, clauses, p, fit_lines, fetched)
        ranks[channel.name or channel.index] = _fuse(fused, rrf, cands, channel.weight, p.rrf_k)
    if p.intent == "natural_language":
        _undocumented_votes(gen, repo, ref, p, fused, rrf, ranks, fetched)
    ranked = [_score(c, rrf[key], p) for key, c in fused.items() if _allowed(c, p)]
    _reexports_qualified(gen, repo, ref, ranked, p)
    _qualified_first(ranked, p)
    _declarations_below_bodies(ranked, _declarations(gen, repo, ref, ranked, p))
    if p.intent == "symbol":
        augmentations_below_originals(gen, ranked)
    _located_first(gen, repo, ref, ranked, p)
    ranked.sort(key=sort_key)
    _tests_in_sources_below(gen, repo, ref, ranked, p)
    if p.intent == "natural_language":
        coverage.rerank(gen, repo, ref, ranked[:coverage.COVERAGE_WINDOW], p.terms, fetched)
        ranked.sort(key=sort_key)
    if p.intent == "error":
        messages.pieces_of_first(gen, repo, ref, ranked, emitted, p)
        ranked = messages.whole_sites_only(ranked, emitted)
    shown = take(ranked, p.limit)
    if p.intent == "error":
        messages.mark_emitting_lines(shown, emitted)
    return shown, len(ranked), any(fit > 0 for fit, _ in fits.values())


def _show_lines(gen, repo: str, ref: str, hits: list[Hit]) -> None:
    """A place outside any definition (or inside one it does not start) is shown as its line."""
    for h in hits:
        if h.result_type == "snippet":
            text = frames.line_text(gen, repo, ref, h.path, h.line_start).strip()
            h.snippet = f"{h.line_start}: {text[:SNIPPET_LINE_CHARS]}" if text else None


def _places_after(placed: list[tuple[str, int, Symbol | None]], hits: list[Hit], limit: int) -> list[Hit]:
    """The search's hits, then the places not among them (unlifted: no signal, base 0)."""
    at = {(h.path, h.line_start, h.symbol_id) for h in hits}
    tail = [h for h in (_place_hit(path, line, s) for path, line, s in placed)
            if (h.path, h.line_start, h.symbol_id) not in at]
    return take(hits + tail, limit)


def _place_hit(path: str, line: int, s: Symbol | None, **signal: float) -> Hit:
    """A place's hit, retrieval base 0: its definition, or its line (a snippet of its file)."""
    hit = symbol_hit(s) if s is not None else Hit("snippet", path, line, line, name=_basename(path))
    hit.signals = sig.compose(0.0, **signal)
    hit.score = hit.signals["final_score"]
    return hit


def _frames_first(placed: list[tuple[str, int, Symbol | None]], hits: list[Hit], limit: int) -> list[Hit]:
    """A pasted trace's places in the repository (innermost first), then the search's hits."""
    return _places_first(placed, hits, limit, "stack_frame")


def _places_first(placed: list[tuple[str, int, Symbol | None]], hits: list[Hit], limit: int,
                  signal: str) -> list[Hit]:
    """Places the query names (a trace's frames, the lines a pasted line is on), in order, then
    the search's hits that are not among them. A place's `signal` lifts it above every hit, in
    order; its retrieval base is 0 (no channel ranked it)."""
    top = max((h.score for h in hits), default=0.0)
    out = [_place_hit(path, line, s, **{signal: round(top + len(placed) - i, sig.SCORE_DIGITS)})
           for i, (path, line, s) in enumerate(placed)]
    at = {(h.path, h.line_start, h.symbol_id) for h in out}
    return take(out + [h for h in hits if (h.path, h.line_start, h.symbol_id) not in at], limit)


def sort_key(hit: Hit) -> tuple:
    return (-hit.score, RESULT_TYPE_ORDER[hit.result_type], hit.path, hit.line_start,
            hit.line_end, hit.kind, hit.name, hit.symbol_id)


def _allowed(c: Hit, p: Plan) -> bool:
    if p.kinds and (c.result_type != "symbol" or c.kind not in p.kinds):
        return False
    return not p.language or c.language == p.language


# ---- candidates per channel -----------------------------------------------------------------

def _candidates(gen, repo: str, ref: str, index: str, docs: list[tuple[float, Any]],
                clauses: tuple[Clause, ...], p: Plan, first_lines: dict[tuple[str, int], int],
                fetched: dict[str, list[Chunk]]) -> list[Hit]:
    if index == "symbols":
        return [symbol_hit(d) for _, d in docs]
    if index == "files":
        return [_file_hit(d) for _, d in docs]
    for _, d in docs:
        fetched.setdefault(d.path, []).append(d)
    return _snippet_hits(gen, repo, ref, docs, _needles(p, clauses), first_lines,
                         siblings=p.intent == "natural_language")


def _basename(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def _file_hit(d: FileDoc | Chunk, result_type: str = "file") -> Hit:
    return Hit(result_type, d.path, int(d.line_start), int(d.line_end), name=_basename(d.path),
               language=d.language)


def _snippet_hits(gen, repo: str, ref: str, docs: list[tuple[float, Chunk]], needles: Needles | None,
                  first_lines: dict[tuple[str, int], int], siblings: bool = False) -> list[Hit]:
    """Each chunk's best-matching lines; the innermost symbol holding the best line stands in
    for the chunk (a snippet inside a definition surfaces that definition). `first_lines`
    names a chunk's best line outright (the pasted message's emitting line). `siblings`: a
    chunk whose best line is in a member of a container (a method in its class's chunk) also
    surfaces the other members its matching lines are in (`_sibling_members`), and a chunk
    whose best line no definition holds (a Rust `impl` header: an impl is no symbol) the
    callable member holding its next best line (`_owned_first`)."""
    matched = [(_lines(d, needles, first_lines), d) for _, d in docs]
    points = [(d.path, lines[0][0]) for lines, d in matched if lines]
    documented = {(d.path, lines[0][0]): _documented_line(d, lines[0][0]) for lines, d in matched if lines}
    documented = {k: v for k, v in documented.items() if v is not None}
    owners = innermost_symbols(gen, repo, ref, points + [(k[0], v[1]) for k, v in documented.items()]) if points else {}
    if siblings:
        owners = _fields_as_their_types(gen, owners)
        matched = _owned_first(gen, repo, ref, matched, owners, documented)
    out, members = [], []
    for lines, d in matched:
        owner = _owner(owners, documented, d.path, lines[0][0]) if lines else None
        members.append((lines, d) if siblings and owner is not None and owner.parent_symbol_id else None)
        if owner is not None:
            hit = symbol_hit(owner)
        else:
            hit = _file_hit(d, "snippet")
            shown = sorted(lines[:SNIPPET_LINES]) if lines else []
            hit.line_start = shown[0][0] if shown else int(d.line_start)
            hit.line_end = shown[-1][0] if shown else int(d.line_end)
            hit.snippet = "\n".join(f"{n}: {t.strip()[:SNIPPET_LINE_CHARS]}" for n, t in shown)
        out.append(hit)
    return _sibling_members(gen, repo, ref, out, members) if siblings else out


# fetches of the symbols channel a question in words makes to fill its page without Rust fields
MAX_FIELD_REFETCHES = 2


def _without_fields(gen, repo: str, ref: str, clauses: tuple[Clause, ...], fetch: int, p: Plan,
                    docs: list[tuple[float, Any]]) -> list[tuple[float, Any]]:
    """The symbols channel's page for a question in words without Rust fields (`a_field`: a
    field is found by its name; a question is answered by code): fetched again, larger by the
    fields dropped, so the page holds the definitions it held before fields were definitions."""
    asked = fetch
    kept = [(score, d) for score, d in docs if not a_field(symbol_hit(d))]
    for _ in range(MAX_FIELD_REFETCHES):
        if len(kept) >= fetch or len(docs) < asked:
            break  # full, or all there is
        asked = fetch + len(docs) - len(kept)
        docs = search_index(gen, "symbols", clauses, asked, repo, ref, p.language, p.kinds)[0]
        kept = [(score, d) for score, d in docs if not a_field(symbol_hit(d))]
    return kept[:fetch]


def _fields_as_their_types(gen, owners: dict[tuple[str, int], Symbol]) -> dict[tuple[str, int], Symbol]:
    """`owners` with a Rust field's line standing for its struct (`a_field`): a question's words
    in a struct's body surface the struct, as they did before its fields were definitions."""
    fields = {k: s for k, s in owners.items() if a_field(symbol_hit(s)) and s.parent_symbol_id}
    if not fields:
        return owners
    types = symbols_by_id(gen, sorted({s.parent_symbol_id for s in fields.values()}))
    return {k: types.get(s.parent_symbol_id, s) if k in fields else s for k, s in owners.items()}


def _owned_first(gen, repo: str, ref: str, matched: list[tuple[list[tuple[int, str]], Chunk]],
                 owners: dict[tuple[str, int], Symbol], documented: dict[tuple[str, int], tuple[int, int]],
                 ) -> list[tuple[list[tuple[int, str]], Chunk]]:
    """`matched` (each chunk's matching lines, best first) with, for a chunk whose best line
    no definition holds, the best of its next lines (MAX_MEMBER_LINES) that a function or
    method holds moved first (`owners` gains its owner): an impl block's chunk whose header
    says the type's words stands for the member saying the question, not for an anonymous
    snippet from the header. A chunk none of whose lines a callable holds is left as it is."""
    lone = [i for i, (lines, d) in enumerate(matched)
            if lines and _owner(owners, documented, d.path, lines[0][0]) is None]
    points = [(matched[i][1].path, n) for i in lone for n, _ in matched[i][0][1:MAX_MEMBER_LINES]]
    found = innermost_symbols(gen, repo, ref, points) if points else {}
    out = list(matched)
    for i in lone:
        lines, d = matched[i]
        j = next((j for j, (n, _) in enumerate(lines[1:MAX_MEMBER_LINES], 1)
                  if getattr(found.get((d.path, n)), "kind", None) in CALLABLE_KINDS), None)
        if j is not None:
            owners[(d.path, lines[j][0])] = found[(d.path, lines[j][0])]
            out[i] = ([lines[j]] + lines[:j] + lines[j + 1:], d)
    return out


def _sibling_members(gen, repo: str, ref: str, hits: list[Hit],
                     members: list[tuple[list[tuple[int, str]], Chunk] | None]) -> list[Hit]:
    """`hits` with, after each chunk's hit that is a member of a container (`members`: its
    matching lines, best first, and chunk; else None), up to MAX_CHUNK_MEMBERS - 1 other
    callable members holding its next best lines (MAX_MEMBER_LINES), best first. A container
    keeps its members in its own chunk (docs/BENCHMARKS.md, "Snippet chunks"), so a question
    whose words a long class holds in several methods would otherwise surface only the one
    holding the best line, and the method saying the rest would get nothing of the chunk."""
    points = [(m[1].path, n) for m in members if m is not None for n, _ in m[0][1:MAX_MEMBER_LINES]]
    if not points:
        return hits
    owners = innermost_symbols(gen, repo, ref, points)
    out: list[Hit] = []
    for hit, m in zip(hits, members):
        out.append(hit)
        if m is None:
            continue
        seen = {hit.symbol_id}
        for n, _ in m[0][1:MAX_MEMBER_LINES]:
            o = owners.get((m[1].path, n))
            if o is not None and o.symbol_id not in seen and o.kind in CALLABLE_KINDS:
                seen.add(o.symbol_id)
                out.append(symbol_hit(o))
                if len(seen) == MAX_CHUNK_MEMBERS:
                    break
    return out


def _lines(d: Chunk, needles: Needles | None, first_lines: dict[tuple[str, int], int]) -> list[tuple[int, str]]:
    lines = _matching_lines(d, needles)
    first = first_lines.get((d.path, int(d.line_start)))
    if first is None:
        return lines
    text = d.source.split("\n")[first - int(d.line_start)]
    return [(first, text)] + [x for x in lines if x[0] != first]


MAX_DOC_WALK = 60  # lines walked down a comment block to the definition it documents


def _documented_line(d: Chunk, line: int) -> tuple[int, int] | None:
    """When `line` lies in a comment block, where the definition it documents starts: the
    first line after the block, and the first after the attributes and decorators that may
    follow it (a definition starts at one or the other, as its language's extractor counts
    it); else None. A blank line ends the block: a comment set apart documents nothing in
    particular."""
    lines = d.source.split("\n")
    i = line - int(d.line_start)
    if not 0 <= i < len(lines) or not COMMENT_LINE.match(lines[i]):
        return None
    first = None
    last = min(len(lines), i + MAX_DOC_WALK)
    for j in range(i + 1, last):
        text = lines[j]
        if not text.strip():
            return None
        if first is None and not COMMENT_LINE.match(text):
            first = int(d.line_start) + j
        if first is not None and not ATTRIBUTE_LINE.match(text):
            return first, int(d.line_start) + j
    # the chunk ends inside the comment: chunks are cut where definitions start, so the
    # definition, if any, starts on the next line
    after = int(d.line_start) + last
    return (first or after, after) if last == len(lines) else None


def _owner(owners: dict[tuple[str, int], Symbol], documented: dict[tuple[str, int], tuple[int, int]],
           path: str, line: int) -> Symbol | None:
    """The definition a snippet's best line belongs to: the innermost symbol holding it, or,
    for a line of the doc comment above a definition, that definition (the comment is where
    it says in words what it does, so a match there is a match of the definition). A comment
    inside a function's body explains its statements, not a definition below it."""
    holder = owners.get((path, line))
    below = documented.get((path, line))
    if below is not None and (holder is None or holder.kind not in CALLABLE_KINDS):
        sym = owners.get((path, below[1]))
        if sym is not None and below[0] <= sym.line_start <= below[1]:
            return sym
    return holder


@dataclass(frozen=True, slots=True)
class Needles:
    """The plan's line terms that were searched, in the order a line scan tries them at one
    position: whole identifiers (between identifier boundaries), then parts anywhere; each
    longest first, so a whole identifier wins over its own parts."""

    idents: tuple[str, ...]
    parts: tuple[str, ...]


def _needles(p: Plan, clauses: tuple[Clause, ...]) -> Needles | None:
    """The needles of the plan's line terms that were searched (terms pruned as too common
    are left out too)."""
    searched = {t for c in clauses if c.field in LINE_FIELDS for t in c.terms}
    idents = sorted((t for t in p.line_terms if t in searched), key=lambda t: (-len(t), t))
    # every part, whole identifiers included: the word `idle` also lies inside `reuse_idle`
    parts = sorted((t for t in p.line_parts if t in searched), key=lambda t: (-len(t), t))
    return Needles(tuple(idents), tuple(parts)) if idents or parts else None


def _ident_char(c: str) -> bool:
    return c.isalnum() or c in "_$"


def _needle_matches(low: str, needles: Needles) -> list[tuple[int, str, bool]]:
    """(offset, term, whole) of each needle found in `low`, scanned left to right without
    overlap: at each offset the first needle in order that fits there, then on past it (what
    a regex alternation of the needles finds, but each term is sought with `str.find`,
    which skips ahead where a regex tries every alternative at every offset)."""
    found: list[tuple[int, int, str, bool]] = []
    n = len(low)
    for order, t in enumerate(needles.idents):
        at = low.find(t)
        while at >= 0:
            end = at + len(t)
            if (at == 0 or not _ident_char(low[at - 1])) and (end == n or not _ident_char(low[end])):
                found.append((at, order, t, True))
            at = low.find(t, at + 1)
    base = len(needles.idents)
    for order, t in enumerate(needles.parts, base):
        at = low.find(t)
        while at >= 0:
            found.append((at, order, t, False))
            at = low.find(t, at + 1)
    found.sort()
    out, free = [], 0
    for at, _, t, whole in found:
        if at >= free:
            out.append((at, t, whole))
            free = at + len(t)
    return out


def _text_len(found: set[tuple[str, bool]], whole_only: bool) -> int:
    """Summed length of the distinct terms found on a line (whole identifiers only, or all)."""
    return sum(len(t) for t in {t for t, whole in found if whole or not whole_only})


def _matching_lines(d: Chunk, needles: Needles | None) -> list[tuple[int, str]]:
    """(line number, text) of the chunk's lines holding query terms, best first: the most
    query text found as whole identifiers (a call `parse(data)` beats `parse` inside
    `parse_config`), then the most query text in all (summed length of the distinct terms
    found: `reuse_idle_connection` beats `reuse_idle`), then earliest. A scan of the
    lower-cased chunk: the chunk already matched the analysed terms, so this only has to find
    where."""
    content = d.source
    if not content or needles is None:
        return []
    low = content.lower()
    per_line: dict[int, set[tuple[str, bool]]] = {}
    line, pos = 0, 0
    for at, t, whole in _needle_matches(low, needles):
        line += low.count("\n", pos, at)
        pos = at
        per_line.setdefault(line, set()).add((t, whole))
    if not per_line:
        return []
    lines = content.split("\n")
    first = int(d.line_start)
    ranked = sorted(per_line, key=lambda i: (-_text_len(per_line[i], True), -_text_len(per_line[i], False), i))
    return [(first + i, lines[i]) for i in ranked]


# ---- fusion and signals ---------------------------------------------------------------------

def identity(hit: Hit) -> str:
    if hit.result_type == "symbol":
        return "sym:" + hit.symbol_id
    if hit.result_type == "file":
        return "file:" + hit.path
    return f"snip:{hit.path}:{hit.line_start}:{hit.line_end}"


def _undocumented_votes(gen, repo: str, ref: str, p: Plan, fused: dict[str, Hit], rrf: dict[str, float],
                        ranks: dict[str, dict[str, int]], fetched: dict[str, list[Chunk]]) -> None:
    """A question's answer may be a function that has no doc comment (Rust's `impl Ord for
    Prerelease { fn cmp .. }`, whose body comments say the ordering rules): the symbols channel
    reads names and doc comments only, so it cannot judge it, and the fusion counted only the
    snippets channel's vote against both channels' for its documented neighbours. Such a
    callable, found by the snippets channel and not by the symbols channel, gets
    UNDOCUMENTED_VOTE of the symbols channel's vote at its snippets rank. Rust only
    (UNDOCUMENTED_VOTE_LANGUAGES: where a doc comment is told from a plain one by its
    marker, and where it was measured; docs/BENCHMARKS.md, user probe 6)."""
    snippets, symbols = ranks.get("snippets", {}), ranks.get("symbols")
    weight = next((c.weight for c in p.channels if c.index == "symbols" and not c.name), 0.0)
    if symbols is None or not weight:
        return
    for key, rank in snippets.items():
        hit = fused[key]
        if (key in symbols or hit.result_type != "symbol" or hit.kind not in CALLABLE_KINDS
                or hit.language not in UNDOCUMENTED_VOTE_LANGUAGES):
            continue
        above, lines = coverage.text_of(gen, repo, ref, hit, fetched)
        if not _doc_commented(above.split("\n") + lines.split("\n")):
            rrf[key] += UNDOCUMENTED_VOTE * weight / (p.rrf_k + rank)


UNDOCUMENTED_VOTE = 0.5  # half a vote: the channel did not find it, it could not have
UNDOCUMENTED_VOTE_LANGUAGES = frozenset({"rust"})
_RUST_DOC_LINE = re.compile(r"\s*(?:///|//!|/\*\*|/\*!|#\[doc\b)")


def _doc_commented(lines: list[str]) -> bool:
    """Some doc comment among the comment and attribute lines that open a definition's text
    (the lines above it, then its own first lines up to its signature)."""
    for text in lines:
        if _RUST_DOC_LINE.match(text):
            return True
        if text.strip() and not COMMENT_OR_ATTRIBUTE_LINE.match(text):
            return False
    return False


def _fuse(fused: dict[str, Hit], rrf: dict[str, float], cands: list[Hit], weight: float, k: int) -> dict[str, int]:
    """Reciprocal rank fusion: rank among this channel's distinct results (first place = 1),
    summed per identity in `rrf`; the first channel's hit stands for the result, taking a
    later channel's snippet lines when it has none. The channel's ranks by identity."""
    rank = 0
    seen: dict[str, int] = {}
    for c in cands:
        key = identity(c)
        if key in seen:
            continue
        rank += 1
        seen[key] = rank
        entry = fused.get(key)
        if entry is None:
            fused[key] = c
            rrf[key] = 0.0
        elif c.snippet is not None and entry.snippet is None:
            entry.snippet = c.snippet
        rrf[key] += weight / (k + rank)
    return seen


def _declarations(gen, repo: str, ref: str, ranked: list[Hit], p: Plan) -> set[str]:
    """A name asked for (symbol intent) defined both with a body and without one (an
    interface member, a `.d.ts` or Protocol stub): the ids of the declarations that outrank a
    definition with a body the name cannot tell them from. The definitions are read best
    first, and only until each declaration met has such a body below it: usually the first
    one read has a body, and nothing else is read."""
    if p.intent != "symbol" or not p.target:
        return set()
    target = p.target.lower()
    named = sorted((h for h in ranked if h.result_type == "symbol" and h.name.lower() == target), key=sort_key)
    stubs: set[str] = set()
    waiting: set[tuple] = set()  # name keys of the declarations met, no body of theirs read yet
    for h in named[:MAX_BODY_CHECKS]:
        if declarations(gen, repo, ref, [h]):
            stubs.add(h.symbol_id)
            waiting.add(_name_key(h))
            continue
        waiting.discard(_name_key(h))
        if not waiting:
            break
    return stubs


def _reexports_qualified(gen, repo: str, ref: str, ranked: list[Hit], p: Plan) -> None:
    """A qualified name a Python package re-exports (`attr.evolve`, `httpx.get`) qualifies the
    definition the package binds under it, as locate_symbol reads the name
    (`reexports.reexported`): that definition gets the `qualified_name_boost`."""
    segments = [s for s in NAME_SEPARATORS.split(p.query_path) if s] if p.intent == "symbol" else []
    ids = [h.symbol_id for h in ranked if len(segments) > 1 and h.result_type == "symbol"
           and h.name.lower() == segments[-1].lower() and not h.signals.get("qualified_name_boost")]
    if not ids:
        return
    rows = sorted(symbols_by_id(gen, ids).values(), key=lambda r: (r.path, r.line_start))
    exported = {r.symbol_id for r in reexported(gen, repo, ref, rows, segments)}
    for h in ranked:
        if h.symbol_id in exported and not h.signals.get("qualified_name_boost"):
            sig.recompose(h, qualified_name_boost=sig.QUALIFIED_NAME_BOOST)


def _qualified_first(ranked: list[Hit], p: Plan) -> None:
    """A qualified name asked for (`Console.print`): the definitions it names get the
    `qualified_name_boost` that puts the best of them above every other definition of the bare
    name (rich's `jupyter.print`, a short wrapper retrieval was surer of by more than the boost).
    At least QUALIFIED_NAME_BOOST; the explanation stays exact."""
    if p.intent != "symbol" or not p.target or p.query_path.lower() == p.target.lower():
        return
    target = p.target.lower()
    named = [h for h in ranked if h.result_type == "symbol" and h.name.lower() == target]
    matched = [h for h in named if h.signals.get("qualified_name_boost", 0.0) > 0]
    others = [h.score for h in named if h.signals.get("qualified_name_boost", 0.0) <= 0]
    if not matched or not others:
        return
    lift = max(others) - max(h.score for h in matched) + 1.0
    if lift <= 0:
        return
    for h in matched:
        sig.recompose(h, qualified_name_boost=h.signals["qualified_name_boost"] + lift)


def _located_first(gen, repo: str, ref: str, ranked: list[Hit], p: Plan) -> None:
    """A name asked of search_code: the definition locate_symbol answers first for it gets the
    `exact_match_boost` that puts it first, so the two tools agree (issue 17: an identifier
    query's exact definition first). Retrieval's text statistics differ by more than the
    name's signals between same-named definitions (a struct `Current` above the method
    `current` asked for) and from the definition's own members (`ConsoleOptions.update_width`
    above the class); locate's tiers (case as written, bodies before declarations) decide.
    The explanation stays exact."""
    if p.intent != "symbol" or not p.target:
        return
    target = p.target.lower()
    named = [h for h in ranked if h.result_type == "symbol" and h.name.lower() == target]
    if not named:
        return
    try:
        asked = p.query if file_and_name(p.query) else p.query_path or p.target  # the file, when written
        first = locate.locate_symbol(gen, repo, ref, asked, language=p.language, limit=1)[0]
    except CruxeError:  # a query locate reads otherwise (not a name): retrieval's order stands
        return
    chosen = next((h for h in named if first and h.symbol_id == first[0].symbol_id), None)
    best = min(ranked, key=sort_key)
    if chosen is not None and chosen is not best:
        sig.recompose(chosen, exact_match_boost=chosen.signals["exact_match_boost"] + best.score - chosen.score + 1.0)


_NAME_SIGNALS = ("exact_match_boost", "qualified_name_boost")


def _declarations_below_bodies(ranked: list[Hit], stubs: set[str]) -> None:
    """Each declaration scoring at least the best definition with a body that the name's
    signals cannot tell from it (same name, same exact and qualified matches: commander's
    `Command.action` in `index.d.ts` and in `command.js`) gets the `declaration_penalty` that
    puts it just below that one. Retrieval's scores differ by many points where locate_symbol's
    fixed penalty decides ties; the explanation stays exact. A declaration the name picks out
    (`Reader.read_all` asked, a Protocol `Reader`'s member) keeps its place."""
    if not stubs:
        return
    best: dict[tuple, float] = {}
    for h in ranked:
        if h.result_type == "symbol" and h.symbol_id not in stubs:
            key = _name_key(h)
            best[key] = max(best.get(key, h.score), h.score)
    for h in ranked:
        top = best.get(_name_key(h)) if h.symbol_id in stubs else None
        if top is not None and h.score >= top:
            sig.recompose(h, declaration_penalty=top - h.score + sig.DECLARATION_PENALTY)


def _tests_in_sources_below(gen, repo: str, ref: str, ranked: list[Hit], p: Plan) -> None:
    """For a pasted message, a Rust result inside a `#[cfg(test)]` item of a source file (the
    `mod tests` that names the values it expects, `Err(Error::UnexpectedEof(ReaderOffsetId(4)))`,
    word for word as a paste prints them) is test code: it takes the test-file penalty, unless
    the query asks for tests. Only the results that reach the page are checked (each file read
    once), again after each demotion until the page holds no unchecked one; `ranked` stays
    sorted. A definition is checked only when its qualified name says `test` (`tests::`,
    `test_*`, `proptests`): reading every result's file for its attributes cost about as much
    as the rest of an error query. Not for a question: demoting a test there changes which
    results the coverage window holds, and a probe's question lost its answer from the first
    five. Figures: docs/BENCHMARKS.md, user probe 7 (Rust)."""
    if p.wants_tests or p.intent != "error":
        return
    in_source_tests = InSourceTests(gen, repo, ref)
    checked: set[int] = set()
    while True:
        todo = [h for h in ranked[:p.limit] if id(h) not in checked]
        if not todo:
            return
        demoted = False
        for h in todo:
            checked.add(id(h))
            if (h.path.endswith(".rs") and not h.signals.get("test_file_penalty") and _may_be_test(h)
                    and in_source_tests(h.path, h.line_start)):
                exact = h.signals.get("exact_match_boost", 0.0) > 0
                penalty = sig.test_file_penalty(h.path, base=0.0 if exact else h.signals["bm25_score"], test_code=True)
                sig.recompose(h, test_file_penalty=penalty)
                demoted = True
        if demoted:
            ranked.sort(key=sort_key)


def _may_be_test(h: Hit) -> bool:
    return h.result_type != "symbol" or "test" in (h.qualified_name or h.name).lower()


def _name_key(h: Hit) -> tuple:
    return (h.name.lower(), *(h.signals.get(s, 0.0) for s in _NAME_SIGNALS))


def _score(c: Hit, rrf: float, p: Plan) -> Hit:
    base = RRF_SCALE * rrf
    is_symbol = c.result_type == "symbol"
    boosts = sig.symbol_boosts(
        name=c.name, qualified_name=c.qualified_name, kind=c.kind if is_symbol else "",
        path=c.path, target=p.target or _path_target(p), query_path=p.query_path,
        kind_intent=p.kind_intent, path_terms=p.path_terms, definition=is_symbol, wants_tests=p.wants_tests,
        base=base)
    c.signals = sig.compose(base, **boosts)
    c.score = c.signals["final_score"]
    return c


def _path_target(p: Plan) -> str:
    """A path query names a file: its base name plays the part of the exact name."""
    if p.intent != "path":
        return ""
    return re.split(r"[/\\]", p.query.strip("\"'`"))[-1]
