"""A Rust enum's variants are definitions (constants named through their enum): `locate_symbol
Steal::Success` answered the enum's method `success` (another case) for want of the variant,
and `Steal::Success(task)` called nothing the index knew."""
from __future__ import annotations

from cruxe.extract import extract
from cruxe.index import run_index
from cruxe.project import open_project
from cruxe.query.locate import locate_symbol

from support.references import refs, sites

DEQUE = ("/// Possible outcomes of a steal operation.\n"
         "pub enum Steal<T> {\n"
         "    /// The queue was empty.\n"
         "    Empty,\n"
         "    /// A task was stolen.\n"
         "    Success(T),\n"
         "    #[allow(dead_code)]\n"
         "    Retry { attempts: usize },\n"
         "}\n\n"
         "impl<T> Steal<T> {\n"
         "    pub fn success(self) -> Option<T> {\n"
         "        None\n"
         "    }\n"
         "}\n\n"
         "pub fn steal<T>(t: T) -> Steal<T> {\n"
         "    Steal::Success(t)\n"                   # line 18
         "}\n")


def test_variants_are_constants_named_through_their_enum():
    syms = {s.qualified_name: s for s in extract("src/deque.rs", DEQUE.encode(), "rust").symbols}
    v = syms["deque::Steal::Success"]
    assert (v.kind, v.line_start, v.name_line, v.signature, v.visibility, v.doc) == (
        "constant", 5, 6, "Success(T)", "public", "A task was stolen.")
    assert syms["deque::Steal::Retry"].line_start == 7 and syms["deque::Steal::Empty"].kind == "constant"


def test_a_variant_is_located_and_its_constructions_found(make_repo):
    root = make_repo({"Cargo.toml": '[package]\nname = "deque"\nversion = "0.1.0"\n',
                      "src/lib.rs": "pub mod deque;\n", "src/deque.rs": DEQUE})
    run_index(root)
    project = open_project(root)
    hits, _ = locate_symbol(project.store.current_generation("live"), project.id, "live", "Steal::Success")
    assert [(h.path, h.line_start, h.name) for h in hits][:1] == [("src/deque.rs", 5, "Success")]
    assert sites(refs(root, "Steal::Success")["references"]) == [("src/deque.rs", 18)]
