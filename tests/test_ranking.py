"""Spec 04 ranking: every scenario of the ranking-signal, kind-tier, query-intent, test-file,
field-boost and role-filter sections, on the signal functions and on small indexed repos."""
from __future__ import annotations

import inspect

import pytest

from cruxe.errors import CruxeError
from cruxe.index import run_index
from cruxe.project import open_project
from cruxe.query import locate_symbol, plan, search_code
from cruxe.query import signals as sig

BOOSTS = sig.BOOST_NAMES


def total_boost(signals: dict) -> float:
    return round(sum(signals[k] for k in BOOSTS), 6)


def index(root):
    run_index(root)
    project = open_project(root)
    ref = project.default_ref()
    return project.store.current_generation(ref), project.id, ref


def by_name(hits, name, kind=None):
    found = [h for h in hits if h.name == name and (kind is None or h.kind == kind)]
    assert found, f"{name} not in {[h['name'] for h in hits]}"
    return found[0]


# ---- a repository with the names spec 04's scenarios talk about ---------------------------------

RANKING_REPO = {
    "app/services.py": (
        "class UserService:\n    def run(self):\n        return 1\n\n\n"
        "def userService():\n    return UserService()\n\n\n"
        "class UserServiceFactory:\n    def build(self):\n        return UserService()\n"),
    "app/aliases.py": "from app.services import make\n\nUserService = make()\n",
    "app/tokens.py": (
        "def validate_token(token):\n    return bool(token)\n\n\n"
        "class ValidateToken:\n    pass\n"),
    "app/config.py": (
        "class Config:\n    debug = False\n\n\nconfig = Config()\n\n\n"
        "def parse_config(text):\n    return Config()\n\n\n"
        "def load(path):\n    data = open(path).read()\n    return parse(data)\n"),
    "tests/test_models.py": "class UserService:\n    pass\n\n\nhelper_value = 3\n",
}


@pytest.fixture
def ranking_repo(make_repo):
    return index(make_repo(RANKING_REPO))


# ---- signal composition ------------------------------------------------------------------------

def test_signals_compose_additively_without_interaction(ranking_repo):
    gen, repo, ref = ranking_repo
    hits, _, _ = search_code(gen, repo, ref, "UserService")
    in_test = next(h for h in hits if h.path == "tests/test_models.py" and h.name == "UserService")
    s = in_test.signals
    # exact 5.0 + qualified 0.0 + class 2.0 + type intent 1.0 + definition 1.0 + path 0.0 + test + no declaration
    # + no coverage (a name query) + no stack frame + no pasted line
    exact = sig.EXACT_MATCH_BOOST + sig.EXACT_CASE_BOOST  # written as in the code
    assert [s[k] for k in BOOSTS] == [exact, 0.0, 2.0, 1.0, 1.0, 0.0, sig.TEST_FILE_PENALTY, 0.0, 0.0, 0.0, 0.0, 0.0]
    assert total_boost(s) == exact + 4.0 + sig.TEST_FILE_PENALTY
    assert s["final_score"] == pytest.approx(s["bm25_score"] + exact + 4.0 + sig.TEST_FILE_PENALTY, abs=1e-5)
    assert in_test.score == s["final_score"]


def test_every_hit_score_is_base_plus_sum_of_boosts(ranking_repo):
    gen, repo, ref = ranking_repo
    for q in ("UserService", "validate_token", "read the config file", "app/config.py"):
        hits, _, _ = search_code(gen, repo, ref, q)
        assert hits, q
        for h in hits:
            s = h.signals
            assert s["final_score"] == pytest.approx(s["bm25_score"] + total_boost(s), abs=1e-5)
            assert s["semantic_similarity"] == 0.0  # no semantic backend


def test_zero_boost_signals_do_not_penalize():
    b = sig.symbol_boosts(name="helper_value", qualified_name="pkg.helper_value", kind="variable",
                          path="src/values.py", target="", query_path="", kind_intent=None, path_terms=())
    assert sum(b.values()) == 0.5 == b["kind_weight"]
    assert [k for k, v in b.items() if v != 0.0] == ["kind_weight"]


def test_maximum_and_minimum_boosts():
    top = sig.symbol_boosts(name="Config", qualified_name="app.config.Config", kind="class", path="app/config.py",
                            target="Config", query_path="config.Config", kind_intent="type",
                            path_terms=("config",))
    # exact (as written) + qualified + class 2 + type intent 1 + definition 1 + path 1
    assert sum(top.values()) == sig.EXACT_MATCH_BOOST + sig.EXACT_CASE_BOOST + sig.QUALIFIED_NAME_BOOST + 5.0
    low = sig.symbol_boosts(name="x", qualified_name="x", kind="variable", path="tests/t.py", target="", query_path="",
                            kind_intent=None, path_terms=())
    assert sum(low.values()) == 0.5 + sig.TEST_FILE_PENALTY  # a variable's weight, in a test file


def test_exact_match_is_case_insensitive_and_as_written_a_bit_more():
    b = sig.symbol_boosts(name="UserService", qualified_name="UserService", kind="class", path="a.py",
                          target="userservice", query_path="userservice", kind_intent=None, path_terms=())
    assert b["exact_match_boost"] == sig.EXACT_MATCH_BOOST
    b = sig.symbol_boosts(name="UserService", qualified_name="UserService", kind="class", path="a.py",
                          target="UserService", query_path="UserService", kind_intent=None, path_terms=())
    assert b["exact_match_boost"] == sig.EXACT_MATCH_BOOST + sig.EXACT_CASE_BOOST


def test_explanation_carries_kind_match_parts(ranking_repo):
    # full explain shows kind_match = kind_weight + query_intent_boost: both are in the signals.
    gen, repo, ref = ranking_repo
    hits, _, _ = search_code(gen, repo, ref, "UserService")
    cls = next(h for h in hits if h.path == "app/services.py" and h.name == "UserService")
    assert cls.signals["kind_weight"] + cls.signals["query_intent_boost"] == 3.0


# ---- kind tiers --------------------------------------------------------------------------------

def test_kind_weight_tiers_match_spec_table():
    assert {k: sig.kind_weight(k) for k in ("class", "interface", "trait", "struct", "enum", "type_alias",
                                            "function", "method", "constant", "module", "variable")} == {
        "class": 2.0, "interface": 2.0, "trait": 2.0, "struct": 1.8, "enum": 1.8, "type_alias": 1.5,
        "function": 1.5, "method": 1.5, "constant": 1.0, "module": 0.8, "variable": 0.5}


def test_unknown_kind_gets_zero_weight():
    assert sig.kind_weight("macro") == 0.0
    assert sig.kind_weight("") == 0.0


def test_class_gets_one_and_a_half_more_than_variable_for_same_name(ranking_repo):
    gen, repo, ref = ranking_repo
    hits, _, _ = search_code(gen, repo, ref, "config", limit=20)
    cls, var = by_name(hits, "Config", "class"), by_name(hits, "config", "variable")
    assert cls.signals["kind_weight"] - var.signals["kind_weight"] == 1.5


@pytest.mark.parametrize("kinds, expected", [
    (("function", "struct", "class"), ["class", "struct", "function"]),
    (("module", "constant"), ["constant", "module"]),
])
def test_kind_order_with_otherwise_equal_scores(kinds, expected):
    scored = []
    for kind in kinds:
        b = sig.symbol_boosts(name="thing", qualified_name="thing", kind=kind, path="src/a.rs", target="thing",
                              query_path="thing", kind_intent=None, path_terms=())
        scored.append((sig.compose(3.0, **b)["final_score"], kind))
    assert [k for _, k in sorted(scored, reverse=True)] == expected


def test_kind_weight_does_not_override_exact_match(ranking_repo):
    gen, repo, ref = ranking_repo
    hits, _, _ = search_code(gen, repo, ref, "UserService", limit=20)
    var = by_name(hits, "UserService", "variable")
    factory = by_name(hits, "UserServiceFactory", "class")
    assert var.signals["exact_match_boost"] > 0.0 and factory.signals["exact_match_boost"] == 0.0
    assert hits.index(var) < hits.index(factory)


# ---- query-intent boost ------------------------------------------------------------------------

def test_uppercase_query_boosts_type_symbols(ranking_repo):
    gen, repo, ref = ranking_repo
    hits, _, _ = search_code(gen, repo, ref, "UserService", limit=20)
    assert by_name(hits, "UserService", "class").signals["query_intent_boost"] == 1.0
    assert by_name(hits, "userService", "function").signals["query_intent_boost"] == 0.0


def test_lowercase_underscore_query_boosts_callables(ranking_repo):
    gen, repo, ref = ranking_repo
    hits, _, _ = search_code(gen, repo, ref, "validate_token", limit=20)
    assert by_name(hits, "validate_token", "function").signals["query_intent_boost"] == 0.5
    assert by_name(hits, "ValidateToken", "class").signals["query_intent_boost"] == 0.0


@pytest.mark.parametrize("query, intent", [("User_service", "callable"), ("A", "type"), ("x", "callable"),
                                           ("UserService", "type"), ("validate_token", "callable")])
def test_query_kind_intent_in_plan(query, intent):
    assert plan(query).kind_intent == intent


def test_intent_boost_values():
    assert sig.query_intent_boost("type", "type_alias") == 1.0
    assert sig.query_intent_boost("type", "function") == 0.0
    assert sig.query_intent_boost("callable", "method") == 0.5
    assert sig.query_intent_boost("callable", "class") == 0.0
    assert sig.query_intent_boost(None, "class") == 0.0


# ---- test-file penalty -------------------------------------------------------------------------

HANDLERS = {
    "src/handler.go": "package src\n\nfunc Handle() {}\n",
    "src/handler_test.go": "package src\n\nfunc Handle() {}\n",
}


def test_test_file_ranks_exactly_the_penalty_lower(make_repo):
    gen, repo, ref = index(make_repo(HANDLERS))
    hits, _ = locate_symbol(gen, repo, ref, "Handle")
    assert [h.path for h in hits] == ["src/handler.go", "src/handler_test.go"]
    assert hits[0].score - hits[1].score == -sig.TEST_FILE_PENALTY
    assert hits[1].signals["test_file_penalty"] == sig.TEST_FILE_PENALTY


@pytest.mark.parametrize("path, penalised", [
    ("src/tests/handler_test.go", True),  # two patterns, applied once
    ("handler_test.go", True), ("web/handler.test.ts", True), ("web/handler.spec.ts", True),
    ("pkg/test/util.go", True), ("test_handler.py", True), ("src/test_utils.go", True),
    ("src/attestation.go", False), ("src/handler.go", False), ("contest/main.rs", False),
    # issue 17: docs, examples, fixtures and generated files too (Go's go/doc package is source)
    ("docs/guide/usage.py", True), ("examples/server/main.go", True), ("pkg/testdata/x.go", True),
    ("api/v1/types.pb.go", True), ("README.md", True), ("src/go/doc/comment.go", False),
])
def test_test_path_patterns(path, penalised):
    assert sig.test_file_penalty(path) == (sig.TEST_FILE_PENALTY if penalised else 0.0)
    assert sig.test_file_penalty(path, wants_tests=True) == 0.0


def test_high_relevance_test_result_still_ranks_well(ranking_repo):
    gen, repo, ref = ranking_repo
    hits, _, _ = search_code(gen, repo, ref, "UserService", limit=20)
    in_test = next(h for h in hits if h.path == "tests/test_models.py" and h.name == "UserService")
    assert total_boost(in_test.signals) == sig.EXACT_MATCH_BOOST + sig.EXACT_CASE_BOOST + 4.0 + sig.TEST_FILE_PENALTY
    weak = [h for h in hits if h.result_type == "symbol" and h.signals["exact_match_boost"] == 0.0
            and not h.path.startswith("tests/")]
    assert weak and all(hits.index(in_test) < hits.index(w) for w in weak)


# A repository whose tests say the question's words far more often than the implementation does
# (one test per redirect status, the feature's name in the test file's name): issue 17's "source
# before tests" must hold however sure retrieval is of the tests.
_REDIRECT_TESTS = "".join(
    f"def test_redirect_{code}():\n    response = fetch_redirect({code})  # follow the redirect\n"
    f"    assert response.redirected and response.redirect_count == 1\n\n\n"
    for code in (301, 302, 303, 307, 308, 309, 310, 311))
REDIRECTS = {
    "pkg/client.py": (
        "def send_until_final(request, history):\n"
        '    """Send the request, then follow each redirect the server answers with."""\n'
        "    while True:\n        response = send_single(request)\n"
        "        if not response.is_redirect:\n            return response\n"
        "        request = next_request(response)\n\n\n"
        "def send_single(request):\n    return request\n"),
    "tests/test_redirects.py": "def fetch_redirect(code):\n    return code\n\n\n" + _REDIRECT_TESTS,
}


def test_the_implementation_comes_before_tests_that_retrieval_is_surer_of(make_repo):
    gen, repo, ref = index(make_repo(REDIRECTS))
    hits, _, _ = search_code(gen, repo, ref, "where are redirects followed", limit=5)
    assert hits[0].name == "send_until_final"
    assert any(h.path == "tests/test_redirects.py" for h in hits)  # listed, after it
    test = next(h for h in hits if h.path == "tests/test_redirects.py")
    s = test.signals  # the explanation stays exact: the share is one more number in the sum
    # the share is of what retrieval found and of what the question's coverage gave it
    share = sig.TEST_BASE_SHARE * (s["bm25_score"] + s["query_coverage"])
    assert s["query_coverage"] > 0
    assert s["test_file_penalty"] == pytest.approx(sig.TEST_FILE_PENALTY - share, abs=2e-4)
    assert s["final_score"] == pytest.approx(s["bm25_score"] + total_boost(s), abs=1e-4)


def test_a_question_about_tests_takes_nothing_from_them(make_repo):
    gen, repo, ref = index(make_repo(REDIRECTS))
    hits, _, _ = search_code(gen, repo, ref, "tests of redirects", limit=5)
    assert sum(h.path == "tests/test_redirects.py" for h in hits) >= 4
    assert all(h.signals["test_file_penalty"] == 0.0 for h in hits)


def test_a_helper_defined_only_in_tests_is_found_by_its_name(make_repo):
    gen, repo, ref = index(make_repo(REDIRECTS))
    hits, _, _ = search_code(gen, repo, ref, "fetch_redirect", limit=5)
    assert (hits[0].path, hits[0].name) == ("tests/test_redirects.py", "fetch_redirect")
    assert hits[0].signals["test_file_penalty"] == sig.TEST_FILE_PENALTY  # no share: the name asked for


def test_locate_lists_the_public_definition_before_same_named_crate_helpers(make_repo):
    # tokio: `pub fn spawn_blocking` in src/task/blocking.rs, `pub(crate)` ones nearer the root
    gen, repo, ref = index(make_repo({
        "src/blocking.rs": "pub(crate) fn spawn_blocking() {}\n",
        "src/task/blocking.rs": "pub fn spawn_blocking() {}\n",
        "src/a.rs": "fn spawn_blocking() {}\n",
    }))
    hits, _ = locate_symbol(gen, repo, ref, "spawn_blocking")
    assert [h.path for h in hits] == ["src/task/blocking.rs", "src/blocking.rs", "src/a.rs"]
    assert len({h.score for h in hits}) == 1  # a tie-break, not a signal: the explanations are unchanged


# ---- field boosts ------------------------------------------------------------------------------

def clause_boosts(p, index):
    ch = next(c for c in p.channels if c.index == index)
    return {c.field: c.boost for c in ch.clauses if not c.phrase}


def test_field_boosts_of_spec_04():
    sym = clause_boosts(plan("UserService"), "symbols")
    assert (sym["symbol_exact"], sym["qualified_tokens"], sym["signature_tokens"], sym["path_tokens"]) == \
        (10.0, 3.0, 1.5, 1.0)
    content = clause_boosts(plan("UserService"), "snippets")["content"]
    assert content == 0.5
    assert sym["symbol_exact"] / content == 20 and sym["qualified_tokens"] / content == 6


def test_name_match_outranks_body_match(ranking_repo):
    gen, repo, ref = ranking_repo
    hits, _, _ = search_code(gen, repo, ref, "parse", limit=20)
    named = by_name(hits, "parse_config")
    body_only = by_name(hits, "load")  # only calls parse(...) in its body
    assert hits.index(named) < hits.index(body_only)


# ---- role filters ------------------------------------------------------------------------------

MIXED = {
    "src/lib.rs": ("pub struct Config { pub a: i32 }\npub enum Mode { A, B }\npub trait Handler { fn handle(&self); }\n"
                   "pub type ConfigAlias = Config;\npub const CONFIG_MAX: usize = 3;\n"
                   "pub fn config_value() -> i32 { 1 }\n"),
    "py/config.py": "class ConfigLoader:\n    pass\n\n\ndef load_config():\n    return ConfigLoader()\n\n\nCONFIG = 1\n",
}


@pytest.fixture
def mixed_repo(make_repo):
    return index(make_repo(MIXED))


def test_role_only_search_matches_language_specific_type_kinds(mixed_repo):
    gen, repo, ref = mixed_repo
    hits, total, _ = search_code(gen, repo, ref, "config mode handler", role="type", limit=50)
    assert {(h.language, h.kind, h.name) for h in hits} == {
        ("rust", "struct", "Config"), ("rust", "enum", "Mode"), ("rust", "trait", "Handler"),
        ("python", "class", "ConfigLoader")}
    assert total == len(hits)


def test_search_role_filter_is_symbol_channel_only(mixed_repo):
    gen, repo, ref = mixed_repo
    p = plan("src/lib.rs", role="type")
    assert [c.index for c in p.channels] == ["symbols"]
    hits, _, _ = search_code(gen, repo, ref, "config", role="callable", limit=50)
    assert hits and all(h.result_type == "symbol" and h.kind in ("function", "method") for h in hits)


def test_search_without_role_keeps_snippets_and_files(mixed_repo):
    gen, repo, ref = mixed_repo
    p = plan("config loading rules")
    assert [c.index for c in p.channels] == ["symbols", "snippets", "files"]


def test_search_code_takes_no_kind_parameter():
    assert "kind" not in inspect.signature(search_code).parameters


def test_locate_kind_only_is_exact(mixed_repo):
    gen, repo, ref = mixed_repo
    hits, _ = locate_symbol(gen, repo, ref, "Config", kind="struct")
    assert [(h.kind, h.name) for h in hits] == [("struct", "Config")]
    assert locate_symbol(gen, repo, ref, "Config", kind="enum") == ([], 0)


def test_locate_kind_and_role_intersect(mixed_repo):
    gen, repo, ref = mixed_repo
    hits, _ = locate_symbol(gen, repo, ref, "Config", kind="struct", role="type")
    assert [(h.kind, h.name) for h in hits] == [("struct", "Config")]
    assert locate_symbol(gen, repo, ref, "config_value", kind="function", role="type") == ([], 0)
    hits, _ = locate_symbol(gen, repo, ref, "config_value", kind="fn", role="callable")  # alias accepted
    assert [h.name for h in hits] == ["config_value"]


def test_locate_neither_filter_returns_every_kind(mixed_repo):
    gen, repo, ref = mixed_repo
    hits, total = locate_symbol(gen, repo, ref, "config")  # case-insensitive tier: Config and CONFIG
    assert {(h.kind, h.name) for h in hits} == {("struct", "Config"), ("constant", "CONFIG")}
    assert total == 2


@pytest.mark.parametrize("kwargs", [{"role": "types"}, {"kind": "klass"}, {"language": "cobol"}])
def test_unknown_filter_values_are_invalid_input(mixed_repo, kwargs):
    gen, repo, ref = mixed_repo
    with pytest.raises(CruxeError) as e:
        locate_symbol(gen, repo, ref, "Config", **kwargs)
    assert e.value.code == "invalid_input"
    if "kind" not in kwargs:
        with pytest.raises(CruxeError) as e2:
            search_code(gen, repo, ref, "Config", **kwargs)
        assert e2.value.code == "invalid_input"


# ---- issue 17: the implementation before tests, docs and examples --------------------------------

IMPL_AND_TESTS = {
    "pkg/engine.py": "class Engine:\n    def recalibrate(self, x):\n        y = x * 2\n        return y\n",
    "tests/test_engine.py": ("def test_recalibrate_engine():\n    engine = Engine()\n"
                             "    assert engine.recalibrate(2) == 4\n    assert engine.recalibrate(0) == 0\n"),
    "examples/engine_recalibrate.py": "def recalibrate_engine_demo(engine):\n    return engine.recalibrate(1)\n",
    "docs/recalibrate.md": "# Recalibrate the engine\n\nCall `Engine.recalibrate` to recalibrate the engine.\n",
}


def test_source_before_tests_docs_and_examples_unless_tests_are_asked_for(make_repo):
    gen, repo, ref = index(make_repo(IMPL_AND_TESTS))
    hits, _, _ = search_code(gen, repo, ref, "recalibrate the engine")
    assert (hits[0].path, hits[0].name) == ("pkg/engine.py", "recalibrate")
    hits, _, _ = search_code(gen, repo, ref, "tests that recalibrate the engine")
    assert hits[0].path == "tests/test_engine.py" and hits[0].signals["test_file_penalty"] == 0.0


# ---- issue 17: light English morphology at query time ---------------------------------------

MORPH_REPO = {
    "net/pool.py": "class Connection:\n    def open(self):\n        return 1\n",
    "net/other.py": "def idle_wait(slots):\n    return slots\n",
}


def test_query_words_match_other_inflections_of_identifier_parts(make_repo):
    from cruxe import codetokens as ct
    assert {"connection", "connect"} <= set(ct.word_variants("connections"))
    assert {"parse", "parser"} <= set(ct.word_variants("parsing"))
    assert "redirect" in ct.word_variants("redirection") and "redirection" in ct.word_variants("redirects")
    assert ct.word_variants("run") == [] and ct.word_variants("x_y") == []
    gen, repo, ref = index(make_repo(MORPH_REPO))
    hits, _, _ = search_code(gen, repo, ref, "idle connections")  # only a variant names the class
    assert ("net/pool.py", "Connection") in [(h.path, h.name) for h in hits]


def test_snippet_line_of_a_word_inside_an_identifier_is_found_whole_identifiers_first():
    from cruxe.query import search as S
    p = plan("where are idle slots reused")
    snippets = next(c for c in p.channels if c.index == "snippets")
    needles = S._needles(p, snippets.clauses)
    from cruxe.store import Chunk
    chunk = Chunk("a.py", 10, 16, "python", "def reuse_idle_slot(x):\n    return x\n\n\ndef other():\n    idle(slots)\n", "")
    lines = S._matching_lines(chunk, needles)
    # `idle(slots)` holds two whole words; the def line holds `idle` only inside an identifier
    assert [n for n, _ in lines] == [15, 10]


def test_needle_scan_finds_what_a_regex_alternation_of_the_needles_finds():
    # the scan seeks each term with str.find; Python's regex alternation (leftmost match, first
    # alternative in order, no overlap) is the independent statement of what it must find
    import re
    from cruxe.query import search as S
    needles = S.Needles(("reuse_idle", "idle"), ("reuse_idle", "reuse", "idle", "le", "e"))
    pattern = re.compile(r"(?P<whole>(?<![\w$])(?:reuse_idle|idle)(?![\w$]))|reuse_idle|reuse|idle|le|e")
    for text in ("def reuse_idle_slot(x): idle(slots) $idle idle$ reuse_idle", "eeee idleidle le_idle",
                 "", "idle", "é_idle idle2 _idle x.idle"):
        want = [(m.start(), m.group(), m.lastgroup == "whole") for m in pattern.finditer(text)]
        assert S._needle_matches(text, needles) == want


def test_full_explanation_adds_up_to_the_score_with_the_new_signals(make_repo):
    from cruxe import shape
    gen, repo, ref = index(make_repo({
        "b.go": ("package b\n\ntype Getter interface {\n\tFetchIt(key string) (string, error)\n}\n\n"
                 "type impl struct{}\n\nfunc (i *impl) FetchIt(key string) (string, error) {\n\treturn key, nil\n}\n"),
        "b_test.go": "package b\n\nfunc FetchIt2() {}\n\ntype fake struct{}\n\nfunc (f fake) FetchIt(k string) (string, error) {\n\treturn k, nil\n}\n"}))
    hits, _ = locate_symbol(gen, repo, ref, "FetchIt")
    assert [h.path for h in hits] == ["b.go", "b.go", "b_test.go"]  # body, declaration, test
    parts = ("bm25_score", "exact_match_boost", "qualified_name_boost", "path_affinity", "definition_boost",
             "kind_match", "test_file_penalty", "declaration_penalty", "query_coverage",
             "bodyless_penalty")
    for r in shape.ranking_reasons(hits, "full"):
        assert round(sum(r[k] for k in parts), 6) == r["final_score"]


def test_an_interface_named_after_its_method_does_not_lift_the_member_above_the_bodies(make_repo):
    # Go names a one-method interface after the method (`Hijacker.Hijack`, `Reader.Read`): the
    # name inside the parent's name is no qualified match, so the body comes first
    gen, repo, ref = index(make_repo({
        "srv.go": ("package srv\n\ntype Hijacker interface {\n\tHijack() (Conn, error)\n}\n\n"
                   "type response struct{}\n\nfunc (w *response) Hijack() (Conn, error) {\n\treturn w.conn, nil\n}\n")}))
    hits, _ = locate_symbol(gen, repo, ref, "Hijack")
    assert [(h.qualified_name, h.signals["qualified_name_boost"]) for h in hits] == [
        ("srv.response.Hijack", 0.0), ("srv.Hijacker.Hijack", 0.0)]
    # a bare name that is a whole segment of the qualifier still counts
    assert sig.qualified_name_match("config", "app.config.load", "load")
    assert not sig.qualified_name_match("Hijack", "http.Hijacker.Hijack", "Hijack")
