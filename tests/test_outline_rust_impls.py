"""A Rust file's outline says whose each `impl` method is (found using Cruxe on quote's
`to_tokens.rs`: thirty `impl ToTokens for X` blocks listed `fn to_tokens` thirty times, none
saying for which type). A method of a type defined in the same file hangs under the type; one
of a type defined elsewhere has no parent in the file, and its node names the type in `impl`."""
from __future__ import annotations

from cruxe.outline import file_outline

from support.repos import indexed_files

LIB = '''\
use std::fmt;

pub struct Local {
    n: u32,
}

impl Local {
    pub fn new() -> Self {
        Local { n: 0 }
    }
}

impl fmt::Display for proc_macro2::Ident {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("ident")
    }
}

impl<'a, T: ?Sized + Clone> Clone for Wrapper<'a, T> {
    fn clone(&self) -> Self {
        Wrapper(self.0)
    }
}

pub fn free() -> u32 {
    1
}
'''


def test_a_method_of_a_type_defined_elsewhere_names_its_type(tmp_path):
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", {"src/lib.rs": LIB})
    tree = file_outline(gen, repo, ref, "src/lib.rs")["symbols"]
    top = {s["name"]: s for s in tree}
    assert top["fmt"].get("impl") == "Ident" and top["clone"].get("impl") == "Wrapper", top
    assert "impl" not in top["free"] and "impl" not in top["Local"]
    children = top["Local"]["children"]
    new = next(c for c in children if c["name"] == "new")
    assert "impl" not in new  # the tree says whose it is
    assert all("impl" not in c for c in children)  # its fields too
