"""Crash safety: SIGKILL `cruxe index`, `cruxe index --force` and `cruxe sync` at random
moments, then one `sync`: the index must equal a clean index of the same tree (symbols,
edges, manifest, every Tantivy document, search answers), no job may be left `running`, and
the recovery report must name the killed job. Damaged `state.db`, `index.db`, `CURRENT` and
Tantivy files: `doctor` names the problem (exit 1), query tools answer `index_incompatible`
with the remedy, and `cruxe index --force` repairs it.

CRUXE_INDEX_BATCH_FILES=5 gives many commit points on a small corpus. The harness is in
`support/crash.py`; `bench/crash_bench.py` runs many more kill moments than the CI cases here.
"""
from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from cruxe.health import doctor
from cruxe.index import run_index
from cruxe.project import open_project
from cruxe.tools import Server

from support.crash import (answer_items, assert_same, build_tree, cruxe, damage, kill_at_random, phantom_hits, prepare,
                           snapshot, target_file)
from support.locations import STDLIB, require_corpus
from support.stdio import StdioServer

pytestmark = pytest.mark.slow  # every test here kills or damages a real index


@pytest.fixture(scope="module")
def arena(tmp_path_factory):
    """One repository path for every scenario (symbol ids include the project id, which is
    the path) and a clean index of the final tree as the reference; an uninterrupted index +
    edits + sync must reach the same (so the edits are really picked up by a sync)."""
    require_corpus(STDLIB / "email")
    base = tmp_path_factory.mktemp("crash")
    root = base / "email"
    build_tree(root, final=True)
    clean_home, incr_home = base / "clean_home", base / "incremental_home"
    t = time.monotonic()
    assert cruxe("index", "--path", str(root), "--quiet", "--workers", "1", home=clean_home).returncode == 0
    seconds = time.monotonic() - t
    clean = snapshot(root, clean_home)
    prepare("sync", root, incr_home)
    assert cruxe("sync", "--path", str(root), "--quiet", home=incr_home).returncode == 0
    assert_same(snapshot(root, incr_home), clean)
    return {"root": root, "base": base, "reference": clean, "index_seconds": seconds}




# ---- SIGKILL at random moments ---------------------------------------------------------------------

def kill_then_sync(arena, scenario: str, home: Path, delay: float, after_files: int = 0) -> dict[str, Any]:
    root = arena["root"]
    cmd = prepare(scenario, root, home)
    job_id = f"killed{scenario}{int(delay * 1000)}x{after_files}"
    finished = kill_at_random([*cmd, "--path", str(root), "--quiet", "--workers", "1", "--job-id", job_id],
                              home, delay, after_files)
    project = open_project(root, home)
    killed = [j for j in project.store.jobs("live", 50) if j["job_id"] == job_id]
    status_before, _ = Server(root, home=home).call_tool("index_status", {})
    sync = cruxe("sync", "--path", str(root), "--json", home=home)
    assert sync.returncode == 0, sync.stderr
    report = json.loads(sync.stdout)
    assert report["status"] == "published"
    jobs = project.store.jobs("live", 50)
    assert not [j for j in jobs if j["status"] in ("queued", "running", "validating")], jobs
    if finished is None and killed and killed[0]["status"] == "running":  # killed mid-job: must be reported
        final = next(j for j in jobs if j["job_id"] == job_id)
        assert final["status"] == "interrupted", final
        reported = status_before["interrupted_recovery_report"] or {}
        assert job_id in {j["job_id"] for j in reported.get("jobs", [])}, status_before
        assert "re-indexes" in reported["action"]
    project.store.close()
    return {"finished": finished, "registered": bool(killed), "report": report}


@pytest.mark.parametrize("scenario,seed", [("index", 11), ("sync", 31)])  # more: bench/crash_bench.py
def test_sigkill_at_a_random_moment_then_sync_equals_a_clean_index(arena, tmp_path, scenario, seed):
    delay = random.Random(seed).uniform(0.25, 1.0) * arena["index_seconds"]
    kill_then_sync(arena, scenario, tmp_path / "home", delay)
    assert_same(snapshot(arena["root"], tmp_path / "home"), arena["reference"])
    assert phantom_hits(arena["root"], tmp_path / "home", arena["reference"]) == []


@pytest.mark.parametrize("scenario,after_files", [("index", 5), ("force", 10), ("sync", 5)])
def test_sigkill_right_after_a_commit_point_is_reported_and_repaired(arena, tmp_path, scenario, after_files):
    """A kill that surely lands mid-job (its first batches are committed): the job must be
    reported as interrupted and the next sync must finish the work exactly."""
    out = kill_then_sync(arena, scenario, tmp_path / "home", 0.0, after_files)
    assert out["finished"] is None and out["registered"]
    assert out["report"]["recovered_jobs"] == [] or out["report"]["recovered_jobs"][0]["status"] == "interrupted"
    assert_same(snapshot(arena["root"], tmp_path / "home"), arena["reference"])
    assert phantom_hits(arena["root"], tmp_path / "home", arena["reference"]) == []


@pytest.mark.parametrize("point", ["tantivy_commit_symbols:2", "tantivy_commit_snippets:1", "tantivy_commit_files:3",
                                   "sqlite_commit:2"])
def test_sigkill_at_a_named_point_of_a_sync_then_sync_equals_a_clean_index(arena, tmp_path, monkeypatch, point):
    """Kills exactly between two writes of the commit sequence (`store.crash_point`): after one
    index's Tantivy commit of a batch (the other indices not yet), or after its SQLite commit."""
    home, root = tmp_path / "home", arena["root"]
    cmd = prepare("sync", root, home)
    monkeypatch.setenv("CRUXE_CRASH_AT", point)
    killed = cruxe(*cmd, "--path", str(root), "--quiet", "--workers", "1", home=home)
    monkeypatch.delenv("CRUXE_CRASH_AT")
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    sync = cruxe("sync", "--path", str(root), "--json", home=home)
    assert sync.returncode == 0, sync.stderr
    assert json.loads(sync.stdout)["recovered_jobs"][0]["status"] == "interrupted"
    assert_same(snapshot(root, home), arena["reference"])
    assert phantom_hits(root, home, arena["reference"]) == []


def test_queries_keep_answering_from_the_old_generation_while_force_is_killed(arena, tmp_path):
    home = tmp_path / "home"
    root = arena["root"]
    prepare("force", root, home)
    # best_effort: a balanced query would sync the prepared edits itself (freshness sees files)
    quiet = {"name": "Message", "freshness_policy": "best_effort"}
    before = Server(root, home=home).call_tool("locate_symbol", quiet)
    assert not before[1] and before[0]["results"]
    kill_at_random(["index", "--force", "--path", str(root), "--quiet", "--workers", "1"], home,
                   0.6 * arena["index_seconds"])
    after = Server(root, home=home).call_tool("locate_symbol", quiet)
    assert not after[1] and answer_items(after) == answer_items(before)  # the live generation was never touched
    gens = sorted(p.name for p in open_project(root, home).store.ref_dir("live").glob("gen-*"))
    cruxe("sync", "--path", str(root), "--quiet", home=home)
    assert_same(snapshot(root, home), arena["reference"])
    assert len(gens) <= 2  # at most the live one and the abandoned rebuild


# ---- damaged files --------------------------------------------------------------------------------

# (target, how, doctor check that must fail, whether queries must refuse)
DAMAGE = [
    ("state.db", "truncate", "sqlite", True), ("state.db", "garbage", "sqlite", True),
    ("state.db", "flip", "sqlite", False),
    ("index.db", "truncate", "sqlite", True), ("index.db", "garbage", "sqlite", True),
    ("index.db", "flip", "sqlite", False),
    ("index.db", "empty", "index_compatible", True),
    ("CURRENT", "garbage", "index_compatible", True), ("CURRENT", "flip", "index_compatible", True),
    ("symbols.meta", None, "tantivy", True), ("snippets.term", "truncate", "tantivy", True),
    ("symbols.idx", "garbage", "tantivy", True), ("files.fast", "empty", "tantivy", True),
    ("snippets.store", "truncate", "tantivy", True), ("files.idx", "flip", "tantivy", False),
]


@pytest.fixture(scope="module")
def indexed_json(tmp_path_factory):
    require_corpus(STDLIB / "json")
    base = tmp_path_factory.mktemp("damage")
    shutil.copytree(STDLIB / "json", base / "repo", ignore=shutil.ignore_patterns("__pycache__"))
    # a separate process: its connections close at exit, so the WAL is checkpointed into the
    # main files and damage to them is not masked by newer page copies in the WAL
    assert cruxe("index", "--path", str(base / "repo"), "--quiet", home=base / "home").returncode == 0
    assert not list((base / "home").rglob("*.db-wal"))
    return base


@pytest.mark.parametrize("target,how,check,refused", DAMAGE)
def test_damaged_files_are_named_by_doctor_refused_by_queries_and_repaired_by_force(
        indexed_json, tmp_path, target, how, check, refused):
    root, home = indexed_json / "repo", tmp_path / "home"
    shutil.copytree(indexed_json / "home", home)
    if target == "symbols.meta":
        (target_file(root, home, "symbols.store").parent / "meta.json").write_text('{"segments": [')
    else:
        damage(target_file(root, home, target), how)
    report = doctor(open_project(root, home), "live")
    failing = {c["check"]: c for c in report["checks"] if not c["ok"]}
    assert not report["ok"] and check in failing, report
    assert all(c.get("remedy") for c in failing.values())
    server = Server(root, home=home)  # starts even on a damaged index (the handshake must work)
    payload, is_error = server.call_tool("locate_symbol", {"name": "JSONDecoder"})
    if refused:
        assert is_error and payload["error"]["code"] == "index_incompatible", payload
        assert payload["error"]["data"]["remediation"] == "cruxe index --force"
        assert "index --force" in server.instructions()
    for tool, args in (("search_code", {"query": "decode json document"}), ("get_file_outline", {"path": "decoder.py"}),
                       ("find_references", {"symbol_name": "JSONDecoder"}), ("health_check", {})):
        payload, is_error = server.call_tool(tool, args)  # an answer or the remedy, never internal_error
        assert not is_error or payload["error"]["code"] in ("index_incompatible", "symbol_not_found"), (tool, payload)
    run_index(root, home=home, force=True, workers=1)
    payload, is_error = Server(root, home=home).call_tool("locate_symbol", {"name": "JSONDecoder"})
    assert not is_error and payload["results"][0]["path"] == "decoder.py", payload
    payload, is_error = Server(root, home=home).call_tool("search_code", {"query": "decode json document"})
    assert not is_error and payload["results"], payload
    assert doctor(open_project(root, home), "live")["ok"]


def test_a_damaged_store_block_is_index_incompatible_not_internal_error(indexed_json, tmp_path):
    root, home = indexed_json / "repo", tmp_path / "home"
    shutil.copytree(indexed_json / "home", home)
    damage(target_file(root, home, "symbols.store"), "flip")
    payload, is_error = Server(root, home=home).call_tool("search_code", {"query": "decode json document"})
    assert is_error and payload["error"]["code"] == "index_incompatible", payload


def test_a_tantivy_panic_is_answered_and_the_server_stays_up(indexed_json, tmp_path, caplog):
    """Found by bench/crash_bench.py: 64 flipped bytes in the files index's .idx make Tantivy
    panic; pyo3's PanicException is a BaseException, so it escaped every `except Exception`
    and the stdio worker died without answering (the client waited forever)."""
    root, home = indexed_json / "repo", tmp_path / "home"
    shutil.copytree(indexed_json / "home", home)
    damage(target_file(root, home, "files.idx"), "flip")
    payload, is_error = Server(root, home=home).call_tool("search_code", {"query": "decode json"})
    assert "panicked" in caplog.text  # the damage really makes the engine panic (else pick another)
    assert is_error and payload["error"]["code"] == "index_incompatible", payload
    assert payload["error"]["data"]["remediation"] == "cruxe index --force"
    assert "files" in next(c for c in doctor(open_project(root, home), "live")["checks"] if c["check"] == "tantivy")["detail"]
    server = StdioServer(root, home)
    try:
        for i, (tool, args) in enumerate([("search_code", {"query": "decode json"}), ("health_check", {}),
                                          ("locate_symbol", {"name": "JSONDecoder"})]):
            server.send(json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                                    "params": {"name": tool, "arguments": args}}).encode())
            reply = server.read_reply(timeout=30)
            assert reply["id"] == i and "result" in reply, reply
    finally:
        server.close()
    run_index(root, home=home, force=True, workers=1)
    payload, is_error = Server(root, home=home).call_tool("search_code", {"query": "decode json"})
    assert not is_error and payload["results"]


def test_doctor_cli_exits_1_naming_a_damaged_state_db_and_index_force_repairs_it(indexed_json, tmp_path):
    root, home = indexed_json / "repo", tmp_path / "home"
    shutil.copytree(indexed_json / "home", home)
    damage(target_file(root, home, "state.db"), "garbage")
    doc = cruxe("doctor", "--path", str(root), home=home)
    assert doc.returncode == 1 and "state.db" in doc.stdout and "cruxe index --force" in doc.stdout, doc
    search = cruxe("search", "JSONDecoder", "--path", str(root), "--json", home=home)
    assert search.returncode == 2 and json.loads(search.stdout)["error"]["code"] == "index_incompatible"
    force = cruxe("index", "--force", "--path", str(root), "--json", home=home)
    assert force.returncode == 0, force.stderr
    assert "moved aside" in force.stderr
    assert list((open_project(root, home).store.dir).glob("state.db.corrupt-*"))  # kept for a post-mortem
    assert cruxe("doctor", "--path", str(root), home=home).returncode == 0


def test_a_state_db_left_without_tables_by_an_early_kill_is_a_new_project_not_a_corrupt_one(tmp_path):
    """`cruxe index` killed right after SQLite created state.db (the WAL pragma writes the
    file) and before its tables: index_status answered index_incompatible "no such table:
    projects", a corrupt index, where nothing was registered yet (found by
    bench/crash_bench.py). Such a database is healed on open."""
    from cruxe.project import open_project
    from cruxe.store import connect
    from cruxe.tools import Server
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.py").write_text("def alpha():\n    return 1\n")
    home = tmp_path / "home"
    store = open_project(repo, home).store
    store.dir.mkdir(parents=True)
    connect(store.dir / "state.db").close()  # the file as an early kill leaves it: no tables
    status, is_error = Server(repo, home=home).call_tool("index_status", {})
    assert is_error and status["error"]["code"] == "project_not_found", status  # as before any run
    run_index(repo, home=home)
    hits, is_error = Server(repo, home=home).call_tool("locate_symbol", {"name": "alpha"})
    assert not is_error and [h["path"] for h in hits["results"]] == ["a.py"]


def _worker_pids(parent: int) -> list[int]:
    """The multiprocessing workers among `parent`'s children (not its resource tracker)."""
    out = []
    for d in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = Path(f"/proc/{d}/stat").read_text()
            cmdline = Path(f"/proc/{d}/cmdline").read_bytes()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == parent and b"spawn_main" in cmdline \
                and b"resource_tracker" not in cmdline:
            out.append(int(d))
    return out


def test_a_killed_parser_worker_fails_the_job_with_a_remedy_and_sync_finishes_it(make_repo, tmp_path):
    # A worker killed mid-job (the out-of-memory killer, a person) used to leave the indexer
    # waiting forever on the lost task. Now the job fails at once, says why and what to do,
    # and the next sync repairs exactly what was in flight.
    def body(n: int) -> str:  # distinct files: identical ones tie, and ties move with deleted documents
        return "\n".join(f"def f{n}_{i}(x):\n    return g{n}_{i}(x) + {i}\n\ndef g{n}_{i}(y):\n    return y\n"
                         for i in range(30))
    root = make_repo({f"pkg/m{n:03d}.py": body(n) for n in range(200)})
    home = tmp_path / "home"
    env = {**os.environ, "CRUXE_HOME": str(home), "CRUXE_INDEX_BATCH_FILES": "20"}
    proc = subprocess.Popen([sys.executable, "-m", "cruxe", "index", "--path", str(root), "--quiet",
                             "--workers", "2"], env=env, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not (workers := _worker_pids(proc.pid)) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert workers, "no worker process appeared"
    os.kill(workers[0], signal.SIGKILL)
    try:
        _, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("the index job hung after its worker was killed")
    assert proc.returncode != 0 and "worker process died" in err and "cruxe sync" in err, err[-2000:]
    sync = cruxe("sync", "--path", str(root), "--quiet", home=home)
    assert sync.returncode == 0, sync.stderr
    clean = tmp_path / "clean_home"
    assert cruxe("index", "--path", str(root), "--quiet", home=clean).returncode == 0
    assert_same(snapshot(root, home), snapshot(root, clean))
