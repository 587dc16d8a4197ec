"""The bad-input list of issue 20: each case gets a clear CruxeError with a remedy that works, or
a correct answer; never a wrong answer marked fresh. Real git repositories, built here."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from cruxe.errors import CruxeError
from cruxe.index import run_index
from cruxe.shape import full_metadata
from cruxe.tools import Server
from support.repos import index_switching_after_scan


def _git(root: Path, *args: str, check: bool = True) -> str:
    done = subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "protocol.file.allow=always",
                           "-c", "init.defaultBranch=main", *args], cwd=root, check=check, capture_output=True,
                          text=True)
    return done.stdout.strip()


def _repo(make_repo, name: str = "repo", files: dict[str, str] | None = None) -> Path:
    root = make_repo(files or {"a.py": "def alpha():\n    pass\n"}, name)
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", ".")
    _git(root, "commit", "-qm", "one")
    return root


def _commit(root: Path, rel: str, text: str, message: str = "change") -> None:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(text)
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", message)


def _ask(root: Path, name: str, **args) -> tuple[list[str], str]:
    """(paths locate_symbol lists, freshness) — or raises the tool's error as a CruxeError."""
    payload, is_error = Server(root).call_tool("locate_symbol", {"name": name, **args})
    if is_error:
        err = payload["error"]
        raise CruxeError(err["code"], err["message"], err.get("data") or {})
    return sorted(r["path"] for r in payload["results"]), full_metadata(payload["metadata"])["freshness_status"]


def _fn(name: str) -> str:
    return f"def {name}():\n    pass\n"


# ---- detached HEAD, mid-rebase, mid-merge -----------------------------------------------------

def test_a_detached_head_is_indexed_as_head_and_never_written_into_the_branch(make_repo):
    root = _repo(make_repo)
    _commit(root, "b.py", _fn("beta"))
    run_index(root)
    _git(root, "checkout", "-q", "HEAD~1")  # beta is not on disk any more, but main still has it
    report = run_index(root)
    assert report.ref == "HEAD"
    assert _ask(root, "beta") == ([], "fresh")
    assert _ask(root, "beta", ref="HEAD") == ([], "fresh")
    # main's own index is untouched and still answers for main's commit
    assert _ask(root, "beta", ref="main") == (["b.py"], "fresh")
    _git(root, "checkout", "-q", "main")  # rewrites b.py: main's index may be stale until synced
    assert _ask(root, "beta", freshness_policy="best_effort")[0] == ["b.py"]
    run_index(root)
    assert _ask(root, "beta") == (["b.py"], "fresh")
    assert _ask(root, "beta", ref="HEAD") == (["b.py"], "fresh")  # HEAD is main again


def test_a_detached_head_that_moves_makes_its_index_stale(make_repo):
    root = _repo(make_repo)
    _commit(root, "b.py", _fn("beta"))
    _git(root, "checkout", "-q", "HEAD~1")
    run_index(root)
    _git(root, "checkout", "-q", "main~0")  # detached again, at main's commit
    with pytest.raises(CruxeError) as e:
        _ask(root, "beta", freshness_policy="strict")
    assert e.value.code == "index_stale"
    run_index(root)
    assert _ask(root, "beta", freshness_policy="strict") == (["b.py"], "fresh")


def test_mid_rebase_the_branch_being_rebased_keeps_its_own_index(make_repo):
    root = _repo(make_repo)
    _git(root, "switch", "-q", "-c", "feature")
    _commit(root, "a.py", _fn("alpha_feature"))
    run_index(root)
    _git(root, "switch", "-q", "main")
    _commit(root, "a.py", _fn("alpha_main"))
    run_index(root)
    _git(root, "switch", "-q", "feature")
    _git(root, "rebase", "main", check=False)  # stops on the conflict in a.py, HEAD detached
    assert (root / ".git" / "rebase-merge").is_dir() or (root / ".git" / "rebase-apply").is_dir()
    run_index(root)  # what is on disk, conflict markers and all, under HEAD
    assert _ask(root, "alpha_main", ref="HEAD") == (["a.py"], "fresh")
    assert _ask(root, "alpha_feature", ref="main") == ([], "fresh")
    assert _ask(root, "alpha_main", ref="main") == (["a.py"], "fresh")
    assert _ask(root, "alpha_feature", ref="feature") == (["a.py"], "fresh")
    assert _ask(root, "alpha_main", ref="feature") == ([], "fresh")


def test_mid_merge_the_checked_out_branch_answers_for_the_files_on_disk(make_repo):
    root = _repo(make_repo)
    _git(root, "switch", "-q", "-c", "other")
    _commit(root, "a.py", _fn("alpha_other"))
    _git(root, "switch", "-q", "main")
    _commit(root, "a.py", _fn("alpha_main"))
    run_index(root)
    _git(root, "merge", "other", check=False)  # conflict: a.py holds both sides and markers
    assert (root / ".git" / "MERGE_HEAD").is_file()
    paths, status = _ask(root, "alpha_other", freshness_policy="best_effort")
    assert (paths, status) == ([], "stale")  # not in the index yet, and it says so
    with pytest.raises(CruxeError) as e:
        _ask(root, "alpha_other", freshness_policy="strict")
    assert e.value.code == "index_stale"
    run_index(root)
    assert _ask(root, "alpha_other") == (["a.py"], "fresh")
    assert _ask(root, "alpha_main") == (["a.py"], "fresh")


def test_an_unborn_branch_and_an_orphan_branch(make_repo):
    root = make_repo({"a.py": _fn("alpha")})
    _git(root, "init", "-q", "-b", "main")  # no commit yet: HEAD names a branch that does not exist
    assert run_index(root).ref == "main"
    assert _ask(root, "alpha") == (["a.py"], "fresh")
    _git(root, "add", ".")
    _git(root, "commit", "-qm", "first")  # the branch is born: indexed before any commit, so stale
    with pytest.raises(CruxeError) as e:
        _ask(root, "alpha", freshness_policy="strict")
    assert e.value.code == "index_stale"
    run_index(root)
    _git(root, "checkout", "-q", "--orphan", "fresh")
    _git(root, "rm", "-q", "-rf", ".")
    (root / "o.py").write_text(_fn("orphan_fn"))
    with pytest.raises(CruxeError) as e:
        _ask(root, "orphan_fn")
    assert e.value.code == "index_not_ready"
    assert run_index(root).ref == "fresh"
    assert _ask(root, "orphan_fn") == (["o.py"], "fresh")
    assert _ask(root, "alpha", ref="main") == (["a.py"], "fresh")
    assert _ask(root, "orphan_fn", ref="main") == ([], "fresh")


# ---- repositories of unusual shape -------------------------------------------------------------

def test_a_bare_repository_is_refused_with_a_remedy_that_works(make_repo, tmp_path):
    root = _repo(make_repo)
    bare = tmp_path / "bare.git"
    _git(tmp_path, "clone", "-q", "--bare", str(root), str(bare))
    for path in (bare, bare / "refs"):
        with pytest.raises(CruxeError) as e:
            run_index(path)
        assert e.value.code == "invalid_input" and "bare" in e.value.message
        assert "git worktree add" in e.value.data["remedy"]
    for tool in ("index_repo", "search_code"):
        payload, is_error = Server(bare).call_tool(tool, {"query": "alpha"} if tool == "search_code" else {})
        assert is_error and payload["error"]["code"] == "invalid_input", payload
        assert "git worktree add" in payload["error"]["data"]["remedy"]
    _git(bare, "worktree", "add", "-q", str(tmp_path / "checkout"), "main")  # the remedy
    run_index(tmp_path / "checkout")
    assert _ask(tmp_path / "checkout", "alpha") == (["a.py"], "fresh")


def test_a_command_inside_dot_git_answers_for_the_repository_around_it(make_repo):
    root = _repo(make_repo)
    run_index(root / ".git" / "refs")
    assert _ask(root, "alpha") == (["a.py"], "fresh")


def test_a_worktree_with_a_dot_git_file_is_its_own_project_on_its_own_branch(make_repo, tmp_path):
    root = _repo(make_repo)
    _git(root, "branch", "feature")
    wt = tmp_path / "wt"
    _git(root, "worktree", "add", "-q", str(wt), "feature")
    assert (wt / ".git").is_file()
    _commit(wt, "feat.py", _fn("feat"))
    assert run_index(wt).ref == "feature"
    run_index(root)
    assert _ask(wt, "feat") == (["feat.py"], "fresh")
    assert _ask(root, "feat") == ([], "fresh")
    _commit(root, "m.py", _fn("on_main"))  # main moves in the other tree: the worktree's index is not stale
    assert _ask(wt, "feat", freshness_policy="strict") == (["feat.py"], "fresh")


def test_a_shallow_clone_is_indexed_and_its_refs_resolve(make_repo, tmp_path, monkeypatch):
    from cruxe import tools

    # what is tested is the shallow clone's objects, not the wait's bound (test_first_index): a
    # loaded machine can take longer than the bound to start the index child
    monkeypatch.setattr(tools, "FIRST_INDEX_WAIT_S", 60.0)
    root = _repo(make_repo)
    for i in range(3):
        _commit(root, f"s{i}.py", _fn(f"shallow_{i}"))
    clone = tmp_path / "clone"
    _git(tmp_path, "clone", "-q", "--depth", "1", f"file://{root}", str(clone))
    assert (clone / ".git" / "shallow").is_file()
    run_index(clone)
    assert _ask(clone, "shallow_2") == (["s2.py"], "fresh")
    with pytest.raises(CruxeError) as e:  # origin/main exists, but nothing indexed it
        _ask(clone, "alpha", ref="origin/main", freshness_policy="best_effort")
    assert e.value.code == "index_not_ready"
    # balanced indexes it from the shallow clone's objects on the first query
    assert _ask(clone, "shallow_2", ref="origin/main") == (["s2.py"], "fresh")


def test_a_submodule_is_its_own_project_and_not_part_of_the_outer_one(make_repo):
    outer = _repo(make_repo)
    sub = _repo(make_repo, "subsrc", {"inner.py": _fn("sub_only")})
    _git(outer, "submodule", "add", "-q", str(sub), "vendor/sub")
    _git(outer, "commit", "-qm", "add the submodule")
    inner = outer / "vendor" / "sub"
    assert (inner / ".git").is_file()
    run_index(outer)
    run_index(inner)
    assert _ask(outer, "sub_only") == ([], "fresh")
    assert _ask(inner, "sub_only") == (["inner.py"], "fresh")
    _commit(inner, "inner.py", _fn("sub_two"))
    with pytest.raises(CruxeError) as e:
        _ask(inner, "sub_two", freshness_policy="strict")
    assert e.value.code == "index_stale"
    assert _ask(outer, "sub_two", freshness_policy="strict") == ([], "fresh")  # the outer never held it


# ---- names and refs ----------------------------------------------------------------------------

@pytest.mark.parametrize("branch", ["feat/deep/x", "fix#12", "ünïcode-分支"])
def test_branch_names_with_slash_hash_and_unicode_keep_their_own_index(make_repo, branch):
    root = _repo(make_repo)
    _git(root, "switch", "-q", "-c", branch)
    _commit(root, "f.py", _fn("on_branch"))
    assert run_index(root).ref == branch
    _git(root, "switch", "-q", "main")
    run_index(root)
    assert _ask(root, "on_branch") == ([], "fresh")
    assert _ask(root, "on_branch", ref=branch) == (["f.py"], "fresh")
    _git(root, "update-ref", f"refs/heads/{branch}", "main")  # the branch moves (a force-push, say)
    paths, status = _ask(root, "on_branch", ref=branch, freshness_policy="best_effort")
    assert status == "stale" and paths == ["f.py"]  # the old answer, and it says so
    run_index(root, ref=branch)  # indexed again from git's objects: the branch's new commit
    assert _ask(root, "on_branch", ref=branch) == ([], "fresh")


@pytest.mark.parametrize("ref", ["nope", "has space", "a..b", "-x", "HEAD~1", "refs/heads/missing"])
def test_a_ref_that_does_not_exist_is_invalid_input_with_a_remedy(make_repo, ref):
    root = _repo(make_repo)
    run_index(root)
    with pytest.raises(CruxeError) as e:
        _ask(root, "alpha", ref=ref)
    assert e.value.code == "invalid_input" and e.value.data["field"] == "ref"
    assert "leave ref out" in e.value.data["remedy"]


def test_without_git_on_path_answers_come_from_dot_git_alone(make_repo):
    root = _repo(make_repo)
    env = dict(os.environ, PATH=str(Path(sys.executable).parent), PYTHONPATH=os.getcwd())
    assert shutil.which("git", path=env["PATH"]) is None
    run = subprocess.run([sys.executable, "-m", "cruxe", "index"], cwd=root, env=env, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    _commit(root, "b.py", _fn("beta"))  # git for the test only: HEAD moves
    run = subprocess.run([sys.executable, "-m", "cruxe", "search", "beta", "--freshness", "strict"], cwd=root,
                         env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode != 0 and "index_stale" in run.stdout + run.stderr
    run = subprocess.run([sys.executable, "-m", "cruxe", "sync"], cwd=root, env=env, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    assert _ask(root, "beta") == (["b.py"], "fresh")


# ---- the tree changes shape ---------------------------------------------------------------------

def test_a_file_replaced_by_a_directory_between_scans(make_repo):
    root = _repo(make_repo, files={"a.py": _fn("alpha"), "m.py": _fn("em")})
    run_index(root)
    (root / "m.py").unlink()
    (root / "m.py").mkdir()
    (root / "m.py" / "inner.py").write_text(_fn("inner_fn"))
    with pytest.raises(CruxeError) as e:
        _ask(root, "em", freshness_policy="strict")
    assert e.value.code == "index_stale"
    run_index(root)
    assert _ask(root, "em") == ([], "fresh")
    assert _ask(root, "inner_fn") == (["m.py/inner.py"], "fresh")
    shutil.rmtree(root / "m.py")
    (root / "m.py").write_text(_fn("em_again"))
    with pytest.raises(CruxeError) as e:
        _ask(root, "inner_fn", freshness_policy="strict")
    assert e.value.code == "index_stale"
    run_index(root)
    assert _ask(root, "inner_fn") == ([], "fresh")
    assert _ask(root, "em_again") == (["m.py"], "fresh")


# ---- wrong answers marked fresh that bench/branch_ops_bench.py found (fixed; kept in view) ----------

def test_uncommitted_edits_indexed_on_a_branch_are_not_that_branch_once_it_is_left(make_repo):
    root = _repo(make_repo)
    _git(root, "branch", "feature")
    _git(root, "switch", "-q", "feature")
    (root / "a.py").write_text(_fn("alpha") + "\n\ndef carried_edit():\n    return beta()\n")  # not committed
    run_index(root)
    _git(root, "switch", "-q", "main")  # git carries the edit to main's working tree
    paths, status = _ask(root, "carried_edit", ref="feature", freshness_policy="best_effort")
    assert paths == [] or status != "fresh"


def test_a_checkout_during_a_job_never_leaves_another_branchs_files_marked_fresh(make_repo, monkeypatch):
    import cruxe.index as index_mod
    root = _repo(make_repo)
    _git(root, "switch", "-q", "-c", "feature")
    _commit(root, "f.py", _fn("only_on_feature"))
    _git(root, "switch", "-q", "main")
    _commit(root, "m.py", _fn("only_on_main"))
    _git(root, "switch", "-q", "feature")
    real_scan = index_mod.scan

    def scan_across_checkouts(*args, **kwargs):  # an agent switching back and forth while a sync runs
        _git(root, "switch", "-q", "main")
        try:
            return real_scan(*args, **kwargs)
        finally:
            _git(root, "switch", "-q", "feature")

    monkeypatch.setattr(index_mod, "scan", scan_across_checkouts)
    run_index(root)
    monkeypatch.setattr(index_mod, "scan", real_scan)
    _git(root, "switch", "-q", "main")
    answers = [_ask(root, name, ref="feature", freshness_policy="best_effort")
               for name in ("only_on_main", "only_on_feature")]
    assert answers[0][0] == [] or answers[0][1] != "fresh"
    assert answers[1][0] == ["f.py"] or answers[1][1] != "fresh", answers


def test_a_long_lived_server_syncs_each_new_edit_under_balanced(make_repo):
    """One background sync per stale state, not per HEAD: edits without a commit came after the
    first sync and were never synced (stale for ever) in a server that stays up."""
    root = _repo(make_repo)
    run_index(root)
    server = Server(root)
    for k in range(2):
        (root / f"e{k}.py").write_text(_fn(f"edit_{k}"))
        payload, _ = server.call_tool("locate_symbol", {"name": f"edit_{k}"})  # balanced: starts a sync
        assert full_metadata(payload["metadata"])["freshness_status"] == "stale"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            time.sleep(0.3)
            payload, _ = server.call_tool("locate_symbol", {"name": f"edit_{k}", "freshness_policy": "best_effort"})
            if payload["results"]:
                break
        assert [r["path"] for r in payload["results"]] == [f"e{k}.py"], k


# ---- a watch on a tree too large to poll at its interval -------------------------------------

def test_pace_waits_longer_when_checks_cost_too_much_and_warns_once(caplog):
    from cruxe import watch as watch_mod
    pace = watch_mod.Pace(1.0)
    window = watch_mod._PACE_WINDOW
    pace.record(2.0)  # the check that reads a new manifest: one spike changes nothing
    for _ in range(window):
        pace.record(0.001)
        assert pace.wait == 1.0
    assert not caplog.records
    for _ in range(window):
        pace.record(watch_mod.WATCH_MAX_CPU_SHARE * 5.0)  # each check: 5 s of waiting's worth of CPU
    assert pace.wait == pytest.approx(5.0)
    for _ in range(window):
        pace.record(100.0)
    assert pace.wait == watch_mod.WATCH_MAX_WAIT_S
    assert len([r for r in caplog.records if "instead of every 1.00 s" in r.getMessage()]) == 1
    for _ in range(window):
        pace.record(0.0)
    assert pace.wait == 1.0


def test_a_watch_whose_checks_are_over_budget_slows_down_instead_of_spinning(make_repo, monkeypatch, caplog):
    from cruxe import watch as watch_mod
    root = _repo(make_repo)
    run_index(root)
    checks = []
    real = watch_mod.changed

    def counted(project, budget_s):
        checks.append(time.monotonic())
        return real(project, budget_s)

    monkeypatch.setattr(watch_mod, "changed", counted)
    monkeypatch.setattr(watch_mod, "WATCH_MAX_CPU_SHARE", 1e-9)  # every check is over budget
    monkeypatch.setattr(watch_mod, "WATCH_MAX_WAIT_S", 0.5)
    stop = threading.Event()
    t = threading.Thread(target=watch_mod.watch, args=(root,), kwargs={"interval": 0.01, "stop": stop, "events": False})
    t.start()
    time.sleep(2.0)
    stop.set()
    t.join(30)
    # at its interval it would have checked ~200 times; paced, a window's worth then one per 0.5 s
    assert watch_mod._PACE_WINDOW <= len(checks) <= 12, len(checks)
    assert any("instead of every" in r.getMessage() for r in caplog.records)


def test_an_unindexed_branch_that_is_not_checked_out_gets_a_remedy_that_indexes_it(make_repo):
    # `cruxe index` would index the checked-out ref, so the remedy must say how to reach the other one
    root = _repo(make_repo)
    _git(root, "branch", "feature")
    run_index(root)
    with pytest.raises(CruxeError) as e:  # balanced would index it on this query (test_first_index.py)
        _ask(root, "alpha", ref="feature", freshness_policy="best_effort")
    assert e.value.code == "index_not_ready"
    assert "cruxe index --ref feature" in e.value.remedy
    run_index(root, ref="feature")  # following the remedy answers for that ref, from git's objects
    assert _ask(root, "alpha", ref="feature") == (["a.py"], "fresh")


def test_a_branch_indexed_from_a_clean_tree_stays_fresh_once_it_is_left(make_repo):
    # the check that catches carried edits must not call every other branch stale
    root = _repo(make_repo)
    _git(root, "switch", "-q", "-c", "feature")
    _commit(root, "f.py", _fn("only_on_feature"))
    run_index(root)
    _git(root, "switch", "-q", "main")
    assert _ask(root, "only_on_feature", ref="feature", freshness_policy="best_effort") == (["f.py"], "fresh")
    (root / "a.py").write_text(_fn("alpha") + "\n\n" + _fn("edit_on_main"))  # main's edits are not feature's
    assert _ask(root, "only_on_feature", ref="feature", freshness_policy="best_effort") == (["f.py"], "fresh")


@pytest.mark.parametrize("version", ["2", "3", "4"])
def test_gits_index_is_read_in_each_version_git_writes(make_repo, version):
    from cruxe import vcs
    root = _repo(make_repo, files={"a.py": _fn("alpha"), "deep/er/b.py": _fn("beta"), "deep/c.py": "x = 1\n"})
    _git(root, "update-index", "--index-version", version)
    if version == "3":  # an extended flag (2 more bytes in the entry) is what version 3 exists for
        _git(root, "update-index", "--skip-worktree", "a.py")
    stats = vcs.index_stats(root)
    on_disk = {rel: ((root / rel).stat().st_size, (root / rel).stat().st_mtime_ns)
               for rel in ("a.py", "deep/er/b.py", "deep/c.py")}
    assert stats == on_disk
    (root / "a.py").write_text(_fn("alpha") + "\n")  # an edit: git's record no longer matches
    assert vcs.index_stats(root)["a.py"] != ((root / "a.py").stat().st_size, (root / "a.py").stat().st_mtime_ns)
    (root / ".git" / "index").write_bytes(b"DIRC\x00\x00\x00\x02\xff\xff\xff\xff")  # a hostile count
    assert vcs.index_stats(root) is None


def test_a_damaged_git_index_never_raises(make_repo):
    # .git/index is the repository's: cut anywhere or overwritten, it is "not known", never a crash
    from cruxe import vcs
    root = _repo(make_repo, files={"a.py": _fn("alpha"), "pkg/b.py": _fn("beta")})
    _git(root, "update-index", "--index-version", "4")
    index = root / ".git" / "index"
    whole = index.read_bytes()
    for cut in range(0, len(whole), 5):
        index.write_bytes(whole[:cut])
        result = vcs.index_stats(root)  # raising here is the failure this test is for
        assert result is None or set(result) <= {"a.py", "pkg/b.py"}
    index.write_bytes(whole[:12] + bytes(range(256)) * 4)
    result = vcs.index_stats(root)
    assert result is None or set(result) <= {"a.py", "pkg/b.py"}
    index.unlink()
    os.mkfifo(index)  # a FIFO is never opened for reading (it would block)
    assert vcs.index_stats(root) is None


def test_edits_carried_across_a_switch_are_withheld_from_the_branch_left(make_repo):
    # main indexed with an uncommitted edit; the edit goes along to feature (git carries it): on
    # main that file's hits may be feature's now, so none is an answer there until main is synced
    root = _repo(make_repo, files={"a.py": _fn("alpha"), "b.py": _fn("beta")})
    _git(root, "branch", "feature")
    (root / "a.py").write_text(_fn("alpha") + "\n\ndef carried_edit():\n    return beta()\n")
    run_index(root)
    _git(root, "switch", "-q", "feature")
    quiet = {"freshness_policy": "best_effort"}
    assert _ask(root, "carried_edit", ref="main", **quiet) == ([], "stale")  # was (["a.py"], "stale"): a leak
    assert _ask(root, "beta", ref="main", **quiet) == (["b.py"], "stale")  # a file as committed still answers
    payload, is_error = Server(root).call_tool("find_references", {"symbol_name": "beta", "ref": "main"})
    assert not is_error and payload["symbol"]["path"] == "b.py"
    assert [r["path"] for r in payload["references"] + payload.get("unresolved", [])] == []  # the carried call


def test_a_switch_after_the_scan_never_leaves_the_other_branchs_content_on_the_branch_left(make_repo, monkeypatch):
    # the job scans feature, the agent switches to main before the files are read: the job reads
    # main's a.py, and at its end git's index agrees with the disk (both main's), so no file looks
    # edited; only the checkout that moved says the files may be either side's
    root = _repo(make_repo)
    _git(root, "switch", "-q", "-c", "feature")
    _commit(root, "f.py", _fn("only_on_feature"))
    _git(root, "switch", "-q", "main")
    (root / "a.py").write_text(_fn("alpha") + "\n\n" + _fn("only_on_main"))
    _git(root, "commit", "-qam", "main moves on")
    _git(root, "switch", "-q", "feature")
    index_switching_after_scan(root, monkeypatch, "main")
    assert _ask(root, "only_on_main", ref="feature", freshness_policy="best_effort") == ([], "stale")
