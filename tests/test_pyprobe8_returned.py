"""A method called on what a repository function returns is the method of the class its return
annotation writes (issue 17, eighth Python probe: babel's `update` command runs
`catalog = read_po(infile, ...)` and then `catalog.update(template, ...)`, with
`def read_po(...) -> Catalog`; the call was left `opaque`, `update` being a dict method name,
and `Catalog.update` listed no caller outside the tests). A method's annotated result was
already read so (`Locale.parse(x).days`); a module-level function's was not. A function
without an annotation, or annotated with a class the repository does not hold, decides
nothing, nor does an overloaded one whose definitions return different classes, and the
function object itself (`read_po.__doc__`) is no instance of that class."""
from __future__ import annotations

from cruxe.index import run_index

from support.references import refs, sites

FILES = {
    "babel/messages/catalog.py": ("class Catalog:\n"
                                  "    def __init__(self, locale=None):\n"
                                  "        self.locale = locale\n"
                                  "        self._messages = {}\n"
                                  "\n"
                                  "    def update(self, template, no_fuzzy_matching=False):\n"  # 6
                                  "        self._messages.update(template._messages)\n"
                                  "\n"
                                  "    def is_identical(self, other):\n"  # 9
                                  "        return self._messages == other._messages\n"),
    "babel/messages/pofile.py": ("from __future__ import annotations\n"
                                 "\n"
                                 "from typing import IO, Iterator, overload\n"
                                 "\n"
                                 "from babel.messages.catalog import Catalog\n"
                                 "from babel.messages.settings import Settings\n"
                                 "\n"
                                 "\n"
                                 "def read_po(\n"
                                 "    fileobj: IO[bytes],\n"
                                 "    locale: str | None = None,\n"
                                 ") -> Catalog:\n"
                                 "    return Catalog(locale=locale)\n"
                                 "\n"
                                 "\n"
                                 "def read_lines(fileobj):\n"
                                 "    return Catalog()\n"
                                 "\n"
                                 "\n"
                                 "def read_all(files) -> Iterator[Catalog]:\n"
                                 "    for f in files:\n"
                                 "        yield read_po(f)\n"
                                 "\n"
                                 "\n"
                                 "@overload\n"
                                 "def load(value: str) -> Catalog: ...\n"
                                 "\n"
                                 "\n"
                                 "@overload\n"
                                 "def load(value: bytes) -> Settings: ...\n"
                                 "\n"
                                 "\n"
                                 "def load(value):\n"
                                 "    return Catalog() if isinstance(value, str) else Settings()\n"),
    "babel/messages/frontend.py": ("from babel.messages.pofile import load, read_all, read_lines, read_po\n"
                                   "\n"
                                   "\n"
                                   "def run(template, filename, locale, check=False):\n"
                                   "    if check:\n"
                                   "        with open(filename, 'rb') as infile:\n"
                                   "            catalog = read_po(infile, locale=locale)\n"
                                   "    with open(filename, 'rb') as infile:\n"
                                   "        catalog = read_po(infile, locale=locale)\n"
                                   "    catalog.update(\n"  # 10
                                   "        template, False,\n"
                                   "    )\n"
                                   "    other = read_lines(filename)\n"
                                   "    other.update(template)\n"  # 14
                                   "    for each in read_all([filename]):\n"
                                   "        each.update(template)\n"  # 16
                                   "    doc = read_po.__doc__\n"
                                   "    return read_po(filename).is_identical(catalog), doc\n"  # 18
                                   "\n"
                                   "\n"
                                   "def merge(a, b):\n"
                                   "    load(a).update(b)\n"),  # 22
    # a property with a setter: the setter (`-> None`) is no other result
    "babel/messages/commands.py": ("from babel.messages.catalog import Catalog\n"
                                   "\n"
                                   "\n"
                                   "class UpdateCatalog:\n"
                                   "    @property\n"
                                   "    def catalog(self) -> Catalog:\n"
                                   "        return self._catalog\n"
                                   "\n"
                                   "    @catalog.setter\n"
                                   "    def catalog(self, value: Catalog) -> None:\n"
                                   "        self._catalog = value\n"
                                   "\n"
                                   "    def run(self, template):\n"
                                   "        self.catalog.update(template)\n"),  # 14
    "babel/messages/settings.py": ("class Settings(dict):\n"
                                   "    def merge(self, other):\n"
                                   "        self.update(other)\n"),
}


def test_a_method_called_on_an_annotated_function_result_is_that_class_method(make_repo):
    root = make_repo(FILES)
    run_index(root)
    assert sites(refs(root, "Catalog.update")["references"]) == [("babel/messages/commands.py", 14),
                                                                  ("babel/messages/frontend.py", 10)]
    assert sites(refs(root, "Catalog.is_identical")["references"]) == [("babel/messages/frontend.py", 18)]


def test_an_unannotated_or_outside_result_decides_nothing(make_repo):
    root = make_repo(FILES)
    run_index(root)
    out = refs(root, "Catalog.update")
    left = {(u["path"], u["line_start"]) for u in out.get("unresolved", ())}
    # `read_lines()` says no class, `Iterator[Catalog]` is no repository class, an overloaded
    # `load` returns a Catalog or Settings by its argument: still candidates
    assert {("babel/messages/frontend.py", 14), ("babel/messages/frontend.py", 16),
            ("babel/messages/frontend.py", 22)} <= left
    assert ("babel/messages/frontend.py", 10) not in left
