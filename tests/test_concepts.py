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


def test_how_many_is_no_name():
    # "how many ..." asks for a count: `many` is a word of prose (as `much` and `few` are), so
    # it searches doc comments, not names (`TooManyRedirects` answered every "how many")
    fields = {cl.field for c in plan("decide how many colours the terminal supports").channels
              for cl in c.clauses if "many" in cl.terms}
    assert "doc_tokens" in fields and not fields & {"name_tokens", "qualified_tokens", "signature_tokens"}, fields


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


# ---- doc comments above a definition ----------------------------------------------------------

DOC_REPO = {
    "glob.go": ("package glob\n\nimport \"strings\"\n\n"
                "// Glob lists the files whose names fit a shell wildcard pattern.\n"
                "// The syntax is that of Match.\n"
                "func Glob(pattern string) []string {\n\treturn strings.Fields(pattern)\n}\n\n"
                "func other() int {\n\treturn 1\n}\n"),
    "delay.ts": ("export type Fn = () => number\n\n"
                 "/**\n * Doubles the wait after every failure, up to thirty seconds.\n */\n"
                 "export function backoff(n: number) {\n  return Math.min(1000 * 2 ** n, 30000)\n}\n\n"
                 "export class Timer {\n  /**\n   * Stops the ticking clock for good.\n   */\n"
                 "  halt(): void {\n    this.t = 0\n  }\n  t = 1\n}\n"),
    "deco.py": ("import functools\n\n\nclass Store:\n    size = 1\n\n"
                "    # Keeps the answers of an expensive lookup between calls.\n"
                "    @functools.lru_cache(maxsize=None)\n    def remember(self, key):\n        return key\n"),
    "body.ts": ("export function build(def: unknown) {\n  const a = 1\n"
                "  // the settings of a loose record pass unrecognized keys through\n"
                "  const recordDef = def as unknown as { loose?: boolean; partial?: boolean }\n"
                "  return recordDef\n}\n"),
}


def test_a_match_in_the_doc_comment_above_a_definition_is_that_definition(make_repo):
    gen, repo, ref = index(make_repo(DOC_REPO))
    for query, name, path in (("shell wildcard pattern", "Glob", "glob.go"),
                              ("doubles the wait after every failure", "backoff", "delay.ts"),
                              ("stops the ticking clock for good", "halt", "delay.ts"),
                              ("keeps the answers of an expensive lookup", "remember", "deco.py")):
        hits, _, _ = search_code(gen, repo, ref, query)
        assert ranked(hits)[0] == ("symbol", path, name), (query, ranked(hits))
        # the comment is not a result of its own beside its definition
        assert not [h for h in hits if h.result_type == "snippet" and h.path == path], ranked(hits)


def test_a_comment_inside_a_body_stays_with_its_function(make_repo):
    gen, repo, ref = index(make_repo(DOC_REPO))
    hits, _, _ = search_code(gen, repo, ref, "settings of a loose record pass unrecognized keys")
    assert ranked(hits)[0] == ("symbol", "body.ts", "build"), ranked(hits)


# ---- English morphology of a question's words -------------------------------------------------

def test_a_plural_of_a_derived_word_keeps_its_singular():
    from cruxe import codetokens as ct
    assert ct.word_stems("characters")[0] == "character"  # not only `charact`
    assert "parser" in ct.word_stems("parsers") and "parse" in ct.word_stems("parsers")
    assert "exact" in ct.word_stems("exactly") and "assign" in ct.word_stems("assignments")
    for word in ("status", "analysis", "address", "focus"):  # no plural to strip
        assert ct.word_stems(word) == [word]


def test_a_plural_in_the_question_finds_the_singular_in_a_name(make_repo):
    gen, repo, ref = index(make_repo({
        "text/chars.py": "def character_width(c):\n    return 1\n",
        "text/other.py": "def unrelated_helper(x):\n    return x\n"}))
    hits, _, _ = search_code(gen, repo, ref, "counting the characters")
    assert ranked(hits)[0] == ("symbol", "text/chars.py", "character_width"), ranked(hits)


# ---- coverage: the definition that holds the whole question ------------------------------------

COVERAGE_REPO = {
    # `retry` said many times, nothing of the rest of the question
    "a/loop.py": ("def retry_loop(retry):\n    \"\"\"Retry, retry, retry the retry.\"\"\"\n"
                  "    retry = retry + 1\n    return retry\n"),
    # every word of the question, once
    "b/wait.py": ("def next_attempt(failures):\n    \"\"\"How long to wait before we retry.\"\"\"\n"
                  "    delay = min(2 ** failures, 30)\n    return delay\n"),
}


def test_the_definition_holding_the_whole_question_comes_first(make_repo):
    gen, repo, ref = index(make_repo(COVERAGE_REPO))
    hits, _, _ = search_code(gen, repo, ref, "how long the delay before the next retry attempt")
    assert [h.name for h in hits][:2] == ["next_attempt", "retry_loop"], ranked(hits)
    first, second = hits[0].signals, hits[1].signals
    assert first["query_coverage"] > second["query_coverage"] > 0


def test_a_full_explanation_adds_up_with_coverage(make_repo):
    from cruxe import shape
    gen, repo, ref = index(make_repo(COVERAGE_REPO))
    hits, _, _ = search_code(gen, repo, ref, "how long the delay before the next retry attempt")
    parts = ("bm25_score", "exact_match_boost", "qualified_name_boost", "path_affinity", "definition_boost",
             "kind_match", "test_file_penalty", "declaration_penalty", "query_coverage",
             "bodyless_penalty")
    reasons = shape.ranking_reasons(hits, "full")
    assert any(r["query_coverage"] for r in reasons)
    for r in reasons:
        assert round(sum(r[k] for k in parts), 6) == r["final_score"]
