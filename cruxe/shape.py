"""Response shaping: pure functions from ranked hits to the payload an agent reads.

The query engine hands over hits best first (see `shape_response`); this module decides
what each result shows (`detail_level`, `compact`), drops repeats (dedup), keeps the payload
under the byte budget (safety limit), explains the ranking as a view of the signals the ranker
already computed, suggests follow-up calls, and assembles Protocol v1 metadata. No retrieval,
no I/O, no clock: the same hits give the same bytes.

Absent or empty optional fields are omitted, never null. A result's score is rounded to
RESULT_SCORE_DIGITS decimals, the figures of `ranking_reasons` to REASON_DIGITS.
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping

from .config import EXPLAIN_LEVELS, MAX_LIMIT
from .errors import CruxeError, invalid_input
from .jsonenc import to_json  # the wire form the transports use: what the safety limit measures
from .languages import detect_language
from .model import DETAIL_LEVELS, Hit, result_id, text_lines

PROTOCOL_VERSION = "1.0"
FRESHNESS_STATUSES = ("fresh", "stale", "syncing")
INDEXING_STATUSES = ("not_indexed", "indexing", "ready", "failed")
RESULT_COMPLETENESS = ("complete", "partial", "truncated")
SCHEMA_STATUSES = ("compatible", "not_indexed", "reindex_required", "corrupt_manifest")

REASON_DIGITS = 4  # `ranking_reasons`: enough to tell two signals apart; the ranker keeps more
PREVIEW_LINES = 10  # "first N lines" of FR-104: enough to read a signature and its first statements
SNIPPET_LINES = 20  # a snippet is the matching region itself; allow it twice the preview
# One minified line (bundles, generated tables) must not fill the payload on its own.
PREVIEW_LINE_CHARS = 240
MAX_RELATED = 5
TRUNCATION_MARKER = "... truncated ..."
MAX_NEXT_ACTIONS = 3  # every suggestion is paid for in the agent's tokens

# Fields per detail level, each level adding to the one before. A hex id costs an agent many
# tokens, so identity waits for `context`: with `result_id`, `symbol_id` and `symbol_stable_id`
# on every result, `location` and `signature` results were well over the token budgets of
# SC-101 / SC-102 (the figures: docs/DEPARTURES.md, "Result shapes"). So:
# - `location` is what FR-102 lists and nothing else: path, lines, kind, name; a result with no
#   kind (snippet, file) says `result_type` instead, so the agent knows what it is;
# - `signature` adds what FR-103 lists, each field only where it tells something the path and
#   the name do not (`_signature_fields`): it is the default answer, read on every call;
# - `context` adds all of FR-103's fields whole, the score, the preview, parent, related
#   symbols and the whole identity: `result_type`, `result_id`, `symbol_id` and, for a symbol,
#   `symbol_stable_id` (FR-009; survives moves).
# `compact` (after shaping) keeps location, score and the follow-up handle: `symbol_stable_id`
# for a symbol, `result_id` for a snippet or file, which have no symbol identity.
LOCATION_FIELDS = ("path", "line_start", "line_end", "kind", "name")
SIGNATURE_FIELDS = ("qualified_name", "signature", "language", "visibility")
CONTEXT_FIELDS = ("body_preview", "parent", "related_symbols", "snippet")
COMPACT_FIELDS = frozenset((*LOCATION_FIELDS, "score"))
RESULT_SCORE_DIGITS = 2  # the score an agent reads; `ranking_reasons` keeps REASON_DIGITS
_REFERENCE_FIELDS = ("kind", "name", "path", "line")  # parent / related symbol shape

def _present(value: Any) -> bool:
    return value is not None and value != "" and value != [] and value != {}


def _check(name: str, value: str, allowed: tuple[str, ...]) -> None:
    # The tool layer validates requests; this guards direct callers (CLI, tests, bench).
    if value not in allowed:
        raise invalid_input(f"{name} must be one of {'|'.join(allowed)}, got {value!r}", argument=name)


# ---- dedup --------------------------------------------------------------------------------

def dedup_key(hit: Hit) -> str:
    """One key per symbol or file region.

    CONTRACTS says `stable:<symbol_stable_id>`; the path is added because a stable id is
    only unique within a file: every Go command's `func main()` in package main (six in
    go/src/cmd alone) has the same language, kind, qualified name and signature, and must
    not be reported as one result plus five duplicates. The start line is added because two
    definitions in one file can share it too: Go allows several `func init()` per file, and a
    Python redefinition (the live one) has the overridden one's name and signature.
    """
    if hit.symbol_stable_id:
        return f"stable:{hit.symbol_stable_id}:{hit.path}:{hit.line_start}"
    return f"{hit.result_type}:{hit.path}:{hit.line_start}:{hit.line_end}:{hit.name}"


def dedup(hits: Iterable[Hit]) -> tuple[list[Hit], int]:
    """(hits keeping the first by rank of each key, number suppressed)."""
    seen: set[str] = set()
    kept: list[Hit] = []
    suppressed = 0
    for hit in hits:
        key = dedup_key(hit)
        if key in seen:
            suppressed += 1
        else:
            seen.add(key)
            kept.append(hit)
    return kept, suppressed


# ---- one result ---------------------------------------------------------------------------

def preview(text: str, max_lines: int = PREVIEW_LINES) -> str:
    """The first `max_lines` lines, then a marker line when more followed; long lines cut.
    The one preview rule: a body preview's source (`query.context.preview_source`) holds only
    the lines shown and, when the body went on, this marker already."""
    lines = text_lines(text)
    out = [ln if len(ln) <= PREVIEW_LINE_CHARS else ln[:PREVIEW_LINE_CHARS] + " ..." for ln in lines[:max_lines]]
    if len(lines) > max_lines:
        out.append(TRUNCATION_MARKER)
    return "\n".join(out)


def _reference(value: Any) -> dict[str, Any] | None:
    """A parent / related-symbol entry with only its four fields, or None when empty."""
    if not isinstance(value, Mapping):
        return None
    out = {k: value[k] for k in _REFERENCE_FIELDS if _present(value.get(k))}
    return out or None


def _score(hit: Hit) -> float:
    return round(float(hit.score), RESULT_SCORE_DIGITS)


def hit_result_id(hit: Hit) -> str:
    """`res_` + blake3 over the fields that identify the result (stable across runs)."""
    return result_id(hit.result_type, hit.path, hit.line_start, hit.line_end, hit.kind, hit.name,
                     hit.symbol_id, hit.symbol_stable_id)


def _context_fields(hit: Hit) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if _present(hit.body_preview):
        out["body_preview"] = preview(hit.body_preview)
    parent = _reference(hit.parent)
    if parent:
        out["parent"] = parent
    related = [r for r in (_reference(x) for x in hit.related_symbols or ()) if r][:MAX_RELATED]
    if related:
        out["related_symbols"] = related
    if hit.result_type == "snippet" and _present(hit.snippet):
        out["snippet"] = preview(hit.snippet, SNIPPET_LINES)
    return out


def _handle(hit: Hit) -> dict[str, Any]:
    """The follow-up handle `compact` keeps (see the field lists above)."""
    if _present(hit.symbol_stable_id):
        return {"symbol_stable_id": hit.symbol_stable_id}
    return {"result_id": hit_result_id(hit)}


def _module_parts(path: str, language: str) -> list[str]:
    """The path as the module part of a qualified name: directories, then (except in Go,
    whose qualified names start at the package) the file's stem unless it names its directory."""
    parts = path.split("/")
    stem = parts.pop().split(".")[0]
    if language != "go" and stem not in _DIRECTORY_STEMS:
        parts.append(stem)
    return parts


_DIRECTORY_STEMS = frozenset(("__init__", "mod", "lib", "index"))


def _names_a_container(hit: Hit) -> bool:
    """Whether `qualified_name` says more than the path and the name: the class, type or
    impl that holds the symbol. A top-level symbol's is its module (read from the path) and
    its name; it is only shown at `context`."""
    qualified, name = str(hit.qualified_name or ""), str(hit.name or "")
    sep = "::" if "::" in qualified else "."
    if not qualified.endswith(sep + name):
        return qualified != name
    scope = qualified[:-len(sep + name)].split(sep)
    module = _module_parts(str(hit.path), str(hit.language))
    return scope != module[len(module) - len(scope):]


def _signature_fields(hit: Hit) -> dict[str, Any]:
    """FR-103's fields, each left out where it repeats what the result already says
    (docs/DEPARTURES.md): `qualified_name` that names no container, `language` that the
    path's extension gives, `visibility` "public" (the default: absent means public)."""
    out: dict[str, Any] = {}
    if _present(hit.qualified_name) and _names_a_container(hit):
        out["qualified_name"] = hit.qualified_name
    if _present(hit.signature):
        out["signature"] = hit.signature
    if _present(hit.language) and detect_language(str(hit.path)) != hit.language:
        out["language"] = hit.language
    if _present(hit.visibility) and hit.visibility != "public":
        out["visibility"] = hit.visibility
    return out


def shape_result(hit: Hit, detail_level: str = "signature", compact: bool = False) -> dict[str, Any]:
    """One result in the shape of its detail level; `compact` then keeps only identity,
    location, handle and score. Order of fields is fixed; absent or empty fields are omitted."""
    _check("detail_level", detail_level, DETAIL_LEVELS)
    out: dict[str, Any] = {k: v for k in LOCATION_FIELDS if _present(v := getattr(hit, k))}
    kindless = "kind" not in out
    if kindless:
        out["result_type"] = hit.result_type
    if hit.emits_at is not None and detail_level != "location":
        out["emits_at"] = hit.emits_at
    if detail_level == "signature":
        out.update(_signature_fields(hit))
    if detail_level == "context":
        out.update((k, v) for k in SIGNATURE_FIELDS if _present(v := getattr(hit, k)))
        out["score"] = _score(hit)
        out["result_type"] = hit.result_type
        out["result_id"] = hit_result_id(hit)
        out.update((k, v) for k in ("symbol_id", "symbol_stable_id") if _present(v := getattr(hit, k)))
        out.update(_context_fields(hit))
    if compact:
        keep = COMPACT_FIELDS | _handle(hit).keys() | ({"result_type"} if kindless else set())
        out = {k: v for k, v in out.items() if k in keep}
    return out


# ---- safety limit -------------------------------------------------------------------------

def apply_safety_limit(results: list[dict[str, Any]], max_bytes: int) -> tuple[list[dict[str, Any]], bool]:
    """The longest prefix whose serialized list (`to_json`, UTF-8 bytes) fits in `max_bytes`."""
    size = 2  # "[" and "]"
    for i, result in enumerate(results):
        size += len(to_json(result).encode("utf-8")) + (1 if i else 0)
        if size > max_bytes:
            return results[:i], True
    return results, False


# ---- ranking reasons ----------------------------------------------------------------------

def _signal(hit: Hit, name: str) -> float:
    return float(hit.signals.get(name, 0.0))


def _final(hit: Hit) -> float:
    return round(float(hit.signals.get("final_score", hit.score)), REASON_DIGITS)


def _unit(value: float) -> float:
    """A boost as a 0..1 factor. The ranker's exact/path/definition boosts are all-or-nothing
    (a fixed weight or 0), so "fired" is 1.0 and the weights need not be known here."""
    return 1.0 if value > 0 else 0.0


def _basic_reason(i: int, hit: Hit) -> dict[str, Any]:
    return {
        "result_index": i,
        "exact_match": _unit(_signal(hit, "exact_match_boost")),
        "path_boost": _unit(_signal(hit, "path_affinity")),
        "definition_boost": _unit(_signal(hit, "definition_boost")),
        "semantic_similarity": round(_signal(hit, "semantic_similarity"), REASON_DIGITS),
        "final_score": _final(hit),
    }


def _full_reason(i: int, hit: Hit) -> dict[str, Any]:
    r = {name: round(_signal(hit, name), REASON_DIGITS) for name in (
        "exact_match_boost", "qualified_name_boost", "path_affinity", "definition_boost")}
    kind_weight, intent_boost = _signal(hit, "kind_weight"), _signal(hit, "query_intent_boost")
    return {
        "result_index": i, **r,
        "kind_match": round(kind_weight + intent_boost, REASON_DIGITS),
        "bm25_score": round(_signal(hit, "bm25_score"), REASON_DIGITS),
        "final_score": _final(hit),
        "kind_weight": round(kind_weight, REASON_DIGITS),
        "query_intent_boost": round(intent_boost, REASON_DIGITS),
        "test_file_penalty": round(_signal(hit, "test_file_penalty"), REASON_DIGITS),
        "declaration_penalty": round(_signal(hit, "declaration_penalty"), REASON_DIGITS),
        "query_coverage": round(_signal(hit, "query_coverage"), REASON_DIGITS),
        "bodyless_penalty": round(_signal(hit, "bodyless_penalty"), REASON_DIGITS),
        "stack_frame": round(_signal(hit, "stack_frame"), REASON_DIGITS),
        "pasted_line": round(_signal(hit, "pasted_line"), REASON_DIGITS),
    }


def ranking_reasons(hits: list[Hit], level: str) -> list[dict[str, Any]] | None:
    """Per-result explanation at `level` (off -> None: the field is omitted)."""
    _check("ranking_explain_level", level, EXPLAIN_LEVELS)
    if level == "off":
        return None
    build = _basic_reason if level == "basic" else _full_reason
    return [build(i, hit) for i, hit in enumerate(hits)]


# ---- suggested next actions ---------------------------------------------------------------

_CARRIED_ARGS = ("workspace", "ref")  # follow-ups must hit the same project and ref


def _action(tool: str, arguments: dict[str, Any], reason: str, args: Mapping[str, Any]) -> dict[str, Any]:
    carried = {k: args[k] for k in _CARRIED_ARGS if _present(args.get(k)) and k not in arguments}
    action = {"tool": tool, "arguments": {**arguments, **carried}}
    if not args.get("compact"):  # a compact response does not pay for prose
        action["reason"] = reason
    return action


def _same_call(args: Mapping[str, Any], drop: Iterable[str] = (), **changes: Any) -> dict[str, Any]:
    """The request's arguments for a retry: without the carried ones (`_action` adds them),
    without those at their default (`compact` false, `signature`), with `changes` applied."""
    out = {k: v for k, v in args.items() if k not in _CARRIED_ARGS and k not in drop
           and v is not False and not (k == "detail_level" and v == "signature")}
    out.update(changes)
    return out


_FILTER_ARGS = ("kind", "role", "language")


def suggested_next_actions(tool: str, args: Mapping[str, Any], results: list[Mapping[str, Any]],
                           truncated: bool, *, more: int = 0, meta: Mapping[str, Any] | None = None,
                           intent: str | None = None, definitions: bool = False) -> list[dict[str, Any]]:
    """Follow-ups only where the answer alone leaves the agent stuck (docs/TOOLS.md): cut by
    the safety limit; empty; from an index that is stale or being updated; a locate answer
    that lists fewer definitions than exist (`more` further candidates); a natural-language
    search, whose order is a guess from words, with `more` results not shown. An answer
    that is all there is to know gets none: each suggestion costs the agent tokens.
    `args` are the request's (`compact` there drops the reasons); `definitions`: the answer
    lists the definitions of `args["name"]` (locate_symbol), not ranked matches."""
    actions: list[dict[str, Any]] = []
    if truncated:
        retry = _same_call(args, limit=max(1, len(results)), compact=True)
        if args.get("compact"):
            retry["detail_level"] = "location"  # compact already: the next saving is fewer fields
        actions.append(_action(tool, retry, "payload safety limit reached; retry smaller", args))
    if not results:
        actions.extend(_empty_actions(tool, args, definitions))
    actions.extend(_index_actions(full_metadata(meta or {}), args))
    if results and more > 0 and not truncated:
        limit = min(MAX_LIMIT, len(results) + more if definitions else 2 * len(results))
        if definitions:
            actions.append(_action(tool, _same_call(args, limit=limit),
                                   f"{len(results)} of {len(results) + more} definitions shown", args))
        elif intent == "natural_language":
            actions.append(_action(tool, _same_call(args, limit=limit),
                                   "ranked by the question's words: a guess; more results", args))
    return actions[:MAX_NEXT_ACTIONS]


def _empty_actions(tool: str, args: Mapping[str, Any], definitions: bool) -> list[dict[str, Any]]:
    actions: list[dict[str, Any]] = []
    filters = [k for k in _FILTER_ARGS if _present(args.get(k))]
    if filters:
        actions.append(_action(tool, _same_call(args, drop=filters), "nothing found; retry without filters", args))
    if definitions and _present(args.get("name")):
        actions.append(_action("search_code", {"query": args["name"]}, "no definition; search text instead", args))
    return actions


def _index_actions(meta: Mapping[str, Any], args: Mapping[str, Any]) -> list[dict[str, Any]]:
    """An answer from an index that lags the working tree says how to catch up."""
    if meta.get("freshness_status") == "syncing" or meta.get("result_completeness") == "partial":
        return [_action("index_status", {}, "the index is being updated: follow the job, then ask again", args)]
    if meta.get("freshness_status") == "stale":
        return [_action("sync_repo", {}, "the index is stale: sync it, then ask again", args)]
    return []


def outline_next_actions(path: str, args: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Follow-up of an outline cut by the safety limit: the top level alone, when the cut
    one was nested (a top level cut too has no smaller form: read the file by ranges).
    `args` are the request's: the follow-up keeps its workspace and ref."""
    if args.get("depth") == "top":
        return []
    return [_action("get_file_outline", {"path": path, "depth": "top"},
                    "payload safety limit reached; the top level alone is smaller", args)]


# ---- metadata -----------------------------------------------------------------------------

_REQUIRED_META: tuple[tuple[str, tuple[str, ...] | None], ...] = (
    ("freshness_status", FRESHNESS_STATUSES), ("indexing_status", INDEXING_STATUSES),
    ("result_completeness", RESULT_COMPLETENESS), ("ref", None), ("schema_status", SCHEMA_STATUSES),
)
# The value each status field has when there is nothing to report. Such a field is left out
# (docs/DEPARTURES.md): on an answer from a healthy index, four fields that only say "all is
# well" cost more than the location a one-result answer gives. A reader takes an absent field as this value
# (`full_metadata`); the protocol version and the ref, which have no such value, are always sent.
NORMAL_META: dict[str, str] = {"freshness_status": "fresh", "indexing_status": "ready",
                               "result_completeness": "complete", "schema_status": "compatible"}
_OPTIONAL_META = ("ranking_reasons", "suppressed_duplicate_count", "safety_limit_applied", "warnings")


def full_metadata(meta: Mapping[str, Any]) -> dict[str, Any]:
    """`meta` with every status field an answer left out at its normal value filled in."""
    return {**NORMAL_META, **meta}


def metadata(base: Mapping[str, Any], *, ranking_reasons: list[dict[str, Any]] | None = None,
             suppressed_duplicate_count: int = 0, safety_limit_applied: bool = False,
             warnings: Iterable[str] = ()) -> dict[str, Any]:
    """Protocol v1 metadata: the version, then the status fields in a fixed order (each left
    out when it has its NORMAL_META value), then the optional ones that are set, then any
    other keys of `base` (e.g. `symbol_count`) in their given order.

    Keyword arguments override `base` for the optional fields. Without a semantic backend the
    semantic fields of spec 04 are left out too (docs/DEPARTURES.md).
    """
    out: dict[str, Any] = {"cruxe_protocol_version": PROTOCOL_VERSION}
    limited = safety_limit_applied or bool(base.get("safety_limit_applied"))
    for key, allowed in _REQUIRED_META:
        value = base.get(key, "complete" if key == "result_completeness" else None)
        if value is None or (allowed is not None and value not in allowed):
            raise CruxeError("internal_error", f"metadata {key} is {value!r}", {"field": key})
        if key == "result_completeness" and limited:
            value = "truncated"
        if NORMAL_META.get(key) != value:
            out[key] = value
    reasons = ranking_reasons if ranking_reasons is not None else base.get("ranking_reasons")
    suppressed = suppressed_duplicate_count or int(base.get("suppressed_duplicate_count") or 0)
    all_warnings = [*(base.get("warnings") or ()), *warnings]
    if reasons is not None:
        out["ranking_reasons"] = reasons
    if suppressed > 0:
        out["suppressed_duplicate_count"] = suppressed
    if limited:
        out["safety_limit_applied"] = True
    if all_warnings:
        out["warnings"] = all_warnings
    skip = {"cruxe_protocol_version", *(k for k, _ in _REQUIRED_META), *_OPTIONAL_META}
    out.update((k, v) for k, v in base.items() if k not in skip and k not in out)
    return out


def _intent(query_intent: Mapping[str, Any], detail_level: str, explain_level: str) -> dict[str, Any]:
    """The query's intent as the answer shows it: the classifier's confidence, a number no
    follow-up takes, only where the ranking is explained or the detail is `context` (as a
    result's `score`); the intent itself, which says how the query was read, always."""
    if detail_level == "context" or explain_level != "off":
        return dict(query_intent)
    return {k: v for k, v in query_intent.items() if k != "confidence"}


# ---- the whole pipeline -------------------------------------------------------------------

def shape_response(tool: str, hits: list[Hit], *, detail_level: str = "signature",
                   compact: bool = False, explain_level: str = "off", max_bytes: int = 65536,
                   base_metadata: Mapping[str, Any], args: Mapping[str, Any] | None = None,
                   limit: int | None = None, total_candidates: int | None = None,
                   extra: Mapping[str, Any] | None = None, definitions: bool = False,
                   warnings: Iterable[str] = ()) -> dict[str, Any]:
    """dedup -> limit -> shape -> safety limit -> reasons -> metadata -> payload.

    `hits` are the query engine's `model.Hit` records, ranked, best first. `total_candidates` defaults
    to the number of distinct hits. `extra` keys (e.g. `query_intent`) follow `results`.
    `definitions`: the hits are the definitions of one name (see `suggested_next_actions`).
    """
    _check("detail_level", detail_level, DETAIL_LEVELS)
    _check("ranking_explain_level", explain_level, EXPLAIN_LEVELS)
    args = args or {}
    kept, suppressed = dedup(hits)
    total = len(kept) if total_candidates is None else total_candidates
    distinct = len(kept) if total_candidates is None else total_candidates - suppressed
    if limit is not None:
        kept = kept[:limit]
    results = [shape_result(h, detail_level, compact) for h in kept]
    results, truncated = apply_safety_limit(results, max_bytes)
    kept = kept[:len(results)]
    meta = metadata(base_metadata, ranking_reasons=ranking_reasons(kept, explain_level),
                    suppressed_duplicate_count=suppressed, safety_limit_applied=truncated, warnings=warnings)
    payload: dict[str, Any] = {"results": results, **(extra or {})}
    if "query_intent" in payload:
        payload["query_intent"] = _intent(payload["query_intent"], detail_level, explain_level)
    payload["total_candidates"] = total
    intent = ((extra or {}).get("query_intent") or {}).get("intent")
    actions = suggested_next_actions(tool, args, results, truncated, meta=meta, intent=intent,
                                     more=max(0, distinct - len(results)), definitions=definitions)
    if actions:
        payload["suggested_next_actions"] = actions
    payload["metadata"] = meta
    return payload
