"""Concept questions the fourth Rust probe missed (tiny-keccak's `KeccakState::update`,
parking_lot_core's `WordLock::lock_slow`): an impl block's chunk whose best-matching line is
the `impl<P: Permutation> Sponge<P>` header (an impl is no symbol) stood for an anonymous
snippet, so the method saying the question never surfaced; it now stands for the callable
member holding its next best line. And a trait's member declared without a body, whose doc
comment says part of the question (and is found twice: by its doc and in its trait's chunk),
came before the implementation saying all of it; a declaration now gets `bodyless_penalty`
as a type does, unless it covers the question as well as the best definition with a body."""
from __future__ import annotations

from cruxe.index import run_index
from cruxe.tools import Server

SPONGE = """\
pub trait Permutation {
    fn execute(a: &mut [u64; 25]);
}

pub struct Sponge<P> {
    buffer: [u64; 25],
    offset: usize,
    rate: usize,
    permutation: core::marker::PhantomData<P>,
}

impl<P: Permutation> Sponge<P> {
    fn keccak(&mut self) {
        P::execute(&mut self.buffer);
    }

    fn update(&mut self, input: &[u8]) {
        let mut ip = 0;
        let mut l = input.len();
        let mut rate = self.rate - self.offset;
        while l >= rate {
            xorin(&mut self.buffer, &input[ip..], rate);
            self.keccak();
            ip += rate;
            l -= rate;
        }
    }
}

fn xorin(_buffer: &mut [u64; 25], _src: &[u8], _len: usize) {}
"""

QUESTION = "absorb input into the sponge state, running the permutation whenever a full rate of it has been xored in"


def _search(root, query):
    run_index(root)
    out, _ = Server(root).call_tool("search_code", {"query": query, "limit": 10, "ranking_explain_level": "full"})
    return out


def test_an_impl_chunk_whose_header_matches_best_surfaces_its_member(make_repo):
    hits = [(r.get("kind", "snippet"), r["name"], r["line_start"])
            for r in _search(make_repo({"src/lib.rs": SPONGE}), QUESTION)["results"]]
    assert ("method", "update", 17) in hits, hits
    assert not [h for h in hits if h[0] == "snippet" and h[2] == 12], hits  # not the header alone


HASHER = """\
pub trait Hasher {
    /// Absorb additional input bytes. Can be called multiple times.
    fn update(&mut self, input: &[u8]);
}

pub struct Keccak {
    rate: usize,
    offset: usize,
}

impl Hasher for Keccak {
    fn update(&mut self, input: &[u8]) {
        let full_block = self.rate - self.offset;
        for block in input.chunks(full_block) {
            permutation(block);
        }
    }
}

fn permutation(_block: &[u8]) {}
"""


def test_a_declared_member_comes_after_the_implementation_saying_more(make_repo):
    out = _search(make_repo({"src/lib.rs": HASHER}), "absorb input bytes, running the permutation on each full block")
    places = [(r["name"], r["line_start"]) for r in out["results"]]
    assert places.index(("update", 12)) < places.index(("update", 2)), places
    reasons = out["metadata"]["ranking_reasons"][places.index(("update", 2))]
    assert reasons["bodyless_penalty"] < 0, reasons


def test_a_typescript_overload_signature_stands_for_its_implementation_not_a_declaration():
    """redux's `compose`: the JSDoc is above the first overload signature, the implementation
    (with the body) right below the signatures; the hit is the signature, and is no declaration
    to put below the functions that do the work. A `.d.ts` file's function has no body anywhere."""
    from cruxe.model import Hit
    from cruxe.query.coverage import _bodyless
    sig = "export default function compose(): <R>(a: R) => R"
    overload = Hit("symbol", "src/compose.ts", 13, 13, kind="function", name="compose", signature=sig,
                   language="typescript")
    assert not _bodyless(overload, sig + "\n")
    declared = Hit("symbol", "types/compose.d.ts", 13, 13, kind="function", name="compose", signature=sig,
                   language="typescript")
    assert _bodyless(declared, sig + ";\n")
