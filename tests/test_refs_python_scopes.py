"""Python scoping rules in reference resolution (issue 17: the scope errors jedi found).

Each test is one rule of the language, checked on a small repository:
- an import inside a function binds the name in that function (and the functions nested in it)
  only: there it hides a module-level definition of the same name, elsewhere it binds nothing;
- a name a function binds (a parameter, an assignment) is that function's local in the
  functions nested in it too, unless one of them declares it `global`;
- a class's bases, a definition's decorators, parameter defaults and annotations are evaluated
  in the scope around the definition, not in its own body;
- a class body runs top to bottom: a name it reads before it binds it is looked up outside.
"""
from __future__ import annotations

from pathlib import Path

from cruxe.index import run_index
from cruxe.languages.python import extract
from cruxe.project import open_project
from cruxe.refs import find_references


def _sites(root: Path, name: str, path: str) -> list[tuple[str, int]]:
    project = open_project(root)
    gen = project.store.current_generation("live")
    got = find_references(gen, project.id, "live", name, path=path, limit=1000)
    return sorted((r["path"], r["line_start"]) for r in got["references"])


def test_a_function_local_import_hides_the_module_definition_of_its_name(make_repo):
    root = make_repo({"tr/__init__.py": """\
def templatize(src):
    from .template import templatize

    return templatize(src)


class Jinja2:
    def backend(self):
        from engines import Jinja2

        return Jinja2

    def me(self):
        return Jinja2
""", "tr/template.py": """\
def templatize(src):
    return src
""", "engines.py": """\
class Jinja2:
    pass
"""})
    run_index(root)
    assert ("tr/__init__.py", 4) in _sites(root, "templatize", "tr/template.py")
    assert _sites(root, "templatize", "tr/__init__.py") == []
    assert ("tr/__init__.py", 11) in _sites(root, "Jinja2", "engines.py")
    # the method that imports nothing still sees the module's class
    assert _sites(root, "Jinja2", "tr/__init__.py") == [("tr/__init__.py", 14)]


def test_a_function_local_import_binds_in_nested_functions_and_nowhere_else(make_repo):
    root = make_repo({"lib.py": """\
def helper():
    return 1
""", "app.py": """\
def outer():
    from lib import helper

    def inner():
        return helper()

    return inner


def other():
    return helper()
"""})
    run_index(root)
    sites = _sites(root, "helper", "lib.py")
    assert ("app.py", 5) in sites
    # `other` has no such import: at run time its `helper` is a NameError, not lib's
    assert ("app.py", 11) not in sites


def test_an_instance_attribute_is_typed_by_a_class_its_method_imports(make_repo):
    root = make_repo({"http_.py": """\
class QueryDict:
    def appendlist(self, key, value):
        pass


class MultiValueDict:
    def appendlist(self, key, value):
        pass
""", "parser.py": """\
class Parser:
    def parse(self):
        from http_ import QueryDict

        self._post = QueryDict()

    def feed(self):
        self._post.appendlist("a", 1)
"""})
    run_index(root)
    # the assignment's class is read where the assignment is: in `parse`, which imports it
    assert _sites(root, "QueryDict.appendlist", "http_.py") == [("parser.py", 8)]


def test_an_import_of_a_name_the_function_declares_global_binds_the_modules_name(make_repo):
    root = make_repo({"lib.py": """\
def helper():
    return 1
""", "app.py": """\
def setup():
    global helper
    from lib import helper


def run():
    return helper()
"""})
    run_index(root)
    assert ("app.py", 7) in _sites(root, "helper", "lib.py")


def test_a_closure_reads_the_enclosing_functions_parameter(make_repo):
    root = make_repo({"cp.py": """\
def get_token(r):
    return r


def csrf(request):
    def _get_val():
        token = get_token(request)
        return token

    class Lazy:
        def value(self):
            return request

    return _get_val


def uses_global(request):
    def inner():
        global request
        return request

    return inner


def request():
    return None
"""})
    run_index(root)
    # only the closure that declares the name global reads the module's function
    assert _sites(root, "request", "cp.py") == [("cp.py", 20)]
    assert ("cp.py", 7) in _sites(root, "get_token", "cp.py")


def test_a_closure_reads_a_function_the_enclosing_function_defines_and_rebinds(make_repo):
    root = make_repo({"deco.py": """\
def decorator(func):
    if func:
        wrapper = func
    else:
        def wrapper(*args):
            wrapper.calls = 1
            return func(*args)

    return wrapper
"""})
    run_index(root)
    # `wrapper` is decorator's local, bound twice; one binding is the nested `def`
    assert ("deco.py", 6) in _sites(root, "wrapper", "deco.py")


def test_bases_decorators_and_defaults_are_read_in_the_enclosing_scope(make_repo):
    root = make_repo({"ds.py": """\
X = 0


def request():
    return None


class MultiValueDict(dict):
    X = 1

    def dict(self):
        return {}

    def get(self, key, default=X):
        return default


def view(request=request):
    return request
"""})
    run_index(root)
    assert _sites(root, "MultiValueDict.dict", "ds.py") == []
    # a method's default is evaluated in the class body, which binds X by then
    assert ("ds.py", 14) in _sites(root, "MultiValueDict.X", "ds.py")
    assert _sites(root, "ds.X", "ds.py") == []
    # a default is evaluated before the parameter of the same name exists
    assert _sites(root, "request", "ds.py") == [("ds.py", 18)]


def test_a_class_body_name_read_before_the_body_binds_it_is_looked_up_outside(make_repo):
    root = make_repo({"core/__init__.py": "", "core/validators.py": """\
EMPTY_VALUES = (None, "")
""", "fields.py": """\
from core import validators


class Field:
    empty_values = list(validators.EMPTY_VALUES)

    @property
    def validators(self):
        return []

    checks = validators
"""})
    run_index(root)
    assert _sites(root, "Field.validators", "fields.py") == [("fields.py", 11)]
    assert ("fields.py", 5) in _sites(root, "EMPTY_VALUES", "core/validators.py")


def test_calls_moved_out_of_heads_keep_one_order():
    # captures() lists come in no set order; the calls a head moves share one position
    heads = b"".join(b"@dep(H%d, fallback=f%d(), other=g%d())\ndef fn%d():\n    pass\n\n" % (i, i, i, i)
                     for i in range(20))
    src = b"def dep(*a, **k):\n    pass\n" + b"".join(b"def f%d(): pass\ndef g%d(): pass\n" % (i, i)
                                                 for i in range(20)) + heads
    runs = {tuple((r.edge_type, r.to_name, r.line, r.from_symbol) for r in extract(src, "m.py").references)
            for _ in range(5)}
    assert len(runs) == 1
    calls = [r.to_name for r in extract(src, "m.py").references if r.edge_type == "calls"]
    assert calls == [name for i in range(20) for name in ("dep", f"f{i}", f"g{i}")]  # source order
