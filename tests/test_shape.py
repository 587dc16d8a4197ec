"""Response shaping: detail levels, compact, dedup, safety limit, ranking reasons, metadata.

Realistic hits are built from the Python stdlib's `json/` and `email/` packages with `ast`
(real names, signatures, bodies, parents and siblings), so size budgets are measured on code
nobody here wrote.
"""
from __future__ import annotations

import ast
import json
import statistics
import sysconfig
from functools import lru_cache
from pathlib import Path

import bpe_openai
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cruxe import shape
from cruxe.config import load_config, resolve_explain_level
from cruxe.errors import CruxeError
from cruxe.model import symbol_id, symbol_stable_id

STDLIB = Path(sysconfig.get_paths()["stdlib"])
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
def stdlib_hits(package: str) -> tuple[dict, ...]:
    """Every def/class of a stdlib package as a query-engine hit, ranked in source order."""
    hits: list[dict] = []
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
                hits.append({
                    "result_type": "symbol", "path": rel, "line_start": start, "line_end": n.end_lineno,
                    "kind": kind, "name": n.name, "qualified_name": qn, "signature": sig,
                    "language": "python", "visibility": "private" if n.name.startswith("_") else "public",
                    "symbol_id": symbol_id("0123456789abcdef", "main", rel, kind, start, n.name),
                    "symbol_stable_id": symbol_stable_id("python", kind, qn, sig),
                    "body_preview": "\n".join(lines[start - 1:n.end_lineno]), "parent": parent,
                    "related_symbols": [{"kind": "class" if isinstance(d, ast.ClassDef) else "function",
                                         "name": d.name, "path": rel, "line": d.lineno} for d in defs if d is not n],
                    "signals": _signals(len(hits), rel, kind),
                })
                hits[-1]["score"] = hits[-1]["signals"]["final_score"]
                if isinstance(n, ast.ClassDef):
                    walk(n.body, {"kind": "class", "name": n.name, "path": rel, "line": n.lineno}, qn)

        walk(ast.parse("\n".join(lines)).body, None, module)
    return tuple(hits)


def pages(package: str, size: int = 10) -> list[list[dict]]:
    hits = list(stdlib_hits(package))
    return [hits[i:i + size] for i in range(0, len(hits) - size + 1, size)]


def sym(name="validate_token", path="src/auth/jwt.rs", line=87, **over) -> dict:
    hit = {"result_type": "symbol", "path": path, "line_start": line, "line_end": line + 25, "kind": "function",
           "name": name, "qualified_name": f"auth::jwt::{name}",
           "signature": f"pub fn {name}(token: &str, key: &[u8]) -> Result<Claims>", "language": "rust",
           "visibility": "public", "symbol_id": f"{name}-{path}-{line}-id", "symbol_stable_id": f"{name}-stable",
           "score": 12.345678, "signals": {n: 0.0 for n in SIGNAL_NAMES}}
    hit.update(over)
    return hit


def snippet(path="src/auth/jwt.rs", line=90, text="let decoded = decode(token)?;", **over) -> dict:
    hit = {"result_type": "snippet", "path": path, "line_start": line, "line_end": line + 2, "kind": "", "name": "",
           "qualified_name": "", "signature": "", "language": "rust", "visibility": "", "symbol_id": "",
           "symbol_stable_id": "", "score": 3.2, "snippet": text, "signals": {n: 0.0 for n in SIGNAL_NAMES}}
    hit.update(over)
    return hit


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
    out = shape.shape_result(sym(), "signature")
    loc = shape.shape_result(sym(), "location")
    assert list(out)[:len(loc)] == list(loc)
    assert set(out) - set(loc) == {"qualified_name", "signature", "language", "visibility", "score"}
    assert out["qualified_name"] == "auth::jwt::validate_token"
    assert out["signature"] == "pub fn validate_token(token: &str, key: &[u8]) -> Result<Claims>"
    assert out["score"] == 12.35  # 2 decimals


def test_context_shape_adds_preview_parent_related_and_full_identity():
    body = "\n".join(f"line {i}" for i in range(1, 26))
    related = [{"kind": "struct", "name": f"S{i}", "path": "src/a.rs", "line": i, "extra": "x"} for i in range(8)]
    hit = sym(body_preview=body, parent={"kind": "impl", "name": "JwtValidator", "path": "src/auth/jwt.rs",
                                         "line": 45}, related_symbols=related)
    out = shape.shape_result(hit, "context")
    sig = shape.shape_result(hit, "signature")
    assert list(out)[:len(sig)] == list(sig)
    assert set(out) - set(sig) == {"result_type", "result_id", "symbol_id", "symbol_stable_id", "body_preview",
                                   "parent", "related_symbols"}
    assert out["body_preview"].splitlines() == [f"line {i}" for i in range(1, 11)] + ["... truncated ..."]
    assert out["parent"] == {"kind": "impl", "name": "JwtValidator", "path": "src/auth/jwt.rs", "line": 45}
    assert out["related_symbols"] == [{k: r[k] for k in ("kind", "name", "path", "line")} for r in related[:5]]
    assert out["symbol_id"] == hit["symbol_id"] and out["result_id"].startswith("res_")


def test_short_preview_has_no_marker_and_long_lines_are_cut():
    assert shape.preview("a\nb") == "a\nb"
    cut = shape.preview("x" * 1000)
    assert cut == "x" * shape.PREVIEW_LINE_CHARS + " ..."


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
    assert out["metadata"]["result_completeness"] == "complete"


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
        s = hit["signals"]
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
    hits.insert(1, dict(hits[0]))  # a duplicate of the first
    one = len(shape.to_json([shape.shape_result(hits[0])]).encode())
    out = shape.shape_response("search_code", hits, explain_level="basic", max_bytes=one * 3 + 2,
                               base_metadata=BASE)
    reasons = out["metadata"]["ranking_reasons"]
    assert [r["result_index"] for r in reasons] == list(range(len(out["results"])))
    assert [r["final_score"] for r in reasons] == [r["score"] for r in out["results"]]


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
    meta = shape.metadata(BASE)
    assert list(meta) == ["cruxe_protocol_version", "freshness_status", "indexing_status",
                          "result_completeness", "ref", "schema_status"]
    assert meta["cruxe_protocol_version"] == "1.0"


def test_metadata_optional_fields_only_when_set_and_extra_base_keys_kept():
    meta = shape.metadata({**BASE, "symbol_count": 8}, suppressed_duplicate_count=0, warnings=[])
    assert meta["symbol_count"] == 8
    assert not {"suppressed_duplicate_count", "warnings", "safety_limit_applied", "ranking_reasons"} & set(meta)
    meta = shape.metadata({**BASE, "warnings": ["stale index"]}, warnings=["x"], safety_limit_applied=True)
    assert meta["warnings"] == ["stale index", "x"] and meta["result_completeness"] == "truncated"


def test_semantic_fields_only_for_search_code():
    search = shape.shape_response("search_code", [], base_metadata=BASE)["metadata"]
    assert {k: search[k] for k in shape.SEMANTIC_OFF} == {
        "semantic_mode": "off", "semantic_enabled": False, "semantic_triggered": False,
        "semantic_skipped_reason": "semantic_disabled"}
    locate = shape.shape_response("locate_symbol", [], base_metadata=BASE)["metadata"]
    assert not set(shape.SEMANTIC_OFF) & set(locate)


@pytest.mark.parametrize("field, value", [("freshness_status", "old"), ("indexing_status", None),
                                          ("schema_status", "fine"), ("ref", None)])
def test_metadata_rejects_non_canonical_values(field, value):
    with pytest.raises(CruxeError) as exc:
        shape.metadata({**BASE, field: value})
    assert exc.value.code == "internal_error"


# ---- suggested next actions and the payload -------------------------------------------

def test_next_actions_for_a_search():
    out = shape.shape_response("search_code", [sym(), snippet()], base_metadata=BASE,
                               args={"query": "validate", "ref": "main"})
    assert out["suggested_next_actions"] == [
        {"tool": "locate_symbol", "arguments": {"name": "validate_token", "ref": "main"},
         "reason": "definition of the top result"},
        {"tool": "get_file_outline", "arguments": {"path": "src/auth/jwt.rs", "ref": "main"},
         "reason": "outline of the top result's file"},
    ]


def test_next_actions_for_locate_and_for_nothing_found():
    out = shape.shape_response("locate_symbol", [sym()], base_metadata=BASE, args={"name": "validate_token"})
    assert [a["tool"] for a in out["suggested_next_actions"]] == ["get_file_outline"]
    out = shape.shape_response("locate_symbol", [], base_metadata=BASE, args={"name": "nope"})
    assert out["suggested_next_actions"] == [
        {"tool": "search_code", "arguments": {"query": "nope"}, "reason": "no definition; search text instead"}]
    assert shape.shape_response("search_code", [], base_metadata=BASE)["suggested_next_actions"] == []
    # compact requests get the actions without the prose
    out = shape.shape_response("locate_symbol", [sym()], base_metadata=BASE, compact=True, args={"compact": True})
    assert out["suggested_next_actions"] == [{"tool": "get_file_outline", "arguments": {"path": "src/auth/jwt.rs"}}]
    # a snippet on top has no name to locate
    out = shape.shape_response("search_code", [snippet()], base_metadata=BASE, detail_level="location")
    assert [a["tool"] for a in out["suggested_next_actions"]] == ["get_file_outline"]


def test_payload_key_order_and_extra():
    out = shape.shape_response("search_code", [sym()], base_metadata=BASE, total_candidates=42,
                               extra={"query_intent": {"intent": "symbol", "confidence": 0.95}})
    assert list(out) == ["results", "query_intent", "total_candidates", "suggested_next_actions", "metadata"]
    assert out["total_candidates"] == 42


def test_same_hits_same_bytes_whatever_the_input_key_order():
    hits = list(stdlib_hits("json")[:10])
    reordered = [dict(reversed(list(h.items()))) for h in hits]
    kw = dict(detail_level="context", explain_level="full", base_metadata=BASE, args={"query": "x"})
    a = shape.to_json(shape.shape_response("search_code", hits, **kw))
    b = shape.to_json(shape.shape_response("search_code", reordered, **kw))
    assert a == b
    json.loads(a)  # valid JSON, no NaN


def test_result_ids_are_deterministic_and_distinct():
    hits = list(stdlib_hits("email"))
    ids = [shape.hit_result_id(h) for h in hits]
    assert ids == [shape.hit_result_id(dict(h)) for h in hits]
    assert len(set(ids)) == len(ids)
