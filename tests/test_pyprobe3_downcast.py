"""A receiver typed as a base class calling a method only a subclass defines (issue 17, third
Python probe: click's `self.type._describe_range()`, after `isinstance(self.type,
types._NumberRangeBase)`, with `self.type: types.ParamType`, was left unresolved, so
find_references missed one of its three callers). The repository's one method of that name,
defined in a subclass of the declared class, is what the narrowed receiver calls."""
from __future__ import annotations

from cruxe.index import run_index

from support.references import refs, sites

FILES = {
    "pkg/__init__.py": "",
    "pkg/types.py": ("class ParamType:\n    def convert(self, value):\n        return value\n\n\n"
                     "class RangeBase(ParamType):\n    def describe_range(self):\n        return 'x'\n\n\n"
                     "class IntRange(RangeBase):\n    pass\n\n\n"
                     "class Choice(ParamType):\n    def shell_complete(self):\n        return []\n\n\n"
                     "class Path(ParamType):\n    def shell_complete(self):\n        return []\n\n\n"
                     "class Other:\n    def lonely(self):\n        return 1\n"),
    "pkg/core.py": ("from . import types\n\n\nclass Parameter:\n    def __init__(self, type):\n"
                    "        self.type: types.ParamType = type\n\n"
                    "    def help_record(self):\n        if isinstance(self.type, types.RangeBase):\n"
                    "            return self.type.describe_range()\n"
                    "        return self.type.shell_complete()\n\n"
                    "    def other(self):\n        return self.type.lonely()\n\n\n"
                    "def annotated(t: types.ParamType):\n    return t.describe_range()\n"),
}


def test_a_method_only_a_subclass_defines_is_reached_through_the_base_type(make_repo):
    root = make_repo(FILES)
    run_index(root)
    assert sites(refs(root, "describe_range", path="pkg/types.py")["references"]) == [
        ("pkg/core.py", 10), ("pkg/core.py", 18)]


def test_several_subclasses_or_an_unrelated_class_leave_it_unresolved(make_repo):
    root = make_repo(FILES)
    run_index(root)
    # two subclasses define it: which one is not decided by the declared type
    out = refs(root, "shell_complete", path="pkg/types.py")
    assert out["references"] == [] and out["unresolved_count"] == 1
    # the one definition is in a class that does not derive from the declared one
    out = refs(root, "lonely", path="pkg/types.py")
    assert out["references"] == [] and out["unresolved_count"] == 1
