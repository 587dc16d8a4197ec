"""The impl header above a Rust method: which trait the method implements (`locate_symbol`'s
`impl Trait for Type`, `find_references`' `interfaces`). The index keeps no impl block, so the
header is read from the lines above the method."""
from __future__ import annotations

import re

from . import intent
from .filetext import line_of
from .store import Symbol, chunks

IMPL_HEADER_WINDOW = 40  # lines above a method searched for its impl header
_IMPL_LINE = re.compile(r"^\s*(?:unsafe\s+)?impl\b")
_TRAIT_LINE = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:unsafe\s+)?(?:auto\s+)?trait\b")


def impl_trait(gen, repo: str, ref: str, row: Symbol) -> str | None:
    """The trait the impl header nearest above `row` names; "" for an inherent impl (no
    `for`); None when no header is in sight or it cannot be read (a header over lines)."""
    lo = max(1, row.line_start - IMPL_HEADER_WINDOW)
    found = chunks(gen, repo, ref, row.path, (lo, row.line_start))
    for n in range(row.line_start - 1, lo - 1, -1):
        text = line_of(found, n) or ""
        if _TRAIT_LINE.match(text):
            return None  # a trait's own method (a default body), whatever impl is above the trait
        if _IMPL_LINE.match(text):
            head = intent.rust_impl(text.split(" where ")[0])
            return head[0] if head else None if " for " in text else ""
    return None
