"""The hostile tool calls of the fuzz (hypothesis strategies drawn from each tool's input
schema), the oracle every reply must satisfy, and the small indexed world they run against:
shared by tests/test_fuzz.py and bench/fuzz_bench.py (which runs >= 10,000 cases)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from cruxe.errors import REGISTRY
from cruxe.tools import TOOLS

from .locations import FIXTURES, STDLIB, require_corpus

PROTOCOL_CODES = {-32700, -32600, -32601, -32602, -32603}
QUERY_TOOLS = sorted(n for n in TOOLS if n not in ("index_repo", "sync_repo") and n not in os.environ.get("FUZZ_SKIP", ""))
JOB_TOOLS = ("index_repo", "sync_repo")
# Reply bound: results are capped by search.max_response_bytes (64 KiB) plus metadata and the
# content/structuredContent duplication of the MCP envelope.
MAX_REPLY_BYTES = 512 * 1024

NASTY_STRINGS = [
    "", " ", "\t\n", "..", ".", "../x.py", "../../etc/passwd", "/etc/passwd", "/", "json/../../x",
    "json/decoder.py", "./json/decoder.py", "json//decoder.py", "json\\decoder.py", "C:\\Windows\\x",
    "\\\\server\\share", "a\x00b", "json/decoder.py\x00.txt", "~", "~/x", "$HOME", "%s%n", "{}", "[",
    "(", ")", "*", "?", "\"", "'", "`", "\\", "^", "~1", "+-", "AND", "OR (", "NOT", "field:x",
    "symbols:x", "name:*", "a::b::", "::", ".a.", "json.decoder.JSONDecoder", "JSONDecoder", "dumps",
    "\ud800", "\udfff", "\u202e", "\ufeff", "名前", "🐍" * 10, "é" * 100, "x" * 257, "x" * 513,
    "x" * 2001, "x" * 4097, "a" * 100_000, "null", "NaN", "-1", "1e999",
]


REAL_NAMES = ["JSONDecoder", "JSONDecodeError", "dumps", "loads", "scanstring", "py_scanstring", "decode",
              "JSONEncoder.default", "json.decoder.JSONDecoder", "encoder", "make_scanner", "Point", "main"]
REAL_PATHS = ["json/decoder.py", "json/__init__.py", "json/tool.py", "fixtures/go/sample.go",
              "fixtures/rust/items.rs", "fixtures/typescript/classes.ts", "fixtures/python/sample.py"]


def _fits(spec: dict[str, Any]):
    return lambda v: len(v) <= spec.get("maxLength", 2000)


def _valid_value(key: str, spec: dict[str, Any]) -> st.SearchStrategy:
    """A value the schema accepts (the handler behind validation runs)."""
    typ = spec["type"]
    if typ == "integer":
        return st.integers(spec.get("minimum", 0), spec.get("maximum", 100))
    if typ == "boolean":
        return st.booleans()
    if "enum" in spec:
        return st.sampled_from(spec["enum"])
    if key == "workspace":
        return st.sampled_from(["/", "/tmp", "/etc", "/nonexistent/x", "/etc/passwd", "//", "/..", "/proc/self"])
    if key == "ref":
        return st.sampled_from(["live", "main", "..", ".", "../..", "a/b", "x\x00y", "HEAD", "refs/heads/x"])
    pool = REAL_PATHS if key == "path" else REAL_NAMES
    return (st.sampled_from(pool) | st.sampled_from(NASTY_STRINGS).filter(_fits(spec))
            | st.text(max_size=40) | st.text(st.characters(codec="utf-8"), max_size=200)).filter(_fits(spec))


def _edgy_value(spec: dict[str, Any]) -> st.SearchStrategy:
    """Near and past the bounds, wrong case, wrong type for the field."""
    typ = spec["type"]
    if typ == "string":
        s = st.text(max_size=30) | st.sampled_from(NASTY_STRINGS)
        if "enum" in spec:
            enum = st.sampled_from(spec["enum"])
            s = s | enum.map(str.upper) | enum.map(lambda v: v + " ") | st.integers()
        if "maxLength" in spec:
            m = spec["maxLength"]
            s = s | st.integers(max(0, m - 1), m + 1).map(lambda n: "q" * n)
        return s
    if typ == "integer":
        lo, hi = spec.get("minimum", 0), spec.get("maximum", 100)
        return (st.sampled_from([lo - 1, hi + 1, 0, -1, 2**31, 2**63, -2**63, 10**30, 1.0, 2.5, "3", True])
                | st.integers())
    if typ == "boolean":
        return st.sampled_from([0, 1, "true", "false", None, [], {}])
    raise AssertionError(f"schema type {typ} has no strategy")  # a new schema type needs one here


_leaf = (st.none() | st.booleans() | st.integers() | st.integers(-2**80, 2**80)
         | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20) | st.sampled_from(NASTY_STRINGS))
junk = st.recursive(_leaf, lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=6), c, max_size=3),
                    max_leaves=8)


def deep(depth: int) -> Any:
    value: Any = "x"
    for i in range(depth):
        value = [value] if i % 2 else {"k": value}
    return value


def tool_arguments(tool: str) -> st.SearchStrategy:
    """Arguments for one tool: valid ones (most), edgy ones, one bad field, unknown fields,
    deep nesting, or junk."""
    schema = TOOLS[tool].input_schema
    props, required = schema["properties"], set(schema.get("required", ()))
    optional = {k: _valid_value(k, v) for k, v in props.items() if k not in required and k != "workspace"}
    valid = st.fixed_dictionaries({k: _valid_value(k, props[k]) for k in required}, optional=optional)
    edgy = st.fixed_dictionaries({}, optional={k: _edgy_value(v) for k, v in props.items()})
    with_ws = st.tuples(valid, _valid_value("workspace", props["workspace"])).map(
        lambda t: {**t[0], "workspace": t[1]})
    one_bad = st.tuples(valid, st.sampled_from(sorted(props)), junk).map(lambda t: {**t[0], t[1]: t[2]})
    extra = st.tuples(valid, st.dictionaries(st.text(max_size=10), junk, min_size=1, max_size=2)).map(
        lambda t: {**t[1], **t[0]})
    deep_arg = st.tuples(valid, st.sampled_from(sorted(props)), st.integers(50, 400)).map(
        lambda t: {**t[0], t[1]: deep(t[2])})
    tiers = [(50, valid), (15, edgy), (7, with_ws), (10, one_bad), (6, extra), (4, deep_arg), (8, junk)]
    return st.integers(0, sum(w for w, _ in tiers) - 1).flatmap(lambda r: _pick(tiers, r))


def _pick(tiers: list[tuple[int, st.SearchStrategy]], r: int) -> st.SearchStrategy:
    # weighted choice (one_of with repeated strategies does not weight them)
    for weight, strategy in tiers:
        if r < weight:
            return strategy
        r -= weight
    raise AssertionError("weights do not cover r")


def tool_call(tools: list[str] | tuple[str, ...] = QUERY_TOOLS) -> st.SearchStrategy:
    return st.sampled_from(list(tools)).flatmap(lambda t: st.tuples(st.just(t), tool_arguments(t)))


def request(msg_id: Any, tool: str, arguments: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}


# ---- the oracle --------------------------------------------------------------------------------

def schema_violation(tool: str, args: Any) -> str | None:
    """Why `args` break the tool's published schema (independent of tools.validate), or None."""
    schema = TOOLS[tool].input_schema
    if not isinstance(args, dict):
        return "not an object"
    props = schema["properties"]
    for key, value in args.items():
        if key not in props:
            return f"unknown field {key!r}"
        if value is None:
            continue
        spec = props[key]
        typ = spec["type"]
        if typ == "string":
            if not isinstance(value, str):
                return f"{key} not a string"
            if "enum" in spec and value not in spec["enum"]:
                return f"{key} not in enum"
            if len(value) > spec.get("maxLength", 2000):
                return f"{key} too long"
        elif typ == "integer":
            if isinstance(value, bool) or not isinstance(value, int):
                return f"{key} not an integer"
            if not spec.get("minimum", value) <= value <= spec.get("maximum", value):
                return f"{key} out of range"
        elif typ == "boolean" and not isinstance(value, bool):
            return f"{key} not a boolean"
    for key in schema.get("required", ()):
        if args.get(key) is None:
            return f"missing {key}"
    return None


def check_reply(reply: Any, msg_id: Any, tool: str, args: Any) -> str:
    """Assert the reply is well-formed for this request; return an outcome label."""
    args = {} if args is None else args  # JSON-RPC: null params/arguments mean "none given"
    assert isinstance(reply, dict) and reply.get("jsonrpc") == "2.0", reply
    assert reply.get("id") == msg_id, (reply.get("id"), msg_id)
    if "error" in reply:
        assert reply["error"]["code"] in PROTOCOL_CODES, reply
        assert reply["error"]["code"] == -32602 and not isinstance(args, dict), reply  # only non-object args
        return "rpc:-32602"
    result = reply["result"]
    assert set(result) == {"content", "structuredContent", "isError"}, result.keys()
    payload = result["structuredContent"]
    assert json.loads(result["content"][0]["text"]) == payload
    assert payload["metadata"]["cruxe_protocol_version"] == "1.0"
    violation = schema_violation(tool, args)
    if result["isError"]:
        err = payload["error"]
        assert set(payload) == {"error", "metadata"}, payload.keys()
        assert err["code"] in REGISTRY and err["code"] != "internal_error", (tool, args, err)
        assert err["data"].get("remedy") and "Traceback (most recent call last)" not in err["message"], err
        if violation:
            assert err["code"] == "invalid_input", (tool, args, violation, err)
        return err["code"]
    assert violation is None, (tool, args, violation, payload)
    limit = args.get("limit") if isinstance(args, dict) else None
    for key in ("results", "references"):
        if key in payload and isinstance(limit, int):
            assert len(payload[key]) <= limit, (len(payload[key]), limit)
    return "ok"


# ---- the world ------------------------------------------------------------------------------

def build_world(base: Path) -> tuple[Path, Path]:
    """A small indexed repository (stdlib json + the per-language fixtures) and its home."""
    require_corpus(STDLIB / "json")
    repo, home = base / "repo", base / "home"
    shutil.copytree(STDLIB / "json", repo / "json")
    shutil.copytree(FIXTURES, repo / "fixtures", ignore=shutil.ignore_patterns("*.tsv", "*.json"))
    env = {**os.environ, "CRUXE_HOME": str(home)}
    subprocess.run([sys.executable, "-m", "cruxe", "index", "--path", str(repo), "--quiet"], env=env,
                   check=True, timeout=120)
    return repo, home
