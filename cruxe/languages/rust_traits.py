"""Rust knowledge the queries read without the grammar (this module imports nothing, so the
server's start-up does not load the Rust extractor for it): the methods of Rust's standard
traits, for a question written as an impl header, and the type a method's impl is for.

`impl Display for Point` asks where Point implements Display: the answer is Point's `fmt`.
A trait the repository defines lists its own methods (its children in the index); the
standard library's are not in the repository, so their methods are written here, from the
standard library's documentation: the required methods and the provided ones an impl commonly
overrides.
"""
from __future__ import annotations

STD_TRAIT_METHODS: dict[str, tuple[str, ...]] = {
    "Display": ("fmt",), "Debug": ("fmt",), "LowerHex": ("fmt",), "UpperHex": ("fmt",), "Binary": ("fmt",),
    "Octal": ("fmt",), "Pointer": ("fmt",), "LowerExp": ("fmt",), "UpperExp": ("fmt",),
    "Write": ("write_str", "write_char", "write_fmt", "write", "flush", "write_all"),
    "Read": ("read", "read_exact", "read_to_end", "read_to_string", "read_vectored"),
    "BufRead": ("fill_buf", "consume"), "Seek": ("seek",),
    "Clone": ("clone", "clone_from"), "Default": ("default",), "Drop": ("drop",),
    "From": ("from",), "Into": ("into",), "TryFrom": ("try_from",), "TryInto": ("try_into",),
    "FromStr": ("from_str",), "ToString": ("to_string",), "AsRef": ("as_ref",), "AsMut": ("as_mut",),
    "Borrow": ("borrow",), "BorrowMut": ("borrow_mut",), "ToOwned": ("to_owned",),
    "Deref": ("deref",), "DerefMut": ("deref_mut",),
    "PartialEq": ("eq", "ne"), "PartialOrd": ("partial_cmp", "lt", "le", "gt", "ge"),
    "Ord": ("cmp", "max", "min", "clamp"), "Hash": ("hash",), "Hasher": ("finish", "write"),
    "Iterator": ("next", "size_hint", "nth", "fold", "count", "last"), "DoubleEndedIterator": ("next_back",),
    "ExactSizeIterator": ("len",), "IntoIterator": ("into_iter",), "FromIterator": ("from_iter",),
    "Extend": ("extend",), "Index": ("index",), "IndexMut": ("index_mut",),
    "Add": ("add",), "Sub": ("sub",), "Mul": ("mul",), "Div": ("div",), "Rem": ("rem",), "Neg": ("neg",),
    "Not": ("not",), "BitAnd": ("bitand",), "BitOr": ("bitor",), "BitXor": ("bitxor",), "Shl": ("shl",),
    "Shr": ("shr",), "AddAssign": ("add_assign",), "SubAssign": ("sub_assign",), "MulAssign": ("mul_assign",),
    "DivAssign": ("div_assign",), "BitAndAssign": ("bitand_assign",), "BitOrAssign": ("bitor_assign",),
    "BitXorAssign": ("bitxor_assign",), "Fn": ("call",), "FnMut": ("call_mut",), "FnOnce": ("call_once",),
    "Error": ("source", "description", "cause"), "Future": ("poll",), "Stream": ("poll_next",),
    "AsyncRead": ("poll_read",), "AsyncWrite": ("poll_write", "poll_flush", "poll_shutdown"),
    "Wake": ("wake", "wake_by_ref"), "Termination": ("report",),
    "Serialize": ("serialize",), "Deserialize": ("deserialize",),
}


def impl_owner(qualified_name: str) -> str | None:
    """The type whose impl holds a method, from the method's qualified name (`ident::Ident::parse`
    -> `Ident`); None for a name without one."""
    parts = qualified_name.rsplit("::", 2)
    return parts[-2] if len(parts) == 3 or (len(parts) == 2 and parts[0]) else None
