"""The second look at a question's first results: which of them say the whole question.

Retrieval scores each query word on its own, so a definition that says one or two of a
question's words many times (a type named like one word, a constant, a method whose name is
a word of the question) comes before the function whose name, doc comment and body together
say all of it. This stage takes the fused, signal-ranked first COVERAGE_WINDOW results of a
natural-language query and scores how much of the question each says:

- the question is a set of concepts, one per distinct word (function words left out): the
  word, its stems and inflections and the spellings code uses for it count as the word
  (`read`, `reads`, `reader` are one concept, counted once); the lexicon's related words count
  RELATED_CREDIT of it (lexicon.py);
- each concept weighs its IDF among the window's results: a word every candidate holds (it
  is why they were all found) tells none apart, a rare one decides much; a word none holds
  weighs nothing;
- a concept in the result's name counts whole; in its text (doc comment and body) by a
  BM25-like saturation of how often (SATURATION_K), the text's length normalised against the
  window's mean (LENGTH_B: a long body holds many words by chance);
- a result's coverage is the IDF-weighted share of the concepts it says, relative to the
  window's best: `query_coverage` = QUERY_COVERAGE_BOOST x coverage / best coverage, so the
  result that says the most of the question gets the whole boost whatever the words (a
  snippet SNIPPET_SHARE of it; a test, doc or example gives half back with its test-file
  penalty).

A constant, variable or type alias has no body that could say a question; it is found by
matching one or two words strongly in its name. A type (class, struct, interface, trait, enum)
is found the same way or by its doc comment, which says what it holds, not what is done with
it; and so is a callable declared without a body (a trait or interface member, a Protocol or
abstract stub: `declarations.is_declaration`), whose doc comment says what an implementation must do,
which is elsewhere. Each gets `bodyless_penalty` unless it covers the question as well as the
best definition with a body (docs/BENCHMARKS.md, "Types below the functions that do the work").

A result's text is its lines (at most MAX_TEXT_LINES; a constant's or variable's first line only:
the rest is its data, a template or a help text that says words without doing anything) and the
comment and attribute lines right above them (its doc comment, however its extractor counts its start), cut from the snippet
chunks the query already fetched, or read when the symbols channel alone found it (at most
one read per result of the window).
"""
from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

from .. import codetokens as ct
from .. import lexicon
from ..declarations import CALLABLE_KINDS, MAX_STUB_LINES, is_declaration
from ..filetext import numbered_lines
from ..model import ROLE_KINDS, TS_FAMILY, Hit, is_declaration_file
from ..store import Chunk, chunks
from . import signals as sig

COVERAGE_WINDOW = 30  # first results re-scored; bounded for latency (a chunk read each at worst)
MAX_TEXT_LINES = 40  # a definition's first lines are its text: a long body's tail adds only noise
MAX_DOC_LINES = 80  # lines above a definition searched for its doc comment
RELATED_CREDIT = 0.4  # a lexicon relative found instead of the word itself
SATURATION_K = 0.3  # BM25's k1 (for texts of mean length, one mention counts 0.77, two 0.87)
LENGTH_B = 0.5  # BM25's b: how much a long text's mentions are discounted
NAME_SEGMENTS = 2  # a definition and its container
# A snippet (lines outside any definition: a package's doc comment, a module's docstring, a
# script's top level) says a question's words as prose about a whole file: its share of the boost,
# so a definition that says as much comes first (docs/BENCHMARKS.md, "Coverage decides within
# the window")
SNIPPET_SHARE = 0.5
# the kinds `bodyless_penalty` is for: no body, or (a type) one that holds members, not the work
BODYLESS_KINDS = ROLE_KINDS["value"] | ROLE_KINDS["alias"] | ROLE_KINDS["type"]
# a value's lines after its first are its data (a template, a table, a help text): they say the
# question's words as content, not what any code does, so its text is its doc comment and first line
VALUE_KINDS = ROLE_KINDS["value"]


@dataclass(frozen=True, slots=True)
class Concept:
    word: str
    forms: frozenset[str]  # count as the word itself
    related: frozenset[str]  # count RELATED_CREDIT


def concepts(terms: tuple[str, ...]) -> list[Concept]:
    """One concept per distinct question word (function words left out); a word that is a
    form of an earlier word's concept (`read`, `reads`) joins it instead of counting twice."""
    out: list[Concept] = []
    for t in terms:
        if t in lexicon.FUNCTION_WORDS or any(t in c.forms for c in out):
            continue
        spellings, related = lexicon.expand(t)
        forms = frozenset({t, *ct.word_stems(t), *ct.word_variants(t), *spellings})
        out.append(Concept(t, forms, frozenset(related) - forms))
    return out


def words_of(text: str) -> Counter[str]:
    """Lower-cased identifier parts and whole identifiers of code or prose, with counts."""
    idents, parts = ct.code_terms(text.encode("utf-8", "replace"))
    counts = Counter(parts.lower().split())
    for w in set(idents.lower().split()) - counts.keys():
        counts[w] = 1  # `read_full` as a whole too, without counting its parts twice
    return counts


def _found(c: Concept, counts: Counter[str]) -> tuple[int, float]:
    """(mentions, credit) of a concept in a text: its own forms, else its relatives."""
    n = sum(counts[f] for f in counts.keys() & c.forms)
    if n:
        return n, 1.0
    n = sum(counts[f] for f in counts.keys() & c.related)
    return n, (RELATED_CREDIT if n else 0.0)


@dataclass(frozen=True, slots=True)
class Said:
    """What a result says of each concept: (mentions, credit) in its name, and in its text
    (doc comment and body); and its text's length in words."""

    name: tuple[tuple[int, float], ...]
    text: tuple[tuple[int, float], ...]
    size: int

    @classmethod
    def of(cls, cs: list[Concept], name: str, text: str) -> Said:
        in_name, in_text = words_of(name), words_of(text)
        return cls(tuple(_found(c, in_name) for c in cs), tuple(_found(c, in_text) for c in cs),
                   max(1, sum(in_text.values())))

    def holds(self, i: int) -> bool:
        return bool(self.name[i][0] or self.text[i][0])

    def evidence(self, i: int, norm: float) -> float:
        """How much of concept `i` the result says, 0..1: its name says it outright; its
        text by how often, saturating."""
        tf, credit = self.text[i]
        return max(self.name[i][1], credit * tf / (tf + norm) if tf else 0.0)


def scores(said: list[Said]) -> list[float]:
    """Coverage 0..1 of each result: the IDF-weighted share of the concepts it says, IDF and
    mean text length taken over these results."""
    if not said or not said[0].name:
        return [0.0] * len(said)
    n = len(said)
    mean = sum(s.size for s in said) / n
    idf = []
    for i in range(len(said[0].name)):
        df = sum(1 for s in said if s.holds(i))
        idf.append(math.log(1.0 + (n - df + 0.5) / (df + 0.5)) if df else 0.0)
    total = sum(idf)
    out = []
    for s in said:
        norm = SATURATION_K * (1.0 - LENGTH_B + LENGTH_B * s.size / mean)
        got = sum(w * s.evidence(i, norm) for i, w in enumerate(idf) if w)
        out.append(got / total if total else 0.0)
    return out


def _cut(covering: list[Chunk], hit: Hit, end: int) -> tuple[str, str]:
    """The result's doc comment and its lines through `end`, from the chunks holding them:
    the comment and attribute lines right above its first line that those chunks hold (its
    doc comment, however its extractor counts its start: a chunk starts at the comment above
    a top-level definition, and a method's lies in its container's chunk)."""
    lines = numbered_lines(covering, hit.line_start - MAX_DOC_LINES, end)
    doc = []
    n = hit.line_start - 1
    while n in lines and ct.COMMENT_OR_ATTRIBUTE_LINE.match(lines[n]):
        doc.append(lines[n])
        n -= 1
    body = [lines[i] for i in range(hit.line_start, end + 1) if i in lines]
    return "\n".join(doc[::-1]), "\n".join(body)


def text_of(gen, repo: str, ref: str, hit: Hit, fetched: dict[str, list[Chunk]]) -> tuple[str, str]:
    """A result's doc comment and lines, from the chunks the query fetched when they hold its
    lines (they are cut where definitions start, so one usually does), else read (and kept in
    `fetched`)."""
    last = hit.line_start if hit.result_type == "symbol" and hit.kind in VALUE_KINDS else \
        hit.line_start + MAX_TEXT_LINES - 1
    start, end = hit.line_start, min(hit.line_end, last)
    have = sorted((c for c in fetched.get(hit.path, ()) if c.line_end >= start and c.line_start <= end),
                  key=lambda c: c.line_start)
    if not (have and have[0].line_start <= start and have[-1].line_end >= end
            and all(b.line_start == a.line_end + 1 for a, b in zip(have, have[1:]))):
        have = chunks(gen, repo, ref, hit.path, (start, end))
        fetched.setdefault(hit.path, []).extend(have)
    return _cut(have, hit, end)


def rerank(gen, repo: str, ref: str, hits: list[Hit], terms: tuple[str, ...],
           fetched: dict[str, list[Chunk]]) -> None:
    """Give the definitions and snippets among `hits` their `query_coverage`, and the
    definitions without a body that say less of the question than the best one with a body
    their `bodyless_penalty`; their scores are recomposed (sig.compose), the caller sorts."""
    cs = concepts(terms)
    rated = [h for h in hits if h.result_type != "file"]
    if not cs or not rated:
        return
    texts = [text_of(gen, repo, ref, h, fetched) for h in rated]
    cover = scores([Said.of(cs, _name_of(h), "\n".join(t)) for h, t in zip(rated, texts)])
    top = max(cover)
    if top <= 0:
        return
    bodyless = [_bodyless(h, body) for h, (_, body) in zip(rated, texts)]
    best_with_body = max((v for h, v, b in zip(rated, cover, bodyless) if h.result_type == "symbol" and not b),
                         default=0.0)
    for hit, v, without in zip(rated, cover, bodyless):
        share = 1.0 if hit.result_type == "symbol" else SNIPPET_SHARE
        changed = {"query_coverage": sig.QUERY_COVERAGE_BOOST * share * v / top}
        if without and v < best_with_body:
            changed["bodyless_penalty"] = sig.BODYLESS_PENALTY
        if hit.signals["test_file_penalty"]:
            # a test says its subject's words once per case: its share of what it says is taken
            # as its share of what retrieval found is (signals.TEST_BASE_SHARE)
            given = changed["query_coverage"]
            changed["test_file_penalty"] = hit.signals["test_file_penalty"] - sig.TEST_BASE_SHARE * given
        sig.recompose(hit, **changed)


def _name_of(hit: Hit) -> str:
    """A definition's name with its container's (`Engine.recalibrate`: a method says what its
    type is about too); "" for a snippet."""
    if hit.result_type != "symbol":
        return ""
    segments = re.split(r"::|\.|#|/", hit.qualified_name or hit.name)
    return " ".join(segments[-NAME_SEGMENTS:])


def _bodyless(hit: Hit, body: str) -> bool:
    """A definition without a body of its own: a value, alias or type (by its kind), or a
    callable its lines declare only (a short one: a longer span is a body). Not a TypeScript
    function's overload signature outside a declaration file: its implementation is right
    below it, and the group's doc comment stands above the first signature (redux's
    `compose`)."""
    if hit.result_type != "symbol":
        return False
    if hit.kind in BODYLESS_KINDS:
        return True
    if hit.kind == "function" and hit.language in TS_FAMILY and not is_declaration_file(hit.path):
        return False
    return (hit.kind in CALLABLE_KINDS and hit.line_end - hit.line_start < MAX_STUB_LINES
            and is_declaration(hit.language, hit.signature, body))
