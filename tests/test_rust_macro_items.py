"""Rust items written in the `{ }` body of a macro called at item level (`cfg_rt! { .. }`, as
tokio wraps most of its API), in each branch of a `cfg_if!` and as a `lazy_static!`'s `static ref`:
symbols at their own lines, nested where they are written, and their references read as code;
bodies that are no items add nothing."""
from __future__ import annotations

from cruxe.index import run_index
from cruxe.languages import rust
from cruxe.languages.rust import MAX_MACRO_DEPTH, extract
from cruxe.tools import Server
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



CFG_IF = b"""\
cfg_if::cfg_if! {
    if #[cfg(unix)] {
        mod unix;
        pub use self::unix::*;
        pub fn on_unix() { unix_call() }
    } else if #[cfg(all(windows, not(target_vendor = "uwp")))] {
        pub fn on_windows() {}
    } else {
        /// Anywhere else.
        pub(crate) fn elsewhere() {}
    }
}
"""


def test_each_cfg_if_branch_holds_items_at_their_lines():
    fx = extract(CFG_IF, "src/sys/mod.rs")
    assert rows(fx) == [["unix", "sys::unix", "module", 3, 3, 3, None],
                        ["on_unix", "sys::on_unix", "function", 5, 5, 5, None],
                        ["on_windows", "sys::on_windows", "function", 7, 7, 7, None],
                        ["elsewhere", "sys::elsewhere", "function", 9, 10, 10, None]]
    s = by_qname(fx)["sys::elsewhere"]
    assert (s.visibility, s.doc) == ("internal", "Anywhere else.")


def test_a_mod_and_a_use_in_a_branch_are_as_at_top_level():
    top = b"mod unix;\npub use self::unix::*;\n"
    in_branch = b"cfg_if! {\n    if #[cfg(unix)] {\n" + top + b"    }\n}\n"

    def seen(fx):
        return ([(s.name, s.qualified_name, s.kind, s.visibility) for s in fx.symbols],
                [(r.edge_type, r.to_name, r.module, r.line) for r in fx.references if r.edge_type == "imports"])
    want_syms, want_imports = seen(extract(top, "src/sys/mod.rs"))
    got_syms, got_imports = seen(extract(in_branch, "src/sys/mod.rs"))
    assert got_syms == want_syms == [("unix", "sys::unix", "module", "private")]
    assert [(e, n, m, line - 2) for e, n, m, line in got_imports] == want_imports == \
        [("imports", "self::unix::*", "self::unix", 2)]


def test_cfg_if_calls_are_code_and_its_cfg_attributes_no_calls():
    assert calls(extract(CFG_IF, "src/lib.rs")) == [("cfg_if", 1, None), ("unix_call", 5, "on_unix")]


def test_cfg_if_in_an_impl_gives_methods_of_the_type():
    src = b"""\
pub struct Fd;
impl Fd {
    cfg_if! {
        // a comment before the first branch
        if #[cfg(unix)] {
            pub fn raw(&self) -> i32 { 0 }
        } else {
            pub fn raw(&self) -> i32 { 1 }
        }
    }
}
"""
    assert rows(extract(src, "src/fd.rs")) == [["Fd", "fd::Fd", "struct", 1, 1, 1, None],
                                               ["raw", "fd::Fd::raw", "method", 6, 6, 6, "fd::Fd"],
                                               ["raw", "fd::Fd::raw", "method", 8, 8, 8, "fd::Fd"]]


def test_cfg_if_branches_count_against_the_bound(monkeypatch):
    monkeypatch.setattr(rust, "MAX_MACRO_BODIES", 2)
    src = b"cfg_if! { if #[cfg(a)] { fn f0() {} } else if #[cfg(b)] { fn f1() {} } else { fn f2() {} } }\n"
    assert [s.name for s in extract(src, "src/lib.rs").symbols] == ["f0", "f1"]


LAZY = b"""\
lazy_static::lazy_static! {
    /// Compiled once.
    pub static ref WORD_RE: Regex = Regex::new(r"\\w+").unwrap();
    static ref
        TABLE: Vec<u8> = build_table();
}
"""


def test_a_lazy_static_ref_is_a_static_at_its_line(tmp_path):
    fx = extract(LAZY, "src/lib.rs")
    assert rows(fx) == [["WORD_RE", "WORD_RE", "constant", 2, 3, 3, None],
                        ["TABLE", "TABLE", "constant", 4, 5, 5, None]]
    s = by_qname(fx)["WORD_RE"]
    assert (s.visibility, s.doc, s.signature) == ("public", "Compiled once.", "pub static ref WORD_RE: Regex")
    assert ("build_table", 5, "TABLE") in calls(fx)
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "lib.rs").write_bytes(LAZY)
    run_index(root)
    payload, _ = Server(root).call_tool("locate_symbol", {"name": "TABLE"})
    assert [(h["path"], h["line_start"], h["line_end"]) for h in payload["results"]] == [("src/lib.rs", 4, 5)]


def test_malformed_cfg_if_and_lazy_static_bodies_add_nothing():
    src = b"""\
cfg_if! {
    if #[cfg(a)] {
        this is => not rust(1);
    } else {
        fn kept() {}
    }
}
cfg_if! { if #[cfg(b)] { fn unclosed() {}
lazy_static! { static ref = missing_name(); }
"""
    fx = extract(src, "src/lib.rs")
    assert [(s.name, s.name_line) for s in fx.symbols] == [("kept", 5)]
    assert ("rust", 3, None) in calls(fx) and ("missing_name", 9, None) in calls(fx)


def test_only_a_bracketed_group_after_hash_is_an_attribute_in_macro_tokens():
    src = b"fn f() { quote! { #(make(x))* #[cfg(all(unix))] y } }\n"
    assert calls(extract(src, "src/lib.rs")) == [("quote", 1, "f"), ("make", 1, "f")]
