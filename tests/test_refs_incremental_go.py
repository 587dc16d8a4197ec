"""Incremental resolution of Go edges after edits in other files: the edges of the files left
alone must be those of a fresh whole index of the edited tree (the ground truth), and the use
under test must have the answer a Go reader expects (so no case passes with both wrong)."""
from __future__ import annotations

from pathlib import Path

import pytest

from support.incremental import answer, synced_and_whole

GO_MOD = "module example.com/m\n\ngo 1.22\n"
USER = ('package a\n\nimport "example.com/m/c"\n\nfunc Go() int {\n\treturn c.Hello() + c.Other()\n}\n')
PACKAGE_C = "package c\n\nfunc Hello() int { return 1 }\n"


def test_a_package_that_appears_takes_the_imports_of_it_and_the_uses_through_them(make_repo, tmp_path,
                                                                                     monkeypatch):
    # the importer is written first, the package it names comes later (outside until then)
    root = make_repo({"go.mod": GO_MOD, "a/a.go": USER})

    def add(r: Path) -> None:
        (r / "c").mkdir()
        (r / "c/c.go").write_text(PACKAGE_C)
    synced, whole = synced_and_whole(root, tmp_path, monkeypatch, add)
    assert answer(whole, "a/a.go", 3, "example.com/m/c") == "module"
    assert answer(whole, "a/a.go", 6, "Other") == "unknown"  # the package is ours, and has no Other
    assert synced == whole


def test_a_package_that_goes_leaves_the_imports_of_it_outside(make_repo, tmp_path, monkeypatch):
    root = make_repo({"go.mod": GO_MOD, "a/a.go": USER, "c/c.go": PACKAGE_C})
    synced, whole = synced_and_whole(root, tmp_path, monkeypatch, lambda r: (r / "c/c.go").unlink())
    assert answer(whole, "a/a.go", 3, "example.com/m/c") == "external"
    assert answer(whole, "a/a.go", 6, "Hello") == "external"
    assert synced == whole


@pytest.mark.parametrize("edit", ["method_added", "receiver_changed", "method_removed"])
def test_a_method_edit_in_another_file_moves_the_calls_of_it(make_repo, tmp_path, monkeypatch, edit):
    # controls: the name of a method added, moved to another type or removed is dirty (the
    # receiver is no parameter with a declared type, which the resolver would follow instead)
    files = {"go.mod": GO_MOD,
             "c/c.go": "package c\n\ntype S struct{}\n\ntype U struct{}\n\nfunc (s *S) Run() int { return 1 }\n",
             "a/a.go": 'package a\n\nimport "example.com/m/c"\n\nfunc Go(s []*c.S) int {\n\treturn s[0].Run()\n}\n'}
    root = make_repo(files)
    texts = {"method_added": files["c/c.go"] + "\nfunc (u U) Run() int { return 2 }\n",
             "receiver_changed": files["c/c.go"].replace("(s *S) Run", "(s *U) Run"),
             "method_removed": files["c/c.go"].replace("func (s *S) Run() int { return 1 }\n", "")}
    expected = {"method_added": "ambiguous", "receiver_changed": "unique_name", "method_removed": "unknown"}
    synced, whole = synced_and_whole(root, tmp_path, monkeypatch,
                                     lambda r: (r / "c/c.go").write_text(texts[edit]))
    assert answer(whole, "a/a.go", 6, "Run") == expected[edit]
    assert synced == whole


def test_the_same_rule_takes_a_python_module_that_appears(make_repo, tmp_path, monkeypatch):
    # the rule is the language's import's: `import pkg.newmod` ends with the new file's stem
    root = make_repo({"pkg/__init__.py": "",
                      "pkg/use.py": "import pkg.newmod\nfrom pkg import other\n\n\ndef go():\n"
                                    "    pkg.newmod.hello()\n    other.hi()\n"})

    def add(r: Path) -> None:
        (r / "pkg/newmod.py").write_text("def hello():\n    return 1\n")
        (r / "pkg/other.py").write_text("def hi():\n    return 1\n")
    synced, whole = synced_and_whole(root, tmp_path, monkeypatch, add)
    assert answer(whole, "pkg/use.py", 1, "pkg.newmod") == "module"
    assert answer(whole, "pkg/use.py", 2, "other") == "module"
    assert synced == whole


def test_a_module_path_changed_in_go_mod_takes_every_import_of_it(make_repo, tmp_path, monkeypatch):
    # go.mod defines no name: no dirty name follows it, the resolution's configuration does
    root = make_repo({"go.mod": GO_MOD, "a/a.go": USER, "c/c.go": PACKAGE_C})
    synced, whole = synced_and_whole(root, tmp_path, monkeypatch,
                                     lambda r: (r / "go.mod").write_text(GO_MOD.replace("example.com/m", "example.com/z")))
    assert answer(whole, "a/a.go", 3, "example.com/m/c") == "external"  # another module's path now
    assert answer(whole, "a/a.go", 6, "Hello") == "external"
    assert synced == whole


def test_a_crate_renamed_in_cargo_toml_takes_the_paths_through_its_name(make_repo, tmp_path, monkeypatch):
    # tests/ reach their crate by its Cargo.toml name (`refs.rust.crate_names`)
    root = make_repo({"Cargo.toml": '[package]\nname = "kit"\nversion = "0.1.0"\n',
                      "src/lib.rs": "pub fn hello() -> i32 {\n    1\n}\n",
                      "tests/t.rs": "use kit::hello;\n\n#[test]\nfn t() {\n    hello();\n}\n"})
    synced, whole = synced_and_whole(root, tmp_path, monkeypatch, lambda r: (r / "Cargo.toml").write_text(
        '[package]\nname = "tool"\nversion = "0.1.0"\n'))
    assert answer(whole, "tests/t.rs", 1, "kit::hello") == "external"
    assert synced == whole
