"""References across the layers of an overlay (issue 20): a use in a file the branch changed of a
definition only the base holds is resolved (the overlay's resolver reads the base's symbols, the
paths the branch shadows left out), and a base file's use of a definition the branch changed
reaches the overlay's definition while it exists there. Real git repositories throughout."""
from __future__ import annotations

from cruxe.index import run_index
from cruxe.tools import Server
from support.repos import commit_all as _commit
from support.repos import git as _git
from support.repos import two_branches

BASE = {
    "alpha.py": "def alpha():\n    return 1\n",
    "beta.py": "from alpha import alpha\n\n\ndef beta():\n    return alpha()\n",
    "gamma.py": "def gamma():\n    return 3\n",
    "delta.py": "def delta():\n    return 4\n",
}
# feature: epsilon.py added, calling gamma (a base file the branch leaves alone) and delta (a file
# the branch deletes); alpha.py changed (alpha kept, moved down a line)
FEATURE = {
    "epsilon.py": "from gamma import gamma\nfrom delta import delta\n\n\ndef epsilon():\n"
                  "    return gamma() + delta()\n",
    "alpha.py": "# moved\ndef alpha():\n    return 10\n",
    "delta.py": None,
}


def _refs(root, name: str, ref: str = "feature", **args):
    payload, is_error = Server(root).call_tool("find_references", {"symbol_name": name, "ref": ref, **args})
    assert not is_error, payload
    return payload


def _sites(payload, key: str = "references") -> set[tuple[str, str | None]]:
    return {(r["path"], r.get("source_layer")) for r in payload.get(key, ())}


def _repo(make_repo, feature=None):
    root = two_branches(make_repo(BASE), FEATURE if feature is None else feature)
    run_index(root)
    run_index(root, ref="feature")
    return root


def test_an_overlay_file_reaches_a_definition_only_the_base_holds(make_repo):
    root = _repo(make_repo)
    got = _refs(root, "gamma", kind="calls")
    assert got["symbol"]["source_layer"] == "base"
    assert _sites(got) == {("epsilon.py", "overlay")}
    assert got["unresolved_count"] == 0 and "unresolved" not in got
    imports = _refs(root, "gamma", kind="imports")
    assert _sites(imports) == {("epsilon.py", "overlay")}
    # main has no epsilon.py: none of this shows there
    assert _refs(root, "gamma", ref="main")["total_references"] == 0


def test_an_overlay_file_never_reaches_a_base_definition_the_branch_deleted(make_repo):
    root = _repo(make_repo)
    payload, is_error = Server(root).call_tool("find_references", {"symbol_name": "delta", "ref": "feature"})
    assert is_error and payload["error"]["code"] == "symbol_not_found"
    assert payload["error"]["data"]["unresolved_count"] >= 1  # epsilon's call: delta is gone on feature
    on_main = _refs(root, "delta", ref="main")
    assert on_main["total_references"] == 0 and on_main["unresolved_count"] == 0


def test_a_base_file_reaches_the_overlays_definition_and_not_a_gone_one(make_repo):
    """(b): beta.py is the base's, unchanged on the branch; alpha.py changed on it."""
    root = _repo(make_repo)
    got = _refs(root, "alpha", kind="calls")
    assert got["symbol"]["source_layer"] == "overlay" and got["symbol"]["line_start"] == 2
    assert _sites(got) == {("beta.py", "base")}


def test_a_base_files_use_of_a_definition_gone_on_the_branch_is_no_reference(make_repo):
    """alpha gone from alpha.py on the branch, another alpha elsewhere: beta's call is not its use."""
    root = _repo(make_repo, {"alpha.py": "def alpha_renamed():\n    return 1\n",
                             "other.py": "def alpha():\n    return 2\n"})
    got = _refs(root, "alpha", kind="calls")
    assert got["symbol"]["path"] == "other.py" and got["total_references"] == 0


def test_an_overlay_edge_into_the_base_follows_the_branch_when_it_changes_that_file(make_repo):
    root = _repo(make_repo)
    _git(root, "switch", "-q", "feature")
    (root / "gamma.py").write_text("def gamma():\n    return 33\n")
    _commit(root, "gamma changes on feature")
    _git(root, "switch", "-q", "main")
    run_index(root, ref="feature")
    got = _refs(root, "gamma", kind="calls")
    assert got["symbol"]["source_layer"] == "overlay"
    assert _sites(got) == {("epsilon.py", "overlay")}


def test_an_overlay_edge_into_the_base_follows_the_base_when_it_is_indexed_again(make_repo):
    """main changes gamma.py (shifting its lines) after the fork: once main and then feature are
    synced, gamma.py is feature's old version, in the overlay, and epsilon's call reaches it."""
    root = _repo(make_repo)
    (root / "gamma.py").write_text("\n\ndef gamma():\n    return 30\n")
    _commit(root, "gamma changes on main")
    run_index(root)
    run_index(root, ref="feature")
    got = _refs(root, "gamma", kind="calls")
    assert got["symbol"]["source_layer"] == "overlay" and got["symbol"]["line_start"] == 1
    assert _sites(got) == {("epsilon.py", "overlay")}
    assert got["unresolved_count"] == 0


def test_a_use_left_unresolved_resolves_once_the_branch_restores_the_base_file(make_repo):
    root = _repo(make_repo)
    _git(root, "switch", "-q", "feature")
    (root / "delta.py").write_text(BASE["delta.py"])  # the base's content again: no longer shadowed
    _commit(root, "delta back")
    _git(root, "switch", "-q", "main")
    run_index(root, ref="feature")
    got = _refs(root, "delta", kind="calls")
    assert got["symbol"]["source_layer"] == "base"
    assert _sites(got) == {("epsilon.py", "overlay")} and got["unresolved_count"] == 0


# ---- what index_status and sync_repo say about an overlay ----------------------------------------

def test_index_status_counts_the_refs_files_and_the_overlays_own_in_storage(make_repo):
    root = _repo(make_repo)  # feature: 4 files of main, delta.py deleted, epsilon.py added
    status, is_error = Server(root).call_tool("index_status", {"ref": "feature"})
    assert not is_error, status
    assert status["file_count"] == 4  # alpha, beta, gamma (base or overlay) and epsilon
    assert status["symbol_count"] == 4
    storage = status["storage"]
    assert storage["kind"] == "overlay" and storage["file_count"] == 2 and storage["symbol_count"] == 2


def test_sync_repo_names_the_full_index_a_change_of_storage_makes(make_repo):
    """feature indexed as a whole index (no base yet), then main indexed: the next sync of
    feature rebuilds it as an overlay, a full index, and the answer says so."""
    root = two_branches(make_repo(BASE), FEATURE)
    run_index(root, ref="feature")
    run_index(root)
    from cruxe import index
    from cruxe.project import open_project
    assert index.job_mode(open_project(root), "feature", False) == "full"
    assert index.job_mode(open_project(root), "main", False) == "incremental"
    report = run_index(root, ref="feature")
    assert report.mode == "full"
    assert index.job_mode(open_project(root), "feature", False) == "incremental"
