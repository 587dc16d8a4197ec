"""find_references that never drops a caller (issue 17, item 6): same-named definitions in one
file answered per definition (grouped with `path`, one by qualified name or `path` + `line`),
an ambiguity error whose listed arguments work, unresolved uses listed with file:line after the
resolved ones, and the payload safety limit. Rust re-exports: the `rust_reexport` fixture in
test_refs.py's hand-checked answers."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from cruxe.errors import CruxeError
from cruxe.index import run_index
from cruxe.shape import full_metadata
from cruxe.tools import Server

from support.references import every_site, refs, server_with_limit, sites
from support.repos import POOL_REPO, fixture_repo



PY_CIRCLE = [("main.py", 5), ("shapes.py", 12)]
PY_SQUARE = [("main.py", 9), ("shapes.py", 12)]


def test_two_same_named_methods_of_one_python_file_are_answered_grouped_by_definition(tmp_path):
    root = fixture_repo(tmp_path, "python_same_name")
    got = refs(root, "area", path="shapes.py")
    assert [(d["qualified_name"], d["line_start"], d["total_references"]) for d in got["definitions"]] == \
        [("shapes.Circle.area", 2, 2), ("shapes.Square.area", 7, 2)]
    assert got["total_references"] == 4
    by_def = [(r["definition"], r["path"], r["line_start"]) for r in got["references"]]
    assert by_def == [("shapes.Circle.area", *s) for s in PY_CIRCLE] + [("shapes.Square.area", *s) for s in PY_SQUARE]
    assert sites(got["unresolved"]) == [("main.py", 13), ("shapes.py", 14)]  # `x.area()`: either class


@pytest.mark.parametrize("how, want", [
    ({"symbol_name": "Circle.area"}, ("shapes.Circle.area", PY_CIRCLE)),
    ({"symbol_name": "Square.area"}, ("shapes.Square.area", PY_SQUARE)),
    ({"symbol_name": "area", "path": "shapes.py", "line": 7}, ("shapes.Square.area", PY_SQUARE)),
    ({"symbol_name": "area", "path": "shapes.py", "line": 3}, ("shapes.Circle.area", PY_CIRCLE)),  # in its body
])
def test_each_same_named_python_method_is_answerable_alone(tmp_path, how, want):
    root = fixture_repo(tmp_path, "python_same_name")
    got = refs(root, how.pop("symbol_name"), **how)
    assert (got["symbol"]["qualified_name"], sites(got["references"])) == want
    assert "definitions" not in got and all("definition" not in r for r in got["references"])


def test_an_ambiguous_name_lists_arguments_that_pick_each_definition(tmp_path):
    root = fixture_repo(tmp_path, "python_same_name")
    with pytest.raises(CruxeError) as e:
        refs(root, "area")
    assert e.value.code == "ambiguous_symbol" and "`line`" in e.value.remedy
    defs = e.value.data["definitions"]
    assert [d["qualified_name"] for d in defs] == ["shapes.Circle.area", "shapes.Square.area"]
    for d in defs:  # the remedy works: each listed definition's arguments answer that definition
        args = dict(d["arguments"])
        got = refs(root, args.pop("symbol_name"), **args)
        assert (got["symbol"]["qualified_name"], got["symbol"]["line_start"]) == (d["qualified_name"], d["line_start"])


def test_line_needs_path_and_a_line_with_no_definition_lists_them(tmp_path):
    root = fixture_repo(tmp_path, "python_same_name")
    with pytest.raises(CruxeError) as e:
        refs(root, "area", line=2)
    assert e.value.code == "invalid_input" and e.value.data["field"] == "line"
    with pytest.raises(CruxeError) as e:
        refs(root, "area", path="shapes.py", line=11)
    assert e.value.code == "symbol_not_found"
    assert [d["line_start"] for d in e.value.data["definitions"]] == [2, 7]


def test_a_typescript_interface_member_and_its_implementation_in_one_file(tmp_path):
    root = fixture_repo(tmp_path, "typescript_iface")
    got = refs(root, "save", path="store.ts")
    assert [d["qualified_name"] for d in got["definitions"]] == ["store.Store.save", "store.MemoryStore.save"]
    assert [(r["definition"], r["path"], r["line_start"]) for r in got["references"]] == [
        ("store.Store.save", "app.ts", 6), ("store.Store.save", "store.ts", 12),
        ("store.MemoryStore.save", "app.ts", 6), ("store.MemoryStore.save", "store.ts", 16)]
    impl = refs(root, "save", path="store.ts", line=6)
    assert impl["symbol"]["qualified_name"] == "store.MemoryStore.save"
    assert sites(impl["references"]) == [("app.ts", 6), ("store.ts", 16)]
    assert sites(refs(root, "Store.save")["references"]) == [("app.ts", 6), ("store.ts", 12)]


def test_unresolved_uses_are_listed_after_the_resolved_ones_and_bounded(make_repo):
    root = make_repo(POOL_REPO)
    run_index(root)
    got = refs(root, "createPool")
    assert sites(got["references"]) == [("app.py", 5), ("app.py", 9)] and got["imports_folded"] == 1
    assert got["unresolved_count"] == 5 and "truncated" not in got
    listed = got["unresolved"]
    assert sites(listed) == [("dyn.py", 2), ("dyn.py", 3), ("ext1.py", 1), ("ext2.py", 1), ("ext3.py", 1)]
    assert all(r["resolved"] is False for r in listed)
    assert [r["edge_type"] for r in listed] == ["calls", "calls", "imports", "imports", "imports"]
    assert listed[0]["context"] == "factory.createPool(3)" and listed[0]["from_symbol"] == "dyn.c"
    assert listed[2]["reason"] == "external"
    page = refs(root, "createPool", limit=1)
    assert sites(page["references"]) == [("app.py", 5)] and sites(page["unresolved"]) == [("dyn.py", 2)]
    assert page["truncated"] is True and page["unresolved_count"] == 5
    assert sites(refs(root, "createPool", kind="calls")["unresolved"]) == [("dyn.py", 2), ("dyn.py", 3)]



def test_unresolved_uses_in_tests_come_after_the_implementation_s(make_repo):
    # `tests/` sorts before `zdyn.py`: by path alone the test file's candidates would fill the page
    root = make_repo({**POOL_REPO, "dyn.py": "def c():\n    return 0\n",
                      "tests/test_pool.py": "def test_a(f):\n    f.createPool(1)\n    f.createPool(2)\n",
                      "examples/demo.py": "def demo(f):\n    f.createPool(5)\n",
                      "zdyn.py": "def c(factory):\n    factory.createPool(3)\n"})
    run_index(root)
    got = refs(root, "createPool", kind="calls")
    assert sites(got["unresolved"]) == [("zdyn.py", 2), ("examples/demo.py", 2),
                                        ("tests/test_pool.py", 2), ("tests/test_pool.py", 3)]
    assert got["unresolved_count"] == 4
    page = refs(root, "createPool", kind="calls", limit=1)
    assert sites(page["unresolved"]) == [("zdyn.py", 2)] and page["truncated"] is True
    assert sites(refs(root, "createPool", kind="calls", limit=2)["unresolved"]) == [("zdyn.py", 2), ("examples/demo.py", 2)]

def many_callers(n: int) -> dict[str, str]:
    calls = "".join(f"    target(1, 'a rather long argument that fills the line {i:04d} of this caller')\n"
                    for i in range(n))
    return {"lib.py": "def target(x, y):\n    return x\n",
            "use.py": f"from lib import target\n\n\ndef caller():\n{calls}"}


def test_the_payload_safety_limit_cuts_references_with_truncated_and_next_actions(make_repo):
    root = make_repo(many_callers(60))
    run_index(root)
    whole, _ = server_with_limit(root, 65536).call_tool("find_references", {"symbol_name": "target", "limit": 500})
    assert len(whole["references"]) == 60 and whole["imports_folded"] == 1 and full_metadata(whole["metadata"])["result_completeness"] == "complete"
    assert "suggested_next_actions" not in whole and "safety_limit_applied" not in whole["metadata"]
    server = server_with_limit(root, 2048)
    payload, is_error = server.call_tool("find_references", {"symbol_name": "target", "limit": 500})
    assert not is_error, payload
    assert payload["total_references"] == 60
    kept = payload["references"]
    assert 0 < len(kept) < 60 and kept == whole["references"][:len(kept)]  # the longest prefix that fits
    assert len(json.dumps(kept, separators=(",", ":"), ensure_ascii=False).encode()) <= 2048
    meta = payload["metadata"]
    assert meta["result_completeness"] == "truncated" and meta["safety_limit_applied"] is True
    actions = payload["suggested_next_actions"]
    assert actions and all(a["tool"] == "find_references" for a in actions)
    for a in actions:  # every suggested call is one the tool accepts
        follow, err = server.call_tool(a["tool"], a["arguments"])
        assert not err, follow


def test_a_limit_cut_suggests_the_call_that_lists_everything(make_repo):
    root = make_repo(many_callers(30))
    run_index(root)
    server = server_with_limit(root, 65536)
    payload, _ = server.call_tool("find_references", {"symbol_name": "target", "kind": "calls", "limit": 5})
    assert payload["metadata"]["result_completeness"] == "truncated"
    assert "safety_limit_applied" not in payload["metadata"]
    assert [a["arguments"] for a in payload["suggested_next_actions"]] == \
        [{"symbol_name": "target", "kind": "calls", "limit": 30}]


def test_rust_glob_reexports_that_chain_into_each_other_end(make_repo, caplog):
    # a and b re-export each other's items by glob: a name neither defines is looked up once
    # per module and the cycle stops (unresolved, no error); a name one of them defines resolves
    root = make_repo({"Cargo.toml": '[package]\nname = "cyc"\n',
                      "src/lib.rs": "pub mod a;\npub mod b;\n\npub fn go() {\n    a::missing();\n    a::only_b();\n}\n",
                      "src/a.rs": "pub use crate::b::*;\n",
                      "src/b.rs": "pub use crate::a::*;\n\npub fn only_b() {}\n"})
    run_index(root)
    assert sites(refs(root, "only_b")["references"]) == [("src/lib.rs", 6)]
    assert "resolver" not in caplog.text.lower()
    with pytest.raises(CruxeError) as e:
        refs(root, "missing")
    assert e.value.code == "symbol_not_found" and e.value.data["unresolved_count"] == 1


def test_rust_glob_reexport_of_another_crates_module(make_repo):
    # `app` re-exports the `net` module of the workspace's `wire` crate by glob: `app::send`
    # is wire's `send`, found in the crate the glob names, not in `app`
    root = make_repo({"wire/Cargo.toml": '[package]\nname = "wire"\n',
                      "wire/src/lib.rs": "pub mod net;\n",
                      "wire/src/net.rs": "pub fn send() {}\n",
                      "app/Cargo.toml": '[package]\nname = "app"\n',
                      "app/src/lib.rs": "pub use wire::net::*;\n",
                      "app/tests/it.rs": "fn t() {\n    app::send();\n}\n"})
    run_index(root)
    got = refs(root, "send")
    assert got["references"] == [] and every_site(got) == [("app/tests/it.rs", 2)]


def test_a_cut_grouped_answer_suggests_each_definition_alone(tmp_path):
    root = fixture_repo(tmp_path, "python_same_name")
    server = Server(root)
    payload, is_error = server.call_tool("find_references", {"symbol_name": "area", "path": "shapes.py", "limit": 1})
    assert not is_error and payload["metadata"]["result_completeness"] == "truncated"
    picks = [a["arguments"] for a in payload["suggested_next_actions"]][:2]
    assert picks == [{"symbol_name": "shapes.Circle.area", "path": "shapes.py", "line": 2},
                     {"symbol_name": "shapes.Square.area", "path": "shapes.py", "line": 7}]
    for args, want in zip(picks, (PY_CIRCLE, PY_SQUARE)):
        alone, err = server.call_tool("find_references", args)
        assert not err and sites(alone["references"]) == want


# ---- each use once: imports folded into the file's other references (issue 17, callers) -------

FOLD_REPO = {
    "lib.py": "def target(x):\n    return x\n",
    "use.py": "from lib import target\n\n\ndef caller():\n    return target(1)\n",  # imports and calls
    "reexport.py": "from lib import target\n",  # imports only: a re-export
    "app.ts": "export function run(n: number) {\n  return n\n}\n",
    "main.ts": "import { run } from './app'\n\nexport function go() {\n  return run(2)\n}\n",
    "index.ts": "export { run } from './app'\n",
    "tests/test_use.py": "from lib import target\n\n\ndef test_it():\n    assert target(2) == 2\n",
}


@pytest.mark.parametrize("name, path, listed, imports", [
    # a lone import (a re-export) after the uses of its rank: the calls are what is asked for
    ("target", "lib.py", [("use.py", 5, "calls"), ("reexport.py", 1, "imports"), ("tests/test_use.py", 5, "calls")],
     [("reexport.py", 1), ("use.py", 1), ("tests/test_use.py", 1)]),
    ("run", "app.ts", [("main.ts", 4, "calls"), ("index.ts", 1, "imports")], [("index.ts", 1), ("main.ts", 1)]),
])
def test_an_import_beside_a_use_of_the_target_is_folded_and_a_lone_import_stays(make_repo, name, path, listed,
                                                                                 imports):
    root = make_repo(FOLD_REPO)
    run_index(root)
    got = refs(root, name, path=path)
    assert every_site(got, edge_type=True) == listed
    listed_imports = sum(edge == "imports" for _, _, edge in every_site(got, edge_type=True))
    assert got["imports_folded"] == len(imports) - listed_imports and got["total_references"] == len(listed)
    every_import = refs(root, name, path=path, kind="imports")  # the filter still lists every import
    assert every_site(every_import) == imports and "imports_folded" not in every_import


def test_nothing_folded_leaves_no_imports_folded_field(make_repo):
    root = make_repo({"lib.py": "def target(x):\n    return x\n",
                      "use.py": "import lib\n\n\ndef caller():\n    return lib.target(1)\n"})
    run_index(root)
    got = refs(root, "target", path="lib.py")
    assert sites(got["references"]) == [("use.py", 5)] and "imports_folded" not in got


RUST_CALLS = {
    "Cargo.toml": '[package]\nname = "demo"\nversion = "0.1.0"\n',
    "src/lib.rs": ("pub mod fmtx;\npub mod node;\n\n"
                   "pub fn show(out: &mut String, n: usize) {\n"
                   "    write!(out, \"{}\", fmtx::sep(n, ',')).unwrap();\n"   # line 5: a module path in a macro
                   "    write!(out, \"{}\", crate::fmtx::sep(n, '.')).unwrap();\n"  # line 6
                   "}\n"),
    "src/fmtx.rs": ("pub fn sep(n: usize, c: char) -> String {\n    format!(\"{}{}\", n, c)\n}\n\n"
                    "pub fn twice(n: usize) -> String {\n    format!(\"{}\", sep(sep_width(n), ','))\n}\n\n"  # line 6
                    "fn sep_width(n: usize) -> usize {\n    n\n}\n"),
    "src/node.rs": ("pub struct Handle(usize);\n\nimpl Handle {\n    pub fn into_kv_mut(self) -> usize {\n        self.0\n    }\n}\n\n"
                    "pub fn walk(h: &Handle, f: impl Fn(&Handle) -> usize) -> usize {\n"
                    "    f(h) + [h].iter().map(|kv| unsafe { core::ptr::read(*kv) }.into_kv_mut()).sum::<usize>()\n"  # 10
                    "}\n"),
}


@pytest.mark.parametrize("name, path, want", [
    ("sep", "src/fmtx.rs", [("src/fmtx.rs", 6), ("src/lib.rs", 5), ("src/lib.rs", 6)]),  # calls in macro arguments
    ("sep_width", "src/fmtx.rs", [("src/fmtx.rs", 6)]),
    ("into_kv_mut", "src/node.rs", [("src/node.rs", 10)]),  # on an expression's value, in a closure
])
def test_rust_calls_in_macro_arguments_and_on_block_values_are_found(make_repo, name, path, want):
    root = make_repo(RUST_CALLS)
    run_index(root)
    got = refs(root, name, path=path)
    assert sites(got["references"]) == want and got["unresolved_count"] == 0


GO_TEST_PACKAGE = {
    "go.mod": "module example.com/m\n\ngo 1.19\n",
    # an external test package sorts first in the directory: it must not name the package
    "constant/example_test.go": ("package constant_test\n\nimport \"example.com/m/constant\"\n\n"
                                 "func ExampleMakeImag() {\n\tconstant.MakeImag(1)\n}\n"),
    "constant/value.go": "package constant\n\nfunc MakeImag(x int) int {\n\treturn x\n}\n",
    "types/expr.go": ("package types\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/m/constant\"\n)\n\n"
                      "func imag(x int) int {\n\tfmt.Println(x)\n\treturn constant.MakeImag(x)\n}\n"),
}


def test_a_go_call_qualified_by_a_package_with_an_external_test_package_resolves(make_repo):
    root = make_repo(GO_TEST_PACKAGE)
    run_index(root)
    got = refs(root, "MakeImag", path="constant/value.go")
    assert every_site(got) == [("types/expr.go", 11), ("constant/example_test.go", 6)]
    assert got["unresolved_count"] == 0


TS_FUNCTION_TYPE_PARAMS = {
    "reaction.ts": ("export interface Ctx {\n  dispose(): void\n}\n\n"
                    "export class Reaction {\n  getDisposer_(): () => void {\n    return () => {}\n  }\n}\n"),
    "api.ts": ("import { Ctx, Reaction } from './reaction'\n\n"
               "export function reaction<T>(expression: (r: Ctx) => T, effect: (v: T, r: Ctx) => void) {\n"
               "  const r = new Reaction()\n"
               "  return r.getDisposer_()\n"  # line 5: `r` is the local, not the function types' parameter
               "}\n"),
}


def test_typescript_function_type_parameters_do_not_hide_a_typed_local(make_repo):
    root = make_repo(TS_FUNCTION_TYPE_PARAMS)
    run_index(root)
    got = refs(root, "getDisposer_", path="reaction.ts")
    assert sites(got["references"]) == [("api.ts", 5)] and got["unresolved_count"] == 0


def test_the_cli_says_how_many_import_lines_it_folded(make_repo):
    root = make_repo(FOLD_REPO)
    run_index(root)
    proc = subprocess.run([sys.executable, "-m", "cruxe", "refs", "target", "--file", "lib.py", "--path", str(root)],
                          capture_output=True, text=True, env=os.environ.copy())
    assert proc.returncode == 0, proc.stderr
    assert "use.py:5\tcalls" in proc.stdout and "use.py:1\t" not in proc.stdout
    assert "3 resolved, 0 unresolved, 2 import lines folded into uses (--kind imports lists them)" in proc.stderr


def test_the_cli_picks_one_of_two_same_named_methods_in_a_file_by_line(make_repo):
    # the ambiguity error's remedy names `path` + `line`; the CLI takes both
    root = make_repo({"shapes.py": "class Circle:\n    def area(self):\n        return 3\n\n\n"
                                   "class Square:\n    def area(self):\n        return 4\n",
                      "use.py": "from shapes import Circle, Square\n\n\ndef total():\n"
                                "    return Circle().area() + Square().area()\n"})
    run_index(root)
    cli = [sys.executable, "-m", "cruxe", "refs", "area", "--file", "shapes.py", "--path", str(root), "--json"]
    for line, cls in ((2, "Circle"), (7, "Square")):
        proc = subprocess.run([*cli, "--line", str(line)], capture_output=True, text=True, env=os.environ.copy())
        assert proc.returncode == 0, proc.stderr
        out = json.loads(proc.stdout)
        assert out["symbol"]["qualified_name"].endswith(f"{cls}.area") and out["symbol"]["line_start"] == line


def test_uses_tied_to_outside_code_are_listed_after_the_undecided_ones(make_repo):
    # `a.py` sorts first, but its `xs.extend` is a list's: the undecided `thing.extend` of `b.py`
    # is the likelier caller and is what a page of one shows
    root = make_repo({"bags.py": "class Bag:\n    def extend(self, xs):\n        pass\n\n\n"
                                 "class Pile:\n    def extend(self, xs):\n        pass\n",
                      "a.py": "def f():\n    xs = []\n    xs.extend([1])\n",
                      "b.py": "def g(thing):\n    thing.extend([2])\n"})
    run_index(root)
    got = refs(root, "Bag.extend")
    assert [(r["path"], r["line_start"], r["reason"]) for r in got["unresolved"]] == \
        [("b.py", 2, "opaque"), ("a.py", 3, "external")]
    assert got["unresolved_count"] == 2
    page = refs(root, "Bag.extend", limit=1)
    assert sites(page["unresolved"]) == [("b.py", 2)] and page["truncated"] is True
