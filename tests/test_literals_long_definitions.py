"""A message in a long definition that the snippet chunks cut (CHUNK_MAX_LINES) keeps its words
when the cut falls inside it, and the strings after the cut are not read inside out: outside
Python a definition's pieces are scanned together (`literals.field_texts` runs)."""
from __future__ import annotations

from cruxe.extract import extract
from cruxe.literals import field_texts
from cruxe.model import text_lines
from cruxe.store.writer import CHUNK_MAX_LINES, chunk_pieces


def _fields(path: str, text: str, language: str) -> tuple[list[tuple[int, int, str]], list[str]]:
    lines = text_lines(text)
    pieces, runs = chunk_pieces(extract(path, text.encode(), language), lines)
    return pieces, field_texts("\n".join(lines), language, [(a, b) for a, b, _ in pieces], runs)


def _long_ts(cut_inside: bool) -> str:
    """A function whose multi-line template literal message spans line CHUNK_MAX_LINES (the
    cut) when `cut_inside`, then another message after the cut."""
    head = ["export function createStore(listener: unknown) {"]
    filler = [f"  const v{i} = {i};" for i in range(CHUNK_MAX_LINES - 3 if cut_inside else 10)]
    message = ["  throw new Error(`Expected the listener to be a function. Instead, received: '${",
               "    typeof listener",
               "  }'`);"]
    tail = [f"  const w{i} = {i};" for i in range(20)]
    after = ["  if (listener === null) {", "    throw new Error('Reducers may not dispatch actions while running');",
             "  }", "}"]
    return "\n".join(head + filler + message + tail + after) + "\n"


def test_a_message_across_the_cut_keeps_its_words_and_the_next_message_is_read_right():
    pieces, fields = _fields("src/store.ts", _long_ts(True), "typescript")
    assert len(pieces) == 2  # the function is cut, inside the template literal
    assert "expected the listener to be a function" in " ".join(fields)
    assert "reducers may not dispatch actions while running" in " ".join(fields)


def test_a_short_definition_scans_as_before():
    pieces, fields = _fields("src/store.ts", _long_ts(False), "typescript")
    assert len(pieces) == 1
    assert "expected the listener to be a function" in fields[0]
    assert "reducers may not dispatch actions while running" in fields[0]


def test_a_stray_quote_in_one_definition_does_not_reach_the_next():
    text = ("function a() {\n  const re = /['\"]/;\n  return re;\n}\n"
            "function b() {\n  throw new Error(`Duplicate discriminator value ${v} here`);\n}\n")
    _, fields = _fields("src/a.ts", text, "typescript")
    assert "duplicate discriminator value | here |" in fields
