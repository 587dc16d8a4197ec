"""The rules of the test support itself: tests and benches share code through `support/` only
(no test imports another test, no bench imports a test), every corpus and oracle location is
spelled once (`support/locations.py`), and a missing oracle is treated like a missing corpus:
skipped on a developer's machine, a failure in CI."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from support import locations
from support.locations import REPO_ROOT, kit_locations, require_oracle

TESTS = REPO_ROOT / "tests"
# a machine path of the benchmark kit or of a corpus, anywhere in a test's text
MACHINE_PATH = re.compile(r"/work/shared|/usr/share/go-1\.19|/usr/share/cargo/registry|/usr/src/rustc|/tmp/corpora")


def _imported_modules(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def _test_like(module: str) -> bool:
    top = module.split(".")[0]
    return top == "conftest" or top.startswith(("test_", "_transport", "extract_support"))


def test_tests_and_benches_import_no_test_module():
    offenders = {}
    for path in [*TESTS.glob("*.py"), *TESTS.glob("support/*.py"), *(REPO_ROOT / "bench").rglob("*.py")]:
        bad = sorted(m for m in _imported_modules(path) if _test_like(m))
        if bad:
            offenders[str(path.relative_to(REPO_ROOT))] = bad
    assert offenders == {}


def _touches_sys_path(path: Path) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr == "path" and isinstance(n.value, ast.Name)
               and n.value.id == "sys" for n in ast.walk(ast.parse(path.read_text(), str(path))))


def test_tests_put_nothing_on_sys_path():
    # pytest puts tests/ on sys.path; a test that adds a directory reaches for code outside support
    offenders = [p.name for p in TESTS.glob("test_*.py") if _touches_sys_path(p)]
    assert offenders == []


def test_no_test_spells_a_machine_path_of_the_kit_or_a_corpus():
    spelled_here = ("locations.py", Path(__file__).name)  # the one home, and this test's pattern
    offenders = [str(p.relative_to(REPO_ROOT)) for p in [*TESTS.glob("*.py"), *TESTS.glob("support/*.py")]
                 if p.name not in spelled_here and MACHINE_PATH.search(p.read_text())]
    assert offenders == []


def test_the_oracles_come_from_one_variable_then_the_kit(tmp_path):
    main, worktree = tmp_path / "a" / "main", tmp_path / "a" / "wt" / "branch"
    (tmp_path / "a" / "shared" / "bench").mkdir(parents=True)
    kit = tmp_path / "a" / "shared"
    for checkout in (main, worktree):  # beside the checkout, or beside a parent of a worktree
        checkout.mkdir(parents=True)
        assert kit_locations({}, checkout) == (kit, kit / "bench" / "oracles")
    assert kit_locations({"CRUXE_SHARED": "/kit"}, main) == (Path("/kit"), Path("/kit/bench/oracles"))
    assert kit_locations({"CRUXE_SHARED": "/kit", "CRUXE_ORACLES": "/o"}, main)[1] == Path("/o")
    alone = tmp_path / "b" / "checkout"
    alone.mkdir(parents=True)
    assert kit_locations({}, alone)[0] == tmp_path / "b" / "shared"  # no kit anywhere: named in the remedy


def test_a_missing_oracle_is_skipped_locally_and_fails_in_ci(monkeypatch, tmp_path):
    monkeypatch.setattr(locations, "ORACLES", tmp_path)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="no_such_oracle"):
        require_oracle("no_such_oracle")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CRUXE_ORACLES"):
        require_oracle("no_such_oracle")
    (tmp_path / "here.py").write_text("")
    assert require_oracle("here.py") == tmp_path / "here.py"
