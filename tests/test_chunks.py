"""Snippet chunks (`store.writer.chunk_ranges`): a definition's chunk holds the doc comment,
attributes and decorators right above it (not a gap merged with what precedes it); the chunks
stay in line order, disjoint, bounded, and cover every non-blank line."""
from __future__ import annotations

import pytest

from cruxe.extract import extract
from cruxe.model import text_lines
from cruxe.store.writer import CHUNK_MAX_LINES, chunk_ranges
from support.locations import GO_STRINGS, RUST_LIBRARY, STDLIB, TS_MODULES, require_corpus
from support.repos import marked_line


def _chunks(path: str, text: str, language: str) -> list[tuple[int, int, str]]:
    return chunk_ranges(extract(path, text.encode(), language), text_lines(text))




def _chunk_of(chunks: list[tuple[int, int, str]], line: int) -> tuple[int, int]:
    return next((a, b) for a, b, _ in chunks if a <= line <= b)


# Three small functions in a row: before, the doc comments were small gaps merged with the
# small function above them, so `Parse`'s words scored in `Small`'s chunk.
GO_FILE = """package p

type Small struct{ a int }

// Parse reads a config from its text form
// and reports the first bad line.
func Parse(text string) (*Small, error) {
	return &Small{}, nil
}

// Other is unrelated.
func Other() {}
"""


def test_a_go_doc_comment_is_in_its_function_chunk_not_in_the_small_run_before_it():
    chunks = _chunks("p.go", GO_FILE, "go")
    parse = _chunk_of(chunks, marked_line(GO_FILE, "func Parse"))
    assert parse[0] == marked_line(GO_FILE, "// Parse reads")
    assert _chunk_of(chunks, marked_line(GO_FILE, "type Small"))[1] < parse[0]


TS_FILE = """import { x } from "./x";

/**
 * A queue of jobs that wakes one waiting
 * worker when a job arrives.
 */
@Injectable()
export class Queue {
  push(job: string): void {
    x.push(job);
  }
}
"""


def test_a_jsdoc_and_a_decorator_are_in_their_class_chunk():
    chunks = _chunks("q.ts", TS_FILE, "typescript")
    assert _chunk_of(chunks, marked_line(TS_FILE, "export class Queue")) == (3, len(TS_FILE.splitlines()))
    assert _chunk_of(chunks, 1)[1] < 3


PY_FILE = """LIMIT = 3

# Keeps at most LIMIT entries: the oldest go first
# when a new one arrives.
def trim(entries):
    return entries[-LIMIT:]
"""


def test_a_python_comment_block_is_in_its_function_chunk_and_a_blank_line_breaks_it():
    chunks = _chunks("m.py", PY_FILE, "python")
    assert _chunk_of(chunks, marked_line(PY_FILE, "def trim")) == (marked_line(PY_FILE, "# Keeps at most"), 6)
    apart = PY_FILE.replace("# when a new one arrives.\n", "# when a new one arrives.\n\n")
    chunks = _chunks("m.py", apart, "python")
    assert _chunk_of(chunks, marked_line(apart, "def trim"))[0] == marked_line(apart, "def trim")


# A few real files per language: classes, impl blocks, doc comments, attributes.
REAL = [("python", STDLIB / "json", "*.py"), ("python", STDLIB / "logging", "*.py"), ("go", GO_STRINGS, "*.go"),
        ("rust", RUST_LIBRARY / "alloc/src/vec", "*.rs"), ("typescript", TS_MODULES / "rxjs/src/internal", "*.ts")]


@pytest.mark.parametrize("language,root,pattern", REAL)
def test_real_files_chunks_are_ordered_disjoint_bounded_and_cover_every_non_blank_line(language, root, pattern):
    for path in sorted(require_corpus(root).glob(pattern))[:15]:
        text = path.read_text(errors="replace")
        lines = text_lines(text)
        chunks = chunk_ranges(extract(str(path), text.encode(), language), lines)
        assert all(a <= b and b - a + 1 <= CHUNK_MAX_LINES for a, b, _ in chunks), path
        assert all(chunks[i][1] < chunks[i + 1][0] for i in range(len(chunks) - 1)), path
        covered = {n for a, b, _ in chunks for n in range(a, b + 1)}
        assert {n for n, line in enumerate(lines, 1) if line.strip()} <= covered, path
