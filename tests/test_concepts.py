"""Concept questions (issue 17, items 2 and 5): a question in words finds the code that does
what it says, through the words code uses for them (lexicon.py) and through doc comments
written above a definition."""
from __future__ import annotations

from cruxe import lexicon
from cruxe.index import run_index
from cruxe.project import open_project
from cruxe.query import plan, search_code


def index(root):
    run_index(root)
    project = open_project(root)
    ref = project.default_ref()
    return project.store.current_generation(ref), project.id, ref


def ranked(hits):
    return [(h.result_type, h.path, h.name) for h in hits]


# ---- the lexicon --------------------------------------------------------------------------------

def test_lexicon_relates_question_words_to_code_words_both_ways():
    spellings, related = lexicon.expand("address")
    assert "addr" in spellings and "url" in related
    assert "address" in lexicon.expand("addr")[0]
    assert "pwd" in lexicon.expand("password")[0] and "password" in lexicon.expand("secret")[1]
    assert "hash" in lexicon.expand("digest")[1] and "cmp" in lexicon.expand("compare")[0]


def test_lexicon_finds_a_word_through_its_stems_and_goes_one_hop_only():
    assert "conn" in lexicon.expand("connections")[0]  # connections -> connect -> conn
    assert "decode" in lexicon.expand("parsing")[1]
    # `res` spells result, response and resource; `result` brings `res`, never `response`
    assert "res" in lexicon.expand("result")[0]
    assert "response" not in lexicon.expand("result")[0] + lexicon.expand("result")[1]
    assert lexicon.expand("zzzz") == ((), ())


def test_lexicon_words_are_index_terms():
    words = lexicon.words()
    assert len(words) > 1000  # hundreds of lines across every area of code
    assert all(w == w.lower() and w.isalnum() and len(w) >= lexicon.MIN_TERM_LEN for w in words)
    for table in (lexicon.SPELLINGS, lexicon.RELATED):
        for group in lexicon._groups(table):
            assert len(set(group)) == len(group) >= 2


def test_only_questions_in_words_are_expanded():
    def terms(q):
        return {t for c in plan(q).channels for cl in c.clauses for t in cl.terms}
    assert "addr" in terms("resolve the network address of a host")
    assert "addr" not in terms("parse_address")  # a name is searched as written
    assert "addr" not in terms('ValueError: bad address "x"')  # so is a pasted message


# ---- finding code through the lexicon ---------------------------------------------------------

LEXICON_REPO = {
    "net/resolve.py": "def resolve_addr(host):\n    return host\n\n\ndef other_thing(x):\n    return x\n",
    "net/exact.py": ("def remote_address(peer):\n    return peer.address\n\n\n"
                     "def remote_addr(peer):\n    return peer.address\n"),
}


def test_a_question_word_finds_the_abbreviation_code_uses(make_repo):
    gen, repo, ref = index(make_repo(LEXICON_REPO))
    hits, _, _ = search_code(gen, repo, ref, "which address belongs to this machine")
    assert ("symbol", "net/resolve.py", "resolve_addr") in ranked(hits)


def test_an_expansion_never_outranks_the_word_as_asked(make_repo):
    gen, repo, ref = index(make_repo(LEXICON_REPO))
    hits, _, _ = search_code(gen, repo, ref, "the remote address of a peer")
    names = [h.name for h in hits]
    assert names.index("remote_address") < names.index("remote_addr")
