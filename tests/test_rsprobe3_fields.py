"""Rust calls on a named field of the method's struct (`self.state.advance()` where `struct
Machine { state: State }`) resolve through the field's declared type, as `self.0.f()` on a
tuple struct already did: the struct's signature lists its named fields. A std type's field
(`Mutex`, `Vec`) is std's (external), not the one repository method of that name; `Arc`'s own
methods (`clone`) are the pointer's; a field of a generic parameter's type, its bounds'."""
from __future__ import annotations

from cruxe.index import run_index

from support.references import refs, sites

STATE = ("pub struct State(u8);\n\n"
         "impl State {\n"
         "    pub fn advance(&mut self) {}\n"
         "    pub fn clone(&self) -> State { State(self.0) }\n"
         "}\n\n"
         "pub struct Other;\n\n"
         "impl Other {\n"
         "    pub fn advance(&mut self) {}\n"
         "}\n\n"
         "pub trait Step {\n"
         "    fn step(&mut self);\n"
         "}\n\n"
         "pub struct Lock;\n\n"
         "impl Lock {\n"
         "    pub fn lock(&self) {}\n"
         "    pub fn push(&self, _b: u8) {}\n"
         "}\n")
MACHINE = ("use std::sync::{Arc, Mutex};\n"
           "use crate::state::{State, Step};\n\n"
           "pub struct Machine<S: Step> {\n"
           "    /// the current state\n"
           "    #[allow(dead_code)]\n"
           "    pub(crate) state: State,\n"
           "    shared: Arc<State>,\n"
           "    inner: Mutex<u8>,\n"
           "    buf: Vec<u8>,\n"
           "    stepper: S,\n"
           "}\n\n"
           "impl<S: Step> Machine<S> {\n"
           "    pub fn run(&mut self) {\n"
           "        self.state.advance();\n"                # line 16
           "        self.shared.advance();\n"               # line 17: through the Arc
           "        let _c = self.shared.clone();\n"        # line 18: the Arc's own clone
           "        let _g = self.inner.lock();\n"          # line 19: std's Mutex
           "        self.buf.push(1);\n"                    # line 20: std's Vec
           "        self.stepper.step();\n"                 # line 21: S's bound
           "    }\n"
           "}\n")
CRATE = {
    "Cargo.toml": '[package]\nname = "machine"\nversion = "0.1.0"\n',
    "src/lib.rs": "pub mod state;\npub mod machine;\n",
    "src/state.rs": STATE, "src/machine.rs": MACHINE,
}


def test_a_named_fields_method_resolves_through_its_declared_type(make_repo):
    root = make_repo(CRATE)
    run_index(root)
    got = refs(root, "State::advance")
    assert sites(got["references"]) == [("src/machine.rs", 16), ("src/machine.rs", 17)], got
    assert sites(refs(root, "Step::step")["references"]) == [("src/machine.rs", 21)]


def test_a_std_types_field_is_not_the_repositorys_method_of_that_name(make_repo):
    from support.incremental import answer, edge_table
    root = make_repo(CRATE)
    run_index(root)
    table = edge_table(root)
    # std's `Mutex::lock`, `Vec::push` and the `Arc`'s own `clone`: not the one repository
    # method of that name, not an unknown receiver either
    for name, line in (("lock", 19), ("push", 20), ("clone", 18)):
        assert answer(table, "src/machine.rs", line, name) == "external", name
    assert sites(refs(root, "Lock::lock")["references"]) == []


def test_a_changed_field_type_resolves_as_a_whole_index_does(make_repo, tmp_path, monkeypatch):
    from support.incremental import answer, symbol_names, synced_and_whole
    # the impl lives in another file than the struct: the field's new type reaches it
    files = {**CRATE, "src/machine.rs": MACHINE.split("impl<S")[0],
             "src/run.rs": "use crate::machine::Machine;\nuse crate::state::Step;\n\nimpl<S" + MACHINE.split("impl<S")[1],
             "src/lib.rs": "pub mod state;\npub mod machine;\npub mod run;\n"}
    root = make_repo(files)

    def edit(root):
        f = root / "src/machine.rs"
        f.write_text(f.read_text().replace("state: State,", "state: crate::state::Other,"))
    synced, whole = synced_and_whole(root, tmp_path, monkeypatch, edit)
    assert synced == whole
    assert answer(whole, "src/run.rs", 6, "advance") == "receiver"
    names = symbol_names(root)
    assert [names[r[5]] for r in whole if r[:2] == ("src/run.rs", 6) and r[3] == "advance"] == ["state::Other::advance"]


def test_named_fields_are_read_from_the_signature():
    from cruxe.extract import extract
    from cruxe.refs.rust import named_fields, struct_bounds, struct_field
    sig = next(s.signature for s in extract("src/machine.rs", MACHINE.encode(), "rust").symbols
               if s.name == "Machine")
    assert named_fields(sig) == {"state": "State", "shared": "Arc<State>", "inner": "Mutex<u8>",
                                 "buf": "Vec<u8>", "stepper": "S"}
    assert struct_bounds(sig, "S") == (("Step",),)
    assert struct_bounds("pub struct A<T> where T: a::Tr + Send { t: T }", "T") == (("a", "Tr"), ("Send",))
    # a list cut by the signature's length limit keeps what came before the cut
    assert named_fields("struct A { a: B, c: HashMap<u8, D>, e: Ve...") == {"a": "B", "c": "HashMap<u8, D>"}
    assert struct_field("pub struct P(pub &'a B<T>, u8)", "1") == "u8"
    # a union's fields are read as a struct's (extraction gives a union the kind struct)
    assert named_fields("pub union Bits { raw: u64, parts: Halves }") == {"raw": "u64", "parts": "Halves"}


LOCKS = ("pub unsafe trait RawMutex {\n"
         "    fn lock(&self);\n"
         "    fn unlock(&self);\n"
         "}\n\n"
         "pub struct Mutex<R, T> {\n"
         "    raw: R,\n"
         "    data: T,\n"
         "}\n\n"
         "impl<R: RawMutex, T> Mutex<R, T> {\n"           # the bound is the impl's, not the struct's
         "    pub fn lock(&self) -> &T {\n"
         "        self.raw.lock();\n"                     # line 13
         "        &self.data\n"
         "    }\n\n"
         "    pub fn copy(&self) -> R where R: Clone {\n"
         "        self.raw.clone()\n"                     # line 18: std's Clone, no guess
         "    }\n"
         "}\n")


def test_a_generic_fields_method_is_the_one_trait_method_of_that_name(make_repo):
    from support.incremental import answer, edge_table
    root = make_repo({"Cargo.toml": '[package]\nname = "locks"\nversion = "0.1.0"\n', "src/lib.rs": LOCKS})
    run_index(root)
    assert sites(refs(root, "RawMutex::lock")["references"]) == [("src/lib.rs", 13)]
    assert answer(edge_table(root), "src/lib.rs", 18, "clone") not in ("unique_name", "receiver")
