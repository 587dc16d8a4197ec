"""An index written by other extractors is rebuilt, not synced into (extract.EXTRACTION_VERSION)."""
from __future__ import annotations

from cruxe import extract, freshness
from cruxe.index import run_index
from cruxe.project import open_project
from cruxe.store import extraction_version
from cruxe.store.layout import transaction


def _forget_version(root) -> None:
    """What an index written before versions were kept (or by older extractors) looks like."""
    project = open_project(root)
    gen = project.store.current_generation(project.default_ref())
    with transaction(gen.db) as c:
        c.execute("DELETE FROM meta WHERE key='extraction_version'")


def test_a_generation_records_its_extractors_and_a_sync_keeps_them(make_repo):
    root = make_repo({"a.py": "def alpha():\n    pass\n"})
    first = run_index(root)
    project = open_project(root)
    assert extraction_version(project.store.current_generation(project.default_ref())) == extract.EXTRACTION_VERSION
    (root / "b.py").write_text("def beta():\n    pass\n")
    again = run_index(root)
    assert again.mode == "incremental" and again.generation == first.generation


def test_an_index_of_other_extractors_reads_stale_and_its_next_job_rebuilds_it(make_repo, monkeypatch):
    root = make_repo({"a.py": "def alpha():\n    pass\n", "b.py": "def beta():\n    alpha()\n"})
    first = run_index(root)
    project = open_project(root)
    ref = project.default_ref()
    assert freshness.index_state(project, ref).freshness_status == "fresh"
    import cruxe.freshness as fr
    import cruxe.index as ix
    monkeypatch.setattr(fr, "EXTRACTION_VERSION", "newer")
    monkeypatch.setattr(ix, "EXTRACTION_VERSION", "newer")
    _forget_version(root)
    assert freshness.index_state(project, ref).freshness_status == "stale"  # no file changed
    report = run_index(root)  # nothing changed on disk: a sync would re-parse nothing
    assert report.generation != first.generation and report.changed_files == 2
    gen = open_project(root).store.current_generation(ref)
    assert extraction_version(gen) == "newer"
    assert freshness.index_state(open_project(root), ref).freshness_status == "fresh"


def test_sync_repo_says_a_rebuild_for_other_extractors_is_full(make_repo, monkeypatch):
    import cruxe.index as ix
    from cruxe.tools import Server
    root = make_repo({"a.py": "def alpha():\n    pass\n"})
    run_index(root)
    server = Server(root)
    payload, is_error = server.call_tool("sync_repo", {})
    assert not is_error and payload["mode"] == "incremental"
    _wait_done(server, payload["job_id"])
    monkeypatch.setattr(ix, "EXTRACTION_VERSION", "newer")  # this process decides the answer's mode
    payload, is_error = server.call_tool("sync_repo", {})
    assert not is_error and payload["mode"] == "full", payload
    _wait_done(server, payload["job_id"])


def _wait_done(server, job_id: str) -> None:
    """Until the job's child has ended (its process, whether or not it registered a row)."""
    import time
    from cruxe import jobs
    deadline = time.monotonic() + 30
    while any(s.job_id == job_id and s.proc.poll() is None for s in list(jobs._SPAWNED.values())):
        assert time.monotonic() < deadline
        time.sleep(0.05)
