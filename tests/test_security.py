"""Confinement and transport guards, through the real tools and the real server.

Paths: every argument that names a file or a workspace stays inside the repository, and no
byte of a file outside the repository ever reaches an answer: a unique canary is planted
outside the tree behind every kind of symlink (file, directory, ignore files), and then
looked for through every tool and every CLI command. A positive control (the same kinds of
link, pointing inside the tree) proves the probes would see the bytes if they were indexed.
HTTP: the real `cruxe serve-mcp --transport http` (the toy-host transport tests are in
test_http.py): loopback bind, foreign Origin, bearer token, body and header limits, and a
silent client that must not block a real tool call.
"""
from __future__ import annotations

import http.client
import json
import os
import re
import secrets
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cruxe.index import WorkItem, process_file, run_index
from cruxe.model import Skipped
from cruxe.project import open_project
from cruxe.scan import scan
from cruxe.tools import Server

# unique per run, letters only (one search token whatever the identifier splitting)
TOKEN_PART = "".join(secrets.choice("bcdfghjklmnpqrstvwxz") for _ in range(12))
CANARY = f"canary_{TOKEN_PART}"
INSIDE = f"inside_{TOKEN_PART}"


def _outside_tree(base: Path) -> Path:
    out = base / "outside"
    (out / "pkg").mkdir(parents=True)
    code = f'{CANARY}_CONST = "{CANARY} secret bytes"\n\ndef {CANARY}_fn():\n    return "{CANARY}"\n'
    (out / "secret.py").write_text(code)
    (out / "pkg" / "mod.py").write_text(code)
    # ignore files whose only line is an invalid pattern: a scanner that reads them echoes it
    (out / "ignore").write_text(f"{CANARY}\\\n")
    return out


def _repo_with_links(base: Path, outside: Path) -> Path:
    repo = base / "repo"
    (repo / "src" / "sub").mkdir(parents=True)
    (repo / "src" / "a.py").write_text("def alpha():\n    return 1\n")
    (repo / "real").mkdir()
    (repo / "real" / "inside.py").write_text(f'{INSIDE}_CONST = "{INSIDE}"\n\ndef {INSIDE}_fn():\n    pass\n')
    links = {
        "leak.py": outside / "secret.py",                      # file symlink, absolute
        "src/rel_leak.py": Path("../../outside/secret.py"),   # file symlink, relative
        "linkdir": outside / "pkg",                           # directory symlink
        ".cruxeignore": outside / "ignore",                   # ignore files
        "src/sub/.gitignore": outside / "ignore",
        "loop": Path("."),                                    # a loop
        "inside_link.py": Path("real/inside.py"),             # positive control: stays inside
    }
    for rel, target in links.items():
        os.symlink(target, repo / rel)
    return repo


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    base = tmp_path_factory.mktemp("canary")
    outside = _outside_tree(base)
    repo = _repo_with_links(base, outside)
    home = base / "home"
    env = {**os.environ, "CRUXE_HOME": str(home)}
    index = subprocess.run([sys.executable, "-m", "cruxe", "index", "--path", str(repo), "--json"], env=env,
                           capture_output=True, text=True, timeout=120)
    assert index.returncode == 0, index.stderr
    return {"repo": repo, "home": home, "env": env, "index_out": index.stdout + index.stderr}


def _tool_probes() -> list[tuple[str, dict]]:
    """Calls that would surface the planted bytes if they had been indexed. The probes name
    the token part only, so an echo of the request can never look like a leak."""
    probes: list[tuple[str, dict]] = []
    for marker in ("canary", "inside"):
        for q in (TOKEN_PART, f"{marker.lower()} {TOKEN_PART}", f"{TOKEN_PART}_fn", "secret bytes"):
            for detail in ("location", "context"):
                probes.append(("search_code", {"query": q, "detail_level": detail, "limit": 100}))
        probes.append(("locate_symbol", {"name": f"{marker.lower()}_{TOKEN_PART[:6]}", "limit": 100}))
    for path in ("leak.py", "src/rel_leak.py", "linkdir/mod.py", "loop/leak.py", "loop/src/a.py", "inside_link.py"):
        probes.append(("get_file_outline", {"path": path}))
    probes += [("find_references", {"symbol_name": "_fn"}), ("health_check", {}), ("index_status", {}),
               ("sync_repo", {})]
    return probes


def _probe(server: Server) -> tuple[str, set[str]]:
    """Every probe's payload as one text, and every result path any probe returned."""
    texts, paths = [], set()
    for tool, args in _tool_probes():
        payload, _ = server.call_tool(tool, args)
        texts.append(json.dumps(payload, ensure_ascii=False))
        paths |= {r["path"] for r in [*payload.get("results", ()), *payload.get("references", ())]}
    return "\n".join(texts), paths


def test_positive_control_inside_bytes_are_found_by_the_probes(planted):
    """Without this, the canary test below could pass because the probes see nothing."""
    blob, paths = _probe(Server(planted["repo"], home=planted["home"]))
    assert blob.count(INSIDE) >= 3, blob[:2000]
    assert "inside_link.py" in paths  # a symlink that stays inside the tree is indexed


def test_no_byte_outside_the_repository_reaches_any_tool_answer(planted):
    blob, paths = _probe(Server(planted["repo"], home=planted["home"]))
    assert CANARY not in blob, blob[blob.find(CANARY) - 300: blob.find(CANARY) + 300]
    assert not paths & {"leak.py", "src/rel_leak.py"}, paths
    assert not [p for p in paths if p.startswith(("linkdir/", "loop/"))], paths


def test_no_byte_outside_the_repository_reaches_any_cli_output(planted):
    assert CANARY not in planted["index_out"]
    outputs = []
    for cmd in (["doctor"], ["tags", "--json"], ["search", TOKEN_PART, "--json"], ["locate", "_fn", "--json"],
                ["outline", "leak.py", "--json"], ["index", "--force", "--json"]):
        p = subprocess.run([sys.executable, "-m", "cruxe", *cmd, "--path", str(planted["repo"])],
                           env=planted["env"], capture_output=True, text=True, timeout=120)
        outputs.append(p.stdout + p.stderr)
    blob = "\n".join(outputs)
    assert CANARY not in blob, blob[blob.find(CANARY) - 300: blob.find(CANARY) + 300]
    assert INSIDE in blob  # the same commands do show indexed bytes


def test_scanner_names_each_refused_link(planted):
    result = scan(planted["repo"])
    paths = {f.path for f in result.files}
    assert "inside_link.py" in paths and "real/inside.py" in paths
    assert not paths & {"leak.py", "src/rel_leak.py"} and not any(p.startswith(("linkdir/", "loop/")) for p in paths)
    text = "\n".join(result.warnings)
    for rel in ("leak.py", "src/rel_leak.py", ".cruxeignore", "src/sub/.gitignore"):
        assert f"{rel}: symlink points outside the repository" in text, text


def test_a_file_swapped_for_an_outside_symlink_after_the_scan_is_not_read(tmp_path):
    """The scan admitted a regular file; before a worker reads it, it becomes a symlink out of
    the tree (or an in-tree symlink is re-pointed out). The worker must refuse to follow it."""
    outside = _outside_tree(tmp_path)
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "inner.py").write_text("def inner():\n    pass\n")
    os.symlink(outside / "secret.py", repo / "a.py")
    os.symlink(repo / "inner.py", repo / "b.py")
    os.remove(repo / "b.py")
    os.symlink(outside / "pkg" / "mod.py", repo / "b.py")
    for rel in ("a.py", "b.py"):
        out = process_file(WorkItem("r", "live", rel, str(repo / rel), 10, 0, "python", None, str(repo)))
        assert isinstance(out, Skipped) and "outside the repository" in out.warning, out
        assert CANARY not in json.dumps(out)
    ok = process_file(WorkItem("r", "live", "inner.py", str(repo / "inner.py"), 10, 0, "python", None, str(repo)))
    assert [row[2] for row in ok.docs.symbol_rows] == ["inner"]  # (symbol_id, stable id, name, ...)


# ---- path and workspace arguments -----------------------------------------------------------

@pytest.fixture(scope="module")
def server(planted):
    return Server(planted["repo"], home=planted["home"])


@pytest.mark.parametrize("path,code", [
    ("../outside/secret.py", "invalid_input"),
    ("src/../../outside/secret.py", "invalid_input"),
    ("..\\outside\\secret.py", "invalid_input"),
    ("/etc/passwd", "invalid_input"),
    ("\\etc\\passwd", "invalid_input"),
    ("C:\\Windows\\win.ini", "invalid_input"),
    ("src/a.py\x00.txt", "invalid_input"),
    ("x" * 4097, "invalid_input"),
    ("a/" * 2000 + "a.py", "file_not_found"),
    ("src/nope.py", "file_not_found"),
    ("leak.py", "file_not_found"),
    ("linkdir/mod.py", "file_not_found"),
    ("loop/src/a.py", "file_not_found"),
])
def test_outline_path_confinement(server, path, code):
    payload, is_error = server.call_tool("get_file_outline", {"path": path})
    assert is_error and payload["error"]["code"] == code, payload
    for offered in payload["error"]["data"].get("candidates", []):  # only indexed files are offered
        assert not server.call_tool("get_file_outline", {"path": offered})[1], offered


def test_a_path_a_few_folders_off_is_answered_with_the_indexed_files_of_that_name(server):
    payload, is_error = server.call_tool("get_file_outline", {"path": "lib/src/a.py"})
    data = payload["error"]["data"]
    assert is_error and payload["error"]["code"] == "file_not_found" and data["candidates"] == ["src/a.py"], payload
    assert "src/a.py" in data["remedy"]
    fixed, is_error = server.call_tool("get_file_outline", {"path": data["candidates"][0]})
    assert not is_error and fixed["symbols"][0]["name"] == "alpha"


@pytest.mark.parametrize("path", ["src/a.py", "./src/a.py", "src//a.py", " src/a.py "])
def test_outline_accepts_spellings_of_an_inside_path(server, path):
    payload, is_error = server.call_tool("get_file_outline", {"path": path})
    assert not is_error and payload["file_path"] == "src/a.py" and payload["symbols"][0]["name"] == "alpha"


@pytest.mark.parametrize("path", ["../outside/secret.py", "/etc/passwd", "src/a.py\x00", "x" * 4097])
def test_find_references_path_confinement(server, path):
    payload, is_error = server.call_tool("find_references", {"symbol_name": "alpha", "path": path})
    assert is_error and payload["error"]["code"] == "invalid_input", payload


@pytest.mark.parametrize("tool", ["locate_symbol", "search_code", "get_file_outline", "index_status",
                                  "health_check", "sync_repo", "index_repo", "find_references"])
@pytest.mark.parametrize("workspace,code", [
    ("relative/dir", "invalid_input"),
    ("../outside", "invalid_input"),
    ("/tmp\x00/x", "invalid_input"),
    ("/" + "x" * 4100, "invalid_input"),
    ("/nonexistent/cruxe/ws", "workspace_not_registered"),
    ("/etc", "workspace_not_registered"),
    ("/etc/passwd", "workspace_not_registered"),
])
def test_workspace_confinement(server, tool, workspace, code):
    args = {"locate_symbol": {"name": "alpha"}, "search_code": {"query": "alpha"},
            "get_file_outline": {"path": "src/a.py"}, "find_references": {"symbol_name": "alpha"}}.get(tool, {})
    payload, is_error = server.call_tool(tool, {**args, "workspace": workspace})
    assert is_error and payload["error"]["code"] == code, payload


def test_outside_workspace_is_never_registered_or_indexed_by_a_tool(server, planted):
    outside = planted["repo"].parent / "outside"
    for tool in ("index_repo", "sync_repo"):
        payload, is_error = server.call_tool(tool, {"workspace": str(outside)})
        assert is_error and payload["error"]["code"] == "workspace_not_registered", payload
    assert not (planted["home"] / "data").exists() or len(list((planted["home"] / "data").iterdir())) == 1


@pytest.mark.parametrize("ref", ["../../escaped", "/tmp/escaped", "..", ".", "a/../../b", "x\\..\\..\\y", "~", "CON"])
def test_hostile_refs_stay_inside_the_project_data_directory(tmp_path, ref):
    repo, home = tmp_path / "repo", tmp_path / "home"
    repo.mkdir()
    (repo / "a.py").write_text("def alpha():\n    pass\n")
    run_index(repo, home=home, ref=ref, workers=1)
    data = open_project(repo, home).store.dir
    made = {p.resolve() for p in tmp_path.rglob("*")} - {p.resolve() for p in repo.rglob("*")} - {repo.resolve()}
    assert all(p == home.resolve() or str(p).startswith(str(home.resolve()) + os.sep) for p in made), made
    assert [p.name for p in (data / "refs").iterdir()] != [] and not (tmp_path / "escaped").exists()
    payload, is_error = Server(repo, home=home).call_tool("locate_symbol", {"name": "alpha", "ref": ref})
    assert not is_error and payload["results"][0]["path"] == "a.py" and payload["metadata"]["ref"] == ref


# ---- HTTP against the real server ------------------------------------------------------------

class RealHttp:
    def __init__(self, repo: Path, env: dict[str, str], *extra: str):
        self.proc = subprocess.Popen([sys.executable, "-m", "cruxe", "serve-mcp", "--transport", "http", "--port", "0",
                                      "--path", str(repo), *extra], env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 30
        self.host = self.port = None
        while time.monotonic() < deadline:
            m = re.search(r"http://([\d.]+):(\d+)/mcp", self.proc.stderr.readline())
            if m:
                self.host, self.port = m.group(1), int(m.group(2))
                break
        assert self.port, "HTTP server did not start"

    def post(self, body: bytes, headers: dict[str, str] | None = None, timeout: float = 30) -> tuple[int, dict]:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        try:
            conn.request("POST", "/mcp", body=body, headers={"Content-Type": "application/json", **(headers or {})})
            resp = conn.getresponse()
            raw = resp.read()
            return resp.status, json.loads(raw) if raw else {}
        finally:
            conn.close()

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


def _call(tool: str, args: dict, msg_id: int = 1) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": "tools/call",
                       "params": {"name": tool, "arguments": args}}).encode()


@pytest.fixture(scope="module")
def http_server(planted):
    srv = RealHttp(planted["repo"], planted["env"])
    yield srv
    srv.close()


@pytest.fixture(scope="module")
def token_server(planted):
    srv = RealHttp(planted["repo"], {**planted["env"], "CRUXE_HTTP_TOKEN": "s3cret-token"})
    yield srv
    srv.close()


def test_http_binds_loopback_by_default(http_server):
    assert http_server.host == "127.0.0.1"


def test_http_traversal_is_invalid_input_like_stdio(http_server):
    status, reply = http_server.post(_call("get_file_outline", {"path": "../outside/secret.py"}))
    assert status == 200 and reply["result"]["structuredContent"]["error"]["code"] == "invalid_input"


@pytest.mark.parametrize("origin,status", [("http://evil.example", 403), ("null", 403),
                                           ("http://127.0.0.1.evil.example", 403), ("http://localhost:3000", 200)])
def test_http_origin(http_server, origin, status):
    got, reply = http_server.post(_call("health_check", {}), {"Origin": origin})
    assert got == status
    if status == 200:
        assert reply["result"]["isError"] is False


@pytest.mark.parametrize("auth,status", [(None, 401), ("Bearer wrong", 401), ("Basic s3cret-token", 401),
                                         ("Bearer s3cret-token", 200), ("bearer s3cret-token", 200)])
def test_http_bearer_token_from_the_environment(token_server, auth, status):
    got, reply = token_server.post(_call("locate_symbol", {"name": "alpha"}), {"Authorization": auth} if auth else {})
    assert got == status
    if status == 200:
        assert reply["result"]["structuredContent"]["results"][0]["name"] == "alpha"
    else:
        assert "results" not in json.dumps(reply)


def test_http_body_over_the_cap_is_refused_unread(http_server):
    # announce 5 MiB but send nothing: the server must answer from the header alone
    with socket.create_connection((http_server.host, http_server.port), timeout=10) as s:
        s.sendall(b"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 5242880\r\n\r\n")
        assert s.recv(4096).startswith(b"HTTP/1.1 413")


def test_http_header_limits(http_server):
    many = b"".join(b"X-H%d: v\r\n" % i for i in range(150))
    with socket.create_connection((http_server.host, http_server.port), timeout=10) as s:
        s.sendall(b"POST /mcp HTTP/1.1\r\nHost: x\r\n" + many + b"\r\n")
        assert s.recv(4096).split(b" ")[1] == b"431"
    with socket.create_connection((http_server.host, http_server.port), timeout=10) as s:
        s.sendall(b"POST /mcp HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 70_000 + b"\r\n\r\n")
        assert s.recv(4096).split(b" ")[1] in (b"400", b"431")


def test_http_silent_and_half_open_clients_do_not_block_a_real_query(http_server):
    silent = [socket.create_connection((http_server.host, http_server.port), timeout=10) for _ in range(8)]
    try:
        for i, s in enumerate(silent):
            if i % 2:
                s.sendall(b"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
        t = time.monotonic()
        status, reply = http_server.post(_call("locate_symbol", {"name": "alpha"}), timeout=5)
        assert status == 200 and reply["result"]["structuredContent"]["results"][0]["name"] == "alpha"
        assert time.monotonic() - t < 5
    finally:
        for s in silent:
            s.close()
