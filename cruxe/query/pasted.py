"""Pasted code: a query that is a line of the repository's code, or the start of one.

Agents search for a line they saw (in a diff, a log, a review) the way they grep for it, and
retrieval alone answers such a query by its words: `for _, cookie := range cookies {` is a bag
of common identifiers whose line ranks anywhere. When the query's text occurs verbatim (its
whitespace collapsed, case as typed) on at most MAX_PLACES lines of the code, those lines are
where it is, and they come first: each as the definition it starts, or as the line itself.
More places than that and the text is an idiom (`return nil, err`), left to retrieval.

Candidates come from one phrase query over the snippets' identifiers (the words in order), and
each candidate chunk is checked line by line for the text, so a phrase match across lines or
punctuation that differs is no place.
"""
from __future__ import annotations

import re

from ..codetokens import IDENT_PATTERN
from ..model import is_non_source_path, is_test_file
from ..store import Field as F
from ..store import Symbol, innermost_symbols, search_index
from .planner import MAX_QUERY_TERMS, Clause

MIN_TOKENS = 3  # fewer identifiers (`Viper.Get()`, `parse`) are names, answered by name
MAX_PLACES = 5
MAX_CHARS = 300  # a line of code, not a file pasted whole
FETCH = 25  # chunks checked: more phrase matches than this are an idiom anyway
_IDENT = re.compile(IDENT_PATTERN)
# a name, however qualified (`http.Server.ListenAndServe`, `std::fs::read`): its definition
# is the answer (locate), not the lines that happen to spell it out
_NAME = re.compile(r"[\w$.:#/!]+")


def places(gen, repo: str, ref: str, query: str, language: str | None
           ) -> list[tuple[str, int, Symbol | None]]:
    """The lines the query is verbatim on (source first, then path and line order), each with the definition it
    starts (None when it starts none): [] unless there are 1..MAX_PLACES of them."""
    text = " ".join(query.split())
    tokens = [t.lower() for t in _IDENT.findall(text)]
    if "\n" in query.strip() or len(tokens) < MIN_TOKENS or len(text) > MAX_CHARS or _NAME.fullmatch(text):
        return []
    phrase = Clause(F.CONTENT, tuple(tokens[:MAX_QUERY_TERMS]), 1.0, phrase=True)
    docs, _ = search_index(gen, "snippets", (phrase,), FETCH, repo, ref, language, ())
    found: set[tuple[str, int]] = set()
    for _, chunk in docs:
        for i, line in enumerate(chunk.source.split("\n")):
            if text in " ".join(line.split()):
                found.add((chunk.path, chunk.line_start + i))
    if not 0 < len(found) <= MAX_PLACES:
        return []
    # the code before its tests, docs and examples (which often repeat a line they test)
    lines = sorted(found, key=lambda pl: (is_test_file(pl[0]), is_non_source_path(pl[0]), pl))
    around = innermost_symbols(gen, repo, ref, lines)
    out = []
    for path, line in lines:
        s = around.get((path, line))
        starts = s is not None and (s.line_start == line or text in " ".join((s.signature or "").split()))
        out.append((path, line, s if starts else None))
    return out
