"""Rust calls on a local given a call's result (issue 17, rs-probe4's `let bucket =
lock_bucket(key)`, rs-probe5 item 0): `let g = self.guard(); g.m()` and `let x = make_x();
x.m()` go to the method of the type the callee's signature returns when that is an exact type
of the repository (`-> T`, `-> Self`, `-> &'static T`, `-> Arc<T>` through the pointer); an
`Option<T>`, a generic parameter, or a callee the index cannot find leave the call as before
(here: two `unlock` methods, so ambiguous)."""
from __future__ import annotations

import pytest

from cruxe.index import run_index

from support.incremental import answer, call_targets, edge_table, synced_and_whole
from support.references import refs, sites
from support.repos import marked_line

LIB = """\
pub mod uses;
use std::sync::Arc;

pub struct Bucket {
    pub n: u32,
}

impl Bucket {
    pub fn unlock(&self) {}
}

pub struct Table;

impl Table {
    pub fn unlock(&self) {}
    pub fn guard(&self) -> Bucket {
        Bucket { n: 0 }
    }
    pub fn me(&self) -> Self {
        Table
    }
    pub fn maybe(&self) -> Option<Bucket> {
        None
    }
    pub fn work(&self) {
        let g = self.guard();
        g.unlock(); // method result
        let t = self.me();
        t.unlock(); // method Self
        let o = self.maybe();
        o.unlock(); // method Option
    }
}

pub fn lock_bucket(k: usize) -> &'static Bucket {
    unimplemented!()
}

pub fn make_table() -> Table {
    Table
}

pub fn shared() -> Arc<Bucket> {
    Arc::new(Bucket { n: 1 })
}

pub fn generic<T: Default>() -> T {
    T::default()
}
"""

USES = """\
use crate::{lock_bucket, make_table};

pub fn run(make: fn() -> u8) {
    let b = lock_bucket(1);
    b.unlock(); // free fn
    let t = make_table();
    t.unlock(); // free Table
    let p = crate::shared();
    p.unlock(); // path arc
    let c = crate::shared();
    c.clone(); // the Arc's own
    let q = crate::generic();
    q.unlock(); // generic
    let m = make();
    m.unlock(); // a parameter's call
}
"""

FILES = {"Cargo.toml": '[package]\nname = "buckets"\nversion = "0.1.0"\n', "src/lib.rs": LIB, "src/uses.rs": USES}




def test_a_call_on_a_local_goes_to_the_type_its_callee_returns(make_repo):
    root = make_repo(FILES)
    run_index(root)
    got = refs(root, "Bucket::unlock")
    assert sorted(sites(got["references"])) == sorted(
        [("src/lib.rs", marked_line(LIB, "// method result"))]
        + [("src/uses.rs", marked_line(USES, m)) for m in ("// free fn", "// path arc")])
    got = refs(root, "Table::unlock")
    assert sorted(sites(got["references"])) == sorted(
        [("src/lib.rs", marked_line(LIB, "// method Self")), ("src/uses.rs", marked_line(USES, "// free Table"))])
    unresolved = {(u["path"], u["line_start"]) for u in got["unresolved"]}
    for path, src, marker in (("src/lib.rs", LIB, "// method Option"), ("src/uses.rs", USES, "// generic"),
                              ("src/uses.rs", USES, "// a parameter's call")):
        assert (path, marked_line(src, marker)) in unresolved, marker


def test_the_extractor_writes_the_call_a_let_holds():
    from cruxe.languages.rust import extract
    receivers = {(r.line, r.to_name): r.receiver for r in extract(USES.encode(), "src/uses.rs").references}
    assert receivers[(marked_line(USES, "// free fn"), "unlock")] == "lock_bucket()"
    assert receivers[(marked_line(USES, "// path arc"), "unlock")] == "crate::shared()"
    receivers = {(r.line, r.to_name): r.receiver for r in extract(LIB.encode(), "src/lib.rs").references}
    assert receivers[(marked_line(LIB, "// method result"), "unlock")] == "self.guard()"
    src = "fn f(x: A) {\n    let y = x.guard();\n    y.go();\n    let z = self.g::<u8>();\n    z.go();\n}\n"
    assert [r.receiver for r in extract(src.encode(), "src/a.rs").references if r.to_name == "go"] == ["y", "z"]


def test_a_pointers_own_method_on_a_returned_arc_is_std(make_repo):
    root = make_repo(FILES)
    run_index(root)
    assert answer(edge_table(root), "src/uses.rs", marked_line(USES, "// the Arc's own"), "clone") == "external"


@pytest.mark.parametrize("after, target", [("-> Option<Bucket>", ""), ("-> Table", "Table::unlock")])
def test_a_changed_return_type_moves_the_call_on_the_local(make_repo, tmp_path, monkeypatch, after, target):
    root = make_repo(FILES)
    edit = LIB.replace("pub fn lock_bucket(k: usize) -> &'static Bucket", f"pub fn lock_bucket(k: usize) {after}")
    synced, whole = synced_and_whole(root, tmp_path, monkeypatch, lambda r: (r / "src/lib.rs").write_text(edit))
    assert synced == whole
    assert call_targets(root)[("src/uses.rs", marked_line(USES, "// free fn"), "unlock")][0] == target


INLINE = """\
pub struct Bucket;

impl Bucket {
    pub fn unlock(&self) {}
}

fn lock_bucket(k: usize) -> &'static Bucket {
    unimplemented!()
}

pub fn park() {
    let b = lock_bucket(1);
    b.unlock(); // beside an inline module's use
}

mod deadlock {
    use super::lock_bucket;

    pub fn check() {
        let b = lock_bucket(2);
        b.unlock(); // inside it
    }
}
"""


def test_an_inline_modules_use_does_not_hide_the_files_own_item(make_repo):
    # parking_lot_core's parking_lot.rs: `mod deadlock_impl { use super::lock_bucket; }`; the
    # file's `use`s are read as one scope, and that `super::` (from the file's module) names
    # nothing: the file's own `lock_bucket` must still be found
    files = {"Cargo.toml": FILES["Cargo.toml"], "src/lib.rs": "pub mod pl;\npub struct Table;\n"
             "impl Table {\n    pub fn unlock(&self) {}\n}\n", "src/pl.rs": INLINE}
    root = make_repo(files)
    run_index(root)
    got = refs(root, "Bucket::unlock")
    assert ("src/pl.rs", marked_line(INLINE, "// beside an inline module's use")) in sites(got["references"])
