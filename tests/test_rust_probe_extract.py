"""Rust extraction details found by using Cruxe on unseen crates (issue 17's user probe:
crossbeam-channel, parking_lot, bytes, hashbrown)."""
from __future__ import annotations

from cruxe.languages.rust import extract


def test_a_fn_written_in_a_macros_tokens_is_no_call():
    # bytes' `deref_forward_buf!`: the methods it stamps out are definitions in the template, the
    # `(**self).advance(cnt)` in their bodies are the calls
    src = (b"macro_rules! deref_forward_buf {\n    () => {\n"
           b"        fn advance(&mut self, cnt: usize) {\n            (**self).advance(cnt)\n        }\n"
           b"        pub fn\n        remaining(&self) -> usize { helper() }\n    };\n}\n")
    calls = [(r.to_name, r.line) for r in extract(src, "src/buf.rs").references if r.edge_type == "calls"]
    assert calls == [("advance", 4), ("helper", 7)]


def test_an_exported_macro_is_public():
    # crossbeam-channel's `select!`: `#[macro_export]` makes it usable from every crate
    src = (b"/// Selects one operation.\n#[macro_export(local_inner_macros)]\n#[doc(hidden)]\nmacro_rules! select {\n"
           b"    () => {};\n}\nmacro_rules! helper {\n    () => {};\n}\n")
    vis = {s.name: s.visibility for s in extract(src, "src/lib.rs").symbols}
    assert vis == {"select": "public", "helper": "private"}
