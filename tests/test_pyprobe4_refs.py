"""Python receivers the fourth probe (urllib3, packaging, tomlkit, itsdangerous) met:
- an instance attribute annotated with a generic class and no value (`self.pools:
  RecentlyUsedContainer[PoolKey, Pool]`, the value assigned on the next line): the class is
  `RecentlyUsedContainer`, so `self.pools.clear()` is its `clear` (it was left unresolved);
- a local whose value another library's call returned (`parsed = email.parser.Parser().parsestr(
  data)`): `parsed.get_all(name)` is that library's method, never the repository's one method of
  that name (packaging's metadata parser was listed as a caller of urllib3's buffer `get_all`),
  except a copy's (`copy.copy(x)`, `deepcopy(x)`: the argument's class);
- a property without a return annotation (tomlkit's `Parser._current`, returning `self._src.current`):
  a value of unknown class, so `self._current.is_ws()` reaches the repository's one `is_ws`, as an
  untyped attribute does (it was left unresolved: 11 calls of `TOMLChar.is_*` missing)."""
from __future__ import annotations

from cruxe.index import run_index

from support.references import refs, sites

FILES = {
    "pool/__init__.py": "",
    "pool/container.py": ("import typing\n\nK = typing.TypeVar('K')\nV = typing.TypeVar('V')\n\n\n"
                          "class RecentlyUsed(typing.Generic[K, V]):\n"
                          "    def __init__(self, size):\n        self.size = size\n\n"
                          "    def evict_all(self):\n        return []\n"),
    "pool/manager.py": ("from .container import RecentlyUsed\n\n\nclass Manager:\n"
                        "    def __init__(self, size):\n"
                        "        self.pools: RecentlyUsed[str, int]\n"
                        "        self.pools = RecentlyUsed(size)\n"
                        "        self.spare: 'RecentlyUsed[str, int]' = RecentlyUsed(1)\n\n"
                        "    def clear(self):\n        self.pools.evict_all()\n        self.spare.evict_all()\n"),
    "pool/buffer.py": ("class Buffer:\n    def get_every(self):\n        return b''\n\n"
                       "    def capacity(self):\n        return 1\n\n\n"
                       "def make_buffer():\n    return Buffer()\n\n\n"
                       "def drain(buf: Buffer):\n    return buf.get_every()\n"),
    "pool/meta.py": ("import copy\nimport email.parser\nfrom copy import deepcopy\n"
                     "from email.parser import BytesParser\n\n"
                     "from .buffer import make_buffer\n\n\n"
                     "def parse(data):\n"
                     "    if isinstance(data, str):\n"
                     "        parsed = email.parser.Parser(policy=None).parsestr(data)\n"
                     "    else:\n"
                     "        parsed = email.parser.BytesParser(policy=None).parsebytes(data)\n"
                     "    return parsed.get_every('name')\n\n\n"
                     "def untyped(buf):\n    return buf.get_every()\n\n\n"
                     "def single(data):\n    msg = BytesParser().parsebytes(data)\n    return msg.get_every('to')\n\n\n"
                     "def copied(buf):\n    other = copy.copy(buf)\n    again = deepcopy(buf)\n"
                     "    return other.get_every() + again.get_every()\n\n\n"
                     "def reads():\n    b = make_buffer()\n    return b.capacity\n"),
    "pool/chars.py": ("class Char(str):\n    def is_blank(self):\n        return self in ' \\t'\n\n\n"
                      "class Source:\n    @property\n    def current(self) -> Char:\n        return Char(' ')\n\n\n"
                      "class Reader:\n    def __init__(self):\n        self._src = Source()\n\n"
                      "    @property\n    def _current(self):\n        return self._src.current\n\n"
                      "    @property\n    def _count(self) -> int:\n        return 0\n\n"
                      "    def skip(self):\n        return self._current.is_blank() or self._count.is_blank()\n"),
}


def test_a_generic_annotation_types_the_attribute(make_repo):
    root = make_repo(FILES)
    run_index(root)
    assert sites(refs(root, "evict_all")["references"]) == [("pool/manager.py", 11), ("pool/manager.py", 12)]


def test_a_local_another_library_returned_calls_that_library(make_repo):
    root = make_repo(FILES)
    run_index(root)
    # the typed parameter and the untyped one (the repository's one method of that name) stay, and
    # a copy (`copy.copy`, `deepcopy`) is a value of its argument's class, not the library's
    assert sites(refs(root, "get_every")["references"]) == [("pool/buffer.py", 14), ("pool/meta.py", 18),
                                                             ("pool/meta.py", 29)]
    # a read on a local holding a call's result names nothing (its class is not known)
    assert sites(refs(root, "capacity")["references"]) == []


def test_a_property_without_a_return_annotation_is_a_value_of_unknown_class(make_repo):
    root = make_repo(FILES)
    run_index(root)
    # the annotated property says its class: `int` has no such method, so that call is not listed
    assert sites(refs(root, "is_blank")["references"]) == [("pool/chars.py", 25)]
