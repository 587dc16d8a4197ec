"""Transports and job spawning under abuse: racing index_repo calls, slow or vanishing HTTP
clients, bad serve-mcp arguments, cancellation, a closed stdin, a FIFO in `.git`.

Every server here listens on 127.0.0.1 only, uses small limits and stops itself within a few
seconds.
"""
from __future__ import annotations

import json
import logging
import socket
import struct
import subprocess
import sys
import threading
import time

import pytest

from cruxe import jobs, tools
from cruxe.errors import CruxeError


# ---------------------------------------------------------------------------- index jobs

def test_parallel_index_repo_calls_start_exactly_one_child(make_repo, monkeypatch):
    root = make_repo({f"m{i}.py": f"def f{i}():\n    pass\n" for i in range(30)})
    server = tools.Server(root)
    spawned: list[tuple[str, subprocess.Popen]] = []
    real_spawn = jobs.spawn_index_job

    def counting_spawn(*args, **kwargs):
        proc = real_spawn(*args, **kwargs)
        spawned.append((kwargs["job_id"], proc))
        return proc

    monkeypatch.setattr(jobs, "spawn_index_job", counting_spawn)
    callers = 12
    gate = threading.Barrier(callers, timeout=10)
    answers: list[tuple[dict, bool]] = []

    def call() -> None:
        gate.wait()
        answers.append(server.call_tool("index_repo", {"force": True}))

    threads = [threading.Thread(target=call) for _ in range(callers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    try:
        assert len(spawned) == 1, f"{len(spawned)} index processes for one (project, ref)"
        job_id = spawned[0][0]
        started = [p for p, is_error in answers if not is_error]
        refused = [p for p, is_error in answers if is_error]
        assert len(answers) == callers and len(started) == 1 and started[0]["job_id"] == job_id
        assert {p["error"]["code"] for p in refused} == {"index_in_progress"}
        assert {p["error"]["data"]["job_id"] for p in refused} == {job_id}  # the running job, at once
    finally:
        for _, proc in spawned:
            proc.wait(60)


def test_a_background_sync_and_sync_repo_never_both_spawn(make_repo, monkeypatch):
    """The balanced policy's background sync takes the same claim as sync_repo."""
    from cruxe import freshness
    from cruxe.index import run_index
    from cruxe.project import open_project

    root = make_repo({"a.py": "def alpha():\n    pass\n"})
    run_index(root)
    server = tools.Server(root)
    project = open_project(root, server.home)
    monkeypatch.setattr(jobs, "spawn_index_job", lambda *a, **k: subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(30)"]))
    state = freshness.index_state(project, project.default_ref())
    assert server.maybe_background_sync(project, state)
    try:
        payload, is_error = server.call_tool("sync_repo", {})
        assert is_error and payload["error"]["code"] in ("sync_in_progress", "index_in_progress"), payload
    finally:
        for spawned in list(jobs._SPAWNED.values()):
            spawned.proc.kill()
            spawned.proc.wait()
        jobs._SPAWNED.clear()


def _fake_spawn(exit_code: int):
    def spawn(root, home, *, ref, force, job_id):
        return subprocess.Popen([sys.executable, "-c", f"import sys; sys.exit({exit_code})"])
    return spawn


@pytest.mark.parametrize("exit_code,words", [(2, "exited with code 2"), (-9, "killed by signal 9")])
def test_a_failed_job_answer_carries_a_reason(make_repo, monkeypatch, exit_code, words):
    root = make_repo({"a.py": "def alpha():\n    pass\n"})
    if exit_code < 0:
        def spawn(root, home, *, ref, force, job_id):
            proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
            proc.kill()
            return proc
        monkeypatch.setattr(jobs, "spawn_index_job", spawn)
    else:
        monkeypatch.setattr(jobs, "spawn_index_job", _fake_spawn(exit_code))
    payload, is_error = tools.Server(root).call_tool("index_repo", {})
    assert not is_error and payload["status"] == "failed"
    assert words in payload["reason"]


def test_a_child_that_lost_the_writer_lock_to_another_process_means_index_in_progress(make_repo, monkeypatch):
    root = make_repo({"a.py": "def alpha():\n    pass\n"})
    monkeypatch.setattr(jobs, "spawn_index_job", _fake_spawn(3))  # what `cruxe index` exits with then
    payload, is_error = tools.Server(root).call_tool("index_repo", {})
    assert is_error and payload["error"]["code"] == "index_in_progress"


def test_a_job_that_recorded_its_failure_answers_with_its_error(make_repo, monkeypatch):
    root = make_repo({"a.py": "def alpha():\n    pass\n"})
    server = tools.Server(root)

    def spawn(root, home, *, ref, force, job_id):
        from cruxe.project import open_project

        store = open_project(root, home).store
        store.create_job(job_id, ref, "full", 1)
        store.update_job(job_id, status="failed", error="index validation failed: 3 files, 2 documents")
        return subprocess.Popen([sys.executable, "-c", "pass"])

    monkeypatch.setattr(jobs, "spawn_index_job", spawn)
    payload, is_error = server.call_tool("index_repo", {}, lambda *a: None)
    assert not is_error and payload["status"] == "failed"
    assert payload["reason"] == "index validation failed: 3 files, 2 documents"


def test_a_cancelled_wait_for_a_job_returns_at_once(make_repo, monkeypatch):
    root = make_repo({"a.py": "def alpha():\n    pass\n"})
    children: list[subprocess.Popen] = []

    def spawn(root, home, *, ref, force, job_id):
        children.append(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"]))
        return children[-1]

    class Progress:
        def __init__(self):
            self.cancelled = threading.Event()

        def __call__(self, *args):
            pass

    monkeypatch.setattr(jobs, "spawn_index_job", spawn)
    progress = Progress()
    threading.Timer(0.3, progress.cancelled.set).start()
    started = time.monotonic()
    try:
        payload, is_error = tools.Server(root).call_tool("index_repo", {}, progress)
        assert not is_error and time.monotonic() - started < 3
    finally:
        for child in children:
            child.kill()
            child.wait()


# ---------------------------------------------------------------------------- HTTP: slow clients

from support.transport import ToyHost, assert_ping_answered, dumps, http_request, rpc  # noqa: E402
from cruxe.http import McpHttpServer, serve_http  # noqa: E402
from cruxe.jsonrpc import Dispatcher  # noqa: E402

PING = dumps(rpc("ping", msg_id=1))


def start(**options) -> McpHttpServer:
    srv = McpHttpServer(Dispatcher(ToyHost()), port=0, **options)
    srv.start()
    return srv


def _connect(port: int) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=5)


def _wait_closed(sock: socket.socket, within: float) -> float:
    """Seconds until the server closed ``sock`` (recv gives b"" or a reset), failing past ``within``."""
    started = time.monotonic()
    sock.settimeout(within)
    try:
        while sock.recv(1024):
            pass
    except ConnectionResetError:
        pass
    except socket.timeout:
        pytest.fail(f"the server kept the connection open for over {within} s")
    return time.monotonic() - started


class Drippers:
    """Clients that send a request head one byte at a time and reconnect whenever dropped."""

    HEAD = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" + b"X-Pad: a\r\n" * 500

    def __init__(self, port: int, count: int, interval: float = 0.1):
        self.port, self.interval = port, interval
        self.stop = threading.Event()
        self.connections = 0
        self.threads = [threading.Thread(target=self._drip, daemon=True) for _ in range(count)]
        for t in self.threads:
            t.start()

    def _drip(self) -> None:
        while not self.stop.is_set():
            try:
                with _connect(self.port) as sock:
                    self.connections += 1
                    for byte in self.HEAD:
                        if self.stop.wait(self.interval):
                            return
                        sock.sendall(bytes([byte]))
            except OSError:
                continue  # dropped by the server: come back at once, as an attacker would

    def close(self) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(5)


@pytest.mark.slow
def test_slow_header_clients_cannot_starve_a_real_request():
    srv = start(max_connections=4)
    drippers = Drippers(srv.port, 4)
    try:
        time.sleep(1.5)  # every slot now holds a head that has been dripping for over a second
        assert_ping_answered(srv.port, within=3)
    finally:
        drippers.close()
        srv.close()


def test_a_request_head_must_arrive_within_the_header_deadline():
    srv = start(header_deadline=0.5, socket_timeout=5)
    try:
        with _connect(srv.port) as sock:
            stop = threading.Event()

            def drip():
                for byte in Drippers.HEAD:
                    if stop.wait(0.05):
                        return
                    try:
                        sock.sendall(bytes([byte]))
                    except OSError:
                        return

            dripper = threading.Thread(target=drip, daemon=True)
            dripper.start()
            assert _wait_closed(sock, 3) < 2  # each byte well within the socket timeout
            stop.set()
            dripper.join(5)
    finally:
        srv.close()


def test_an_idle_keep_alive_connection_is_closed():
    srv = start(keepalive_timeout=0.3, socket_timeout=5)
    try:
        with _connect(srv.port) as sock:
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert sock.recv(65536).startswith(b"HTTP/1.1 200")
            assert _wait_closed(sock, 3) < 2
    finally:
        srv.close()


def test_idle_keep_alive_connections_make_room_when_slots_run_out():
    srv = start(max_connections=2)
    held = []
    try:
        for _ in range(2):  # two clients keep their connection after one request
            sock = _connect(srv.port)
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert sock.recv(65536).startswith(b"HTTP/1.1 200")
            held.append(sock)
        assert_ping_answered(srv.port, within=3)
    finally:
        for sock in held:
            sock.close()
        srv.close()


# ---------------------------------------------------------------------------- HTTP: vanishing clients, log volume

def _reset(sock: socket.socket) -> None:
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()  # RST, not FIN


def test_reset_connections_are_debug_events_without_traceback(caplog):
    caplog.set_level(logging.DEBUG, logger="cruxe.http")
    srv = start()
    try:
        count = 20
        for _ in range(count):
            sock = _connect(srv.port)
            sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                         b"Content-Length: 100\r\n\r\n{\"jsonrpc\"")
            time.sleep(0.02)  # the server is now waiting for the rest of the body
            _reset(sock)
        deadline = time.monotonic() + 5
        while sum("ended" in r.getMessage() for r in caplog.records) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        assert http_request(srv.port, "GET", "/health")[0] == 200
    finally:
        srv.close()
    ended = [r for r in caplog.records if "ended" in r.getMessage()]
    assert len(ended) == count and {r.levelno for r in ended} == {logging.DEBUG}
    assert [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info] == []


@pytest.mark.slow
def test_the_connection_limit_warning_is_rate_limited_with_a_count(caplog):
    caplog.set_level(logging.WARNING, logger="cruxe.http")
    srv = start(max_connections=1, busy_warning_interval=0.5)
    busy = threading.Thread(target=http_request, args=(srv.port, "POST", "/mcp", dumps(
        rpc("tools/call", {"name": "slow", "arguments": {"steps": 1, "delay": 2}}))), daemon=True)
    try:
        busy.start()  # holds the only slot, answering (not waiting for its client)
        time.sleep(0.3)
        for _ in range(5):
            assert http_request(srv.port, "GET", "/health")[0] == 503
        time.sleep(0.6)
        assert http_request(srv.port, "GET", "/health")[0] == 503
    finally:
        busy.join(5)
        srv.close()
    warnings = [r.getMessage() for r in caplog.records if "connection limit" in r.getMessage()]
    assert len(warnings) == 2 and "4 more refused" in warnings[1]


# ---------------------------------------------------------------------------- HTTP: malformed requests

def raw_exchange(port: int, data: bytes) -> bytes:
    with _connect(port) as sock:
        sock.sendall(data)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
        return b"".join(chunks)


def _parse(response: bytes) -> tuple[int, dict[str, str], bytes]:
    head, _, body = response.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return int(lines[0].split(" ", 2)[1]), headers, body


@pytest.fixture(scope="module")
def server():
    with McpHttpServer(Dispatcher(ToyHost()), port=0) as srv:
        srv.start()
        yield srv


def _post(extra: bytes) -> bytes:
    return (b"POST /mcp HTTP/1.1\r\nContent-Type: application/json\r\n" + extra
            + b"Content-Length: %d\r\n\r\n" % len(PING) + PING)


@pytest.mark.parametrize("extra,status", [
    (b"Host: a\r\nOrigin: http://127.0.0.1\r\nOrigin: http://evil.example\r\n", 403),
    (b"Host: a\r\nOrigin: http://evil.example\r\nOrigin: http://127.0.0.1\r\n", 403),
    (b"Host: a\r\nOrigin: http://127.0.0.1\r\nOrigin: http://127.0.0.1\r\n", 403),
    (b"Host: 127.0.0.1\r\nHost: evil.example\r\n", 400),
    (b"Host: a\r\nAuthorization: Bearer x\r\nAuthorization: Bearer y\r\n", 400),
    (b"Host: a\r\nContent-Length: %d\r\n" % len(PING), 400),
])
def test_a_header_with_one_meaning_sent_twice_is_refused(server, extra, status):
    got, headers, body = _parse(raw_exchange(server.port, _post(extra)))
    assert got == status and headers["content-type"] == "application/json"
    assert "more than one" in json.loads(body)["error"]["message"]


@pytest.mark.parametrize("line,status", [
    (b"GARBAGE\r\n\r\n", 400),
    (b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", 400),  # a TLS hello sent to plain HTTP
    (b"GET /health\r\n\r\n", 400),  # HTTP/0.9
    (b"GET /health HTTP/9.9\r\nHost: a\r\n\r\n", 505),
    (b"GET /health SPDY/3\r\nHost: a\r\n\r\n", 400),
    (b"BREW /mcp HTTP/1.1\r\nHost: a\r\n\r\n", 501),
])
def test_a_garbage_request_line_gets_a_json_error_never_html(server, line, status):
    got, headers, body = _parse(raw_exchange(server.port, line))
    assert got == status and headers["content-type"] == "application/json"
    assert b"<" not in body and json.loads(body)["error"]["code"] == -32600


# ---------------------------------------------------------------------------- HTTP: bind errors

def test_a_port_in_use_is_a_clear_error():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(CruxeError) as info:
            serve_http(Dispatcher(ToyHost()), port=port)
    assert info.value.code == "invalid_input" and "already in use" in info.value.message
    assert "--port" in info.value.remedy


@pytest.mark.parametrize("bind", ["192.0.2.1"])  # TEST-NET-1: never assigned, nothing sent
def test_an_address_not_of_this_machine_is_a_clear_error(bind):
    with pytest.raises(CruxeError) as info:
        serve_http(Dispatcher(ToyHost()), host=bind, port=0, token="t")
    assert "not an address of this machine" in info.value.message and "--bind" in info.value.remedy


def _serve_mcp(repo, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cruxe", "serve-mcp", "--path", str(repo), "--transport", "http",
                           *args], capture_output=True, text=True, timeout=30)


@pytest.mark.parametrize("port", ["99999", "-1", "http"])
def test_serve_mcp_refuses_a_bad_port(make_repo, port):
    result = _serve_mcp(make_repo({"a.py": "x = 1\n"}), "--port", port)
    assert result.returncode == 2 and "--port" in result.stderr and "0-65535" in result.stderr
    assert "Traceback" not in result.stderr


def test_serve_mcp_on_a_port_in_use_exits_2_with_a_remedy(make_repo):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        result = _serve_mcp(make_repo({"a.py": "x = 1\n"}), "--port", str(taken.getsockname()[1]))
    assert result.returncode == 2, result.stderr
    assert "error[invalid_input]" in result.stderr and "already in use" in result.stderr
    assert "remedy:" in result.stderr and "internal_error" not in result.stderr


# ---------------------------------------------------------------------------- stdio: cancellation, EOF

import io  # noqa: E402
import os  # noqa: E402
import queue  # noqa: E402

from support.transport import StdioProcess, server_env  # noqa: E402
from cruxe.jsonrpc import serve_stdio  # noqa: E402


def _wait_call(msg_id, seconds: float) -> dict:
    return rpc("tools/call", {"name": "wait", "arguments": {"seconds": seconds},
                              "_meta": {"progressToken": f"p{msg_id}"}}, msg_id)


class SlowStdin(io.RawIOBase):
    """Lines given one at a time with a pause before each, then EOF: a client still typing."""

    def __init__(self, lines: list[bytes], pause: float):
        super().__init__()
        self._lines, self._pause = list(lines), pause

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if not self._lines:
            return 0
        time.sleep(self._pause)
        line = self._lines.pop(0)
        buffer[:len(line)] = line
        return len(line)


def test_a_cancelled_call_stops_waiting_and_gets_no_reply():
    lines = [dumps(_wait_call(5, 30)) + b"\n",
             dumps(rpc("notifications/cancelled", {"requestId": 5, "reason": "user"}, msg_id=None)) + b"\n",
             dumps(rpc("ping", msg_id=6)) + b"\n"]
    out = io.BytesIO()
    started = time.monotonic()
    serve_stdio(Dispatcher(ToyHost()), io.BufferedReader(SlowStdin(lines, 0.2)), out)
    assert time.monotonic() - started < 5  # the tool would have waited 30 s
    assert [json.loads(line).get("id") for line in out.getvalue().splitlines()] == [6]


def test_a_cancel_for_another_id_leaves_the_call_answered():
    lines = [dumps(_wait_call("w", 0.5)) + b"\n",
             dumps(rpc("notifications/cancelled", {"requestId": "x"}, msg_id=None)) + b"\n"]
    out = io.BytesIO()
    serve_stdio(Dispatcher(ToyHost()), io.BufferedReader(SlowStdin(lines, 0.05)), out)
    reply = json.loads(out.getvalue())
    assert reply["id"] == "w" and reply["result"]["structuredContent"] == {"cancelled": True}  # by the EOF


def test_stdin_eof_stops_a_long_wait_and_exits_promptly():
    server = StdioProcess()
    try:
        server.send(_wait_call("long", 120))
        server.send(rpc("ping", msg_id="p"))
        assert server.read()["id"] == "p"  # the wait has started
        started = time.monotonic()
        server.proc.stdin.close()
        server.proc.wait(timeout=5)
        assert time.monotonic() - started < 3
        reply = server.read()  # the answer still goes out: a client may close stdin and read on
        assert reply["id"] == "long" and reply["result"]["structuredContent"] == {"cancelled": True}
    finally:
        server.close()


# ---------------------------------------------------------------------------- stdio: the reader never blocks

class CruxeStdio:
    """A real `cruxe serve-mcp` on stdio, stdout lines queued."""

    def __init__(self, repo) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "cruxe", "serve-mcp", "--path", str(repo)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     env=server_env())
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=lambda: [self.lines.put(line) for line in self.proc.stdout], daemon=True).start()

    def ask(self, message: dict, timeout: float) -> dict:
        self.proc.stdin.write(dumps(message) + b"\n")
        self.proc.stdin.flush()
        return json.loads(self.lines.get(timeout=timeout))

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


def test_a_fifo_as_git_head_never_keeps_initialize_or_ping_from_being_answered(make_repo):
    repo = make_repo({"a.py": "def alpha():\n    pass\n"})
    (repo / ".git").mkdir()
    os.mkfifo(repo / ".git" / "HEAD")  # opening it for reading blocks until a writer comes
    server = CruxeStdio(repo)
    try:
        started = time.monotonic()
        reply = server.ask(rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                              "clientInfo": {"name": "t", "version": "0"}}, msg_id=1), timeout=10)
        assert reply["result"]["serverInfo"]["name"] == "cruxe"
        server.proc.stdin.write(dumps(rpc("notifications/initialized", msg_id=None)) + b"\n")  # starts prewarm
        for i in range(3):
            assert server.ask(rpc("ping", msg_id=f"p{i}"), timeout=5)["id"] == f"p{i}"
        assert time.monotonic() - started < 5
    finally:
        server.close()


def test_the_wait_finds_its_own_job_among_many_newer_ones(make_repo, monkeypatch):
    """The wait asks for its own job id: it used to scan the project's 20 newest jobs, so a job
    with 20 newer rows (other refs, recovered runs) was never seen and answered `queued`."""
    root = make_repo({"a.py": "def alpha():\n    pass\n"})
    children: list[subprocess.Popen] = []

    def spawn(root, home, *, ref, force, job_id):
        from cruxe.project import open_project

        store = open_project(root, home).store
        store.create_job(job_id, ref, "full", 1)
        for i in range(25):
            store.create_job(f"other{i:02d}", f"other-ref-{i}", "full", 1)
        children.append(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"]))
        return children[-1]

    monkeypatch.setattr(jobs, "spawn_index_job", spawn)
    try:
        payload, is_error = tools.Server(root).call_tool("index_repo", {})
        assert not is_error and payload["status"] == "running", payload
    finally:
        for child in children:
            child.kill()
            child.wait()
        jobs._SPAWNED.clear()
