"""Reference failures the holdout found (issue 17, docs/BENCHMARKS.md "Holdout"): a Rust
local named like a module of its crate, a TypeScript function declared inside a constant's
initializer, and test code inside source files listed after source."""
from __future__ import annotations

from cruxe.index import run_index
from cruxe.refs.testcode import source_before_test_code

from support.references import every_site, refs, sites


RUST_VALUE_NAMED_LIKE_A_MODULE = {
    "Cargo.toml": '[package]\nname = "chan"\nversion = "0.1.0"\n',
    "src/lib.rs": "pub mod block;\npub mod context;\npub mod list;\n",
    "src/block.rs": ("pub struct Block {\n    start: usize,\n}\n\n"
                     "impl Block {\n    pub fn is_at_index(&self, i: usize) -> bool {\n        self.start == i\n    }\n}\n"),
    "src/context.rs": ("pub struct Context;\n\nimpl Context {\n    pub fn park_timeout(&self) {}\n}\n\n"
                       "pub fn current() -> Context {\n    Context\n}\n"),
    "src/list.rs": ("use crate::block::Block;\nuse crate::context::Context;\n\n"
                    "pub fn find(blocks: &[Block], i: usize) -> bool {\n"
                    "    let block = &blocks[0];\n"
                    "    block.is_at_index(i)\n"  # line 6: a local binding, not the module `block`
                    "}\n\n"
                    "pub fn wait(context: &Context) {\n"
                    "    context.park_timeout();\n"  # line 10: a typed parameter, not the module
                    "    crate::context::current().park_timeout();\n"  # line 11
                    "}\n"),
}


def test_a_rust_method_call_on_a_value_named_like_a_module_resolves_as_a_method(make_repo):
    root = make_repo(RUST_VALUE_NAMED_LIKE_A_MODULE)
    run_index(root)
    got = refs(root, "is_at_index", path="src/block.rs")
    assert sites(got["references"]) == [("src/list.rs", 6)] and got["unresolved_count"] == 0
    got = refs(root, "park_timeout", path="src/context.rs")
    assert sites(got["references"]) == [("src/list.rs", 10), ("src/list.rs", 11)] and got["unresolved_count"] == 0
    # the module's own items still resolve through the module path
    assert sites(refs(root, "current", path="src/context.rs")["references"]) == [("src/list.rs", 11)]


TS_FUNCTION_IN_A_CONSTANT = {
    "make.ts": ("import { Effect } from 'effect'\n\n"
                "export const make = Effect.gen(function*() {\n"
                "  function notifyWith(x: number) {\n    return x\n  }\n"
                "  notifyWith(1)\n"  # line 7
                "  return { run() { return notifyWith(2) } }\n"  # line 8: from an object literal's method
                "})\n\n"
                "export const Proto = {\n"
                "  toJSON() { return 1 },\n"  # line 12: a property, not a binding of the initializer
                "  show() { return toJSON() },\n"  # line 13: a global `toJSON`, not the property
                "}\n"),
}


def test_a_typescript_function_declared_in_a_constants_initializer_is_found_by_its_bare_name(make_repo):
    root = make_repo(TS_FUNCTION_IN_A_CONSTANT)
    run_index(root)
    got = refs(root, "notifyWith", path="make.ts")
    assert sites(got["references"]) == [("make.ts", 7), ("make.ts", 8)] and got["unresolved_count"] == 0
    got = refs(root, "toJSON", path="make.ts")
    assert got["references"] == [] and sites(got["unresolved"]) == [("make.ts", 13)]


TEST_CODE_IN_SOURCE_FILES = {
    "Cargo.toml": '[package]\nname = "q"\nversion = "0.1.0"\n',
    "src/lib.rs": ("pub mod a;\npub mod z;\n\npub fn push(x: usize) -> usize {\n    x\n}\n\n"
                   "#[cfg(test)]\n#[allow(unused)]\nmod tests {\n    use super::*;\n\n"
                   "    #[test]\n    fn pushes() {\n        push(1);\n    }\n}\n\n"  # line 15: a test
                   "pub fn after() -> usize {\n    push(2)\n}\n"),  # line 20: source again
    "src/a.rs": "pub fn one() -> usize {\n    crate::push(3)\n}\n",  # line 2
    "src/z.rs": "pub fn last() -> usize {\n    crate::push(4)\n}\n",  # line 2
    "tests/it.rs": "#[test]\nfn it() {\n    q::push(5);\n}\n",  # line 3
    "go.mod": "module example.com/m\n\ngo 1.19\n",
    "gen/a_gen.go": ("// Copyright the authors.\n\n//go:build ignore\n\npackage main\n\n"
                     "import \"example.com/m/pkg\"\n\nfunc main() {\n\tpkg.Encode(1)\n}\n"),  # line 10
    "pkg/enc.go": "package pkg\n\nfunc Encode(x int) int {\n\treturn x\n}\n",
    "pkg/use.go": "package pkg\n\nfunc twice(x int) int {\n\treturn Encode(Encode(x))\n}\n",  # line 4
    "pkg/notignored.go": ("//go:build !ignore\n\npackage pkg\n\n"
                          "func thrice(x int) int {\n\treturn Encode(x) * 3\n}\n"),  # line 6: built
}


def test_rust_cfg_test_modules_and_go_ignored_files_are_listed_after_source(make_repo):
    root = make_repo(TEST_CODE_IN_SOURCE_FILES)
    run_index(root)
    got = refs(root, "push", path="src/lib.rs")
    assert sites(got["references"]) == [("src/a.rs", 2), ("src/lib.rs", 20), ("src/z.rs", 2)]
    assert every_site(got)[3:] == [("src/lib.rs", 15), ("tests/it.rs", 3)]
    got = refs(root, "push", path="src/lib.rs", limit=2)  # a page cut before the test code
    assert sites(got["references"]) == [("src/a.rs", 2), ("src/lib.rs", 20)] and got["truncated"]
    got = refs(root, "Encode", path="pkg/enc.go")
    assert sites(got["references"]) == [("pkg/notignored.go", 6), ("pkg/use.go", 4)]
    assert got["test_references"] == [{"path": "gen/a_gen.go", "edge_type": "calls", "lines": [10]}]


def test_test_code_is_checked_only_as_far_as_the_page_reaches():
    rows = [{"path": p, "line_start": n} for p, n in
            [("a.rs", 1), ("a.rs", 9), ("b.rs", 1), ("c.rs", 1), ("d.rs", 9), ("tests/t.rs", 1)]]
    asked: list[tuple[str, int]] = []

    def is_test(path: str, line: int) -> bool:
        asked.append((path, line))
        return line == 9

    got = source_before_test_code(rows, 2, is_test)
    assert [(r["path"], r["line_start"]) for r in got] == \
        [("a.rs", 1), ("b.rs", 1), ("c.rs", 1), ("d.rs", 9), ("a.rs", 9), ("tests/t.rs", 1)]
    assert asked == [("a.rs", 1), ("a.rs", 9), ("b.rs", 1)]
