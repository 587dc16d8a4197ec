"""Hostile protocol input through the REAL tools (transport-level fuzzing of the framing is in
test_jsonrpc.py; here every case reaches `cruxe.tools` and the domain behind it).

Every tool's arguments are generated from its own input schema: well-typed values near the
bounds, wrong types, huge strings and numbers, deep JSON, unknown fields, nasty paths and
names, batch arrays and invalid UTF-8. Each request must get a JSON-RPC error or a tool
result; a tool error must carry a registered code (never `internal_error`, never a
traceback); arguments that break the schema must be `invalid_input`; and the server must
still answer a known question correctly afterwards. Volume runs in-process
(`Dispatcher(Server(repo))`); one round goes through a real `cruxe serve-mcp` subprocess,
whose stdout must carry nothing but protocol lines. The strategies and the oracle are in
`support/fuzz.py`, which `bench/fuzz_bench.py` reuses for >= 10,000 cases.
"""
from __future__ import annotations

import json
import os
import time

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from cruxe.jsonrpc import Dispatcher
from cruxe.tools import TOOLS, Server

from support.fuzz import JOB_TOOLS, MAX_REPLY_BYTES, QUERY_TOOLS, build_world, check_reply, deep, request, tool_call
from support.stdio import StdioServer, handshake


# ---- in-process volume ----------------------------------------------------------------------

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


@pytest.mark.parametrize("value", [1, ["all"], {"depth": "all"}])
def test_a_choice_given_as_no_string_names_the_choices(dispatcher, value):
    """`depth: 1` said only "depth must be a string": the agent had to guess the values."""
    reply = dispatcher.handle(request(1, "get_file_outline", {"path": "json/decoder.py", "depth": value}))
    err = reply["result"]["structuredContent"]["error"]
    assert err["code"] == "invalid_input" and err["data"]["allowed"] == ["top", "all"], err
    assert "top" in err["message"] and "all" in err["message"]


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

@pytest.fixture(scope="module")
def stdio_server(world):
    server = StdioServer(*world)
    handshake(server, "fuzz")
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
