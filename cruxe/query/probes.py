"""Conjunctive probes: the definitions that say two of a question's rarest words together.

Each channel of a question fetches its first hits by an OR of all the question's words, so a
definition whose doc comment holds two rare words of it (`slugify`: "lowercase", "hyphens")
loses to the many that hold three or four common ones (`form`, `title`, `web`). A probe asks
the symbols index for documents holding BOTH words of a pair, each word as any of its
inflections, in the doc comment or the split name; the pairs are those of the question's
PROBE_WORDS rarest words (by document frequency in `doc_tokens`, the field a question's words
are found in). All pairs are one query (each pair a required conjunction, the pairs OR'ed), so
a definition holding three of the words matches three pairs and ranks above one holding two.
Its hits are one more RRF channel (`probes`); the coverage stage then decides among the
first results as for any other channel.

The channel is added at run time (`with_probes`, called by `search.plan_query`): choosing the
rare words needs the index, so the pure plan does not hold it (`--plan` probed in an index
does).
"""
from __future__ import annotations

from dataclasses import replace
from itertools import combinations

from .. import codetokens as ct
from .. import lexicon
from ..store import Field as F
from ..store import term_doc_freqs
from .planner import Channel, Clause, Plan

# How many of the question's words are paired: the rarest ones; 5 words make 10 pairs, one
# query, bounded whatever the question's length.
PROBE_WORDS = 5
# Inflections of a word searched with it on its side of a pair (`hyphen` -> hyphens).
PROBE_FORMS = 4
# Hits the probe fetches: the few definitions that hold two rare words together.
PROBE_FETCH = 20
# Every pair holds one of the rarest words: pairs of the commoner words would let a
# definition saying three or four of them together outscore one saying two rare ones.
PROBE_ANCHORS = 2
PROBE_WEIGHT = 2.0  # RRF weight of the channel
PROBE_FIELDS = ((F.DOC_TOKENS, 1.0), (F.NAME_TOKENS, 1.0))


def with_probes(gen, p: Plan) -> Plan:
    """`p` with a `probes` channel when it is a question in words with two or more rare words
    the index holds; else `p` itself."""
    if p.intent != "natural_language" or p.role:
        return p
    words = rare_words(gen, p.terms)
    if len(words) < 2:
        return p
    channel = Channel("symbols", PROBE_WEIGHT, PROBE_FETCH, pair_clauses(words), "probes")
    return replace(p, channels=p.channels + (channel,))


def forms(word: str) -> tuple[str, ...]:
    return (word, *ct.word_variants(word)[:PROBE_FORMS])


def rare_words(gen, terms: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The forms of the question's PROBE_WORDS rarest content words (rarest first) that some
    doc comment or name holds, each word's rarity the documents holding any of its forms."""
    content = [t for t in terms if t not in lexicon.FUNCTION_WORDS]
    grouped = {t: forms(t) for t in content}
    every = {f for fs in grouped.values() for f in fs}
    docs = term_doc_freqs(gen, "symbols", F.DOC_TOKENS, every)
    names = term_doc_freqs(gen, "symbols", F.NAME_TOKENS, every)
    ranked = []
    for i, fs in enumerate(grouped.values()):
        held = sum(docs[f] for f in fs)
        if held + sum(names[f] for f in fs) == 0:
            continue
        ranked.append((held, i, fs))
    ranked.sort()
    return [fs for _, _, fs in ranked[:PROBE_WORDS]]


def _side(fs: tuple[str, ...]) -> tuple[Clause, ...]:
    return tuple(Clause(field, fs, boost) for field, boost in PROBE_FIELDS)


def pair_clauses(words: list[tuple[str, ...]]) -> tuple[Clause, ...]:
    """One conjunction per pair of words that holds one of the PROBE_ANCHORS rarest (`words`
    is rarest first): both must be said, each by any of its forms."""
    return tuple(Clause(F.DOC_TOKENS, a + b, 1.0, all_of=(_side(a), _side(b)))
                 for i, j in combinations(range(len(words)), 2) if i < PROBE_ANCHORS
                 for a, b in [(words[i], words[j])])

