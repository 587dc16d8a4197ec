"""locate_symbol and search_code on real small data (stdlib json/ + email/) and hand-written
fixtures. Expected answers come from an independent reader of the same files (stdlib `ast`,
plain text search), never from Cruxe itself."""
from __future__ import annotations

import ast
import collections
import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from cruxe import index as index_mod
from cruxe.errors import CruxeError
from cruxe.index import run_index
from cruxe.project import open_project
from cruxe.query import locate_symbol, plan, search_code
from cruxe.shape import PREVIEW_LINES, TRUNCATION_MARKER
from cruxe.query.signals import EXACT_CASE_BOOST, EXACT_MATCH_BOOST, QUALIFIED_NAME_BOOST

from support.locations import STDLIB, require_corpus


def open_gen(root, home=None):
    project = open_project(root, home)
    ref = project.default_ref()
    return project.store.current_generation(ref), project.id, ref


@pytest.fixture(scope="module")
def std(tmp_path_factory):
    """stdlib json/ and email/ copied into one repo and indexed once for the module."""
    for name in ("json", "email"):
        require_corpus(STDLIB / name)
    root = tmp_path_factory.mktemp("stdrepo")
    for name in ("json", "email"):
        shutil.copytree(STDLIB / name, root / name, ignore=shutil.ignore_patterns("__pycache__"))
    home = tmp_path_factory.mktemp("stdhome")
    run_index(root, home=home)
    gen, repo, ref = open_gen(root, home)
    return root, gen, repo, ref


def ast_definitions(root: Path) -> dict[str, list[tuple[str, int, int]]]:
    """name -> [(path, def line, end line)] for every def/class, read by `ast`."""
    out: dict[str, list[tuple[str, int, int]]] = collections.defaultdict(list)
    for f in sorted(root.rglob("*.py")):
        rel = f.relative_to(root).as_posix()
        for node in ast.walk(ast.parse(f.read_bytes())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out[node.name].append((rel, node.lineno, node.end_lineno))
    return out


def covers(hit, path, line) -> bool:
    return hit.path == path and hit.line_start <= line <= hit.line_end


def ast_docstrings(root: Path, sub: str) -> list[tuple[str, str, int, str]]:
    out = []
    for f in sorted((root / sub).glob("*.py")):
        rel = f.relative_to(root).as_posix()
        for node in ast.walk(ast.parse(f.read_bytes())):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and ast.get_docstring(node):
                out.append((rel, node.name, node.lineno, ast.get_docstring(node).split("\n")[0]))
    return out


# ---- locate_symbol ----------------------------------------------------------------------------

def test_locate_top1_for_names_defined_once(std):
    root, gen, repo, ref = std
    defs = ast_definitions(root)
    once = {n: d[0] for n, d in defs.items() if len(d) == 1}
    assert len(once) > 200
    wrong = []
    for name, (path, line, _) in sorted(once.items()):
        hits, _ = locate_symbol(gen, repo, ref, name, limit=1)
        if not hits or not covers(hits[0], path, line) or hits[0].name != name:
            wrong.append(name)
    assert wrong == []


def test_locate_returns_every_definition_of_a_repeated_name(std):
    root, gen, repo, ref = std
    defs = ast_definitions(root)
    repeated = {n: d for n, d in defs.items() if 2 <= len(d) <= 10}
    assert len(repeated) > 20
    for name, places in sorted(repeated.items()):
        hits, total = locate_symbol(gen, repo, ref, name, limit=10)
        assert total >= len(places)
        for path, line, _ in places:
            assert any(covers(h, path, line) for h in hits), (name, path, line)


def test_locate_hit_shape(std):
    _, gen, repo, ref = std
    hits, total = locate_symbol(gen, repo, ref, "JSONDecoder")
    assert total == 1
    h = hits[0]
    assert {f.name for f in dataclasses.fields(h) if getattr(h, f.name) is not None} == {"result_type", "path", "line_start", "line_end", "kind", "name", "qualified_name", "signature",
                      "language", "visibility", "symbol_id", "symbol_stable_id", "score", "signals"}
    assert (h.result_type, h.kind, h.path, h.qualified_name) == \
        ("symbol", "class", "json/decoder.py", "json.decoder.JSONDecoder")
    assert h.signature.startswith("class JSONDecoder")
    assert h.signals["bm25_score"] == 0.0 and h.score == h.signals["final_score"]


@pytest.mark.parametrize("query", ["JSONDecoder.decode", "decoder.JSONDecoder.decode", "json::decoder::JSONDecoder::decode",
                                   "json.JSONDecoder.decode"])
def test_locate_by_qualified_name(std, query):
    root, gen, repo, ref = std
    decoder = ast.parse((root / "json/decoder.py").read_bytes())
    cls = next(n for n in decoder.body if isinstance(n, ast.ClassDef) and n.name == "JSONDecoder")
    method = next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "decode")
    hits, total = locate_symbol(gen, repo, ref, query)
    assert total == 1 and covers(hits[0], "json/decoder.py", method.lineno)
    assert hits[0].kind == "method"


def test_locate_qualified_suffix_match_narrows_a_common_name(std):
    root, gen, repo, ref = std
    all_decode, _ = locate_symbol(gen, repo, ref, "decode", limit=50)
    assert len(all_decode) > 1
    hits, _ = locate_symbol(gen, repo, ref, "JSONDecoder.decode")
    assert len(hits) == 1
    assert locate_symbol(gen, repo, ref, "NoSuchClass.decode") == ([], 0)


def test_locate_qualified_name_with_rust_and_go_paths(make_repo):
    root = make_repo({
        "src/auth/jwt.rs": "pub fn validate_token(t: &str) -> bool { !t.is_empty() }\n",
        "src/other.rs": "pub fn validate_token(t: &str) -> bool { false }\n",
        "net/http/server.go": "package http\n\ntype Server struct{}\n\nfunc (s *Server) ListenAndServe() error { return nil }\n",
        "net/rpc/server.go": "package rpc\n\ntype Server struct{}\n\nfunc (s *Server) ListenAndServe() error { return nil }\n",
    })
    run_index(root)
    gen, repo, ref = open_gen(root)
    hits, _ = locate_symbol(gen, repo, ref, "auth::jwt::validate_token")
    assert [h.path for h in hits] == ["src/auth/jwt.rs"]
    hits, _ = locate_symbol(gen, repo, ref, "http.Server.ListenAndServe")
    assert [h.path for h in hits] == ["net/http/server.go"]
    hits, _ = locate_symbol(gen, repo, ref, "ListenAndServe")
    assert sorted(h.path for h in hits) == ["net/http/server.go", "net/rpc/server.go"]


def test_locate_case_insensitive_only_when_nothing_matches_exactly(make_repo):
    root = make_repo({"m.py": "class Config:\n    pass\n\n\nconfig = Config()\n"})
    run_index(root)
    gen, repo, ref = open_gen(root)
    assert [(h.kind, h.name) for h in locate_symbol(gen, repo, ref, "Config")[0]] == [("class", "Config")]
    assert [(h.kind, h.name) for h in locate_symbol(gen, repo, ref, "config")[0]] == [("variable", "config")]
    hits, total = locate_symbol(gen, repo, ref, "CONFIG")
    assert total == 2 and [h.kind for h in hits] == ["class", "variable"]  # kind weight decides
    assert locate_symbol(gen, repo, ref, "nothing_like_this") == ([], 0)


def test_locate_language_filter_and_limit(std):
    _, gen, repo, ref = std
    hits, total = locate_symbol(gen, repo, ref, "__init__", limit=3)
    assert len(hits) == 3 and total > 3
    assert locate_symbol(gen, repo, ref, "__init__", language="go") == ([], 0)
    with pytest.raises(CruxeError) as e:
        locate_symbol(gen, repo, ref, "x", limit=0)
    assert e.value.code == "invalid_input"
    with pytest.raises(CruxeError):
        locate_symbol(gen, repo, ref, "  ")


# ---- search_code ------------------------------------------------------------------------------

def test_search_symbol_query_puts_the_definition_first(std):
    root, gen, repo, ref = std
    defs = ast_definitions(root)
    for name in ("JSONDecoder", "message_from_string", "decode_header", "HeaderRegistry"):
        [(path, line, _)] = defs[name]
        hits, total, intent = search_code(gen, repo, ref, name)
        assert intent["intent"] == "symbol" and 0 < intent["confidence"] <= 1
        assert covers(hits[0], path, line) and hits[0].name == name, name
        assert total >= len(hits)


def test_search_path_query_finds_the_file(std):
    _, gen, repo, ref = std
    for q, want in (("json/decoder.py", "json/decoder.py"), ("decoder.py", "json/decoder.py"),
                    ("email/_header_value_parser.py", "email/_header_value_parser.py")):
        hits, _, intent = search_code(gen, repo, ref, q)
        assert intent["intent"] == "path"
        assert (hits[0].result_type, hits[0].path) == ("file", want)


def test_search_error_message_lands_on_the_line_that_raises(std):
    root, gen, repo, ref = std
    message = "Expecting property name enclosed in double quotes"
    places = [(f.relative_to(root).as_posix(), i + 1) for f in sorted(root.rglob("*.py"))
              for i, line in enumerate(f.read_text().splitlines()) if message in line]
    hits, _, intent = search_code(gen, repo, ref, f'"{message}"')
    assert intent["intent"] == "error"
    assert any(covers(hits[0], p, line) for p, line in places)


def test_search_natural_language_uses_docstrings(std):
    root, gen, repo, ref = std
    docs = [d for d in ast_docstrings(root, "json") if len(d[3].split()) >= 4]
    assert len(docs) >= 8
    found = 0
    for path, name, line, first in docs:
        hits, _, intent = search_code(gen, repo, ref, first, limit=5)
        found += any(covers(h, path, line) for h in hits)
    assert found / len(docs) >= 0.7


def test_natural_language_plan_drops_stop_words():
    p = plan("where is the json decoder defined")
    assert p.intent == "natural_language"
    assert p.terms == ("json", "decoder")


def test_search_snippet_inside_a_method_surfaces_that_method(make_repo):
    root = make_repo({"w.py": ("import os\n\n\nclass Widget:\n    def spin(self):\n        return 1\n\n"
                               "    def render(self):\n        x = 2\n        return frobnicate_widget(x)\n\n\n"
                               "print(magic_marker_value)\n")})
    run_index(root)
    gen, repo, ref = open_gen(root)
    hits, _, _ = search_code(gen, repo, ref, "frobnicate_widget")
    top = hits[0]
    assert (top.result_type, top.kind, top.name, top.line_start) == ("symbol", "method", "render", 8)
    assert top.signals["definition_boost"] == 0.0 and top.signals["exact_match_boost"] == 0.0
    hits, _, _ = search_code(gen, repo, ref, "magic_marker_value")
    snip = hits[0]
    assert (snip.result_type, snip.name, snip.line_start, snip.line_end) == ("snippet", "w.py", 13, 13)
    assert snip.snippet == "13: print(magic_marker_value)"
    assert snip.symbol_id == "" and snip.kind == ""


def test_search_language_and_ref_filters(std):
    _, gen, repo, ref = std
    hits, _, _ = search_code(gen, repo, ref, "decode header", limit=30)
    assert hits and all(h.language == "python" for h in hits)
    assert search_code(gen, repo, ref, "decode header", language="rust")[:2] == ([], 0)
    assert search_code(gen, repo, "some-other-ref", "decode header")[:2] == ([], 0)
    assert search_code(gen, "another-project", ref, "JSONDecoder")[:2] == ([], 0)


def test_search_limit_and_invalid_input(std):
    _, gen, repo, ref = std
    hits, total, _ = search_code(gen, repo, ref, "message", limit=4)
    assert len(hits) == 4 and total > 4
    for bad in ({"query": "   "}, {"query": "x", "limit": 0}):
        with pytest.raises(CruxeError) as e:
            search_code(gen, repo, ref, **{"limit": 10, **bad})
        assert e.value.code == "invalid_input"


def test_results_are_sorted_by_score_then_a_total_order(std):
    _, gen, repo, ref = std
    hits, _, _ = search_code(gen, repo, ref, "parse an address header", limit=50)
    keys = [(-h.score, h.path, h.line_start) for h in hits]
    assert [k[0] for k in keys] == sorted(k[0] for k in keys)
    assert len({(h.result_type, h.path, h.line_start, h.line_end, h.symbol_id) for h in hits}) == len(hits)


# ---- determinism ------------------------------------------------------------------------------

QUERIES = ["JSONDecoder", "decode header", "email/parser.py", '"Expecting value"', "how are headers folded",
           "Message.get_payload"]


def as_json(answer) -> str:
    """An answer (hits and counts) as bytes, every field of every hit included."""
    return json.dumps(answer, sort_keys=True, default=dataclasses.asdict)


def test_same_call_twice_gives_identical_bytes(std):
    root, gen, repo, ref = std
    for q in QUERIES:
        a = as_json(search_code(gen, repo, ref, q, limit=20))
        b = as_json(search_code(gen, repo, ref, q, limit=20))
        assert a == b
    a = as_json(locate_symbol(gen, repo, ref, "__init__", limit=50))
    b = as_json(locate_symbol(gen, repo, ref, "__init__", limit=50))
    assert a == b


def test_same_results_from_a_freshly_opened_index(std, tmp_path):
    root, gen, repo, ref = std
    other_home = tmp_path / "home2"
    run_index(root, home=other_home)  # same files, new index: same answers
    gen2, repo2, ref2 = open_gen(root, other_home)
    assert repo2 == repo
    for q in QUERIES:
        assert as_json(search_code(gen, repo, ref, q)) == as_json(search_code(gen2, repo2, ref2, q))


def test_plan_is_pure_and_serialisable():
    a, b = plan("where is the json decoder", language="python"), plan("where is the json decoder", language="python")
    assert a == b
    d = json.loads(json.dumps(a.to_dict()))
    assert d["intent"] == "natural_language" and d["language"] == "python"
    assert [c["index"] for c in d["channels"]] == ["symbols", "snippets", "files"]
    assert [c["weight"] for c in d["channels"]] == [2.0, 3.0, 1.0] and d["rrf_k"] == 60  # DEPARTURES.md


@pytest.mark.parametrize("query, channels", [("parse_config", [("symbols", 3.0), ("snippets", 1.0)]),
                                             ("src/auth/handler.rs", [("files", 3.0)]),
                                             ("error: cannot find value `x`",
                                              [("literals", 3.0), ("snippets", 3.0), ("files", 1.0)])])
def test_plan_channels_per_intent(query, channels):
    assert [(c.name or c.index, c.weight) for c in plan(query).channels] == channels


# ---- detail level -----------------------------------------------------------------------------

def test_context_detail_adds_preview_parent_and_related(std):
    root, gen, repo, ref = std
    [(_, line, end)] = ast_definitions(root)["raw_decode"]
    assert end - line + 1 > PREVIEW_LINES  # long enough to be cut
    hits, _ = locate_symbol(gen, repo, ref, "JSONDecoder.raw_decode", detail_level="context")
    h = hits[0]
    lines = (root / "json/decoder.py").read_text().splitlines()
    preview = h.body_preview.split("\n")
    assert preview[:PREVIEW_LINES] == lines[h.line_start - 1:h.line_start - 1 + PREVIEW_LINES]
    assert preview[PREVIEW_LINES:] == [TRUNCATION_MARKER]
    assert h.parent == {"kind": "class", "name": "JSONDecoder", "path": "json/decoder.py",
                           "line": locate_symbol(gen, repo, ref, "JSONDecoder")[0][0].line_start}
    related = h.related_symbols
    assert 1 <= len(related) <= 5 and "decode" in {r["name"] for r in related}
    assert all(r["name"] != "raw_decode" for r in related)


def test_short_definition_preview_has_no_marker(make_repo):
    root = make_repo({"s.py": "def tiny():\n    return 1\n"})
    run_index(root)
    gen, repo, ref = open_gen(root)
    hits, _, _ = search_code(gen, repo, ref, "tiny", detail_level="context")
    assert hits[0].body_preview == "def tiny():\n    return 1"
    assert hits[0].parent is None


def test_default_detail_has_no_context_fields(std):
    _, gen, repo, ref = std
    hits, _, _ = search_code(gen, repo, ref, "JSONDecoder")
    assert not any(getattr(h, k) is not None for h in hits for k in ("body_preview", "parent", "related_symbols"))


# ---- partial index ----------------------------------------------------------------------------

def test_queries_during_indexing_return_what_is_committed(make_repo, monkeypatch):
    files = {f"pkg/mod{i:02d}.py": f"def unique_fn_{i:02d}():\n    return {i}\n\n\nclass Shared{i:02d}:\n    pass\n"
             for i in range(12)}
    root = make_repo(files)
    monkeypatch.setattr(index_mod, "BATCH_FILES", 4)  # three commits of four files
    seen = []

    def progress(done, total, phase):
        gen, repo, ref = open_gen(root)
        committed = {r[0] for r in gen.db.execute("SELECT path FROM file_manifest")}
        found = set()
        for i in range(12):
            hits, _ = locate_symbol(gen, repo, ref, f"unique_fn_{i:02d}")
            found.update(h.path for h in hits)
        hits, total_c, _ = search_code(gen, repo, ref, "unique_fn_00 unique_fn_11 Shared05", limit=50)
        assert {h.path for h in hits} <= committed
        seen.append((done, committed, found))

    run_index(root, progress=progress)
    assert [s[0] for s in seen] == [4, 8, 12]
    for done, committed, found in seen:
        assert len(committed) == done
        assert found == committed  # every committed file answers, nothing else does


def test_conditional_definitions_of_one_name_are_distinct_results(make_repo):
    from cruxe.shape import dedup
    root = make_repo({"compat.py": ("import sys\n\nif sys.version_info >= (3,):\n    def text(x):\n        return x\n"
                                    "else:\n    def text(x):\n        return x\n\n\ndef texture():\n    return 1\n")})
    run_index(root)
    gen, repo, ref = open_gen(root)
    # both `def text` share language, kind, qualified name, signature and path, yet either
    # may be the live one: two results, neither a duplicate of the other
    hits, total = locate_symbol(gen, repo, ref, "text", limit=1)
    assert total == 2 and [h.line_start for h in hits] == [4]
    hits, _ = locate_symbol(gen, repo, ref, "text", limit=2)
    assert [h.line_start for h in hits] == [4, 7] and dedup(hits) == (hits, 0)


def test_terms_too_common_to_rank_are_pruned_only_in_large_indices(make_repo):
    from cruxe.query.planner import Clause
    from cruxe.store import COMMON_TERM_MIN_DOCS, prune_common_terms
    n = COMMON_TERM_MIN_DOCS + 100
    # four-line functions: each is its own snippet chunk (shorter ones are merged)
    body = "".join(f"def fn_{i}():\n    x = {i}\n    y = x\n    return common_token + y\n\n\n" for i in range(n))
    root = make_repo({"big.py": body + "def rare_thing():\n    return other_token + common_token\n"})
    run_index(root)
    gen, repo, ref = open_gen(root)
    searcher = gen.searcher("snippets")
    assert searcher.doc_freq("content", "common_token") > n - 1
    kept = prune_common_terms(searcher, (Clause("content", ("common_token", "other_token"), 0.5),))
    assert kept == (Clause("content", ("other_token",), 0.5),)
    only_common = (Clause("content", ("common_token",), 0.5), Clause("content_parts", ("common", "token"), 0.25))
    assert len(prune_common_terms(searcher, only_common)) == 1  # the rarest term survives
    hits, _, _ = search_code(gen, repo, ref, "common_token other_token")
    assert hits[0].name == "rare_thing"
    small_root = make_repo({"s.py": "x = common_token\ny = common_token\n"}, name="small")
    run_index(small_root)
    small = open_gen(small_root)[0]
    clause = (Clause("content", ("common_token",), 0.5),)
    assert prune_common_terms(small.searcher("snippets"), clause) == clause


def test_search_qualified_symbol_query(std, make_repo):
    root, gen, repo, ref = std
    hits, _, intent = search_code(gen, repo, ref, "JSONDecoder.decode")
    assert intent["intent"] == "symbol"
    top = hits[0]
    assert (top.path, top.name, top.kind) == ("json/decoder.py", "decode", "method")
    assert top.signals["qualified_name_boost"] == QUALIFIED_NAME_BOOST
    assert top.signals["exact_match_boost"] == EXACT_MATCH_BOOST + EXACT_CASE_BOOST
    others = [h for h in hits if h.name == "decode" and h.path != "json/decoder.py"]
    assert others and all(h.signals["qualified_name_boost"] == 0.0 for h in others)
    rust = make_repo({"src/auth/jwt.rs": "pub struct Jwt;\nimpl Jwt {\n    pub fn check(&self) -> bool { true }\n}\n",
                      "src/other.rs": "pub fn check() -> bool { false }\n"}, name="rs")
    run_index(rust)
    g2, r2, ref2 = open_gen(rust)
    hits, _, _ = search_code(g2, r2, ref2, "Jwt::check")
    assert hits[0].path == "src/auth/jwt.rs" and hits[0].qualified_name.endswith("Jwt::check")
    assert hits[0].signals["qualified_name_boost"] == QUALIFIED_NAME_BOOST


def test_related_symbols_of_a_top_level_function_are_its_nearest_top_level_neighbours(std):
    root, gen, repo, ref = std
    module = ast.parse((root / "json/__init__.py").read_bytes())
    top = []
    for node in module.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            top.append((node.lineno - len(node.decorator_list), node.name))
        elif isinstance(node, ast.Assign):
            top += [(node.lineno, t.id) for t in node.targets if isinstance(t, ast.Name)]
    hits, _ = locate_symbol(gen, repo, ref, "json.dumps", detail_level="context")
    related = hits[0].related_symbols
    line = hits[0].line_start
    others = sorted((abs(ln - line), ln, name) for ln, name in top if name != "dumps")
    assert [(r["line"], r["name"]) for r in related] == sorted((ln, name) for _, ln, name in others[:5])


def test_chunk_cover_check():
    from cruxe.store import Chunk
    from cruxe.store.reads import _covers
    a, b, c = (Chunk("a.py", s, e, "python", "", "") for s, e in ((1, 9), (10, 20), (22, 30)))
    assert _covers([a, b], 5, 15, at_file_end=False)
    assert not _covers([b], 5, 15, at_file_end=False)  # starts after the wanted line
    assert not _covers([a, c], 5, 25, at_file_end=False)  # a gap: the layout was not as assumed
    assert not _covers([a], 5, 15, at_file_end=False)
    assert _covers([a], 5, 15, at_file_end=True)  # the file ends first


# ---- issue 17: locate_symbol puts the working definition first and hides none ----------------

STUB_REPO = {
    "a.py": ("from typing import Protocol\nimport abc\n\n\nclass Reader(Protocol):\n"
             "    def read_all(self, n: int) -> bytes:\n        \"\"\"Read everything.\"\"\"\n        ...\n\n\n"
             "class Base(abc.ABC):\n    @abc.abstractmethod\n    def read_all(self, n: int) -> bytes:\n"
             "        return b''\n\n\n"
             "class Stub:\n    def read_all(self, n: int) -> bytes:\n        raise NotImplementedError\n\n\n"
             "class FileReader(Base):\n    def read_all(self, n: int) -> bytes:\n"
             "        data = self.f.read(n)\n        return data\n"),
    "b.go": ("package b\n\ntype Getter interface {\n\tFetchIt(key string) (string, error)\n}\n\n"
             "type impl struct{}\n\nfunc (i *impl) FetchIt(key string) (string, error) {\n\treturn key, nil\n}\n"),
    "c.rs": ("pub trait Shape {\n    fn area_of(&self) -> f64;\n}\n\npub struct Sq(f64);\n\n"
             "impl Shape for Sq {\n    fn area_of(&self) -> f64 {\n        self.0 * self.0\n    }\n}\n"),
    "d.ts": ("export interface Store {\n  loadItem(id: string): number;\n}\n\n"
             "export class MemStore implements Store {\n  loadItem(id: string): number {\n    return id.length;\n  }\n}\n"
             "export const loadAll = (s: Store) => s.loadItem('x');\n"),
}


@pytest.mark.parametrize("name, body_at, stubs_at", [
    ("read_all", ("a.py", 23), {("a.py", 6), ("a.py", 12), ("a.py", 18)}),
    ("FetchIt", ("b.go", 9), {("b.go", 4)}),
    ("area_of", ("c.rs", 8), {("c.rs", 2)}),
    ("loadItem", ("d.ts", 6), {("d.ts", 2)}),
])
def test_locate_puts_the_body_before_interface_members_and_stubs(make_repo, name, body_at, stubs_at):
    root = make_repo(STUB_REPO)
    run_index(root)
    gen, repo, ref = open_gen(root)
    hits, total = locate_symbol(gen, repo, ref, name)
    found = [(h.path, h.line_start) for h in hits]
    assert total == 1 + len(stubs_at) and found[0] == body_at and set(found[1:]) == stubs_at  # all still listed
    assert hits[0].signals["declaration_penalty"] == 0.0
    assert all(h.signals["declaration_penalty"] < 0 for h in hits[1:])
    from cruxe.declarations import is_declaration
    assert not is_declaration("typescript", "", "export const loadAll = (s: Store) => s.loadItem('x');")
    assert not is_declaration("typescript", "", "  get = (k: string) => this.map.get(k);")
    assert not is_declaration("javascript", "", "const twice = x => x * 2;")
    # a function type in a declaration's parameters or result (commander's `index.d.ts`)
    assert is_declaration("typescript", "", "  action(fn: (...args: any[]) => void | Promise<void>): this;")
    assert is_declaration("typescript", "", "  hook(): () => void;")


def _ranked_hit(path: str, name: str, symbol_id: str, bm25: float, **name_signals: float):
    from cruxe.model import Hit
    from cruxe.query import signals as sig
    h = Hit("symbol", path, 1, 3, kind="method", name=name, symbol_id=symbol_id)
    h.signals = sig.compose(bm25, **name_signals)
    h.score = h.signals["final_score"]
    return h


def test_search_puts_a_declaration_below_the_body_the_name_cannot_tell_it_from():
    from cruxe.query.search import _declarations_below_bodies
    # commander: retrieval was surer of `typings/index.d.ts`'s `action` than of `lib/command.js`'s
    same = {"exact_match_boost": 25.0, "qualified_name_boost": 15.0}
    decl = _ranked_hit("typings/index.d.ts", "action", "d", 76.2, **same)
    body = _ranked_hit("lib/command.js", "action", "b", 59.0, **same)
    other = _ranked_hit("lib/other.js", "command", "o", 70.0)
    _declarations_below_bodies([decl, body, other], {"d"})
    assert body.score > decl.score > other.score and decl.signals["declaration_penalty"] < 0
    assert decl.score == round(decl.signals["bm25_score"] + sum(
        v for k, v in decl.signals.items() if k not in ("bm25_score", "final_score", "semantic_similarity")), 4)
    # `Reader.read_all` asked: the Protocol's member is what the name picks out; it stays first
    proto = _ranked_hit("a.py", "read_all", "p", 60.0, exact_match_boost=25.0, qualified_name_boost=15.0)
    impl = _ranked_hit("b.py", "read_all", "i", 50.0, exact_match_boost=25.0)
    _declarations_below_bodies([proto, impl], {"p"})
    assert proto.score > impl.score and proto.signals["declaration_penalty"] == 0.0


def test_search_for_a_qualified_name_lists_what_it_names_above_other_same_named_definitions():
    from cruxe.query.planner import plan as build_plan
    from cruxe.query.search import _qualified_first
    # rich: retrieval was surer of `jupyter.print` (a short wrapper) than of `Console.print`
    wrapper = _ranked_hit("rich/jupyter.py", "print", "w", 75.5, exact_match_boost=25.0)
    method = _ranked_hit("rich/console.py", "print", "m", 59.0, exact_match_boost=25.0, qualified_name_boost=15.0)
    other = _ranked_hit("rich/console.py", "Console", "c", 67.7)
    _qualified_first([wrapper, method, other], build_plan("Console.print"))
    assert method.score > wrapper.score > other.score
    assert method.signals["qualified_name_boost"] > 15.0 and method.score == method.signals["final_score"]
    # a bare name asked: nothing to lift
    bare = _ranked_hit("rich/console.py", "print", "m2", 59.0, exact_match_boost=25.0)
    _qualified_first([bare], build_plan("print"))
    assert bare.signals["qualified_name_boost"] == 0.0


@pytest.mark.parametrize("name, body_at", [("read_all", ("a.py", 23)), ("FetchIt", ("b.go", 9)),
                                           ("area_of", ("c.rs", 8)), ("loadItem", ("d.ts", 6))])
def test_search_by_name_lists_the_body_first(make_repo, name, body_at):
    root = make_repo(STUB_REPO)
    run_index(root)
    gen, repo, ref = open_gen(root)
    hits, _, intent = search_code(gen, repo, ref, name)
    assert intent["intent"] == "symbol" and (hits[0].path, hits[0].line_start) == body_at


def test_a_typescript_member_signature_with_an_object_type_is_a_declaration():
    """A signature may hold `{` (an object type) or `=>` (a function type) and still have no
    body: what follows the stored signature decides (RTK's `selectSlice(state: { [K in P]: S }): S`
    interface member came before the function that does the work)."""
    from cruxe.declarations import is_declaration
    sig = "selectSlice(state: { [K in ReducerPath]: State }): State"
    assert is_declaration("typescript", sig, "  selectSlice(state: {\n    [K in ReducerPath]: State\n  }): State")
    on = "on(event: string, cb: (e: Event) => void): this"
    assert is_declaration("typescript", on, "  on(event: string, cb: (e: Event) => void): this;")
    body = "getSelectors(select: (s: any) => S): X"
    assert not is_declaration("typescript", body, "  getSelectors(select: (s: any) => S): X {\n    return x\n  }")
    arrow = "const inc = (a: number) =>"
    assert not is_declaration("typescript", arrow, "const inc = (a: number) => a + 1")
    # a signature cut at its length limit: a body ends the text with its `}`, a member does not
    # (RTK's `injectEndpoints<D>(_: { /** ... */ overrideExisting?: ... }): Api<...>`)
    long_params = "".join(f"    p{i}: {{ a: string }},\n" for i in range(30))
    member = f"  inject(_: {{\n{long_params}  }}): Api<\n    A,\n    B\n  >"
    cut = " ".join(member.split())[:297] + "..."
    assert is_declaration("typescript", cut, member)
    assert not is_declaration("typescript", cut, member.replace("): Api<\n    A,\n    B\n  >", ") {\n  return x\n}"))


def test_locate_kind_filter_applies_before_the_exact_case_tier(make_repo):
    root = make_repo({"m.py": "class Config:\n    pass\n\n\nconfig = Config()\n"})
    run_index(root)
    gen, repo, ref = open_gen(root)
    hits, total = locate_symbol(gen, repo, ref, "config", kind="class")
    assert total == 1 and [(h.kind, h.name) for h in hits] == [("class", "Config")]
    assert [h.name for h in locate_symbol(gen, repo, ref, "config", kind="variable")[0]] == ["config"]


def test_same_named_definitions_in_one_file_are_all_answered(make_repo):
    """Two `func init()` in one Go file and a Python redefinition share a stable id: the
    answer lists both, not one plus a "duplicate"."""
    from cruxe.tools import Server
    root = make_repo({"b.go": "package b\n\nfunc init() {\n\tx := 1\n\t_ = x\n}\n\nfunc init() {\n\ty := 2\n\t_ = y\n}\n",
                      "e.py": "def handler(x):\n    return x\n\n\ndef handler(x):\n    return x + 1\n"})
    run_index(root)
    server = Server(root)
    for name, lines in (("init", [3, 8]), ("handler", [1, 5])):
        payload, is_error = server.call_tool("locate_symbol", {"name": name})
        assert not is_error
        assert sorted(r["line_start"] for r in payload["results"]) == lines


def test_locate_a_qualified_name_in_its_exact_case_ranks_first(make_repo):
    """`formatError.Error` with five `FormatError.Error` around (Go 1.19 has both): the one
    whose scope matches the case as written comes first, the case-insensitive ones after."""
    files = {f"p{i}/f.go": f"package p{i}\n\ntype FormatError struct{{}}\n\n"
                           "func (e FormatError) Error() string { return \"bad\" }\n" for i in range(5)}
    files["deep/inner/fmt.go"] = ("package inner\n\ntype formatError struct{}\n\n"
                                  "func (e formatError) Error() string { return \"bad format\" }\n")
    root = make_repo(files)
    run_index(root)
    gen, repo, ref = open_gen(root)
    hits, total = locate_symbol(gen, repo, ref, "formatError.Error", limit=5)
    assert total == 6 and len(hits) == 5
    assert (hits[0].path, hits[0].line_start) == ("deep/inner/fmt.go", 5)
    assert {h.path for h in hits[1:]} <= {f"p{i}/f.go" for i in range(5)}
    upper, _ = locate_symbol(gen, repo, ref, "FormatError.Error", limit=10)
    assert len(upper) == 6 and upper[-1].path == "deep/inner/fmt.go"


def test_a_member_whose_parameters_hold_comments_is_still_a_declaration():
    # the stored signature has no comments (extraction cuts them); the text it is looked for in does
    from cruxe.extract import extract
    from cruxe.declarations import is_declaration
    src = ("export interface Commands {\n  setContent(\n    /** the new content */\n    content: { type: string },\n"
           "    // emit an update\n    emitUpdate?: boolean,\n  ): boolean;\n}\n"
           "export class Editor {\n  setContent(\n    /** the new content */\n    content: { type: string },\n"
           "  ): boolean {\n    return true\n  }\n}\n")
    lines = src.split("\n")
    found = {s.line_start: is_declaration("typescript", s.signature, "\n".join(lines[s.line_start - 1:s.line_end]))
             for s in extract("a.ts", src.encode(), "typescript").symbols if s.name == "setContent"}
    assert found == {2: True, 10: False}
