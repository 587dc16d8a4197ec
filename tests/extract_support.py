"""Helpers shared by the per-language extraction tests."""
from __future__ import annotations

from cruxe.model import FileExtract, Symbol


def rows(fx: FileExtract) -> list[list]:
    """Symbols as the expected-file rows: parent given by its qualified name."""
    return [[s.name, s.qualified_name, s.kind, s.line_start, s.line_end, s.name_line,
             fx.symbols[s.parent].qualified_name if s.parent is not None else None]
            for s in fx.symbols]


def by_qname(fx: FileExtract) -> dict[str, Symbol]:
    return {s.qualified_name: s for s in fx.symbols}
