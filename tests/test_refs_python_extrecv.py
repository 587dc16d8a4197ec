"""Python receivers whose value comes from outside the repository (issue 17).

A local bound to an instance of a class imported from outside the repository (the standard
library, a dependency), or to a literal, calls that class's (a builtin's) methods: the call is
never linked to the repository's one method of that name, and it stays listed as unresolved.
The binding types the uses it dominates even when the name is bound elsewhere in the function
too (a parameter reassigned, one binding per branch). A name read (not called) on a value of
unknown type that is also some class's data attribute is no unique method name.
"""
from __future__ import annotations

from pathlib import Path

from cruxe.index import run_index
from cruxe.languages.python import extract
from cruxe.project import open_project
from cruxe.refs import find_references

MAIL = """\
class Message:
    def attach(self, name, content):
        self.parts.append((name, content))

    def set_payload(self, payload):
        self.payload = payload

    def describe(self):
        return "message"
"""


def _answer(root: Path, name: str, path: str) -> dict:
    project = open_project(root)
    gen = project.store.current_generation("live")
    return find_references(gen, project.id, "live", name, path=path, limit=1000)


def _sites(root: Path, name: str, path: str) -> list[tuple[str, int]]:
    return [(r["path"], r["line_start"]) for r in _answer(root, name, path)["references"]]


def _unresolved(root: Path, name: str, path: str) -> list[tuple[str, int]]:
    return [(r["path"], r["line_start"]) for r in _answer(root, name, path).get("unresolved", [])]


def test_a_local_of_an_outside_class_reassigned_over_a_parameter(make_repo):
    root = make_repo({"mail.py": MAIL, "build.py": """\
from email.mime.base import MIMEBase
from email.mime.multipart import MIMEMultipart


def wrap(msg, parts):
    if parts:
        body = msg
        msg = MIMEMultipart()
        msg.attach(body)
        for part in parts:
            msg.attach(part)
    return msg


def payload(kind, content):
    if kind == "text":
        part = make_text(content)
    else:
        part = MIMEBase(kind)
        part.set_payload(content)
    return part
"""})
    run_index(root)
    assert _sites(root, "Message.attach", "mail.py") == []
    assert _sites(root, "Message.set_payload", "mail.py") == []
    # not dropped: listed as unresolved, so "0 references" is not a confident absence
    assert _unresolved(root, "Message.attach", "mail.py") == [("build.py", 9), ("build.py", 11)]
    assert _unresolved(root, "Message.set_payload", "mail.py") == [("build.py", 20)]


def test_a_local_of_a_repository_class_reassigned_over_a_parameter_is_linked(make_repo):
    root = make_repo({"mail.py": MAIL, "other.py": """\
class Envelope:
    def attach(self, item):
        return item
""", "build.py": """\
from mail import Message


def wrap(msg, parts):
    if parts:
        msg = Message()
        for part in parts:
            msg.attach("p", part)
    msg.attach("after", None)
    return msg
"""})
    run_index(root)
    # inside the block that binds it the local is a Message; after the `if` it may be the parameter
    assert _sites(root, "Message.attach", "mail.py") == [("build.py", 8)]
    assert _sites(root, "Envelope.attach", "other.py") == []


def test_a_later_binding_in_the_block_leaves_the_use_untyped(make_repo):
    root = make_repo({"mail.py": MAIL, "build.py": """\
from email.mime.base import MIMEBase


def loop(kinds, msg):
    for kind in kinds:
        part = MIMEBase(kind)
        part.describe()
    while kinds:
        part.describe()
        part = msg
    return part
"""})
    run_index(root)
    # line 7: dominated by the MIMEBase binding; line 9: the loop brings `part = msg` back
    assert _sites(root, "Message.describe", "mail.py") == [("build.py", 9)]


def test_literal_locals_call_builtin_methods(make_repo):
    root = make_repo({"mail.py": MAIL, "use.py": """\
def collect(items, name):
    seen = []
    seen.describe()
    label = f"{name}!"
    label.describe()
    table = dict(a=1)
    table.describe()
    "text".describe()
    other = items
    other.describe()
"""})
    run_index(root)
    assert _sites(root, "Message.describe", "mail.py") == [("use.py", 10)]
    assert _unresolved(root, "Message.describe", "mail.py") == [("use.py", 3), ("use.py", 5), ("use.py", 7),
                                                                ("use.py", 8)]


def test_a_repository_type_shadowing_a_builtin_name_is_followed(make_repo):
    root = make_repo({"mail.py": MAIL, "use.py": """\
from mail import Message as dict


def build():
    d = dict()
    d.describe()
"""})
    run_index(root)
    assert _sites(root, "Message.describe", "mail.py") == [("use.py", 6)]


def test_a_data_attribute_of_another_class_is_no_unique_method_name(make_repo):
    root = make_repo({"query.py": """\
class Query:
    order_by = ()

    def chain(self):
        return Query()


class QuerySet:
    @property
    def query(self):
        return Query()

    def order_by(self, *names):
        return self

    def update(self, qs):
        query = self.query.chain()
        for col in query.order_by:
            print(col)
        return qs.order_by("x")
"""})
    run_index(root)
    # the read may be the attribute; the call can only be the method
    assert _sites(root, "QuerySet.order_by", "query.py") == [("query.py", 20)]
    assert _unresolved(root, "QuerySet.order_by", "query.py") == [("query.py", 18)]


def test_receivers_of_dominated_uses_are_rewritten():
    src = b"""\
def f(msg, x):
    if x:
        msg = Multipart()
        msg.attach(1)
        y = msg.size
    msg.attach(2)
    w = Thing()
    if (w := other()):
        w.go()
"""
    refs = {(r.to_name, r.line): r.receiver for r in extract(src, "m.py").references}
    assert refs[("attach", 4)] == "Multipart()"
    assert refs[("size", 5)] == "Multipart()"
    assert refs[("attach", 6)] == "msg"
    assert refs[("go", 9)] == "w"  # rebound by `:=`, which shows no class


def test_a_read_of_a_method_that_takes_arguments_is_no_unique_name(make_repo):
    root = make_repo({"query.py": """\
class Query:
    def table_alias(self, name, create=False):
        return name

    @property
    def base_alias(self):
        return "t"

    def join(self, join):
        if join.table_alias:
            return join.base_alias
        return join.table_alias("x")
"""})
    run_index(root)
    # `join` is of unknown type: its `table_alias` read is some attribute (no property takes
    # `name`); the call and the read of a property-like method stay linked by unique name
    assert _sites(root, "Query.table_alias", "query.py") == [("query.py", 12)]
    assert _unresolved(root, "Query.table_alias", "query.py") == [("query.py", 10)]
    assert _sites(root, "Query.base_alias", "query.py") == [("query.py", 11)]
