"""Python's parser is entered one thread at a time (CI run of 2026-11-27: a search during
concurrent syncs failed with CPython 3.11's `SystemError: AST constructor recursion depth
mismatch`). Every call goes through `cruxe.pyparse`, whose lock serialises them."""
from __future__ import annotations

import ast
import threading
from pathlib import Path

import cruxe
from cruxe import pyparse

PACKAGE = Path(cruxe.__file__).parent
PARSERS = {"parse", "literal_eval"}


def test_no_module_parses_python_but_pyparse():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "pyparse.py" and path.parent == PACKAGE:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Attribute) and node.attr in PARSERS
                    and isinstance(node.value, ast.Name) and node.value.id == "ast"):
                found.append(f"{path.name}:{node.lineno} ast.{node.attr}")
            elif isinstance(node, ast.ImportFrom) and node.module == "ast":
                found += [f"{path.name}:{node.lineno} from ast import {a.name}"
                          for a in node.names if a.name in PARSERS]
    assert found == []


def test_a_parse_waits_for_the_one_in_progress():
    done = threading.Event()

    def parse():
        pyparse.parse("def f():\n    pass\n")
        done.set()

    with pyparse._LOCK:  # another thread is building a tree
        worker = threading.Thread(target=parse)
        worker.start()
        assert not done.wait(0.2)
    worker.join(5)
    assert done.is_set()


def test_results_and_errors_are_the_standard_library_s():
    assert isinstance(pyparse.parse("x = 1").body[0], ast.Assign)
    assert pyparse.literal_eval("('a', [1, {2: 3}])") == ("a", [1, {2: 3}])
    for bad, call in (("def (", pyparse.parse), ("f()", pyparse.literal_eval)):
        try:
            call(bad)
        except (SyntaxError, ValueError):
            pass
        else:
            raise AssertionError(f"{bad!r} parsed")
