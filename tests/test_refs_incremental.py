"""Incremental resolution after edits that change type information in one file: the edges of
OTHER files that went through it (a receiver's declared type, a return annotation, a base
list, an inherited method, an import's target) must be those of a fresh whole index."""
from __future__ import annotations

from pathlib import Path

import pytest

from cruxe.errors import CruxeError
from cruxe.index import run_index
from cruxe.project import open_project
from cruxe.refs.dirty import dirty_names, receiver_names

from support.references import refs

TOOLS = ("class Foo:\n    def run(self):\n        return 1\n\n\n"
         "class Bar:\n    def run(self):\n        return 2\n")
TOOLS_TS = ("export class Foo {\n  run(): number { return 1; }\n}\n\n"
            "export class Bar {\n  run(): number { return 2; }\n}\n")

# name -> (files, the one file edited: (path, old text, new text), the use in another file:
# (path, line), the definition it reached before, and after)
CASES = {
    "attribute_annotation": (
        {"pkg/tools.py": TOOLS,
         "pkg/base.py": "from pkg.tools import Foo, Bar\n\n\nclass Base:\n    def __init__(self):\n"
                        "        self.x: Foo = make()\n",
         "pkg/sub.py": "from pkg.base import Base\n\n\nclass Sub(Base):\n    def go(self):\n"
                       "        return self.x.run()\n"},
        ("pkg/base.py", "self.x: Foo", "self.x: Bar"), ("pkg/sub.py", 6), "Foo.run", "Bar.run"),
    "attribute_of_an_attribute": (
        {"pkg/tools.py": TOOLS,
         "pkg/loader.py": "from pkg.tools import Foo, Bar\n\n\nclass Loader:\n    def __init__(self):\n"
                          "        self.graph = Foo()\n",
         "pkg/run.py": "from pkg.loader import Loader\n\n\nclass Runner:\n    def __init__(self):\n"
                       "        self.loader = Loader()\n\n    def go(self):\n        return self.loader.graph.run()\n"},
        ("pkg/loader.py", "= Foo()", "= Bar()"), ("pkg/run.py", 9), "Foo.run", "Bar.run"),
    "class_level_annotation": (
        {"pkg/tools.py": TOOLS,
         "pkg/base.py": "from pkg.tools import Foo, Bar\n\n\nclass Base:\n    x: Foo\n",
         "pkg/sub.py": "from pkg.base import Base\n\n\nclass Sub(Base):\n    def go(self):\n"
                       "        return self.x.run()\n"},
        ("pkg/base.py", "x: Foo", "x: Bar"), ("pkg/sub.py", 6), "Foo.run", "Bar.run"),
    "return_annotation": (
        {"pkg/tools.py": TOOLS,
         "pkg/make.py": "from pkg.tools import Foo, Bar\n\n\nclass Maker:\n    def make(self) -> Foo:\n"
                        "        return build()\n",
         "pkg/use.py": "from pkg.make import Maker\n\n\nclass Use(Maker):\n    def go(self):\n"
                       "        return self.make().run()\n"},
        ("pkg/make.py", "-> Foo", "-> Bar"), ("pkg/use.py", 6), "Foo.run", "Bar.run"),
    "base_list": (
        {"pkg/tools.py": TOOLS,
         "pkg/base.py": "from pkg.tools import Foo, Bar\n\n\nclass Base(Foo):\n    pass\n",
         "pkg/sub.py": "from pkg.base import Base\n\n\nclass Sub(Base):\n    def go(self):\n"
                       "        return self.run()\n"},
        ("pkg/base.py", "class Base(Foo)", "class Base(Bar)"), ("pkg/sub.py", 6), "Foo.run", "Bar.run"),
    "method_added_in_a_base": (
        {"pkg/tools.py": TOOLS,
         "pkg/mid.py": "from pkg.tools import Foo\n\n\nclass Mid(Foo):\n    def other(self):\n        return 0\n",
         "pkg/sub.py": "from pkg.mid import Mid\n\n\nclass Sub(Mid):\n    def go(self):\n"
                       "        return self.run()\n"},
        ("pkg/mid.py", "    def other(self):", "    def run(self):\n        return 3\n\n    def other(self):"),
        # Mid's own `run` (by its file): before the edit `Mid.run` is the `Foo.run` it inherits
        ("pkg/sub.py", 6), "Foo.run", ("Mid.run", "pkg/mid.py")),
    "import_target": (
        {"pkg/tools.py": TOOLS, "pkg/tools2.py": TOOLS.replace("Bar", "Baz"),
         "pkg/reexport.py": "from pkg.tools import Foo\n",
         "pkg/use.py": "from pkg.reexport import Foo\n\n\ndef go(f: Foo):\n    return f.run()\n"},
        ("pkg/reexport.py", "pkg.tools ", "pkg.tools2 "), ("pkg/use.py", 5),
        ("Foo.run", "pkg/tools.py"), ("Foo.run", "pkg/tools2.py")),
    "typescript_field_type": (
        {"src/tools.ts": TOOLS_TS,
         "src/base.ts": "import { Foo, Bar } from './tools';\n\nexport class Base {\n  x: Foo;\n}\n",
         "src/sub.ts": "import { Base } from './base';\n\nexport class Sub extends Base {\n  go() {\n"
                       "    return this.x.run();\n  }\n}\n"},
        ("src/base.ts", "x: Foo;", "x: Bar;"), ("src/sub.ts", 5), "Foo.run", "Bar.run"),
}


def edge_table(root: Path) -> list[tuple]:
    """Every edge with its resolution, keyed by what does not depend on row order."""
    project = open_project(root)
    rows = project.store.current_generation("live").db.execute(
        'SELECT source_file, source_line, edge_type, to_name, coalesce(receiver, ""), coalesce(to_symbol_id, ""), '
        'coalesce(confidence, "") FROM edges')
    return sorted(tuple(r) for r in rows)


def uses(root: Path, target) -> list[tuple[str, int]]:
    name, path = target if isinstance(target, tuple) else (target, None)
    try:
        got = refs(root, name, **({"path": path} if path else {}))
    except CruxeError as e:  # not defined (yet, or any more)
        assert e.code == "symbol_not_found"
        return []
    return [(r["path"], r["line_start"]) for r in got.get("references", [])]


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_type_change_in_one_file_moves_the_edges_of_another(make_repo, tmp_path, monkeypatch, case):
    files, (path, old, new), site, before, after = CASES[case]
    root = make_repo(files)
    run_index(root)
    assert site in uses(root, before) and site not in uses(root, after)
    edited = root / path
    assert old in edited.read_text()
    edited.write_text(edited.read_text().replace(old, new))
    run_index(root)  # an incremental sync: the other file did not change
    assert site in uses(root, after) and site not in uses(root, before)
    synced = edge_table(root)
    monkeypatch.setenv("CRUXE_HOME", str(tmp_path / "fresh_home"))
    run_index(root)
    assert synced == edge_table(root)


def test_a_base_of_the_types_own_name_that_goes_away_takes_the_inherited_uses_with_it(make_repo, tmp_path,
                                                                                       monkeypatch):
    # `class Serializer(base.Serializer)`: the base shares the changed type's own name
    root = make_repo({"pkg/tools.py": TOOLS,
                      "pkg/base.py": "from pkg.tools import Foo\n\n\nclass Serializer(Foo):\n    pass\n",
                      "pkg/python.py": "from pkg import base\n\n\nclass Serializer(base.Serializer):\n    pass\n",
                      "pkg/json.py": "from pkg.python import Serializer as PythonSerializer\n\n\n"
                                     "class Serializer(PythonSerializer):\n    def go(self):\n"
                                     "        return super(PythonSerializer, self).run()\n"})
    run_index(root)
    assert ("pkg/json.py", 6) in uses(root, "Foo.run")
    edited = root / "pkg/python.py"
    edited.write_text(edited.read_text().replace("(base.Serializer)", "(Missing)"))
    run_index(root)
    assert ("pkg/json.py", 6) not in uses(root, "Foo.run")
    synced = edge_table(root)
    monkeypatch.setenv("CRUXE_HOME", str(tmp_path / "fresh_home"))
    run_index(root)
    assert synced == edge_table(root)


def test_the_rule_names_what_changed_and_the_types_whose_members_follow():
    old = {("q.py", "q.QuerySet", "QuerySet", "class", "class QuerySet(AltersData)"),
           ("q.py", "q.QuerySet.get", "get", "method", "def get(self)"),
           ("q.py", "q.make", "make", "function", "def make() -> Foo")}
    moved_only = set(old)
    assert dirty_names(old, moved_only, set(), set()) == (set(), set())
    new = {("q.py", "q.QuerySet", "QuerySet", "class", "class QuerySet(AltersData, Iterable)"),
           ("q.py", "q.QuerySet.get", "get", "method", "def get(self)"),
           ("q.py", "q.make", "make", "function", "def make() -> Bar")}
    imports_before = {("q.py", "Foo", "a", "")}
    imports_after = {("q.py", "Foo", "b", "F")}
    names, types = dirty_names(old, new, imports_before, imports_after)
    # its own name and the bases it had and has; not its own members (their edges went back to
    # pending with the file), and a changed return type makes the function's name dirty
    assert {"QuerySet", "AltersData", "Iterable", "make", "Foo", "F"} <= names and "get" not in names
    assert {"AltersData", "Iterable", "Foo", "F"} <= types and "QuerySet" not in types
    # a base of the type's own name is a base like any other
    same = {("j.py", "j.Serializer", "Serializer", "class", "class Serializer(base.Serializer)")}
    assert "Serializer" in dirty_names(set(), same, set(), set())[1]


def test_receiver_names_are_the_identifiers_it_writes():
    assert receiver_names("self.loader.graph") == {"self", "loader", "graph"}
    assert receiver_names("make(a, b).x") == {"make", "a", "b", "x"}
    assert receiver_names("new Observable@0.1") == {"new", "Observable"}
