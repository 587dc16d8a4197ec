"""Rust calls at the end of a chain of calls (rsprobe9, issue 17): `AhoCorasickBuilder::new()
.auto_configure(patterns).build(patterns)` calls the builder's `build`, as each call's signature
says what it returns (`-> AhoCorasickBuilder`, `-> &mut Self`). A chain through a call whose
type is not known exactly (`-> Result<Self, E>`, a generic) stays what it was: unresolved when
several methods have the name."""
from __future__ import annotations

from cruxe.index import run_index

from support.references import refs, sites

BUILDER = """\
pub struct Searcher {
    anchored: bool,
}

impl Searcher {
    pub fn build(&self, patterns: &[&str]) -> usize {
        patterns.len()
    }
}

pub struct SearcherBuilder {
    anchored: bool,
    dense_depth: usize,
}

impl SearcherBuilder {
    pub fn new() -> SearcherBuilder {
        SearcherBuilder { anchored: false, dense_depth: 2 }
    }

    pub fn anchored(&mut self, yes: bool) -> &mut SearcherBuilder {
        self.anchored = yes;
        self
    }

    pub fn dense_depth(&mut self, depth: usize) -> &mut Self {
        self.dense_depth = depth;
        self
    }

    pub fn checked(&self) -> Result<Self, String> {
        Err(String::from("unchecked"))
    }

    pub fn build(&self, patterns: &[&str]) -> Searcher {
        Searcher { anchored: self.anchored && !patterns.is_empty() }
    }
}

pub fn new_searcher(patterns: &[&str]) -> Searcher {
    SearcherBuilder::new().anchored(true).dense_depth(patterns.len()).build(patterns)
}

pub fn count(patterns: &[&str]) -> usize {
    SearcherBuilder::new()
        .dense_depth(3)
        .build(patterns)
        .build(&["(", ")"])
}

pub fn unchecked(patterns: &[&str]) -> Searcher {
    SearcherBuilder::new().checked().unwrap().build(patterns)
}
"""


def test_a_call_ending_a_chain_of_calls_is_the_method_of_what_the_chain_returns(make_repo):
    root = make_repo({"Cargo.toml": '[package]\nname = "search"\nversion = "0.1.0"\n',
                      "src/lib.rs": "pub mod builder;\n", "src/builder.rs": BUILDER})
    run_index(root)
    got = refs(root, "SearcherBuilder::build")
    assert sites(got["references"]) == [("src/builder.rs", 41), ("src/builder.rs", 47)], got
    assert [(u["path"], u["line_start"]) for u in got["unresolved"]] == [("src/builder.rs", 52)], got
    got = refs(root, "Searcher::build")
    assert sites(got["references"]) == [("src/builder.rs", 48)], got
