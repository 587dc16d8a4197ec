"""Rust calls on a local whose `let` says its type (issue 17, rs-probe4's `let mut fb =
FixedBitSet::with_capacity(n); fb.insert(i)`): the call goes to that type's method; a `let`
of a call whose signature does not return the type, a later binding of the name, a closure's
parameter, stay as before (here: two `insert` methods, so ambiguous)."""
from __future__ import annotations

import pytest

from cruxe.index import run_index

from support.incremental import call_targets, synced_and_whole
from support.references import refs, sites
from support.repos import marked_line

LIB = """\
pub mod uses;
use std::sync::Arc;

pub struct FixedBitSet {
    bits: u32,
}

impl FixedBitSet {
    pub fn with_capacity(n: usize) -> Self {
        FixedBitSet { bits: n as u32 }
    }
    pub fn maybe() -> Option<FixedBitSet> {
        None
    }
    pub fn insert(&mut self, i: usize) {}
    pub fn twice() {
        let mut s = Self::with_capacity(2);
        s.insert(8); // Self
    }
}

pub struct Other;

impl Other {
    pub fn new() -> Other {
        Other
    }
    pub fn insert(&mut self, i: usize) {}
}
"""

USES = """\
use std::sync::Arc;
use crate::{FixedBitSet, Other};

pub fn fill(n: usize, make: fn() -> FixedBitSet) {
    let mut fb = FixedBitSet::with_capacity(n);
    fb.insert(1); // with_capacity
    assert!(fb.insert(9) == ()); // in a macro
    let typed: &mut FixedBitSet = &mut make();
    typed.insert(2); // typed
    let lit = crate::FixedBitSet { bits: 0 };
    lit.insert(3); // literal
    let opt = FixedBitSet::maybe();
    opt.insert(4); // Option
    {
        let mut fb = Other::new();
        fb.insert(6); // shadowed
    }
    fb.insert(7); // outer again
    let arc: Arc<FixedBitSet> = Arc::new(make());
    arc.insert(10); // arc
    fn inner(fb: u8) {
        fb.insert(11); // inner fn
    }
    let each = |fb: Other| fb.insert(5); // closure
}
"""

FILES = {"Cargo.toml": '[package]\nname = "bits"\nversion = "0.1.0"\n', "src/lib.rs": LIB, "src/uses.rs": USES}




def test_a_call_on_a_local_goes_to_the_type_its_let_says(make_repo):
    root = make_repo(FILES)
    run_index(root)
    got = refs(root, "FixedBitSet::insert")
    assert sorted(sites(got["references"])) == sorted(
        [("src/lib.rs", marked_line(LIB, "// Self"))]
        + [("src/uses.rs", marked_line(USES, m)) for m in ("// with_capacity", "// in a macro", "// typed",
                                                     "// literal", "// outer again", "// arc")])
    got = refs(root, "Other::insert")
    assert sites(got["references"]) == [("src/uses.rs", marked_line(USES, "// shadowed"))]
    unresolved = {(u["path"], u["line_start"]) for u in got["unresolved"]}
    for marker in ("// Option", "// inner fn", "// closure"):  # as before: no type said
        assert ("src/uses.rs", marked_line(USES, marker)) in unresolved, marker


def test_the_extractor_writes_the_declared_type_or_the_call():
    from cruxe.languages.rust import extract
    receivers = {(r.line, r.to_name): r.receiver for r in extract(USES.encode(), "src/uses.rs").references}
    assert receivers[(marked_line(USES, "// with_capacity"), "insert")] == "FixedBitSet::with_capacity()"
    assert receivers[(marked_line(USES, "// typed"), "insert")] == "FixedBitSet{}"
    assert receivers[(marked_line(USES, "// literal"), "insert")] == "crate::FixedBitSet{}"
    assert receivers[(marked_line(USES, "// arc"), "insert")] == "Arc<FixedBitSet>{}"
    for marker in ("// inner fn", "// closure"):
        assert receivers[(marked_line(USES, marker), "insert")] == "fb", marker


def test_a_generic_parameters_type_says_nothing():
    from cruxe.languages.rust import extract
    src = "fn f<T: Tr>(make: fn() -> T) {\n    let x: T = make();\n    x.go();\n    let y = T::new();\n    y.go();\n}\n"
    assert [r.receiver for r in extract(src.encode(), "src/a.rs").references if r.to_name == "go"] == ["x", "y"]


def test_return_type_of_a_signature():
    from cruxe.refs.rust import return_type
    assert return_type("pub fn with_capacity(n: usize) -> Self") == "Self"
    assert return_type("pub fn new<T: Into<u8>>(t: T) -> Foo<T> where T: Copy") == "Foo<T>"
    assert return_type("fn f(g: fn() -> u8)") == ""


@pytest.mark.parametrize("after, target", [("-> Option<Self>", ""), ("-> Other", "Other::insert")])
def test_a_changed_return_type_moves_the_call_on_the_local(make_repo, tmp_path, monkeypatch, after, target):
    # `-> Other`: the call goes to the type the function returns (rs-probe5's item 0)
    root = make_repo(FILES)
    edit = LIB.replace("pub fn with_capacity(n: usize) -> Self", f"pub fn with_capacity(n: usize) {after}")
    synced, whole = synced_and_whole(root, tmp_path, monkeypatch, lambda r: (r / "src/lib.rs").write_text(edit))
    assert call_targets(root)[("src/uses.rs", marked_line(USES, "// with_capacity"), "insert")][0] == target
    assert synced == whole


def test_a_path_call_through_a_module_named_like_a_local_is_no_call_on_it():
    # std's rc.rs: `let ptr = Self::allocate_for_ptr(..); ptr::copy_nonoverlapping(..)`
    from cruxe.languages.rust import extract
    src = "fn f() {\n    let ptr = Self::allocate();\n    ptr::copy(1);\n    ptr.copy(2);\n}\n"
    assert [r.receiver for r in extract(src.encode(), "src/a.rs").references if r.to_name == "copy"] == [
        "ptr", "Self::allocate()"]


def test_a_closures_parameter_inside_a_macro_hides_the_local():
    # a macro's arguments are tokens: the closure's `|x|` binds no name the tree shows
    from cruxe.languages.rust import extract
    src = ("fn f() {\n    let x = T::new();\n    assert!(v.iter().all(|x| x.ok()));\n"
           "    assert!(x.ok());\n}\n")
    assert [r.receiver for r in extract(src.encode(), "src/a.rs").references if r.to_name == "ok"] == [
        "x", "T::new()"]
