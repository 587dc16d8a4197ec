"""Branch overlays (issue 20, item 3): a ref that is not checked out stores only the files that
differ from the default branch's index (its base), plus tombstones; queries merge the two,
overlay first, and say which layer each result comes from. Real git repositories throughout."""
from __future__ import annotations

import hashlib
import time

import pytest

from cruxe.index import run_index
from cruxe.project import open_project
from cruxe.shape import full_metadata
from cruxe.tools import Server
from support.repos import commit_all as _commit
from support.repos import git as _git
from support.repos import two_branches


BASE_FILES = {
    "alpha.py": "def alpha():\n    return 1\n",
    "beta.py": "from alpha import alpha\n\n\ndef beta():\n    return alpha()\n",
    "gamma.py": "def gamma():\n    return 3\n",
    "delta.py": "def delta():\n    return 4\n",
}


def _repo(make_repo):
    """main: the four files above, indexed (the base). feature: alpha.py changed, epsilon.py
    added (calling alpha), delta.py deleted, gamma.py renamed to gamma2.py. main checked out."""
    root = two_branches(make_repo(BASE_FILES), {
        "alpha.py": "def alpha():\n    return 10\n\n\ndef alpha_two():\n    return alpha()\n",
        "epsilon.py": "from alpha import alpha\n\n\ndef epsilon():\n    return alpha()\n",
        "delta.py": None, "gamma.py": None, "gamma2.py": BASE_FILES["gamma.py"]})
    run_index(root)
    return root


def _call(root, tool: str, **args):
    payload, is_error = Server(root).call_tool(tool, {"freshness_policy": "best_effort", **args}
                                               if tool in ("locate_symbol", "search_code") else args)
    assert not is_error, payload
    return payload


def _located(root, name: str, ref: str | None = None) -> tuple[list[tuple[str, str | None]], str]:
    payload = _call(root, "locate_symbol", name=name, **({"ref": ref} if ref else {}))
    return (sorted((r["path"], r.get("source_layer")) for r in payload["results"]),
            full_metadata(payload["metadata"])["freshness_status"])


def _tree_digest(path) -> dict[str, str]:
    return {str(p.relative_to(path)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(path.rglob("*")) if p.is_file()}


def _base_dir(root):
    return open_project(root).store.ref_dir("main")


def test_a_branch_is_an_overlay_of_what_differs_and_the_base_is_untouched(make_repo):
    root = _repo(make_repo)
    before = _tree_digest(_base_dir(root))
    report = run_index(root, ref="feature")
    assert _tree_digest(_base_dir(root)) == before
    assert report.file_count == 3  # alpha.py, epsilon.py, gamma2.py: the rest is the base's
    storage = _call(root, "index_status", ref="feature")["storage"]
    assert storage["kind"] == "overlay" and storage["base_ref"] == "main"
    assert storage["shadowed_paths"] == 5  # three files + two tombstones (delta.py, gamma.py)
    assert _located(root, "epsilon", "feature") == ([("epsilon.py", "overlay")], "fresh")
    assert _located(root, "alpha_two", "feature") == ([("alpha.py", "overlay")], "fresh")
    assert _located(root, "beta", "feature") == ([("beta.py", "base")], "fresh")
    assert _located(root, "alpha", "feature") == ([("alpha.py", "overlay")], "fresh")  # one, not two


def test_a_tombstone_or_a_rename_suppresses_the_base_hit(make_repo):
    root = _repo(make_repo)
    run_index(root, ref="feature")
    assert _located(root, "delta", "feature") == ([], "fresh")
    assert _located(root, "gamma", "feature") == ([("gamma2.py", "overlay")], "fresh")
    hits = _call(root, "search_code", query="delta", ref="feature")["results"]
    assert all(h["path"] != "delta.py" for h in hits)
    assert _call(root, "search_code", query="delta")["results"]  # main still has it
    payload, is_error = Server(root).call_tool("get_file_outline", {"path": "delta.py", "ref": "feature"})
    assert is_error and payload["error"]["code"] == "file_not_found"
    assert "candidates" not in payload["error"]["data"]  # the base's file is not offered on the branch


def test_the_base_ref_and_a_whole_index_carry_no_source_layer(make_repo):
    root = _repo(make_repo)
    run_index(root, ref="feature")
    assert _located(root, "delta") == ([("delta.py", None)], "fresh")
    assert "storage" not in _call(root, "index_status")
    assert all("source_layer" not in r for r in _call(root, "search_code", query="alpha")["results"])


def test_every_tool_says_which_layer_answers(make_repo):
    root = _repo(make_repo)
    run_index(root, ref="feature")
    hits = _call(root, "search_code", query="epsilon", ref="feature")["results"]
    assert hits and hits[0]["path"] == "epsilon.py" and hits[0]["source_layer"] == "overlay"
    hits = _call(root, "search_code", query="beta", ref="feature")["results"]
    assert ("beta.py", "base") in {(h["path"], h["source_layer"]) for h in hits}
    outline = _call(root, "get_file_outline", path="epsilon.py", ref="feature")
    assert outline["source_layer"] == "overlay" and [s["name"] for s in outline["symbols"]] == ["epsilon"]
    outline = _call(root, "get_file_outline", path="beta.py", ref="feature")
    assert outline["source_layer"] == "base" and [s["name"] for s in outline["symbols"]] == ["beta"]
    refs = _call(root, "find_references", symbol_name="alpha", ref="feature")
    assert refs["symbol"]["path"] == "alpha.py" and refs["symbol"]["source_layer"] == "overlay"
    assert all("source_layer" in r for r in refs["references"])


def test_find_references_across_layers(make_repo):
    root = _repo(make_repo)
    run_index(root, ref="feature")
    refs = _call(root, "find_references", symbol_name="alpha", ref="feature", kind="calls")
    got = {(r["path"], r["source_layer"]) for r in refs["references"]}
    # beta.py (base, unchanged) reaches the changed alpha through its base counterpart;
    # alpha.py's alpha_two and epsilon.py (overlay) were resolved in the overlay
    assert got == {("beta.py", "base"), ("alpha.py", "overlay"), ("epsilon.py", "overlay")}
    on_main = _call(root, "find_references", symbol_name="alpha", kind="calls")
    assert {r["path"] for r in on_main["references"]} == {"beta.py"}
    # delta is gone on the branch: no definition, whatever the base's edges say
    payload, is_error = Server(root).call_tool("find_references", {"symbol_name": "delta", "ref": "feature"})
    assert is_error and payload["error"]["code"] == "symbol_not_found"


def test_base_edges_from_a_file_the_branch_deleted_are_dropped(make_repo):
    root = _repo(make_repo)
    _git(root, "switch", "-q", "feature")
    (root / "beta.py").unlink()
    _commit(root, "beta goes")
    _git(root, "switch", "-q", "main")
    run_index(root, ref="feature")
    refs = _call(root, "find_references", symbol_name="alpha", ref="feature", kind="calls")
    assert {r["path"] for r in refs["references"]} == {"alpha.py", "epsilon.py"}


def test_two_branches_each_see_only_their_own_unique_files(make_repo):
    root = _repo(make_repo)
    (root / "main_only.py").write_text("def only_on_main():\n    pass\n")
    _commit(root, "main only")
    run_index(root)
    run_index(root, ref="feature")
    assert _located(root, "only_on_main", "feature") == ([], "fresh")
    assert _located(root, "epsilon") == ([], "fresh")
    assert _located(root, "only_on_main") == ([("main_only.py", None)], "fresh")
    # main moved on past the merge-base: the overlay still answers for feature's content
    storage = _call(root, "index_status", ref="feature")["storage"]
    assert storage["merge_base"] != storage["base_commit"]


def _move_feature(root, rebase: bool) -> None:
    if rebase:
        (root / "zeta.py").write_text("def zeta():\n    pass\n")
        _commit(root, "main moves")
        run_index(root)
        _git(root, "switch", "-q", "feature")
        _git(root, "rebase", "-q", "main")
    else:  # a force-push: the ref reset to another history
        _git(root, "switch", "-q", "feature")
        _git(root, "reset", "-q", "--hard", "main")
        (root / "eta.py").write_text("def eta():\n    pass\n")
        _commit(root, "rewritten")
    _git(root, "switch", "-q", "main")


@pytest.mark.parametrize("rebase", [True, False], ids=["rebase", "force-push"])
def test_rebase_and_force_push_rebuild_the_overlay_and_leave_the_base_alone(make_repo, rebase):
    root = _repo(make_repo)
    run_index(root, ref="feature")
    old_merge_base = _call(root, "index_status", ref="feature")["storage"]["merge_base"]
    _move_feature(root, rebase)
    assert _located(root, "epsilon", "feature")[1] == "stale"
    before = _tree_digest(_base_dir(root))
    run_index(root, ref="feature")
    assert _tree_digest(_base_dir(root)) == before
    storage = _call(root, "index_status", ref="feature")["storage"]
    assert storage["kind"] == "overlay"
    if rebase:
        assert storage["merge_base"] != old_merge_base
        assert _located(root, "zeta", "feature") == ([("zeta.py", "base")], "fresh")
        assert _located(root, "epsilon", "feature") == ([("epsilon.py", "overlay")], "fresh")
    else:
        assert _located(root, "epsilon", "feature") == ([], "fresh")
        assert _located(root, "delta", "feature") == ([("delta.py", "base")], "fresh")
        assert _located(root, "eta", "feature") == ([("eta.py", "overlay")], "fresh")


def test_an_overlay_is_stale_when_its_base_is_indexed_again(make_repo):
    root = _repo(make_repo)
    run_index(root, ref="feature")
    (root / "zeta.py").write_text("def zeta():\n    pass\n")
    _commit(root, "main moves")
    run_index(root)
    assert _located(root, "epsilon", "feature") == ([("epsilon.py", "overlay")], "stale")
    # until feature's next sync, what main indexed since is not shown on feature: it may be main's
    assert _located(root, "zeta", "feature") == ([], "stale")
    run_index(root, ref="feature")
    assert _located(root, "zeta", "feature") == ([], "fresh")  # zeta.py is main's, not feature's


def test_without_a_base_the_ref_is_a_whole_index_and_index_status_says_why(make_repo):
    root = two_branches(make_repo(BASE_FILES), {"epsilon.py": "def epsilon():\n    pass\n"})
    report = run_index(root, ref="feature")  # main never indexed
    assert report.file_count == 5
    storage = _call(root, "index_status", ref="feature")["storage"]
    assert storage["kind"] == "whole" and "base 'main'" in storage["reason"]
    assert _located(root, "beta", "feature") == ([("beta.py", None)], "fresh")
    run_index(root)
    run_index(root, ref="feature")  # now a base exists: rebuilt as an overlay
    assert _call(root, "index_status", ref="feature")["storage"]["kind"] == "overlay"
    assert _located(root, "beta", "feature") == ([("beta.py", "base")], "fresh")
    assert _located(root, "epsilon", "feature") == ([("epsilon.py", "overlay")], "fresh")


def test_unrelated_histories_fall_back_to_a_whole_index(make_repo):
    root = _repo(make_repo)
    _git(root, "switch", "-q", "--orphan", "other")
    for name in BASE_FILES:  # `switch --orphan` empties the tree (older gits leave them untracked)
        (root / name).unlink(missing_ok=True)
    (root / "lonely.py").write_text("def lonely():\n    pass\n")
    _commit(root, "unrelated")
    _git(root, "switch", "-q", "main")
    run_index(root, ref="other")
    storage = _call(root, "index_status", ref="other")["storage"]
    assert storage["kind"] == "whole" and "merge-base" in storage["reason"]
    assert _located(root, "lonely", "other") == ([("lonely.py", None)], "fresh")
    assert _located(root, "beta", "other") == ([], "fresh")


def test_a_base_indexed_with_uncommitted_edits_is_no_base(make_repo):
    root = _repo(make_repo)
    (root / "beta.py").write_text("def beta_edited():\n    pass\n")
    run_index(root)  # the base now holds an edit that is no commit's
    run_index(root, ref="feature")
    assert _call(root, "index_status", ref="feature")["storage"]["kind"] == "whole"
    assert _located(root, "beta_edited", "feature") == ([], "fresh")
    assert _located(root, "beta", "feature") == ([("beta.py", None)], "fresh")


def test_a_second_sync_of_the_same_ref_is_refused_at_once(make_repo):
    root = _repo(make_repo)
    run_index(root, ref="feature")
    store = open_project(root).store
    with store.writer_lock("feature"):
        store.create_job("held-by-test", "feature", "incremental", store.current_generation_number("feature"))
        t0 = time.monotonic()
        payload, is_error = Server(root).call_tool("sync_repo", {"ref": "feature"})
        assert time.monotonic() - t0 < 2
    assert is_error and payload["error"]["code"] == "sync_in_progress"


def test_an_overlay_job_waits_for_a_job_writing_its_base_then_builds_on_it(make_repo, monkeypatch):
    import threading

    from cruxe import index
    from cruxe.errors import CruxeError
    root = _repo(make_repo)
    store = open_project(root).store
    released = threading.Event()

    def hold(seconds: float) -> None:
        with store.writer_lock("main"):
            released.wait(seconds)

    t = threading.Thread(target=hold, args=(0.5,))
    t.start()
    time.sleep(0.1)
    run_index(root, ref="feature")  # waits: a half-written base is no base, and no whole index meanwhile
    t.join()
    assert _call(root, "index_status", ref="feature")["storage"]["kind"] == "overlay"
    monkeypatch.setattr(index, "BASE_WAIT_S", 0.2)
    with store.writer_lock("main"):
        with pytest.raises(CruxeError) as e:
            run_index(root, ref="feature")
    assert e.value.code == "index_in_progress" and e.value.data["ref"] == "main"


def test_an_overlays_write_count_moves_with_its_bases(make_repo):
    """The balanced policy starts one background sync per state (the write count among it): an
    overlay made stale by its base's sync must read as a new state, or it is never synced."""
    from cruxe.freshness import index_state
    root = _repo(make_repo)
    run_index(root, ref="feature")
    before = index_state(open_project(root), "feature")
    (root / "zeta.py").write_text("def zeta():\n    pass\n")
    _commit(root, "main moves")
    run_index(root)
    after = index_state(open_project(root), "feature")
    assert after.freshness_status == "stale" and after.cursor != before.cursor


def test_every_symbol_of_an_overlay_ref_is_the_merge_of_both_layers(make_repo):
    from cruxe.freshness import open_generation
    from cruxe.store import all_symbols
    root = _repo(make_repo)
    run_index(root, ref="feature")
    project = open_project(root)
    names = [(s.path, s.name) for s in all_symbols(open_generation(project, "feature").gen, project.id, "feature")]
    assert names == [("alpha.py", "alpha"), ("alpha.py", "alpha_two"), ("beta.py", "beta"),
                     ("epsilon.py", "epsilon"), ("gamma2.py", "gamma")]


def test_the_same_definition_ranks_the_same_from_either_layer(make_repo):
    """BM25 in a small overlay index computes low IDFs (few documents), so its hits ranked under
    the base's for the same text; the store rescales them to the two layers' counts: exactly for
    one term, as a weighted mean for several (a question in words searches its words' lexicon
    spellings too), hence a tolerance of 1%, which the unscaled scores miss (1.4% apart here)."""
    files = {f"f{i}.py": f"def filler_{i}(x):\n    return x + {i}\n" for i in range(30)}
    files["z_base.py"] = 'def zeta_fn(value):\n    """Combine the value."""\n    return value * 2\n'
    root = two_branches(make_repo(files), {"a_overlay.py": files["z_base.py"]})
    run_index(root)
    run_index(root, ref="feature")
    hits = _call(root, "search_code", query="combine value", ref="feature", detail_level="context")["results"]
    scores = {(h["path"], h["source_layer"]): h["score"] for h in hits if h["result_type"] == "symbol"}
    overlay, base = scores[("a_overlay.py", "overlay")], scores[("z_base.py", "base")]
    assert abs(overlay - base) <= 0.01 * base, scores


def test_an_overlay_whose_base_is_gone_refuses_and_its_next_sync_builds_it_whole(make_repo):
    import shutil
    root = _repo(make_repo)
    run_index(root, ref="feature")
    shutil.rmtree(_base_dir(root))  # the base's index lost (moved aside by a repair, say)
    payload, is_error = Server(root).call_tool("locate_symbol", {"name": "beta", "ref": "feature",
                                                                 "freshness_policy": "best_effort"})
    assert is_error and payload["error"]["code"] == "index_not_ready"
    assert "cruxe index --ref feature" in payload["error"]["data"]["remedy"]
    run_index(root, ref="feature")
    assert _call(root, "index_status", ref="feature")["storage"]["kind"] == "whole"
    assert _located(root, "beta", "feature") == ([("beta.py", None)], "fresh")
    assert _located(root, "delta", "feature") == ([], "fresh")


def test_under_balanced_an_overlay_whose_base_is_gone_is_rebuilt_by_the_query(make_repo):
    import shutil
    root = _repo(make_repo)
    run_index(root, ref="feature")
    shutil.rmtree(_base_dir(root))
    payload, is_error = Server(root).call_tool("locate_symbol", {"name": "beta", "ref": "feature"})
    assert not is_error and [r["path"] for r in payload["results"]] == ["beta.py"], payload
    assert _call(root, "index_status", ref="feature")["storage"]["kind"] == "whole"


def test_the_base_is_the_branch_origin_head_names(make_repo):
    root = make_repo(BASE_FILES)
    _git(root, "init", "-q", "-b", "trunk")
    _commit(root, "base")
    (root / ".git" / "refs" / "remotes" / "origin").mkdir(parents=True)
    (root / ".git" / "refs" / "remotes" / "origin" / "HEAD").write_text("ref: refs/remotes/origin/trunk\n")
    _git(root, "branch", "main")  # a `main` too: origin's default wins
    _git(root, "switch", "-q", "-c", "feature")
    (root / "epsilon.py").write_text("def epsilon():\n    pass\n")
    _commit(root, "feature")
    _git(root, "switch", "-q", "trunk")
    run_index(root)
    run_index(root, ref="feature")
    assert _call(root, "index_status", ref="feature")["storage"]["base_ref"] == "trunk"
    assert _located(root, "beta", "feature") == ([("beta.py", "base")], "fresh")


def test_a_branch_whose_ignore_rules_differ_is_a_whole_index(make_repo):
    root = two_branches(make_repo({**BASE_FILES, "gen/out.py": "def generated():\n    pass\n",
                                   ".gitignore": "gen/\n"}), {".gitignore": ""})
    run_index(root)
    run_index(root, ref="feature")
    storage = _call(root, "index_status", ref="feature")["storage"]
    assert storage["kind"] == "whole" and "ignore" in storage["reason"]
    assert _located(root, "generated", "feature") == ([("gen/out.py", None)], "fresh")  # admitted there
    assert _located(root, "generated") == ([], "fresh")
