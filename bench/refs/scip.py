"""A minimal reader for SCIP index files (protobuf), enough for a reference oracle.

Only the fields the oracle needs are decoded:

    Index      { documents = 2 (Document) }
    Document   { relative_path = 1, occurrences = 2 (Occurrence) }
    Occurrence { range = 1 (packed int32: line, start_char, [end_line,] end_char),
                 symbol = 2, symbol_roles = 3 (bit 0x1 = Definition) }

Everything else is skipped by wire type, so newer SCIP files with more fields still read.
Lines in SCIP are 0-based; this module returns them 1-based like the rest of Cruxe.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator

DEFINITION = 0x1


@dataclass(frozen=True, slots=True)
class Occurrence:
    path: str
    line: int  # 1-based
    col: int  # 0-based character
    symbol: str
    roles: int

    @property
    def is_definition(self) -> bool:
        return bool(self.roles & DEFINITION)


def _varint(buf: bytes, i: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        b = buf[i]
        i += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, i
        shift += 7


def _fields(buf: bytes) -> Iterator[tuple[int, int, int | bytes]]:
    """(field number, wire type, value) for each field of one message."""
    i, n = 0, len(buf)
    while i < n:
        key, i = _varint(buf, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = _varint(buf, i)
        elif wire == 2:
            length, i = _varint(buf, i)
            value = buf[i:i + length]
            i += length
        elif wire == 1:
            value, i = buf[i:i + 8], i + 8
        elif wire == 5:
            value, i = buf[i:i + 4], i + 4
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")
        yield number, wire, value


def _packed(buf: bytes) -> list[int]:
    out, i = [], 0
    while i < len(buf):
        v, i = _varint(buf, i)
        out.append(v)
    return out


def _occurrence(path: str, buf: bytes) -> Occurrence | None:
    rng: list[int] = []
    symbol, roles = "", 0
    for number, wire, value in _fields(buf):
        if number == 1:
            rng += _packed(value) if wire == 2 else [value]
        elif number == 2:
            symbol = value.decode("utf-8", "replace")
        elif number == 3:
            roles = value
    if not symbol or len(rng) < 3:
        return None
    return Occurrence(path, rng[0] + 1, rng[1], symbol, roles)


def read_occurrences(data: bytes) -> Iterator[Occurrence]:
    """Every occurrence of every document of a SCIP index."""
    for number, _, doc in _fields(data):
        if number != 2:
            continue
        path, occs = "", []
        for n2, _, value in _fields(doc):
            if n2 == 1:
                path = value.decode("utf-8", "replace")
            elif n2 == 2:
                occs.append(value)
        for buf in occs:
            occ = _occurrence(path, buf)
            if occ is not None:
                yield occ


# ---- symbol strings ---------------------------------------------------------------------

_DESCRIPTOR = re.compile(r"(`(?:[^`]|``)*`|[^/#.:!()\[\]`]+)(\([^)]*\)\.|[/#.:!]|)")


def descriptors(symbol: str) -> list[tuple[str, str]]:
    """`scheme manager pkg version desc...` -> [(name, suffix)], suffix one of
    `/` namespace, `#` type, `.` term, `().` method, `:` meta, `!` macro; [] for locals."""
    if symbol.startswith("local "):
        return []
    parts = symbol.split(" ", 4)
    if len(parts) < 5:
        return []
    out = []
    text = parts[4]
    # parameters `(x)` and type parameters `[T]` end a descriptor list we care about
    for m in _DESCRIPTOR.finditer(text):
        name, suffix = m.group(1), m.group(2)
        if not name and not suffix:
            continue
        if name.startswith("`"):
            name = name[1:-1].replace("``", "`")
        out.append((name, "()." if suffix.startswith("(") else suffix))
    return out


def package(symbol: str) -> str:
    parts = symbol.split(" ", 4)
    return parts[2] if len(parts) >= 5 else ""
