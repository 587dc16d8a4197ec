"""Python instance attributes as definitions (round 10, fields as definitions).

`self.user_middleware = []` in a method defines the attribute `user_middleware` of the class: an
agent asking where it is defined, or who reads it, gets a `file:line` answer. One definition per
class and name: the first assignment that shows the attribute's class, else the first in a
set-up method (`__init__`, `setUp`, ...), else the first in source order; a name the class body
binds itself (a class attribute, a method) is not defined again. Reads through `self` are
references; a chain through an attribute whose class is unknown resolves as it did before the
attribute was a symbol, and a base class's method of the name stays what `self.name()` calls."""
from __future__ import annotations

import pytest

from cruxe.errors import CruxeError
from cruxe.extract import extract
from cruxe.index import run_index
from cruxe.refs import find_references
from cruxe.tools import Server

from support.repos import indexed_files

HANDLER = '''\
import logging

logger = logging.getLogger("handlers")


class Connection:
    def close(self):
        pass


class BaseHandler:
    """Loads the middleware chain and answers requests."""

    _view_middleware = None

    def reset(self):
        self.settings = None

    def __init__(self, settings):
        self.settings = settings
        self._exception_middleware = []
        self.user_middleware, self.sessions = [], {}
        self.cache = self.store = {}

    def load_middleware(self, is_async=False):
        self._view_middleware = []
        self._middleware_chain = self._get_response
        self.conn = Connection()
        self.user_middleware.append(is_async)
        return self.user_middleware

    def _get_response(self, request):
        self.retries += 1
        for self.cursor in request:
            pass
        return self._middleware_chain(request)

    def close(self):
        self.conn.close()


class AsyncHandler(BaseHandler):
    def setup(handler):
        handler.routes = {}
        logger.debug("%s", handler.routes)

    def describe(self):
        return self.user_middleware
'''

STREAM = '''\
class Stream:
    def __init__(self):
        self.flush = None
        self.buffer = []

    def flush(self):
        self.buffer.clear()


class Buffered(Stream):
    def __init__(self, target):
        self.flush = target.flush
        self.target = target

    def write(self, text):
        self.buffer.append(text)
        self.flush()
        self.target.flush()


def drain(s: Stream):
    s.flush()


def flush(streams):
    for s in streams:
        drain(s)
'''


def _fields(src: str, path: str = "handlers/base.py") -> dict[str, tuple[int, str, str]]:
    fx = extract(path, src.encode(), "python")
    return {s.qualified_name: (s.line_start, s.kind, s.signature) for s in fx.symbols
            if s.kind in ("variable", "constant") and s.parent is not None}


def test_each_form_of_instance_attribute_is_a_variable_of_its_class():
    got = _fields(HANDLER)
    assert got["handlers.base.BaseHandler.user_middleware"] == (22, "variable", "self.user_middleware, self.sessions = [], {}")
    assert got["handlers.base.BaseHandler.sessions"][0] == 22
    assert got["handlers.base.BaseHandler.cache"] == got["handlers.base.BaseHandler.store"] == \
        (23, "variable", "self.cache = self.store = {}")
    assert got["handlers.base.BaseHandler._exception_middleware"][0] == 21
    # assigned outside the set-up method only: its first assignment
    assert got["handlers.base.BaseHandler._middleware_chain"] == \
        (27, "variable", "self._middleware_chain = self._get_response")
    # `__init__`'s assignment, not `reset`'s earlier one
    assert got["handlers.base.BaseHandler.settings"] == (20, "variable", "self.settings = settings")
    # the class's own binding stays the one definition; `+=` and a loop target define nothing
    assert got["handlers.base.BaseHandler._view_middleware"] == (14, "variable", "_view_middleware = None")
    assert "handlers.base.BaseHandler.retries" not in got and "handlers.base.BaseHandler.cursor" not in got
    # the first parameter is the object whatever its name
    assert got["handlers.base.AsyncHandler.routes"] == (44, "variable", "handler.routes = {}")
    # a typed attribute keeps the signature the resolver reads its class from
    assert got["handlers.base.BaseHandler.conn"] == (28, "variable", "self.conn = Connection()")


def test_a_method_of_the_class_is_not_defined_again_by_an_assignment():
    got = _fields(STREAM, "io_/stream.py")
    assert "io_.stream.Stream.flush" not in got and got["io_.stream.Stream.buffer"][0] == 4
    assert got["io_.stream.Buffered.flush"] == (12, "variable", "self.flush = target.flush")


@pytest.fixture
def handler(tmp_path):
    return indexed_files(tmp_path / "repo", tmp_path / "home",
                         {"handlers/base.py": HANDLER, "handlers/__init__.py": "",
                          "io_/stream.py": STREAM, "io_/__init__.py": ""})


def test_locate_outline_and_search_show_the_attribute(make_repo):
    root = make_repo({"handlers/base.py": HANDLER, "handlers/__init__.py": ""})
    run_index(root)
    server = Server(root)
    for args in ({"name": "user_middleware"}, {"name": "BaseHandler.user_middleware"},
                 {"name": "user_middleware", "kind": "variable"}):
        payload, is_error = server.call_tool("locate_symbol", args)
        assert not is_error, payload
        assert [(r["path"], r["line_start"], r["kind"]) for r in payload["results"]] == \
            [("handlers/base.py", 22, "variable")], args
    payload, is_error = server.call_tool("get_file_outline", {"path": "handlers/base.py"})
    assert not is_error, payload
    text = str(payload)
    for name in ("user_middleware", "_middleware_chain", "sessions", "routes"):
        assert f"'{name}'" in text, name
    payload, is_error = server.call_tool("search_code", {"query": "user_middleware"})
    assert not is_error, payload
    assert ("handlers/base.py", 22) in [(r["path"], r["line_start"]) for r in payload["results"]]


def test_find_references_lists_the_reads_of_an_attribute(handler):
    gen, repo, ref = handler
    # read in the class and in a subclass (line 48), through `self`
    got = find_references(gen, repo, ref, "BaseHandler.user_middleware")
    assert got["symbol"]["line_start"] == 22
    assert [(r["path"], r["line_start"]) for r in got["references"]] == \
        [("handlers/base.py", 29), ("handlers/base.py", 30), ("handlers/base.py", 48)]
    # called through `self`: the attribute's call is a use of it
    got = find_references(gen, repo, ref, "_middleware_chain")
    assert [(r["path"], r["line_start"]) for r in got["references"]] == [("handlers/base.py", 36)]


def test_a_chain_through_a_typed_attribute_still_resolves(handler):
    gen, repo, ref = handler
    got = find_references(gen, repo, ref, "Connection.close")
    assert [(r["path"], r["line_start"]) for r in got["references"]] == [("handlers/base.py", 39)]


def test_a_field_named_like_a_method_leaves_the_method_s_callers_alone(handler):
    gen, repo, ref = handler
    got = find_references(gen, repo, ref, "Stream.flush")
    # `self.flush()` in the subclass that assigns `self.flush` is the base's method as before;
    # `self.target.flush()` reads an attribute whose class is unknown: a candidate, not a call
    assert got["symbol"]["kind"] == "method"
    assert [(r["path"], r["line_start"]) for r in got["references"]] == [("io_/stream.py", 17), ("io_/stream.py", 22)]
    # the bare name means the function and the method, not the subclass's field: the field is
    # listed apart, and `path` answers for the function as before
    with pytest.raises(CruxeError) as err:
        find_references(gen, repo, ref, "flush")
    assert err.value.code == "ambiguous_symbol"
    assert sorted(d["kind"] for d in err.value.data["definitions"]) == ["function", "method"]
    answer = find_references(gen, repo, ref, "flush", path="io_/stream.py")
    assert [d["qualified_name"] for d in answer["definitions"]] == ["io_.stream.Stream.flush", "io_.stream.flush"]
    assert [d["qualified_name"] for d in answer["fields"]] == ["io_.stream.Buffered.flush"]


def test_the_symbol_cap_keeps_a_class_with_its_attributes(monkeypatch):
    import cruxe.extract as ex
    monkeypatch.setattr(ex, "MAX_SYMBOLS_PER_FILE", 8)
    fx = extract("handlers/base.py", HANDLER.encode(), "python")
    assert len(fx.symbols) == 8 and any("symbols, more than the 8 kept" in w for w in fx.warnings)
    kept = [s.qualified_name for s in fx.symbols]
    assert "handlers.base.BaseHandler.settings" in kept and "handlers.base.AsyncHandler.routes" not in kept
    assert all(s.parent is None or s.parent < i for i, s in enumerate(fx.symbols))


def test_a_chain_through_an_untyped_attribute_resolves_as_before(make_repo):
    """`self.model_admin` is assigned from a call's tuple (no class shown): the call on it is the
    repository's one method of that name, as when the attribute was no symbol, however the
    assignment is laid out (a parenthesised tuple of targets starts its statement with `(`)."""
    root = make_repo({"admin.py": """\
class ModelAdmin:
    def get_search_results(self, request, queryset):
        return queryset
""", "views.py": """\
from generic import BaseListView


class AutocompleteJsonView(BaseListView):
    def get(self, request):
        (
            self.term,
            self.model_admin,
        ) = self.process_request(request)

    def get_queryset(self):
        return self.model_admin.get_search_results(self.request, None)
"""})
    run_index(root)
    got = _fields((root / "views.py").read_text(), "views.py")
    assert got["views.AutocompleteJsonView.model_admin"] == \
        (8, "variable", "( self.term, self.model_admin, ) = self.process_request(request)")
    server = Server(root)
    payload, is_error = server.call_tool("find_references", {"symbol_name": "ModelAdmin.get_search_results"})
    assert not is_error, payload
    assert [(r["path"], r["line_start"]) for r in payload["references"]] == [("views.py", 12)]


def test_a_field_named_like_its_class_ranks_below_the_class(make_repo):
    """dateutil's `class weekday` assigns `self.weekday = weekday`: `weekday` asks for the class
    (and the other definitions of the name), the field comes after them."""
    root = make_repo({"_common.py": """\
class weekday(object):
    __slots__ = ["weekday", "n"]

    def __init__(self, weekday, n=None):
        self.weekday = weekday
        self.n = n
""", "parser.py": """\
class parserinfo:
    def weekday(self, name):
        return name
"""})
    run_index(root)
    payload, is_error = Server(root).call_tool("locate_symbol", {"name": "weekday"})
    assert not is_error, payload
    got = [(r["path"], r["kind"]) for r in payload["results"]]
    assert sorted(got[:2]) == [("_common.py", "class"), ("parser.py", "method")] and got[2:] == [("_common.py", "variable")]


def test_only_a_whole_constructor_call_types_an_attribute(make_repo):
    """`self.cache = LFUCache(n) if n else {}` holds an LFUCache or a dict: its signature starts
    like a constructor's, but extraction reads no class from it, and neither does the resolver."""
    root = make_repo({"cache.py": """\
class LFUCache:
    def __init__(self, size):
        self.size = size

    def get(self, key):
        return None


class Differ:
    def __init__(self, n):
        self.cache = LFUCache(n) if n else {}
        self.made = LFUCache(n)  # the cache

    def lookup(self, key):
        self.made.get(key)
        return self.cache.get(key)
"""})
    run_index(root)
    payload, is_error = Server(root).call_tool("find_references", {"symbol_name": "LFUCache.get"})
    assert not is_error, payload
    assert [(r["path"], r["line_start"]) for r in payload["references"]] == [("cache.py", 15)]
