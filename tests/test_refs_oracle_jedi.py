"""bench/refs_oracle.py --adjudicate jedi: the three verdicts on a site scip does not confirm.

Needs jedi (a requirement of that bench option only); skipped without it. Nothing is indexed:
the verdicts are asked of a small corpus written here, with Cruxe's rows written by hand."""
from __future__ import annotations

import textwrap

import pytest

from support.benches import BENCH, load

pytest.importorskip("jedi")
oracle = load(BENCH / "refs_oracle.py")

A = """\
class Writer:
    def flush(self):
        pass


class Other:
    def flush(self):
        pass


def make(mystery):
    w = Writer()
    w.flush()
    o = Other()
    o.flush()
    mystery.flush()
    flush = o.flush
    pair = (o.flush, mystery.flush)
"""
B = """\
from pkg.a import Writer as W

W().flush()
"""
WRITER = ("pkg/a.py", "Writer", 1, 3, "pkg.a.Writer", "class")
FLUSH = ("pkg/a.py", "flush", 2, 3, "pkg.a.Writer.flush", "method")


@pytest.fixture(scope="module")
def judge(tmp_path_factory):
    root = tmp_path_factory.mktemp("corpus")
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "a.py").write_text(textwrap.dedent(A))
    (root / "pkg" / "b.py").write_text(B)
    return oracle.JediJudge(root)


def verdicts(judge, *asks):
    return [v for v, _ in oracle.adjudicate(judge, list(asks))]


def test_a_typed_receiver_confirms_or_contradicts(judge):
    assert verdicts(judge, (FLUSH, ("pkg/a.py", 13)), (FLUSH, ("pkg/a.py", 15))) == ["confirmed", "other"]


def test_an_unknown_receiver_is_undecided(judge):
    assert verdicts(judge, (FLUSH, ("pkg/a.py", 16))) == ["undecided"]


def test_other_needs_every_use_answered_elsewhere(judge):
    # `flush = o.flush`: the assigned local is a definition, no use; o.flush is Other's;
    # `(o.flush, mystery.flush)`: the site may mean the use jedi cannot answer
    (first, record), (second, _) = oracle.adjudicate(judge, [(FLUSH, ("pkg/a.py", 17)), (FLUSH, ("pkg/a.py", 18))])
    assert (first, record["occurrences"], second) == ("other", 1, "undecided")


def test_a_line_without_the_name_can_only_confirm(judge):
    # `W().flush()` names Writer through an alias: some identifier there reaches Writer
    assert verdicts(judge, (WRITER, ("pkg/b.py", 3))) == ["confirmed"]
    # a line holding neither the name nor a use of it is no disagreement; nor is a value of
    # the class (`w.flush()`, w a Writer) a use of it
    assert verdicts(judge, (WRITER, ("pkg/a.py", 13))) == ["undecided"]
    assert verdicts(judge, (WRITER, ("pkg/a.py", 15))) == ["undecided"]
