"""`import m` and `from m import m` (issue 17, second Python probe: attrs' `attr/__init__.py`
binds a name `attr`, so every `import attr; attr.define(...)` was read as `from attr import
attr` and its uses left unresolved). Extraction writes the two apart: a from-import of a name
like its module's carries that name as its alias, `import m as m` none."""
from __future__ import annotations

from cruxe.index import run_index

from support.references import refs, sites

FILES = {
    "pkg/__init__.py": "from .core import define\n\n\ndef pkg():\n    return 1\n",
    "pkg/core.py": "def define(cls=None):\n    return cls\n",
    "use.py": "import pkg\n\n\n@pkg.define\nclass A:\n    pass\n\n\npkg.define(A)\n",
    "stub_style.py": "import pkg as pkg\n\npkg.define(None)\n",
    "other.py": "from pkg import pkg\n\nprint(pkg())\n",
}


def test_a_plain_import_of_a_package_that_binds_its_own_name_is_the_package(make_repo):
    root = make_repo(FILES)
    run_index(root)
    assert sites(refs(root, "define", path="pkg/core.py", kind="calls")["references"]) == [
        ("stub_style.py", 3), ("use.py", 9)]
    assert ("use.py", 4) in sites(refs(root, "define", path="pkg/core.py")["references"])
    assert sites(refs(root, "pkg", path="pkg/__init__.py", kind="calls")["references"]) == [("other.py", 3)]


STUBBED = {
    "pkg/__init__.py": "",
    "pkg/etag.py": ("class ETags:\n    def __init__(self, weak=()):\n        self._weak = set(weak)\n\n"
                    "    def contains_weak(self, etag):\n        return etag in self._weak\n"),
    # a stub file beside its module declares the same method again
    "pkg/etag.pyi": ("class ETags:\n    def __init__(self, weak: tuple[str, ...] = ...) -> None: ...\n"
                     "    def contains_weak(self, etag: str) -> bool: ...\n"),
    "use.py": "def modified(if_none_match, etag):\n    return not if_none_match.contains_weak(etag)\n",
}


def test_a_stub_declaration_is_no_rival_of_the_method_it_declares(make_repo):
    root = make_repo(STUBBED)
    run_index(root)
    assert sites(refs(root, "contains_weak", path="pkg/etag.py")["references"]) == [("use.py", 2)]
