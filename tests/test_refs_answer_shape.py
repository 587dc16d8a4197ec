"""find_references on issue 17 item 6's user probes: the order of callers outside the
implementation (examples before tests and benches), definition lines that are no references
(a property's setter), and a constructor's answer (`__init__`)."""
from __future__ import annotations

from cruxe.index import run_index
from cruxe.project import open_project
from cruxe.refs import find_references, next_actions


def _refs(root, name: str, **kw) -> dict:
    run_index(root)
    project = open_project(root)
    gen = project.store.current_generation("live")
    return find_references(gen, project.id, "live", name, **kw)


def test_source_then_docs_and_examples_with_tests_and_benches_apart(make_repo):
    call = "from lib.core import work\n\nwork()\n"
    root = make_repo({"lib/__init__.py": "", "lib/core.py": "def work():\n    return 1\n",
                      "lib/use.py": call, "benches/a_bench.py": call, "tests/test_core.py": call,
                      "examples/demo.py": call, "docs/usage.py": call, "zz/more.py": call})
    out = _refs(root, "work", kind="calls")
    assert [r["path"] for r in out["references"]] == ["lib/use.py", "zz/more.py", "docs/usage.py", "examples/demo.py"]
    assert out["test_references"] == [{"path": "benches/a_bench.py", "edge_type": "calls", "lines": [3]},
                                      {"path": "tests/test_core.py", "edge_type": "calls", "lines": [3]}]


def test_rust_in_source_tests_are_test_references(make_repo):
    root = make_repo({
        "Cargo.toml": '[package]\nname = "k"\nversion = "0.1.0"\n',
        "src/lib.rs": ("pub fn bounded() -> u8 {\n    1\n}\n\npub fn user() -> u8 {\n    bounded()\n}\n\n"
                       "#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {\n        super::bounded();\n    }\n}\n"),
        "examples/ex.rs": "fn main() {\n    k::bounded();\n}\n",
        "benches/b.rs": "fn bench() {\n    k::bounded();\n}\n",
    })
    out = _refs(root, "bounded", kind="calls")
    assert [(r["path"], r["line_start"]) for r in out["references"]] == [("src/lib.rs", 6), ("examples/ex.rs", 2)]
    # the `#[cfg(test)]` module's call is test code, listed with the bench's, apart
    assert [(t["path"], t["lines"]) for t in out["test_references"]] == [("src/lib.rs", [13]), ("benches/b.rs", [2])]


PROPERTY = ("class Console:\n"
            "    def __init__(self):\n"
            "        self._width = 80\n"
            "\n"
            "    @property\n"
            "    def width(self) -> int:\n"
            "        return self._width\n"
            "\n"
            "    @width.setter\n"
            "    def width(self, value: int) -> None:\n"
            "        self._width = value\n"
            "\n"
            "    def render(self) -> int:\n"
            "        return self.width * 2\n")


def test_property_setter_is_no_reference_of_its_property(make_repo):
    root = make_repo({"con.py": PROPERTY, "use.py": "from con import Console\n\nc = Console()\nprint(c.width)\n"})
    out = _refs(root, "Console.width")
    got = {(r["path"], r["line_start"]) for r in out["references"]}
    assert ("con.py", 14) in got and ("use.py", 4) in got
    assert not got & {("con.py", 9), ("con.py", 10)}
    assert out["total_references"] == len(got)
    # set apart, not lost: a rename of the property changes them too
    assert [(r["path"], r["line_start"]) for r in out["redefinitions"]] == [("con.py", 9), ("con.py", 10)]


def test_a_redefinition_that_uses_the_name_stays_a_reference(make_repo):
    root = make_repo({"q.py": ("class Q:\n    def as_manager(cls):\n        return cls\n\n"
                               "    as_manager.queryset_only = True\n    as_manager = classmethod(as_manager)\n")})
    out = _refs(root, "Q.as_manager")
    assert ("q.py", 6) in {(r["path"], r["line_start"]) for r in out["references"]}
    assert "redefinitions" not in out


CONSTRUCTOR = {
    "base.py": ("class Text:\n    def __init__(self, s):\n        self.s = s\n\n\n"
                "class Rich(Text):\n    def __init__(self):\n        super().__init__('x')\n"),
    "thread.py": ("import threading\n\n\nclass Worker(threading.Thread):\n    def __init__(self):\n"
                  "        super().__init__(daemon=True)\n"),
    "use.py": "from base import Text\n\nt = Text('a')\n",
}


def test_constructor_points_to_its_class_and_lists_no_other_super_call(make_repo):
    root = make_repo(CONSTRUCTOR)
    out = _refs(root, "Text.__init__")
    assert [(r["path"], r["line_start"]) for r in out["references"]] == [("base.py", 8)]
    assert not any(r["path"] == "thread.py" for r in out.get("unresolved", []))
    assert out["unresolved_count"] == 0
    assert out["constructor_of"]["qualified_name"] == "base.Text"
    action = next_actions({"symbol_name": "Text.__init__"}, out)[0]
    arguments = dict(action["arguments"])
    calls = _refs(root, arguments.pop("symbol_name"), **arguments)
    assert ("use.py", 3) in {(r["path"], r["line_start"]) for r in calls["references"]}


def test_other_methods_keep_their_unresolved_candidates(make_repo):
    """Only a constructor's unresolved uses are narrowed to the ambiguous ones: a mixin's
    `super().render()` (whatever follows it in a subclass's MRO) stays a candidate."""
    root = make_repo({**CONSTRUCTOR, "w.py": ("class W:\n"
                                              "    def render(self):\n        return super().render()\n"),
                      "r.py": "class R:\n    def render(self):\n        return 1\n"})
    out = _refs(root, "R.render")
    assert out["unresolved_count"] == 1 and "constructor_of" not in out


def test_typescript_constructor_points_to_its_class(make_repo):
    root = make_repo({"src/box.ts": "export class Box {\n  constructor(public n: number) {}\n}\n",
                      "src/use.ts": 'import { Box } from "./box";\nexport const b = new Box(1);\n'})
    out = _refs(root, "Box.constructor")
    assert out["constructor_of"]["name"] == "Box" and out["constructor_of"]["path"] == "src/box.ts"
    arguments = dict(next_actions({"symbol_name": "Box.constructor"}, out)[0]["arguments"])
    calls = _refs(root, arguments.pop("symbol_name"), **arguments)
    assert [(r["path"], r["line_start"]) for r in calls["references"]] == [("src/use.ts", 2)]


def test_a_method_named_like_a_constructor_outside_a_class_is_no_constructor(make_repo):
    out = _refs(make_repo({"m.py": "def __init__():\n    return 1\n\n__init__()\n"}), "__init__")
    assert "constructor_of" not in out and out["total_references"] == 1
