"""Names a Rust file's own `macro_rules!` defines, one row of its invocation each (rsprobe9,
issue 17): http's `status_codes! { (404, NOT_FOUND, "Not Found"); .. }` makes a constant
`StatusCode::NOT_FOUND` through `impl StatusCode { $( pub const $konst: StatusCode = ..; )+ }`,
and `standard_headers!`'s rows make module constants (`CONTENT_TYPE`). `rg NOT_FOUND` finds the
row; locate_symbol found nothing. Rows are read only for a matcher's tuple of fragments whose
`ident` the transcriber defines (`const $k`, `fn $k`, ..): other macros' bodies add nothing."""
from __future__ import annotations

from cruxe.index import run_index
from cruxe.languages.rust import extract
from cruxe.tools import Server

STATUS = b"""\
use std::num::NonZeroU16;

/// An HTTP status code.
pub struct StatusCode(NonZeroU16);

macro_rules! status_codes {
    (
        $(
            $(#[$docs:meta])*
            ($num:expr, $konst:ident, $phrase:expr);
        )+
    ) => {
        impl StatusCode {
        $(
            $(#[$docs])*
            pub const $konst: StatusCode = StatusCode(unsafe { NonZeroU16::new_unchecked($num) });
        )+
        }

        fn canonical_reason(num: u16) -> Option<&'static str> {
            match num {
                $(
                $num => Some($phrase),
                )+
                _ => None
            }
        }
    }
}

status_codes! {
    /// 200 OK
    (200, OK, "OK");
    /// 404 Not Found
    /// [[RFC7231, Section 6.5.4](https://tools.ietf.org/html/rfc7231#section-6.5.4)]
    (404, NOT_FOUND, "Not Found");
}

macro_rules! standard_headers {
    (
        $(
            $(#[$docs:meta])*
            ($konst:ident, $upcase:ident, $name_bytes:literal);
        )+
    ) => {
        $(
            $(#[$docs])*
            pub const $upcase: HeaderName = HeaderName { inner: $name_bytes };
        )+
    }
}

standard_headers! {
    /// The media type of the resource.
    (ContentType, CONTENT_TYPE, b"content-type");
}

macro_rules! pairs {
    ($($a:ident => $b:expr),*) => { fn table() -> Vec<u8> { vec![$($b),*] } }
}

pairs! { (ALPHA, BETA) => 1 }
"""


def test_a_macro_rows_names_are_the_constants_its_rules_define():
    syms = {s.qualified_name: s for s in extract(STATUS, "src/status.rs").symbols}
    found = syms["status::StatusCode::NOT_FOUND"]
    assert (found.kind, found.line_start, found.name_line, found.line_end) == ("constant", 34, 36, 36)
    assert syms["status::StatusCode::OK"].name_line == 33
    assert syms["status::StatusCode::NOT_FOUND"].parent == list(syms).index("status::StatusCode")
    assert syms["status::CONTENT_TYPE"].name_line == 55
    # a row no rule defines a name of, and a rule's other fragments, add nothing
    assert not {"ALPHA", "BETA", "ContentType", "table"} & {s.name for s in syms.values()}


def test_locate_symbol_finds_a_macro_rows_name(tmp_path):
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "status.rs").write_bytes(STATUS)
    run_index(root)
    server = Server(root)
    for name, line in (("NOT_FOUND", 34), ("StatusCode::NOT_FOUND", 34), ("CONTENT_TYPE", 54)):
        payload, is_error = server.call_tool("locate_symbol", {"name": name})
        assert not is_error and [(r["path"], r["line_start"]) for r in payload["results"]] == \
            [("src/status.rs", line)], (name, payload)
