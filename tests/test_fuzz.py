"""Hostile protocol input through the REAL tools (transport-level fuzzing of the framing is in
test_jsonrpc.py; here every case reaches `cruxe.tools` and the domain behind it).

Every tool's arguments are generated from its own input schema: well-typed values near the
bounds, wrong types, huge strings and numbers, deep JSON, unknown fields, nasty paths and
names, batch arrays and invalid UTF-8. Each request must get a JSON-RPC error or a tool
result; a tool error must carry a registered code (never `internal_error`, never a
traceback); arguments that break the schema must be `invalid_input`; and the server must
still answer a known question correctly afterwards. Volume runs in-process
(`Dispatcher(Server(repo))`); one round goes through a real `cruxe serve-mcp` subprocess,
whose stdout must carry nothing but protocol lines. `bench/fuzz_bench.py` reuses the
strategies below for >= 10,000 cases.
"""
from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from cruxe.errors import REGISTRY
from cruxe.jsonrpc import Dispatcher
from cruxe.tools import TOOLS, Server

from conftest import FIXTURES, STDLIB, require_corpus

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


# ---- in-process volume ----------------------------------------------------------------------

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


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    return build_world(tmp_path_factory.mktemp("fuzz"))


@pytest.fixture(scope="module")
def dispatcher(world):
    repo, home = world
    return Dispatcher(Server(repo, home=home))


def known_answer(dispatcher: Dispatcher) -> None:
    """The server still answers a real question correctly."""
    reply = dispatcher.handle(request(7, "locate_symbol", {"name": "JSONDecoder"}))
    top = reply["result"]["structuredContent"]["results"][0]
    assert (top["path"], top["name"]) == ("json/decoder.py", "JSONDecoder")


FUZZ = settings(max_examples=int(os.environ.get("CRUXE_FUZZ_EXAMPLES", "200")), deadline=None,
                suppress_health_check=list(HealthCheck), database=None)


@FUZZ
@given(call=tool_call(), msg_id=st.integers(0, 2**53) | st.text(max_size=8))
def test_every_query_tool_survives_hostile_arguments(dispatcher, call, msg_id):
    tool, args = call
    raw = json.dumps(request(msg_id, tool, args)).encode()
    reply = dispatcher.handle_bytes(raw)
    assert len(reply) <= MAX_REPLY_BYTES
    event(f"{tool}: {check_reply(json.loads(reply), msg_id, tool, args)}")


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(calls=st.lists(tool_call(), min_size=1, max_size=12))
def test_batches_of_tool_calls_answer_each_request_by_id(dispatcher, calls):
    batch = [request(i, tool, args) for i, (tool, args) in enumerate(calls)]
    replies = json.loads(dispatcher.handle_bytes(json.dumps(batch).encode()))
    assert [r["id"] for r in replies] == list(range(len(calls)))
    for reply, (tool, args) in zip(replies, calls):
        check_reply(reply, reply["id"], tool, args)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(call=tool_call(), cut=st.integers(0, 10_000), junk_bytes=st.binary(min_size=1, max_size=4))
def test_invalid_utf8_inside_a_tool_call_is_a_parse_error(dispatcher, call, cut, junk_bytes):
    raw = json.dumps(request(1, *call), ensure_ascii=False).encode("utf-8", "surrogatepass")
    cut %= len(raw)
    bad = raw[:cut] + b"\xff" + junk_bytes + raw[cut:]  # 0xff is never valid UTF-8
    reply = json.loads(dispatcher.handle_bytes(bad))
    assert reply["error"]["code"] == -32700 and reply["id"] is None


@pytest.mark.parametrize("depth", [100, 900, 5000, 100_000])
def test_deep_json_arguments_through_a_real_tool(dispatcher, depth):
    args = {"query": "x", "ref": deep(depth)} if depth < 900 else None
    raw = (json.dumps(request(1, "search_code", args)).encode() if args is not None else
           b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_code","arguments":{"query":'
           + b"[" * depth + b"]" * depth + b"}}}")
    reply = json.loads(dispatcher.handle_bytes(raw))
    if "error" in reply:
        assert reply["error"]["code"] == -32700  # too deep to parse: refused before any tool runs
    else:
        assert reply["result"]["structuredContent"]["error"]["code"] == "invalid_input"
    known_answer(dispatcher)


@pytest.mark.parametrize("limit", [10**30, -2**63, 2**63, 1.0, 1e308, True])
def test_huge_and_odd_numbers_are_invalid_input(dispatcher, limit):
    reply = dispatcher.handle(request(1, "locate_symbol", {"name": "JSONDecoder", "limit": limit}))
    assert reply["result"]["structuredContent"]["error"]["code"] == "invalid_input"


@pytest.mark.parametrize("tool,field", [(t, k) for t in QUERY_TOOLS for k, v in TOOLS[t].input_schema["properties"].items()
                                        if v["type"] == "string" and "enum" not in v and k != "workspace"])
def test_lone_surrogates_are_invalid_input_not_internal_errors(dispatcher, tool, field):
    """Found by the fuzz: '\\ud800' is valid JSON but not UTF-8; SQLite raised UnicodeEncodeError."""
    required = {k: "JSONDecoder" for k in TOOLS[tool].input_schema["required"]}
    raw = json.dumps(request(1, tool, {**required, field: "json/\ud800.py"})).encode()
    payload = json.loads(dispatcher.handle_bytes(raw))["result"]["structuredContent"]
    assert payload["error"]["code"] == "invalid_input" and payload["error"]["data"]["field"] == field


def test_server_still_answers_after_the_fuzz(dispatcher):
    known_answer(dispatcher)


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(call=tool_call(JOB_TOOLS))
def test_job_tools_survive_hostile_arguments(world, call):
    """index_repo/sync_repo start a real child process for valid arguments: fewer cases."""
    repo, home = world
    dispatcher = Dispatcher(Server(repo, home=home))
    tool, args = call
    if isinstance(args, dict) and isinstance(args.get("ref"), str):
        args = {**args, "ref": "fuzz"}  # one scratch ref, never the one the other tests read
    outcome = check_reply(dispatcher.handle(request(3, tool, args)), 3, tool, args)
    event(f"{tool}: {outcome}")
    assert outcome in ("ok", "invalid_input", "index_in_progress", "sync_in_progress", "workspace_not_registered",
                       "rpc:-32602"), outcome
    _wait_for_writer(Server(repo, home=home), "fuzz")


def _wait_for_writer(server: Server, ref: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while server.project.store.writer_active(ref) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not server.project.store.writer_active(ref), "an index job did not finish"


# ---- one real subprocess round ------------------------------------------------------------------

class StdioServer:
    """`cruxe serve-mcp` on stdio; collects every stdout line to prove it is all protocol."""

    def __init__(self, repo: Path, home: Path, env: dict[str, str] | None = None):
        self.proc = subprocess.Popen([sys.executable, "-m", "cruxe", "serve-mcp", "--path", str(repo)],
                                     env={**os.environ, "CRUXE_HOME": str(home), **(env or {})}, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.lines: list[bytes] = []
        self._buf = b""

    def send(self, data: bytes) -> None:
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()

    def read_reply(self, timeout: float = 30) -> dict | list:
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            assert left > 0, "no reply in time"
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 1 << 20)
                assert chunk, f"server exited (code {self.proc.poll()})"
                self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        self.lines.append(line)
        return json.loads(line)

    def close(self) -> bytes:
        self.proc.stdin.close()
        rest = self.proc.stdout.read()
        self.proc.wait(timeout=30)
        return self._buf + rest


@pytest.fixture(scope="module")
def stdio_server(world):
    server = StdioServer(*world)
    server.send(json.dumps({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "0"}}}).encode())
    assert server.read_reply()["result"]["serverInfo"]["name"] == "cruxe"
    server.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
    yield server
    server.proc.kill()
    server.proc.wait()


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(call=tool_call(), msg_id=st.integers(0, 2**53))
def test_real_stdio_server_survives_hostile_tool_calls(stdio_server, call, msg_id):
    tool, args = call
    stdio_server.send(json.dumps(request(msg_id, tool, args)).encode())
    check_reply(stdio_server.read_reply(), msg_id, tool, args)


def test_real_stdio_server_stdout_is_only_protocol_and_it_exits_cleanly(world, stdio_server):
    stdio_server.send(b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_code",'
                      b'"arguments":{"query":"\xff\xfe"}}}')
    assert stdio_server.read_reply()["error"]["code"] == -32700
    stdio_server.send(json.dumps([request(i, "locate_symbol", {"name": n}) for i, n in
                                  enumerate(["JSONDecoder", "", "x" * 600, "dumps"])]).encode())
    batch = stdio_server.read_reply()
    assert [r["id"] for r in batch] == [0, 1, 2, 3]
    assert batch[0]["result"]["structuredContent"]["results"][0]["name"] == "JSONDecoder"
    rest = stdio_server.close()
    assert stdio_server.proc.returncode == 0
    for line in stdio_server.lines + [ln for ln in rest.split(b"\n") if ln]:
        msg = json.loads(line)  # every stdout line is one JSON-RPC message
        items = msg if isinstance(msg, list) else [msg]
        assert all(i.get("jsonrpc") == "2.0" for i in items)
    assert len(stdio_server.lines) > 60
