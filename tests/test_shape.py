"""Response shaping: detail levels, compact, dedup, safety limit, ranking reasons, metadata.

Realistic hits are built from the Python stdlib's `json/` and `email/` packages with `ast`
(real names, signatures, bodies, parents and siblings), so size budgets are measured on code
nobody here wrote.
"""
from __future__ import annotations

import ast
import dataclasses
import json
import statistics
from functools import lru_cache

import bpe_openai
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cruxe import shape
from cruxe.config import load_config, resolve_explain_level
from cruxe.errors import CruxeError
from cruxe.model import Hit, symbol_id, symbol_stable_id
from support.locations import STDLIB

BASE = {"freshness_status": "fresh", "indexing_status": "ready", "result_completeness": "complete",
        "ref": "main", "schema_status": "compatible"}
SIGNAL_NAMES = ("bm25_score", "exact_match_boost", "qualified_name_boost", "kind_weight", "query_intent_boost",
                "definition_boost", "path_affinity", "test_file_penalty", "declaration_penalty", "semantic_similarity",
                "final_score")


# ---- data -------------------------------------------------------------------------------

def _signals(i: int, path: str, kind: str) -> dict[str, float]:
    s = {"bm25_score": round(7.0 / (i + 1), 6), "exact_match_boost": 5.0 if i % 4 == 0 else 0.0,
         "qualified_name_boost": 2.0 if i % 5 == 0 else 0.0, "kind_weight": 2.0 if kind == "class" else 1.5,
         "query_intent_boost": 1.0 if kind == "class" else 0.0, "definition_boost": 1.0,
         "path_affinity": 1.0 if "decoder" in path else 0.0,
         "test_file_penalty": -0.5 if "test" in path else 0.0, "semantic_similarity": 0.0}
    s["final_score"] = round(sum(s.values()), 6)
    return s


@lru_cache(maxsize=None)
def stdlib_hits(package: str) -> tuple[Hit, ...]:
    """Every def/class of a stdlib package as a query-engine hit, ranked in source order."""
    hits: list[Hit] = []
    for file in sorted((STDLIB / package).rglob("*.py")):
        rel = str(file.relative_to(STDLIB))
        lines = file.read_text(encoding="utf-8").splitlines()
        module = rel[:-3].replace("/", ".").removesuffix(".__init__")

        def walk(body, parent, prefix):
            defs = [n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
            for n in defs:
                kind = "class" if isinstance(n, ast.ClassDef) else "method" if parent else "function"
                start = min([n.lineno] + [d.lineno for d in n.decorator_list])
                qn, sig = f"{prefix}.{n.name}", lines[n.lineno - 1].strip().rstrip(":")
                hits.append(Hit(
                    result_type="symbol", path=rel, line_start=start, line_end=n.end_lineno,
                    kind=kind, name=n.name, qualified_name=qn, signature=sig,
                    language="python", visibility="private" if n.name.startswith("_") else "public",
                    symbol_id=symbol_id("0123456789abcdef", "main", rel, kind, start, n.name),
                    symbol_stable_id=symbol_stable_id("python", kind, qn, sig),
                    body_preview="\n".join(lines[start - 1:n.end_lineno]), parent=parent,
                    related_symbols=[{"kind": "class" if isinstance(d, ast.ClassDef) else "function",
                                      "name": d.name, "path": rel, "line": d.lineno} for d in defs if d is not n],
                    signals=_signals(len(hits), rel, kind),
                ))
                hits[-1].score = hits[-1].signals["final_score"]
                if isinstance(n, ast.ClassDef):
                    walk(n.body, {"kind": "class", "name": n.name, "path": rel, "line": n.lineno}, qn)

        walk(ast.parse("\n".join(lines)).body, None, module)
    return tuple(hits)


def pages(package: str, size: int = 10) -> list[list[Hit]]:
    hits = list(stdlib_hits(package))
    return [hits[i:i + size] for i in range(0, len(hits) - size + 1, size)]


def sym(name="validate_token", path="src/auth/jwt.rs", line=87, **over) -> Hit:
    hit = {"result_type": "symbol", "path": path, "line_start": line, "line_end": line + 25, "kind": "function",
           "name": name, "qualified_name": f"auth::jwt::{name}",
           "signature": f"pub fn {name}(token: &str, key: &[u8]) -> Result<Claims>", "language": "rust",
           "visibility": "public", "symbol_id": f"{name}-{path}-{line}-id", "symbol_stable_id": f"{name}-stable",
           "score": 12.345678, "signals": {n: 0.0 for n in SIGNAL_NAMES}}
    hit.update(over)
    return Hit(**hit)


def snippet(path="src/auth/jwt.rs", line=90, text="let decoded = decode(token)?;", **over) -> Hit:
    hit = {"result_type": "snippet", "path": path, "line_start": line, "line_end": line + 2, "kind": "", "name": "",
           "qualified_name": "", "signature": "", "language": "rust", "visibility": "", "symbol_id": "",
           "symbol_stable_id": "", "score": 3.2, "snippet": text, "signals": {n: 0.0 for n in SIGNAL_NAMES}}
    hit.update(over)
    return Hit(**hit)


def nulls(value) -> bool:
    if value is None:
        return True
    if isinstance(value, dict):
        return any(nulls(v) for v in value.values())
    if isinstance(value, list):
        return any(nulls(v) for v in value)
    return False


# ---- detail levels (FR-101..FR-105, spec 03 shapes) --------------------------------------

def test_location_shape_of_a_symbol():
    assert shape.shape_result(sym(), "location") == {
        "path": "src/auth/jwt.rs", "line_start": 87, "line_end": 112, "kind": "function",
        "name": "validate_token"}


def test_signature_shape_adds_exactly_the_signature_fields():
    # FR-103's four fields, each only where it says something the result does not already say
    # (DEPARTURES.md): a method's qualified name names its type, a private symbol says so.
    hit = sym(name="validate", qualified_name="auth::jwt::Validator::validate", visibility="private",
              path="src/auth/jwt.h", language="rust")
    out = shape.shape_result(hit, "signature")
    loc = shape.shape_result(hit, "location")
    assert list(out)[:len(loc)] == list(loc)
    assert set(out) - set(loc) == {"qualified_name", "signature", "language", "visibility"}
    assert out["qualified_name"] == "auth::jwt::Validator::validate"
    assert out["signature"] == "pub fn validate(token: &str, key: &[u8]) -> Result<Claims>"
    assert "score" not in out  # FR-103 lists no score; `context` carries it


@pytest.mark.parametrize("path, language, qualified, shown", [
    ("src/auth/jwt.rs", "rust", "auth::jwt::validate_token", False),  # module path + name
    ("src/auth/mod.rs", "rust", "auth::validate_token", False),
    ("src/auth/jwt.rs", "rust", "auth::jwt::Claims::validate_token", True),  # impl Claims
    ("json/__init__.py", "python", "json.validate_token", False),
    ("json/decoder.py", "python", "json.decoder.JSONDecoder.validate_token", True),
    ("net/http/server.go", "go", "http.validate_token", False),  # Go names start at the package
    ("net/http/server.go", "go", "http.server.validate_token", True),  # receiver named like the file
    ("zod/src/v3/types.ts", "typescript", "v3.types.validate_token", False),
    ("zod/src/v3/types.ts", "typescript", "v3.types.ZodType.validate_token", True),
    ("a.py", "python", "validate_token", False),
    ("a.py", "python", "other_name", True),  # says something else: shown
])
def test_signature_shows_qualified_name_only_when_it_names_a_container(path, language, qualified, shown):
    out = shape.shape_result(sym(path=path, language=language, qualified_name=qualified), "signature")
    assert ("qualified_name" in out) is shown
    assert "language" not in out  # the extension says it
    assert "visibility" not in out  # public: the default
    full = shape.shape_result(sym(path=path, language=language, qualified_name=qualified), "context")
    assert full["qualified_name"] == qualified and full["language"] == language and full["visibility"] == "public"


def test_context_shape_adds_preview_parent_related_and_full_identity():
    body = "\n".join(f"line {i}" for i in range(1, 26))
    related = [{"kind": "struct", "name": f"S{i}", "path": "src/a.rs", "line": i, "extra": "x"} for i in range(8)]
    hit = sym(body_preview=body, parent={"kind": "impl", "name": "JwtValidator", "path": "src/auth/jwt.rs",
                                         "line": 45}, related_symbols=related)
    out = shape.shape_result(hit, "context")
    loc = shape.shape_result(hit, "location")
    assert list(out)[:len(loc)] == list(loc)
    # `context` carries every field whole, the ones `signature` leaves out as implied included
    assert set(out) - set(loc) == {"qualified_name", "signature", "language", "visibility", "score",
                                   "result_type", "result_id", "symbol_id", "symbol_stable_id", "body_preview",
                                   "parent", "related_symbols"}
    assert out["score"] == 12.35  # 2 decimals
    assert out["body_preview"].splitlines() == [f"line {i}" for i in range(1, 11)] + ["... truncated ..."]
    assert out["parent"] == {"kind": "impl", "name": "JwtValidator", "path": "src/auth/jwt.rs", "line": 45}
    assert out["related_symbols"] == [{k: r[k] for k in ("kind", "name", "path", "line")} for r in related[:5]]
    assert out["symbol_id"] == hit.symbol_id and out["result_id"].startswith("res_")


def test_short_preview_has_no_marker_and_long_lines_are_cut():
    assert shape.preview("a\nb") == "a\nb"
    cut = shape.preview("x" * 1000)
    assert cut == "x" * shape.PREVIEW_LINE_CHARS + " ..."


def test_a_hit_holds_only_its_fields():
    # A record, not a dict: a misspelt or private key (the fusion's running sum once rode on
    # the hit as `_rrf`) cannot travel with a hit into shaping unnoticed.
    hit = sym()
    with pytest.raises(AttributeError):
        hit.body_previw = "x"
    assert (hit.snippet, hit.body_preview, hit.parent, hit.related_symbols) == (None, None, None, None)


def test_absent_fields_are_omitted_never_null():
    hit = sym(parent=None, related_symbols=[], body_preview="", visibility="", signature=None)
    out = shape.shape_result(hit, "context")
    assert not {"parent", "related_symbols", "body_preview", "visibility", "signature"} & set(out)
    assert not nulls(out)
    for h in stdlib_hits("json"):
        for level in shape.DETAIL_LEVELS:
            assert not nulls(shape.shape_result(h, level))


def test_snippet_results_carry_result_type_and_result_id_and_text_only_in_context():
    hit = snippet(text="\n".join(f"s{i}" for i in range(30)))
    loc = shape.shape_result(hit, "location")
    assert loc == {"path": "src/auth/jwt.rs", "line_start": 90, "line_end": 92, "result_type": "snippet"}
    assert "snippet" not in shape.shape_result(hit, "signature")
    ctx = shape.shape_result(hit, "context")
    assert ctx["result_id"] == shape.hit_result_id(hit)
    assert ctx["snippet"].splitlines() == [f"s{i}" for i in range(20)] + ["... truncated ..."]


def test_detail_level_is_serialization_only():
    # Same hit list in, same order and locations out, at every level (FR-105).
    hits = list(stdlib_hits("json"))
    handles = {lvl: [(r["path"], r["line_start"], r["line_end"], r.get("kind"), r.get("name"))
                     for r in shape.shape_response("search_code", hits, detail_level=lvl, base_metadata=BASE)["results"]]
               for lvl in shape.DETAIL_LEVELS}
    assert handles["location"] == handles["signature"] == handles["context"]


def test_unknown_detail_level_is_invalid_input():
    with pytest.raises(CruxeError) as exc:
        shape.shape_result(sym(), "verbose")
    assert exc.value.code == "invalid_input"
    with pytest.raises(CruxeError):
        shape.shape_response("search_code", [], detail_level="verbose", base_metadata=BASE)


ENCODINGS = ("o200k_base", "cl100k_base")


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("package", ["json", "email"])
def test_token_budgets_per_result(encoding, package):
    # SC-101 location <= 60, SC-102 signature <= 120, FR-104 context ~300-500 tokens per result.
    enc = bpe_openai.get_encoding(encoding)
    hits = stdlib_hits(package)

    def mean_tokens(level: str) -> float:
        return statistics.mean(len(enc.encode(shape.to_json(shape.shape_result(h, level)))) for h in hits)

    assert mean_tokens("location") <= 60
    assert mean_tokens("signature") <= 120
    assert mean_tokens("context") <= 500


# ---- compact (FR-105a, SC-102a) ----------------------------------------------------------

def test_compact_keeps_order_and_handles_and_drops_the_rest():
    hits = list(stdlib_hits("email")[:40]) + [snippet(line=i) for i in (5, 50)]
    full = shape.shape_response("search_code", hits, detail_level="context", base_metadata=BASE)["results"]
    small = shape.shape_response("search_code", hits, detail_level="context", compact=True,
                                 base_metadata=BASE)["results"]
    where = ("path", "line_start", "line_end", "kind", "name", "score")
    assert [[r.get(k) for k in where] for r in small] == [[r.get(k) for k in where] for r in full]
    for c, f in zip(small, full):
        # The handle survives: the stable id of a symbol, the result id of a snippet or file.
        handle = "symbol_stable_id" if "kind" in f else "result_id"
        assert c[handle] == f[handle]
        assert all(c[k] == f[k] for k in ("symbol_stable_id", "result_id", "symbol_id") if k in c)
    heavy = {"body_preview", "parent", "related_symbols", "snippet", "signature", "qualified_name"}
    assert not any(heavy & set(r) for r in small)
    assert any(heavy & set(r) for r in full)


@pytest.mark.parametrize("level", shape.DETAIL_LEVELS)
def test_compact_never_adds_fields(level):
    for h in [*stdlib_hits("json"), snippet()]:
        assert set(shape.shape_result(h, level, compact=True)) <= set(shape.shape_result(h, level))


def test_compact_payload_is_at_most_a_fifth_of_context():
    # SC-102a / CONTRACTS: same query and limit (10), detail_level context, whole payload bytes.
    ratios = []
    for package in ("json", "email"):
        for page in pages(package):
            kw = dict(detail_level="context", base_metadata=BASE, args={"query": "decode", "limit": 10},
                      extra={"query_intent": {"intent": "symbol", "confidence": 0.95}})
            full = shape.to_json(shape.shape_response("search_code", page, **kw))
            small = shape.to_json(shape.shape_response("search_code", page, compact=True, **kw))
            ratios.append(len(small.encode()) / len(full.encode()))
    assert len(ratios) >= 60
    assert statistics.mean(ratios) <= 0.20


# ---- dedup (FR-105b) ---------------------------------------------------------------------

def test_dedup_keeps_first_by_rank_and_counts():
    a, a_again = sym(score=9.0), sym(score=1.0)  # the same definition, reported twice
    b = sym(name="other")
    s1, s1_again = snippet(), snippet(score=0.5)
    kept, suppressed = shape.dedup([a, b, a_again, s1, s1_again])
    assert kept == [a, b, s1] and suppressed == 2


def test_same_stable_id_in_different_files_is_not_a_duplicate():
    # Every Go command's `func main()` has the same stable id; they are different results.
    mains = [sym(name="main", path=f"cmd/{c}/main.go", symbol_stable_id="main.main-stable") for c in ("a", "b")]
    assert shape.dedup(mains) == (mains, 0)


def test_same_stable_id_at_other_lines_of_one_file_is_not_a_duplicate():
    # Go's several `func init()` in one file, a Python redefinition: distinct definitions.
    inits = [sym(name="init", path="b.go", line=line, symbol_stable_id="init-stable") for line in (3, 8)]
    assert shape.dedup(inits) == (inits, 0)


def test_suppressed_count_in_metadata_only_when_positive():
    hits = [sym(), sym(score=1.0), snippet()]
    meta = shape.shape_response("locate_symbol", hits, base_metadata=BASE)["metadata"]
    assert meta["suppressed_duplicate_count"] == 1
    meta = shape.shape_response("locate_symbol", hits[1:], base_metadata=BASE)["metadata"]
    assert "suppressed_duplicate_count" not in meta


def test_dedup_happens_before_limit():
    hits = [sym(), sym(score=1.0), sym(name="b"), sym(name="c")]
    out = shape.shape_response("search_code", hits, base_metadata=BASE, limit=3)
    assert [r["name"] for r in out["results"]] == ["validate_token", "b", "c"]
    assert out["total_candidates"] == 3


# ---- payload safety limit (FR-105c) ------------------------------------------------------

def test_safety_limit_keeps_longest_fitting_prefix_at_the_exact_boundary():
    results = [shape.shape_result(h, "context") for h in stdlib_hits("json")[:6]]
    exact = len(shape.to_json(results[:4]).encode())
    assert shape.apply_safety_limit(results, exact) == (results[:4], True)
    assert shape.apply_safety_limit(results, exact - 1) == (results[:3], True)
    whole = len(shape.to_json(results).encode())
    assert shape.apply_safety_limit(results, whole) == (results, False)
    assert shape.apply_safety_limit(results, 10) == ([], True)


def test_safety_limit_counts_utf8_bytes():
    results = [{"name": "é" * 10}]  # 10 characters, 20 bytes
    size = len(shape.to_json(results).encode())
    assert shape.apply_safety_limit(results, size) == (results, False)
    assert shape.apply_safety_limit(results, size - 1) == ([], True)


@given(st.lists(st.text(max_size=40), max_size=12), st.integers(min_value=0, max_value=400))
def test_safety_limit_prefix_property(names, max_bytes):
    results = [{"name": n} for n in names]
    kept, truncated = shape.apply_safety_limit(results, max_bytes)
    assert kept == results[:len(kept)]
    assert truncated == (len(kept) < len(results))
    if kept:
        assert len(shape.to_json(kept).encode()) <= max_bytes
    if truncated:
        assert len(shape.to_json(results[:len(kept) + 1]).encode()) > max_bytes


def test_truncated_response_contract():
    hits = list(stdlib_hits("email")[:30])
    args = {"query": "header", "limit": 30, "detail_level": "context", "workspace": "/repo"}
    out = shape.shape_response("search_code", hits, detail_level="context", max_bytes=8000,
                               base_metadata=BASE, args=args)
    meta = out["metadata"]
    assert 0 < len(out["results"]) < 30
    assert len(shape.to_json(out["results"]).encode()) <= 8000
    assert meta["result_completeness"] == "truncated" and meta["safety_limit_applied"] is True
    retry = out["suggested_next_actions"][0]
    assert retry["tool"] == "search_code"
    assert retry["arguments"] == {"query": "header", "limit": len(out["results"]), "detail_level": "context",
                                  "compact": True, "workspace": "/repo"}
    again = shape.shape_response("search_code", hits, detail_level="context", max_bytes=8000,
                                 base_metadata=BASE, args=args)
    assert shape.to_json(again) == shape.to_json(out)  # deterministic bytes


def test_already_compact_truncation_suggests_location_level():
    hits = list(stdlib_hits("email")[:30])
    args = {"query": "header", "compact": True}
    out = shape.shape_response("search_code", hits, compact=True, max_bytes=1500, base_metadata=BASE, args=args)
    assert out["suggested_next_actions"][0]["arguments"]["detail_level"] == "location"


def test_untruncated_response_has_no_safety_flag():
    out = shape.shape_response("search_code", [sym()], base_metadata=BASE)
    assert "safety_limit_applied" not in out["metadata"]
    assert shape.full_metadata(out["metadata"])["result_completeness"] == "complete"


# ---- ranking reasons (FR-114, FR-115, FR-115a, spec 04) ----------------------------------

def test_off_omits_ranking_reasons():
    assert shape.ranking_reasons([sym()], "off") is None
    out = shape.shape_response("search_code", [sym()], explain_level="off", base_metadata=BASE)
    assert "ranking_reasons" not in out["metadata"]


def test_basic_reasons_are_compact_normalized_factors():
    hit = sym(signals={**{n: 0.0 for n in SIGNAL_NAMES}, "exact_match_boost": 5.0, "path_affinity": 1.0,
                       "definition_boost": 1.0, "bm25_score": 4.2, "final_score": 11.2})
    (r,) = shape.ranking_reasons([hit], "basic")
    assert r == {"result_index": 0, "exact_match": 1.0, "path_boost": 1.0, "definition_boost": 1.0,
                 "semantic_similarity": 0.0, "final_score": 11.2}


def test_full_reasons_are_a_view_of_the_signals():
    hits = list(stdlib_hits("json"))
    for i, (hit, r) in enumerate(zip(hits, shape.ranking_reasons(hits, "full"))):
        s = hit.signals
        assert r["result_index"] == i
        for name in ("exact_match_boost", "qualified_name_boost", "path_affinity", "definition_boost",
                     "bm25_score", "final_score", "kind_weight", "query_intent_boost", "test_file_penalty"):
            assert r[name] == round(s[name], 4)
        assert r["kind_match"] == round(s["kind_weight"] + s["query_intent_boost"], 4)


def test_spec_example_kind_match_stacks_weight_and_intent():
    # spec 04: class UserService on a type query: kind_weight 2.0 + intent 1.0 = 3.0
    hit = sym(kind="class", signals={**{n: 0.0 for n in SIGNAL_NAMES}, "kind_weight": 2.0, "query_intent_boost": 1.0})
    assert shape.ranking_reasons([hit], "full")[0]["kind_match"] == 3.0


def test_reasons_follow_the_results_after_dedup_and_truncation():
    hits = [sym(name=f"f{i}", score=10 - i, signals={**{n: 0.0 for n in SIGNAL_NAMES}, "final_score": 10 - i})
            for i in range(5)]
    hits.insert(1, dataclasses.replace(hits[0]))  # a duplicate of the first
    one = len(shape.to_json([shape.shape_result(hits[0])]).encode())
    out = shape.shape_response("search_code", hits, explain_level="basic", max_bytes=one * 3 + 2,
                               base_metadata=BASE)
    reasons = out["metadata"]["ranking_reasons"]
    assert [r["result_index"] for r in reasons] == list(range(len(out["results"])))
    assert [(r["name"], r["line_start"]) for r in out["results"]] == [("f0", 87), ("f1", 87), ("f2", 87)]
    assert [r["final_score"] for r in reasons] == [10, 9, 8]  # f0 f1 f2's, the duplicate skipped


def test_explain_precedence_end_to_end(tmp_path):
    (tmp_path / ".cruxe").mkdir()
    (tmp_path / ".cruxe" / "config.toml").write_text("[debug]\nranking_reasons = true\n")
    cfg = load_config(str(tmp_path), env={"CRUXE_HOME": str(tmp_path / "home")})

    def reasons(request):
        level = resolve_explain_level(request, cfg)
        meta = shape.shape_response("locate_symbol", [sym()], explain_level=level, base_metadata=BASE)["metadata"]
        return meta.get("ranking_reasons")

    assert set(reasons(None)[0]) >= {"exact_match_boost", "kind_match", "bm25_score"}  # legacy true -> full
    assert set(reasons("basic")[0]) == {"result_index", "exact_match", "path_boost", "definition_boost",
                                        "semantic_similarity", "final_score"}  # request wins
    assert reasons("off") is None


# ---- metadata (Protocol v1) --------------------------------------------------------------

def test_metadata_required_fields_and_order():
    # Normal values are left out (DEPARTURES.md); the version and the ref are always there.
    meta = shape.metadata(BASE)
    assert meta == {"cruxe_protocol_version": "1.0", "ref": "main"}
    assert shape.full_metadata(meta) == {**BASE, **meta}
    odd = {"freshness_status": "stale", "indexing_status": "indexing", "result_completeness": "partial",
           "ref": "main", "schema_status": "not_indexed"}
    meta = shape.metadata(odd)
    assert list(meta) == ["cruxe_protocol_version", "freshness_status", "indexing_status",
                          "result_completeness", "ref", "schema_status"]
    assert shape.full_metadata(meta) == {**odd, "cruxe_protocol_version": "1.0"}


@pytest.mark.parametrize("field", ["freshness_status", "indexing_status", "result_completeness", "schema_status"])
def test_each_status_field_is_sent_exactly_when_it_is_not_normal(field):
    allowed = dict(shape._REQUIRED_META)[field]
    for value in allowed:
        meta = shape.metadata({**BASE, field: value})
        assert (field in meta) is (value != shape.NORMAL_META[field])
        assert shape.full_metadata(meta)[field] == value


def test_metadata_optional_fields_only_when_set_and_extra_base_keys_kept():
    meta = shape.metadata({**BASE, "symbol_count": 8}, suppressed_duplicate_count=0, warnings=[])
    assert meta["symbol_count"] == 8
    assert not {"suppressed_duplicate_count", "warnings", "safety_limit_applied", "ranking_reasons"} & set(meta)
    meta = shape.metadata({**BASE, "warnings": ["stale index"]}, warnings=["x"], safety_limit_applied=True)
    assert meta["warnings"] == ["stale index", "x"] and meta["result_completeness"] == "truncated"


def test_no_semantic_fields_without_a_semantic_backend():
    # DEPARTURES.md: the four constant "semantic off" fields are left out of every answer.
    for tool in ("search_code", "locate_symbol"):
        meta = shape.shape_response(tool, [sym()], base_metadata=BASE)["metadata"]
        assert not any(k.startswith("semantic_") for k in meta)


@pytest.mark.parametrize("field, value", [("freshness_status", "old"), ("indexing_status", None),
                                          ("schema_status", "fine"), ("ref", None)])
def test_metadata_rejects_non_canonical_values(field, value):
    with pytest.raises(CruxeError) as exc:
        shape.metadata({**BASE, field: value})
    assert exc.value.code == "internal_error"


# ---- suggested next actions and the payload -------------------------------------------

NL = {"query_intent": {"intent": "natural_language", "confidence": 0.8}}


def actions(tool, hits, args, base=BASE, **kw):
    # locate_symbol's handler says its hits are the definitions of one name
    out = shape.shape_response(tool, hits, base_metadata=base, args=args,
                               definitions=tool == "locate_symbol", **kw)
    return out.get("suggested_next_actions")


def test_no_next_actions_on_an_answer_that_is_all_there_is():
    # Found, complete, fresh: nothing to suggest, and the key is left out (not an empty list).
    args = {"query": "validate", "ref": "main", "limit": 5}
    assert actions("search_code", [sym(), snippet()], args, total_candidates=2) is None
    assert actions("locate_symbol", [sym()], {"name": "validate_token", "limit": 5}, total_candidates=1) is None
    # a search whose intent is not a guess from words, with more candidates: still none
    hits = [sym(name=f"f{i}") for i in range(8)]
    sym_intent = {"query_intent": {"intent": "symbol", "confidence": 0.95}}
    assert actions("search_code", hits, {"query": "f0", "limit": 5}, limit=5, total_candidates=8,
                   extra=sym_intent) is None
    # a natural-language search that shows every candidate: none
    assert actions("search_code", hits[:3], {"query": "how are tokens checked", "limit": 5}, limit=5,
                   total_candidates=3, extra=NL) is None


def test_next_action_when_nothing_is_found():
    assert actions("locate_symbol", [], {"name": "nope", "limit": 5}) == [
        {"tool": "search_code", "arguments": {"query": "nope"}, "reason": "no definition; search text instead"}]
    assert actions("search_code", [], {"query": "nope", "limit": 5}) is None  # nothing would help
    # filters first: the same call without them
    got = actions("locate_symbol", [], {"name": "nope", "kind": "class", "language": "go", "limit": 5,
                                        "detail_level": "signature", "compact": False, "ref": "main"})
    assert got == [
        {"tool": "locate_symbol", "arguments": {"name": "nope", "limit": 5, "ref": "main"},
         "reason": "nothing found; retry without filters"},
        {"tool": "search_code", "arguments": {"query": "nope", "ref": "main"},
         "reason": "no definition; search text instead"}]
    got = actions("search_code", [], {"query": "nope", "role": "type", "limit": 5})
    assert got == [{"tool": "search_code", "arguments": {"query": "nope", "limit": 5},
                    "reason": "nothing found; retry without filters"}]


@pytest.mark.parametrize("status, tool", [
    ({"freshness_status": "stale"}, "sync_repo"), ({"freshness_status": "syncing"}, "index_status"),
    ({"indexing_status": "indexing", "result_completeness": "partial"}, "index_status")])
def test_next_action_on_an_index_that_lags(status, tool):
    got = actions("locate_symbol", [sym()], {"name": "validate_token", "ref": "main", "limit": 5},
                  base={**BASE, **status}, total_candidates=1)
    assert [(a["tool"], a["arguments"]) for a in got] == [(tool, {"ref": "main"})]


def test_next_action_when_a_locate_shows_fewer_definitions_than_exist():
    hits = [sym(path=f"src/m{i}.rs") for i in range(7)]
    got = actions("locate_symbol", hits, {"name": "validate_token", "limit": 5, "detail_level": "signature",
                                          "compact": False}, limit=5, total_candidates=7)
    assert got == [{"tool": "locate_symbol", "arguments": {"name": "validate_token", "limit": 7},
                    "reason": "5 of 7 definitions shown"}]
    # duplicates the page suppressed are no further definitions
    dup = [sym(), sym(line=999), sym(path="src/other.rs")]
    assert actions("locate_symbol", dup, {"name": "validate_token", "limit": 5}, limit=5, total_candidates=3) is None


def test_next_action_on_a_natural_language_search_with_more_results():
    hits = [sym(name=f"f{i}") for i in range(8)]
    got = actions("search_code", hits, {"query": "how are tokens checked", "limit": 5, "language": "rust"},
                  limit=5, total_candidates=40, extra=NL)
    assert got == [{"tool": "search_code",
                    "arguments": {"query": "how are tokens checked", "limit": 10, "language": "rust"},
                    "reason": "ranked by the question's words: a guess; more results"}]
    # compact requests get the action without the prose
    got = actions("search_code", hits, {"query": "how are tokens checked", "limit": 5, "compact": True},
                  limit=5, compact=True, total_candidates=40, extra=NL)
    assert got == [{"tool": "search_code", "arguments": {"query": "how are tokens checked", "limit": 10,
                                                         "compact": True}}]


def test_payload_key_order_and_extra():
    out = shape.shape_response("search_code", [sym()], base_metadata=BASE, total_candidates=42,
                               extra={"query_intent": {"intent": "symbol", "confidence": 0.95}})
    assert list(out) == ["results", "query_intent", "total_candidates", "metadata"]
    assert out["total_candidates"] == 42
    out = shape.shape_response("locate_symbol", [], base_metadata=BASE, args={"name": "x"}, definitions=True)
    assert list(out) == ["results", "total_candidates", "suggested_next_actions", "metadata"]


def _reversed(value):
    """A dict with its keys in reverse order, a list of dicts each reversed; anything else as is."""
    if isinstance(value, dict):
        return dict(reversed(list(value.items())))
    if isinstance(value, list):
        return [_reversed(v) for v in value]
    return value


def test_same_hits_same_bytes_whatever_the_input_key_order():
    hits = list(stdlib_hits("json")[:10])
    reordered = [Hit(**_reversed({k: _reversed(v) for k, v in _reversed(dataclasses.asdict(h)).items()}))
                 for h in hits]
    kw = dict(detail_level="context", explain_level="full", base_metadata=BASE, args={"query": "x"})
    a = shape.to_json(shape.shape_response("search_code", hits, **kw))
    b = shape.to_json(shape.shape_response("search_code", reordered, **kw))
    assert a == b
    json.loads(a)  # valid JSON, no NaN


def test_result_ids_are_deterministic_and_distinct():
    hits = list(stdlib_hits("email"))
    ids = [shape.hit_result_id(h) for h in hits]
    assert ids == [shape.hit_result_id(dataclasses.replace(h)) for h in hits]
    assert len(set(ids)) == len(ids)


@pytest.mark.parametrize("kw, shown", [
    ({}, {"intent": "natural_language"}),  # the default answer: how the query was read, no figure
    ({"detail_level": "location"}, {"intent": "natural_language"}),
    ({"detail_level": "context"}, NL["query_intent"]),
    ({"explain_level": "basic"}, NL["query_intent"]),
])
def test_the_intents_confidence_is_shown_only_with_context_or_explanations(kw, shown):
    out = shape.shape_response("search_code", [sym()], base_metadata=BASE, args={"query": "q"}, extra=NL, **kw)
    assert out["query_intent"] == shown and NL["query_intent"]["confidence"] == 0.8  # the caller's dict kept
