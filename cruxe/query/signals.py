"""Ranking signals of spec 04: named, additive numbers, each explainable on its own.

`score = bm25_score + total_boost`, where `total_boost` is the plain sum of the signals
below. `bm25_score` is the retrieval base: for `search_code` the fused RRF score of the
channels that found the result (scaled, see `search.RRF_SCALE`); for `locate_symbol`, which
does not use full text, it is 0.0. Keeping every signal a separate number means the
`signals` dict of a hit *is* its explanation: shaping only chooses which numbers to show.
"""
from __future__ import annotations

from ..model import is_non_source_path

EXACT_MATCH_BOOST = 20.0
EXACT_CASE_BOOST = 5.0
QUALIFIED_NAME_BOOST = 15.0
DEFINITION_BOOST = 1.0
PATH_AFFINITY_BOOST = 1.0
# Spec 04 says -0.5; under the fused base one rank step is worth ~0.3-1 point, so -0.5 moved a
# test past one neighbour at most. Several rank steps' worth puts the implementation first
# unless retrieval is much surer of the test, while staying below the exact-name boosts
# (5 + 1), so a test asked for by its exact name still comes first (see DEPARTURES).
TEST_FILE_PENALTY = -6.0
# ...and this share of the test's own retrieval score on top. A test file says the words of
# the code it tests, once per case and in its name and path (`test_redirects.py`: twenty tests
# of redirects), so on a repository with many tests the channels are surer of the tests than of
# the implementation by far more than a fixed step. A share keeps "source first" at any depth of
# agreement, while a test that is the only strong match still appears. Not taken from a hit
# with the exact name asked for: a helper defined only in tests stays findable by name. For a
# question in words the share of the test's `query_coverage` is taken too (query.coverage): a
# test says the question's words as often as the code it tests.
TEST_BASE_SHARE = 0.5
# A callable without a working body (interface member, Protocol/abstract stub, trait method
# without default, `declare`d function): listed, but after the definitions that do the work. A
# TypeScript module augmentation gets what puts it just below the declaration it merges with.
DECLARATION_PENALTY = -1.0

# Zoekt's generic kind order (types > callables > values), scaled to Cruxe's boost budget.
KIND_WEIGHTS: dict[str, float] = {
    "class": 2.0, "interface": 2.0, "trait": 2.0,
    "struct": 1.8, "enum": 1.8,
    "type_alias": 1.5, "function": 1.5, "method": 1.5,
    "constant": 1.0,
    "module": 0.8,
    "variable": 0.5,
}

# Query-intent boost: the query's naming convention says "type" or "callable".
# Type kinds here include type_alias (spec 04 lists it), unlike model.ROLE_KINDS["type"].
INTENT_TYPE_KINDS = frozenset({"class", "interface", "trait", "struct", "enum", "type_alias"})
INTENT_CALLABLE_KINDS = frozenset({"function", "method"})
INTENT_TYPE_BOOST = 1.0
INTENT_CALLABLE_BOOST = 0.5

# A question said whole by a definition's name, doc comment and body (query.coverage): this much.
# Within the window coverage decides, retrieval's order breaks near-ties: a boost worth a few
# rank steps (it was 30) left short getters named like one word above the function whose body
# says the question (docs/BENCHMARKS.md, "Coverage decides within the window").
QUERY_COVERAGE_BOOST = 150.0
# A constant, variable, type or declaration that says less of a question than the best
# definition with a body (query.coverage): it matched a word or two by name. A third of the
# coverage boost, the ratio the two were tuned at.
BODYLESS_PENALTY = -50.0

BOOST_NAMES = ("exact_match_boost", "qualified_name_boost", "kind_weight", "query_intent_boost",
               "definition_boost", "path_affinity", "test_file_penalty", "declaration_penalty",
               "query_coverage", "bodyless_penalty", "stack_frame", "pasted_line")

# Every signal is rounded once to the digits an explanation shows (shape.REASON_DIGITS), so
# sorting and serialising see the same number and the parts an explanation lists add up to the
# final score exactly (rounding 6-digit parts to 4 did not always).
SCORE_DIGITS = 4


def kind_weight(kind: str) -> float:
    """Tiered weight of a symbol kind; 0.0 for an unknown or empty kind (no boost, no penalty)."""
    return KIND_WEIGHTS.get(kind, 0.0)


def exact_match_boost(name: str, target: str) -> float:
    """The name asked for; as written (`OldValue`, not the variable `oldValue`) a bit more."""
    return EXACT_MATCH_BOOST + (EXACT_CASE_BOOST if name == target else 0.0)


def query_intent_boost(kind_intent: str | None, kind: str) -> float:
    if kind_intent == "type" and kind in INTENT_TYPE_KINDS:
        return INTENT_TYPE_BOOST
    if kind_intent == "callable" and kind in INTENT_CALLABLE_KINDS:
        return INTENT_CALLABLE_BOOST
    return 0.0


def test_file_penalty(path: str, wants_tests: bool = False, base: float = 0.0, test_code: bool = False) -> float:
    """Applied once, however many patterns match, to tests and to the other non-source files
    (docs, examples, fixtures, generated), and to test code inside a source file (`test_code`:
    sourcetests.InSourceTests); never when the query asks for tests. `base` is the retrieval
    score whose TEST_BASE_SHARE is taken too (0 for a hit with the name asked for)."""
    if wants_tests or not (test_code or is_non_source_path(path)):
        return 0.0
    return round(TEST_FILE_PENALTY - TEST_BASE_SHARE * base, SCORE_DIGITS)


def normalize_qualified(text: str) -> str:
    """`a::b.C` -> `a.b.c`: `.` and `::` are the same separator for matching."""
    return text.replace("::", ".").lower()


def qualified_name_match(query_path: str, qualified_name: str, name: str) -> bool:
    """Spec 04 "query substring found in qualified_name", made meaningful for Cruxe.

    A qualified query (`QuerySet.filter`, `jwt::validate`) matches when it occurs in the
    qualified name at segment boundaries. A bare query (`config`) matches when it is a segment
    of the *qualifier* (module/parent path): the symbol's own name is already scored by
    `exact_match_boost`, and counting it twice would make every exact match a qualified one;
    inside a segment it would lift a Go interface member above every implementation
    (`Hijack` in `Hijacker`, `Read` in `Reader`).
    """
    q = normalize_qualified(query_path).strip(".")
    if not q:
        return False
    qn = normalize_qualified(qualified_name)
    if "." in q:
        return f".{q}." in f".{qn}."
    own = name.lower()
    qualifier = qn[: -len(own) - 1] if qn.endswith("." + own) else ""
    return bool(qualifier) and f".{q}." in f".{qualifier}."


VALUE_KINDS = frozenset({"variable", "constant"})


def _owner_named_alike(query_path: str, qualified_name: str, name: str) -> bool:
    """A field named like its type (dateutil's `weekday.weekday`, assigned in `class weekday`'s
    `__init__`) asked for by that bare name: the query is the type's name as much as the field's,
    and the type is answered by its own exact match; the field's qualifier says the name again
    only because the field sits in that type, which lifts no value above the type."""
    qn = normalize_qualified(qualified_name).split(".")
    return "." not in query_path.strip(".") and len(qn) > 1 and qn[-2] == name.lower() \
        and f".{normalize_qualified(query_path).strip('.')}." not in f".{'.'.join(qn[:-2])}."


def path_affinity(terms: tuple[str, ...], path: str) -> float:
    """Spec 04 "query substring found in file path": any of the query's path-relevant terms
    (already lower-cased, stop words dropped) occurs in the lower-cased path."""
    p = path.lower()
    return PATH_AFFINITY_BOOST if any(t in p for t in terms) else 0.0


def compose(bm25_score: float, **boosts: float) -> dict[str, float]:
    """The signals dict of one hit: every boost, the semantic slot, and the final score.

    `final_score = bm25_score + sum(boosts)`: additive, no interaction effects.
    """
    bm25_score = round(bm25_score, SCORE_DIGITS)
    out = {"bm25_score": bm25_score}
    total = 0.0
    for name in BOOST_NAMES:
        v = float(boosts.get(name, 0.0))
        out[name] = v
        total += v
    out["semantic_similarity"] = 0.0
    out["final_score"] = round(bm25_score + total, SCORE_DIGITS)
    return out


def recompose(hit, **changed: float) -> None:
    """Set some of a ranked hit's boosts anew (rounded as every signal is) and its score with
    them: a stage after the first scoring (coverage, declarations, qualified names) keeps the
    explanation exact."""
    boosts = {name: hit.signals[name] for name in BOOST_NAMES}
    boosts.update({name: round(v, SCORE_DIGITS) for name, v in changed.items()})
    hit.signals = compose(hit.signals["bm25_score"], **boosts)
    hit.score = hit.signals["final_score"]


def symbol_boosts(*, name: str, qualified_name: str, kind: str, path: str, target: str,
                  query_path: str, kind_intent: str | None, path_terms: tuple[str, ...],
                  definition: bool = True, declaration: bool = False,
                  wants_tests: bool = False, base: float = 0.0) -> dict[str, float]:
    """The eight boosts for one result. `declaration` says the definition has no working
    body (`declarations.is_declaration`). `definition` says the hit is a symbol definition
    (snippet/file results pass kind="" and definition=False).

    definition_boost rewards the definition *of the name asked for* (definition-first: the
    `def parse` above a line that calls `parse`), so it needs the exact name too. That is the
    only reading under which all of spec 04's worked examples hold: the 8.5 and 12.0 sums
    include it for exact matches, while the "zero boost" variable (no name match) totals
    exactly its kind weight 0.5 and the minimum boost is 0.0.
    """
    exact = bool(target) and name.lower() == target.lower()
    return {
        "exact_match_boost": exact_match_boost(name, target) if exact else 0.0,
        "qualified_name_boost": QUALIFIED_NAME_BOOST
        if query_path and qualified_name and qualified_name_match(query_path, qualified_name, name)
        and not (exact and kind in VALUE_KINDS and _owner_named_alike(query_path, qualified_name, name)) else 0.0,
        "kind_weight": kind_weight(kind),
        "query_intent_boost": query_intent_boost(kind_intent, kind),
        "definition_boost": DEFINITION_BOOST if definition and exact else 0.0,
        "path_affinity": path_affinity(path_terms, path),
        "test_file_penalty": test_file_penalty(path, wants_tests, 0.0 if exact else base),
        "declaration_penalty": DECLARATION_PENALTY if declaration else 0.0,
    }
