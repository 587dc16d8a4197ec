"""balanced: the first query on a ref that is not checked out and was never indexed indexes it
from git's objects and answers, instead of refusing (tools.Server.first_index)."""
from __future__ import annotations

import pytest

from cruxe import tools
from cruxe.index import run_index
from cruxe.tools import Server
from support.repos import two_branches

FILES = {"base.py": "def shared():\n    return 1\n", "other.py": "def other():\n    return 2\n"}
FEATURE = {"only_feature.py": "def feature_only():\n    return shared()\n", "other.py": None}


@pytest.fixture
def repo(make_repo):
    root = two_branches(make_repo(dict(FILES)), dict(FEATURE))
    run_index(root)  # main only: `feature` was never indexed
    return root


def _locate(server: Server, name: str, **args):
    return server.call_tool("locate_symbol", {"name": name, "ref": "feature", **args})


def test_the_first_balanced_query_on_an_unindexed_branch_answers_from_its_commit(repo, monkeypatch):
    # the wait's bound has its own test below; a loaded machine can take longer to start a child
    monkeypatch.setattr(tools, "FIRST_INDEX_WAIT_S", 60.0)
    payload, is_error = _locate(Server(repo), "feature_only")
    assert not is_error, payload
    assert [(r["path"], r.get("source_layer")) for r in payload["results"]] == [("only_feature.py", "overlay")]
    payload, is_error = _locate(Server(repo), "other")  # deleted on the branch: the base's copy is not an answer
    assert not is_error and payload["results"] == []
    payload, is_error = Server(repo).call_tool("get_file_outline", {"path": "only_feature.py", "ref": "feature"})
    assert not is_error and payload["source_layer"] == "overlay"


def test_other_policies_still_refuse_and_start_nothing(repo):
    for policy in ("best_effort", "strict"):
        payload, is_error = _locate(Server(repo), "feature_only", freshness_policy=policy)
        assert is_error and payload["error"]["code"] == "index_not_ready"
        assert "cruxe index --ref feature" in payload["error"]["data"]["remedy"]
        assert payload["metadata"]["ref"] == "feature"  # the error is about the ref asked, not the default
    assert Server(repo).project.store.current_generation_number("feature") is None


def test_a_ref_git_does_not_have_gets_no_job(repo):
    payload, is_error = Server(repo).call_tool("locate_symbol", {"name": "shared", "ref": "no-such-branch"})
    assert is_error
    assert Server(repo).project.store.current_generation_number("no-such-branch") is None


def test_past_the_wait_the_refusal_names_the_running_job(repo, monkeypatch):
    from cruxe import jobs

    def already_running(project, ref, home, force):  # a job of the ref started earlier, not yet published
        raise jobs.busy(ref, "job-started-earlier", "full")

    monkeypatch.setattr(tools, "FIRST_INDEX_WAIT_S", 0.2)
    monkeypatch.setattr(jobs, "claim_and_spawn", already_running)
    payload, is_error = _locate(Server(repo), "feature_only")
    assert is_error and payload["error"]["code"] == "index_not_ready"
    assert payload["error"]["data"]["job_id"] == "job-started-earlier"
    assert "being indexed" in payload["error"]["message"] and payload["error"]["data"]["remedy"]


def test_a_generation_opened_while_a_job_writes_reads_as_that_jobs_unfinished_work(repo):
    # The first query polls until the job is no longer writing; the state it then answers with
    # must not pair a read from during the job (an overlay's record before its last write: stale,
    # no files yet) with "not indexing" because the job ended between the read and the check.
    from cruxe import freshness

    project = Server(repo).project
    ref = project.default_ref()
    with project.store.writer_lock(ref):
        opened = freshness.open_generation(project, ref)
    assert opened.gen is not None and opened.writing
    assert freshness.index_state(project, ref, opened).indexing_status == "indexing"
    assert freshness.index_state(project, ref).indexing_status == "ready"  # opened after the job
