"""Pasted code: a query that is a line of the repository's code, or the start of one.

Agents search for a line they saw (in a diff, a log, a review) the way they grep for it, and
retrieval alone answers such a query by its words: `for _, cookie := range cookies {` is a bag
of common identifiers whose line ranks anywhere. When the query's text occurs verbatim (its
whitespace collapsed, case as typed) on at most MAX_PLACES lines of the code, those lines are
where it is, and they come first, each as a trace's frame is answered: the innermost definition
around it (a doc comment's line is the definition below it), else the line itself. More places
than that and the text is an idiom (`return nil, err`), left to retrieval.

Candidates come from one phrase query over the snippets' identifiers (the words in order), and
each candidate chunk is checked line by line for the text, so a phrase match across lines or
punctuation that differs is no place.
"""
from __future__ import annotations

import re

from ..codetokens import COMMENT_OR_ATTRIBUTE_LINE, IDENT_PATTERN
from ..model import is_non_source_path, is_test_file
from ..store import Chunk, Symbol, innermost_symbols, search_index
from ..store import Field as F
from .planner import MAX_QUERY_TERMS, Clause

MIN_TOKENS = 3  # fewer identifiers (`Viper.Get()`, `parse`) are names, answered by name
MAX_PLACES = 5
MAX_CHARS = 300  # a line of code, not a file pasted whole
FETCH = 25  # chunks checked: more phrase matches than this are an idiom anyway
_IDENT = re.compile(IDENT_PATTERN)
# a name, however qualified (`http.Server.ListenAndServe`, `std::fs::read`): its definition
# is the answer (locate), not the lines that happen to spell it out
_NAME = re.compile(r"[\w$.:#/!]+")
# what code has and a sentence of prose does not: a question that a doc comment happens to say
# word for word is a question (query.coverage), not a pasted line
CODE_MARK = re.compile(r"[(){}\[\]=<>;:\"'`]|->|//|/\*|\w\.\w|^\s*#")


def places(gen, repo: str, ref: str, query: str, language: str | None
           ) -> list[tuple[str, int, Symbol | None]]:
    """The lines the query is verbatim on (source first, then path and line order), each with
    the definition it is in or documents (None: the line alone): [] unless 1..MAX_PLACES."""
    text = " ".join(query.split())
    tokens = [t.lower() for t in _IDENT.findall(text)]
    if "\n" in query.strip() or len(tokens) < MIN_TOKENS or len(text) > MAX_CHARS or _NAME.fullmatch(text):
        return []
    phrase = Clause(F.CONTENT, tuple(tokens[:MAX_QUERY_TERMS]), 1.0, phrase=True)
    docs, _ = search_index(gen, "snippets", (phrase,), FETCH, repo, ref, language, ())
    found: dict[tuple[str, int], int] = {}  # (path, line) -> the line it stands for (a doc comment's definition)
    for _, chunk in docs:
        for i, line in enumerate(chunk.source.split("\n")):
            if text in " ".join(line.split()):
                found[(chunk.path, chunk.line_start + i)] = _documented(chunk, i)
    if not 0 < len(found) <= MAX_PLACES:
        return []
    # the code before its tests, docs and examples (which often repeat a line they test)
    lines = sorted(found, key=lambda pl: (is_test_file(pl[0]), is_non_source_path(pl[0]), pl))
    around = innermost_symbols(gen, repo, ref, [(p, found[(p, n)]) for p, n in lines])
    return [(p, n, around.get((p, found[(p, n)]))) for p, n in lines]


def _documented(chunk: Chunk, i: int) -> int:
    """The line a chunk's line `i` stands for: itself, or for a comment or attribute line the
    first line below its run of them (the definition it documents)."""
    lines = chunk.source.split("\n")
    j = i
    while j < len(lines) and COMMENT_OR_ATTRIBUTE_LINE.match(lines[j]):
        j += 1
    return chunk.line_start + (j if j < len(lines) else i)
