"""The JSON-RPC 2.0 / MCP dispatcher, the stdio loop, and the same error codes over stdio and HTTP."""
from __future__ import annotations

import io
import json
import logging
import sys
import threading
import time

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from support.transport import (
    REPO_ROOT, TOY_INSTRUCTIONS, TOY_VERSION, StdioProcess, ToyHost, dumps, http_exchange_raw, rpc, server_env,
)
from cruxe.http import McpHttpServer
from cruxe.jsonrpc import (
    INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, LATEST_PROTOCOL_VERSION, METHOD_NOT_FOUND, PARSE_ERROR,
    SUPPORTED_PROTOCOL_VERSIONS, Dispatcher, serve_stdio,
)

PROTOCOL_CODES = {PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR}


@pytest.fixture
def host() -> ToyHost:
    return ToyHost()


@pytest.fixture
def dispatcher(host: ToyHost) -> Dispatcher:
    return Dispatcher(host)


def call(name: str, arguments=None, msg_id=1, **extra) -> dict:
    params = {"name": name, **extra}
    if arguments is not None:
        params["arguments"] = arguments
    return rpc("tools/call", params, msg_id)


def error_code(reply: dict) -> int:
    assert set(reply) == {"jsonrpc", "id", "error"}, reply
    return reply["error"]["code"]


# ---------------------------------------------------------------------------- lifecycle

@pytest.mark.parametrize("version", SUPPORTED_PROTOCOL_VERSIONS)
def test_initialize_echoes_a_supported_version(dispatcher, version):
    reply = dispatcher.handle(rpc("initialize", {"protocolVersion": version, "capabilities": {},
                                                 "clientInfo": {"name": "t", "version": "1"}}))
    assert reply["id"] == 1
    result = reply["result"]
    assert result["protocolVersion"] == version
    assert result["capabilities"] == {"tools": {}}
    assert result["serverInfo"] == {"name": "cruxe", "version": TOY_VERSION}
    assert result["instructions"] == TOY_INSTRUCTIONS


@pytest.mark.parametrize("params", [{"protocolVersion": "2099-01-01"}, {"protocolVersion": "2024-10-07"},
                                    {"protocolVersion": ["2025-06-18"]}, {}, None])
def test_initialize_answers_the_newest_version_otherwise(dispatcher, params):
    reply = dispatcher.handle(rpc("initialize", params))
    assert reply["result"]["protocolVersion"] == LATEST_PROTOCOL_VERSION == "2025-11-25"


def test_initialize_without_instructions_omits_the_field():
    reply = Dispatcher(ToyHost(instructions=None)).handle(rpc("initialize", {}))
    assert "instructions" not in reply["result"]


def test_handshake_succeeds_when_the_host_is_broken(caplog):
    class BrokenHost(ToyHost):
        def instructions(self):
            raise RuntimeError("index unreadable")

        def on_initialized(self):
            raise RuntimeError("prewarm exploded")

    dispatcher = Dispatcher(BrokenHost())
    with caplog.at_level(logging.ERROR, logger="cruxe.jsonrpc"):
        reply = dispatcher.handle(rpc("initialize", {"protocolVersion": "2025-06-18"}))
        assert dispatcher.handle(rpc("notifications/initialized", msg_id=None)) is None
    assert reply["result"]["protocolVersion"] == "2025-06-18"
    assert "instructions" not in reply["result"]
    assert "prewarm exploded" in caplog.text


def test_a_stalled_host_delays_initialize_by_a_bounded_wait_only(monkeypatch, caplog):
    import cruxe.jsonrpc

    release = threading.Event()

    class StalledHost(ToyHost):
        def instructions(self):
            release.wait(30)  # like opening a FIFO that no one writes
            return "late"

    monkeypatch.setattr(cruxe.jsonrpc, "INSTRUCTIONS_WAIT_S", 0.2)
    dispatcher = Dispatcher(StalledHost())
    try:
        with caplog.at_level(logging.WARNING, logger="cruxe.jsonrpc"):
            for _ in range(3):
                started = time.monotonic()
                reply = dispatcher.handle(rpc("initialize", {"protocolVersion": "2025-06-18"}))
                assert time.monotonic() - started < 2
                assert reply["result"]["serverInfo"]["name"] == "cruxe" and "instructions" not in reply["result"]
        assert sum("no instructions" in r.getMessage() for r in caplog.records) == 1
        alive = [t for t in threading.enumerate() if t.name == "cruxe-instructions"]
        assert len(alive) == 1  # the stalled call is waited on again, not joined by more
    finally:
        release.set()
    time.sleep(0.1)
    assert dispatcher.handle(rpc("initialize", {}))["result"]["instructions"] == "late"


def test_initialized_notification_reaches_the_host_once(dispatcher, host):
    for _ in range(3):  # over HTTP every client sends one
        assert dispatcher.handle(rpc("notifications/initialized", msg_id=None)) is None
    assert host.initialized_calls == 1


def test_ping_and_tools_list(dispatcher, host):
    assert dispatcher.handle(rpc("ping", msg_id="p")) == {"jsonrpc": "2.0", "id": "p", "result": {}}
    tools = dispatcher.handle(rpc("tools/list", {"cursor": "ignored"}))["result"]["tools"]
    assert [t["name"] for t in tools] == [t["name"] for t in host.list_tools()]
    assert all({"name", "description", "inputSchema"} <= set(t) for t in tools)


def test_cancelled_notification_is_accepted_silently(dispatcher):
    note = rpc("notifications/cancelled", {"requestId": 7, "reason": "user"}, msg_id=None)
    assert dispatcher.handle(note) is None


# ---------------------------------------------------------------------------- tools/call

def test_tool_call_envelope(dispatcher):
    arguments = {"query": "héllo → 世界", "limit": 3, "nested": {"b": 1, "a": [True, None]}}
    raw = dispatcher.handle_bytes(dumps(call("echo", arguments, msg_id="c1")))
    reply = json.loads(raw)
    assert reply["id"] == "c1"
    result = reply["result"]
    assert list(result) == ["content", "structuredContent", "isError"]
    assert result["isError"] is False
    assert result["structuredContent"] == arguments
    assert result["content"] == [{"type": "text", "text": json.dumps(arguments, separators=(",", ":"),
                                                                      ensure_ascii=False)}]
    assert "世界".encode() in raw  # compact, non-ASCII kept as UTF-8
    assert b": " not in raw and b", " not in raw


def test_tool_failure_is_a_result_not_a_protocol_error(dispatcher):
    result = dispatcher.handle(call("fail", {}))["result"]
    assert result["isError"] is True
    assert result["structuredContent"]["error"]["code"] == "invalid_input"
    assert json.loads(result["content"][0]["text"]) == result["structuredContent"]


@pytest.mark.parametrize("tool", ["boom", "keybug", "nan"])
def test_unexpected_tool_failure_becomes_internal_error(dispatcher, tool, caplog):
    with caplog.at_level(logging.ERROR, logger="cruxe.jsonrpc"):
        raw = dispatcher.handle_bytes(dumps(call(tool, {})))
    result = json.loads(raw)["result"]
    assert result["isError"] is True
    error = result["structuredContent"]["error"]
    assert error["code"] == "internal_error"
    assert error["data"]["remedy"]
    assert b"secret" not in raw and b"Traceback" not in raw  # details stay in the log
    assert tool in caplog.text


def test_host_error_payload_hook_is_used_for_internal_errors():
    class Host(ToyHost):
        def error_payload(self, err):
            return {"error": err.to_dict(), "metadata": {"cruxe_protocol_version": "1.0", "ref": "live"}}

    result = Dispatcher(Host()).handle(call("boom", {}))["result"]
    assert result["structuredContent"]["metadata"]["ref"] == "live"
    assert result["structuredContent"]["error"]["code"] == "internal_error"


def test_unknown_tool_is_invalid_params(dispatcher):
    reply = dispatcher.handle(call("no_such_tool", {}, msg_id=9))
    assert error_code(reply) == INVALID_PARAMS
    assert reply["id"] == 9
    assert "no_such_tool" in reply["error"]["message"]


@pytest.mark.parametrize("params", [
    {"name": "echo", "arguments": [1, 2]}, {"name": "echo", "arguments": "x"}, {"name": "echo", "arguments": 3},
    {"arguments": {}}, {"name": 5}, {"name": None},
])
def test_bad_tools_call_params_are_invalid_params(dispatcher, host, params):
    assert error_code(dispatcher.handle(rpc("tools/call", params))) == INVALID_PARAMS
    assert host.calls == []


@pytest.mark.parametrize("method,params", [("tools/call", [1]), ("tools/call", "echo"), ("ping", [1]),
                                           ("initialize", 42), ("tools/list", True)])
def test_non_object_params_are_invalid_params(dispatcher, method, params):
    assert error_code(dispatcher.handle(rpc(method, params))) == INVALID_PARAMS


def test_null_arguments_and_params_mean_none_given(dispatcher):
    message = rpc("tools/call", {"name": "echo", "arguments": None})
    assert dispatcher.handle(message)["result"]["structuredContent"] == {}
    assert dispatcher.handle(rpc("ping", None) | {"params": None})["result"] == {}


def test_unknown_fields_are_ignored(dispatcher):
    message = call("echo", {"a": 1}, msg_id=3) | {"extra": {"x": 1}}
    message["params"]["unknownParam"] = True
    message["params"]["_meta"] = {"someVendorKey": 1}
    assert dispatcher.handle(message)["result"]["structuredContent"] == {"a": 1}


# ---------------------------------------------------------------------------- JSON-RPC rules

@pytest.mark.parametrize("method", ["server/discover", "resources/list", "prompts/list", "logging/setLevel",
                                    "completion/complete", "notifications/initialized", ""])
def test_unknown_methods_are_method_not_found(dispatcher, method):
    reply = dispatcher.handle(rpc(method, {}, msg_id=11))
    assert error_code(reply) == METHOD_NOT_FOUND
    assert reply["id"] == 11


def test_long_client_names_are_clipped_in_error_messages(dispatcher):
    long_name = "m" * 100_000
    for message in (rpc(long_name), call(long_name, {})):
        reply = dispatcher.handle(message)
        assert error_code(reply) in (METHOD_NOT_FOUND, INVALID_PARAMS)
        assert 0 < len(reply["error"]["message"]) < 300


@pytest.mark.parametrize("message,reply_id", [
    ({"id": 1, "method": "ping"}, 1),                                   # no jsonrpc
    ({"jsonrpc": "1.0", "id": 2, "method": "ping"}, 2),
    ({"jsonrpc": 2.0, "id": 3, "method": "ping"}, 3),
    ({"jsonrpc": "2.0", "id": 4}, 4),                                   # no method
    ({"jsonrpc": "2.0", "id": 5, "method": 5}, 5),
    ({"jsonrpc": "2.0", "id": 6, "method": None}, 6),
    ({"jsonrpc": "2.0", "id": None, "method": "ping"}, None),
    ({"jsonrpc": "2.0", "id": True, "method": "ping"}, None),
    ({"jsonrpc": "2.0", "id": 1.5, "method": "ping"}, None),
    ({"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}, None),
    ({"jsonrpc": "2.0", "id": [1], "method": "ping"}, None),
])
def test_invalid_requests(dispatcher, message, reply_id):
    reply = dispatcher.handle(message)
    assert error_code(reply) == INVALID_REQUEST
    assert reply["id"] == reply_id


@pytest.mark.parametrize("message", [5, "ping", None, True, 1.5, {"foo": 1}, {"method": "ping"},
                                     {"jsonrpc": "2.0", "method": 5, "params": "bar"}])
def test_a_message_that_is_neither_request_nor_notification_is_invalid(dispatcher, message):
    # As in the JSON-RPC 2.0 examples: without a usable id the error carries id null.
    reply = dispatcher.handle(message)
    assert error_code(reply) == INVALID_REQUEST and reply["id"] is None


def test_large_integer_ids_are_echoed_exactly(dispatcher):
    big = 2**80 + 1
    raw = dispatcher.handle_bytes(b'{"jsonrpc":"2.0","id":%d,"method":"ping"}' % big)
    assert raw == b'{"jsonrpc":"2.0","id":%d,"result":{}}' % big


@pytest.mark.parametrize("message", [
    rpc("no/such/method", msg_id=None),
    rpc("tools/call", {"name": "no_such_tool"}, msg_id=None),
    rpc("tools/call", [1], msg_id=None),
    {"jsonrpc": "2.0", "result": {}, "id": 1},                          # a client response
    {"jsonrpc": "2.0", "error": {"code": 1, "message": "x"}, "id": 2},
])
def test_notifications_and_responses_are_never_answered(dispatcher, message):
    assert dispatcher.handle(message) is None


def test_a_request_method_without_id_is_ignored(dispatcher, host):
    # MCP requests must carry an id; without one nothing could report the outcome, so a
    # side-effecting tool is not run blind.
    assert dispatcher.handle(call("echo", {"a": 1}, msg_id=None)) is None
    assert host.calls == []


def test_batch_answers_each_request_in_order(dispatcher, host):
    batch = [rpc("ping", msg_id="a"), rpc("notifications/initialized", msg_id=None), {"foo": 1},
             rpc("server/discover", msg_id="b"), call("echo", {"x": 1}, msg_id="c"), 7]
    replies = dispatcher.handle(batch)
    assert [r["id"] for r in replies] == ["a", None, "b", "c", None]
    assert replies[0]["result"] == {}
    assert error_code(replies[1]) == INVALID_REQUEST
    assert error_code(replies[2]) == METHOD_NOT_FOUND
    assert replies[3]["result"]["structuredContent"] == {"x": 1}
    assert error_code(replies[4]) == INVALID_REQUEST
    assert host.initialized_calls == 1


def test_batch_edge_cases(dispatcher):
    empty = dispatcher.handle([])
    assert isinstance(empty, dict) and error_code(empty) == INVALID_REQUEST
    assert dispatcher.handle([rpc("notifications/initialized", msg_id=None),
                              rpc("notifications/cancelled", {}, msg_id=None)]) is None
    assert [error_code(r) for r in dispatcher.handle([1, 2, 3])] == [INVALID_REQUEST] * 3
    assert [error_code(r) for r in dispatcher.handle([[]])] == [INVALID_REQUEST]


# ---------------------------------------------------------------------------- malformed bytes

@pytest.mark.parametrize("raw", [
    b'{"jsonrpc":"2.0","id":1,"method":"ping"',                         # truncated
    b"not json", b"", b"   ", b"{'single': 'quotes'}",
    b'{"jsonrpc":"2.0","id":1,"method":"ping"}\xff',                    # invalid UTF-8
    b'{"jsonrpc":"2.0","id":1,"method":"p\xc3\x28"}',
    b'{"jsonrpc":"2.0","id":NaN,"method":"ping"}',                      # not JSON constants
    b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":Infinity}}',
    b'{"jsonrpc":"2.0","id":' + b"9" * 5000 + b',"method":"ping"}',     # past the int digit limit
    b"\xef\xbb\xbf" + dumps(rpc("ping")),                              # BOM
])
def test_unparseable_bytes_are_parse_errors(dispatcher, raw):
    reply = json.loads(dispatcher.handle_bytes(raw))
    assert error_code(reply) == PARSE_ERROR and reply["id"] is None


@pytest.mark.parametrize("opener,closer", [(b"[", b"]"), (b'{"a":', b"}")])
def test_deep_nesting_is_an_error_not_a_crash(dispatcher, opener, closer):
    raw = opener * 100_000 + closer * 100_000
    assert error_code(json.loads(dispatcher.handle_bytes(raw))) in (PARSE_ERROR, INVALID_REQUEST)
    inside = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"d":' \
             + opener * 100_000 + closer * 100_000 + b"}}}"
    assert error_code(json.loads(dispatcher.handle_bytes(inside))) in (PARSE_ERROR, INVALID_REQUEST)


def test_moderately_deep_arguments_still_get_a_valid_reply(dispatcher):
    depth = 900  # parses, but echoing it may exceed the encoder's recursion limit
    raw = (b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"d":'
           + b"[" * depth + b"]" * depth + b"}}}")
    reply = json.loads(dispatcher.handle_bytes(raw))
    assert reply["id"] == 1
    assert "result" in reply


def test_huge_float_argument_gives_a_valid_reply(dispatcher):
    raw = dumps(call("echo", {"n": 1})).replace(b'"n":1', b'"n":1e999')
    result = json.loads(dispatcher.handle_bytes(raw))["result"]
    assert result["isError"] is True  # inf is not JSON: the payload cannot be sent as is
    assert result["structuredContent"]["error"]["code"] == "internal_error"


def test_lone_surrogates_round_trip_as_escapes(dispatcher):
    raw = dispatcher.handle_bytes(b'{"jsonrpc":"2.0","id":1,"method":"tools/call",'
                                  b'"params":{"name":"echo","arguments":{"s":"a\\ud800b"}}}')
    raw.decode("utf-8")  # valid UTF-8 on the wire
    assert json.loads(raw)["result"]["structuredContent"] == {"s": "a\ud800b"}


def test_same_message_gives_same_bytes(dispatcher):
    message = dumps(call("echo", {"z": 1, "a": [3, 2, 1], "m": {"y": 1, "x": 2}}))
    first = dispatcher.handle_bytes(message)
    assert all(dispatcher.handle_bytes(message) == first for _ in range(5))
    assert first.index(b'"z"') < first.index(b'"a"')  # key order as produced, not sorted


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20)


def _check_reply_shape(reply) -> None:
    items = reply if isinstance(reply, list) else [reply]
    for item in items:
        assert item["jsonrpc"] == "2.0" and "id" in item
        assert ("result" in item) != ("error" in item)
        if "error" in item:
            assert item["error"]["code"] in PROTOCOL_CODES


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=200))
def test_any_bytes_give_none_or_a_valid_reply(data):
    raw = Dispatcher(ToyHost()).handle_bytes(data)
    if raw is not None:
        _check_reply_shape(json.loads(raw))


@settings(max_examples=200, deadline=None)
@given(st.fixed_dictionaries({}, optional={
    "jsonrpc": st.sampled_from(["2.0", "1.0"]) | json_values,
    "id": st.integers() | st.text(max_size=5) | json_values,
    "method": st.sampled_from(["ping", "initialize", "tools/list", "tools/call", "x/y",
                               "notifications/initialized"]) | json_values,
    "params": st.fixed_dictionaries({}, optional={"name": st.sampled_from(["echo", "fail", "zzz"]) | json_values,
                                                  "arguments": json_values}) | json_values,
}) | json_values)
def test_any_json_message_gives_none_or_a_valid_reply(message):
    dispatcher = Dispatcher(ToyHost())
    reply = dispatcher.handle(message)
    if reply is None:
        is_request = isinstance(message, dict) and "id" in message and "method" in message
        assert not is_request
        return
    _check_reply_shape(json.loads(dispatcher.handle_bytes(dumps(message))))


# ---------------------------------------------------------------------------- progress

def _slow_call(token, steps=3, msg_id=1):
    params = {"name": "slow", "arguments": {"steps": steps, "delay": 0}}
    if token is not None:
        params["_meta"] = {"progressToken": token}
    return rpc("tools/call", params, msg_id)


@pytest.mark.parametrize("token", ["tok-1", 42])
def test_progress_notifications_carry_the_token(dispatcher, token):
    sent: list[dict] = []
    reply = dispatcher.handle(_slow_call(token), sent.append)
    assert reply["result"]["structuredContent"] == {"steps": 3, "had_progress": True}
    assert sent == [{"jsonrpc": "2.0", "method": "notifications/progress",
                     "params": {"progressToken": token, "progress": i, "total": 3, "message": f"step {i}"}}
                    for i in (1, 2, 3)]


def test_no_progress_without_token_or_sender(dispatcher):
    sent: list[dict] = []
    assert dispatcher.handle(_slow_call(None), sent.append)["result"]["structuredContent"]["had_progress"] is False
    assert dispatcher.handle(_slow_call("t"))["result"]["structuredContent"]["had_progress"] is False
    assert dispatcher.handle(_slow_call({"bad": "token"}), sent.append)["result"]["structuredContent"][
        "had_progress"] is False
    assert sent == []


def test_progress_goes_silent_after_the_reply_and_survives_a_dead_sender():
    kept = []

    class Host(ToyHost):
        def _tool_keep(self, arguments, progress):
            kept.append(progress)
            progress(0.5, None, None)
            progress(float("nan"), None, None)     # dropped: not a number the client can use
            return {}, False

        def list_tools(self):
            return super().list_tools() + [{"name": "keep", "description": "", "inputSchema": {}}]

    sent: list[dict] = []
    params = {"name": "keep", "_meta": {"progressToken": "k"}}
    Dispatcher(Host()).handle(rpc("tools/call", params), sent.append)
    kept[0](2, 3, "late")
    assert [n["params"] for n in sent] == [{"progressToken": "k", "progress": 0.5}]

    def dead(_message):
        raise BrokenPipeError

    reply = Dispatcher(Host()).handle(rpc("tools/call", params), dead)
    assert reply["result"]["isError"] is False


# ---------------------------------------------------------------------------- stdio loop in process

def run_stdio(data: bytes, dispatcher: Dispatcher | None = None, **options) -> list[bytes]:
    out = io.BytesIO()
    serve_stdio(dispatcher or Dispatcher(ToyHost()), io.BytesIO(data), out, **options)
    return out.getvalue().splitlines()


def test_stdio_one_reply_line_per_request_and_blank_lines_ignored():
    data = b"\n   \n" + dumps(rpc("ping", msg_id=1)) + b"\r\n\n" + dumps(rpc("notifications/initialized",
                                                                           msg_id=None)) + b"\n" \
        + dumps(rpc("tools/list", msg_id=2))  # last line without newline, then EOF
    lines = run_stdio(data)
    assert [json.loads(line)["id"] for line in lines] == [1, 2]


def test_stdio_oversize_line_is_rejected_without_losing_the_stream():
    data = dumps(rpc("ping", msg_id=1)) + b"\n" + b"x" * 5000 + b"\n" + dumps(rpc("ping", msg_id=2)) + b"\n"
    lines = [json.loads(line) for line in run_stdio(data, max_line_bytes=1000)]
    assert [r["id"] for r in lines] == [1, None, 2]
    assert error_code(lines[1]) == INVALID_REQUEST


def test_stdio_waits_for_running_tools_at_eof():
    data = b"".join(dumps(call("slow", {"steps": 2, "delay": 0.05}, msg_id=i)) + b"\n" for i in range(6))
    replies = [json.loads(line) for line in run_stdio(data)]
    assert sorted(r["id"] for r in replies) == list(range(6))
    assert all(r["result"]["structuredContent"]["steps"] == 2 for r in replies)


def test_stdio_stops_when_the_output_is_closed():
    class ClosedOut(io.BytesIO):
        def write(self, data):
            raise BrokenPipeError

    data = b"".join(dumps(rpc("ping", msg_id=i)) + b"\n" for i in range(1000))
    source = io.BytesIO(data)
    serve_stdio(Dispatcher(ToyHost()), source, ClosedOut())
    assert source.tell() < len(data)  # gave up reading instead of answering into the void


# ---------------------------------------------------------------------------- stdio subprocess

@pytest.fixture(scope="module")
def stdio_server():
    server = StdioProcess()
    yield server
    server.close()


def test_stdio_subprocess_handshake_and_clean_stdout():
    server = StdioProcess()
    server.send(rpc("initialize", {"protocolVersion": "2025-03-26", "capabilities": {},
                                   "clientInfo": {"name": "t", "version": "0"}}, msg_id=0))
    assert server.read()["result"]["protocolVersion"] == "2025-03-26"
    server.send(rpc("notifications/initialized", msg_id=None))
    server.send(rpc("tools/list", msg_id=1))
    server.send(call("noisy", {}, msg_id=2))
    server.send_raw(b"garbage\n")
    server.send(rpc("server/discover", {}, msg_id=3))
    replies = [server.read() for _ in range(4)]
    stderr = server.close()
    assert server.lines.empty()  # nothing but the four replies on stdout
    by_id = {r["id"]: r for r in replies}
    assert by_id[2]["result"]["structuredContent"] == {"noisy": True}
    assert error_code(by_id[None]) == PARSE_ERROR
    assert error_code(by_id[3]) == METHOD_NOT_FOUND
    assert "NOISE FROM PRINT" in stderr and "NOISE FROM FD 1" in stderr
    assert server.proc.returncode == 0


def test_stdio_answers_ping_and_discover_while_a_tool_runs(stdio_server):
    stdio_server.send(call("slow", {"steps": 4, "delay": 0.25}, msg_id="slow"))
    stdio_server.send(rpc("server/discover", msg_id="d"))
    stdio_server.send(rpc("ping", msg_id="p"))
    order = [stdio_server.read(timeout=10)["id"] for _ in range(3)]
    assert order == ["d", "p", "slow"]


def test_stdio_progress_and_concurrent_calls_never_interleave(stdio_server):
    for i in range(8):
        params = {"name": "slow", "arguments": {"steps": 5, "delay": 0.01}, "_meta": {"progressToken": f"t{i}"}}
        stdio_server.send(rpc("tools/call", params, msg_id=i))
    replies, progress = {}, {}
    while len(replies) < 8:
        message = stdio_server.read()  # json.loads fails if two writes interleaved on one line
        if "method" in message:
            assert message["method"] == "notifications/progress"
            token = message["params"]["progressToken"]
            assert token[1:] not in replies  # no progress after the reply
            progress.setdefault(token, []).append(message["params"]["progress"])
        else:
            replies[str(message["id"])] = message
    assert progress == {f"t{i}": [1, 2, 3, 4, 5] for i in range(8)}


def test_stdio_subprocess_rejects_a_line_over_the_cap(stdio_server):
    from cruxe.jsonrpc import MAX_LINE_BYTES

    stdio_server.send_raw(b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"'
                          + b"x" * (MAX_LINE_BYTES + 10) + b'"}}\n')
    stdio_server.send(rpc("ping", msg_id="after"))
    reply, after = stdio_server.read(timeout=30), stdio_server.read(timeout=30)
    assert error_code(reply) == INVALID_REQUEST and reply["id"] is None
    assert after["id"] == "after"


def test_stdio_subprocess_finishes_work_and_exits_at_eof():
    server = StdioProcess()
    server.send(call("slow", {"steps": 2, "delay": 0.2}, msg_id="last"))
    server.proc.stdin.close()
    assert server.read()["id"] == "last"
    server.close()
    assert server.proc.returncode == 0


# ---------------------------------------------------------------------------- same codes over both transports

CONFORMANCE = [
    ("parse error", b'{"jsonrpc":', PARSE_ERROR),
    ("invalid utf-8", b'{"jsonrpc":"2.0","id":1,"method":"ping"}\xfe', PARSE_ERROR),
    ("deep nesting", b"[" * 100_000 + b"]" * 100_000, "deep"),
    ("not an object", b"42", INVALID_REQUEST),
    ("no jsonrpc", b'{"id":1,"method":"ping"}', INVALID_REQUEST),
    ("bad id", b'{"jsonrpc":"2.0","id":{},"method":"ping"}', INVALID_REQUEST),
    ("empty batch", b"[]", INVALID_REQUEST),
    ("discover", dumps(rpc("server/discover", {})), METHOD_NOT_FOUND),
    ("prompts/list", dumps(rpc("prompts/list")), METHOD_NOT_FOUND),
    ("unknown tool", dumps(call("nope", {})), INVALID_PARAMS),
    ("array arguments", dumps(call("echo", [1])), INVALID_PARAMS),
    ("array params", dumps(rpc("tools/list", [])), INVALID_PARAMS),
    ("tool error", dumps(call("fail", {})), "invalid_input"),
    ("tool raised", dumps(call("boom", {})), "internal_error"),
    ("ok", dumps(call("echo", {"q": "ü"})), None),
    ("batch", dumps([rpc("ping", msg_id=1), rpc("nope", msg_id=2)]), [None, METHOD_NOT_FOUND]),
    ("notification", dumps(rpc("notifications/initialized", msg_id=None)), "no reply"),
    ("invalid object", b'{"method":"x"}', INVALID_REQUEST),
    ("unknown notification", dumps(rpc("x/y", {}, msg_id=None)), "no reply"),
    ("notification batch", dumps([rpc("notifications/cancelled", {}, msg_id=None)]), "no reply"),
]


@pytest.fixture(scope="module")
def http_server():
    server = McpHttpServer(Dispatcher(ToyHost()), port=0)
    server.start()
    yield server
    server.close()


@pytest.fixture(params=["stdio", "http"])
def exchange(request, stdio_server, http_server):
    if request.param == "stdio":
        return stdio_server.exchange_raw
    return lambda data, expect_reply: http_exchange_raw(http_server.port, data, expect_reply=expect_reply)


def _outcome(reply):
    """The code a client sees: a JSON-RPC code, a tool error code, or None for success."""
    if "error" in reply:
        return reply["error"]["code"]
    result = reply["result"]
    return result["structuredContent"]["error"]["code"] if result.get("isError") else None


@pytest.mark.parametrize("name,raw,expected", CONFORMANCE, ids=[c[0] for c in CONFORMANCE])
def test_error_codes_are_the_same_over_every_transport(exchange, name, raw, expected):
    reply = exchange(raw, expect_reply=expected != "no reply")
    if expected == "no reply":
        assert reply is None
        return
    value = json.loads(reply)
    if expected == "deep":
        assert _outcome(value) in (PARSE_ERROR, INVALID_REQUEST)
    elif isinstance(expected, list):
        assert [_outcome(v) for v in value] == expected
    else:
        assert _outcome(value) == expected


def test_stdio_and_http_replies_are_byte_identical(stdio_server, http_server):
    for name, raw, expected in CONFORMANCE:
        expect_reply = expected != "no reply"
        over_stdio = stdio_server.exchange_raw(raw, expect_reply=expect_reply)
        over_http = http_exchange_raw(http_server.port, raw, expect_reply=expect_reply)
        assert over_stdio == over_http, name


# ---------------------------------------------------------------------------- official MCP SDK client

def test_official_sdk_client_over_stdio():
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=[str(REPO_ROOT / "tests" / "support" / "transport.py"),
                                                                 "stdio"], env=server_env(), cwd=str(REPO_ROOT))
    progress: list[tuple] = []

    async def on_progress(value, total, message):
        progress.append((value, total, message))

    async def session():
        started = time.monotonic()
        async with Client(params, read_timeout_seconds=20) as client:
            handshake = time.monotonic() - started
            assert client.server_info.name == "cruxe" and client.server_info.version == TOY_VERSION
            assert client.protocol_version in SUPPORTED_PROTOCOL_VERSIONS
            assert client.instructions == TOY_INSTRUCTIONS
            tools = await client.list_tools()
            assert "echo" in [t.name for t in tools.tools]
            echoed = await client.call_tool("echo", {"query": "find me"})
            assert echoed.is_error is False and echoed.structured_content == {"query": "find me"}
            assert json.loads(echoed.content[0].text) == {"query": "find me"}
            failed = await client.call_tool("fail", {})
            assert failed.is_error is True and failed.structured_content["error"]["code"] == "invalid_input"
            slow = await client.call_tool("slow", {"steps": 3, "delay": 0.01}, progress_callback=on_progress)
            assert slow.structured_content["had_progress"] is True
            return handshake

    handshake = anyio.run(session)
    assert [p[0] for p in progress] == [1, 2, 3]
    # The SDK probes `server/discover` first; an instant -32601 keeps it from waiting its 10 s timeout.
    assert handshake < 8


def test_dispatcher_is_thread_safe_under_concurrent_calls(dispatcher, host):
    results: dict[int, dict] = {}

    def worker(i):
        results[i] = dispatcher.handle(call("echo", {"i": i}, msg_id=i))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(results[i]["result"]["structuredContent"] == {"i": i} for i in range(20))
