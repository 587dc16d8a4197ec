"""find_references lists the test code's references apart (issue 17, callers): `references` are
the code that uses the target; `test_references` hold the test files' (and Rust `#[cfg(test)]`
code's) sites, one entry per file and edge type with every line; totals, pages and the safety
limit stay exact; a test helper's own callers are its references."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from cruxe.index import run_index
from cruxe.jsonenc import to_json
from cruxe.shape import full_metadata

from support.references import every_site, refs, server_with_limit, sites

TEST_CALLS = [6, 7, 8, 10, 11, 12, 13]  # test_parses' seven calls
MANY_TEST_CALLS = {
    "lib.py": "def parse(x):\n    return x\n",
    "app.py": ("from lib import parse\n\n\ndef load(s):\n    return parse(s)\n\n\n"
               "def reload(s):\n    return parse(parse(s))\n"),  # lines 5 and 9 (two calls on 9: one site)
    "tests/test_lib.py": ("from lib import parse\n\n\n"
                          "def test_parses():\n"
                          "    x = 0\n"
                          "    assert parse(0) == 0\n"  # line 6
                          "    assert parse(1) == 1\n"
                          "    assert parse(2) == 2\n"
                          "\n"
                          "    assert parse(3) == 3\n"  # line 10
                          "    assert parse(4) == 4\n"
                          "    assert parse(5) == 5\n"
                          "    assert parse(6) == 6\n"  # line 13
                          "\n\n"
                          "def test_once():\n"
                          "    assert parse(9) == 9\n"),  # line 17
    "tests/test_top.py": "from lib import parse\n\nparse(1)\nparse(2)\n",  # the file's top level: 3, 4
}


def test_test_code_is_listed_apart_by_file_with_every_line_and_exact_totals(make_repo):
    root = make_repo(MANY_TEST_CALLS)
    run_index(root)
    got = refs(root, "parse", path="lib.py")
    assert sites(got["references"]) == [("app.py", 5), ("app.py", 9)]
    assert all("test" not in r and "lines" not in r for r in got["references"])
    assert got["test_references"] == [
        {"path": "tests/test_lib.py", "edge_type": "calls", "lines": TEST_CALLS + [17]},
        {"path": "tests/test_top.py", "edge_type": "calls", "lines": [3, 4]}]
    assert got["total_references"] == 2 + 8 + 2 and got["imports_folded"] == 3
    assert "truncated" not in got


def test_a_page_counts_each_lists_entries_and_its_next_action_lists_them_all(make_repo):
    root = make_repo(MANY_TEST_CALLS)
    run_index(root)
    server = server_with_limit(root, 65536)
    payload, _ = server.call_tool("find_references", {"symbol_name": "parse", "path": "lib.py", "limit": 1})
    assert sites(payload["references"]) == [("app.py", 5)]
    assert [t["path"] for t in payload["test_references"]] == ["tests/test_lib.py"]
    assert payload["total_references"] == 12
    assert full_metadata(payload["metadata"])["result_completeness"] == "truncated"
    every = [a["arguments"] for a in payload["suggested_next_actions"] if "limit" in a["arguments"]]
    assert every == [{"symbol_name": "parse", "path": "lib.py", "limit": 12}]
    whole, _ = server.call_tool("find_references", every[0])
    assert len(whole["references"]) == 2 and len(whole["test_references"]) == 2
    assert "suggested_next_actions" not in whole
    assert len(every_site(whole)) == whole["total_references"]
    again, _ = server.call_tool("find_references", every[0])
    assert to_json(again) == to_json(whole)  # same input, same bytes


def test_the_safety_limit_keeps_a_files_test_lines_whole_or_cuts_them(make_repo):
    calls = "".join(f"    parse({i}, 'a rather long argument that fills this line of the test {i:04d}')\n"
                    for i in range(80))
    root = make_repo({"lib.py": "def parse(x, y=None):\n    return x\n",
                      "app.py": "from lib import parse\n\n\ndef load(s):\n    return parse(s)\n",
                      "tests/test_lib.py": f"from lib import parse\n\n\ndef test_many():\n{calls}"})
    run_index(root)
    whole, _ = server_with_limit(root, 65536).call_tool("find_references", {"symbol_name": "parse"})
    assert sites(whole["references"]) == [("app.py", 5)]
    assert whole["test_references"] == [{"path": "tests/test_lib.py", "edge_type": "calls", "lines": list(range(5, 85))}]
    cut, _ = server_with_limit(root, 300).call_tool("find_references", {"symbol_name": "parse"})
    assert cut["references"] == whole["references"] and "test_references" not in cut
    assert cut["total_references"] == 81 and cut["metadata"]["safety_limit_applied"] is True


def test_a_test_helpers_callers_are_its_references(make_repo):
    root = make_repo({"tests/helpers.py": "def make(x):\n    return x\n",
                      "tests/test_a.py": ("from tests.helpers import make\n\n\ndef test_a():\n"
                                          "    make(1)\n    make(2)\n    make(3)\n")})
    run_index(root)
    got = refs(root, "make", path="tests/helpers.py")
    assert sites(got["references"]) == [("tests/test_a.py", 5), ("tests/test_a.py", 6), ("tests/test_a.py", 7)]
    assert "test_references" not in got


RUST_TESTS_IN_SOURCE = {  # with a lone test call in a test-only fn, whose path does not say it
    "Cargo.toml": '[package]\nname = "q"\nversion = "0.1.0"\n',
    "src/lib.rs": ("pub fn push(x: usize) -> usize {\n    x\n}\n\n"
                   "pub fn twice() -> usize {\n    push(push(1))\n}\n\n"  # line 6
                   "#[cfg(test)]\nmod tests {\n    use super::*;\n\n"
                   "    #[test]\n    fn pushes() {\n"
                   "        assert_eq!(push(1), 1);\n        assert_eq!(push(2), 2);\n"  # lines 15, 16
                   "        assert_eq!(push(3), 3);\n    }\n}\n\n"  # line 17
                   "#[cfg(test)]\nfn helper() -> usize {\n    push(4)\n}\n"),  # line 23
}


def test_rust_cfg_test_calls_are_test_references(make_repo):
    root = make_repo(RUST_TESTS_IN_SOURCE)
    run_index(root)
    got = refs(root, "push", path="src/lib.rs")
    assert sites(got["references"]) == [("src/lib.rs", 6)]
    assert got["test_references"] == [{"path": "src/lib.rs", "edge_type": "calls", "lines": [15, 16, 17, 23]}]
    assert got["total_references"] == 5


def test_the_cli_prints_the_tools_json_and_the_test_lines(make_repo):
    root = make_repo(MANY_TEST_CALLS)
    run_index(root)
    payload, _ = server_with_limit(root, 65536).call_tool("find_references", {"symbol_name": "parse"})

    def cli(*extra: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "cruxe", "refs", "parse", "--path", str(root), *extra],
                              capture_output=True, text=True, env=os.environ.copy(), timeout=120)

    as_json = cli("--json")
    assert as_json.returncode == 0, as_json.stderr
    got = json.loads(as_json.stdout)
    assert (got["references"], got["test_references"]) == (payload["references"], payload["test_references"])
    human = cli()
    assert "app.py:5\tcalls\tapp.load\treturn parse(s)\n" in human.stdout
    assert "tests/test_lib.py:6,7,8,10,11,12,13,17\tcalls\t(test)\n" in human.stdout
    assert "12 resolved, 0 unresolved" in human.stderr


def test_a_rust_test_helpers_callers_in_a_source_file_are_its_references_marked_test(make_repo):
    root = make_repo({
        "Cargo.toml": '[package]\nname = "q"\nversion = "0.1.0"\n',
        "src/lib.rs": ("pub fn push(x: usize) -> usize {\n    x\n}\n\n"
                       "#[cfg(test)]\nfn fixture() -> usize {\n    push(4)\n}\n\n"  # line 6: a test helper
                       "#[cfg(test)]\nmod tests {\n    use super::*;\n\n"
                       "    #[test]\n    fn uses() {\n        assert_eq!(fixture(), 4);\n    }\n}\n"),  # line 16
    })
    run_index(root)
    got = refs(root, "fixture", path="src/lib.rs")
    assert [(r["path"], r["line_start"], r.get("test")) for r in got["references"]] == [("src/lib.rs", 16, True)]
    assert "test_references" not in got
