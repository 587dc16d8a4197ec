"""A name defined once with a body and again in declaration files (`.pyi` stubs, `.d.ts`):
`find_references` without `path` answers the definition with a body, the calls resolved to its
stubs included, instead of an ambiguity error (attrs and werkzeug ship stubs beside their code)."""
from __future__ import annotations

import pytest

from cruxe.errors import CruxeError
from cruxe.index import run_index

from support.references import refs, sites

STUBBED = {
    "pkg/_make.py": "def define(cls=None, *, frozen=False):\n    return cls\n",
    "pkg/__init__.py": "from ._make import define\n",
    "pkg/__init__.pyi": "def define(cls: type = ..., *, frozen: bool = ...) -> type: ...\n",
    "app.py": "from pkg._make import define\n\n\n@define\nclass Point:\n    x: int\n\n\nP = define(Point, frozen=True)\n",
}


def test_a_stubbed_name_is_answered_by_its_body(make_repo):
    root = make_repo(STUBBED)
    run_index(root)
    got = refs(root, "define")
    assert got["symbol"]["path"] == "pkg/_make.py"
    assert {("app.py", 4), ("app.py", 9)} <= set(sites(got["references"]))


def test_two_bodies_beside_a_stub_are_still_ambiguous(make_repo):
    root = make_repo({**STUBBED, "other/define.py": "def define(x):\n    return x\n"})
    run_index(root)
    with pytest.raises(CruxeError) as e:
        refs(root, "define")
    assert e.value.code == "ambiguous_symbol" and e.value.data["definition_count"] == 3
