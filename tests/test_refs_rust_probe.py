"""Rust references the user probe found unresolved (issue 17; crossbeam-channel's flavors):
a call through a tuple struct's field (`self.0.start_send(token)` in `impl Sender`, whose
`struct Sender<'a, T>(&'a Channel<T>)` says what `self.0` is)."""
from __future__ import annotations

from cruxe.index import run_index

from support.references import refs, sites

FLAVOR = ("pub(crate) struct Channel<T> {{\n    slots: Vec<T>,\n}}\n\n"
          "impl<T> Channel<T> {{\n    pub(crate) fn start_send(&self, token: &mut usize) -> bool {{\n"
          "        true\n    }}\n}}\n\n"
          "pub(crate) struct Sender<'a, T>(&'a Channel<T>);\n\n"
          "impl<T> Sender<'_, T> {{\n    fn try_select(&self, token: &mut usize) -> bool {{\n"
          "        self.0.start_send(token){tail}\n    }}\n}}\n")

TUPLE_FIELDS = {
    "Cargo.toml": '[package]\nname = "chan"\nversion = "0.1.0"\n',
    "src/lib.rs": "mod array;\nmod list;\nmod wrap;\n",
    "src/array.rs": FLAVOR.format(tail=""),
    "src/list.rs": FLAVOR.format(tail=""),
    "src/wrap.rs": ("pub struct Outer(pub usize, Vec<u8>);\n\n"
                    "impl Outer {\n    fn size(&self) -> usize {\n"
                    "        self.1.start_send(&mut 0)\n"  # line 5: a Vec's method, not the channels'
                    "    }\n}\n\n"
                    "pub struct Find<'a, P: Pattern<'a>>(P::Searcher);\n\n"
                    "impl<'a, P: Pattern<'a>> Find<'a, P> {\n    fn go(&self) -> bool {\n"
                    "        self.0.start_send(&mut 1)\n"  # line 13: a generic's type, unknown
                    "    }\n}\n"),
}


def test_a_call_through_a_tuple_structs_field_resolves_by_the_fields_type(make_repo):
    root = make_repo(TUPLE_FIELDS)
    run_index(root)
    for path in ("src/array.rs", "src/list.rs"):
        got = refs(root, "start_send", path=path)
        assert sites(got["references"]) == [(path, 15)], (path, got)
    # a field of std's type calls std's method (no impl of the crate for `Vec` has one)
    got = refs(root, "start_send", path="src/list.rs")
    # and a field whose type is one the struct is generic over says nothing of it
    assert [(u["path"], u["line_start"], u["reason"]) for u in got["unresolved"]] == [
        ("src/wrap.rs", 5, "external"), ("src/wrap.rs", 13, "ambiguous")]


def test_a_tuple_structs_fields_and_parameters_are_read_from_its_signature():
    from cruxe.refs.rust import field_type, generic_parameters, tuple_fields
    sig = "pub struct Guard<'a, F: Fn(u8) -> bool, T = u8>(pub(crate) &'a mut Box<Inner<T>>, Vec<(u8, u16)>)"
    assert tuple_fields(sig) == ["pub(crate) &'a mut Box<Inner<T>>", "Vec<(u8, u16)>"]
    assert generic_parameters(sig) == {"F", "T"}
    assert [field_type(f) for f in tuple_fields(sig)] == [["Inner"], ["Vec"]]
    assert tuple_fields("pub struct Named<T> where T: Copy") == [] and field_type("[u8; 4]") == []


def test_a_macro_call_asked_for_means_the_macro_not_the_module_of_its_name(make_repo):
    # rsprobe3: `find_references vec!` was ambiguous between the macro and `mod vec`
    root = make_repo({"Cargo.toml": '[package]\nname = "a"\nversion = "0.1.0"\n',
                      "src/lib.rs": "#[macro_use]\nmod macros;\npub mod vec;\n",
                      "src/macros.rs": "macro_rules! vec {\n    () => {};\n}\n",
                      "src/vec.rs": "pub fn new() {}\n"})
    run_index(root)
    got = refs(root, "vec!")
    assert (got["symbol"]["path"], got["symbol"]["kind"]) == ("src/macros.rs", "function")
