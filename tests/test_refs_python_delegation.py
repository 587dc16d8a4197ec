"""A wrapper calling the object it wraps (issue 17, refs precision; found by reading Django's
undecided references by hand, bench/refs/django_undecided_audit.jsonl): `BaseDatabaseWrapper`
defines `cursor()` and calls `self.connection.cursor(...)`, the driver's connection, whose method
it mirrors. The repository's one `cursor` is the wrapper's own, and linking the call to it made the
wrapper call itself. A call on an untyped attribute of `self` whose one candidate is a method of
the calling class (or of a base) is unknown now, listed unresolved; the same name called on any
other receiver still reaches that one method."""
from __future__ import annotations

from pathlib import Path

from cruxe.index import run_index
from cruxe.project import open_project
from cruxe.refs import find_references

FILES = {
    "db/base.py": """\
class BaseWrapper:
    def __init__(self, settings):
        self.settings = settings
        self.connection = None

    def cursor(self):
        return self._prepare(self.connection.cursor())

    def _prepare(self, cursor):
        return cursor


class Wrapper(BaseWrapper):
    def commit(self):
        self.connection.commit()

    def reopen(self):
        return self.connection.cursor(name="again")
""",
    "db/use.py": """\
def run(conn, sql):
    cur = conn.cursor()
    cur.execute(sql)
    return cur


class Pool:
    def __init__(self, wrapper):
        self.wrapper = wrapper

    def borrow(self):
        return self.wrapper.cursor()
""",
}


def _answer(root: Path, name: str) -> dict:
    project = open_project(root)
    gen = project.store.current_generation("live")
    return find_references(gen, project.id, "live", name, path="db/base.py", limit=1000)


def test_a_wrapper_calling_the_object_it_holds_is_not_calling_itself(make_repo):
    root = make_repo(FILES)
    run_index(root)
    answer = _answer(root, "BaseWrapper.cursor")
    sites = [(r["path"], r["line_start"]) for r in answer["references"]]
    # another class's untyped attribute and a parameter: the one `cursor` of the repository
    assert sites == [("db/use.py", 2), ("db/use.py", 12)], sites
    unresolved = [(r["path"], r["line_start"]) for r in answer.get("unresolved", [])]
    assert ("db/base.py", 7) in unresolved and ("db/base.py", 18) in unresolved, unresolved
