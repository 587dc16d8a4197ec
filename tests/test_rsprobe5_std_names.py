"""A call of a name std's own values answer everywhere (`is_some`, `is_none`, `skip`, `last`,
..., rs-probe5: syn's private `Visibility::is_some` took 52 calls of `Option::is_some`,
`Cursor::skip` an iterator's `.skip(n)`) on a receiver of unknown type is not guessed to be the
repository's one method of that name, unless that method is std's own type's (the repository
is std: core's `Option::is_some`)."""
from __future__ import annotations

from cruxe.index import run_index

from support.references import refs, sites
from support.repos import marked_line

LIB = """\
pub struct Visibility;

impl Visibility {
    fn is_some(&self) -> bool {
        true
    }
    fn check(&self) -> bool {
        self.is_some() // own receiver
    }
}

pub fn uses(found: Option<u8>, v: Vec<u8>) -> bool {
    let first = v.first();
    first.is_some() // an Option
}
"""

STD = """\
pub enum Option<T> {
    None,
    Some(T),
}

impl<T> Option<T> {
    pub fn is_some(&self) -> bool {
        true
    }
}

pub fn uses(v: &[u8]) -> bool {
    let first = v.first();
    first.is_some() // core's own
}
"""




def test_a_std_value_method_on_an_unknown_receiver_is_no_guess(make_repo):
    root = make_repo({"Cargo.toml": '[package]\nname = "v"\nversion = "0.1.0"\n', "src/lib.rs": LIB})
    run_index(root)
    got = refs(root, "Visibility::is_some")
    assert sites(got["references"]) == [("src/lib.rs", marked_line(LIB, "// own receiver"))]


def test_std_itself_keeps_the_guess(make_repo):
    root = make_repo({"Cargo.toml": '[package]\nname = "core"\nversion = "0.1.0"\n', "src/lib.rs": STD})
    run_index(root)
    got = refs(root, "Option::is_some")
    assert sites(got["references"]) == [("src/lib.rs", marked_line(STD, "// core's own"))]
