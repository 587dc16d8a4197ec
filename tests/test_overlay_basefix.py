"""Base files' references that the branch's own definitions decide (issue 20): a use in a file the
branch left alone, which the base left unresolved (or resolved by unique name), resolves on the
branch as a whole index of the branch resolves it: (a) to a definition the branch adds, (b) as
ambiguous when the branch adds a second definition of a name the base resolved by uniqueness.
Each answer is compared with a whole index of the branch (a clone with the branch checked out,
indexed under another CRUXE_HOME). Real git repositories throughout."""
from __future__ import annotations

import os

import pytest

from cruxe.index import run_index
from cruxe.tools import Server
from support.repos import git as _git
from support.repos import two_branches

PY_BASE = {
    "caller.py": "def run(obj):\n    return obj.helper() + obj.single()\n",
    "lib.py": "class Lib:\n    def single(self):\n        return 1\n",
    "other.py": "def other():\n    return 2\n",
}
# feature: a class with helper added in a new file (a), a second single in a changed one (b)
PY_FEATURE = {
    "extra.py": "class Extra:\n    def helper(self):\n        return 3\n",
    "other.py": "def other():\n    return 2\n\n\nclass More:\n    def single(self):\n        return 4\n",
}
GO_BASE = {
    "go.mod": "module example.com/m\n\ngo 1.21\n",
    "caller.go": "package m\n\nfunc Run(o Thing) int {\n\treturn o.Helper() + o.Single()\n}\n",
    "lib.go": "package m\n\ntype Lib struct{}\n\nfunc (l Lib) Single() int { return 1 }\n",
    "other.go": "package m\n\nfunc Other() int { return 2 }\n",
}
GO_FEATURE = {
    "extra.go": "package m\n\ntype Extra struct{}\n\nfunc (e Extra) Helper() int { return 3 }\n",
    "other.go": "package m\n\nfunc Other() int { return 2 }\n\ntype More struct{}\n\n"
                "func (m More) Single() int { return 4 }\n",
}


def _answer(root, name: str, ref: str | None, **args) -> dict:
    call = {"symbol_name": name, **({"ref": ref} if ref else {}), **args}
    payload, is_error = Server(root).call_tool("find_references", call)
    if is_error:
        return {"error": payload["error"]["code"], "unresolved_count": payload["error"].get("data", {}).get(
            "unresolved_count")}
    return {"symbol": (payload["symbol"]["path"], payload["symbol"]["qualified_name"]),
            "sites": sorted((r["path"], r.get("line_start", r.get("line"))) for r in payload.get("references", ())),
            "unresolved_count": payload["unresolved_count"],
            "candidates": sorted(c.get("path", "") for c in payload.get("candidates", ()))}


def _whole(root, tmp_path, monkeypatch):
    """A whole index of feature: a clone with feature checked out, under its own CRUXE_HOME."""
    clone = tmp_path / "whole"
    _git(tmp_path, "clone", "-q", "-b", "feature", str(root), str(clone))
    monkeypatch.setenv("CRUXE_HOME", str(tmp_path / "whole-home"))
    run_index(clone)
    return clone


@pytest.mark.parametrize("base,feature,names", [
    (PY_BASE, PY_FEATURE, ("helper", "single")),
    (GO_BASE, GO_FEATURE, ("Helper", "Single")),
], ids=["python", "go"])
def test_base_files_uses_resolve_as_a_whole_index_of_the_branch(make_repo, tmp_path, monkeypatch, base, feature,
                                                                 names):
    root = two_branches(make_repo(base), feature)
    run_index(root)
    run_index(root, ref="feature")
    lib = "lib." + ("py" if names[0] == "helper" else "go")
    asks = [(names[0], {}), (names[1], {"path": lib})]
    overlay = [_answer(root, n, "feature", **a) for n, a in asks]
    home = os.environ["CRUXE_HOME"]
    clone = _whole(root, tmp_path, monkeypatch)
    whole = [_answer(clone, n, None, **a) for n, a in asks]
    monkeypatch.setenv("CRUXE_HOME", home)
    helper = names[0]
    # (a): the whole index resolves the base file's call to the branch's new definition
    assert [s[0] for s in whole[0]["sites"]] == [f"caller.{'py' if helper == 'helper' else 'go'}"]
    assert overlay[0] == whole[0]
    # (b): the base resolved single by uniqueness; the branch's second definition changes that
    assert whole[1]["sites"] == []  # ambiguous there: no reference of lib's
    assert overlay[1] == whole[1]
    # and main is as it was
    assert _answer(root, helper, "main")["error"] == "symbol_not_found"


def _feature_commit(root, files: dict[str, str | None], message: str) -> None:
    _git(root, "switch", "-q", "feature")
    for name, text in files.items():
        if text is None:
            (root / name).unlink()
        else:
            (root / name).write_text(text)
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", message)
    _git(root, "switch", "-q", "main")


def test_a_definition_the_branch_removes_and_one_it_takes_back(make_repo, tmp_path, monkeypatch):
    """The base resolved `obj.single()` by unique name to lib.py's; the branch removes it there
    (a whole index of the branch: unresolved), and a later sync of the branch takes the added
    helper back: the fixes of the earlier sync go (recomputed whole at each sync)."""
    root = two_branches(make_repo(PY_BASE), {**PY_FEATURE, "lib.py": "class Lib:\n    pass\n",
                                             "other.py": PY_BASE["other.py"]})
    run_index(root)
    run_index(root, ref="feature")
    single = _answer(root, "single", "feature")
    assert single == {"error": "symbol_not_found", "unresolved_count": 1}
    assert _answer(root, "helper", "feature")["sites"] == [("caller.py", 2)]
    _feature_commit(root, {"extra.py": None}, "helper gone")
    run_index(root, ref="feature")
    overlay = [_answer(root, n, "feature") for n in ("helper", "single")]
    home = os.environ["CRUXE_HOME"]
    clone = _whole(root, tmp_path, monkeypatch)
    whole = [_answer(clone, n, None) for n in ("helper", "single")]
    monkeypatch.setenv("CRUXE_HOME", home)
    assert whole == [{"error": "symbol_not_found", "unresolved_count": 1}] * 2
    assert overlay == whole


def test_a_later_sync_that_defines_a_redefined_name_again(make_repo, tmp_path, monkeypatch):
    """helper is redefined by the branch's first commit (one definition: the base file's call
    resolves to it) and again by a later one (a second: ambiguous): the later sync's incremental
    resolution redoes the fixes of that name, as a whole index of the branch answers."""
    root = two_branches(make_repo(PY_BASE), PY_FEATURE)
    run_index(root)
    run_index(root, ref="feature")
    assert _answer(root, "helper", "feature")["sites"] == [("caller.py", 2)]
    _feature_commit(root, {"extra2.py": "class Extra2:\n    def helper(self):\n        return 5\n"}, "helper again")
    run_index(root, ref="feature")
    asks = [("helper", {"path": "extra.py"}), ("helper", {"path": "extra2.py"})]
    overlay = [_answer(root, n, "feature", **a) for n, a in asks]
    home = os.environ["CRUXE_HOME"]
    clone = _whole(root, tmp_path, monkeypatch)
    whole = [_answer(clone, n, None, **a) for n, a in asks]
    monkeypatch.setenv("CRUXE_HOME", home)
    assert [w["sites"] for w in whole] == [[], []] and whole[0]["unresolved_count"] == 1
    assert overlay == whole


def _helper_sites(root) -> set[tuple[str, int]]:
    """The sites of helper's references on feature as the store reads them (no query policy: no
    sync starts), and the overlay's fixes count."""
    from cruxe import store
    from cruxe.freshness import open_generation
    from cruxe.project import open_project
    gen = open_generation(open_project(root), "feature").gen
    ids = [s.symbol_id for s in store.symbols_named(gen, "helper")]
    return {(e.path, e.line) for e in store.edges_to(gen, ids)}


def test_fixes_are_not_read_over_a_base_that_indexed_files_again(make_repo):
    """main changes caller.py (its call moves from line 2 to line 4) and is indexed again: until
    feature's next sync its fixes name rows of the base as it was, so they are not read (caller.py
    answers nothing on feature then, as a file the base indexed again since); the sync answers for
    feature's own caller.py (unchanged there: the call on line 2)."""
    root = two_branches(make_repo(PY_BASE), PY_FEATURE)
    run_index(root)
    run_index(root, ref="feature")
    assert _helper_sites(root) == {("caller.py", 2)}
    (root / "caller.py").write_text("# moved\n# down\n" + PY_BASE["caller.py"])
    _git(root, "commit", "-qam", "main moves")
    run_index(root)
    assert _helper_sites(root) == set()
    run_index(root, ref="feature")
    assert _helper_sites(root) == {("caller.py", 2)}


# Base files' references that go through type information the branch changes: a base class's
# attribute is declared `Foo` on main and `Bar` on the branch, and a subclass in a file the branch
# left alone calls `self.x.run()`. On the branch that call is `Bar.run`'s, as a whole index of the
# branch answers, and on main it is still `Foo.run`'s; whether the branch's first index makes the
# change (a full resolution of the overlay) or a later sync does (an incremental one).
TYPED_BASE = {
    "foo.py": "class Foo:\n    def run(self):\n        return 1\n",
    "bar.py": "class Bar:\n    def run(self):\n        return 2\n",
    "base.py": "from foo import Foo\nfrom bar import Bar\n\n\nclass Base:\n    def __init__(self):\n"
               "        self.x: Foo = Foo()\n",
    "sub.py": "from base import Base\n\n\nclass Sub(Base):\n    def go(self):\n        return self.x.run()\n",
    "other.py": "def other():\n    return 0\n",
}
RETYPED = {"base.py": TYPED_BASE["base.py"].replace("self.x: Foo = Foo()", "self.x: Bar = Bar()")}
CALL = ("sub.py", 6)


def _runs(root, ref: str | None) -> dict[str, list]:
    return {path: _answer(root, "run", ref, path=path)["sites"] for path in ("foo.py", "bar.py")}


@pytest.mark.parametrize("later", [False, True], ids=["first_index", "later_sync"])
def test_an_untouched_subclass_call_follows_the_attribute_type_the_branch_changes(make_repo, tmp_path, monkeypatch,
                                                                                 later):
    first = {"other.py": "def other():\n    return 1\n"} if later else RETYPED
    root = two_branches(make_repo(TYPED_BASE), first)
    run_index(root)
    run_index(root, ref="feature")
    if later:
        assert _runs(root, "feature") == {"foo.py": [CALL], "bar.py": []}
        _feature_commit(root, RETYPED, "x is a Bar")
        run_index(root, ref="feature")
    overlay = _runs(root, "feature")
    home = os.environ["CRUXE_HOME"]
    clone = _whole(root, tmp_path, monkeypatch)
    whole = _runs(clone, None)
    monkeypatch.setenv("CRUXE_HOME", home)
    assert whole == {"foo.py": [], "bar.py": [CALL]}
    assert overlay == whole
    assert _runs(root, "main") == {"foo.py": [CALL], "bar.py": []}
