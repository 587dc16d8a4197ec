"""Base files' references that go through type information the branch changes: a base class's
attribute is declared `Foo` on main and `Bar` on the branch, and a subclass in a file the branch
left alone calls `self.x.run()`. On the branch (an overlay over main) that call is `Bar.run`'s, as a
whole index of the branch answers, and on main it is still `Foo.run`'s; whether the branch's first
index makes the change or a later sync does (a full resolution of the overlay, or an incremental
one). Real git repositories throughout."""
from __future__ import annotations

import os

import pytest

from cruxe.index import run_index
from support.repos import two_branches
from test_overlay_basefix import _answer, _feature_commit, _whole

BASE = {
    "foo.py": "class Foo:\n    def run(self):\n        return 1\n",
    "bar.py": "class Bar:\n    def run(self):\n        return 2\n",
    "base.py": "from foo import Foo\nfrom bar import Bar\n\n\nclass Base:\n    def __init__(self):\n"
               "        self.x: Foo = Foo()\n",
    "sub.py": "from base import Base\n\n\nclass Sub(Base):\n    def go(self):\n        return self.x.run()\n",
    "other.py": "def other():\n    return 0\n",
}
RETYPED = {"base.py": BASE["base.py"].replace("self.x: Foo = Foo()", "self.x: Bar = Bar()")}
CALL = ("sub.py", 6)


def _runs(root, ref: str | None) -> dict[str, list]:
    return {path: _answer(root, "run", ref, path=path)["sites"] for path in ("foo.py", "bar.py")}


@pytest.mark.parametrize("later", [False, True], ids=["first_index", "later_sync"])
def test_an_untouched_subclass_call_follows_the_attribute_type_the_branch_changes(make_repo, tmp_path, monkeypatch,
                                                                                 later):
    first = {"other.py": "def other():\n    return 1\n"} if later else RETYPED
    root = two_branches(make_repo(BASE), first)
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
