"""A Rust `mod` whose file a `#[path]` attribute names (rs-probe5: quote's `#[path =
"runtime.rs"] pub mod __private;`, and its macros' `$crate::__private::push_group(..)`): the
module's name reaches the items of that file, so calls through it are linked."""
from __future__ import annotations

from cruxe.index import run_index

from support.references import refs, sites
from support.repos import marked_line

LIB = """\
#[doc(hidden)]
#[path = "runtime.rs"]
pub mod __private;
mod plain;

pub fn direct() {
    __private::push_group(1); // bare module
    crate::__private::push_group(2); // crate path
    plain::helper(); // plain module
}

#[macro_export]
macro_rules! group {
    ($x:expr) => {
        $crate::__private::push_group($x) // macro body
    };
}
"""

RUNTIME = "pub fn push_group(n: u8) {}\n"
PLAIN = "pub fn helper() {}\n"
USER = "use crate::__private;\n\npub fn elsewhere() {\n    __private::push_group(3); // other file\n}\n"

FILES = {"Cargo.toml": '[package]\nname = "q"\nversion = "0.1.0"\n', "src/lib.rs": LIB + "mod user;\n",
         "src/runtime.rs": RUNTIME, "src/plain.rs": PLAIN, "src/user.rs": USER}




def test_calls_through_a_path_attribute_module_reach_its_file(make_repo):
    root = make_repo(FILES)
    run_index(root)
    got = refs(root, "push_group", path="src/runtime.rs")
    assert sorted(sites(got["references"])) == sorted(
        [("src/lib.rs", marked_line(LIB, m)) for m in ("// bare module", "// crate path", "// macro body")]
        + [("src/user.rs", marked_line(USER, "// other file"))])
    assert sites(refs(root, "helper")["references"]) == [("src/lib.rs", marked_line(LIB, "// plain module"))]


def test_a_path_attribute_outside_the_crates_sources_names_nothing():
    from cruxe.languages.rust import extract
    src = '#[path = "../../elsewhere/x.rs"]\nmod far;\n#[path = "gen.rs"]\nmod near;\n'
    imports = [(r.to_name, r.alias) for r in extract(src.encode(), "src/lib.rs").references if r.edge_type == "imports"]
    assert imports == [("crate::gen", "near")]
