"""Python references through typed instance attributes and reads of members (issue 17).

`self.out = Writer(...)` / `self.out: Writer = ...` / `self.conn = conn` (`conn: Conn`) give
the attribute a class, so `self.out.write()` (and `obj.out.write()` on a typed `obj`) reach
`Writer.write`; a method or property read without a call (`self.closed`, `connect(self.m)`)
is a reference when the receiver's class or its bases define the name.
"""
from __future__ import annotations

from pathlib import Path

from cruxe.index import run_index
from cruxe.languages.python import extract
from cruxe.project import open_project
from cruxe.refs import find_references

WRITER = """\
class Writer:
    def write(self, text):
        return text

    def close(self):
        pass


class Conn:
    def close(self):
        pass
"""


def _sites(root: Path, name: str, path: str) -> list[tuple[str, int]]:
    project = open_project(root)
    gen = project.store.current_generation("live")
    got = find_references(gen, project.id, "live", name, path=path, limit=1000)
    return [(r["path"], r["line_start"]) for r in got["references"]]


def _redefinitions(root: Path, name: str, path: str) -> list[tuple[str, int]]:
    project = open_project(root)
    gen = project.store.current_generation("live")
    got = find_references(gen, project.id, "live", name, path=path, limit=1000)
    return [(r["path"], r["line_start"]) for r in got.get("redefinitions", ())]


def test_a_constructor_assigned_in_init_types_the_attribute(make_repo):
    root = make_repo({"io_.py": WRITER, "cmd.py": """\
from io_ import Writer


class Command:
    def __init__(self):
        self.out = Writer()

    def run(self):
        self.out.write("x")
"""})
    run_index(root)
    # `write` is a method name every stream has: without the attribute's type it stays opaque
    assert ("cmd.py", 9) in _sites(root, "Writer.write", "io_.py")


def test_an_attribute_set_in_a_base_class_types_the_subclass_uses(make_repo):
    root = make_repo({"io_.py": WRITER, "base.py": """\
from io_ import Writer


class Base:
    def __init__(self):
        if True:
            self.out = Writer()
""", "sub.py": """\
from base import Base


class Sub(Base):
    def handle(self):
        self.out.close()
"""})
    run_index(root)
    assert _sites(root, "Writer.close", "io_.py") == [("sub.py", 6)]
    assert _sites(root, "Conn.close", "io_.py") == []


def test_annotations_and_annotated_parameters_type_attributes(make_repo):
    root = make_repo({"io_.py": WRITER, "svc.py": """\
from typing import Optional

from io_ import Conn, Writer


class Service:
    log: Writer

    def __init__(self, conn: Optional[Conn] = None, other: "Writer" = None):
        self.conn = conn
        self.sink: Writer = make_sink()
        self.other = other

    def stop(self):
        self.conn.close()
        self.sink.close()
        self.other.write("a")
        self.log.write("b")


def shutdown(svc: Service):
    svc.conn.close()
"""})
    run_index(root)
    assert _sites(root, "Conn.close", "io_.py") == [("svc.py", 15), ("svc.py", 22)]
    assert _sites(root, "Writer.close", "io_.py") == [("svc.py", 16)]
    assert [s for s in _sites(root, "Writer.write", "io_.py") if s[0] == "svc.py"] == [("svc.py", 17), ("svc.py", 18)]


def test_typed_instance_attributes_are_variables_of_their_class():
    src = b"""\
class A(B):
    x: int = 1

    def __init__(self, out: "Out", n=None):
        self.stdout = OutputWrapper(out)
        self.x = Foo()
        self.o = out
        self.n = n
        self.made = make()
        self.CONST = pkg.Thing(1)
"""
    got = {s.name: s for s in extract(src, "m.py").symbols}
    # every attribute `__init__` assigns is one (`x` is the class body's own); `n` and `made` show no class
    assert [n for n in got if got[n].parent == 0] == ["x", "__init__", "stdout", "o", "n", "made", "CONST"]
    assert got["made"].signature == "self.made = make()" and got["n"].signature == "self.n = n"
    assert got["stdout"].signature == "self.stdout = OutputWrapper(out)"
    assert got["stdout"].qualified_name == "m.A.stdout" and got["stdout"].kind == "variable"
    assert got["o"].signature == "self.o: Out = out"  # the parameter's annotation written in
    assert got["stdout"].line_start == got["stdout"].line_end == 5


def test_members_of_a_base_class_read_without_a_call_are_references(make_repo):
    root = make_repo({"base.py": """\
class Proxy:
    @property
    def closed(self):
        return True

    def clear(self):
        pass
""", "impl.py": """\
from base import Proxy


def connect(callback):
    return callback


class File(Proxy):
    def __init__(self):
        self.name = "f"
        connect(self.clear)

    def close(self):
        if not self.closed:
            return self.name


class Plain:
    def go(self):
        return self.closed
"""})
    run_index(root)
    assert _sites(root, "Proxy.closed", "base.py") == [("impl.py", 14)]
    assert _sites(root, "Proxy.clear", "base.py") == [("impl.py", 11)]


def test_reads_of_instance_attributes_are_references_and_other_reads_of_self_stay_out():
    src = b"""\
class A(Base):
    def __init__(self):
        self.name = 1

    def m(self):
        return self.name, self.__class__, self.inherited


class B:
    def m(self):
        return self.inherited
"""
    reads = [(r.to_name, r.line) for r in extract(src, "m.py").references if r.receiver == "self"]
    # `name` is A's instance attribute (a definition: its reads are references), `__class__` is
    # the object's, B has no base to inherit from
    assert reads == [("name", 6), ("inherited", 6)]


def test_locals_bound_once_to_a_constructor_call_type_their_calls(make_repo):
    root = make_repo({"io_.py": WRITER, "use.py": """\
from io_ import Conn, Writer


def once(text, given=None):
    w = Writer()
    w.write(text)
    c: Conn = connect()
    c.close()
    sink = given or Writer()
    sink.close()


def rebound(flag):
    w = Writer()
    if flag:
        w = Conn()
    w.close()


def param(w):
    w = Writer()
    w.close()
"""})
    run_index(root)
    assert [s for s in _sites(root, "Writer.write", "io_.py") if s[0] == "use.py"] == [("use.py", 6)]
    assert _sites(root, "Conn.close", "io_.py") == [("use.py", 8)]
    # `param`: the assignment overwrites the parameter before the call (it dominates the use)
    assert _sites(root, "Writer.close", "io_.py") == [("use.py", 10), ("use.py", 22)]


def test_an_attribute_defaulted_with_or_takes_the_class_of_its_default(make_repo):
    root = make_repo({"io_.py": WRITER, "q.py": """\
from io_ import Writer


class Questioner:
    def __init__(self, out=None):
        self.out = out or Writer()

    def ask(self):
        self.out.write("?")
"""})
    run_index(root)
    assert ("q.py", 9) in _sites(root, "Writer.write", "io_.py")


def test_a_typed_local_member_read_without_a_call_is_a_reference(make_repo):
    root = make_repo({"w.py": """\
class Writer:
    @property
    def path(self):
        return "p"
""", "use.py": """\
from w import Writer


def save(files):
    writer = Writer()
    files.append(writer.path)
    writer.path = "q"
"""})
    run_index(root)
    assert _sites(root, "Writer.path", "w.py") == [("use.py", 6)]


def test_a_setter_and_a_conditional_variant_are_redefinitions_of_the_first_definition(make_repo):
    """Their head lines are resolved to the first definition (a rename changes them too) and
    answered apart from its references: they define it, they do not use it."""
    root = make_repo({"m.py": """\
import os


class Response:
    @property
    def content(self):
        return self._c

    @content.setter
    def content(self, value):
        self._c = value


if os.name == "nt":
    def lock(f):
        return 1
else:
    def lock(f):
        return 2
"""})
    run_index(root)
    assert _sites(root, "Response.content", "m.py") == []
    assert _redefinitions(root, "Response.content", "m.py") == [("m.py", 9), ("m.py", 10)]
    assert _sites(root, "lock", "m.py") == []
    assert _redefinitions(root, "lock", "m.py") == [("m.py", 18)]


def test_a_member_read_on_an_annotated_parameter_is_a_reference(make_repo):
    root = make_repo({"w.py": "class Writer:\n    @property\n    def path(self):\n        return 1\n", "use.py": """\
from w import Writer


def show(w: Writer, other):
    print(w.path, other.path)


def rebound(w: Writer):
    w = other()
    return w.path
"""})
    run_index(root)
    assert _sites(root, "Writer.path", "w.py") == [("use.py", 5)]
