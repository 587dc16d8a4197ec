"""A turbofish call written in a macro's arguments is a call (crossbeam-epoch's
`assert_eq!(raw & low_bits::<T>(), 0, "unaligned pointer")`): tree-sitter leaves the
arguments as tokens, where `::<T>` stands between the name and its `(`."""
from __future__ import annotations

from cruxe.extract import extract
from cruxe.index import run_index

from support.references import refs, sites

SOURCE = ("fn low_bits<T>() -> usize {\n    3\n}\n\n"
          "pub fn ensure_aligned<T>(raw: usize) {\n"
          "    assert_eq!(raw & low_bits::<T>(), 0, \"unaligned pointer\");\n"       # line 6
          "    debug_assert!(tags::mask::<u8, Vec<u8>>(raw) > 0);\n"               # line 7
          "    println!(\"{}\", d::<fn() -> u8>());\n"                              # line 8
          "    assert!(a::b::c < 3, \"no call: {}\", x::<T>);\n"                    # line 9
          "}\n")


def _calls(source: str) -> list[tuple]:
    return [(r.line, r.to_name, r.receiver) for r in extract("src/lib.rs", source.encode(), "rust").references
            if r.edge_type == "calls"]


def test_a_turbofish_call_in_a_macros_arguments_is_a_call():
    got = _calls(SOURCE)
    assert (6, "low_bits", "") in got and (7, "mask", "tags") in got, got
    assert got.count((8, "d", "")) == 1, got
    # a path or a turbofish not followed by `(` calls nothing
    assert not [c for c in got if c[0] == 9 and c[1] != "assert"], got


def test_its_callers_are_found(make_repo):
    root = make_repo({"Cargo.toml": '[package]\nname = "tagged"\nversion = "0.1.0"\n', "src/lib.rs": SOURCE})
    run_index(root)
    assert sites(refs(root, "low_bits")["references"]) == [("src/lib.rs", 6)]
