"""Rust references the second user probe found unresolved (rand, rand_core): a method called
on a parameter whose type is a generic parameter (`fn f<R: RngCore + ?Sized>(rng: &mut R)`,
`where R: Rng`, `rng: &mut impl Rng`) is the method of a trait it is bounded by, or of one of
that trait's supertraits (`trait Rng: RngCore`); rand calls `rng.next_u32()` so everywhere."""
from __future__ import annotations

from cruxe.index import run_index

from support.references import refs, sites

TRAITS = ("pub trait RngCore {\n"
          "    fn next_u32(&mut self) -> u32;\n"
          "}\n\n"
          "pub trait Rng: RngCore {\n"
          "    fn coin(&mut self) -> bool {\n"
          "        true\n"
          "    }\n"
          "}\n")
IMPLS = ("use crate::traits::RngCore;\n\n"
         "pub struct Counter(u32);\n\n"
         "impl RngCore for Counter {\n"
         "    fn next_u32(&mut self) -> u32 {\n        self.0\n    }\n}\n\n"
         "pub struct Zero;\n\n"
         "impl RngCore for Zero {\n"
         "    fn next_u32(&mut self) -> u32 {\n        0\n    }\n}\n")
USES = ("use crate::traits::{Rng, RngCore};\n\n"
        "pub fn widen<R: RngCore + ?Sized>(rng: &mut R) -> u64 {\n"
        "    u64::from(rng.next_u32())\n"                       # line 4
        "}\n\n"
        "pub fn pick<R, F: Fn(u32) -> u32>(rng: &mut R, f: F) -> u32\nwhere\n    R: Rng + ?Sized,\n{\n"
        "    f(rng.next_u32())\n"                               # line 11: through Rng's supertrait
        "}\n\n"
        "pub fn toss(rng: &mut impl Rng) -> bool {\n"
        "    rng.coin()\n"                                      # line 15
        "}\n\n"
        "pub fn unbounded<T>(t: &mut T) -> u32 {\n"
        "    t.next_u32()\n"                                    # line 19: nothing says which
        "}\n")
CRATE = {
    "Cargo.toml": '[package]\nname = "dice"\nversion = "0.1.0"\n',
    "src/lib.rs": "pub mod traits;\npub mod impls;\npub mod uses;\n",
    "src/traits.rs": TRAITS, "src/impls.rs": IMPLS, "src/uses.rs": USES,
}


def test_a_generic_parameter_named_like_a_module_is_still_bounded(make_repo):
    # rand calls `rng.next_u32()` with a module `rng` in the crate: the receiver reads as that
    # module's path first
    files = {**CRATE, "src/lib.rs": "pub mod traits;\npub mod impls;\npub mod uses;\npub mod rng;\n",
             "src/rng.rs": "pub fn other() {}\n"}
    files["src/uses.rs"] = USES
    root = make_repo(files)
    run_index(root)
    got = refs(root, "RngCore::next_u32")
    assert sites(got["references"]) == [("src/uses.rs", 4), ("src/uses.rs", 11)], got


def test_a_method_on_a_generic_parameter_is_its_bounds_trait_method(make_repo):
    root = make_repo(CRATE)
    run_index(root)
    got = refs(root, "RngCore::next_u32")
    assert sites(got["references"]) == [("src/uses.rs", 4), ("src/uses.rs", 11)], got
    assert [(u["path"], u["line_start"]) for u in got.get("unresolved", [])] == [("src/uses.rs", 19)], got
    got = refs(root, "Rng::coin")
    assert sites(got["references"]) == [("src/uses.rs", 15)], got


def _edit(path: str, old: str, new: str):
    def edit(root):
        f = root / path
        text = f.read_text()
        assert old in text
        f.write_text(text.replace(old, new))
    return edit


def test_an_edited_bound_or_supertrait_resolves_as_a_whole_index_does(make_repo, tmp_path, monkeypatch):
    from support.incremental import answer, synced_and_whole
    # the supertrait goes: `rng.next_u32()` under `R: Rng` no longer reaches RngCore's
    root = make_repo(CRATE)
    synced, whole = synced_and_whole(root, tmp_path / "a", monkeypatch,
                                     _edit("src/traits.rs", "pub trait Rng: RngCore {", "pub trait Rng {"))
    assert synced == whole and answer(whole, "src/uses.rs", 11, "next_u32") != "receiver"
    # the bounding trait gains the method: the call on the unbounded parameter stays as it was,
    # the bounded one now reaches the trait's own
    root = make_repo({**CRATE, "src/traits.rs": TRAITS.replace("fn coin", "fn next_u32(&mut self) -> u32 { 1 }\n    fn coin")},
                     name="second")
    synced, whole = synced_and_whole(root, tmp_path / "b", monkeypatch,
                                     _edit("src/traits.rs", "fn next_u32(&mut self) -> u32 { 1 }\n", ""))
    assert synced == whole and answer(whole, "src/uses.rs", 11, "next_u32") == "receiver"


def test_a_parameters_bounds_and_a_traits_supertraits_are_read_from_signatures():
    from cruxe.refs.rust import parameter_bounds, supertraits
    sig = ("fn pick<'a, R, F: Fn(usize) -> X, X>(rng: &'a mut R, f: F, n: usize) -> Vec<X> "
           "where R: Rng + ?Sized + 'a, F: Send, X: Into<f64>")
    assert parameter_bounds(sig, "rng") == (("Rng",),)
    assert parameter_bounds(sig, "n") == ()  # a type of no bound: none
    assert parameter_bounds("pub fn widen<R: a::RngCore + ?Sized>(rng: &mut R) -> u64", "rng") == (("a", "RngCore"),)
    assert parameter_bounds("fn toss(rng: &mut impl Rng + Send, x: u8)", "rng") == (("Rng",), ("Send",))
    assert supertraits("pub trait CryptoRng<T: Copy>: RngCore + core::fmt::Debug where T: Eq") == (
        ("RngCore",), ("core", "fmt", "Debug"))
    assert supertraits("pub trait Rng") == () and supertraits("trait Tool<T>") == ()
