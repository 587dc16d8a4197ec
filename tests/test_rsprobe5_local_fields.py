"""A call on a field of a typed local (rs-probe5, signal-hook-registry's `let globals =
GlobalData::ensure(); globals.data.write()`; rs-probe4's `let bucket = lock_bucket(key);
bucket.mutex.lock()`): the field's declared type in the local's struct gives the method, as for
`self.a.b.f()`; a local of unknown type, or a field the struct does not declare, leave the call
as before (here: two `write` methods, so ambiguous)."""
from __future__ import annotations

from cruxe.index import run_index

from support.references import refs, sites
from support.repos import marked_line

LIB = """\
pub struct Lock;

impl Lock {
    pub fn write(&self) {}
}

pub struct Other;

impl Other {
    pub fn write(&self) {}
}

pub struct Inner {
    pub lock: Lock,
}

pub struct Globals {
    pub data: Lock,
    pub inner: Inner,
    pub other: Box<Other>,
}

impl Globals {
    pub fn ensure() -> &'static Self {
        unimplemented!()
    }
}

pub fn bucket() -> &'static Globals {
    unimplemented!()
}

pub fn run(unknown: u8) {
    let globals = Globals::ensure();
    globals.data.write(); // field of a local
    globals.inner.lock.write(); // two fields
    globals.other.write(); // boxed field
    let b = bucket();
    b.data.write(); // free function's result
    let typed: &Globals = bucket();
    typed.data.write(); // declared
    let g = unknown;
    g.data.write(); // untyped local
    globals.missing.write(); // no such field
}
"""

FILES = {"Cargo.toml": '[package]\nname = "g"\nversion = "0.1.0"\n', "src/lib.rs": LIB}




def test_a_call_on_a_field_of_a_typed_local_goes_to_the_fields_type(make_repo):
    root = make_repo(FILES)
    run_index(root)
    got = refs(root, "Lock::write")
    assert sorted(sites(got["references"])) == sorted(
        ("src/lib.rs", marked_line(LIB, m)) for m in ("// field of a local", "// two fields", "// free function's result",
                                           "// declared"))
    assert sites(refs(root, "Other::write")["references"]) == [("src/lib.rs", marked_line(LIB, "// boxed field"))]
    unresolved = {u["line_start"] for u in got["unresolved"]}
    assert {marked_line(LIB, "// untyped local"), marked_line(LIB, "// no such field")} <= unresolved


def test_the_extractor_writes_the_locals_type_before_its_fields():
    from cruxe.languages.rust import extract
    receivers = {r.line: r.receiver for r in extract(LIB.encode(), "src/lib.rs").references if r.to_name == "write"}
    assert receivers[marked_line(LIB, "// two fields")] == "Globals::ensure().inner.lock"
    assert receivers[marked_line(LIB, "// declared")] == "Globals{}.data"
    assert receivers[marked_line(LIB, "// untyped local")] == "g.data"


TYPES = LIB[:LIB.index("pub fn run(")]
USER = "mod types;\nuse crate::types::bucket;\n\npub fn go() {\n    let b = bucket();\n    b.data.write(); // across files\n}\n"


def test_a_changed_field_type_moves_the_call_on_a_locals_field(make_repo, tmp_path, monkeypatch):
    # the receiver `bucket().data` names neither the struct nor its field's type, and they are
    # in another file: a sync must still retry the call when the struct's signature changes
    from support.incremental import call_targets, synced_and_whole
    root = make_repo({"Cargo.toml": FILES["Cargo.toml"], "src/lib.rs": USER, "src/types.rs": TYPES})
    edit = TYPES.replace("    pub data: Lock,", "    pub data: Other,")
    synced, whole = synced_and_whole(root, tmp_path, monkeypatch, lambda r: (r / "src/types.rs").write_text(edit))
    line = USER.splitlines().index("    b.data.write(); // across files") + 1
    assert call_targets(root)[("src/lib.rs", line, "write")][0] == "types::Other::write"
    assert synced == whole


def test_a_chain_written_over_lines_is_read_as_one():
    # rustfmt's `globals\n    .race_fallback\n    .write()`: the receiver's text keeps a space
    from cruxe.languages.rust import extract
    src = ("pub fn f() {\n    let globals = Globals::ensure();\n    globals\n        .race_fallback\n"
           "        .write();\n}\n")
    assert [r.receiver for r in extract(src.encode(), "src/lib.rs").references if r.to_name == "write"] == [
        "Globals::ensure().race_fallback"]
