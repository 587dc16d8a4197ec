"""A qualified `pkg.Name` follows the package's re-exports (issue 17, third Python probe, item 0:
`attr.evolve` answered only `attr/__init__.pyi`'s stub, and `werkzeug.Request` put
`sansio/request.py`'s same-named class above the `wrappers.request.Request` that
`werkzeug/__init__.py` imports). The definition the package's module-level imports bind comes
first; the stub and the other same-named classes stay listed after it, and find_references on
the name still answers one definition."""
from __future__ import annotations

from cruxe.index import run_index
from cruxe.tools import Server

from support.references import refs, sites

FILES = {
    "src/pkg/__init__.py": ("from ._funcs import evolve\nfrom .wrappers import Request as Request\n"
                            "from .other import Thing as Renamed\n\n__all__ = ['evolve', 'Request']\n"),
    # the stub declares the package's API again, under the package's own qualified name
    "src/pkg/__init__.pyi": "def evolve(inst: object, **changes: object) -> object: ...\n",
    "src/pkg/_funcs.py": "def evolve(inst, **changes):\n    return inst\n",
    "src/pkg/sansio/__init__.py": "",
    "src/pkg/sansio/request.py": "class Request:\n    pass\n",
    "src/pkg/wrappers/__init__.py": "from .request import Request as Request\n",
    "src/pkg/wrappers/request.py": "from ..sansio.request import Request as _Base\n\n\nclass Request(_Base):\n    pass\n",
    "src/pkg/other.py": "class Thing:\n    pass\n\n\nclass Renamed:\n    pass\n",
    "examples/app.py": "import pkg\n\n\nclass Request(pkg.Request):\n    pass\n\n\npkg.evolve(Request())\n",
}


def _results(root, tool: str, args: dict) -> list[tuple[str, int]]:
    payload, is_error = Server(root).call_tool(tool, args)
    assert not is_error, payload
    return [(r["path"], r["line_start"]) for r in payload["results"]]


def _locate(root, name: str) -> list[tuple[str, int]]:
    return _results(root, "locate_symbol", {"name": name})


def test_a_package_qualified_name_finds_the_definition_its_init_imports_first(make_repo):
    root = make_repo(FILES)
    run_index(root)
    assert _locate(root, "pkg.evolve") == [("src/pkg/_funcs.py", 1), ("src/pkg/__init__.pyi", 1)]
    # the other class of that name in the package stays listed, after it
    assert _locate(root, "pkg.Request") == [("src/pkg/wrappers/request.py", 4), ("src/pkg/sansio/request.py", 1)]
    # through the subpackage that re-exports it too
    assert _locate(root, "pkg.wrappers.Request")[0] == ("src/pkg/wrappers/request.py", 4)


def test_an_import_under_another_name_binds_no_re_export_of_the_first(make_repo):
    root = make_repo(FILES)
    run_index(root)
    assert _locate(root, "pkg.other.Renamed") == [("src/pkg/other.py", 5)]
    assert _locate(root, "pkg.Renamed") == [("src/pkg/other.py", 5)]


def test_find_references_on_the_package_name_answers_the_one_implementation(make_repo):
    root = make_repo(FILES)
    run_index(root)
    out = refs(root, "pkg.evolve")
    assert out["symbol"]["path"] == "src/pkg/_funcs.py" and "definitions" not in out
    assert ("examples/app.py", 8) in sites(out["references"])
    out = refs(root, "pkg.Request")
    assert out["symbol"]["path"] == "src/pkg/wrappers/request.py" and "definitions" not in out
    assert ("examples/app.py", 4) in sites(out["references"])


# httpx's style: the package star-imports its modules, each listing its API in `__all__`
STARRED = {
    "httpx/__init__.py": "from ._api import *\nfrom ._models import *\nfrom ._transports import *\n",
    "httpx/_api.py": "__all__ = [\n    \"get\",\n]\n\n\ndef get(url):\n    return url\n\n\ndef _helper():\n    pass\n",
    "httpx/_models.py": ("__all__ = ['Headers']\n\n\nclass Headers:\n    def get(self, key):\n        return key\n\n\n"
                         "def unlisted():\n    pass\n"),
    "httpx/_transports/__init__.py": "from .mock import *\n",
    "httpx/_transports/mock.py": "class MockTransport:\n    pass\n",
    "other/get.py": "def get(x):\n    return x\n",
    "use.py": "import httpx\n\nhttpx.get('https://example.org')\n",
}


def test_a_package_name_follows_star_imports_and_their_all(make_repo):
    root = make_repo(STARRED)
    run_index(root)
    assert _locate(root, "httpx.get")[0] == ("httpx/_api.py", 6)
    assert _locate(root, "httpx.MockTransport") == [("httpx/_transports/mock.py", 1)]
    out = refs(root, "httpx.get")
    assert out["symbol"]["path"] == "httpx/_api.py" and "definitions" not in out
    assert ("use.py", 3) in sites(out["references"])


def test_a_star_import_exports_only_what_all_lists(make_repo):
    root = make_repo({**STARRED, "httpx/a.py": "def unlisted():\n    pass\n"})
    run_index(root)
    # `unlisted` is not in _models' __all__: the star import does not bind it in the package,
    # so neither definition is what `httpx.unlisted` means (the plain order: shorter path first)
    assert _locate(root, "httpx.unlisted") == [("httpx/a.py", 1), ("httpx/_models.py", 9)]


def _search(root, query: str) -> list[tuple[str, int]]:
    return _results(root, "search_code", {"query": query})


def test_search_code_on_a_package_name_puts_the_re_exported_definition_first(make_repo):
    root = make_repo(FILES)
    run_index(root)
    assert _search(root, "pkg.evolve")[0] == ("src/pkg/_funcs.py", 1)
    assert _search(root, "pkg.Request")[0] == ("src/pkg/wrappers/request.py", 4)
    starred = make_repo(STARRED, name="starred")
    run_index(starred)
    assert _search(starred, "httpx.get")[0] == ("httpx/_api.py", 6)
