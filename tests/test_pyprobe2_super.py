"""find_references and `super().m()` (issue 17, second Python probe, item 0): a `super()`
call written in class C reaches the `m` of C's bases. Through bases the repository holds it
resolves; in a class deriving from outside code (an imported or builtin class) it is that
code's method, and no candidate for an unrelated repository class's `m`."""
from __future__ import annotations

from cruxe.index import run_index
from cruxe.project import open_project
from support.references import refs, sites

FILES = {
    "pkg/__init__.py": "",
    "pkg/base.py": "class Model:\n    def save(self, force=False):\n        return force\n",
    "pkg/user.py": (
        "import threading\n"                                   # 1
        "from collections import OrderedDict\n"                # 2
        "from .base import Model\n"                            # 3
        "from . import base\n"                                 # 4
        "\n\n"
        "class User(Model):\n"                                 # 7
        "    def save(self, force=False):\n"
        "        return super().save(force)\n"                 # 9
        "\n\n"
        "class Admin(base.Model):\n"                           # 12
        "    def save(self):\n"
        "        return super(Admin, self).save(True)\n"       # 14
        "\n\n"
        "class Worker(threading.Thread):\n"                    # 17
        "    def save(self):\n"
        "        return super().save()\n"                      # 19
        "\n\n"
        "class Store(OrderedDict):\n"                          # 22
        "    def save(self):\n"
        "        return super().save()\n"                      # 24
        "\n\n"
        "class Failure(Exception):\n"                          # 27
        "    def save(self):\n"
        "        return super().save()\n"                      # 29
        "\n\n"
        "class Deeper(Bare):\n"                                # 32
        "    def save(self):\n"
        "        return super().save()\n"                      # 34
        "\n\n"
        "class Mixin:\n"                                       # 37
        "    def save(self):\n"
        "        return super().save()\n"                      # 39
        "\n\n"
        "class Unseen(Missing):\n"                             # 42
        "    def save(self):\n"
        "        return super().save()\n"                      # 44
        "\n\n"
        "class Bare(threading.Thread):\n"                      # 47
        "    pass\n"
    ),
}


def test_super_call_lists_only_classes_among_its_bases(make_repo):
    root = make_repo(FILES)
    run_index(root)
    out = refs(root, "Model.save")
    assert sites(out["references"]) == [("pkg/user.py", 9), ("pkg/user.py", 14)]
    # derived from outside code (directly or through a repository base): no candidate;
    # a mixin's cooperative call and an unresolved base stay candidates
    unresolved = [(r["path"], r["line_start"], r["reason"]) for r in out.get("unresolved", [])]
    assert unresolved == [("pkg/user.py", 39, "unknown"), ("pkg/user.py", 44, "unknown")]
    assert out["unresolved_count"] == 2


def test_super_call_into_outside_code_is_external(make_repo):
    root = make_repo(FILES)
    run_index(root)
    gen = open_project(root).store.current_generation("live")
    got = dict(gen.db.execute("SELECT e.source_line, e.confidence FROM edges e WHERE e.to_name = 'save' "
                              "AND e.receiver LIKE 'super(%' AND e.to_symbol_id IS NULL").fetchall())
    assert got == {19: "external", 24: "external", 29: "external", 34: "external", 39: "unknown", 44: "unknown"}
