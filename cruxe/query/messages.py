"""Pasted messages at run time: what the plan cannot know without the index.

`emits_message`: a sentence that the classifier reads as natural language ("index of nil
pointer") is a pasted message when the code's raise/panic/log calls emit most of its words as
phrases (the snippets' `error_literals` field, literals.py), probed before the plan runs.

`by_fit`: among the chunks a pasted message's channels found, those whose emitted message
explains the paste best come first (`literals.message_fit`: the whole paste with its holes
filled by values that fit them, in its case), non-source files after source among equals;
their BM25 over the message's phrases cannot tell apart sites that emit the same words
(`.pick() cannot be used ...` beside `.${name}() cannot be used ...`). The emitting line is
the chunk's best line, so a chunk of several small functions stands for the one that emits.
When the best one is a wrapper whose message ends in a hole holding another message (`toml:
line %d (last key %q): %s`), the sites of that inner message go first (`_inner_first`).

`cut_values`: a filled-in value that reads as a word (`NoneType`, `int` in `..., not %s`) is
not taken off the paste by `literals.is_value`; the store cuts it out of the literal phrases
because no message holds it, and once an emitting site explains the paste, the other channels'
phrases are cut at the same words (a phrase through a value matches nothing in the code).
"""
from __future__ import annotations

import re
from dataclasses import replace

from .. import literals
from ..model import is_non_source_path
from ..filetext import numbered_lines
from ..store import Chunk, chunks, search_index
from ..store import Field as F
from .planner import MAX_QUERY_TERMS, MIN_PROBE_WORDS, PROBE_SHARE, Clause, Plan, message_probe

# The chunks of a channel whose messages are read: the ones that can reach the first answers
# (reading a chunk's literals is most of an error query's cost).
FIT_DEPTH = 20


def emits_message(gen, repo: str, ref: str, p: Plan) -> bool:
    """Raise/panic/log calls of the code emit most of the query's words as phrases of
    MIN_PROBE_WORDS or more (`planner.message_probe`); or, for a query with a colon, most of the
    words before its first `: `, in a message that is all of it with its holes filled
    (`literals.FULL_FIT`: Go's `provided bad location %s: %v` printing a standard library
    error's words after its own). A phrase that the store cuts at
    words no message holds (a filled-in value) counts by its pieces still long enough, each
    probed on its own; the probing stops as soon as the phrases left cannot make up the words
    needed (a long pasted log costs no search at all)."""
    if _share_emitted(gen, repo, ref, p, p.query)[0] or _fills_a_message(gen, repo, ref, p):
        return True
    head = p.query.split(": ", 1)[0]
    if head == p.query:
        return False
    emitted, holding = _share_emitted(gen, repo, ref, p, head)
    pasted = literals.unwrap_message(p.query)
    return emitted and any(literals.best_fit(d.source, d.language, pasted)[0] >= literals.FULL_FIT for d in holding)


# The messages read for `_fills_a_message`: the first few by BM25 over the paste's words.
FILL_DEPTH = 5


def _fills_a_message(gen, repo: str, ref: str, p: Plan) -> bool:
    """Whether the whole query is one emitted message with its holes filled whose own words are
    most of the query's (`literals.emits_whole`, PROBE_SHARE), among the messages that hold most
    of its words: the values filled in may be words that some message holds (`Validator email
    doesn't support kind map`), so the store does not cut them out of the phrase and
    `_share_emitted` finds no run long enough. Not asked for a question, nor for a paste longer
    than a phrase is searched (a log of many messages is none of them)."""
    clauses, _ = message_probe(p.query)
    if not clauses or sum(len(s) for s in literals.message_segments(p.query)) > MAX_QUERY_TERMS:
        return False
    bag = tuple(dict.fromkeys(t for c in clauses for t in c.terms))
    docs, _ = search_index(gen, "snippets", (Clause(F.ERROR_LITERALS, bag, 1.0),), FILL_DEPTH, repo, ref,
                           p.language, ())
    pasted = literals.unwrap_message(p.query)
    return any(literals.emits_whole(d.source, d.language, pasted, PROBE_SHARE) for _, d in docs)


def _share_emitted(gen, repo: str, ref: str, p: Plan, q: str) -> tuple[bool, list[Chunk]]:
    """Whether messages emit most of `q`'s words (`emits_message`), and the chunks that hold
    the phrases found."""
    clauses, need = message_probe(q)
    pending, found, holding = list(reversed(clauses)), 0, []  # the longest phrase first
    while pending and found < need <= found + sum(len(c.terms) for c in pending):
        docs, searched = search_index(gen, "snippets", (pending.pop(),), 1, repo, ref, p.language, ())
        long = [c for c in searched if c.phrase and len(c.terms) >= MIN_PROBE_WORDS]
        if len(searched) == 1 and long:
            found += len(long[0].terms) if docs else 0
        elif len(searched) > 1:
            pending += long
        holding += [d for _, d in docs] if long else []
    return bool(clauses) and found >= need, holding


def pasted_values(asked: tuple[Clause, ...], searched: tuple[Clause, ...],
                  fits: dict[tuple[str, int], tuple[float, int]]) -> frozenset[str]:
    """The words of the literal phrases `asked` that the store cut out (`searched` keeps the
    runs that messages hold), once some site's message explains the paste (`fits`, by_fit):
    without one, the words could as well be a message the code keeps outside an emitting call."""
    if not any(fit > 0 for fit, _ in fits.values()):
        return frozenset()
    held = {t for c in searched if c.phrase for t in c.terms}
    return frozenset(t for c in asked if c.phrase for t in c.terms if t not in held)


def cut_values(clauses: tuple[Clause, ...], values: frozenset[str]) -> tuple[Clause, ...]:
    """Phrases cut at the pasted values, each run of two words or more kept as a phrase (as
    the store cuts a phrase at the words its field never holds); other clauses unchanged."""
    if not values:
        return clauses
    out: list[Clause] = []
    for c in clauses:
        if not c.phrase or values.isdisjoint(c.terms):
            out.append(c)
            continue
        runs: list[list[str]] = [[]]
        for t in c.terms:
            if t in values:
                runs.append([])
            else:
                runs[-1].append(t)
        out += [replace(c, terms=tuple(r)) for r in runs if len(r) >= 2]
    return tuple(out)


def by_fit(docs: list[tuple[float, Chunk]], p: Plan, seen: dict[tuple[str, int], tuple[float, int]]
           ) -> tuple[list[tuple[float, Chunk]], dict[tuple[str, int], tuple[int, float]]]:
    """The first FIT_DEPTH chunks, and later ones whose messages the query's other channel
    read (`seen`), in order of how well their emitted message explains the pasted query, its
    printed name kept on where only so it does (non-source files after source among equals,
    unless the query asks for tests; the chunks that explain nothing keep their order, after
    the rest), and the emitting line of each chunk that has one with its message's fit, by
    (path, line_start) (an inner message's site: its fit to the inner message, `_inner_first`).
    `seen` keeps each chunk's fit to the whole paste for the query's other channel."""
    pasted = literals.unwrap_message(p.query)
    # the name taken off may be the message's own first word (`console.warn(`Warning: ...`)`)
    named = literals.unwrap_message(p.query, keep_name=True)
    tests_last = not p.wants_tests
    fits = []
    for _, d in docs[:FIT_DEPTH]:
        key = (d.path, int(d.line_start))
        if key not in seen:
            seen[key] = literals.best_fit(d.source, d.language, pasted)
            if seen[key][0] == 0 and named != pasted:
                seen[key] = literals.best_fit(d.source, d.language, named)
        fits.append(seen[key])
    # a chunk the other channel read keeps its fit wherever this channel ranks it
    fits += [seen.get((d.path, int(d.line_start)), (0.0, -1)) for _, d in docs[len(fits):]]
    last = [f > 0 and tests_last and is_non_source_path(d.path) for (f, _), (_, d) in zip(fits, docs)]
    order = sorted(range(len(docs)), key=lambda i: (-fits[i][0], last[i], i))
    order, fits = _inner_first(docs, order, fits, last, pasted, literals.exception_name(p.query),
                               literals.is_rust_panic(p.query))
    lines = {(d.path, int(d.line_start)): (int(d.line_start) + d.source.count("\n", 0, at), fit)
             for (_, d), (fit, at) in zip(docs, fits) if fit > 0}
    return [docs[i] for i in order], lines


_PANICS = re.compile(r"\bpanic!\s*[({]")


def _inner_first(docs: list[tuple[float, Chunk]], order: list[int], fits: list[tuple[float, int]], last: list[bool],
                 pasted: str, printed_type: str = "", panicked: bool = False) -> tuple[list[int], list[tuple[float, int]]]:
    """When the best site is a wrapper whose message ends in a hole holding another message
    (`literals.inner_paste`: `toml: line 3 (last key "a"): Invalid integer "0123": ...`), the
    chunks that emit that inner message go before it, best fit first: the wrapper formats
    every error alike, the inner site says which one this is. Not when the paste names the
    exception class the wrapper raises (`rich.errors.MissingStyle: Failed to get style ...;
    <the parser's message>`), nor when a pasted Rust panic's wrapper panics (`could not
    initialize thread_rng: {}` around rand_core's `error code {}`): that raise or panic is the one
    the run ended in. (order, fits with the inner fits, whose offsets are the inner emitting lines)."""
    top = order[0] if order else -1
    if top < 0 or fits[top][0] < literals.FULL_FIT:
        return order, fits
    # (Rust prints no type's name before a message: `Error: ` is what `main` returning an error
    # writes, whatever the type)
    if (printed_type and docs[top][1].language != "rust"
            and re.search(rf"(?<!class )\b{re.escape(printed_type)}\s*\(", docs[top][1].source)):
        return order, fits  # it raises that class (its own definition's line raises nothing)
    if panicked and _PANICS.search(docs[top][1].source):
        return order, fits
    inner = literals.inner_paste(docs[top][1].source, docs[top][1].language, pasted)
    if not inner:
        return order, fits
    fits = list(fits)
    # the wrapper's own chunk may hold the inner message too (serde_json's `{} at line {} column
    # {}` below the `Display` of its error codes): its emitting line is then the inner one's
    own = literals.best_fit(docs[top][1].source, docs[top][1].language, inner)
    if own[0] >= literals.FULL_FIT and own[1] != fits[top][1]:
        fits[top] = (fits[top][0], own[1])
    found = []
    for i in order[1:]:
        # a site whose message is the whole paste too (fit less well than the top's) is a wrapper
        # around both, not inside the top's hole (`{message} at line {l} col {c}` around
        # `Unexpected character: {char!r}`, whose last hole holds `'x' at line 3 col 9`)
        if i < FIT_DEPTH and fits[i][0] < literals.FULL_FIT:
            fit = literals.best_fit(docs[i][1].source, docs[i][1].language, inner)
            if fit[0] > 0:
                fits[i] = fit
                found.append(i)
    found.sort(key=lambda i: (-fits[i][0], last[i], i))
    return found + [i for i in order if i not in set(found)], fits


def pieces_of_first(gen, repo: str, ref: str, ranked: list, emitted: dict[tuple[str, int], float], p: Plan) -> None:
    """A Rust definition first that emits a part of the paste, while its chunk cut it from the
    rest of it, is read whole (its lines from the file's chunks): a `Display` writing the message in
    two pieces (`literals.best_fit`), the second below the cut, emits it whole, at the first
    piece's line (`emitted` gains it). Nothing else changes."""
    first = ranked[0] if ranked else None
    if first is None or first.result_type != "symbol" or first.language != "rust":
        return
    inside = [fit for (path, line), fit in emitted.items() if path == first.path
              and first.line_start <= line <= first.line_end]
    if not inside or max(inside) >= literals.FULL_FIT:
        return
    span = (first.line_start, first.line_end)
    lines = numbered_lines(chunks(gen, repo, ref, first.path, span), *span)
    text = "\n".join(lines.get(n, "") for n in range(first.line_start, first.line_end + 1))
    fit, at = literals.best_fit(text, "rust", literals.unwrap_message(p.query))
    if fit >= literals.FULL_FIT:
        emitted[(first.path, first.line_start + text.count("\n", 0, at))] = fit


def whole_sites_only(ranked: list, emitted: dict[tuple[str, int], float]) -> list:
    """When the first result emits the whole pasted message (its literal with the holes
    filled: `literals.FULL_FIT`), or emits nothing that explains any of it while another
    result emits it whole (a declaration sharing its words, that the other channels voted
    up), the results that do, in order, each the innermost result around an emitting line (the
    method that raises it, not also its class): the others only share the paste's words, and an
    agent that asked where the message comes from reads them for nothing. Otherwise `ranked`
    unchanged (a first result that emits a part of the paste, a wrapper's inner message, keeps
    its place). A file's result is never a site."""
    if not ranked:
        return ranked
    whole = [(path, line) for (path, line), fit in emitted.items() if fit >= literals.FULL_FIT]
    sites = [h for h in ranked if h.result_type != "file"]
    innermost: set[int] = set()
    first_emits = False
    for path, line in whole:
        around = [h for h in sites if h.path == path and h.line_start <= line <= h.line_end]
        if around:
            span = min(h.line_end - h.line_start for h in around)
            innermost.update(id(h) for h in around if h.line_end - h.line_start == span)
            first_emits = first_emits or ranked[0] in around
    first = ranked[0]
    explains = any(path == first.path and first.line_start <= line <= first.line_end for path, line in emitted)
    return [h for h in ranked if id(h) in innermost] if innermost and (first_emits or not explains) else ranked


def mark_emitting_lines(hits: list, emitted: dict[tuple[str, int], float]) -> None:
    """Each definition result that holds an emitting line of the pasted message says which
    (`emits_at`: the best-fitting one, the first of equals): a message raised in the middle of
    a long function (a 150-line `__init__`) is then read at its line, not searched for again.
    A result that is that one line already, a snippet or a file, says nothing more."""
    for h in hits:
        if h.result_type != "symbol" or h.line_start == h.line_end:
            continue
        inside = [(-fit, line) for (path, line), fit in emitted.items()
                  if fit > 0 and path == h.path and h.line_start <= line <= h.line_end]
        if inside:
            h.emits_at = min(inside)[1]
