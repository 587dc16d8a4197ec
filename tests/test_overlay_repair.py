"""What a ref indexed from git's objects leaves behind, and what a repair records (issue 20)."""
from __future__ import annotations

import os
import subprocess
import sys

from cruxe.index import run_index
from cruxe.model import file_key
from cruxe.project import open_project
from cruxe.store import GenerationWriter, branch_state
from support.repos import commit_all, git, two_branches


def _repo(make_repo):
    return two_branches(make_repo({"a.py": "def a():\n    pass\n", "b.py": "def b():\n    pass\n"}),
                        {"f.py": "def f():\n    pass\n"})


def _duplicate_file_document(root, ref: str, path: str) -> None:
    """What a lost delete leaves: a second files document for `path`, which validation finds."""
    project = open_project(root)
    gen = project.store.current_generation(ref)
    writer = GenerationWriter(gen, project.id, ref)
    writer.add_docs("files", [{"repo": project.id, "ref": ref, "path": path, "file_key": file_key(project.id, ref, path),
                               "path_tokens": "", "language": "python", "line_start": 1, "line_end": 1,
                               "filename": path, "content_head": "", "size": 1}])
    writer.commit_tantivy()
    writer.close()
    project.store.close()


def test_a_validation_repair_of_an_exported_ref_records_the_refs_commit(make_repo):
    """`_reindex` recorded the working tree's HEAD (None in an export directory, which is no git
    repository): the repaired ref then had no commit and read stale until its next job."""
    root = _repo(make_repo)
    run_index(root, ref="feature")  # main has no index: feature is a whole index of its commit
    _duplicate_file_document(root, "feature", "f.py")
    report = run_index(root, ref="feature")
    assert any("indexed them again" in w for w in report.warnings), report.warnings
    project = open_project(root)
    state = branch_state(project.store.current_generation("feature"), project.id, "feature")
    assert state["last_indexed_commit"] == git(root, "rev-parse", "feature")


def test_the_export_of_a_deleted_branch_is_removed_by_the_next_job_and_its_index_kept(make_repo):
    """Exports under trees/<ref> were never removed: a deleted branch's copy of its files stayed
    for ever (it cannot be synced again: git no longer has the ref)."""
    root = _repo(make_repo)
    git(root, "branch", "other", "feature")
    run_index(root, ref="feature")
    run_index(root, ref="other")
    store = open_project(root).store
    assert store.export_dir("feature").is_dir() and store.export_dir("other").is_dir()
    git(root, "branch", "-D", "feature", "other")
    with store.writer_lock("other"):  # a job holds it: left for a later job
        run_index(root)
    assert not store.export_dir("feature").exists() and store.export_dir("other").is_dir()
    assert store.ref_dir("feature").is_dir()  # a deleted branch stays queryable
    run_index(root)
    assert not store.export_dir("other").exists()


def test_a_sync_soon_after_an_export_reads_only_the_files_that_changed(make_repo):
    """Exported files were written just before the job read them, so each was stored as "modified
    within 2 s" (no mtime) and the next sync read and hashed every one of them again."""
    root = _repo(make_repo)
    run_index(root, ref="feature")
    git(root, "switch", "-q", "feature")
    (root / "a.py").write_text("def a():\n    return 2\n")
    commit_all(root, "a changes")
    git(root, "switch", "-q", "main")
    run_index(root, ref="feature")
    store = open_project(root).store
    assert store.jobs("feature", limit=1)[0]["files_total"] == 1  # a.py alone, not b.py and f.py again


def test_an_overlay_job_killed_midway_never_leaves_it_fresh(make_repo, cruxe_home):
    """The overlay's record (its paths, the base state it is built on) is written before its files
    so that readers merge by the new paths at once; a job killed after that, before its files
    landed, left an overlay claiming the new base state: wrong answers, marked fresh."""
    from cruxe.tools import Server
    root = two_branches(make_repo({"a.py": "def a_one():\n    pass\n", "b.py": "def b():\n    pass\n"}),
                        {"b.py": "def b_feat():\n    pass\n"})
    run_index(root)
    run_index(root, ref="feature")
    (root / "a.py").write_text("def a_two():\n    pass\n")  # main moves: a.py now differs from feature's
    commit_all(root, "main moves")
    run_index(root)
    env = {**os.environ, "CRUXE_CRASH_AT": "tantivy_commit_symbols:1"}
    proc = subprocess.run([sys.executable, "-m", "cruxe", "index", "--path", str(root), "--ref", "feature"],
                          env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == -9, proc.stderr
    payload, is_error = Server(root).call_tool("locate_symbol", {"name": "a_one", "ref": "feature",
                                                                 "freshness_policy": "best_effort"})
    assert not is_error, payload
    if [r["path"] for r in payload["results"]] != ["a.py"]:
        assert payload["metadata"].get("freshness_status") == "stale", payload
    run_index(root, ref="feature")
    payload, _ = Server(root).call_tool("locate_symbol", {"name": "a_one", "ref": "feature"})
    assert [r["path"] for r in payload["results"]] == ["a.py"]
