"""Concurrency: several MCP clients (two stdio servers, one HTTP server with three
connections) keep querying while the first index lands, while `cruxe index --force` rebuilds
beside the live generation, and while edits are synced. Every request must be answered:
no protocol error, no `internal_error`, no SQLite "database is locked" anywhere; answers
are flagged partial / indexing / syncing while data is in flight and complete once the job
is done. Two `cruxe index` at once: exactly one runs, the other exits 3 (index_in_progress).

The harness is in `support/concurrency.py`; `bench/concurrency_bench.py` runs it longer and
on a larger corpus.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from support.concurrency import FIRST_INDEX_ERRORS, Fleet, Tally, build_repo, cruxe_env, rpc, start_job
from support.locations import STDLIB, require_corpus

pytestmark = pytest.mark.slow  # servers and index jobs in real processes, racing


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    require_corpus(STDLIB / "email")
    base = tmp_path_factory.mktemp("concurrency")
    repo, home = build_repo(base), base / "home"
    fleet = Fleet(repo, home)
    fleet.repo, fleet.home = repo, home
    yield fleet
    fleet.close()


def assert_clean(tally: Tally, fleet: Fleet) -> None:
    # a failure shows the servers' tracebacks: an internal_error's cause is only in their logs
    assert tally.failures == [], (tally.failures[:10], _tracebacks(fleet.server_logs()))
    assert sum(tally.outcomes.values()) >= 20, tally.outcomes  # the clients really were busy


# The three phases share one repository and run in order (module-scoped fleet).

def test_queries_during_the_first_index_see_partial_then_complete(fleet):
    tally = Tally(allowed_errors=frozenset(FIRST_INDEX_ERRORS))
    job = start_job(fleet, "index")
    assert fleet.run_during(job, tally) == 0, job.stderr.read()
    assert_clean(tally, fleet)
    assert tally.outcomes["locate_symbol:ok"] > 0
    assert ("indexing", "partial", "syncing") in tally.metadata, tally.metadata  # flagged while landing
    assert ("ready", "complete", "fresh") in tally.metadata, tally.metadata  # and complete after


def test_queries_during_a_force_rebuild_never_fail(fleet):
    tally = Tally()
    job = start_job(fleet, "index", "--force")
    assert fleet.run_during(job, tally) == 0, job.stderr.read()
    assert_clean(tally, fleet)
    assert ("indexing", "partial", "syncing") in tally.metadata and ("ready", "complete", "fresh") in tally.metadata


def test_queries_during_syncs_of_edited_files_never_fail(fleet):
    tally = Tally()
    edited = sorted(p for p in fleet.repo.rglob("*.py") if "mime" not in p.parts)[:12]
    for p in edited:
        p.write_text(p.read_text() + "\n\ndef concurrent_edit():\n    return 1\n")
    (fleet.repo / "email" / "mime" / "audio.py").unlink()
    (fleet.repo / "email" / "brand_new.py").write_text("class BrandNew:\n    pass\n")
    job = start_job(fleet, "sync")
    assert fleet.run_during(job, tally) == 0, job.stderr.read()
    assert_clean(tally, fleet)
    assert tally.metadata[("indexing", "partial", "syncing")] > 0, tally.metadata
    reply = json.loads(subprocess.run([sys.executable, "-m", "cruxe", "locate", "concurrent_edit", "--json",
                                       "--limit", "50", "--path", str(fleet.repo)], env=cruxe_env(fleet.home),
                                      capture_output=True, text=True).stdout)
    assert {r["path"] for r in reply["results"]} == {str(p.relative_to(fleet.repo)) for p in edited}


def test_two_index_runs_at_once_exactly_one_runs_and_the_tools_refuse_meanwhile(fleet):
    from cruxe.project import open_project

    store = open_project(fleet.repo, fleet.home).store
    jobs = [start_job(fleet, "index", "--force") for _ in range(2)]
    deadline = time.monotonic() + 30
    while not store.writer_active("live") and all(j.poll() is None for j in jobs) and time.monotonic() < deadline:
        time.sleep(0.01)
    refusals = []
    for tool in ("index_repo", "sync_repo"):
        fleet.stdio[0].send(json.dumps(rpc(77, tool, {})).encode())
        refusals.append(fleet.stdio[0].read_reply()["result"]["structuredContent"])
    codes = sorted(j.wait(timeout=120) for j in jobs)
    errs = [j.stderr.read() for j in jobs]
    assert codes == [0, 3], (codes, errs)
    assert sum("index_in_progress" in e for e in errs) == 1, errs
    assert [p.get("error", {}).get("code") for p in refusals] == ["index_in_progress"] * 2, refusals


def test_two_first_index_runs_on_a_new_project_exactly_one_runs(tmp_path):
    """Both also race to create state.db and register the project."""
    repo = tmp_path / "repo"
    shutil.copytree(STDLIB / "email", repo, ignore=shutil.ignore_patterns("__pycache__"))
    env = cruxe_env(tmp_path / "home")
    jobs = [subprocess.Popen([sys.executable, "-m", "cruxe", "index", "--path", str(repo), "--quiet", "--workers", "1"],
                             env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    codes = sorted(j.wait(timeout=120) for j in jobs)
    errs = [j.stderr.read() for j in jobs]
    assert codes == [0, 3] and sum("index_in_progress" in e for e in errs) == 1, (codes, errs)


def test_no_lock_error_reached_any_server_log(fleet):
    log = fleet.close()
    fleet.stdio = []
    assert "database is locked" not in log and "Traceback" not in log, _tracebacks(log) or log[-2000:]


def _tracebacks(log: str) -> str:
    """The log's tracebacks, each with the line that announced it (bounded)."""
    lines, keep = log.splitlines(), []
    for i, line in enumerate(lines):
        if line.startswith("Traceback"):
            keep += lines[max(0, i - 1):i + 40]
    return "\n".join(keep)[-6000:]


def _open_new_db(path: str, out, start) -> None:
    from cruxe.store import connect
    start.wait()
    try:
        connect(Path(path)).executescript("CREATE TABLE IF NOT EXISTS t(x);")
        out.put("ok")
    except Exception as e:  # reported to the parent, which asserts
        out.put(repr(e))


def test_processes_creating_the_same_new_database_all_open_it(tmp_path):
    """Switching a new database to WAL needs an exclusive lock and SQLite returns BUSY
    there without calling the busy handler: without the retry, rounds of four
    processes released together failed with "database is locked" (the first-index race above, seen in CI)."""
    import multiprocessing
    ctx = multiprocessing.get_context("fork")
    failures = []
    for i in range(60):
        out, start = ctx.Queue(), ctx.Barrier(4)
        procs = [ctx.Process(target=_open_new_db, args=(str(tmp_path / f"s{i}.db"), out, start)) for _ in range(4)]
        for p in procs:
            p.start()
        for p in procs:
            p.join(timeout=30)
        failures += [r for r in (out.get(timeout=5) for _ in procs) if r != "ok"]
    assert failures == []
