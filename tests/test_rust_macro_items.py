"""Rust items written in the `{ }` body of a macro called at item level (`cfg_rt! { .. }`, as
tokio wraps most of its API): symbols at their own lines, nested where they are written, and
their references read as code; bodies that are no items add nothing."""
from __future__ import annotations

from cruxe.index import run_index
from cruxe.languages import rust
from cruxe.languages.rust import MAX_MACRO_DEPTH, extract
from support.extract import by_qname, rows
from support.references import refs

TOP = b"""\
use std::fmt;

cfg_rt! {
    /// Runs `f` on a thread of its own.
    #[cfg(feature = "rt")]
    pub fn spawn_blocking<F>(f: F) -> JoinHandle {
        helper(f)
    }
}
"""

IMPL = b"""\
pub struct Handle;

impl Handle {
    cfg_rt! {
        pub fn block_on(&self) {}
    }
}
"""


def calls(fx) -> list[tuple[str, int, str | None]]:
    return [(r.to_name, r.line, fx.symbols[r.from_symbol].qualified_name if r.from_symbol is not None else None)
            for r in fx.references if r.edge_type == "calls"]


def test_top_level_body_item_is_found_at_its_lines():
    s = by_qname(extract(TOP, "src/task/blocking.rs"))["task::blocking::spawn_blocking"]
    assert (s.kind, s.visibility, s.name_line, s.line_start, s.line_end) == ("function", "public", 6, 4, 8)
    assert s.doc == "Runs `f` on a thread of its own." and s.signature == "pub fn spawn_blocking<F>(f: F) -> JoinHandle"


def test_body_in_an_impl_holds_methods_of_its_type():
    fx = extract(IMPL, "src/runtime/handle.rs")
    assert rows(fx) == [["Handle", "runtime::handle::Handle", "struct", 1, 1, 1, None],
                        ["block_on", "runtime::handle::Handle::block_on", "method", 5, 5, 5, "runtime::handle::Handle"]]


def test_calls_in_a_body_are_code_and_no_definition_is_a_call():
    fx = extract(TOP, "src/lib.rs")
    # before: `spawn_blocking(` and the attribute's `cfg(` were read from the tokens as calls
    assert calls(fx) == [("cfg_rt", 3, None), ("helper", 7, "spawn_blocking")]
    types = [(r.to_name, r.line) for r in fx.references if r.edge_type == "references"]
    assert types == [("JoinHandle", 6)]


def test_a_call_in_a_body_resolves_to_its_target(tmp_path):
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "lib.rs").write_text(
        "pub struct Handle;\n"
        "impl Handle {\n"
        "    cfg_rt! {\n"
        "        pub fn block_on(&self) -> u32 { self.helper() }\n"
        "    }\n"
        "    fn helper(&self) -> u32 { 2 }\n"
        "}\n")
    run_index(root)
    got = refs(root, "helper")
    assert [(r["path"], r["line_start"], r["from_symbol"]) for r in got["references"]] == \
        [("src/lib.rs", 4, "Handle::block_on")]
    assert got["unresolved_count"] == 0


def test_nested_macros_and_containers():
    src = b"""\
cfg_a! {
    cfg_b! {
        pub fn deep() { inner_call() }
    }
    pub mod m {
        pub struct T;
        impl T {
            cfg_c! { fn m2(&self) {} }
        }
    }
}
"""
    fx = extract(src, "src/lib.rs")
    assert rows(fx) == [["deep", "deep", "function", 3, 3, 3, None],
                        ["m", "m", "module", 5, 10, 5, None],
                        ["T", "m::T", "struct", 6, 6, 6, "m"],
                        ["m2", "m::T::m2", "method", 8, 8, 8, "m::T"]]
    assert ("inner_call", 3, "deep") in calls(fx)
    assert [c for c in calls(fx) if c[0] in ("deep", "m2")] == []


def test_nesting_is_bounded():
    depth = MAX_MACRO_DEPTH + 2
    src = "".join(f"m{i}! {{\n" for i in range(depth)) + "fn f() {}\n" + "}\n" * depth
    assert extract(src.encode(), "src/lib.rs").symbols == []
    src = "".join(f"m{i}! {{\n" for i in range(MAX_MACRO_DEPTH)) + "fn f() {}\n" + "}\n" * MAX_MACRO_DEPTH
    assert [s.name_line for s in extract(src.encode(), "src/lib.rs").symbols] == [MAX_MACRO_DEPTH + 1]


def test_bodies_parsed_per_file_are_bounded(monkeypatch):
    monkeypatch.setattr(rust, "MAX_MACRO_BODIES", 3)
    src = b"".join(b"m! { fn f%d() {} }\n" % i for i in range(5))
    assert [s.name for s in extract(src, "src/lib.rs").symbols] == ["f0", "f1", "f2"]


def test_a_body_that_is_no_items_adds_nothing():
    src = b"""\
dsl! {
    a => b, c + d;
    route GET "/x" => handler(x)
}
cfg_if::cfg_if! {
    if #[cfg(unix)] {
        mod unix;
    } else {
        mod other;
    }
}
json!({ "a": 1 });
"""
    fx = extract(src, "src/lib.rs")
    assert fx.symbols == []
    assert ("handler", 3, None) in calls(fx)  # its tokens are read as before


def test_items_beside_a_broken_part_are_kept_and_the_broken_part_adds_nothing():
    src = b"""\
mixed! {
    pub fn good() {}
    this is => not rust;
}
"""
    assert [(s.name, s.name_line) for s in extract(src, "src/lib.rs").symbols] == [("good", 2)]


def test_a_bodyless_fn_declares_only_in_a_trait_or_extern_block():
    src = b"""\
fragments! {
    Params { "function parameter"; many fn flat_map_param; fn visit_param(); }
    fn visit_field();
}
trait T { cfg_x! { fn required(&self); } }
extern "C" { cfg_x! { fn abs(x: i32) -> i32; } }
"""
    assert [(s.qualified_name, s.kind) for s in extract(src, "src/lib.rs").symbols] == \
        [("T", "trait"), ("T::required", "method"), ("abs", "function")]


def test_macro_rules_bodies_stay_templates():
    src = b"""\
macro_rules! make {
    ($name:ident) => {
        pub fn $name() {}
        pub fn fixed() {}
    };
}
"""
    fx = extract(src, "src/lib.rs")
    assert [(s.name, s.kind) for s in fx.symbols] == [("make", "function")]


def test_macro_call_in_expression_position_is_not_read_as_items():
    src = b"""\
fn main() {
    let v = vec! { 1, 2 };
    thing! { fn not_an_item() {} }
}
"""
    assert [s.name for s in extract(src, "src/lib.rs").symbols] == ["main"]

