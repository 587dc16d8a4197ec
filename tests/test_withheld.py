"""Files a ref's index withholds (read with edits its commit lacks, the ref no longer checked out:
`IndexState.withheld`) answer nothing on that ref, and the store leaves them out of every read
across files, so a page is full and the totals count only what may be listed (issue 20)."""
from __future__ import annotations

from pathlib import Path

from cruxe.index import run_index
from cruxe.tools import Server
from support.repos import git as _git

EDITED_DEFS = 40  # more than a query ranks for a page: the withheld file's hits would fill it
CALLER = "from b import beta\n\n\ndef {name}():\n    return beta()\n"


def _repo(make_repo) -> Path:
    """main: beta in b.py, called from a.py, c.py, d.py and e.py; main indexed while a.py holds
    an uncommitted edit, which goes along to feature (checked out now): on main, a.py is withheld."""
    files = {"b.py": "def beta():\n    return 2\n",
             **{f"{x}.py": CALLER.format(name=f"caller_{x}") for x in "acde"}}
    root = make_repo(files)
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "base")
    _git(root, "branch", "feature")
    many = "".join(f"\n\ndef caller_edit_{i}():\n    return beta()\n" for i in range(EDITED_DEFS))
    (root / "a.py").write_text(CALLER.format(name="caller_a") + "\n\ndef carried_edit():\n    return beta()\n" + many)
    run_index(root)
    _git(root, "switch", "-q", "feature")
    return root


def _call(root: Path, tool: str, **args) -> dict:
    quiet = {} if tool == "find_references" else {"freshness_policy": "best_effort"}
    payload, is_error = Server(root).call_tool(tool, {"ref": "main", **quiet, **args})
    assert not is_error, payload
    return payload


def test_references_of_a_withheld_file_leave_a_full_page_and_an_exact_total(make_repo):
    root = _repo(make_repo)
    got = _call(root, "find_references", symbol_name="beta", kind="calls", limit=2)
    assert [r["path"] for r in got["references"]] == ["c.py", "d.py"]
    assert got["total_references"] == 3  # c, d, e: a.py's calls are no answer on main
    assert got["unresolved_count"] == 0


def test_definitions_of_a_withheld_file_leave_a_full_page_and_an_exact_total(make_repo):
    root = _repo(make_repo)
    got = _call(root, "search_code", query="caller", limit=2)
    paths = [r["path"] for r in got["results"]]
    assert len(paths) == 2 and "a.py" not in paths
    assert got["total_candidates"] == 3
    for name in ("carried_edit", "caller_a"):
        located = _call(root, "locate_symbol", name=name)
        assert located["results"] == [] and located["total_candidates"] == 0


def _clean_after_index(root: Path) -> bool:
    from cruxe.project import open_project
    from cruxe.store import tree_clean
    run_index(root)
    return tree_clean(open_project(root).store.current_generation("main"))


def _committed(make_repo) -> Path:
    root = make_repo({"a.py": "def alpha():\n    return 1\n", "b.py": "def beta():\n    return 2\n"})
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "base")
    return root


def test_a_change_staged_but_not_committed_is_no_clean_tree(make_repo):
    root = _committed(make_repo)
    assert _clean_after_index(root)
    (root / "a.py").write_text("def alpha_staged():\n    return 1\n")
    _git(root, "add", "a.py")  # git's index now records the file as on disk: only HEAD differs
    assert not _clean_after_index(root)
    _git(root, "switch", "-q", "-c", "feature")  # the staged edit goes along
    got = Server(root).call_tool("locate_symbol", {"name": "alpha_staged", "ref": "main",
                                                   "freshness_policy": "best_effort"})[0]
    assert got["results"] == []  # feature's now, whatever main's index read


def test_a_change_staged_then_reverted_on_disk_is_no_clean_tree(make_repo):
    root = _committed(make_repo)
    (root / "a.py").write_text("def alpha_staged():\n    return 1\n")
    _git(root, "add", "a.py")
    (root / "a.py").write_text("def alpha():\n    return 1\n")  # HEAD's content on disk, not in git's index
    assert not _clean_after_index(root)
