"""Commands and the server work from any subdirectory of a repository (issue 20, item 4)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from cruxe.index import run_index
from cruxe.project import init_project, open_project
from cruxe.tools import Server

ROOT = Path(__file__).resolve().parents[1]


def _cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    import os

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-P", "-m", "cruxe", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


def _git_repo(make_repo) -> Path:
    root = make_repo({"pkg/deep/mod.py": "def deep_function():\n    return 1\n", "top.py": "def top():\n    pass\n"})
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    return root


def test_a_command_in_a_subdirectory_answers_for_the_registered_repository(make_repo):
    root = _git_repo(make_repo)
    run_index(root)
    r = _cli(["locate", "deep_function", "--json"], cwd=root / "pkg" / "deep")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["results"][0]["path"] == "pkg/deep/mod.py"


def test_init_in_a_subdirectory_of_a_git_repository_registers_the_repository(make_repo, cruxe_home):
    root = _git_repo(make_repo)
    r = _cli(["init"], cwd=root / "pkg")
    assert r.returncode == 0, r.stderr
    project = open_project(root / "pkg" / "deep", cruxe_home)
    assert project.root == root.resolve() and project.info is not None
    assert len(list((cruxe_home / "data").iterdir())) == 1  # no second project for the subdirectory


def test_a_registered_project_without_git_is_found_from_below(make_repo, cruxe_home):
    root = make_repo({"a/b/c.py": "def c_function():\n    pass\n"})
    init_project(root, cruxe_home)
    assert open_project(root / "a" / "b", cruxe_home).root == root.resolve()


def test_an_unregistered_directory_outside_git_is_its_own_root(make_repo, cruxe_home):
    root = make_repo({"x/y.py": "pass\n"})
    assert open_project(root / "x", cruxe_home).root == (root / "x").resolve()


def test_the_server_started_in_a_subdirectory_serves_the_repository(make_repo):
    root = _git_repo(make_repo)
    run_index(root)
    server = Server(root / "pkg")
    payload, is_error = server.call_tool("locate_symbol", {"name": "top"})
    assert not is_error, payload
    assert payload["results"][0]["path"] == "top.py"


def test_a_running_job_answers_null_counts_not_zero(make_repo, monkeypatch):
    """Issue 20, item 5: `changed_files: 0` while the job ran read as "nothing changed"."""
    import subprocess as sp

    from cruxe import jobs

    root = make_repo({"a.py": "def alpha():\n    pass\n"})
    run_index(root)
    server = Server(root)
    project = open_project(root)

    def spawn(root_, home, *, ref, force, job_id):  # a job that registered and is still scanning
        project.store.create_job(job_id, ref, "incremental", project.store.current_generation_number(ref))
        return sp.Popen([sys.executable, "-c", "import time; time.sleep(30)"])

    monkeypatch.setattr(jobs, "spawn_index_job", spawn)
    try:
        payload, is_error = server.call_tool("sync_repo", {})
        assert not is_error and payload["status"] == "running", payload
        assert payload["changed_files"] is None and payload["files_to_process"] is None, payload
        job = next(j for j in project.store.jobs(None) if j["job_id"] == payload["job_id"])
        project.store.update_job(job["job_id"], files_total=7)
        assert jobs.job_row(project, job["job_id"])["files_total"] == 7
    finally:
        for spawned in list(jobs._SPAWNED.values()):
            spawned.proc.kill()
            spawned.proc.wait()
        jobs._SPAWNED.clear()


def test_the_cli_json_is_the_tool_payload_with_the_same_default_limit(make_repo):
    """`cruxe search --json` and `search_code` with no limit give the same answer (the CLI's own
    default of 10 against the tools' 5 made them differ)."""
    root = make_repo({f"m{i}.py": f"def handler_{i}():\n    return {i}\n" for i in range(12)})
    run_index(root)
    r = _cli(["search", "handler", "--json"], cwd=root)
    assert r.returncode == 0, r.stderr
    payload, is_error = Server(root).call_tool("search_code", {"query": "handler", "freshness_policy": "best_effort"})
    assert not is_error
    assert [x["path"] for x in json.loads(r.stdout)["results"]] == [x["path"] for x in payload["results"]]
