"""Rust fields as definitions (round 10, issue 17): a struct's, a union's and an enum struct
variant's named fields are variables qualified through their type (`buf::Buffer::len`), found
by `locate_symbol`, shown by the outline; a field read or written (`self.len`, `b.len = 0` on a
typed local) is a `references` edge to it; a field and the getter method of one name
(`len` and `fn len(&self)`) leave the method's callers answered as before, the field listed
apart."""
from __future__ import annotations

from cruxe.extract import extract
from cruxe.index import run_index
from cruxe.languages.rust import extract as extract_rust
from cruxe.tools import Server

from support.references import refs, sites
from support.repos import marked_line

BUF = """\
use std::fmt;

/// A growable byte buffer.
#[derive(Debug, Default)]
pub struct Buffer {
    /// Bytes written so far.
    pub len: usize,
    #[cfg(feature = "cap")]
    cap: usize, // cfg
    data: Vec<u8>,
    pub(crate) inner: Inner,
}

pub struct Inner {
    pub hits: u32,
}

pub struct Pair(pub u8, u16);

pub union Bits {
    pub word: u32,
    half: [u16; 2],
}

pub enum Event {
    Key { code: u32, shift: bool },
    Quit,
}

impl Buffer {
    pub fn new() -> Self {
        Buffer::default()
    }
    pub fn with(len: usize) -> Self {
        Self { len, cap: 0, data: Vec::new(), inner: Inner { hits: 0 } } // literal of Self
    }
    pub fn len(&self) -> usize {
        self.len // read in the getter
    }
    pub fn push(&mut self, b: u8) {
        self.data.push(b);
        self.len += 1; // written
        self.inner.hits += 1; // through a field
    }
}

impl fmt::Display for Buffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.len())
    }
}
"""

USES = """\
use crate::buf::Buffer;

pub fn fill(n: usize) -> usize {
    let mut b = Buffer::new();
    b.push(1);
    b.len = n; // typed local
    let total = b.len(); // getter call
    let mut nested = Buffer::new();
    nested.inner.hits = 2; // local's field
    total
}

pub fn untyped(x: &Holder) -> u32 {
    x.marker // unknown type
}

pub fn variant(e: &Foreign) -> u32 {
    e.code // a variant's field is no `x.f`
}

pub fn literals(hits: u32) -> u32 {
    let inner = crate::buf::Inner { hits }; // shorthand in a literal
    let crate::buf::Inner { hits: seen } = inner; // pattern
    let event = crate::buf::Event::Key { code: 1, shift: false }; // variant literal
    match event {
        crate::buf::Event::Key { code, .. } => code + seen, // variant pattern
        _ => 0,
    }
}

pub fn foreign() -> libc::timespec {
    libc::timespec { tv_sec: 0, marker: 0 } // another crate's type
}

fn lock(v: u32) -> u32 {
    v
}

pub struct Parker {
    lock: u32,
}

impl Parker {
    pub fn park(&self) -> u32 {
        lock(self.lock) // the function, not the field
    }
}

pub struct Holder {
    pub marker: u32,
}
"""

FILES = {"Cargo.toml": '[package]\nname = "bufs"\nversion = "0.1.0"\n', "src/lib.rs": "pub mod buf;\npub mod uses;\n",
         "src/buf.rs": BUF, "src/uses.rs": USES}


def _symbols(src: str, path: str = "src/buf.rs") -> dict[str, object]:
    return {s.qualified_name + ":" + s.kind: s for s in extract(path, src.encode(), "rust").symbols}


def test_each_field_form_is_a_variable_of_its_type():
    got = _symbols(BUF)
    length = got["buf::Buffer::len:variable"]
    assert length.line_start == marked_line(BUF, "/// Bytes written so far.")
    assert length.name_line == marked_line(BUF, "pub len: usize")
    assert length.signature == "pub len: usize" and length.visibility == "public"
    assert length.doc == "Bytes written so far."
    symbols = extract("src/buf.rs", BUF.encode(), "rust").symbols
    assert symbols[length.parent].qualified_name == "buf::Buffer"
    cap = got["buf::Buffer::cap:variable"]  # under #[cfg]: as other items, from its attribute
    assert cap.line_start == marked_line(BUF, "#[cfg(feature") and cap.visibility == "private"
    assert got["buf::Buffer::inner:variable"].visibility == "internal"
    assert "buf::Bits::word:variable" in got and "buf::Bits::half:variable" in got
    # an enum struct variant's fields: under the variant (a constant), with the enum's visibility
    code = got["buf::Event::Key::code:variable"]
    assert code.visibility == "public" and symbols[code.parent].qualified_name == "buf::Event::Key"
    # a tuple struct's `.0` is no definition
    assert not [k for k in got if k.startswith("buf::Pair::")]
    # the getter method beside the field of its name
    assert "buf::Buffer::len:method" in got


def test_a_large_structs_fields_are_all_found_though_its_signature_is_cut():
    fields = "".join(f"    pub field_number_{i}: Vec<std::collections::HashMap<String, u64>>,\n" for i in range(60))
    src = f"pub struct Wide {{\n{fields}}}\n"
    got = _symbols(src, "src/wide.rs")
    assert len(got["wide::Wide:struct"].signature) <= 300
    assert sum(k.endswith(":variable") for k in got) == 60


def test_field_reads_are_references_with_their_receiver():
    reads = {(r.line, r.to_name): r for r in extract_rust(USES.encode(), "src/uses.rs").references
             if r.edge_type == "references"}
    assert reads[(marked_line(USES, "// typed local"), "len")].receiver == "Buffer::new()"
    assert reads[(marked_line(USES, "// unknown type"), "marker")].receiver == "x"
    # a method call's name is the call's, no field read
    assert (marked_line(USES, "// getter call"), "len") not in reads


def test_locate_outline_and_references_of_a_field(make_repo):
    root = make_repo(FILES)
    run_index(root)
    server = Server(root)
    for asked in ("Inner::hits", "Inner.hits", "hits"):
        hits = server.call_tool("locate_symbol", {"name": asked})[0]["results"]
        assert [(h["path"], h["line_start"], h["kind"]) for h in hits] == [
            ("src/buf.rs", marked_line(BUF, "pub hits: u32"), "variable")], asked
    hits = server.call_tool("locate_symbol", {"name": "code", "kind": "variable"})[0]["results"]
    assert [(h["path"], h["qualified_name"]) for h in hits] == [("src/buf.rs", "buf::Event::Key::code")]
    outline = server.call_tool("get_file_outline", {"path": "src/buf.rs"})[0]
    buffer = next(s for s in outline["symbols"] if s["name"] == "Buffer" and s["kind"] == "struct")
    assert [c["name"] for c in buffer.get("children", [])][:4] == ["len", "cap", "data", "inner"]

    got = refs(root, "Inner::hits")
    assert ("src/uses.rs", marked_line(USES, "// local's field")) in sites(got["references"])
    assert {r["edge_type"] for r in got["references"]} == {"references"}
    got = refs(root, "marker")  # unknown receiver type: the one field of that name
    assert sites(got["references"]) == [("src/uses.rs", marked_line(USES, "// unknown type"))]
    got = refs(root, "code")  # the enum variant's field: by its literal and pattern, no `x.f` read
    assert sorted(sites(got["references"])) == [("src/uses.rs", marked_line(USES, "// variant literal")),
                                                ("src/uses.rs", marked_line(USES, "// variant pattern"))]
    assert got["unresolved_count"] == 1  # `e.code` on a type not known: a candidate, listed
    assert sites(got["unresolved"]) == [("src/uses.rs", marked_line(USES, "// a variant's field"))]
    got = refs(root, "Inner::hits")
    assert sorted(sites(got["references"])) == sorted([
        ("src/buf.rs", marked_line(BUF, "// through a field")), ("src/buf.rs", marked_line(BUF, "// literal of Self")),
        ("src/uses.rs", marked_line(USES, "// local's field")), ("src/uses.rs", marked_line(USES, "// shorthand")),
        ("src/uses.rs", marked_line(USES, "// pattern"))])
    got = refs(root, "Buffer::cap")  # `Self { .. }` in the impl
    assert sites(got["references"]) == [("src/buf.rs", marked_line(BUF, "// literal of Self"))]
    got = refs(root, "marker")  # another crate's struct literal is none of ours: external
    assert sites(got["references"]) == [("src/uses.rs", marked_line(USES, "// unknown type"))]


def test_a_bare_call_beside_a_field_of_its_name_is_the_function(make_repo):
    root = make_repo(FILES)
    run_index(root)
    got = refs(root, "lock", path="src/uses.rs")  # the function and the field in one file
    assert got["symbol"]["kind"] == "function"
    assert sites(got["references"]) == [("src/uses.rs", marked_line(USES, "// the function, not the field"))]
    field = refs(root, "Parker::lock")
    assert field["symbol"]["kind"] == "variable"
    assert sites(field["references"]) == [("src/uses.rs", marked_line(USES, "// the function, not the field"))]


def test_a_field_beside_its_getter_leaves_the_methods_callers_as_they_were(make_repo):
    root = make_repo(FILES)
    run_index(root)
    for asked in ("len", "Buffer::len", "buf::Buffer::len"):
        got = refs(root, asked)  # no ambiguity error: the method, the field listed apart
        assert got["symbol"]["kind"] == "method", asked
        assert sorted(sites(got["references"])) == [("src/buf.rs", marked_line(BUF, "write!(f")),
                                                    ("src/uses.rs", marked_line(USES, "// getter call"))], asked
        assert [f["kind"] for f in got["fields"]] == ["variable"], asked
        assert all(u["edge_type"] != "references" for u in got.get("unresolved", ())), asked
    got = refs(root, "len", path="src/buf.rs")  # the file's function, as before
    assert got["symbol"]["kind"] == "method"
    # the field itself, picked by the arguments listed
    args = refs(root, "len")["fields"][0]["arguments"]
    picked = refs(root, args["symbol_name"], path=args["path"], line=args["line"])
    assert picked["symbol"]["kind"] == "variable"
    assert sorted(sites(picked["references"])) == [
        ("src/buf.rs", marked_line(BUF, "// literal of Self")),
        ("src/buf.rs", marked_line(BUF, "// read in the getter")),
        ("src/buf.rs", marked_line(BUF, "// written")), ("src/uses.rs", marked_line(USES, "// typed local"))]


def test_the_symbol_cap_keeps_fields_parented(monkeypatch):
    import cruxe.extract as ex
    monkeypatch.setattr(ex, "MAX_SYMBOLS_PER_FILE", 3)
    fx = ex.extract("src/buf.rs", BUF.encode(), "rust")
    assert [s.qualified_name for s in fx.symbols] == ["buf::Buffer", "buf::Buffer::len", "buf::Buffer::cap"]
    assert all(s.parent is None or s.parent < 3 for s in fx.symbols)
    assert any("more than the 3 kept" in w for w in fx.warnings)


def test_a_rust_field_is_told_from_a_static_and_from_other_languages_attributes():
    from cruxe.model import Hit
    from cruxe.query.hits import a_field
    field = Hit("symbol", "src/buf.rs", 7, 7, kind="variable", name="len", signature="pub len: usize", language="rust")
    static = Hit("symbol", "src/buf.rs", 3, 3, kind="variable", name="N", signature="pub static mut N: u8 = 0",
                 language="rust")
    attribute = Hit("symbol", "a.py", 3, 3, kind="variable", name="z", signature="z: str", language="python")
    assert a_field(field) and not a_field(static) and not a_field(attribute)


def test_search_finds_a_field_by_its_name_and_a_question_the_struct(make_repo):
    root = make_repo(FILES)
    run_index(root)
    server = Server(root)
    found = server.call_tool("search_code", {"query": "Inner hits"})[0]["results"]
    assert (found[0]["qualified_name"], found[0]["kind"]) == ("buf::Inner::hits", "variable")
    found = server.call_tool("search_code", {"query": "how many bytes were written so far"})[0]["results"]
    assert found and not [r for r in found if r.get("kind") == "variable"]  # a question: code answers
    assert (found[0]["name"], found[0]["kind"]) == ("Buffer", "struct")  # its field's doc is in its body
