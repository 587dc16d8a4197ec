"""Transports and job spawning under abuse: racing index_repo calls, slow or vanishing HTTP
clients, bad serve-mcp arguments, cancellation, a closed stdin, a FIFO in `.git`.

Every server here listens on 127.0.0.1 only, uses small limits and stops itself within a few
seconds.
"""
from __future__ import annotations

import subprocess
import sys
import threading

import pytest

from cruxe import tools


# ---------------------------------------------------------------------------- index jobs

def test_parallel_index_repo_calls_start_exactly_one_child(make_repo, monkeypatch):
    root = make_repo({f"m{i}.py": f"def f{i}():\n    pass\n" for i in range(30)})
    server = tools.Server(root)
    spawned: list[tuple[str, subprocess.Popen]] = []
    real_spawn = tools.spawn_index_job

    def counting_spawn(*args, **kwargs):
        proc = real_spawn(*args, **kwargs)
        spawned.append((kwargs["job_id"], proc))
        return proc

    monkeypatch.setattr(tools, "spawn_index_job", counting_spawn)
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


def _fake_spawn(exit_code: int):
    def spawn(root, home, *, ref, force, job_id):
        return subprocess.Popen([sys.executable, "-c", f"import sys; sys.exit({exit_code})"])
    return spawn


@pytest.mark.parametrize("exit_code,words", [(2, "exited with code 2"), (3, "writer lock"),
                                             (-9, "killed by signal 9")])
def test_a_failed_job_answer_carries_a_reason(make_repo, monkeypatch, exit_code, words):
    root = make_repo({"a.py": "def alpha():\n    pass\n"})
    if exit_code < 0:
        def spawn(root, home, *, ref, force, job_id):
            proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
            proc.kill()
            return proc
        monkeypatch.setattr(tools, "spawn_index_job", spawn)
    else:
        monkeypatch.setattr(tools, "spawn_index_job", _fake_spawn(exit_code))
    payload, is_error = tools.Server(root).call_tool("index_repo", {})
    assert not is_error and payload["status"] == "failed"
    assert words in payload["reason"]


def test_a_job_that_recorded_its_failure_answers_with_its_error(make_repo, monkeypatch):
    root = make_repo({"a.py": "def alpha():\n    pass\n"})
    server = tools.Server(root)

    def spawn(root, home, *, ref, force, job_id):
        from cruxe.project import open_project

        store = open_project(root, home).store
        store.create_job(job_id, ref, "full", 1)
        store.update_job(job_id, status="failed", error="index validation failed: 3 files, 2 documents")
        return subprocess.Popen([sys.executable, "-c", "pass"])

    monkeypatch.setattr(tools, "spawn_index_job", spawn)
    payload, is_error = server.call_tool("index_repo", {}, lambda *a: None)
    assert not is_error and payload["status"] == "failed"
    assert payload["reason"] == "index validation failed: 3 files, 2 documents"


def test_a_cancelled_wait_for_a_job_returns_at_once(make_repo, monkeypatch):
    import time

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

    monkeypatch.setattr(tools, "spawn_index_job", spawn)
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
