"""A package's public name for an overloaded function means its implementation (issue 17,
eighth Python probe: `arrow.get`, which `arrow/__init__.py` imports from `arrow/api.py` where
four `@overload` stubs precede `def get(*args, **kwargs)`, was answered by locate_symbol with
the first stub on top, and by find_references with that stub as `symbol` and the other
definitions' `def get(` lines as its references). The import binds the name, so every
definition of it in that module is re-exported; the implementation heads them, the stubs are
its redefinitions, as when the module's own path is asked for (`pkg.api.get`)."""
from __future__ import annotations

from cruxe.index import run_index
from cruxe.tools import Server

from support.references import refs, sites

FILES = {
    "pkg/__init__.py": "from .api import get, now\n\n__all__ = ['get', 'now']\n",
    "pkg/api.py": ("from typing import Any, overload\n"  # 1
                   "\n"
                   "from .factory import Factory\n"
                   "\n"
                   "_factory = Factory()\n"  # 5
                   "\n"
                   "\n"
                   "@overload\n"
                   "def get(*, locale: str = 'en_us') -> object:\n"  # 9
                   "    ...  # pragma: no cover\n"
                   "\n"
                   "\n"
                   "@overload\n"
                   "def get(__obj: str, *, locale: str = 'en_us') -> object:\n"  # 14
                   "    ...  # pragma: no cover\n"
                   "\n"
                   "\n"
                   "def get(*args: Any, **kwargs: Any) -> object:\n"  # 18
                   "    \"\"\"Calls the default factory's ``get`` method.\"\"\"\n"
                   "    return _factory.get(*args, **kwargs)\n"
                   "\n"
                   "\n"
                   "def now(tz: str = 'local') -> object:\n"  # 23
                   "    return _factory.now(tz)\n"),
    "pkg/factory.py": ("class Factory:\n"
                       "    def get(self, *args, **kwargs):\n"
                       "        return args\n"
                       "\n"
                       "    def now(self, tz):\n"
                       "        return tz\n"),
    "examples/when.py": "import pkg\n\n\ndef start():\n    return pkg.get('2013-05-05 12:30:45')\n",
}


def test_a_re_exported_overloaded_function_is_located_at_its_implementation(make_repo):
    root = make_repo(FILES)
    run_index(root)
    payload, is_error = Server(root).call_tool("locate_symbol", {"name": "pkg.get"})
    assert not is_error, payload
    got = [(r["path"], r["line_start"]) for r in payload["results"]]
    assert got[0] == ("pkg/api.py", 18)
    assert set(got[1:3]) == {("pkg/api.py", 8), ("pkg/api.py", 13)}  # the stubs, from their decorators


def test_find_references_on_the_package_name_answers_the_implementation_with_its_stubs_apart(make_repo):
    root = make_repo(FILES)
    run_index(root)
    out = refs(root, "pkg.get")
    assert (out["symbol"]["path"], out["symbol"]["line_start"]) == ("pkg/api.py", 18)
    assert "definitions" not in out
    listed = sites(out["references"])
    assert ("examples/when.py", 5) in listed
    assert not [s for s in listed if s[0] == "pkg/api.py" and s[1] in (9, 14)]  # no stub's head line
    assert 14 in {r["line_start"] for r in out.get("redefinitions", [])}
    # the same answer as the module's own path gives
    same = refs(root, "pkg.api.get")
    assert same["symbol"] == out["symbol"] and sites(same["references"]) == listed
    assert same.get("redefinitions") == out.get("redefinitions")
