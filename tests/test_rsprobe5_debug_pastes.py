"""A pasted Rust error in its Debug form, any struct with a message field (rs-probe5:
getrandom's `called `Result::unwrap()` on an `Err` value: Error { internal_code: 2147483661,
description: "Node.js ES modules are not directly supported, see https://..." }`): the quoted
field is the message, searched as one, also after `unwrap()`'s wrapper (an io::Error's
`Custom { .. error: ".." }` the same way)."""
from __future__ import annotations

import pytest

from cruxe.literals import message_segments, unwrap_message


@pytest.mark.parametrize("pasted, message", [
    ('called `Result::unwrap()` on an `Err` value: Error { internal_code: 2147483661, description: '
     '"Node.js ES modules are not directly supported, see https://docs.rs/getrandom#nodejs-es-module-support" }',
     "Node.js ES modules are not directly supported, see https://docs.rs/getrandom#nodejs-es-module-support"),
    ('called `Result::unwrap()` on an `Err` value: Custom { kind: InvalidInput, error: "path must be shorter '
     'than SUN_LEN" }', "path must be shorter than SUN_LEN"),
    ('Error: ParseError { line: 3, msg: "unterminated string" }', "unterminated string"),
])
def test_a_debug_struct_with_a_message_field_unwraps_to_it(pasted, message):
    assert unwrap_message(pasted) == message
    assert message_segments(pasted) == message_segments(message)


def test_a_struct_without_a_message_field_stays_as_pasted():
    pasted = 'Error: Point { x: 3, label: "north" }'
    assert unwrap_message(pasted) == 'Point { x: 3, label: "north" }'


def test_a_match_arm_of_an_error_variant_gives_its_message():
    # getrandom's `fn internal_desc(error: Error) -> Option<&'static str> { match error {
    # Error::UNSUPPORTED => Some("..."), .. } }`, and the `ErrorKind::X => "..."` tables of a
    # Display impl or `description()`: the literal is what the error prints
    from cruxe.literals import emitted_messages
    src = ('fn internal_desc(error: Error) -> Option<&\'static str> {\n    match error {\n'
           '        Error::UNSUPPORTED => Some("getrandom: this target is not supported"),\n'
           '        Error::NO_RDRAND => Some("RDRAND: instruction not supported"),\n        _ => None,\n    }\n}\n'
           'fn kind_text(k: ErrorKind) -> &\'static str {\n    match k {\n'
           '        ErrorKind::Eof { .. } => "unexpected end of file",\n        _ => "other",\n    }\n}\n'
           'fn color(c: Color) -> &\'static str {\n    match c {\n        Color::Red => "red",\n    }\n}\n')
    got = emitted_messages(src, "rust")
    assert got == ["getrandom: this target is not supported", "RDRAND: instruction not supported",
                   "unexpected end of file"]
