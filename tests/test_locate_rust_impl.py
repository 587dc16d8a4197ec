"""`locate_symbol` of a Rust impl header (found using Cruxe on syn: `impl Parse for Ident`
answered the trait `Parse`, not Ident's `parse`). The answer is the type's methods that the
trait declares, a trait of the repository by its own methods and one of the standard library
by the methods it has; Display's and Debug's `fmt` of the same type are told apart by the impl
header above each."""
from __future__ import annotations

from cruxe.intent import rust_impl
from cruxe.query import locate_symbol

from support.repos import indexed_files

FILES = {
    "src/shape.rs": '''\
pub trait Shape {
    fn area(&self) -> f64;
    fn name(&self) -> &str {
        "shape"
    }
}

pub struct Circle {
    pub r: f64,
}

impl Shape for Circle {
    fn area(&self) -> f64 {
        3.14 * self.r * self.r
    }
}
''',
    "src/point.rs": '''\
use std::fmt;

use crate::shape::Shape;

impl fmt::Debug for geo::Point {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "Point({}, {})", self.x, self.y)
    }
}

impl fmt::Display for geo::Point {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "({}, {})", self.x, self.y)
    }
}

impl Shape for geo::Point {
    fn area(&self) -> f64 {
        0.0
    }
}

impl geo::Point {
    pub fn area(&self) -> u32 {
        0
    }
}
''',
}


def test_an_impl_header_parses_to_its_trait_and_type():
    assert rust_impl("impl<'a, T: Into<String>> From<T> for Wrapper<'a, T>") == ("From", "Wrapper")
    assert rust_impl("`impl fmt::Debug for &mut Buf {`") == ("Debug", "Buf")
    assert rust_impl("impl Point") is None and rust_impl("impl Display for Point and its tests") is None


def test_an_impl_header_finds_the_types_methods_of_that_trait(tmp_path):
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", FILES)
    hits, _ = locate_symbol(gen, repo, ref, "impl Display for Point")
    assert [(h.path, h.line_start) for h in hits] == [("src/point.rs", 12)], hits
    hits, _ = locate_symbol(gen, repo, ref, "impl fmt::Debug for geo::Point")
    assert [(h.path, h.line_start) for h in hits] == [("src/point.rs", 6)], hits
    hits, _ = locate_symbol(gen, repo, ref, "impl Shape for Point")
    # the repository's trait says which methods: Point's `area` of that impl, not the inherent one
    assert [(h.path, h.line_start) for h in hits] == [("src/point.rs", 18)], hits
    hits, _ = locate_symbol(gen, repo, ref, "impl Shape for Circle")
    assert [(h.path, h.line_start) for h in hits] == [("src/shape.rs", 13)], hits
