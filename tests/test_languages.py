"""The language registry and the layout of cruxe/languages: what its docstring promises."""
from __future__ import annotations

import ast
import fnmatch
import sys
import tomllib
from pathlib import Path

import cruxe.languages as languages
from cruxe.extract import extract
from cruxe.languages import typescript
from cruxe.languages._common import query_sections

PACKAGE = Path(languages.__file__).parent
ROOT = PACKAGE.parents[1]


def test_a_missing_grammar_disables_only_its_own_language(monkeypatch):
    monkeypatch.setitem(sys.modules, "tree_sitter_go", None)  # `import tree_sitter_go` now fails
    monkeypatch.setattr(languages, "_cache", {})
    assert languages.get_extractor("go") is None
    assert languages.get_extractor("python") is not None
    fx = extract("a.go", b"package a\nfunc F() {}\n", "go")
    assert fx.symbols == [] and fx.warnings == ["a.go: no grammar for go; indexed as text only"]
    assert [s.name for s in extract("a.py", b"def f():\n    pass\n", "python").symbols] == ["f"]


def test_no_language_module_imports_another():
    modules = {p.stem for p in PACKAGE.glob("*.py")} - {"__init__", "_common"}
    assert modules >= {"python", "go", "rust", "typescript"}
    for name in modules:
        for node in ast.walk(ast.parse((PACKAGE / f"{name}.py").read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                imported = {node.module} if node.module else {a.name for a in node.names}
                assert not imported & modules, (name, imported)


def test_every_query_file_is_package_data():
    # without the pyproject line a wheel (and the .pyz built from it) carries no .scm file
    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    files = [p.relative_to(PACKAGE).as_posix() for p in (PACKAGE / "queries").iterdir()]
    assert len(files) >= 4
    for f in files:
        assert f.endswith(".scm") and any(fnmatch.fnmatch(f, g) for g in globs["cruxe.languages"]), f


def test_typescript_sections_are_all_used_and_all_present():
    sections = query_sections("typescript")
    used = {name for names in typescript._SECTIONS.values() for name in names}
    assert used == set(sections)
    assert all("@" in sections[name] for name in used)  # every section holds patterns
