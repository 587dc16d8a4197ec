"""A crate-qualified name finds the crate's function, not a same-named method (sixth user
probe: `serde_json::from_str` is the function `de.rs` defines and the crate root re-exports;
`Deserializer::from_str`, `Number::from_str` and `Value::from_str` are reached through their
types, which the query does not name, and come after it)."""
from __future__ import annotations

from cruxe.query import locate_symbol, search_code

from support.repos import indexed_files

CARGO = '[package]\nname = "jsonkit"\nversion = "0.3.1"\nedition = "2018"\n'
LIB = '''//! A small JSON reader.

mod de;
mod value;

pub use crate::de::{from_str, Deserializer};
pub use crate::value::Value;
'''
DE = '''use crate::value::Value;
use std::str::FromStr;

/// Reads JSON values out of a string.
pub struct Deserializer<'a> {
    input: &'a str,
    pos: usize,
}

impl<'a> Deserializer<'a> {
    /// A deserializer reading `s` from its start.
    pub fn from_str(s: &'a str) -> Self {
        Deserializer { input: s, pos: 0 }
    }

    pub fn end(&mut self) -> Result<(), String> {
        if self.input[self.pos..].trim().is_empty() { Ok(()) } else { Err("trailing characters".into()) }
    }
}

/// Reads one value of type `T` from a string of JSON text; text after it is an error.
pub fn from_str<T: FromStr>(s: &str) -> Result<T, String> {
    let mut de = Deserializer::from_str(s);
    let value = s.trim().parse::<T>().map_err(|_| "invalid value".to_string())?;
    de.pos = s.len();
    de.end()?;
    Ok(value)
}
'''
VALUE = '''use std::str::FromStr;

/// Any JSON value.
pub enum Value {
    Null,
    Bool(bool),
    Text(String),
}

impl FromStr for Value {
    type Err = String;

    fn from_str(s: &str) -> Result<Value, String> {
        crate::de::from_str::<String>(s).map(Value::Text)
    }
}
'''


def test_a_crate_qualified_name_finds_the_function_before_methods_of_other_types(tmp_path):
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home",
                                   {"Cargo.toml": CARGO, "src/lib.rs": LIB, "src/de.rs": DE, "src/value.rs": VALUE})
    function = next(i + 1 for i, text in enumerate(DE.splitlines()) if text.startswith("pub fn from_str"))
    hits, total = locate_symbol(gen, repo, ref, "jsonkit::from_str")
    assert total == 3 and (hits[0].path, hits[0].kind) == ("src/de.rs", "function"), hits
    assert hits[0].line_start <= function <= hits[0].line_end
    assert [h.kind for h in hits[1:]] == ["method", "method"]
    found, _, _ = search_code(gen, repo, ref, "jsonkit::from_str", limit=3)
    assert (found[0].path, found[0].kind) == ("src/de.rs", "function")
    # naming the type still finds its method first
    hits, _ = locate_symbol(gen, repo, ref, "jsonkit::Deserializer::from_str")
    assert (hits[0].kind, hits[0].qualified_name.endswith("Deserializer::from_str")) == ("method", True)
