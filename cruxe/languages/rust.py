"""Rust extraction: definitions, `use` imports and calls from one file.

Rules (the choices CONTRACTS leaves open):

- Kinds: `fn` -> function, or method inside an `impl` or `trait` body (trait signatures and
  provided methods alike); `struct` -> struct; `union` -> struct (CONTRACTS has no union kind
  and a union is a struct whose fields overlap); `enum`, `trait` -> enum, trait; `type` (also
  associated types) -> type_alias; `const` and immutable `static` -> constant; `static mut`
  -> variable; an enum's variants -> constant (`Steal::Retry`, with the enum's visibility; the
  signature is the variant as written); a named field of a struct, a union or an enum's struct
  variant -> variable (`Buffer::len`, `Event::Key::code`: under its type or variant, its
  declaration as signature, its own visibility, a variant's field the enum's; a tuple's `.0` is
  none); `mod x;` and `mod x { }` -> module; `macro_rules! name` -> function (callable
  role, so `locate_symbol name kind=function` finds it; the signature says `macro_rules!`).
  Items in `extern { }` blocks are functions / constants / type aliases like any other.
- Lines: `line_start` is the first outer attribute or outer doc comment (`///`, `/** */`) in
  front of the item, as syn counts them (doc comments are attributes); plain comments between
  them do not move it. `name_line` is the identifier's line.
- qualified_name: the module path from the file path, then the lexical path, joined by `::`.
  The file's module path is the part after the last `src/` directory (the whole path when
  there is none), without `.rs`; `lib.rs`/`main.rs` right under it are the crate root (no
  prefix) and `mod.rs` stands for its directory: `src/auth/jwt.rs` -> `auth::jwt`,
  `src/auth/mod.rs` -> `auth`. Items inside `impl Foo` / `impl Trait for Foo<T>` are named
  through the target's base name: `auth::jwt::Foo::method`. `impl` blocks themselves are not
  symbols; their items' parent is the target type when that type is defined in the same
  scope of the same file, otherwise the enclosing symbol.
- Signatures: the header up to the body; a struct (or union) with named fields adds them as
  `{ name: Type, .. }` without attributes, comments or visibility (a tuple struct's header
  holds its fields already): the types a resolver reads `self.field.f()` through.
- Visibility: `pub` -> public; `pub(crate)`, `pub(super)`, `pub(in path)`, `crate` ->
  internal; `pub(self)` and nothing -> private; a `macro_rules!` is public with `#[macro_export]`,
  else private. Trait items take the trait's visibility;
  items of `impl Trait for T` are public (they are reachable wherever the trait is).
- Docs: the outer doc comments in front of the item (`///`, `/** */`); an inline module also
  takes the inner ones (`//!`, `/*! */`) that open its body.
- Item-level macros: the `{ }` body of a macro called at file level or in a `mod`/`impl`/
  `trait`/`extern` body (`cfg_rt! { pub fn spawn() {} }`, `impl H { cfg_rt! { fn m() {} } }`) is
  parsed again as items, which are then symbols and references like any others, nested where
  they are written (`H::m`, a method), also in such macros inside those bodies. A `cfg_if!`
  body (`if #[cfg(unix)] { .. } else { .. }`, by its shape, whatever the macro's name) is parsed
  branch by branch, every branch (each cfg); `lazy_static!`'s `static ref X: T = ..;` parses as
  the grammar's `static` (a constant). What does not parse as items (an ERROR node: a macro's
  own language) adds no symbol, and its calls are read from the tokens as in any macro's
  arguments (an attribute's there, `#[cfg(all(..))]`, are no calls); nor does a bodyless
  `fn f();` outside a trait or `extern` block (a word of the macro's language).
- References: one import per `use` leaf (groups flattened, `self` in a group, renames as
  alias, globs as `path::*`) and per `extern crate`; calls of functions, methods (with the
  receiver's text), paths (`Foo::new` -> `new`, receiver `Foo`) and macros (`println!`),
  also calls written in a macro's arguments, read from its tokens (`write!(f, "{}", sep(x))`,
  turbofish ones too: `assert_eq!(x & low_bits::<T>(), 0)`), and of fields: a read or write
  (`self.len`, `b.inner.hits = 2`, not called) with the receiver's text as a method call has it,
  a struct literal's key or a struct pattern's field (`S { len: 1, g }`, `E::V { x }`) with the
  receiver `S{}`, each a `references` edge whose module slot is FIELD_READ (not those in a macro's
  tokens),
  where `fn name(` is a definition of the template, no call. A call on a local whose `let`
  says its type gets a receiver writing it (`_typed_locals`): `T{}` (`let x: &mut T`, `let x =
  T { .. }`), `Arc<T>{}` (`let x: Arc<T>`), `T::new()` (`let x = T::new(..)`), and one whose `let`
  holds a call's result the call's (`make()`, `a::make()`, `self.guard()`); a call on a field of
  such a local, that receiver and the fields (`GlobalData::ensure().data`). A top-level `mod` whose
  file a `#[path = "x.rs"]` attribute names is an import of that file's module under its name.
"""
from __future__ import annotations

import posixpath
import re
from bisect import bisect_right
from functools import lru_cache

import tree_sitter as ts

from ..model import FileExtract, Kind, Symbol
from ._common import (MAX_SIGNATURE_CHARS, BudgetExceeded, Candidate, Captures, PendingRef, attach_enclosing,
                      block_doc, by_reader, cap, collapse, end_line, error_count, matches, nest, owner_of, parse,
                      parse_ranges, path_after_src, query, query_text, short_receiver, spans, start_line, text)

LANG = "rust"

# Definitions and references, one query pass; the capture names are those queries/rust.scm lists.
_QUERY = query_text(LANG)

# The reader of each capture name (see _common.by_reader).
_READERS = {"def": "definitions", "use": "refs", "crate": "refs", "cname": "refs", "crecv": "refs",
            "fvalue": "fields", "fread": "fields", "stype": "fields", "skey": "fields",
            "mcall": "macro_args", "mattr": "macro_args", "tref": "types", "tdecl": "declared",
            "tparam": "declared", "tpath": "paths", "tscoped": "paths", "imacro": "item_macros"}

_KINDS = {
    "function_item": Kind.FUNCTION, "function_signature_item": Kind.FUNCTION,
    "struct_item": Kind.STRUCT, "union_item": Kind.STRUCT, "enum_item": Kind.ENUM,
    "trait_item": Kind.TRAIT, "type_item": Kind.TYPE_ALIAS, "associated_type": Kind.TYPE_ALIAS,
    "const_item": Kind.CONSTANT, "static_item": Kind.CONSTANT, "mod_item": Kind.MODULE,
    "macro_definition": Kind.FUNCTION, "enum_variant": Kind.CONSTANT, "field_declaration": Kind.VARIABLE,
}
_TYPE_KINDS = frozenset({Kind.STRUCT.value, Kind.ENUM.value, Kind.TRAIT.value, Kind.TYPE_ALIAS.value})
# Node types whose text up to (not including) this field is the declaration header.
_HEADER_END_FIELD = {
    "function_item": "body", "struct_item": "body", "union_item": "body", "enum_item": "body",
    "trait_item": "body", "mod_item": "body", "const_item": "value", "static_item": "value",
}
_BODY_TYPES = frozenset({"field_declaration_list", "declaration_list", "block", "enum_variant_list"})
_IMPL = "impl"  # pseudo kind: an impl block is a scope for nesting, never a symbol


def extract(source: bytes, path: str) -> FileExtract:
    tree = parse(LANG, source)
    out = FileExtract(path, LANG, parse_errors=error_count(tree))
    cands, refs, macros = _read(tree.root_node, source)
    if b"macro_rules!" in source:
        cands += _macro_row_definitions(tree.root_node, source)
    more_cands, more_refs, covered = _macro_items(macros, source, 1, [MAX_MACRO_BODIES])
    cands, parents = nest(cands + more_cands)
    index = _build_symbols(cands, parents, module_path(path), out.symbols)
    owners = owner_of(cands, parents, index)
    refs = _outside(refs, covered) + more_refs + _path_modules(tree.root_node, source, path)
    out.references = attach_enclosing(refs, spans(cands), owners)
    return out


_PATH_ATTRIBUTE = re.compile(r'#\[\s*path\s*=\s*"([^"\\]+\.rs)"\s*\]')


def _path_modules(root: ts.Node, source: bytes, path: str) -> list[PendingRef]:
    """`#[path = "runtime.rs"] pub mod __private;` at a file's top level: an import of the
    module that file is (`crate::runtime`) under the `mod`'s name, so that paths through the
    name reach its items (the file's items are named by where the file is). The attribute is
    relative to the declaring file's directory; a file outside the crate's `src/` is left out."""
    out: list[PendingRef] = []
    crate_src = path[:len(path) - len("/".join(path_after_src(path)[0]))]
    for node in root.named_children:
        if node.type != "mod_item" or node.child_by_field_name("body") is not None:
            continue
        attr, prev = None, node.prev_named_sibling
        while prev is not None and prev.type in ("attribute_item", "line_comment") and attr is None:
            attr = _PATH_ATTRIBUTE.fullmatch(text(prev, source).strip()) if prev.type == "attribute_item" else None
            prev = prev.prev_named_sibling
        name = node.child_by_field_name("name")
        target = posixpath.normpath(posixpath.join(posixpath.dirname(path), attr.group(1))) if attr else ""
        if name is None or not target or not path_after_src(path)[1] or not target.startswith(crate_src):
            continue
        module = module_path(target)
        if module and "." not in module:
            out.append((node.start_byte, "imports", f"crate::{module}", start_line(node), "crate",
                        text(name, source), ""))
    return out


def _read(root: ts.Node, source: bytes) -> tuple[list[Candidate], list[PendingRef], list[ts.Node]]:
    """One query pass over a tree: its definitions, its references and its item-level macros."""
    groups = by_reader(matches(query(LANG, _QUERY), root), _READERS)
    cands = [c for c in (_candidate(caps["def"][0], source) for caps in groups["definitions"]) if c is not None]
    refs = _references(groups["refs"], source)
    refs = (refs + _field_reads(groups["fields"], refs, source) + _macro_calls(groups["macro_args"], source)
            + type_references(groups, source))
    params = {source[c["tparam"][0].start_byte:c["tparam"][0].end_byte] for c in groups["declared"] if "tparam" in c}
    refs = _bounded_receivers(root, _typed_locals(root, refs, cands, params, source), params, source)
    return cands, refs, [caps["imacro"][0] for caps in groups["item_macros"]]


# the items whose `<..>` and `where` declare the generic parameters a body sees
_GENERIC_SCOPES = frozenset({"function_item", "impl_item", "trait_item"})


def _bounded_receivers(root: ts.Node, refs: list[PendingRef], params: set[bytes], source: bytes) -> list[PendingRef]:
    """A call on a generic type parameter (`S::from_usize(0)` inside `impl<S: StateID>`,
    `T::read_u16(&b)` in `fn f<T: ByteOrder>`), or a method call on a function parameter of
    that type (`id.to_usize()` with `id: S`), gets the receiver `<S as StateID>`, as the
    qualified form `<S as StateID>::from_usize(0)` writes it: the bounds the parameter's
    declaration and the `where` clauses of the items around the call give it (`<T as A + B>`
    for several). A parameter without a trait bound, or a name no item around declares,
    keeps its receiver."""
    if not params:
        return refs
    names = {p.decode("utf-8", "replace") for p in params}
    out = []
    for p in refs:
        recv = p[6]
        if p[1] != "calls" or not recv.isidentifier():
            out.append(p)
            continue
        node = root.descendant_for_byte_range(p[0], p[0])
        if recv in names:
            generic = recv
        elif node is not None and source[max(0, p[0] - 64):p[0]].rstrip().endswith(b"."):
            generic = _generic_parameter_type(node, recv, names, source)  # `id.to_usize()` with `id: S`
        else:
            generic = ""
        bounds = _parameter_bounds(node, generic, source) if generic and node is not None else ""
        out.append((*p[:6], f"<{generic} as {bounds}>") if bounds else p)
    return out


def _generic_parameter_type(node: ts.Node, name: str, generics: set[str], source: bytes) -> str:
    """The generic type parameter the innermost function around `node` declares its parameter
    `name` as (`id: S`, `id: &mut S`); "" for any other parameter or none of that name."""
    fn = node.parent
    while fn is not None and fn.type not in ("function_item", "closure_expression"):
        fn = fn.parent
    params = fn.child_by_field_name("parameters") if fn is not None and fn.type == "function_item" else None
    for param in params.named_children if params is not None else ():
        pattern, declared = param.child_by_field_name("pattern"), param.child_by_field_name("type")
        if pattern is None or declared is None or text(pattern, source).removeprefix("mut ").strip() != name:
            continue
        while declared.type == "reference_type" and declared.child_by_field_name("type") is not None:
            declared = declared.child_by_field_name("type")
        written = text(declared, source)
        return written if declared.type == "type_identifier" and written in generics else ""
    return ""


def _parameter_bounds(node: ts.Node, name: str, source: bytes) -> str:
    """The trait bounds (`A + B`) that the items enclosing `node` put on the generic type
    parameter `name`, up to the innermost item declaring it; "" when none declares it."""
    bounds: list[str] = []
    scope = node.parent
    while scope is not None:
        if scope.type in _GENERIC_SCOPES:
            declared = False
            for child in scope.children:
                if child.type == "type_parameters":
                    for tp in child.named_children:
                        if tp.type == "type_parameter" and text(tp.child_by_field_name("name"), source) == name:
                            declared = True
                            bounds += _bound_items(tp.child_by_field_name("bounds"), source)
                elif child.type == "where_clause":
                    for pred in child.named_children:
                        if pred.type == "where_predicate" and text(pred.child_by_field_name("left"), source) == name:
                            bounds += _bound_items(pred.child_by_field_name("bounds"), source)
            if declared:
                return " + ".join(bounds)
        scope = scope.parent
    return ""


def _bound_items(bounds: ts.Node | None, source: bytes) -> list[str]:
    """The traits of a `: A + ?Sized + 'a` bound list, as written (lifetimes and `?Sized` left out)."""
    if bounds is None:
        return []
    return [text(b, source) for b in bounds.named_children
            if b.type not in ("lifetime", "removed_trait_bound", "comment")]


def module_path(path: str) -> str:
    """`src/auth/jwt.rs` -> `auth::jwt`; `src/lib.rs` -> ``; `src/auth/mod.rs` -> `auth`."""
    parts, under_src = path_after_src(path)
    at_root = under_src and len(parts) == 1
    if not parts:
        return ""
    stem = parts[-1][:-3] if parts[-1].endswith(".rs") else parts[-1]
    if stem == "mod" or (at_root and stem in ("lib", "main")):
        parts = parts[:-1]
    else:
        parts[-1] = stem
    return "::".join(parts)


# ---- definitions ------------------------------------------------------------------------

def _candidate(node: ts.Node, source: bytes) -> Candidate | None:
    if node.type == "impl_item":
        target = node.child_by_field_name("type")
        return Candidate(node, _type_base_name(target, source), _IMPL,
                         extra={"trait_impl": node.child_by_field_name("trait") is not None})
    name_node = node.child_by_field_name("name")
    if name_node is None:
        return None
    kind = _KINDS[node.type]
    container = _container(node)
    if node.type in ("function_item", "function_signature_item") and container in ("impl_item", "trait_item"):
        kind = Kind.METHOD
    elif node.type == "static_item" and any(c.type == "mutable_specifier" for c in node.children):
        kind = Kind.VARIABLE
    start, doc = _leading_attributes(node, source)
    if node.type == "mod_item":
        doc = "\n".join(d for d in (doc, _inner_doc(node.child_by_field_name("body"), source)) if d)
    return Candidate(
        node, text(name_node, source), kind.value,
        signature=_signature(node, source),
        visibility=_visibility(_variant_enum(node) or _field_variant_enum(node) or node, source),
        doc=doc,
        name_line=start_line(name_node),
        extra={"start": start, "container": container},
    )


# ---- names a file's own macro defines, one row of its invocation each ---------------------------
# `macro_rules! status_codes { ($( ($num:expr, $konst:ident, $phrase:expr); )+) => { impl StatusCode
# { $( pub const $konst: StatusCode = ..; )+ } } }` and `status_codes! { (404, NOT_FOUND, "Not
# Found"); .. }` in the same file: each row's `NOT_FOUND` is a constant `StatusCode::NOT_FOUND`,
# at the row. Read only for the shape a tuple of fragments makes (the matcher's `( $a:x, $k:ident,
# .. )`, the transcriber's `const $k` / `fn $k` / `struct $k` .., optionally in one `impl Type {`):
# each row (a `( .. )` of the invocation's body) with as many comma-separated items whose item at
# `$k`'s place is one identifier.
_DEFINING_WORDS = {"const": Kind.CONSTANT, "static": Kind.CONSTANT, "fn": Kind.FUNCTION, "struct": Kind.STRUCT,
                   "enum": Kind.ENUM, "trait": Kind.TRAIT, "type": Kind.TYPE_ALIAS}


def _macro_row_definitions(root: ts.Node, source: bytes) -> list[Candidate]:
    shapes: dict[str, list[tuple[int, int, str, str]]] = {}  # macro -> (items, place, kind, impl type)
    for mac in (n for n in root.children if n.type == "macro_definition"):
        name = mac.child_by_field_name("name")
        for rule in (c for c in mac.named_children if c.type == "macro_rule"):
            left, right = rule.child_by_field_name("left"), rule.child_by_field_name("right")
            if name is not None and left is not None and right is not None:
                shapes.setdefault(text(name, source), []).extend(_row_shapes(left, right, source))
    out = []
    for call in _descendants(root, "macro_invocation") if shapes else ():
        macro = call.child_by_field_name("macro")
        body = next((c for c in call.named_children if c.type == "token_tree"), None)
        for items, place, kind, owner in shapes.get(text(macro, source) if macro is not None else "", ()):
            if owner and body is not None:  # the rows' scope: as `impl StatusCode { .. }` written there
                out.append(Candidate(body, owner, _IMPL, extra={"trait_impl": False}))
            for row in (c for c in body.children if c.type == "token_tree") if body is not None else ():
                named = _row_items(row)
                if len(named) != items or len(named[place]) != 1 or named[place][0].type != "identifier":
                    continue
                start, doc = _leading_attributes(row, source)
                ident = named[place][0]
                out.append(Candidate(row, text(ident, source), kind.value, signature=text(row, source),
                                     visibility="public", doc=doc, name_line=start_line(ident),
                                     extra={"start": start, "container": ""}))
    return out


def _row_shapes(left: ts.Node, right: ts.Node, source: bytes) -> list[tuple[int, int, str, Kind]]:
    """(items, place of the name, kind, impl type) for each `$k:ident` of a matcher's tuple of
    fragments (`($num:expr, $konst:ident)`, not the matcher itself) that the transcriber
    defines (`const $k`, `fn $k`, ..)."""
    defined: dict[str, tuple[Kind, str]] = {}
    for var in _descendants(right, "metavariable"):
        word = var.prev_sibling
        if word is not None and word.type in _DEFINING_WORDS:
            defined.setdefault(text(var, source), (_DEFINING_WORDS[word.type], _impl_around(var, right, source)))
    shapes = []
    for group in _descendants(left, "token_tree_pattern") if defined else ():
        if group == left or group.child_count < 2 or group.children[0].type != "(":
            continue
        inner = group.children[1:-1]
        binds = [c for c in inner if c.type != ","]
        if not binds or len(inner) not in (2 * len(binds) - 1, 2 * len(binds)) or \
                any(c.type != "token_binding_pattern" for c in binds):
            continue
        for place, b in enumerate(binds):
            var, frag = b.child_by_field_name("name"), b.child_by_field_name("type")
            hit = defined.get(text(var, source)) if var is not None and frag is not None else None
            if hit is not None and text(frag, source) == "ident":
                shapes.append((len(binds), place, hit[0], hit[1]))
    return shapes


def _impl_around(node: ts.Node, top: ts.Node, source: bytes) -> str:
    """`T` of the `impl T { .. }` of a transcriber that holds `node`, else ""."""
    tree = node.parent
    while tree is not None and tree != top:
        name = tree.prev_sibling
        if tree.type == "token_tree" and name is not None and name.type == "identifier" and \
                name.prev_sibling is not None and name.prev_sibling.type == "impl":
            return text(name, source)
        tree = tree.parent
    return ""


def _row_items(row: ts.Node) -> list[list[ts.Node]]:
    """A `( .. )` token tree's comma-separated items, each as its tokens; [] for another tree."""
    if row.child_count < 2 or row.children[0].type != "(":
        return []
    items: list[list[ts.Node]] = [[]]
    for c in row.children[1:-1]:
        if c.type == ",":
            items.append([])
        elif c.type not in ("line_comment", "block_comment"):
            items[-1].append(c)
    return items[:-1] if not items[-1] and len(items) > 1 else items


def _descendants(node: ts.Node, kind: str) -> list[ts.Node]:
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        if n.type == kind:
            out.append(n)
        stack.extend(reversed(n.children))
    return out


def _variant_enum(node: ts.Node) -> ts.Node | None:
    """The `enum` item of an enum variant (whose visibility the variant has), else None."""
    if node.type != "enum_variant" or node.parent is None:
        return None
    return node.parent.parent


def _field_variant_enum(node: ts.Node) -> ts.Node | None:
    """The `enum` item of a field of an enum's struct variant (whose visibility the field has), else None."""
    if node.type != "field_declaration" or node.parent is None or node.parent.parent is None:
        return None
    return _variant_enum(node.parent.parent)


def _container(node: ts.Node) -> str:
    """Type of the item that owns the declaration list this node sits in ('' at file level)."""
    parent = node.parent
    if parent is not None and parent.type == "declaration_list" and parent.parent is not None:
        return parent.parent.type
    return ""


def _type_base_name(node: ts.Node | None, source: bytes) -> str:
    """`&mut a::B<T>` -> `B`; `dyn Tr + Send` -> `Tr`; `[u8]` -> `[u8]` (no base name)."""
    while node is not None:
        t = node.type
        if t in ("type_identifier", "primitive_type", "identifier"):
            return text(node, source)
        if t == "scoped_type_identifier":
            node = node.child_by_field_name("name")
        elif t in ("generic_type", "reference_type", "pointer_type"):
            node = node.child_by_field_name("type")
        elif t == "dynamic_type":
            node = node.child_by_field_name("trait")
        elif t == "bounded_type":
            node = node.named_children[0] if node.named_children else None
        else:
            return collapse(text(node, source))
    return "?"


def _leading_attributes(node: ts.Node, source: bytes) -> tuple[int, str]:
    """Line of the first outer attribute / doc comment in front of `node` (the node's own
    line if none), and the doc comment text.

    Walks previous siblings only (attributes are siblings of the item in this grammar),
    skipping plain comments, stopping at anything else.
    """
    start = node.start_point[0] + 1
    docs: list[str] = []
    sib = node.prev_sibling
    while sib is not None:
        t = sib.type
        if t == "attribute_item":
            start = sib.start_point[0] + 1
        elif t == "line_comment" or t == "block_comment":
            doc = _outer_doc(source[sib.start_byte:sib.end_byte])
            if doc is not None:
                start = sib.start_point[0] + 1
                docs.append(doc)
        else:
            break
        sib = sib.prev_sibling
    docs.reverse()
    return start, "\n".join(d for d in docs if d)


def _inner_doc(body: ts.Node | None, source: bytes) -> str:
    """`//!` / `/*! */` comments opening an inline module's body document the module."""
    docs: list[str] = []
    for child in body.named_children if body is not None else ():
        if child.type not in ("line_comment", "block_comment"):
            break
        raw = source[child.start_byte:child.end_byte]
        if raw.startswith(b"//!"):
            docs.append(raw[3:].decode("utf-8", "replace").strip())
        elif raw.startswith(b"/*!"):
            docs.append(block_doc(raw[3:-2].decode("utf-8", "replace")))
    return "\n".join(d for d in docs if d)


def _outer_doc(comment: bytes) -> str | None:
    """Text of an outer doc comment (`/// x`, `/** x */`); None for any other comment
    (`//`, `////`, `//!`, `/* */`, `/***/`), as rustc tells them apart."""
    if comment.startswith(b"///") and not comment.startswith(b"////"):
        return comment[3:].decode("utf-8", "replace").strip()
    if comment.startswith(b"/**") and not comment.startswith((b"/***", b"/**/")):
        return block_doc(comment[3:-2].decode("utf-8", "replace"))
    return None


def _signature(node: ts.Node, source: bytes) -> str:
    if node.type == "macro_definition":
        return "macro_rules! " + text(node.child_by_field_name("name"), source)
    end = node.end_byte
    field = _HEADER_END_FIELD.get(node.type)
    if field is not None:
        stop = node.child_by_field_name(field)
        if stop is not None and (field == "value" or stop.type in _BODY_TYPES):
            end = stop.start_byte
    sig = collapse(source[node.start_byte:end].decode("utf-8", "replace")).rstrip(";=, ").rstrip()
    if field == "body" and stop is not None and stop.type == "field_declaration_list":
        sig += _named_fields(stop, source)
    return cap(sig, MAX_SIGNATURE_CHARS)


def _named_fields(body: ts.Node, source: bytes) -> str:
    """` { a: A, b: Vec<B> }`: a named struct's fields as its signature shows them (a tuple
    struct's header already holds its fields), the types a resolver reads `self.a.f()`
    through; visibility, attributes and comments left out."""
    fields = []
    for child in body.named_children:
        if child.type == "field_declaration":
            name, typ = child.child_by_field_name("name"), child.child_by_field_name("type")
            if name is not None and typ is not None:
                fields.append(f"{text(name, source)}: {collapse(text(typ, source))}")
    return " { " + ", ".join(fields) + " }" if fields else ""


def _visibility(node: ts.Node, source: bytes) -> str:
    if node.type == "macro_definition":
        return "public" if _exported(node, source) else "private"
    for child in node.children:
        if child.type == "visibility_modifier":
            vis = collapse(text(child, source))
            if vis == "pub":
                return "public"
            return "private" if vis.replace(" ", "") == "pub(self)" else "internal"
        if child.is_named and child.type not in ("function_modifiers", "attribute_item"):
            break  # visibility comes first; a name or type means there is none
    return "private"


def _exported(node: ts.Node, source: bytes) -> bool:
    """A `macro_rules!` with `#[macro_export]` among the attributes in front of it."""
    sib = node.prev_sibling
    while sib is not None and sib.type in ("attribute_item", "line_comment", "block_comment"):
        if sib.type == "attribute_item" and _MACRO_EXPORT.match(text(sib, source)):
            return True
        sib = sib.prev_sibling
    return False


_MACRO_EXPORT = re.compile(r"#\[\s*macro_export\b")


def _build_symbols(cands: list[Candidate], parents: list[int | None], modpath: str,
                   symbols: list[Symbol]) -> list[int | None]:
    """Fill `symbols` from nested candidates; return candidate index -> symbol index.

    Impl pseudo-candidates contribute their target to qualified names and are dropped.
    """
    qnames: list[str] = []
    real_parent: list[int | None] = []  # nearest non-impl ancestor (candidate index)
    index: list[int | None] = []
    types_by_qname: dict[str, int] = {}
    for i, c in enumerate(cands):
        p = parents[i]
        base = qnames[p] if p is not None else modpath
        qnames.append(f"{base}::{c.name}" if base else c.name)
        rp = p if p is None or cands[p].kind != _IMPL else real_parent[p]
        real_parent.append(rp)
        if c.kind == _IMPL:
            index.append(None)
            continue
        parent_sym = index[rp] if rp is not None else None
        vis = c.visibility
        if p is not None and cands[p].kind == _IMPL:
            # Link impl items to their type when it is defined in the same file and scope.
            parent_sym = types_by_qname.get(qnames[p], parent_sym)
            if cands[p].extra["trait_impl"]:
                vis = "public"
        elif p is not None and cands[p].kind == Kind.TRAIT.value:
            vis = cands[p].visibility
        index.append(len(symbols))
        if c.kind in _TYPE_KINDS:
            types_by_qname.setdefault(qnames[i], len(symbols))
        symbols.append(Symbol(
            name=c.name, qualified_name=qnames[i], kind=c.kind,
            line_start=c.extra["start"], line_end=end_line(c.node),
            signature=c.signature, visibility=vis, parent=parent_sym, doc=c.doc,
            name_line=c.name_line, byte_start=c.node.start_byte, byte_end=c.node.end_byte,
        ))
    return index


# ---- items written in an item-level macro's body ---------------------------------------------
# `cfg_rt! { pub fn spawn(..) {..} }` at file level or in a `mod`/`impl`/`trait` body: the grammar
# leaves the body as tokens. It is parsed again, alone, as items: the included ranges are the
# enclosing containers' headers up to their `{`, the body's inside and the containers' closing
# `}`s, so every node keeps its place in the file and the items nest as written (a `fn` in an
# `impl`'s macro is a method). A `cfg_if!` body is no items, but each branch's block is parsed
# so, as a body of its own. Only what parses as items is read: items inside an ERROR node (a
# body in a macro's own language) add nothing, and there the tokens are read as before.

# Macros inside macros' bodies are read this many levels deep, and at most this many bodies of
# one file are parsed again: bounds on the extra parses (a file of 100,000 `m!{..}` lines is
# generated; real code stays far below, docs/BENCHMARKS.md).
MAX_MACRO_DEPTH = 4
MAX_MACRO_BODIES = 2000
# A body without one of these words holds no item, nor a macro call: not worth a parse
# (`DEFINE_GUID! { .. }` tables, `m! { a => b }`).
_ITEM_WORD = re.compile(rb"\b(?:fn|struct|enum|union|trait|type|mod|const|static|impl|use|extern)\b|!")
# Nodes of a body that are read from the new tree: items, their attributes, and macro calls.
_ITEM_NODES = frozenset(_KINDS) | {"impl_item", "use_declaration", "extern_crate_declaration", "foreign_mod_item",
                                   "macro_invocation", "attribute_item", "inner_attribute_item"}


def _macro_items(macros: list[ts.Node], source: bytes, depth: int,
                 left: list[int]) -> tuple[list[Candidate], list[PendingRef], list[tuple[int, int]]]:
    """Definitions and references of the items in these macros' brace bodies, and the byte spans
    of those items (sorted): there the tokens of the outer tree are no longer read. `left[0]`
    is how many more bodies this file may parse (counted down)."""
    cands: list[Candidate] = []
    refs: list[PendingRef] = []
    covered: list[tuple[int, int]] = []
    if depth > MAX_MACRO_DEPTH:
        return cands, refs, covered
    for macro in macros:
        for body, ranges in _bodies(macro, source):
            if left[0] <= 0:
                break
            if not _ITEM_WORD.search(source, body[0], body[1]):
                continue
            left[0] -= 1
            tree = parse_ranges(LANG, source, ranges)
            kept = _body_items(tree.root_node, body)
            if not kept:
                continue
            try:
                c, r, inner = _read(tree.root_node, source)
            except BudgetExceeded:  # a body the query cannot afford: its tokens are read as before
                continue
            inner_cands, inner_refs, inner_covered = _macro_items(_inside(inner, kept), source, depth + 1, left)
            cands += [x for x in _inside(c, kept) if _declares(x)] + inner_cands
            refs += _outside(_inside(r, kept), inner_covered) + inner_refs
            covered += kept
    covered.sort()
    return cands, refs, covered


Range = tuple[int, int, ts.Point, ts.Point]


def _bodies(macro: ts.Node, source: bytes) -> list[tuple[Range, list[Range]]]:
    """The `{ }` blocks of a macro to parse as items: each as (its range inside the braces, the
    ranges to parse it with: the containers' headers, the block's inside, their closers). A
    macro's body is one block, a `cfg_if!` body holds one per branch; none when the body is no
    brace group or a container is not closed by `}`."""
    body = macro.children[-1] if macro.children else None
    if body is None or body.type != "token_tree" or not _braced(body, source):
        return []
    heads: list[Range] = []
    tails: list[Range] = []
    node = macro.parent
    while node is not None and node.type == "declaration_list" and node.parent is not None:
        if source[node.end_byte - 1:node.end_byte] != b"}":
            return []  # recovered from a missing `}`
        owner = node.parent
        heads.append((owner.start_byte, node.start_byte + 1, owner.start_point, _moved(node.start_point, 1)))
        tails.append((node.end_byte - 1, node.end_byte, _moved(node.end_point, -1), node.end_point))
        node = owner.parent
    insides = [_inside_braces(b) for b in _blocks(body, source)]
    return [(inside, heads[::-1] + [inside] + tails) for inside in insides]


def _braced(node: ts.Node, source: bytes) -> bool:
    return source[node.start_byte:node.start_byte + 1] == b"{" and source[node.end_byte - 1:node.end_byte] == b"}"


def _blocks(body: ts.Node, source: bytes) -> list[ts.Node]:
    """A `cfg_if!` body (`if #[cfg(a)] { .. } else if #[cfg(b)] { .. } else { .. }`, whatever
    the macro is called) is no items, but each branch's block holds items, all of them code an
    agent may ask about (every cfg): its blocks are the branches'. Any other body is one block."""
    inner = [ch for ch in body.children[1:-1] if ch.type not in ("line_comment", "block_comment")]
    if len(inner) < 2 or inner[0].type != "if" or inner[1].type != "#":
        return [body]
    return [ch for ch in inner if ch.type == "token_tree" and _braced(ch, source)]


def _inside_braces(block: ts.Node) -> Range:
    return (block.start_byte + 1, block.end_byte - 1, _moved(block.start_point, 1), _moved(block.end_point, -1))


def _moved(point: ts.Point, columns: int) -> ts.Point:
    return ts.Point(point[0], point[1] + columns)


def _body_items(root: ts.Node, body: tuple) -> list[tuple[int, int]]:
    """Byte spans of the items the new tree holds in the body (`body` is its range): the
    children of the innermost container, walked down from the root through the headers."""
    start, end = body[0], body[1]
    node = root
    while True:
        inner = next((ch for ch in node.children if ch.start_byte < start and end < ch.end_byte), None)
        if inner is None:
            break
        if inner.type != "declaration_list":
            inner = inner.child_by_field_name("body")
            if inner is None or inner.type != "declaration_list" or not inner.start_byte < start:
                return []  # the headers did not parse as containers
        node = inner
    return [(ch.start_byte, ch.end_byte) for ch in node.children
            if start <= ch.start_byte and ch.end_byte <= end and _is_item(ch)]


def _declares(cand: Candidate) -> bool:
    """Whether a candidate read from a macro body is a definition: a `fn name(..);` without a
    body declares something only in a trait or an `extern` block; elsewhere it is a word of the
    macro's own language (`ast_fragments! { .. fn visit_param(); .. }`)."""
    return (cand.node.type != "function_signature_item"
            or cand.extra.get("container") in ("trait_item", "foreign_mod_item"))


def _is_item(node: ts.Node) -> bool:
    if node.type == "expression_statement":  # `m!(..);`: at item level only a macro call is a statement
        return node.named_child_count == 1 and node.named_children[0].type == "macro_invocation"
    return node.type in _ITEM_NODES


def _inside(items: list, spans_: list[tuple[int, int]], keep: bool = True) -> list:
    """The candidates, nodes or references (by their start byte) that lie in one of the sorted,
    disjoint spans; with `keep=False`, those that lie in none."""
    starts = [s for s, _ in spans_]
    out = []
    for item in items:
        pos = _start(item)
        i = bisect_right(starts, pos) - 1
        if (i >= 0 and pos < spans_[i][1]) == keep:
            out.append(item)
    return out


def _outside(refs: list[PendingRef], spans_: list[tuple[int, int]]) -> list[PendingRef]:
    return _inside(refs, spans_, keep=False) if spans_ else refs


def _start(item: Candidate | ts.Node | PendingRef) -> int:
    if isinstance(item, tuple):
        return item[0]
    return item.node.start_byte if isinstance(item, Candidate) else item.start_byte


# ---- references -------------------------------------------------------------------------

def _references(ref_caps: list[Captures], source: bytes) -> list[PendingRef]:
    refs: list[PendingRef] = []
    for caps in ref_caps:
        cname = caps.get("cname")
        if cname is not None:  # calls, the bulk: keep this path short
            node = cname[0]
            start = node.start_byte
            recv = caps.get("crecv")
            receiver = short_receiver(text(recv[0], source)) if recv else ""
            refs.append((start, "calls", source[start:node.end_byte].decode("utf-8", "replace"),
                         node.start_point[0] + 1, "", "", receiver))
        elif "use" in caps:
            refs.extend(_use_refs(caps["use"][0], source))
        else:  # extern crate
            node = caps["crate"][0]
            alias = node.parent.child_by_field_name("alias") if node.parent is not None else None
            name = text(node, source)
            refs.append((node.start_byte, "imports", name, start_line(node), name, text(alias, source), ""))
    return refs


# The module slot of a field read's `references` edge (no import has it): the resolver reads the
# receiver's type for the field, as it does for a method call's.
FIELD_READ = "."


def _field_reads(caps_list: list[Captures], refs: list[PendingRef], source: bytes) -> list[PendingRef]:
    """`references` edges for the fields read or written (`x.f`, `self.a.b = 1`), with the
    receiver's text as a method call has it, and for those a struct literal or pattern names
    (`S { len: 1, g }`, `S { len, .. }`), with the receiver `S{}` (a value of the type it names,
    as a typed local's); the name of a method call (`x.f()`, which the same pattern matches) is
    the call's. One per field, receiver and line."""
    called = {p[0] for p in refs if p[1] == "calls"}
    out: list[PendingRef] = []
    seen: set[tuple[bytes, str, int]] = set()
    for caps in caps_list:
        node = caps["fread"][0] if "fread" in caps else caps["skey"][0]
        start = node.start_byte
        if start in called:
            continue
        if "fread" in caps:
            recv = short_receiver(text(caps["fvalue"][0], source))
        else:
            recv = short_receiver(collapse(text(caps["stype"][0], source)).replace(" ", "")) + "{}"
        line = node.start_point[0] + 1
        word = source[start:node.end_byte]
        if (word, recv, line) not in seen:
            seen.add((word, recv, line))
            out.append((start, "references", word.decode("utf-8", "replace"), line, FIELD_READ, "", recv))
    return out


# What stands before a name called inside a macro's arguments: a path (`a::b::`, `$crate::`),
# a receiver chain (`self.x.`), or another expression's end (`).`: its text is not read).
_MACRO_PATH = re.compile(rb"((?:\$?[A-Za-z_]\w*::)+)$")
_MACRO_RECV = re.compile(rb"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\.$")
_MACRO_FN = re.compile(rb"\bfn\s+$")
_MACRO_LOOKBEHIND = 200  # bytes read before the name: a path or chain longer than this is cut


def _opens_call(source: bytes, at: int) -> bool:
    """Whether the tokens at `at` open a call's arguments: `(`, or a turbofish and then `(`
    (`::<T, Vec<u8>>(`)."""
    if source.startswith(b"(", at):
        return True
    if not source.startswith(b"::<", at):
        return False
    depth, i, end = 0, at + 2, min(len(source), at + _MACRO_LOOKBEHIND)
    while i < end:
        c = source[i:i + 1]
        if c == b"<":
            depth += 1
        elif c == b">" and source[i - 1:i] != b"-":
            depth -= 1
            if depth == 0:
                return source[i + 1:i + 2] == b"("
        elif c in b";{}":
            return False
        i += 1
    return False


def _macro_calls(caps_list: list[Captures], source: bytes) -> list[PendingRef]:
    """`calls` edges for `f(...)`, `a::f(...)` and `x.f(...)` written in a macro's arguments,
    which tree-sitter leaves as tokens; an attribute's arguments (`cfg(all(..))`) are no calls."""
    attrs = sorted((c["mattr"][0].start_byte, c["mattr"][0].end_byte) for c in caps_list if "mattr" in c)
    starts = [a for a, _ in attrs]
    out: list[PendingRef] = []
    taken: set[int] = set()  # a name the grammar's error recovery matched twice is one call
    for caps in caps_list:
        node = caps.get("mcall", (None,))[0]
        if node is None or node.start_byte in taken or not _opens_call(source, node.end_byte):
            continue
        i = bisect_right(starts, node.start_byte) - 1  # attributes do not nest: the one starting last
        if i >= 0 and node.start_byte < attrs[i][1]:
            continue
        start = node.start_byte
        before = source[max(0, start - _MACRO_LOOKBEHIND):start]
        if _MACRO_FN.search(before):
            continue  # `fn name(` in a template (`macro_rules!`) defines the name
        receiver = ""
        if before.endswith(b"::"):
            m = _MACRO_PATH.search(before)
            receiver = m.group(1)[:-2].decode("utf-8", "replace").replace("$crate", "crate") if m else ""
        elif before.endswith(b"."):
            m = _MACRO_RECV.search(before)
            receiver = m.group(1).decode("utf-8", "replace") if m else "(...)"
        taken.add(start)
        out.append((start, "calls", source[start:node.end_byte].decode("utf-8", "replace"),
                    node.start_point[0] + 1, "", "", receiver))
    return out


# Types the prelude and std bring everywhere: their uses are not references to the repository.
_STD_TYPES = frozenset(b"Self String Vec Option Result Box Rc Arc RefCell Cell HashMap HashSet BTreeMap BTreeSet "
                       b"VecDeque Cow PhantomData Mutex RwLock Duration Path PathBuf".split())


def type_references(groups: dict[str, list[Captures]], source: bytes) -> list[PendingRef]:
    """`references` edges for uses of named types (fields, signatures, `impl X`, `X { .. }`,
    `path::X`); declarations and generic parameters (file-wide) are not uses. Roles come
    from captures, never `node.parent` (quadratic on deep nesting). One per name and line."""
    declared = {nodes[0].start_byte for c in groups["declared"] for nodes in c.values()}
    params = {source[c["tparam"][0].start_byte:c["tparam"][0].end_byte] for c in groups["declared"] if "tparam" in c}
    paths = {c["tscoped"][0].start_byte: c["tpath"][0] for c in groups["paths"]}
    out: list[PendingRef] = []
    seen: set[tuple[bytes, str, int]] = set()
    for caps in groups["types"]:
        node = caps["tref"][0]
        start = node.start_byte
        if start in declared:
            continue
        word = source[start:node.end_byte]
        if word in _STD_TYPES or word in params or len(word) == 1:  # `T`: a generic parameter
            continue
        path = paths.get(start)
        recv = short_receiver(text(path, source)) if path is not None else ""
        line = node.start_point[0] + 1
        key = (word, recv, line)
        if key not in seen:
            seen.add(key)
            out.append((start, "references", word.decode("utf-8", "replace"), line, "", "", recv))
    return out


def _use_refs(arg: ts.Node, source: bytes) -> list[PendingRef]:
    """Flatten one `use` tree (groups, renames, globs, `self`) into one import per leaf."""
    out: list[PendingRef] = []
    stack: list[tuple[ts.Node, str]] = [(arg, "")]
    while stack:
        node, prefix = stack.pop()
        t = node.type
        if t == "scoped_use_list":
            path = node.child_by_field_name("path")
            lst = node.child_by_field_name("list")
            new_prefix = _join(prefix, text(path, source)) if path is not None else prefix
            if lst is not None:
                stack.extend((c, new_prefix) for c in reversed(lst.named_children))
        elif t == "use_list":
            stack.extend((c, prefix) for c in reversed(node.named_children))
        elif t == "use_as_clause":
            full = _join(prefix, text(node.child_by_field_name("path"), source))
            out.append(_import(full, node, text(node.child_by_field_name("alias"), source)))
        elif t == "use_wildcard":
            inner = node.named_children[0] if node.named_children else None
            base = collapse(_join(prefix, text(inner, source)) if inner is not None else prefix)
            out.append((node.start_byte, "imports", _join(base, "*"), start_line(node), base, "", ""))
        elif t == "self":
            out.append(_import(prefix, node))
        elif t in ("identifier", "scoped_identifier", "crate", "super", "metavariable"):
            out.append(_import(_join(prefix, text(node, source)), node))
    return out


def _import(full: str, node: ts.Node, alias: str = "") -> PendingRef:
    full = collapse(full)
    module = full.rsplit("::", 1)[0] if "::" in full else ""
    return (node.start_byte, "imports", full, start_line(node), module, alias, "")


def _join(prefix: str, tail: str) -> str:
    return f"{prefix}::{tail}" if prefix and tail else prefix or tail


# ---- locals typed by their declaration ----------------------------------------------------

# The `let`s of one name and the other places that bind a name (parameters, closures' ones,
# patterns): a call on a local takes the type the `let` it sees writes, unless another binding
# of the name comes between (read generously: any identifier a pattern holds).
_BINDINGS = """
(let_declaration pattern: (identifier) @lname) @let
(parameter pattern: (identifier) @bind)
(closure_parameters (identifier) @bind)
(tuple_pattern (identifier) @bind)
(tuple_struct_pattern (identifier) @bind)
(slice_pattern (identifier) @bind)
(match_pattern (identifier) @bind)
(let_condition pattern: (identifier) @bind)
(for_expression pattern: (identifier) @bind)
(ref_pattern (identifier) @bind)
(mut_pattern (identifier) @bind)
(captured_pattern (identifier) @bind)
(or_pattern (identifier) @bind)
(reference_pattern (identifier) @bind)
(field_pattern (shorthand_field_identifier) @bind)
(field_pattern pattern: (identifier) @bind)
"""
# the smart pointers a method call auto-derefs through (the resolver reads them the same way)
SMART_POINTERS = frozenset({"Box", "Rc", "Arc"})
# `let x:`, `let mut x = a::T::f(`, `let x = self.f(`, `let x = T {`: the shapes of a `let` that may say a type
_TYPED_LET = re.compile(rb"\blet\s+(?:mut\s+)?(\w+)\s*(?::(?!:)|=\s*(?:self\s*\.\s*)?[\w:]+\s*[({])")


@lru_cache(maxsize=1)
def _bindings_query() -> ts.Query:
    return query(LANG, _BINDINGS)
_TYPE_PATHS = frozenset({"type_identifier", "scoped_type_identifier"})


def _typed_locals(root: ts.Node, refs: list[PendingRef], cands: list[Candidate], params: set[bytes],
                  source: bytes) -> list[PendingRef]:
    """A call on a local (`fb.insert(i)`) whose `let` writes its type gets a receiver the
    resolver reads: `T{}` / `a::T{}` for `let x: T` (`&T`, `&mut T`; `Arc<T>{}` through a
    `Box`/`Rc`/`Arc`) and `let x = T { .. }`; `T::f()` / `a::T::f()` for `let x = T::f(..)`,
    `f()` / `self.f()` for `let x = f(..)` / `self.f(..)` (the resolver keeps it only when f's
    signature returns an exact type). The `let` a call sees
    is the latest one of the name whose block holds it, before it; another binding of the name
    in between (a pattern, a closure's or an inner fn's parameter), an untyped `let`, a
    generic parameter's name or an inner `fn` around the call leaves the call as written."""
    if b"let" not in source:
        return refs
    # only the names some `let` may type are looked up
    typed = {m.decode() for m in _TYPED_LET.findall(source)}
    wanted = {_local_head(p[6]) for p in refs if _on_value(p) and _local_head(p[6]) in typed}
    if not wanted:
        return refs
    lets: dict[str, list[tuple[int, int, int, str]]] = {}
    binds: dict[str, list[int]] = {}
    for _, caps in matches(_bindings_query(), root):
        node = caps.get("lname", caps.get("bind", (None,)))[0]
        name = text(node, source) if node is not None else ""
        if name not in wanted:
            continue
        let = caps.get("let", (None,))[0]
        block = let.parent if let is not None else None
        if block is not None:
            lets.setdefault(name, []).append((let.start_byte, let.end_byte, block.end_byte,
                                              _let_receiver(let, params, source)))
        elif let is None:
            binds.setdefault(name, []).append(node.start_byte)
    for found in (*lets.values(), *binds.values()):
        found.sort()
    fns = sorted((c.node.start_byte, c.node.end_byte) for c in cands if c.node.type == "function_item")
    out = []
    for p in refs:
        # `x.f()` only: `x::f()` carries the same receiver text, a path (a module `ptr` beside a local `ptr`)
        head = _local_head(p[6]) if _on_value(p) else ""
        method = head in lets and source[max(0, p[0] - 64):p[0]].rstrip().endswith(b".")
        recv = _seen_let(p[0], lets[head], binds.get(head, []), fns) if method else ""
        if recv and _macro_hides(root, p, source, head):
            recv = ""
        out.append((*p[:6], recv + p[6].replace(" ", "")[len(head):]) if recv else p)
    return out


def _on_value(p: PendingRef) -> bool:
    """A method call or a field read: a use whose receiver may be a typed local."""
    return p[1] == "calls" or p[4] == FIELD_READ


_FIELDS_TAIL = re.compile(r"(?:\.(?:\d+|[A-Za-z_]\w*))*")


def _local_head(receiver: str) -> str:
    """The local a call's receiver starts from: `x` for `x` and for a chain of its fields
    (`globals.data`, `self_.0`, also written over lines); "" for anything else (a call, an
    index, a path)."""
    head, dot, rest = receiver.replace(" ", "").partition(".")  # a chain over lines: `x .a`
    if not head.isidentifier() or head == "self" or (dot and not _FIELDS_TAIL.fullmatch(dot + rest)):
        return ""
    return head


def _seen_let(at: int, lets: list[tuple[int, int, int, str]], binds: list[int],
              fns: list[tuple[int, int]]) -> str:
    """The receiver the `let` a call at byte `at` sees writes ("" when none, or it writes no
    type). `lets`: (start, end, its block's end, receiver) sorted; `binds`: sorted starts."""
    i = bisect_right(lets, (at,)) - 1
    while i >= 0 and not lets[i][1] <= at < lets[i][2]:
        i -= 1  # the latest `let` before the call whose block holds it
    if i < 0 or not lets[i][3]:
        return ""
    _, end, block_end, recv = lets[i]
    j = bisect_right(binds, end - 1)
    if j < len(binds) and binds[j] < at:
        return ""  # another binding of the name in between
    if any(end <= s <= at < e <= block_end for s, e in fns):
        return ""  # an inner `fn` does not see the enclosing function's locals
    return recv


def _let_receiver(let: ts.Node, params: set[bytes], source: bytes) -> str:
    """What a `let` says its name's type is, as a receiver (`_typed_locals`); "" for anything else."""
    declared = let.child_by_field_name("type")
    if declared is not None:
        return _declared_receiver(declared, params, source)
    value = let.child_by_field_name("value")
    if value is None:
        return ""
    if value.type == "struct_expression":
        name = value.child_by_field_name("name")
        return f"{text(name, source)}{{}}" if name is not None and name.type in _TYPE_PATHS else ""
    if value.type == "call_expression":
        return _call_receiver(value.child_by_field_name("function"), params, source)
    return ""


def _call_receiver(fn: ts.Node | None, params: set[bytes], source: bytes) -> str:
    """The receiver for a local a `let` gives a call's result: `a::T::f()`, `make()`,
    `self.guard()` (the resolver reads the callee's return type); "" for a generic call
    (`f::<T>()`), a call of a generic parameter's function or of another value's method."""
    if fn is None or b"<" in source[fn.start_byte:fn.end_byte]:
        return ""
    if fn.type == "identifier":
        return f"{text(fn, source)}()"
    if fn.type == "field_expression":
        obj, field = fn.child_by_field_name("value"), fn.child_by_field_name("field")
        ok = obj is not None and obj.type == "self" and field is not None and field.type == "field_identifier"
        return f"self.{text(field, source)}()" if ok else ""
    path = fn.child_by_field_name("path") if fn.type == "scoped_identifier" else None
    if path is not None and path.type in ("identifier", "scoped_identifier", "crate", "self", "super"):
        return f"{text(fn, source)}()" if source[path.start_byte:path.end_byte].split(b"::")[0] not in params else ""
    return ""


def _declared_receiver(node: ts.Node, params: set[bytes], source: bytes) -> str:
    """`T{}` for a declared type `T`, `&mut a::T<U>` (`a::T{}`), `Arc<T>{}` for `Arc<T<U>>`;
    "" for a generic parameter, a primitive, a tuple, a slice, `dyn`/`impl` and the like."""
    while node.type == "reference_type":
        node = node.child_by_field_name("type")
    outer = ""
    if node.type == "generic_type":
        base = node.child_by_field_name("type")
        args = node.child_by_field_name("type_arguments")
        if base is not None and text(base, source) in SMART_POINTERS and args is not None and args.named_child_count == 1:
            outer, node = text(base, source), args.named_children[0]
            node = node.child_by_field_name("type") if node.type == "generic_type" else node
        else:
            node = base
    if node is None or node.type not in _TYPE_PATHS:
        return ""
    name = text(node, source)
    head = name.split("::")[0].encode()
    if head in params or (len(name) == 1 and name.isupper()):
        return ""
    return f"{outer}<{name}>{{}}" if outer else f"{name}{{}}"


def _macro_hides(root: ts.Node, ref: PendingRef, source: bytes, name: str) -> bool:
    """Whether a call read from a macro's tokens may see another binding of its receiver's
    name (`assert!(v.iter().all(|x| x.ok()))`: a closure's parameter, which no tree holds):
    any mention of the name in the macro's tokens before the call but as a receiver (`x.`)."""
    node = root.descendant_for_byte_range(ref[0], ref[0])
    outer = None
    while node is not None and node.type != "macro_invocation":
        if node.type == "token_tree":
            outer = node
        node = node.parent
    if outer is None:
        return False
    before = source[outer.start_byte:ref[0]]
    return re.search(rb"\b" + re.escape(name.encode()) + rb"\b(?!\s*\.)", before) is not None
