"""A module named like the class it holds (issue 17, pyprobe5's finding on dateutil: `from
dateutil import relativedelta`, then `relativedelta.relativedelta(...)`). The uses the resolver
tied to the module are the module's: they are no unresolved candidates of the class, which had
16 "unresolved" entries (reason `module`) on lines whose class calls were listed as resolved."""
from __future__ import annotations

from cruxe.index import run_index
from cruxe.project import open_project
from cruxe.refs import find_references

FILES = {
    "pkg/__init__.py": "",
    "pkg/delta.py": "class delta:\n    def __init__(self, days=0):\n        self.days = days\n",
    "pkg/use.py": "from pkg import delta\n\n\ndef week():\n    return delta.delta(days=7)\n",
}


def test_uses_of_the_module_are_not_unresolved_uses_of_the_class(make_repo):
    root = make_repo(FILES)
    run_index(root)
    project = open_project(root)
    gen = project.store.current_generation("live")
    answer = find_references(gen, project.id, "live", "delta", path="pkg/delta.py", limit=100)
    assert [(r["path"], r["line_start"]) for r in answer["references"]] == [("pkg/use.py", 5)], answer
    assert answer["unresolved_count"] == 0 and "unresolved" not in answer, answer
