"""A ref that is not checked out is indexed from git's objects, never from the working tree
(issue 20, "refs done right"): its own files, its own commit, fresh until the ref moves, and no
command the repository's config names ever runs."""
from __future__ import annotations

import subprocess
import time

from cruxe.index import run_index
from cruxe.project import open_project
from cruxe.shape import full_metadata
from cruxe.tools import Server


def _git(root, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main",
                           *args], cwd=root, check=True, capture_output=True, text=True).stdout.strip()


def _fn(name: str) -> str:
    return f"def {name}():\n    pass\n"


def _two_branches(make_repo):
    root = make_repo({"common.py": _fn("shared")})
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", ".")
    _git(root, "commit", "-qm", "base")
    _git(root, "switch", "-q", "-c", "feature")
    (root / "feature_only.py").write_text(_fn("only_on_feature"))
    _git(root, "add", ".")
    _git(root, "commit", "-qm", "feature")
    _git(root, "switch", "-q", "main")
    (root / "main_only.py").write_text(_fn("only_on_main"))
    _git(root, "add", ".")
    _git(root, "commit", "-qm", "main")
    return root


def _ask(root, name: str, ref: str | None = None) -> tuple[list[str], str]:
    args = {"name": name, "freshness_policy": "best_effort", **({"ref": ref} if ref else {})}
    payload, is_error = Server(root).call_tool("locate_symbol", args)
    assert not is_error, payload
    return sorted(r["path"] for r in payload["results"]), full_metadata(payload["metadata"])["freshness_status"]


def test_a_branch_not_checked_out_is_indexed_from_its_commit_and_the_working_tree_is_untouched(make_repo):
    root = _two_branches(make_repo)
    (root / "common.py").write_text(_fn("shared") + "\n\n" + _fn("uncommitted_on_main"))  # the working tree's
    before = {p.name: p.read_bytes() for p in root.iterdir() if p.is_file()}
    report = run_index(root, ref="feature")
    assert report.ref == "feature" and report.file_count == 2
    assert _ask(root, "only_on_feature", "feature") == (["feature_only.py"], "fresh")
    assert _ask(root, "only_on_main", "feature") == ([], "fresh")
    assert _ask(root, "uncommitted_on_main", "feature") == ([], "fresh")
    assert {p.name: p.read_bytes() for p in root.iterdir() if p.is_file()} == before
    assert _git(root, "status", "--porcelain") == "M common.py"
    run_index(root)  # the checked-out ref keeps its own index, edits included
    assert _ask(root, "uncommitted_on_main") == (["common.py"], "fresh")
    assert _ask(root, "only_on_feature") == ([], "fresh")


def test_a_ref_that_moves_is_stale_until_indexed_again(make_repo):
    root = _two_branches(make_repo)
    run_index(root, ref="feature")
    _git(root, "switch", "-q", "feature")
    (root / "later.py").write_text(_fn("added_later"))
    _git(root, "add", ".")
    _git(root, "commit", "-qm", "later")
    _git(root, "switch", "-q", "main")
    assert _ask(root, "added_later", "feature") == ([], "stale")
    run_index(root, ref="feature")
    assert _ask(root, "added_later", "feature") == (["later.py"], "fresh")


def test_no_filter_or_hook_named_by_the_repository_runs(make_repo, tmp_path):
    root = _two_branches(make_repo)
    _git(root, "switch", "-q", "feature")
    (root / ".gitattributes").write_text("*.py filter=evil\n")
    _git(root, "add", ".gitattributes")
    _git(root, "commit", "-qm", "attributes")
    _git(root, "switch", "-q", "main")
    marker = tmp_path / "ran"
    for key in ("filter.evil.smudge", "filter.evil.clean"):
        _git(root, "config", key, f"touch {marker}; cat")
    _git(root, "config", "core.fsmonitor", f"touch {marker}; false")
    run_index(root, ref="feature")
    assert not marker.exists(), "a command from the repository's config ran"
    assert _ask(root, "only_on_feature", "feature") == (["feature_only.py"], "fresh")
    _git(root, "switch", "-q", "feature")  # the trap is real: a checkout runs the smudge filter
    assert marker.exists()


def test_sync_repo_on_a_branch_not_checked_out_runs_a_job_from_its_objects(make_repo):
    root = _two_branches(make_repo)
    run_index(root)
    payload, is_error = Server(root).call_tool("sync_repo", {"ref": "feature"})
    assert not is_error, payload
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        jobs = open_project(root).store.jobs("feature", limit=1)
        if jobs and jobs[0]["status"] in ("published", "failed", "interrupted"):
            break
        time.sleep(0.2)
    assert jobs and jobs[0]["status"] == "published", jobs
    assert _ask(root, "only_on_feature", "feature") == (["feature_only.py"], "fresh")
    assert _ask(root, "only_on_feature") == ([], "fresh")


def test_a_second_export_rewrites_only_what_changed(make_repo, tmp_path):
    from cruxe import vcs
    root = _two_branches(make_repo)
    dest = tmp_path / "export"
    files = vcs.export_commit(root, _git(root, "rev-parse", "feature"), dest, 1 << 20)
    assert sorted(p.name for p in files.iterdir()) == ["common.py", "feature_only.py"]
    _git(root, "switch", "-q", "feature")
    (root / "feature_only.py").write_text(_fn("changed_on_feature"))
    (root / "common.py").unlink()
    (root / "common.py").mkdir()  # a file replaced by a directory
    (root / "common.py" / "inner.py").write_text(_fn("inner"))
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "reshaped")
    _git(root, "switch", "-q", "main")
    files = vcs.export_commit(root, _git(root, "rev-parse", "feature"), dest, 1 << 20)
    got = sorted(str(p.relative_to(files)) for p in files.rglob("*") if p.is_file())
    assert got == ["common.py/inner.py", "feature_only.py"]
    assert (files / "feature_only.py").read_text() == _fn("changed_on_feature")
    files = vcs.export_commit(root, _git(root, "rev-parse", "main"), dest, 1 << 20)  # and back
    got = sorted(str(p.relative_to(files)) for p in files.rglob("*") if p.is_file())
    assert got == ["common.py", "main_only.py"]
    unchanged = vcs.export_commit(root, _git(root, "rev-parse", "main"), dest, 1 << 20) / "main_only.py"
    assert unchanged.stat().st_mtime_ns == (files / "main_only.py").stat().st_mtime_ns  # not rewritten
