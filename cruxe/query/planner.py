"""The retrieval plan of `search_code`: a pure function of the query and its filters.

`plan(query, ...)` decides everything before any index is touched: the intent, which
channels (Tantivy indices) to search with which RRF weights, the terms per field with their
boosts, and the filters. Running it is `search.run_plan`. `plan(...).to_dict()` is what
`--explain` shows, so the plan a person reads is the plan that runs.

Field boosts (retrieval time, BM25 per field times boost). Spec 04 fixes five of them:
`symbol_exact` 10, `qualified_name` 3, `signature` 1.5, `path` 1, `content` 0.5. Ours:
- `name_tokens` 4: the split name (`parse_config` -> parse, config): a name made of the
  query's words, above `qualified_name` (3), which also holds module and parent names.
  2 for natural-language queries (NL_NAME_BOOST, issue 17): a method named like one word
  of a question was the usual wrong first answer for the function described.
- `doc_tokens` 16 for natural-language queries: the docstring / doc comment is where a
  symbol says in words what it does, so for a question in words it is the strongest field;
  names are short fields, so BM25's length normalisation already lifts a name made of the
  query's words, and 2:16 still has "validate token" find `validate_token`. 0.5 for symbol
  queries (a name query should not be won by prose that mentions the name).
- natural-language words also search their English inflections (`codetokens.word_variants`)
  in name_tokens and doc_tokens at MORPH_FACTOR of the word's boost, and the words a
  software-English lexicon relates to them (`lexicon.py`: `address` -> addr at
  SPELLING_FACTOR, url at RELATED_FACTOR); searched in snippet content too they cost more
  search time than they found answers (docs/BENCHMARKS.md, "Concept questions").
- the function words of prose (`lexicon.FUNCTION_WORDS`: `whether`, `under`, `two`) search
  doc_tokens only: a doc comment says them as the question does, a name made of them is
  unrelated.
- `symbol_exact` for natural-language queries only for words written like code
  (`parse_config`, `getUser`): plain words of a sentence ("close", "file") are the names of
  hundreds of symbols each (Go has ~500 `Close`) and crowded out what was described.
- snippets: `content_parts` (identifier parts) 0.25, half of `content`, because a part match
  (`config` inside `parse_config`) is weaker than a whole identifier; `path_tokens` 0.25:
  every chunk of a file shares its path, so a path word would otherwise lift all of them.
- files: `filename` 5 and `path` (raw, whole path) 10 for exact hits; `content_head` 0.5 (for a
  path query, the path's names: the files of a folder are ordered by what their code is about).
- error messages (`_message_phrases`, `_literal_clauses`): the pasted message's constant
  segments as phrases in `error_literals` (4, the `literals` channel) and in `content` (2), its
  words in `error_literals` as a bag (0.25: a phrase match, not most of the words in a short
  chunk, decides which emitted message it is). A sentence the classifier calls natural
  language is planned as an error when the code emits most of its words (`message_probe`,
  asked by search_code: the one plan input that needs the index, so `--plan` cannot show it).
- `parent_name` 10 for qualified symbol queries (`JSONDecoder.decode`): the enclosing name
  as written is as telling as the exact name; without it the long qualified-name field
  loses to every other `decode` by BM25 length normalisation.

The chosen numbers (and search.RRF_SCALE) were compared on bench/nl_search.py with a tuning
sample (seed 11: stdlib email+asyncio+json, Django, Go) distinct from the reported one (seed 7).
That bench removes the symbol's own name words from each query, so it cannot reward name
matching. Issue 17's NL name/doc weights (2 / 16, from 4 / 8) were chosen on the tune split
of bench/agent_tasks (concept questions) and checked on nl_search (seed 7), which they
improved too (docs/BENCHMARKS.md).
"""
from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field
from itertools import zip_longest

from .. import codetokens as ct
from .. import intent as intent_mod
from .. import lexicon, literals
from ..errors import CruxeError
from ..model import LANGUAGES, ROLE_KINDS, is_test_path
from ..store import IDENT_PATTERN, PARTS_PATTERN
from ..store import Field as F

RRF_K = 60
# Per-intent channels and RRF weights (CONTRACTS "Ranking"; natural language's snippets 3, not 2:
# a question's words are in a function's body and in the doc comment above it, which the
# snippets channel joins to the definition: DEPARTURES.md).
INTENT_CHANNELS: dict[str, tuple[tuple[str, float], ...]] = {
    "symbol": (("symbols", 3.0), ("snippets", 1.0)),
    "path": (("files", 3.0),),
    "error": (("literals", 3.0), ("snippets", 3.0), ("files", 1.0)),
    "natural_language": (("symbols", 2.0), ("snippets", 3.0), ("files", 1.0)),
}
# Channels that search another channel's index with clauses of their own: `literals` is the
# snippets index's messages emitted by raise/panic/log calls (literals.py), a channel apart so
# that an emitting site's phrase match counts as a first place of its own in the fusion.
CHANNEL_INDEX = {"literals": "snippets"}
# With `role`, only the symbols channel runs (snippets/files carry no role); its weight
# is the plan's own when it has one, else this.
ROLE_ONLY_WEIGHT = 1.0

# Hits fetched per channel: enough for RRF to see agreement between channels, small enough
# that fetching stored fields stays a few milliseconds.
CHANNEL_FETCH = 40
CHANNEL_FETCH_MAX = 200
MAX_QUERY_TERMS = 24  # bounds the query tree for very long inputs

BOOST = {
    F.SYMBOL_EXACT: 10.0, F.QUALIFIED_TOKENS: 3.0, F.SIGNATURE_TOKENS: 1.5, F.PATH_TOKENS: 1.0,
    F.CONTENT: 0.5, F.NAME_TOKENS: 4.0, F.CONTENT_PARTS: 0.25, "snippet_path_tokens": 0.25,
    F.FILENAME: 5.0, F.PATH: 10.0, F.CONTENT_HEAD: 0.5,
}
DOC_BOOST = {"natural_language": 16.0, "symbol": 0.5, "error": 0.5, "path": 0.5}
# name_tokens for a question in words, half a name query's: a described function is told by
# its doc and body more than by its name; a method named like one of the question's words
# was the usual wrong first answer (issue 17).
NL_NAME_BOOST = 2.0
PHRASE_BOOST = 2.0  # error messages: the words in order beat the same words scattered
# ... and above all in a message that a raise/panic/log call emits (literals.py): the emitting
# site before code or tests that merely hold the same words
LITERAL_PHRASE_BOOST = 4.0
LITERAL_BOOST = 0.25
# Morphological variants of a natural-language query's words count for this share of the word's
# own boost: evidence, weaker than the word as written.
MORPH_FACTOR = 0.5
MAX_VARIANT_TERMS = 64
# Words the software-English lexicon relates to a question's words (`address` -> addr, url):
# the same word spelled as code spells it counts for SPELLING_FACTOR of the word's boost, a
# related word for RELATED_FACTOR; both below the word as asked (lexicon.py).
SPELLING_FACTOR = 0.5
RELATED_FACTOR = 0.25
MAX_LEXICON_TERMS = 48

# Words that survive stop-word removal only when nothing else does ("get", "use" are also names).
_WEAK = frozenset("""
code function method class find show defined implemented implement located handles handled
work works done use used using
""".split())
# Words that carry no meaning in a question about code ("where is the ... defined").
STOP_WORDS = _WEAK | frozenset("""
a an and are as at be been being by can could do does did for from has have how i if in into is it
its me my of on or our should so than that the their them then there these this those to was we
were what when where which who why will with would you your
""".split())

_IDENT_RE = re.compile(IDENT_PATTERN)
_PARTS_RE = re.compile(PARTS_PATTERN)
_PUNCT = "?,.;:!()'\"`"  # stripped from the ends of natural-language words
_QUAL_SPLIT = re.compile(r"::|\.|->|#")
CODE_SHAPED = re.compile(r"[a-z0-9][A-Z]|[A-Z]{2}[a-z]|_")  # camelCase hump, acronym join, snake
PATH_AFFINITY_MIN_LEN = 3


@dataclass(frozen=True, slots=True)
class Clause:
    """Terms searched in one field with one boost; `phrase` asks for the words in order."""

    field: str
    terms: tuple[str, ...]
    boost: float
    phrase: bool = False


@dataclass(frozen=True, slots=True)
class Channel:
    index: str  # symbols | snippets | files
    weight: float  # RRF weight
    fetch: int
    clauses: tuple[Clause, ...]
    name: str = ""  # the plan's channel (INTENT_CHANNELS) when it is not the index's own name


@dataclass(frozen=True, slots=True)
class Plan:
    query: str
    intent: str
    confidence: float
    target: str  # the name asked for (symbol intent), else ""
    query_path: str  # the dotted/`::` path asked for, for qualified_name_boost
    kind_intent: str | None  # spec 04 naming-convention hint: type | callable | None
    terms: tuple[str, ...]  # significant lower-cased terms (stop words dropped)
    path_terms: tuple[str, ...]  # terms tested against result paths (path_affinity)
    # Where in a snippet the match is: whole identifiers and identifier parts, lower-cased.
    # For a symbol query only the name asked for (not its qualifier), so a chunk of class
    # `JSONDecoder` found for `JSONDecoder.decode` points at the `decode` line.
    line_terms: tuple[str, ...]
    line_parts: tuple[str, ...]
    channels: tuple[Channel, ...]
    language: str | None = None
    role: str | None = None
    kinds: tuple[str, ...] = ()  # symbol kinds allowed by `role` (empty: any)
    wants_tests: bool = False  # the query asks for tests: no test_file_penalty
    rrf_k: int = RRF_K
    limit: int = 10
    notes: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict:
        return asdict(self)


def validate_filters(role: str | None, language: str | None) -> tuple[str | None, str | None]:
    """Canonical role/language or CruxeError(invalid_input) naming the bad value."""
    if role is not None:
        role = role.strip().lower()
        if role not in ROLE_KINDS:
            raise CruxeError("invalid_input", f"unknown role {role!r}",
                             {"field": "role", "allowed": sorted(ROLE_KINDS)})
    if language is not None:
        language = language.strip().lower()
        if language not in LANGUAGES:
            raise CruxeError("invalid_input", f"unknown language {language!r}",
                             {"field": "language", "allowed": list(LANGUAGES)})
    return role, language


def validate_limit(limit: int) -> int:
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
        raise CruxeError("invalid_input", "limit must be a positive integer", {"field": "limit"})
    return limit


def plan(query: str, *, role: str | None = None, language: str | None = None, limit: int = 10,
         intent: str | None = None) -> Plan:
    """Build the retrieval plan for one `search_code` request (pure; no I/O). `intent`, when
    given, replaces the classifier's (search_code passes "error" for a sentence that the code
    emits as a message: `message_probe`)."""
    q = query.strip()
    if not q:
        raise CruxeError("invalid_input", "query must not be empty", {"field": "query"})
    role, language = validate_filters(role, language)
    limit = validate_limit(limit)
    intent, confidence = (intent, PROBED_CONFIDENCE) if intent else intent_mod.classify(q)
    target, query_path = _symbol_target(q) if intent == "symbol" else ("", "")
    kind_intent = intent_mod.query_kind_intent(q) if intent == "symbol" else None
    words = _significant_words(q, intent)
    terms = _dedup(t for w in words for t in ct.query_terms(w))[:MAX_QUERY_TERMS]
    fetch = min(CHANNEL_FETCH_MAX, max(CHANNEL_FETCH, limit * 3))
    builders = {"symbols": _symbol_clauses, "snippets": _snippet_clauses, "files": _file_clauses,
                "literals": _literal_clauses}
    channels = []
    notes = []
    for name, weight in _channels_for(intent, role, notes):
        clauses = builders[name](q, intent, words, terms, target, query_path)
        if clauses:
            index = CHANNEL_INDEX.get(name, name)
            channels.append(Channel(index, weight, fetch, tuple(clauses), "" if index == name else name))
    line_terms, line_parts = _content_terms([target] if intent == "symbol" else words)
    return Plan(query=q, intent=intent, confidence=round(confidence, 3), target=target,
                query_path=query_path, kind_intent=kind_intent, terms=tuple(terms),
                path_terms=_path_affinity_terms(intent, q, target, words),
                line_terms=tuple(line_terms), line_parts=tuple(line_parts),
                channels=tuple(channels), language=language, role=role,
                kinds=tuple(sorted(ROLE_KINDS[role])) if role else (), limit=limit, notes=tuple(notes),
                wants_tests=asks_for_tests(q))


TEST_WORDS = frozenset({"test", "tests", "testing", "spec", "specs", "fixture", "fixtures", "mock", "mocks"})


def asks_for_tests(q: str) -> bool:
    """The query is about tests: a test word (`test`, `spec`, `TestFoo`, `test_bar`) or a
    test-file path in it."""
    if any(t in TEST_WORDS for t in ct.query_terms(q)):
        return True
    return any(is_test_path(t) for t in intent_mod.path_tokens(q))


def _channels_for(intent: str, role: str | None, notes: list[str]) -> tuple[tuple[str, float], ...]:
    chans = INTENT_CHANNELS[intent]
    if role is None:
        return chans
    notes.append("role filter: symbols channel only")
    weight = dict(chans).get("symbols", ROLE_ONLY_WEIGHT)
    return (("symbols", weight),)


def _symbol_target(q: str) -> tuple[str, str]:
    """(last-segment name, qualified path as written) of a symbol query: `QuerySet.filter` ->
    (`filter`, `QuerySet.filter`); `auth::jwt::check` -> (`check`, `auth::jwt::check`);
    `fn parse` -> (`parse`, `parse`). Separators are kept as written: the index holds the
    qualified name whole in the language's own spelling, and matching normalises both."""
    name = (intent_mod.symbol_name(q) or q).rstrip("!")
    segments = [s for s in _QUAL_SPLIT.split(name) if s]
    if not segments:
        return name, name
    return segments[-1], name


def _significant_words(q: str, intent: str) -> list[str]:
    """Query words worth searching for. Natural-language questions lose their stop words;
    identifiers, paths and messages are searched as written."""
    words = [w for w in q.split() if intent == "symbol" or not intent_mod.is_url(w.strip(_PUNCT))]
    if intent == "error":  # a pasted message's filled-in values are no words of the code
        words = [w for w in literals.unwrap_message(q).split() if not literals.is_value(w)]
    if intent != "natural_language":
        return words or q.split()
    kept = [w for w in words if w.strip(_PUNCT).lower() not in STOP_WORDS]
    if not kept:  # "how does it work": keep the weak words rather than nothing
        kept = [w for w in words if w.strip(_PUNCT).lower() in _WEAK]
    return kept or words


def _dedup(items) -> list[str]:
    seen: dict[str, None] = {}
    for t in items:
        if t:
            seen.setdefault(t, None)
    return list(seen)


def _path_affinity_terms(intent: str, q: str, target: str, words: list[str]) -> tuple[str, ...]:
    if intent == "path":
        return tuple(_dedup([q.strip("\"'`").lower().lstrip("./")]))
    if intent == "symbol":
        return (target.lower(),) if len(target) >= PATH_AFFINITY_MIN_LEN else ()
    plain = (w.strip(_PUNCT).lower() for w in words)
    idents = (w for w in plain if len(w) >= PATH_AFFINITY_MIN_LEN and _IDENT_RE.fullmatch(w))
    # a file or folder named inside a sentence ("read the setup.cfg config file") says where
    paths = (t.lower().replace("\\", "/").lstrip("./") for t in intent_mod.path_tokens(q))
    return tuple(_dedup([*paths, *idents]))


def _content_terms(words: list[str]) -> tuple[list[str], list[str]]:
    """Query words as the snippets index analyses code: whole identifiers and identifier parts."""
    text = " ".join(words)
    idents = _dedup(m.lower() for m in _IDENT_RE.findall(text))[:MAX_QUERY_TERMS]
    parts = _dedup(m.lower() for m in _PARTS_RE.findall(text))[:MAX_QUERY_TERMS]
    return idents, parts


def _symbol_clauses(q, intent, words, terms, target, query_path) -> list[Clause]:
    out: list[Clause] = []
    if intent == "symbol":
        name_terms = ct.identifier_terms(target)
        out.append(Clause(F.SYMBOL_EXACT, (target.lower(),), BOOST[F.SYMBOL_EXACT]))
        out.append(Clause(F.NAME_TOKENS, tuple(name_terms), BOOST[F.NAME_TOKENS]))
        segments = [x for x in _QUAL_SPLIT.split(query_path) if x]
        if len(segments) > 1:
            out.append(Clause(F.QUALIFIED_TOKENS, tuple(ct.dotted_terms(query_path)), BOOST[F.QUALIFIED_TOKENS]))
            # `JSONDecoder.decode`: the enclosing name as written is as telling as the name.
            out.append(Clause(F.PARENT_NAME, (segments[-2],), BOOST[F.SYMBOL_EXACT]))
        else:
            out.append(Clause(F.QUALIFIED_TOKENS, tuple(name_terms), BOOST[F.QUALIFIED_TOKENS]))
        out.append(Clause(F.SIGNATURE_TOKENS, tuple(name_terms), BOOST[F.SIGNATURE_TOKENS]))
        out.append(Clause(F.DOC_TOKENS, tuple(name_terms), DOC_BOOST[intent]))
        out.append(Clause(F.PATH_TOKENS, tuple(name_terms), BOOST[F.PATH_TOKENS]))
        return out
    if not terms:
        return out
    # Only words written like code are exact-name candidates: the plain words of a sentence
    # ("close", "file") name hundreds of symbols each and would crowd out what was described.
    idents = _dedup(w.lower() for w in (x.strip(_PUNCT) for x in words)
                    if _IDENT_RE.fullmatch(w) and CODE_SHAPED.search(w))
    if idents:
        out.append(Clause(F.SYMBOL_EXACT, tuple(idents), BOOST[F.SYMBOL_EXACT]))
    name_boost = NL_NAME_BOOST if intent == "natural_language" else BOOST[F.NAME_TOKENS]
    named = tuple(t for t in terms if t not in lexicon.FUNCTION_WORDS) or tuple(terms)
    out += [Clause(F.NAME_TOKENS, named, name_boost),
            Clause(F.QUALIFIED_TOKENS, named, BOOST[F.QUALIFIED_TOKENS]),
            Clause(F.SIGNATURE_TOKENS, named, BOOST[F.SIGNATURE_TOKENS]),
            Clause(F.DOC_TOKENS, tuple(terms), DOC_BOOST[intent]),
            Clause(F.PATH_TOKENS, named, BOOST[F.PATH_TOKENS])]
    for extra, factor in expansions(intent, terms):
        out += [Clause(F.NAME_TOKENS, extra, name_boost * factor),
                Clause(F.DOC_TOKENS, extra, DOC_BOOST[intent] * factor)]
    return out


def expansions(intent: str, terms: list[str]) -> list[tuple[tuple[str, ...], float]]:
    """A sentence's other words, each group with the share of the word's boost it counts for:
    its inflections (MORPH_FACTOR), the spellings code uses for its words (SPELLING_FACTOR) and
    related words (RELATED_FACTOR, lexicon.py). Empty for any other intent."""
    if intent != "natural_language":
        return []
    variants = word_variants(intent, terms)
    seen = set(terms) | set(variants)
    spellings = _dedup(w for t in terms for w in lexicon.expand(t)[0] if w not in seen)[:MAX_LEXICON_TERMS]
    seen.update(spellings)
    related = _dedup(w for t in terms for w in lexicon.expand(t)[1] if w not in seen)[:MAX_LEXICON_TERMS]
    groups = ((variants, MORPH_FACTOR), (tuple(spellings), SPELLING_FACTOR), (tuple(related), RELATED_FACTOR))
    return [(g, f) for g, f in groups if g]


def word_variants(intent: str, terms: list[str]) -> tuple[str, ...]:
    """Other inflections of a sentence's words (`connections` -> connection, `parsing` ->
    parser): searched beside the words, weaker, in the symbol fields already analysed."""
    if intent != "natural_language":
        return ()
    seen = set(terms)
    # each word's likeliest forms first (its stems), then the next ones: the cap cuts the
    # unlikely forms of every word, not every form of the last words
    per_word = [ct.word_variants(t) for t in terms]
    ranked = (v for row in zip_longest(*per_word) for v in row if v is not None and v not in seen)
    return tuple(_dedup(ranked))[:MAX_VARIANT_TERMS]


def _snippet_clauses(q, intent, words, terms, target, query_path) -> list[Clause]:
    if intent == "symbol":
        # the name, and for `A.b` / `a::B::c` the qualifier's names too (whole identifiers)
        segments = [x for x in _QUAL_SPLIT.split(query_path) if x] or [target]
        idents = _content_terms(segments)[0]
        parts = _content_terms([target])[1]
    else:
        idents, parts = _content_terms(words)
    out: list[Clause] = []
    if intent == "error":  # the message's segments as phrases anywhere in the code
        out = [Clause(F.CONTENT, seg, PHRASE_BOOST, phrase=True) for seg in _message_phrases(q)]
    if idents:
        out.append(Clause(F.CONTENT, tuple(idents), BOOST[F.CONTENT]))
    if parts:
        out.append(Clause(F.CONTENT_PARTS, tuple(parts), BOOST[F.CONTENT_PARTS]))
    if intent != "error" and terms:
        out.append(Clause(F.PATH_TOKENS, tuple(terms), BOOST["snippet_path_tokens"]))
    return out


def _message_phrases(q: str) -> list[tuple[str, ...]]:
    """A pasted message's candidate constant segments of two words or more (the runtime's
    wrapper and the filled-in values taken off: literals.message_segments; first the ones with a
    `Name: ` prefix kept that may be the message's own, literals.named_segments), MAX_QUERY_TERMS
    words in all; words that the searched field never holds are cut out at run time
    (store.fulltext.split_phrases)."""
    out, budget = [], MAX_QUERY_TERMS
    for seg in literals.named_segments(q) + literals.message_segments(q):
        if budget < 2:
            break
        if len(seg) >= 2:
            out.append(seg[:budget])
            budget -= len(out[-1])
    return out


# A sentence without an error-like prefix ("index of nil pointer") is a pasted message when a
# run of its words, most of them, is a phrase of a message the code emits (literals.py).
MIN_PROBE_WORDS = 3  # two words in a row ("the file") are in some message of any large tree
PROBE_SHARE = 0.6  # ... and the phrase is most of the query, not a few words of a question
PROBED_CONFIDENCE = 0.85
_QUESTION_WORDS = frozenset("how what where which who whom whose why when".split())


def message_probe(q: str) -> tuple[tuple[Clause, ...], int]:
    """The phrases (in `error_literals`) that make a natural-language query a pasted message,
    its runs of MIN_PROBE_WORDS words or more between values; and how many of the query's
    words the runs that match must hold together. None for a question."""
    words = q.split()
    if not words or q.rstrip().endswith("?") or words[0].lower().strip(_PUNCT) in _QUESTION_WORDS:
        return (), 0
    segments = literals.message_segments(q)
    need = max(MIN_PROBE_WORDS, math.ceil(PROBE_SHARE * sum(len(s) for s in segments)))
    return tuple(Clause(F.ERROR_LITERALS, s[:MAX_QUERY_TERMS], LITERAL_PHRASE_BOOST, phrase=True)
                 for s in segments if len(s) >= MIN_PROBE_WORDS), need


def _literal_clauses(q, intent, words, terms, target, query_path) -> list[Clause]:
    """The `literals` channel: the pasted message among the messages that raise/panic/log
    calls emit, its segments as phrases (the longest match scores most), its words as a bag."""
    out = [Clause(F.ERROR_LITERALS, seg, LITERAL_PHRASE_BOOST, phrase=True) for seg in _message_phrases(q)]
    bag = _dedup(w for seg in literals.message_segments(q) for w in seg)[:MAX_QUERY_TERMS]
    if bag:
        out.append(Clause(F.ERROR_LITERALS, tuple(bag), LITERAL_BOOST))
    return out


def _path_content_terms(rel: str) -> tuple[str, ...]:
    """The identifiers a path names, as the files' `content_head` holds them: its folders' and
    file's names without the extension (`net/http/server.go` -> net, http, server); none for
    a glob, whose words are pieces of names, not what the files are about."""
    if any(c in rel for c in "*?["):
        return ()
    stem = re.sub(r"\.[A-Za-z0-9]+$", "", rel) if "." in rel.rsplit("/", 1)[-1] else rel
    return tuple(_dedup(m.lower() for m in _IDENT_RE.findall(stem)))[:MAX_QUERY_TERMS]


def _named_path_terms(rel: str) -> list[str]:
    """`ct.path_terms` of a path asked for, without its file's extension as a word of its own
    when the name has a stem (`nosuchfile.py` is not every `.py` file; `config.toml` is not
    `pyproject.toml`); a glob's (`*.toml`) and a bare extension's (`.gitignore`) are kept."""
    terms = ct.path_terms(rel)
    name = rel.rsplit("/", 1)[-1]
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem or any(c in rel for c in "*?[") or not _IDENT_RE.search(stem):
        return terms
    ext = ext.lower()
    folders = rel.lower().split("/")[:-1]
    if ext in stem.lower().split(".") or any(ext in ct.path_terms(f) for f in folders):
        return terms
    return [t for t in terms if t != ext]


def _file_clauses(q, intent, words, terms, target, query_path) -> list[Clause]:
    if intent == "path":
        raw = q.strip("\"'`").strip()
        rel = raw.lstrip("./").replace("\\", "/")
        out = [Clause(F.PATH, (rel,), BOOST[F.PATH]),
               Clause(F.FILENAME, (rel.rsplit("/", 1)[-1].lower(),), BOOST[F.FILENAME]),
               Clause(F.PATH_TOKENS, tuple(_dedup(_named_path_terms(rel)))[:MAX_QUERY_TERMS], BOOST[F.PATH_TOKENS])]
        # content too: the files a name matches alike (every file of `encoding/json`, every
        # `main.go`) are told apart by how much their code is about the path's words, not by
        # the alphabet (issue 17)
        words = _path_content_terms(rel)
        if words:
            out.append(Clause(F.CONTENT_HEAD, words, BOOST[F.CONTENT_HEAD]))
        return out
    idents, _ = _content_terms(words)
    out = []
    if terms:
        out.append(Clause(F.PATH_TOKENS, tuple(terms), BOOST[F.PATH_TOKENS]))
    if idents:
        out.append(Clause(F.CONTENT_HEAD, tuple(idents), BOOST[F.CONTENT_HEAD]))
    return out
