"""Identifier and path splitting, shared by indexing and querying.

Tantivy's built-in tokenizers cannot split camelCase (its regex engine has no look-around)
and its `default` tokenizer drops tokens of 40+ bytes, so Cruxe splits in Python and feeds
Tantivy space-separated terms analysed by whitespace + lowercase. Every splitter keeps the
whole lower-cased identifier as a term too, so an exact identifier is always findable.
"""
from __future__ import annotations

import re
from functools import lru_cache
from itertools import chain

_IDENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*|[0-9]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_DOTTED_SEP = re.compile(r"::|\.|->|#|/|\\")
_PATH_SEP = re.compile(r"[/\\._\-\s]+")

MAX_TERMS_PER_TEXT = 20_000  # bounds index size for huge bodies; BM25 gains nothing past it


def split_identifier(ident: str) -> list[str]:
    """`getHTTPResponse` -> [get, http, response]; `snake_case_name` -> [snake, case, name]."""
    # `_` and `$` are in no part, and the look-ahead needs a letter: one findall over the
    # whole identifier gives the parts of its snake chunks in turn
    return [m.lower() for m in _CAMEL.findall(ident)]


def identifier_terms(ident: str) -> list[str]:
    """The whole lower-cased identifier, then its parts when there are several."""
    return list(_identifier_terms(ident))


@lru_cache(maxsize=65536)
def _identifier_terms(ident: str) -> tuple[str, ...]:
    # memoized: the same identifiers come back thousands of times in a repository's code
    whole = ident.lower()
    if not whole:
        return ()
    parts = split_identifier(ident)
    if len(parts) <= 1 and (not parts or parts[0] == whole):
        return (whole,)
    return (whole, *parts)


def dotted_terms(name: str) -> list[str]:
    """`std::io::Error` -> [std::io::error, std, io, error] (segments split further)."""
    whole = name.lower().strip()
    if not whole:
        return []
    if name.lower() == whole and _DOTTED_SEP.search(name) is None:  # one plain segment
        return identifier_terms(name)
    # no separator can be part of an identifier, so the segments' identifiers are the name's
    return [whole, *chain.from_iterable(map(_identifier_terms, _IDENT.findall(name)))]


def path_terms(path: str) -> list[str]:
    """`src/auth/handler.rs` -> [src/auth/handler.rs, src, auth, handler, rs, handler.rs]."""
    whole = path.lower()
    out = [whole]
    base = whole.rsplit("/", 1)[-1]
    if base != whole:
        out.append(base)
    for comp in _PATH_SEP.split(path):
        if comp:
            out.extend(_identifier_terms(comp))
    return out


def text_terms(text: str, limit: int = MAX_TERMS_PER_TEXT) -> list[str]:
    """Every identifier-like run in free text or code, split; at most `limit` terms."""
    idents = _IDENT.findall(text)
    del idents[limit:]  # each identifier gives at least one term
    out = list(chain.from_iterable(map(_identifier_terms, idents)))
    del out[limit:]
    return out


def query_terms(text: str) -> list[str]:
    """Distinct terms of a query, in first-seen order (same splitting as indexing)."""
    seen: dict[str, None] = {}
    for t in text_terms(text, limit=256):
        seen.setdefault(t, None)
    return list(seen)


def joined(terms: list[str]) -> str:
    """Terms as one string for a whitespace-tokenized Tantivy field."""
    return " ".join(terms)


# ---- query-side English morphology ---------------------------------------------------------
# Used only to expand query words; indexed text is never stemmed. A question says
# `connections`, `parsing`, `redirection`; the code says `Connection`, `parser`, `redirect`.

MORPH_MIN_LEN = 4  # shorter words ("is", "run") have too many unrelated look-alikes
_MORPH_WORD = re.compile(r"[a-z]+")
# (suffix, replacements) tried in order; the first suffix that fits gives the stems
_STRIP = (("ications", ("y",)), ("ication", ("y",)), ("ations", ("e", "")), ("ation", ("e", "")),
          ("ies", ("y", "ie")), ("ied", ("y",)), ("ions", ("e", "")), ("ion", ("e", "")),
          ("ings", ("e", "")), ("ing", ("e", "")), ("ers", ("e", "")), ("er", ("e", "")),
          ("ors", ("e", "")), ("or", ("e", "")), ("ed", ("e", "")), ("ments", ("",)), ("ment", ("",)),
          ("ness", ("",)), ("ily", ("y",)), ("ly", ("", "le")), ("es", ("", "e")), ("s", ("",)))
_GROW = ("s", "er", "ers", "ing", "ion", "ions", "ed")


def word_variants(word: str) -> list[str]:
    """Other inflections of an English word, most likely first, the word itself left out:
    `connections` -> connection, connect, ...; `parsing` -> parse, parser, ...; [] for short
    or non-alphabetic words. Candidates need not exist: a term in no document costs nothing."""
    w = word.lower()
    if len(w) < MORPH_MIN_LEN or not _MORPH_WORD.fullmatch(w):
        return []
    stems = word_stems(w)
    out: dict[str, None] = {}
    for s in stems:
        out.setdefault(s, None)
    for s in stems:
        for v in _grown(s):
            out.setdefault(v, None)
    out.pop(w, None)
    return [v for v in out if len(v) >= 3]


def _grown(s: str) -> list[str]:
    if s.endswith("y"):
        return [s[:-1] + "ies", s[:-1] + "ied", s + "ing", s + "s"]
    base = s[:-1] if s.endswith("e") else s
    plural = s + "es" if s.endswith(("s", "sh", "ch", "x")) else s + "s"
    return [plural] + [(base if suf[0] in "aeio" else s) + suf for suf in _GROW if suf != "s"]


def word_stems(w: str) -> list[str]:
    """The stems of a lower-case word, most likely first (`connections` -> connection; the
    word itself when no suffix fits): the base forms a lexicon lists."""
    # a plural's singular first, whatever other suffix it ends in (`characters` -> character)
    plural = [w[:-1]] if w.endswith("s") and not w.endswith(("ss", "us", "is")) and len(w) > 4 else []
    for suf, reps in _STRIP:
        if w.endswith(suf) and len(w) - len(suf) >= 3 and not w.endswith(("ss", "us", "is")):
            root = w[: -len(suf)]
            stems = [root + r for r in reps]
            if len(root) >= 3 and root[-1] == root[-2] and root[-1] not in "lsz":  # running -> run
                stems.append(root[:-1])
            return list(dict.fromkeys(plural + stems))
    return [w]


# ---- comment lines (where a definition's doc comment lies) -------------------------------------
# A line of a comment block: `//`, `///`, `#`, `/*`, ` * `, `*/`. A doc comment above a
# definition (Go, TypeScript's JSDoc, a Python comment) lies outside its symbol's lines.
COMMENT_LINE = re.compile(r"\s*(?://|#(?!\[)|/\*|\*)")
# Lines that may stand between a doc comment and its definition: attributes and decorators.
ATTRIBUTE_LINE = re.compile(r"\s*(?:#\[|@[A-Za-z_])")
COMMENT_OR_ATTRIBUTE_LINE = re.compile(f"{COMMENT_LINE.pattern}|{ATTRIBUTE_LINE.pattern}")


# ---- code text as index terms (the `content`, `content_head` and `content_parts` fields) ----
# Code is split here (`code_terms`, in the parser workers) into whole identifiers
# (IDENT_PATTERN: snake_case kept whole, no 40-byte limit) and identifier parts (PARTS_PATTERN:
# snake and camel splits, an acronym parted from the word after it as `split_identifier` does:
# `HTTPServer` -> HTTP, Server, not HTTPS, erver), for the store's whitespace analyser. Tantivy's own regex
# tokenizer made the same tokens at several times the cost (docs/BENCHMARKS.md, Indexing).
IDENT_PATTERN = r"[A-Za-z0-9_$]+"
PARTS_PATTERN = r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z0-9]+|[A-Z]+"
_PARTS_RE = re.compile(PARTS_PATTERN)
# bytes.translate tables: every byte that is not in an identifier (resp. a part) becomes a
# space, so splitting on whitespace gives exactly the pattern's matches (bytes of non-ASCII
# characters are never identifier bytes, as the patterns never match them either)
_IDENT_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_$")
_TO_IDENTS = bytes(b if b in _IDENT_BYTES else 32 for b in range(256))
_TO_PART_RUNS = bytes(b if b in _IDENT_BYTES and b not in b"_$" else 32 for b in range(256))


def code_terms(code: bytes) -> tuple[str, str]:
    """(identifiers, identifier parts) of UTF-8 code as whitespace-separated text, in text
    order, for the `content`/`content_head` and `content_parts` fields: the tokens and
    positions Tantivy's regex tokenizer gives for IDENT_PATTERN and PARTS_PATTERN, cheaper
    than Python's findall (bytes.translate, then a split). Runs of lower-case letters and
    digits are their own part; other runs are split by PARTS_PATTERN, memoized (the same
    identifiers come back throughout a repository)."""
    idents = code.translate(_TO_IDENTS).decode("ascii")
    parts = [run if run.islower() or run.isdigit() else _parts_of(run)
             for run in code.translate(_TO_PART_RUNS).decode("ascii").split()]
    return idents, " ".join(parts)


@lru_cache(maxsize=200_000)
def _parts_of(run: str) -> str:
    return " ".join(_PARTS_RE.findall(run))
