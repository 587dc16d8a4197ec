"""Hits as both lookups build them: a definition's unscored hit, and the prefix of a ranking
that holds `limit` distinct results (search_code and locate_symbol share them; locate_symbol
is also asked by search_code, so they live below both)."""
from __future__ import annotations

import re

from ..model import Hit
from ..shape import dedup_key
from ..store import Symbol


def take(ranked: list[Hit], limit: int) -> list[Hit]:
    """The shortest prefix holding `limit` distinct results by shape's dedup key, duplicates
    included: shaping then drops and counts them (`suppressed_duplicate_count`) and still
    has `limit` results to show."""
    seen: set[str] = set()
    for i, hit in enumerate(ranked):
        seen.add(dedup_key(hit))
        if len(seen) > limit:
            return ranked[:i]
    return ranked


def symbol_hit(s: Symbol) -> Hit:
    """The unscored hit of a definition (a row with no signature or visibility says "")."""
    return Hit("symbol", s.path, s.line_start, s.line_end, s.kind, s.name, s.qualified_name,
               s.signature or "", s.language, s.visibility or "", s.symbol_id, s.symbol_stable_id)


_RUST_STATIC = re.compile(r"(?:pub(?:\([^)]*\))?\s+)?static\b")


def a_field(hit: Hit) -> bool:
    """A Rust struct's field (extraction's variables but `static mut`): found by its name
    (`locate_symbol`, a symbol query), no answer to a question in words (`search.run_plan`).
    Rust's only: Python's and Go's fields were measured as answers to questions and kept
    (docs/BENCHMARKS.md, "Fields as definitions")."""
    return hit.result_type == "symbol" and hit.language == "rust" and hit.kind == "variable" \
        and not _RUST_STATIC.match(hit.signature)
