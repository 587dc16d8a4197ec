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


def test_examples_before_tests_and_benches(make_repo):
    call = "from lib.core import work\n\nwork()\n"
    root = make_repo({"lib/__init__.py": "", "lib/core.py": "def work():\n    return 1\n",
                      "lib/use.py": call, "benches/a_bench.py": call, "tests/test_core.py": call,
                      "examples/demo.py": call, "docs/usage.py": call, "zz/more.py": call})
    paths = [r["path"] for r in _refs(root, "work", kind="calls")["references"]]
    assert paths == ["lib/use.py", "zz/more.py", "docs/usage.py", "examples/demo.py",
                     "benches/a_bench.py", "tests/test_core.py"]


def test_rust_in_source_tests_after_examples(make_repo):
    root = make_repo({
        "Cargo.toml": '[package]\nname = "k"\nversion = "0.1.0"\n',
        "src/lib.rs": ("pub fn bounded() -> u8 {\n    1\n}\n\npub fn user() -> u8 {\n    bounded()\n}\n\n"
                       "#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {\n        super::bounded();\n    }\n}\n"),
        "examples/ex.rs": "fn main() {\n    k::bounded();\n}\n",
        "benches/b.rs": "fn bench() {\n    k::bounded();\n}\n",
    })
    got = [(r["path"], r["line_start"]) for r in _refs(root, "bounded", kind="calls")["references"]]
    assert got == [("src/lib.rs", 6), ("examples/ex.rs", 2), ("src/lib.rs", 13), ("benches/b.rs", 2)]
