"""The HTTP transport: routing, guards (Origin, token, sizes, timeouts), concurrency, SDK client."""
from __future__ import annotations

import json
import socket
import threading
import time

import anyio
import pytest

from support.transport import (TOY_INSTRUCTIONS, TOY_VERSION, ToyHost, assert_ping_answered, dumps,
                                http_request, rpc)
from cruxe.http import McpHttpServer, is_loopback_host, is_loopback_origin, serve_http
from cruxe.jsonrpc import INVALID_REQUEST, METHOD_NOT_FOUND, SUPPORTED_PROTOCOL_VERSIONS, Dispatcher

PING = dumps(rpc("ping", msg_id=1))


@pytest.fixture(scope="module")
def server():
    with McpHttpServer(Dispatcher(ToyHost()), port=0) as srv:
        srv.start()
        yield srv


def start(**options) -> McpHttpServer:
    srv = McpHttpServer(Dispatcher(options.pop("host_obj", None) or ToyHost()), port=0, **options)
    srv.start()
    return srv


def raw_exchange(port: int, data: bytes, timeout: float = 5.0) -> bytes:
    """Send raw bytes, return everything the server sends until it closes (or times out)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(data)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
        return b"".join(chunks)


def status_of(response: bytes) -> int:
    return int(response.split(b" ", 2)[1])


# ---------------------------------------------------------------------------- routing

def test_post_mcp_answers_json(server):
    status, headers, body = http_request(server.port, "POST", "/mcp", dumps(rpc("initialize", {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}})))
    assert status == 200
    assert headers["content-type"] == "application/json"
    assert int(headers["content-length"]) == len(body)
    result = json.loads(body)["result"]
    assert result["protocolVersion"] == "2025-06-18"
    assert result["serverInfo"] == {"name": "cruxe", "version": TOY_VERSION}
    assert result["instructions"] == TOY_INSTRUCTIONS


def test_notification_only_gets_202_and_no_body(server):
    for body in (dumps(rpc("notifications/initialized", msg_id=None)),
                 dumps([rpc("notifications/cancelled", {"requestId": 1}, msg_id=None)])):
        status, headers, reply = http_request(server.port, "POST", "/mcp", body)
        assert (status, reply) == (202, b"")


def test_event_stream_clients_still_get_json(server):
    status, headers, body = http_request(server.port, "POST", "/mcp", PING,
                                         {"Accept": "application/json, text/event-stream"})
    assert status == 200 and headers["content-type"] == "application/json"
    assert json.loads(body) == {"jsonrpc": "2.0", "id": 1, "result": {}}


def test_query_string_on_the_endpoint_is_ignored(server):
    status, _, body = http_request(server.port, "POST", "/mcp?session=1", PING)
    assert status == 200 and json.loads(body)["result"] == {}


def test_health(server):
    status, headers, body = http_request(server.port, "GET", "/health")
    assert status == 200 and headers["content-type"] == "application/json"
    assert json.loads(body) == {"status": "ok", "server": {"name": "cruxe", "version": TOY_VERSION}}


@pytest.mark.parametrize("method,path,status,allow", [
    ("GET", "/", 404, None), ("POST", "/other", 404, None), ("GET", "/mcp/extra", 404, None),
    ("GET", "/mcp", 405, "POST"), ("DELETE", "/mcp", 405, "POST"), ("PUT", "/mcp", 405, "POST"),
    ("OPTIONS", "/mcp", 405, "POST"), ("POST", "/health", 405, "GET"), ("HEAD", "/mcp", 405, "POST"),
])
def test_other_paths_and_methods(server, method, path, status, allow):
    got, headers, body = http_request(server.port, method, path, PING if method == "POST" else None)
    assert got == status
    assert headers.get("allow") == allow
    if method != "HEAD":
        assert json.loads(body)["error"]["code"] == INVALID_REQUEST


# ---------------------------------------------------------------------------- guards

@pytest.mark.parametrize("origin,ok", [
    ("http://localhost", True), ("http://localhost:3000", True), ("https://127.0.0.1:8443", True),
    ("http://127.9.9.9", True), ("http://[::1]:6274", True), ("HTTP://LOCALHOST:1", True),
    ("https://evil.example", False), ("http://localhost.evil.example", False), ("null", False),
    ("http://127.0.0.1.nip.io", False), ("http://localhost:80@evil.example", False), ("file://", False),
    ("http://10.0.0.1", False), ("http://[::2]", False), ("http://localhost:notaport", False), ("", False),
    ("http://0.0.0.0", False), ("ws://localhost", False),
])
def test_loopback_origins(origin, ok):
    assert is_loopback_origin(origin) is ok


@pytest.mark.parametrize("host,ok", [("127.0.0.1", True), ("localhost", True), ("::1", True), ("[::1]", True),
                                     ("127.1.2.3", True), ("0.0.0.0", False), ("::", False), ("192.168.1.5", False),
                                     ("example.com", False)])
def test_loopback_bind_addresses(host, ok):
    # serve_http warns when it binds a non-loopback address without a token
    assert is_loopback_host(host) is ok


def test_foreign_origin_is_refused(server):
    for path, method in (("/mcp", "POST"), ("/health", "GET")):
        status, _, body = http_request(server.port, method, path, PING if method == "POST" else None,
                                       {"Origin": "https://evil.example"})
        assert status == 403
    status, _, body = http_request(server.port, "POST", "/mcp", PING, {"Origin": "http://localhost:5173"})
    assert status == 200


@pytest.fixture(scope="module")
def token_server():
    srv = start(token="s3cret-token")
    yield srv
    srv.close()


@pytest.mark.parametrize("authorization,status", [
    (None, 401), ("Bearer wrong", 401), ("Basic s3cret-token", 401), ("Bearer", 401), ("Bearer s3cret-tok", 401),
    ("Bearer s3cret-token", 200), ("bearer s3cret-token", 200),
])
def test_bearer_token(token_server, authorization, status):
    headers = {"Authorization": authorization} if authorization is not None else {}
    got, reply_headers, body = http_request(token_server.port, "POST", "/mcp", PING, headers)
    assert got == status
    if status == 401:
        assert reply_headers["www-authenticate"].startswith("Bearer")
        assert b"s3cret" not in body
    else:
        assert json.loads(body)["result"] == {}


def test_health_needs_no_token(token_server):
    assert http_request(token_server.port, "GET", "/health")[0] == 200


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded",
                                          "multipart/form-data; boundary=x"])
def test_non_json_content_type_is_refused(server, content_type):
    head = b"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n" % len(PING)
    if content_type:
        head += b"Content-Type: " + content_type.encode() + b"\r\n"
    assert status_of(raw_exchange(server.port, head + b"\r\n" + PING)) == 415


def test_json_content_type_with_charset_is_accepted(server):
    status, _, _ = http_request(server.port, "POST", "/mcp", PING, {"Content-Type": "application/json; charset=utf-8"})
    assert status == 200


def _post_head(length: bytes | None, extra: bytes = b"") -> bytes:
    head = b"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" + extra
    if length is not None:
        head += b"Content-Length: " + length + b"\r\n"
    return head + b"\r\n"


@pytest.mark.parametrize("head,status", [
    (_post_head(None), 411),
    (_post_head(None, b"Transfer-Encoding: chunked\r\n"), 411),
    (_post_head(b"abc"), 400), (_post_head(b"-1"), 400), (_post_head(b"1e3"), 400),
    (_post_head(b"5", b"Content-Length: 5\r\n"), 400),
    (_post_head(str(4 * 1024 * 1024 + 1).encode()), 413),
    (_post_head(b"99999999999999999999"), 413),
])
def test_length_rules(server, head, status):
    # The server answers from the headers alone: no body is ever sent here.
    response = raw_exchange(server.port, head)
    assert status_of(response) == status
    assert b"connection: close" in response.lower()


def test_body_at_the_cap_is_read():
    srv = start(max_body=len(PING))
    try:
        assert http_request(srv.port, "POST", "/mcp", PING)[0] == 200
        assert http_request(srv.port, "POST", "/mcp", PING + b" ")[0] == 413
    finally:
        srv.close()


def test_short_body_is_bad_request(server):
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
        sock.sendall(_post_head(b"100") + b'{"jsonrpc"')
        sock.shutdown(socket.SHUT_WR)  # the client is done sending, 90 bytes short
        assert status_of(sock.recv(65536)) == 400


def test_malformed_body_is_a_json_rpc_parse_error(server):
    status, _, body = http_request(server.port, "POST", "/mcp", b'{"jsonrpc": "2.0", "id": 1,')
    assert status == 200 and json.loads(body)["error"]["code"] == -32700


def test_huge_request_line_and_many_headers_are_refused_by_the_stdlib(server):
    long_line = b"GET /" + b"a" * 70_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n"
    assert status_of(raw_exchange(server.port, long_line)) == 414
    many = b"GET /health HTTP/1.1\r\n" + b"".join(b"X-H%d: v\r\n" % i for i in range(150)) + b"\r\n"
    assert status_of(raw_exchange(server.port, many)) == 431


# ---------------------------------------------------------------------------- slow clients and load

def test_a_silent_client_does_not_block_others(server):
    idle = socket.create_connection(("127.0.0.1", server.port))
    half = socket.create_connection(("127.0.0.1", server.port))
    half.sendall(b"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: appl")  # headers never finished
    try:
        assert_ping_answered(server.port, within=5)
    finally:
        idle.close()
        half.close()


def test_idle_connections_are_dropped_after_the_socket_timeout():
    srv = start(socket_timeout=0.3)
    try:
        with socket.create_connection(("127.0.0.1", srv.port), timeout=5) as sock:
            assert sock.recv(1024) == b""  # server closed it; recv would have raised after 5 s
    finally:
        srv.close()


def test_a_dripping_body_hits_the_deadline():
    srv = start(socket_timeout=2, body_deadline=0.3)
    try:
        with socket.create_connection(("127.0.0.1", srv.port), timeout=5) as sock:
            sock.sendall(_post_head(b"50"))
            for _ in range(3):  # each byte within the socket timeout, the body past the deadline
                sock.sendall(b" ")
                time.sleep(0.2)
            response = sock.recv(65536)
        assert status_of(response) == 408
    finally:
        srv.close()


def test_connection_cap_answers_503_then_recovers():
    srv = start(max_connections=2)
    try:
        holders = [socket.create_connection(("127.0.0.1", srv.port)) for _ in range(2)]
        time.sleep(0.2)  # let both be accepted and handed to their threads
        response = raw_exchange(srv.port, b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        assert status_of(response) == 503
        for sock in holders:
            sock.close()
        deadline = time.monotonic() + 5
        while http_request(srv.port, "GET", "/health")[0] != 200:  # slots come back as threads end
            assert time.monotonic() < deadline
            time.sleep(0.05)
    finally:
        srv.close()


class RendezvousHost(ToyHost):
    """`meet` returns only when `parties` calls are inside it at once: proves real concurrency."""

    def __init__(self, parties: int):
        super().__init__()
        self.barrier = threading.Barrier(parties, timeout=10)

    def _tool_meet(self, arguments, progress):
        self.barrier.wait()
        return {"i": arguments["i"]}, False


def test_twenty_concurrent_requests_are_all_answered():
    srv = start(host_obj=RendezvousHost(20))
    results: dict[int, tuple] = {}

    def client(i):
        body = dumps(rpc("tools/call", {"name": "meet", "arguments": {"i": i}}, msg_id=i))
        status, _, reply = http_request(srv.port, "POST", "/mcp", body, timeout=20)
        results[i] = (status, json.loads(reply))

    try:
        threads = [threading.Thread(target=client, args=(i,)) for i in range(20)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        srv.close()
    assert sorted(results) == list(range(20))
    for i, (status, reply) in results.items():
        assert status == 200 and reply["id"] == i
        assert reply["result"] == {"content": [{"type": "text", "text": json.dumps({"i": i}, separators=(",", ":"))}],
                                   "structuredContent": {"i": i}, "isError": False}


def test_keep_alive_connection_carries_several_requests(server):
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    try:
        for i in range(3):
            conn.request("POST", "/mcp", dumps(rpc("ping", msg_id=i)), {"Content-Type": "application/json"})
            response = conn.getresponse()
            assert json.loads(response.read())["id"] == i
    finally:
        conn.close()


# ---------------------------------------------------------------------------- lifecycle of the server

def test_serve_http_blocks_until_shutdown_and_reports_the_port():
    ready: list[McpHttpServer] = []
    thread = threading.Thread(target=serve_http, args=(Dispatcher(ToyHost()),),
                              kwargs={"port": 0, "ready": ready.append}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 5
    while not ready:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    srv = ready[0]
    assert srv.port > 0 and srv.url == f"http://127.0.0.1:{srv.port}/mcp"
    assert http_request(srv.port, "GET", "/health")[0] == 200
    srv.shutdown()
    thread.join(5)
    assert not thread.is_alive()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", srv.port), timeout=1).close()


def test_ipv6_loopback_bind():
    try:
        srv = McpHttpServer(Dispatcher(ToyHost()), host="::1", port=0)
    except OSError:
        pytest.skip("no IPv6 loopback on this machine")
    srv.start()
    try:
        assert srv.url == f"http://[::1]:{srv.port}/mcp"
        with socket.create_connection(("::1", srv.port), timeout=5) as sock:
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: [::1]\r\nConnection: close\r\n\r\n")
            assert sock.recv(1024).startswith(b"HTTP/1.1 200")
    finally:
        srv.close()


def test_unknown_method_is_answered_at_once_over_http(server):
    started = time.monotonic()
    status, _, body = http_request(server.port, "POST", "/mcp", dumps(rpc("server/discover", {}, msg_id=5)))
    assert json.loads(body)["error"]["code"] == METHOD_NOT_FOUND
    assert time.monotonic() - started < 5


# ---------------------------------------------------------------------------- official MCP SDK client

@pytest.mark.slow
def test_official_sdk_client_over_http(server):
    from mcp import Client

    async def session():
        async with Client(server.url, read_timeout_seconds=20) as client:
            assert client.server_info.name == "cruxe" and client.server_info.version == TOY_VERSION
            assert client.protocol_version in SUPPORTED_PROTOCOL_VERSIONS
            assert client.instructions == TOY_INSTRUCTIONS
            names = [t.name for t in (await client.list_tools()).tools]
            assert names[:2] == ["echo", "fail"]
            echoed = await client.call_tool("echo", {"query": "naïve"})
            assert echoed.is_error is False and echoed.structured_content == {"query": "naïve"}
            failed = await client.call_tool("fail", {})
            assert failed.is_error is True and failed.structured_content["error"]["code"] == "invalid_input"
            raised = await client.call_tool("boom", {})
            assert raised.is_error is True and raised.structured_content["error"]["code"] == "internal_error"

    anyio.run(session)


def test_official_sdk_client_with_token():
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    srv = start(token="tkn")

    async def session():
        http_client = httpx2.AsyncClient(headers={"Authorization": "Bearer tkn"})
        async with http_client, Client(streamable_http_client(srv.url, http_client=http_client)) as client:
            return (await client.call_tool("echo", {"a": 1})).structured_content

    try:
        assert anyio.run(session) == {"a": 1}
    finally:
        srv.close()
