"""Rust calls on a generic type parameter (rsprobe9, issue 17): `S::from_usize(0)` in an
`impl<S: StateID> Repr<S>` and `T::read_u16(&buf)` in `fn read_u16<T: ByteOrder>(..)` call the
bounding trait's method, and so does `id.to_usize()` on a parameter `id: S` (the shapes of regex-automata's dense DFA and byteorder's io module).
They resolve to the trait's declaration, as a call through the interface, not to one of the
trait's impls (or to nothing: the name has several definitions), whether the bound is written
in the parameter list, in a `where` clause, on the impl, or as `<S as StateID>::f()`; std's
trait written out on a type of the crate (`<Name as From<u8>>::from(7)`) calls that type's impl."""
from __future__ import annotations

from cruxe.index import run_index

from support.references import refs, sites

STATE_ID = """\
pub trait StateID: Clone + Copy {
    fn from_usize(n: usize) -> Self;
    fn to_usize(self) -> usize;
}

impl StateID for usize {
    fn from_usize(n: usize) -> usize {
        n
    }
    fn to_usize(self) -> usize {
        self
    }
}

impl StateID for u32 {
    fn from_usize(n: usize) -> u32 {
        n as u32
    }
    fn to_usize(self) -> usize {
        self as usize
    }
}

pub fn next_state_id<S: StateID>(current: S) -> S {
    S::from_usize(current.to_usize() + 1)
}
"""

DENSE = """\
use crate::state_id::StateID;

pub struct Repr<S> {
    start: S,
    count: usize,
}

impl<S: StateID> Repr<S> {
    pub fn add_empty_state(&mut self) -> S {
        let id = S::from_usize(self.count);
        self.count += 1;
        id
    }

    pub fn premultiply(&mut self, alpha_len: usize) {
        self.start = <S as StateID>::from_usize(self.start.to_usize() * alpha_len);
    }

    pub fn is_valid(&self, id: S) -> bool {
        id.to_usize() < self.count
    }
}

pub fn dead_id<T>() -> T
where
    T: Clone + StateID,
{
    T::from_usize(0)
}
"""

OTHER = """\
pub trait Packer {
    fn from_usize(n: usize) -> Self;
}

pub fn pack<P: Packer>(n: usize) -> P {
    P::from_usize(n)
}

pub fn unbounded<T: Default>() -> T {
    T::default()
}

pub struct Name(u8);

impl From<u8> for Name {
    fn from(b: u8) -> Name {
        Name(b)
    }
}

pub fn name() -> Name {
    <Name as From<u8>>::from(7)
}
"""


def test_a_call_on_a_generic_parameter_is_its_bounding_traits_method(make_repo):
    root = make_repo({"Cargo.toml": '[package]\nname = "dfa"\nversion = "0.1.0"\n',
                      "src/lib.rs": "pub mod dense;\npub mod other;\npub mod state_id;\n",
                      "src/state_id.rs": STATE_ID, "src/dense.rs": DENSE, "src/other.rs": OTHER,
                      # another crate of the repository with a trait of the same name and methods
                      "matcher/Cargo.toml": '[package]\nname = "matcher"\nversion = "0.1.0"\n',
                      "matcher/src/lib.rs": STATE_ID})
    run_index(root)
    got = refs(root, "StateID::from_usize", path="src/state_id.rs", line=2)
    assert sorted(sites(got["references"])) == [("src/dense.rs", 10), ("src/dense.rs", 16), ("src/dense.rs", 28),
                                                ("src/state_id.rs", 25)], got
    assert got.get("unresolved", []) == [], got
    # a parameter of the impl's generic type calls the bound's method too (`id: S`), and so does
    # a field of it (`self.start`): the trait of that name in the call's own crate
    got = refs(root, "StateID::to_usize", path="src/state_id.rs", line=3)
    assert sorted(sites(got["references"])) == [("src/dense.rs", 16), ("src/dense.rs", 20), ("src/state_id.rs", 25)], got
    # the other trait's method of the same name keeps its one call
    got = refs(root, "Packer::from_usize")
    assert sites(got["references"]) == [("src/other.rs", 6)], got
    # std's trait written out on a type of the crate: that type's impl of it
    got = refs(root, "from", path="src/other.rs")
    assert sites(got["references"]) == [("src/other.rs", 22)], got
