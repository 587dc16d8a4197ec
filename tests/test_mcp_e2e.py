"""End to end: the real `cruxe serve-mcp` driven by the official MCP SDK client, over stdio and
over HTTP. The same failure must give the same error code on both transports."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest

from support.locations import FIXTURES, STDLIB, require_corpus
from cruxe.shape import full_metadata

from cruxe.query import signals as sig

TRANSPORTS = ["stdio", "http"]
ALL_TOOLS = {"index_repo", "sync_repo", "search_code", "locate_symbol", "get_file_outline",
             "find_references", "health_check", "index_status"}


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """An indexed repository (stdlib json + per-language fixtures) and its CRUXE_HOME."""
    require_corpus(STDLIB / "json")
    base = tmp_path_factory.mktemp("e2e")
    repo = base / "repo"
    shutil.copytree(STDLIB / "json", repo / "json")
    for lang in ("go", "rust", "typescript"):
        src = FIXTURES / lang
        if src.is_dir():
            shutil.copytree(src, repo / "fixtures" / lang)
    home = base / "home"
    env = {**os.environ, "CRUXE_HOME": str(home)}
    subprocess.run([sys.executable, "-m", "cruxe", "index", "--path", str(repo), "--quiet"], env=env, check=True)
    unindexed = base / "unindexed"
    (unindexed / "pkg").mkdir(parents=True)
    (unindexed / "pkg" / "a.py").write_text("def a():\n    pass\n")
    subprocess.run([sys.executable, "-m", "cruxe", "init", "--path", str(unindexed)], env=env, check=True,
                   capture_output=True)
    return {"repo": repo, "home": home, "env": env, "unindexed": unindexed}


class HttpServer:
    def __init__(self, repo: Path, env: dict[str, str]):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "cruxe", "serve-mcp", "--transport", "http", "--port", "0", "--path", str(repo)],
            env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 20
        self.url = None
        while time.monotonic() < deadline and self.url is None:
            line = self.proc.stderr.readline()
            m = re.search(r"(http://\S+/mcp)", line)
            if m:
                self.url = m.group(1)
        assert self.url, "HTTP server did not start"

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


@pytest.fixture(scope="module")
def http_servers(world):
    servers: dict[str, HttpServer] = {}

    def get(which: str) -> HttpServer:
        if which not in servers:
            servers[which] = HttpServer(world[which], world["env"])
        return servers[which]

    yield get
    for s in servers.values():
        s.close()


def run_session(world, http_servers, transport: str, fn, which: str = "repo"):
    """Run `fn(client)` in a fresh MCP client session over the given transport."""
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    if transport == "stdio":
        target = StdioServerParameters(command=sys.executable,
                                       args=["-m", "cruxe", "serve-mcp", "--path", str(world[which])],
                                       env=world["env"])
    else:
        target = http_servers(which).url

    async def session():
        async with Client(target, read_timeout_seconds=30) as client:
            return await fn(client)

    return anyio.run(session)


def payload(result) -> dict:
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


def call(world, http_servers, transport, tool, args, which="repo"):
    async def fn(client):
        return payload(await client.call_tool(tool, args))
    return run_session(world, http_servers, transport, fn, which)


def error_code(p: dict) -> str:
    assert set(p) == {"error", "metadata"}, p
    assert p["error"]["data"].get("remedy")
    return p["error"]["code"]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_handshake_and_tool_list(world, http_servers, transport):
    async def fn(client):
        tools = await client.list_tools()
        return client.server_info.name, client.instructions, [t.model_dump(exclude_none=True, by_alias=True) for t in tools.tools]

    name, instructions, tools = run_session(world, http_servers, transport, fn)
    assert name == "cruxe" and "locate_symbol" in instructions
    assert {t["name"] for t in tools} == ALL_TOOLS
    for t in tools:
        assert t["description"] and t["inputSchema"]["type"] == "object"
        assert t["inputSchema"]["additionalProperties"] is False
    listing = json.dumps({"tools": [{"name": t["name"], "description": t["description"],
                                     "inputSchema": t["inputSchema"]} for t in tools]}, separators=(",", ":"))
    assert len(listing) <= 8000, len(listing)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_locate_symbol_detail_levels_and_compact(world, http_servers, transport):
    async def fn(client):
        out = {}
        for level in ("location", "signature", "context"):
            out[level] = payload(await client.call_tool("locate_symbol", {"name": "JSONDecoder", "detail_level": level}))
        out["compact"] = payload(await client.call_tool("locate_symbol", {"name": "JSONDecoder",
                                                                          "detail_level": "context", "compact": True}))
        return out

    out = run_session(world, http_servers, transport, fn)
    top = out["signature"]["results"][0]
    assert (top["path"], top["name"], top["kind"]) == ("json/decoder.py", "JSONDecoder", "class")
    assert top["signature"].startswith("class JSONDecoder")
    # a top-level class's qualified name is its module and name: left out at `signature`
    assert "qualified_name" not in top and "language" not in top and "score" not in top
    loc = out["location"]["results"][0]
    assert list(loc) == ["path", "line_start", "line_end", "kind", "name"]  # FR-102: only these
    ctx = out["context"]["results"][0]
    assert "body_preview" in ctx and "class JSONDecoder" in ctx["body_preview"]
    assert ctx["qualified_name"] == "json.decoder.JSONDecoder" and ctx["language"] == "python"
    compact = out["compact"]["results"][0]
    assert "body_preview" not in compact and compact["symbol_stable_id"] == ctx["symbol_stable_id"]
    meta = out["signature"]["metadata"]
    assert meta == {"cruxe_protocol_version": "1.0", "ref": "live"}  # all normal: the rest left out
    assert "suggested_next_actions" not in out["signature"]  # found, complete: nothing to suggest


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_search_code_reports_intent_and_leaves_semantic_off_out(world, http_servers, transport):
    p = call(world, http_servers, transport, "search_code",
             {"query": "JSONDecodeError", "ranking_explain_level": "full"})
    assert p["query_intent"]["intent"] == "symbol"
    assert p["results"][0]["name"] == "JSONDecodeError"
    assert len(p["results"]) <= 5  # the default limit
    meta = p["metadata"]
    assert not any(k.startswith("semantic_") for k in meta)  # no backend: DEPARTURES.md
    reasons = meta["ranking_reasons"]
    exact = sig.EXACT_MATCH_BOOST + sig.EXACT_CASE_BOOST  # the name as written in the code
    assert len(reasons) == len(p["results"]) and reasons[0]["exact_match_boost"] == exact


# What CONTRACTS.md requires of each payload, less what DEPARTURES.md lets a lean answer leave out
# (`suggested_next_actions` when there is nothing to suggest, status fields at their normal value).
CONTRACT_KEYS = {
    "search_code": {"results", "query_intent", "total_candidates", "metadata"},
    "locate_symbol": {"results", "total_candidates", "metadata"},
    "get_file_outline": {"file_path", "language", "symbols", "metadata"},
    "find_references": {"references", "metadata"},
    "index_status": {"project_id", "repo_root", "index_status", "ref", "schema_status", "file_count",
                     "symbol_count", "metadata"},
}
CONTRACT_CALLS = [
    ("search_code", {"query": "decode a JSON document"}), ("search_code", {"query": "JSONDecoder"}),
    ("search_code", {"query": "zzqxnothinglikethis"}), ("locate_symbol", {"name": "JSONDecoder"}),
    ("locate_symbol", {"name": "nothing_like_this"}), ("get_file_outline", {"path": "json/decoder.py"}),
    ("find_references", {"symbol_name": "scanstring"}), ("index_status", {}),
]


def test_every_answer_carries_what_the_contract_requires(world, http_servers):
    async def fn(client):
        return [payload(await client.call_tool(tool, args)) for tool, args in CONTRACT_CALLS]

    answers = run_session(world, http_servers, "stdio", fn)
    for (tool, args), p in zip(CONTRACT_CALLS, answers):
        assert CONTRACT_KEYS[tool] <= set(p), (tool, args, sorted(p))
        meta = p["metadata"]
        assert meta["cruxe_protocol_version"] == "1.0" and meta["ref"] == "live", (tool, meta)
        full = full_metadata(meta)
        assert full["freshness_status"] in ("fresh", "stale", "syncing")
        assert full["indexing_status"] in ("not_indexed", "indexing", "ready", "failed")
        assert full["result_completeness"] in ("complete", "partial", "truncated")
        assert full["schema_status"] in ("compatible", "not_indexed", "reindex_required", "corrupt_manifest")
        for r in p.get("results", []):  # FR-102's location fields on every default result
            assert {"path", "line_start", "line_end", "name"} <= set(r) and ("kind" in r or "result_type" in r)
        for a in p.get("suggested_next_actions", []):
            assert a["tool"] in ALL_TOOLS and isinstance(a["arguments"], dict) and a["reason"]
    nothing = answers[CONTRACT_CALLS.index(("locate_symbol", {"name": "nothing_like_this"}))]
    assert nothing["suggested_next_actions"][0]["tool"] == "search_code"


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_outline_nested_and_top(world, http_servers, transport):
    full = call(world, http_servers, transport, "get_file_outline", {"path": "json/decoder.py"})
    top = call(world, http_servers, transport, "get_file_outline", {"path": "json/decoder.py", "depth": "top"})
    cls = next(s for s in full["symbols"] if s["name"] == "JSONDecoder")
    assert {c["name"] for c in cls["children"]} >= {"__init__", "decode", "raw_decode"}
    assert all("children" not in s for s in top["symbols"])
    assert full["metadata"]["symbol_count"] > top["metadata"]["symbol_count"]
    assert full["language"] == "python" and full["file_path"] == "json/decoder.py"


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("tool,args,code", [
    ("get_file_outline", {"path": "json/nope.py"}, "file_not_found"),
    ("get_file_outline", {"path": "../outside.py"}, "invalid_input"),
    ("get_file_outline", {"path": "/etc/passwd"}, "invalid_input"),
    ("get_file_outline", {"path": "json/\x00decoder.py"}, "invalid_input"),
    ("search_code", {"query": "x", "kind": "struct"}, "invalid_input"),
    ("search_code", {"query": "   "}, "invalid_input"),
    ("search_code", {"query": "x", "limit": 0}, "invalid_input"),
    ("search_code", {"query": "x", "detail_level": "everything"}, "invalid_input"),
    ("locate_symbol", {}, "invalid_input"),
    ("locate_symbol", {"name": "x", "kind": "gizmo"}, "invalid_input"),
    ("locate_symbol", {"name": 42}, "invalid_input"),
    ("locate_symbol", {"name": "x", "workspace": "relative/path"}, "invalid_input"),
    ("locate_symbol", {"name": "x", "workspace": "/nonexistent/ws"}, "workspace_not_registered"),
])
def test_errors_are_the_same_code_on_both_transports(world, http_servers, transport, tool, args, code):
    async def fn(client):
        r = await client.call_tool(tool, args)
        assert r.is_error is True
        return payload(r)

    assert error_code(run_session(world, http_servers, transport, fn)) == code


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_unindexed_project_answers_index_not_ready(world, http_servers, transport):
    async def fn(client):
        r = payload(await client.call_tool("locate_symbol", {"name": "a"}))
        h = payload(await client.call_tool("health_check", {}))
        return client.instructions, r, h

    instructions, r, h = run_session(world, http_servers, transport, fn, which="unindexed")
    assert "not indexed" in instructions
    assert error_code(r) == "index_not_ready"
    assert h["startup_checks"]["index"]["status"] == "not_indexed"


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_health_and_status(world, http_servers, transport):
    async def fn(client):
        deadline = time.monotonic() + 10
        while True:
            h = payload(await client.call_tool("health_check", {}))
            if h["prewarm_status"] not in ("pending", "warming") or time.monotonic() > deadline:
                break
            await anyio.sleep(0.05)
        s = payload(await client.call_tool("index_status", {}))
        return h, s

    h, s = run_session(world, http_servers, transport, fn)
    assert h["status"] == "ready" and h["prewarm_status"] == "complete"
    assert h["tantivy_ok"] and h["sqlite_ok"] and not h["grammars"]["missing"]
    from cruxe.store import SCHEMA_VERSION
    assert h["startup_checks"]["index"] == {"status": "compatible", "current_schema_version": SCHEMA_VERSION,
                                            "required_schema_version": SCHEMA_VERSION, "message": None}
    assert s["index_status"] == "ready" and s["file_count"] >= 5 and s["symbol_count"] > 50
    assert s["recent_jobs"][0]["status"] == "published"


def test_corrupt_index_gives_index_incompatible_until_force_rebuild(tmp_path, make_repo):
    from cruxe.index import run_index
    from cruxe.project import open_project
    from cruxe.tools import Server

    root = make_repo({"a.py": "def alpha():\n    pass\n"})
    run_index(root)
    project = open_project(root)
    (project.store.ref_dir("live") / "CURRENT").write_text("garbage\n")
    server = Server(root)
    p, is_error = server.call_tool("locate_symbol", {"name": "alpha"})
    assert is_error and p["error"]["code"] == "index_incompatible"
    assert p["error"]["data"]["remediation"] == "cruxe index --force"
    h, _ = server.call_tool("health_check", {})
    assert h["startup_checks"]["index"]["status"] == "corrupt_manifest" and h["status"] == "error"
    assert "index --force" in server.instructions()
    doctor = subprocess.run([sys.executable, "-m", "cruxe", "doctor", "--path", str(root)], capture_output=True,
                            text=True)
    assert doctor.returncode == 1 and "cruxe index --force" in doctor.stdout
    run_index(root, force=True)
    p, is_error = server.call_tool("locate_symbol", {"name": "alpha"})
    assert not is_error and p["results"][0]["name"] == "alpha"


def test_index_repo_runs_in_the_background_and_publishes(make_repo):
    from cruxe.tools import Server

    root = make_repo({"a.py": "def alpha():\n    pass\n"})
    server = Server(root)
    p, is_error = server.call_tool("index_repo", {})
    assert not is_error and p["mode"] == "full" and p["job_id"]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        s, _ = server.call_tool("index_status", {})
        if s["recent_jobs"] and s["recent_jobs"][0]["status"] == "published":
            break
        time.sleep(0.1)
    assert s["recent_jobs"][0]["job_id"] == p["job_id"] and s["symbol_count"] == 1
    p2, _ = server.call_tool("sync_repo", {}, None)
    assert p2["mode"] == "incremental"


def test_index_repo_with_progress_follows_the_job(make_repo):
    from cruxe.tools import Server

    root = make_repo({f"m{i}.py": f"def f{i}():\n    pass\n" for i in range(20)})
    seen: list[tuple] = []
    p, is_error = Server(root).call_tool("index_repo", {}, lambda done, total, msg: seen.append((done, total, msg)))
    assert not is_error and p["status"] == "published" and p["file_count"] == 20
    assert seen and seen[-1][0] == 20.0


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t"})


def test_freshness_policies_on_a_git_repository(make_repo):
    from cruxe.index import run_index
    from cruxe.tools import Server

    root = make_repo({"a.py": "def alpha():\n    pass\n"})
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "one")
    run_index(root)
    server = Server(root)
    p, _ = server.call_tool("locate_symbol", {"name": "alpha", "freshness_policy": "strict"})
    assert full_metadata(p["metadata"])["freshness_status"] == "fresh" and p["metadata"]["ref"] == "main"
    assert "suggested_next_actions" not in p
    (root / "b.py").write_text("def beta():\n    pass\n")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "two")
    p, is_error = server.call_tool("locate_symbol", {"name": "alpha", "freshness_policy": "strict"})
    assert is_error and p["error"]["code"] == "index_stale"
    assert p["error"]["data"]["current_head"] != p["error"]["data"]["last_indexed_commit"]
    p, _ = server.call_tool("locate_symbol", {"name": "alpha", "freshness_policy": "best_effort"})
    assert p["metadata"]["freshness_status"] == "stale" and server._bg_sync_for is None
    assert p["suggested_next_actions"][0]["tool"] == "sync_repo"  # a stale answer says how to catch up
    p, _ = server.call_tool("locate_symbol", {"name": "alpha", "freshness_policy": "balanced"})
    assert p["results"][0]["name"] == "alpha" and p["metadata"]["freshness_status"] in ("stale", "syncing")
    started_for = server._bg_sync_for
    assert started_for is not None
    server.call_tool("locate_symbol", {"name": "alpha", "freshness_policy": "balanced"})
    assert server._bg_sync_for == started_for  # one background sync per stale state, not one per query
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        p, _ = server.call_tool("locate_symbol", {"name": "beta", "freshness_policy": "best_effort"})
        if p.get("results") and full_metadata(p["metadata"])["freshness_status"] == "fresh":
            break  # (visible earlier as `syncing`: data lands before the job ends)
        time.sleep(0.2)
    assert p["results"][0]["name"] == "beta" and "freshness_status" not in p["metadata"]
