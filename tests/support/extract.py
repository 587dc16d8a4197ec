"""Helpers shared by the per-language extraction tests."""
from __future__ import annotations

import re

from cruxe.languages import _common
from cruxe.model import FileExtract, Symbol


def rows(fx: FileExtract) -> list[list]:
    """Symbols as the expected-file rows: parent given by its qualified name."""
    return [[s.name, s.qualified_name, s.kind, s.line_start, s.line_end, s.name_line,
             fx.symbols[s.parent].qualified_name if s.parent is not None else None]
            for s in fx.symbols]


def by_qname(fx: FileExtract) -> dict[str, Symbol]:
    return {s.qualified_name: s for s in fx.symbols}


def assert_one_reader_per_pattern(lang: str, query_text: str, readers: dict[str, str]) -> None:
    """`_common.by_reader` routes a match by its first capture name: every capture of the
    query must have a reader, and all captures of one pattern the same reader."""
    text = query_text.encode()
    q = _common.query(lang, query_text)
    for i in range(q.pattern_count):
        pattern = text[q.start_byte_for_pattern(i):q.end_byte_for_pattern(i)].decode()
        found = {readers[name] for name in re.findall(r"@(\w+)", pattern)}
        assert len(found) == 1, (lang, pattern, found)
