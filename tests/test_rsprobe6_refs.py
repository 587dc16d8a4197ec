"""A Rust module's unit tests kept in a file of their own (sixth user probe: base64's `#[cfg(test)]
mod tests;` in `lib.rs` -> `src/tests.rs`, `mod encoder_tests;` in `write/mod.rs`) are test code:
`find_references` lists their calls after the source's, marked `test: true`, as it does a
`#[cfg(test)] mod tests { ... }` written inline. A module declared without the attribute stays
source."""
from __future__ import annotations

from cruxe.index import run_index

from support.references import refs, sites

CRATE = {
    "Cargo.toml": '[package]\nname = "b64"\nversion = "0.13.0"\n',
    "src/lib.rs": ("mod encode;\nmod checks;\npub mod write;\n\npub use crate::encode::encode_config;\n\n"
                   "#[cfg(test)]\nmod tests;\n"),
    "src/encode.rs": ("/// Encodes `input` with the given alphabet.\n"
                      "pub fn encode_config(input: &[u8], pad: bool) -> String {\n"
                      "    let mut out = String::with_capacity(input.len() * 4 / 3 + 4);\n"
                      "    for chunk in input.chunks(3) {\n"
                      "        out.push_str(&format!(\"{:?}\", chunk));\n"
                      "    }\n"
                      "    if pad { out.push('=') }\n"
                      "    out\n"
                      "}\n"),
    "src/tests.rs": ("use crate::encode_config;\n\n"
                     "#[test]\nfn roundtrip_small() {\n"
                     "    assert_eq!(encode_config(b\"a\", true).len(), 6);\n"
                     "}\n"),
    "src/checks.rs": ("use crate::encode_config;\n\n"
                      "pub(crate) fn padded_len(input: &[u8]) -> usize {\n"
                      "    encode_config(input, true).len()\n"
                      "}\n"),
    "src/write/mod.rs": "mod sink;\npub use self::sink::Sink;\n\n#[cfg(test)]\nmod encoder_tests;\n",
    "src/write/encoder_tests.rs": ("use crate::encode_config;\n\n"
                                   "#[test]\nfn writes_padding() {\n"
                                   "    assert!(encode_config(b\"ab\", true).ends_with('='));\n"
                                   "}\n"),
    "src/write/sink.rs": ("use crate::encode_config;\n\n"
                          "pub struct Sink(pub String);\n\n"
                          "impl Sink {\n"
                          "    pub fn write(&mut self, bytes: &[u8]) {\n"
                          "        self.0.push_str(&encode_config(bytes, false));\n"
                          "    }\n"
                          "}\n"),
}


def test_a_test_module_in_a_file_of_its_own_is_listed_as_test_code(make_repo):
    root = make_repo(CRATE)
    run_index(root)
    got = refs(root, "encode_config", path="src/encode.rs")
    calls = [r for r in got["references"] if r.get("edge_type") == "calls"]
    assert sites(calls) == [("src/checks.rs", 4), ("src/write/sink.rs", 7)], calls
    assert [(t["path"], t["lines"]) for t in got["test_references"] if t["edge_type"] == "calls"] == \
        [("src/tests.rs", [5]), ("src/write/encoder_tests.rs", [5])]
