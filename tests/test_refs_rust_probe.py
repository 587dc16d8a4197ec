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
    # and a field whose type is one the struct is generic over says nothing of it (the undecided
    # use listed before the one tied to outside code)
    assert [(u["path"], u["line_start"], u["reason"]) for u in got["unresolved"]] == [
        ("src/wrap.rs", 13, "ambiguous"), ("src/wrap.rs", 5, "external")]


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


# rsprobe8 (the time crate): `PrimitiveDateTime::MIN.assume_utc()`, a method called on an associated
# constant, was unknown: the receiver path names the constant, which has no methods of its own
CONSTANT_RECEIVERS = {
    "Cargo.toml": '[package]\nname = "when"\nversion = "0.1.0"\n',
    "src/lib.rs": "mod date;\nmod offset;\nmod weekday;\n",
    "src/date.rs": ("pub struct PrimitiveDateTime {\n    seconds: i64,\n}\n\n"
                    "impl PrimitiveDateTime {\n"
                    "    pub const MIN: Self = Self { seconds: i64::MIN };\n"
                    "    pub const MAX: Self = Self { seconds: i64::MAX };\n\n"
                    "    pub const fn assume_utc(self) -> crate::offset::OffsetDateTime {\n"
                    "        crate::offset::OffsetDateTime { utc: self }\n    }\n}\n"),
    "src/offset.rs": ("use crate::date::PrimitiveDateTime;\n\n"
                      "pub struct OffsetDateTime {\n    pub(crate) utc: PrimitiveDateTime,\n}\n\n"
                      "static EPOCH: PrimitiveDateTime = PrimitiveDateTime::MIN;\n"
                      "const LIMIT: u32 = 7;\n\n"
                      "impl OffsetDateTime {\n"
                      "    pub fn assume_utc(self) -> Self {\n        self\n    }\n\n"
                      "    pub fn saturating_add(self, later: bool) -> Self {\n"
                      "        if later {\n"
                      "            PrimitiveDateTime::MAX.assume_utc()\n"  # line 17: the date's
                      "        } else {\n"
                      "            EPOCH.assume_utc()\n"  # line 19: a static's declared type
                      "        }\n    }\n\n"
                      "    pub fn limit(&self) -> u32 {\n        LIMIT.next_weekday()\n    }\n}\n"),  # line 24: u32's
    "src/weekday.rs": ("pub enum Weekday {\n    Monday,\n    Tuesday,\n}\n\n"
                       "impl Weekday {\n    pub const fn next_weekday(self) -> Self {\n        Weekday::Tuesday\n    }\n}\n\n"
                       "pub enum Month {\n    January,\n    February,\n}\n\n"
                       "impl Month {\n    pub const fn next_weekday(self) -> Self {\n        Month::February\n    }\n}\n\n"
                       "pub fn after_monday() -> Weekday {\n    Weekday::Monday.next_weekday()\n}\n"),  # line 24
}


def test_a_method_called_on_a_constant_a_static_or_a_variant_is_its_declared_types(make_repo):
    root = make_repo(CONSTANT_RECEIVERS)
    run_index(root)
    got = refs(root, "assume_utc", path="src/date.rs")
    assert sites(got["references"]) == [("src/offset.rs", 17), ("src/offset.rs", 19)], got
    assert sites(refs(root, "assume_utc", path="src/offset.rs")["references"]) == []
    got = refs(root, "next_weekday", path="src/weekday.rs", line=7)
    assert sites(got["references"]) == [("src/weekday.rs", 24)], got
    assert sites(refs(root, "next_weekday", path="src/weekday.rs", line=18)["references"]) == []
    # a constant of a primitive type calls std's method, not one of the repository's
    unresolved = refs(root, "next_weekday", path="src/weekday.rs", line=7)["unresolved"]
    assert [(u["path"], u["line_start"], u["reason"]) for u in unresolved] == [("src/offset.rs", 24, "external")]


def test_a_constants_declared_type_is_read_from_its_signature():
    from cruxe.refs.rust import constant_type
    assert constant_type("pub const MIN: Self") == "Self"
    assert constant_type("pub(crate) static ref CACHE: Mutex<Cache> = Mutex::new(Cache::new())") == "Mutex<Cache>"
    assert constant_type("static mut COUNT: a::Counter") == "a::Counter"
    assert constant_type("Monday") == ""
