"""Python references the seventh probe (structlog, cachetools, toolz, webob, mistune) met:
a package's `__init__` that imports from its own submodule (`from .functoolz import *`) has the
submodule's name bound in its namespace too (importing a submodule sets it as an attribute of
the package, whose namespace is the `__init__`'s globals). toolz's `__init__` then calls
`functoolz._sigs.create_signature_registry()`: the call was left unresolved, the bare name
`functoolz` bound by no import the resolver knew of. A name the `__init__` never imports from
stays unbound (a sibling module imported nowhere there is not an attribute yet)."""
from __future__ import annotations

import pytest

from cruxe.errors import CruxeError
from cruxe.index import run_index
from cruxe.tools import Server

from support.references import refs, sites

FILES = {
    "fnz/setup.py": "from setuptools import setup\n\nsetup(name='fnz')\n",
    "fnz/fnz/__init__.py": ("from .functoolz import *\n"
                            "from .dicttoolz import merge\n\n"
                            "functoolz._sigs.create_registry()\n"
                            "dicttoolz.merge({}, {})\n"
                            "recipes.countby(len, [])\n"),
    "fnz/fnz/functoolz.py": ("__all__ = ('identity',)\n\n\n"
                             "def identity(x):\n"
                             "    return x\n\n\n"
                             "from . import _signatures as _sigs\n"),
    "fnz/fnz/_signatures.py": "def create_registry():\n    return {}\n",
    "fnz/fnz/dicttoolz.py": "def merge(*dicts):\n    return {}\n",
    "fnz/fnz/recipes.py": "def countby(key, seq):\n    return {}\n",
}


def test_an_init_reaches_the_submodules_it_imports_from_by_their_names(make_repo):
    root = make_repo(FILES)
    run_index(root)
    assert sites(refs(root, "create_registry")["references"]) == [("fnz/fnz/__init__.py", 4)]
    assert ("fnz/fnz/__init__.py", 5) in sites(refs(root, "merge")["references"])


def test_a_submodule_the_init_does_not_import_stays_unbound(make_repo):
    root = make_repo(FILES)
    run_index(root)
    answer = refs(root, "countby")
    assert sites(answer["references"]) == []
    assert answer["unresolved_count"] == 1


# A qualified `Class.member` the class inherits: locate_symbol answered nothing for
# `LRUCache.maxsize` (cachetools' `Cache.maxsize`), nor for django's `HttpResponse.set_cookie`
# or `ModelForm.is_valid`, since no definition's qualified name or path says `LRUCache`.
CACHES = {
    "kit/kit/__init__.py": "from .caches import Cache, LRUCache, TTLCache\n",
    "kit/kit/base.py": ("import collections.abc\n\n\n"
                        "class Cache(collections.abc.MutableMapping):\n"
                        "    def __init__(self, maxsize):\n"
                        "        self.__maxsize = maxsize\n\n"
                        "    @property\n"
                        "    def maxsize(self):\n"
                        "        return self.__maxsize\n\n"
                        "    def clear(self):\n"
                        "        return None\n"),
    "kit/kit/mixins.py": ("class Locked:\n"
                          "    def clear(self):\n"
                          "        return 'locked'\n"),
    "kit/kit/caches.py": ("from .base import Cache\n"
                         "from .mixins import Locked\n\n\n"
                         "class LRUCache(Cache):\n"
                         "    def popitem(self):\n"
                         "        return None\n\n\n"
                         "class TTLCache(Locked, LRUCache):\n"
                         "    pass\n"),
    "kit/kit/other.py": ("class Cache:\n"
                         "    def maxsize(self):\n"
                         "        return 0\n"),
    "kit/app.py": ("from kit import TTLCache\n\n\n"
                   "def size(c: TTLCache):\n"
                   "    return c.maxsize\n"),
}


def locator(server: Server):
    """`locate(name)`: the (path, line) of each result of locate_symbol for `name`."""
    def locate(name: str) -> list[tuple[str, int]]:
        payload, is_error = server.call_tool("locate_symbol", {"name": name})
        assert not is_error, payload
        return [(r["path"], r["line_start"]) for r in payload["results"]]
    return locate


def test_a_class_member_it_inherits_is_its_repository_base_s(make_repo):
    root = make_repo(CACHES)
    run_index(root)
    locate = locator(Server(root))

    # the base the header's name resolves to (base.py's Cache, not other.py's), through two levels
    assert locate("LRUCache.maxsize") == [("kit/kit/base.py", 8)]
    assert locate("TTLCache.maxsize") == [("kit/kit/base.py", 8)]
    # bases in order, depth first: the mixin listed first wins
    assert locate("TTLCache.clear") == [("kit/kit/mixins.py", 2)]
    assert locate("LRUCache.clear") == [("kit/kit/base.py", 12)]
    # a member the class defines itself is answered as before; one nobody defines, not at all
    assert locate("LRUCache.popitem") == [("kit/kit/caches.py", 6)]
    assert locate("LRUCache.setdefault") == []
    answer = refs(root, "TTLCache.maxsize")
    assert answer["symbol"]["path"] == "kit/kit/base.py" and answer["symbol"]["line_start"] == 8


def test_a_member_only_subclasses_define_is_answered_by_their_overrides(make_repo):
    # cachetools' `Cache.popitem`: `Cache` inherits it from `collections.abc.MutableMapping`,
    # every cache overrides it; locate_symbol answered nothing
    root = make_repo({**CACHES, "kit/kit/more.py": ("from .caches import TTLCache\n\n\n"
                                                   "class TimedCache(TTLCache):\n"
                                                   "    def popitem(self):\n"
                                                   "        return 1\n\n\n"
                                                   "class Unrelated:\n"
                                                   "    def popitem(self):\n"
                                                   "        return 2\n")})
    run_index(root)
    locate = locator(Server(root))

    # LRUCache's directly, TimedCache's through TTLCache and LRUCache; not Unrelated's
    assert sorted(locate("Cache.popitem")) == [("kit/kit/caches.py", 6), ("kit/kit/more.py", 5)]
    assert locate("TTLCache.popitem") == [("kit/kit/caches.py", 6)]  # inherited from LRUCache: as before
    # `Locked` is a base of TTLCache and so of TimedCache; LRUCache, whose popitem TTLCache
    # inherits, is no subclass of it
    assert locate("Locked.popitem") == [("kit/kit/more.py", 5)]
    assert locate("Cache.setdefault") == []
    # find_references reads the name the same way: the overrides are its definitions, each
    # one's arguments a working remedy
    with pytest.raises(CruxeError) as e:
        refs(root, "Cache.popitem")
    assert e.value.code == "ambiguous_symbol"
    picked = [d["arguments"] for d in e.value.data["definitions"]]
    assert sorted((a["path"], a["line"]) for a in picked) == [("kit/kit/caches.py", 6), ("kit/kit/more.py", 5)]
    for a in picked:
        assert refs(root, a["symbol_name"], path=a["path"], line=a["line"])["symbol"]["line_start"] == a["line"]
