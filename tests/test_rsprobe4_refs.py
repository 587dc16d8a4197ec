"""Rust calls the fourth probe's item 0 found unresolved: a call on a field of a field of the
method's struct (`self.a.b.f()`: each field's declared type a struct of the repository, read
hop by hop), and a path through a `use` that renames a crate of the workspace (`use
crossbeam_epoch as epoch; epoch::pin()`, `use crossbeam_epoch::{self as ep}`) (its root's items and re-exports)."""
from __future__ import annotations

from cruxe.index import run_index

from support.references import refs, sites

INNER = ("pub struct Waker { pub(crate) count: u8 }\n\n"
         "impl Waker {\n"
         "    pub fn notify(&self) {}\n"
         "}\n\n"
         "pub struct Sleeper;\n\n"
         "impl Sleeper {\n"
         "    pub fn notify(&self) {}\n"
         "}\n")
OUTER = ("use crate::inner::Waker;\n\n"
         "pub struct Sleep { waker: Box<Waker>, items: Vec<Waker> }\n\n"
         "pub struct Registry<T> { sleep: Sleep, generic: T, pair: (Sleep, u8) }\n\n"
         "impl<T> Registry<T> {\n"
         "    pub fn wake(&self) {\n"
         "        self.sleep.waker.notify();\n"          # line 9: Sleep's field, a Box<Waker>
         "        self.generic.waker.notify();\n"        # line 10: a generic's field: unknown
         "        self.sleep.items.notify();\n"          # line 11: a Vec's: not Waker's
         "    }\n"
         "}\n")
CHAIN = {
    "Cargo.toml": '[package]\nname = "pool"\nversion = "0.1.0"\n',
    "src/lib.rs": "pub mod inner;\npub mod outer;\n",
    "src/inner.rs": INNER, "src/outer.rs": OUTER,
}


def test_a_call_on_a_field_of_a_field_resolves_through_both_declared_types(make_repo):
    from support.incremental import answer, edge_table
    root = make_repo(CHAIN)
    run_index(root)
    assert sites(refs(root, "Waker::notify")["references"]) == [("src/outer.rs", 9)]
    table = edge_table(root)
    for line in (10, 11):  # neither hop is a struct of the repository: as before, a guess
        assert answer(table, "src/outer.rs", line, "notify") != "receiver", line


WORKSPACE = {
    "Cargo.toml": '[workspace]\nmembers = ["epoch", "channel"]\n',
    "epoch/Cargo.toml": '[package]\nname = "crossbeam-epoch"\nversion = "0.1.0"\n',
    "epoch/src/lib.rs": "mod default;\npub use self::default::pin;\n",
    "epoch/src/default.rs": "pub fn pin() -> u8 { 0 }\n",
    "channel/Cargo.toml": '[package]\nname = "crossbeam-channel"\nversion = "0.1.0"\n',
    "channel/src/lib.rs": "use crossbeam_epoch as epoch;\npub mod guard;\npub mod flavor;\npub mod deque;\n",
    # the root's renamed crate, reached through `crate::` (crossbeam-deque's `use crate::epoch::{self}`)
    "channel/src/deque.rs": "use crate::epoch::{self as e};\n\npub fn steal() -> u8 {\n    e::pin() + crate::epoch::pin()\n}\n",
    # a function of the same name in the calling crate: not what `epoch::pin` names
    "channel/src/guard.rs": "pub fn pin() -> u8 { 3 }\n",
    "channel/src/flavor.rs": ("use crossbeam_epoch as epoch;\n"
                              "use crossbeam_epoch::{self as ep};\n\n"
                              "pub fn run() -> u8 {\n"
                              "    let a = epoch::pin();\n"           # line 5
                              "    let b = ep::pin();\n"              # line 6
                              "    a + b\n"
                              "}\n"),
}


def test_a_renamed_crate_path_resolves_in_that_crate(make_repo):
    root = make_repo(WORKSPACE)
    run_index(root)
    got = refs(root, "pin", path="epoch/src/default.rs")
    assert sites(got["references"]) == [("channel/src/deque.rs", 4), ("channel/src/flavor.rs", 5),
                                      ("channel/src/flavor.rs", 6), ("epoch/src/lib.rs", 2)], got
    assert sites(refs(root, "pin", path="channel/src/guard.rs")["references"]) == []



SPIN = {
    "Cargo.toml": '[package]\nname = "spin"\nversion = "0.1.0"\n',
    "src/lib.rs": "pub mod mutex;\npub type Lock<T = ()> = crate::mutex::Mutex<T>;\n",
    "src/mutex.rs": "pub mod spin;\npub mod ticket;\n\n"
                    "#[cfg(feature = \"spin_mutex\")]\n"
                    "type InnerMutex<T> = self::spin::SpinMutex<T>;\n\n"
                    "pub struct Mutex<T> { inner: InnerMutex<T> }\n\n"
                    "impl<T> Mutex<T> {\n"
                    "    pub fn lock(&self) {\n"
                    "        self.inner.lock();\n"               # line 11: through the alias
                    "    }\n"
                    "}\n\n"
                    "pub fn run(m: &crate::Lock) {\n"
                    "    m.lock();\n"                            # line 16: a parameter of an alias's type
                    "}\n",
    "src/mutex/spin.rs": "pub struct SpinMutex<T> { data: T }\n\nimpl<T> SpinMutex<T> {\n"
                         "    pub fn lock(&self) {}\n}\n",
    "src/mutex/ticket.rs": "pub struct TicketMutex<T> { data: T }\n\nimpl<T> TicketMutex<T> {\n"
                           "    pub fn lock(&self) {}\n}\n",
}


def test_a_field_or_parameter_of_an_aliased_type_calls_the_aliased_types_method(make_repo):
    root = make_repo(SPIN)
    run_index(root)
    assert sites(refs(root, "SpinMutex::lock")["references"]) == [("src/mutex.rs", 11)]
    assert sites(refs(root, "Mutex::lock")["references"]) == [("src/mutex.rs", 16)]
    assert sites(refs(root, "TicketMutex::lock")["references"]) == []


def test_a_changed_alias_resolves_as_a_whole_index_does(make_repo, tmp_path, monkeypatch):
    from support.incremental import symbol_names, synced_and_whole
    root = make_repo(SPIN)

    def edit(root):  # the alias names another type: a call in another file follows it
        f = root / "src/lib.rs"
        f.write_text(f.read_text().replace("crate::mutex::Mutex<T>", "crate::mutex::ticket::TicketMutex<T>"))
    synced, whole = synced_and_whole(root, tmp_path, monkeypatch, edit)
    assert synced == whole
    names = symbol_names(root)
    assert [names[r[5]] for r in whole if r[:2] == ("src/mutex.rs", 16)] == ["mutex::ticket::TicketMutex::lock"]


VALUE = {
    "Cargo.toml": '[package]\nname = "log"\nversion = "0.1.0"\n',
    "src/lib.rs": "pub mod value;\n",
    "src/value.rs": "extern crate value_bag;\n\n"
                    "use self::value_bag::ValueBag;\n\n"
                    "pub struct Value { inner: ValueBag }\n\n"
                    "impl Value {\n"
                    "    pub fn to_str(&self) -> Option<&str> {\n"
                    "        self.inner.to_str()\n"              # line 9: value_bag's, not Value's own
                    "    }\n"
                    "}\n",
}


def test_a_field_of_a_type_an_extern_crate_names_is_that_crates(make_repo):
    from support.incremental import answer, edge_table
    root = make_repo(VALUE)
    run_index(root)
    assert sites(refs(root, "Value::to_str")["references"]) == []
    table = edge_table(root)
    assert answer(table, "src/value.rs", 9, "to_str") == "external"
    assert answer(table, "src/value.rs", 3, "self::value_bag::ValueBag") == "external"
