"""Go extraction: package-level declarations from one pass over the file's top level, calls
from one tree-sitter query.

What counts as a symbol (and why):
- functions (`function`) and methods (`method`, qualified `pkg.Type.Method` with the receiver
  type stripped of `*` and type parameters; no parent: Go methods are not lexically inside
  their type, as gopls' outline shows them too);
- named types: `struct`, `interface`, and `type_alias` for both `type A = B` and named types
  of any other underlying type (`type Duration int64`, `type HandlerFunc func(...)`): Go has
  no class or enum, and agents look these up like aliases; a struct's signature lists the
  types it embeds (`type Order struct { *Base; sync.Mutex }`): their methods are the
  struct's too (the resolver follows them), and an edit of them changes the signature, which
  is what tells an incremental resolution that the calls through them may resolve otherwise;
  an interface's signature lists the interfaces it embeds the same way (`type ReadWriter
  interface { Reader; Writer }`); after them a struct's signature lists its named fields
  (`type Server struct { *Base; conn net.Conn }`), which the resolver reads for a call on a
  field's value in another file, and whose edit so tells an incremental resolution too;
- interface method specs (`method`, parent the interface, qualified `pkg.Iface.Method`);
- each name of a struct's named fields (`variable`, parent the struct, qualified `pkg.T.field`,
  its signature the field's declaration line, tag included): an agent asks where a field is
  declared and who reads it; an embedded field is none (its name is its type's), nor is a
  field of an anonymous struct type (no named type owns it);
- package-level `const` / `var`: every name of a spec is its own symbol (`_` skipped),
  `line_start` = the name's line, `line_end` = the end of its spec.
Function-local declarations are not symbols (yet).
A call on a local or parameter whose innermost declaration in scope says its type gets a
receiver that writes it (`_typed_locals`): `T{}` for `x := &T{}`, `var x *T`, `x := new(T)`,
`func f(x *T)`; `f()` for `x, err := f(a)`, whose result type the resolver reads from f's
signature; `T{}.M()` for `x := y.M()` with such a local `y` (`y.M()` as written on the
method's own receiver), whose type is M's first result; `x := y` takes y's; a call on `y.M(..)`
gets `T{}.M()` the same way. A call on a field's value (`s.conn.Write(b)`, `s.conns[i].Write(b)`,
`x.opts.dialer.Dial()`), `s` being the method's receiver or such a local, gets the type the
field declares (a slice's or map's element when indexed), when the struct is one this file
declares (`_Fields`); a struct of another file on the way leaves the field chain to the
resolver (`Server{}.conn`, `T{}.conns[]`), which reads the struct's signature (its text when the
signature is cut), as it does a field
whose type is a named slice or map type (`type Matchers []Matcher`: its element is in that
declaration). A local given such a value (`e := s.engine`, `p := &s.other`), its method's result
(`root := engine.trees.get(m)`), or a range clause's value variable walking a field (`for _, m :=
range s.matchers`, an element: `s.matchers[]`) is typed the same way. A call on a name that its function does not declare
and no import binds (`CommandLine.Parse(args)`) is on a package-level name: a variable of this file
gets the receiver its declaration gives, as a typed local does (`FlagSet{}`, `NewFlagSet()`); any
other gets `CommandLine=`, whose type the resolver reads from the variable's declaration
(`_package_values`).
References: calls, uses of named types, uses of a selected name no call calls (`s.conn`, a write
`s.conn = c`, a method value `c.run`) and struct literal keys (`T{Field: v}`, receiver `T{}`), whose
receivers are typed as a call's are (`FIELD_USE` until then), and uses of a name as a value (`limit`, `RunE: run`,
`viper.SupportedExts`): an identifier that is not called, not a struct literal's key, and not
declared in the function it stands in (a parameter, a `:=`, a `var`, a range or type switch
variable: Go locals shadow package-level names, and the extractor sees no other file of the
package); a selector's operand that names an import gives a qualified use instead. Without
them a package-level constant or variable, or a function passed as a value, had no reference
at all: a confident zero.
Only top-level declarations are definitions in Go, so they are read by iterating the
file's direct children (no query, no deep walk); that also gives each one its doc comment
(the `//` block right above, blank line or trailing comment breaking it).
"""
from __future__ import annotations

import os
import re
from operator import attrgetter, itemgetter

import tree_sitter as ts

from ..model import FileExtract, Kind, Symbol
from ._common import (MAX_DOC_CHARS, MAX_SIGNATURE_CHARS, MAX_VALUE_SIGNATURE_CHARS, PendingRef, attach_enclosing,
                      cap, captures, closing_bracket, collapse, enclosing, end_line, error_count, first_line, matches, parse, query, query_text,
                      receiver_text, start_line, text)

LANG = "go"

# Calls and uses of named types, one query pass; the capture names are those queries/go.scm lists.
QUERY = query_text(LANG)
# Uses of names as values, one `captures` pass (queries/go_values.scm).
VALUES = query_text("go_values")


def extract(source: bytes, path: str) -> FileExtract:
    tree = parse(LANG, source)
    root = tree.root_node
    out = _Out(source)
    pending: list[PendingRef] = []
    for node, doc in with_docs(root.children, source):
        t = node.type
        if t == "package_clause":
            out.pkg = text(node.named_children[0], source) if node.named_child_count else ""
        elif t == "function_declaration":
            out.func(node, doc, None)
        elif t == "method_declaration":
            out.func(node, doc, receiver_type(node.child_by_field_name("receiver"), source))
        elif t == "type_declaration":
            out.types(node, doc)
        elif t in ("const_declaration", "var_declaration"):
            out.values(node, doc)
        elif t == "import_declaration":
            pending += _imports(node, source)
    types: list[ts.Node] = []
    declared: list[ts.Node] = []  # the names that type specs define
    packages: dict[int, ts.Node] = {}  # start byte of `T` in `pkg.T` -> `pkg`
    locals_: list[tuple[ts.Node, ts.Node, str]] = []  # (name, type or value or what a range walks, which)
    reads: list[tuple[ts.Node, ts.Node]] = []  # (the selected name, the operand) of each `x.f`
    keys: list[tuple[ts.Node, ts.Node]] = []  # (the key, the literal's type) of each `T{Field: v}`
    for _, caps in matches(query(LANG, QUERY), root):
        callee = caps.get("callee")
        if callee is not None:
            node = callee[0]
            start = node.start_byte
            recv = caps.get("recv")
            pending.append((start, "calls", source[start:node.end_byte].decode("utf-8", "replace"),
                            node.start_point[0] + 1, "", "", receiver_text(recv[0], source) if recv else ""))
        elif "tref" in caps:
            types.append(caps["tref"][0])
        elif "tdecl" in caps:
            declared.append(caps["tdecl"][0])
        elif "rfield" in caps:
            reads.append((caps["rfield"][0], caps["rop"][0]))
        elif "kfield" in caps:
            keys.append((caps["kfield"][0], caps["ktype"][0]))
        elif "lname" in caps:
            how = next(k for k in _LOCAL_FORMS if k in caps)
            locals_ += _declared_names(caps["lname"][0], caps[how][0], how)
        else:
            packages[caps["tqual"][0].start_byte] = caps["tpkg"][0]
    taken = {p[0] for p in pending}
    imported = {import_name(p[2], p[5]) for p in pending if p[1] == "imports"}
    pending += type_references(types, taken, {n.start_byte for n in declared}, packages, source)
    values = _Values(captures(query(LANG, VALUES), root))
    pending += values.references(taken, imported, out.ranges, source)
    pending += _field_uses(reads, keys, taken, imported, source)
    receivers = out.receivers()
    if locals_ or out.structs or receivers:  # a method's receiver: `s.conn.Write(b)`
        fields = _Fields(out.structs, receivers, source)
        pending = _typed_locals(pending, locals_, values.decls + declared, out.ranges, source, fields)
    pending = _package_values(pending, values.local, imported, out.ranges, out.var_receivers)
    pending = _call_chains(pending, values.local, imported, out.ranges)
    pending = [(*p[:1], "references", *p[2:]) if p[1] == FIELD_USE else p for p in pending]
    symbols = out.symbols(path)
    return FileExtract(path, LANG, symbols=symbols, references=attach_enclosing(pending, out.ranges),
                       parse_errors=error_count(tree))


def visibility(name: str) -> str:
    return "public" if name[:1].isupper() else "private"


# ---- doc comments -------------------------------------------------------------------------

def with_docs(children: list[ts.Node], source: bytes):
    """Yield (node, doc) for each non-comment node: doc is the comment group ending on the
    line right above it. A comment on the same line as the code before it is that code's
    trailing remark, and a blank line ends a group."""
    group: list[ts.Node] = []
    prev_end_row = -1
    for ch in children:
        if ch.type == "comment":
            row = ch.start_point[0]
            if row == prev_end_row and not group:
                pass  # trailing comment of the previous node
            elif group and row <= group[-1].end_point[0] + 1:
                group.append(ch)
            else:
                group = [ch]
            prev_end_row = ch.end_point[0]
            continue
        doc = ""
        if group and group[-1].end_point[0] + 1 == ch.start_point[0]:
            doc = comment_text(group, source)
        group = []
        prev_end_row = ch.end_point[0]
        yield ch, doc


def comment_text(group: list[ts.Node], source: bytes) -> str:
    lines = []
    for c in group:
        raw = text(c, source)
        if raw.startswith("//"):
            lines.append(raw[2:].strip())
        else:
            body = raw[2:-2] if raw.endswith("*/") else raw[2:]
            lines += [ln.strip().lstrip("*").strip() for ln in body.split("\n")]
    return "\n".join(lines).strip()[:MAX_DOC_CHARS]


# ---- declarations -------------------------------------------------------------------------

FUNCTION, METHOD, STRUCT, INTERFACE = (Kind.FUNCTION.value, Kind.METHOD.value,
                                       Kind.STRUCT.value, Kind.INTERFACE.value)
TYPE_ALIAS, CONSTANT, VARIABLE = Kind.TYPE_ALIAS.value, Kind.CONSTANT.value, Kind.VARIABLE.value
_TYPE_KINDS = {"struct_type": STRUCT, "interface_type": INTERFACE}


class _Out:
    """Symbols in source order, built straight from the top-level declarations: Go's only
    nesting (interface methods) is known where it is read, so no range nesting is needed."""

    def __init__(self, source: bytes) -> None:
        self.source = source
        self.pkg = ""
        # (name, scope or None, kind, line_start, line_end, signature, parent, doc, name_line)
        self.rows: list[tuple] = []
        self.ranges: list[tuple[int, int]] = []  # byte span per row, for enclosing()
        self.structs: dict[str, list[ts.Node]] = {}  # name -> the type specs declaring that struct
        self.var_receivers: dict[str, str] = {}  # package-level variable -> its type's receiver, or ""

    def add(self, node: ts.Node, name_node: ts.Node, kind: str, sig: str, doc: str,
            scope: str | None = None, parent: int | None = None, start: int = 0) -> bool:
        """Record a definition; False (nothing recorded) when its name is absent or empty: error
        recovery inserts a zero-width MISSING identifier into a mangled spec."""
        if name_node is None or name_node.start_byte == name_node.end_byte:
            return False
        name = text(name_node, self.source)
        name_line = name_node.start_point[0] + 1
        self.rows.append((name, scope, kind, start or node.start_point[0] + 1, end_line(node),
                          sig, parent, doc, name_line))
        self.ranges.append((node.start_byte, node.end_byte))
        return True

    def func(self, node: ts.Node, doc: str, receiver: str | None) -> None:
        body = node.child_by_field_name("body")
        head = self.source[node.start_byte:body.start_byte if body is not None else node.end_byte]
        self.add(node, node.child_by_field_name("name"), FUNCTION if receiver is None else METHOD,
                 cap(_one_line(head.decode("utf-8", "replace")), MAX_SIGNATURE_CHARS), doc, scope=receiver)

    def types(self, decl: ts.Node, doc: str) -> None:
        grouped = any(ch.type == "(" for ch in decl.children)
        for spec, spec_doc in with_docs(decl.named_children, self.source):
            if spec.type not in ("type_spec", "type_alias"):
                continue
            type_node = spec.child_by_field_name("type")
            kind = TYPE_ALIAS if spec.type == "type_alias" or type_node is None else _TYPE_KINDS.get(
                type_node.type, TYPE_ALIAS)
            if kind == TYPE_ALIAS:
                sig = "type " + first_line(spec, self.source, MAX_VALUE_SIGNATURE_CHARS)
            else:
                sig = cap(_type_signature(spec, type_node, kind, self.source), MAX_SIGNATURE_CHARS)
            name_node = spec.child_by_field_name("name")
            added = self.add(spec if grouped else decl, name_node, kind, sig, spec_doc or doc)
            if added and kind == INTERFACE:
                self.interface_methods(type_node, len(self.rows) - 1, text(name_node, self.source))
            elif kind == STRUCT and name_node is not None:
                self.structs.setdefault(text(name_node, self.source), []).append(spec)
                if added:
                    self.fields(type_node, len(self.rows) - 1, text(name_node, self.source))
            elif added and type_node is not None and type_node.type == "struct_type":  # `type E = struct { .. }`
                self.fields(type_node, len(self.rows) - 1, text(name_node, self.source))

    def fields(self, struct: ts.Node, parent: int, struct_name: str) -> None:
        """Each name of a struct's named fields (`A, B int`: two), a `variable` child of the
        struct qualified `pkg.T.A`, spanning its field declaration, its signature that
        declaration's first line as written (tag included), its doc the comment block right
        above it. An embedded field (`*Base`, `sync.Mutex`) is no new definition: its name is
        its type's, whose definition is the answer (the resolver promotes through it); nor are the
        fields of an anonymous struct type a field's type writes (`opts struct { a int }`): no
        named type owns them. An alias of a struct type (`type entry = struct { nlz, ntz int }`)
        has its fields too, children of the alias."""
        body = next((c for c in struct.named_children if c.type == "field_declaration_list"), None)
        for fd, doc in with_docs(body.named_children if body is not None else [], self.source):
            if fd.type != "field_declaration":
                continue
            names = fd.children_by_field_name("name")
            if not names:
                continue
            sig = first_line(fd, self.source, MAX_VALUE_SIGNATURE_CHARS)
            for name_node in names:
                if name_node.type == "field_identifier" and text(name_node, self.source) != "_":
                    self.add(fd, name_node, VARIABLE, sig, doc, scope=struct_name, parent=parent)

    def interface_methods(self, iface: ts.Node, parent: int, iface_name: str) -> None:
        for elem, doc in with_docs(iface.named_children, self.source):
            if elem.type == "method_elem":
                self.add(elem, elem.child_by_field_name("name"), METHOD,
                         _one_line(text(elem, self.source)), doc, scope=iface_name, parent=parent)

    def values(self, decl: ts.Node, doc: str) -> None:
        """One symbol per name of each const/var spec, grouped or not; each starts at its
        own name (a spec may list names on several lines) and ends with its spec."""
        kind, keyword = (CONSTANT, "const ") if decl.type == "const_declaration" else (VARIABLE, "var ")
        children = decl.named_children
        if children and children[0].type == "var_spec_list":
            children = children[0].named_children
        for spec, spec_doc in with_docs(children, self.source):
            if spec.type not in ("const_spec", "var_spec"):
                continue
            sig = keyword + first_line(spec, self.source, MAX_VALUE_SIGNATURE_CHARS)
            if kind == VARIABLE:
                self._typed_var(spec)
            for name_node in spec.children_by_field_name("name"):
                # the grammar puts the commas of `a, b = ...` in the name field too
                if name_node.type != "identifier" or (
                        name_node.end_byte - name_node.start_byte == 1 and self.source[name_node.start_byte] == 95):
                    continue  # not a name, or `_`
                self.add(spec, name_node, kind, sig, spec_doc or doc,
                         start=name_node.start_point[0] + 1)

    def _typed_var(self, spec: ts.Node) -> None:
        """The receiver a package-level variable's spec gives its names, when it says their type
        (`var d *pkg.T`, `var d = &T{}`, `new(T)`) or is one call of a name (`var d = New()`):
        `var_receivers`, read for the calls on it in this file (a name declared twice: none)."""
        names = [n for n in spec.children_by_field_name("name") if n.type == "identifier"]
        t, v = spec.child_by_field_name("type"), spec.child_by_field_name("value")
        if t is not None:
            recv = _type_receiver(t, self.source)
        elif v is not None and len(names) == 1 and v.named_child_count == 1:
            recv = _value_receiver(v.named_children[0], self.source)
        else:
            recv = ""
        for n in names:
            name = text(n, self.source)
            self.var_receivers[name] = recv if _TYPED_VALUE.fullmatch(recv) and name not in self.var_receivers else ""

    def receivers(self) -> dict[int, tuple[str, str]]:
        """Row index -> the receiver's name and type, of each method that names it."""
        out = {}
        for i, row in enumerate(self.rows):
            m = _RECEIVER_NAME.match(row[5]) if row[2] == METHOD and row[6] is None else None
            if m is not None:
                out[i] = (m.group(1), row[1])
        return out

    def symbols(self, path: str) -> list[Symbol]:
        # A file without a package clause (broken, or a fragment) is named after its directory.
        pkg = self.pkg or os.path.basename(os.path.dirname(path))
        out = []
        for (name, scope, kind, start, end, sig, parent, doc, name_line), span in zip(self.rows, self.ranges):
            prefix = f"{pkg}.{scope}" if scope and pkg else (scope or pkg)
            out.append(Symbol(name, f"{prefix}.{name}" if prefix else name, kind, start, end, sig,
                              visibility(name), parent, doc, name_line, *span))
        return out


_RECEIVER_NAME = re.compile(r"func\s*\(\s*(\w+)\s")
# the comma Go requires after the last parameter of a list that closes on a line of its own
_LAST_COMMA = re.compile(r",\s*\)")
_OPENING = re.compile(r"\(\s+")  # a list whose first parameter is on the next line


def _one_line(head: str) -> str:
    """A function's or method spec's head on one line: whitespace runs collapsed, and a
    parameter list written one parameter a line read as if written on one (`( ctx`, `uint32, )`)."""
    return _OPENING.sub("(", _LAST_COMMA.sub(")", collapse(head)))


def _type_signature(spec: ts.Node, type_node: ts.Node, kind: str, source: bytes) -> str:
    """A struct's or interface's signature, before the length limit: `type Name[T any] struct
    { Base; conn net.Conn; a, b int }` (its embedded types, then its named fields)."""
    head = source[spec.start_byte:type_node.start_byte].decode("utf-8", "replace")
    parts = embedded_types(type_node, source) + named_fields(type_node, source)
    return collapse(f"type {head} {kind}" + (" { " + "; ".join(parts) + " }" if parts else ""))


def struct_signature(declaration: str) -> str | None:
    """The signature extraction writes for the struct `declaration` declares (its text from the
    name, or `type`, through its closing brace), without the length limit: the resolver reads
    the fields of a struct whose indexed signature was cut from this (`golang.GoResolver.parts`).
    None when the text declares no struct."""
    written = declaration if declaration.lstrip().startswith("type") else "type " + declaration
    source = f"package p\n{written}\n".encode()
    spec = next((n for n in parse(LANG, source).root_node.named_children[-1].named_children
                 if n.type == "type_spec"), None)
    type_node = spec.child_by_field_name("type") if spec is not None else None
    if type_node is None or type_node.type != "struct_type":
        return None
    return _type_signature(spec, type_node, STRUCT, source)


def embedded_types(struct: ts.Node, source: bytes) -> list[str]:
    """The types a struct embeds, as written (`*Base`, `shop.Other`, `List[int]`): its fields
    without a name, tags left out; or the named types an interface embeds (`Reader`,
    `io.Writer`), whose methods are its own: unions and `~T` constraints name no methods."""
    if struct.type == "interface_type":
        return [text(e, source) for e in struct.named_children if e.type == "type_elem"
                and e.named_child_count == 1 and e.named_children[0].type in _EMBEDDABLE]
    fields = next((c for c in struct.named_children if c.type == "field_declaration_list"), None)
    out = []
    for fd in fields.named_children if fields is not None else ():
        t = fd.child_by_field_name("type") if fd.type == "field_declaration" else None
        if t is not None and fd.child_by_field_name("name") is None:
            out.append(collapse(source[fd.start_byte:t.end_byte].decode("utf-8", "replace")))
    return out


def named_fields(struct: ts.Node, source: bytes) -> list[str]:
    """A struct's named fields as written (`conn net.Conn`, `a, b *T`), tags left out, after
    its embedded types in its signature: the resolver reads a field's declared type there
    for a call on its value in another file (`s.conn.Write(b)`), and an edit of a field
    changes the signature, which tells an incremental resolution to retry those calls."""
    fields = next((c for c in struct.named_children if c.type == "field_declaration_list"), None)
    out = []
    for fd in fields.named_children if fields is not None and struct.type == "struct_type" else ():
        t = fd.child_by_field_name("type") if fd.type == "field_declaration" else None
        if t is not None and fd.child_by_field_name("name") is not None:
            out.append(collapse(source[fd.start_byte:t.end_byte].decode("utf-8", "replace")))
    return out


_EMBEDDABLE = frozenset(("type_identifier", "qualified_type", "generic_type"))


def receiver_type(receiver: ts.Node | None, source: bytes) -> str:
    """`(s *Set[K, V])` -> `Set`: the named type, without pointer or type arguments."""
    if receiver is None:
        return ""
    param = next((c for c in receiver.named_children if c.type == "parameter_declaration"), None)
    t = param.child_by_field_name("type") if param is not None else None
    while t is not None and t.type in ("pointer_type", "generic_type", "parenthesized_type"):
        t = t.child_by_field_name("type") if t.type == "generic_type" else (
            t.named_children[0] if t.named_child_count else None)
    return text(t, source) if t is not None else ""


# Uses of named types (QUERY's `tref`) become `references` edges; the predeclared types are
# dropped before anything else is looked at.
_PREDECLARED_TYPES = frozenset(
    b"any bool byte comparable complex64 complex128 error float32 float64 int int8 int16 int32 int64 "
    b"rune string uint uint8 uint16 uint32 uint64 uintptr".split())


def type_references(nodes: list[ts.Node], taken: set[int], declared: set[int], packages: dict[int, ts.Node],
                    source: bytes) -> list[PendingRef]:
    out: list[PendingRef] = []
    seen: set[tuple[bytes, str, int]] = set()  # one per name, qualifier and line
    for node in nodes:
        start = node.start_byte
        word = source[start:node.end_byte]
        if word in _PREDECLARED_TYPES or start in taken or start in declared:
            continue
        package = packages.get(start)
        recv = text(package, source) if package is not None else ""
        line = node.start_point[0] + 1
        key = (word, recv, line)
        if key in seen:
            continue
        seen.add(key)
        out.append((start, "references", word.decode("utf-8", "replace"), line, "", "", recv))
    return out


# Identifiers that name no definition of the repository when used as values.
_NO_VALUE_REF = frozenset(b"_ nil true false iota".split())


class _Values:
    """The value uses of names (VALUES's captures), turned into `references` edges once the
    calls are known."""

    def __init__(self, caps: dict) -> None:
        self.uses: list[ts.Node] = caps.get("vref", [])
        self.decls: list[ts.Node] = caps.get("vdecl", [])
        # struct literal keys and declared names: no uses
        self.skip = {n.start_byte for n in caps.get("vkey", [])} | {n.start_byte for n in self.decls}
        self.selectors = [(n.child_by_field_name("operand"), n.child_by_field_name("field"))
                          for n in caps.get("vsel", [])]
        self.local: set[tuple[int | None, bytes]] = set()  # (row, name) a definition declares (`references`)

    def references(self, taken: set[int], imported: set[str], ranges: list[tuple[int, int]],
                   source: bytes) -> list[PendingRef]:
        """`pkg.Name` where `pkg` names an import and `Name` is not called; every other
        identifier not called, not skipped, not a package's name and not declared in the
        definition it stands in (compared by name over the whole function: a name a block
        declares anywhere in it is taken for a local everywhere in it)."""
        out: list[PendingRef] = []
        seen: set[tuple[bytes, str, int]] = set()

        def add(node: ts.Node, recv: str) -> None:
            line = node.start_point[0] + 1
            word = source[node.start_byte:node.end_byte]
            if (word, recv, line) not in seen:
                seen.add((word, recv, line))
                out.append((node.start_byte, "references", word.decode("utf-8", "replace"), line, "", "", recv))
        packages = set()
        for operand, field in self.selectors:
            name = text(operand, source)
            if name in imported:
                packages.add(operand.start_byte)
                if field.start_byte not in taken:
                    add(field, name)
        skip = taken | self.skip | packages
        uses = sorted((n for n in self.uses if n.start_byte not in skip), key=_START)
        decls = sorted(self.decls, key=_START)
        local = self.local = set(zip(enclosing(ranges, [n.start_byte for n in decls]),
                                     (source[n.start_byte:n.end_byte] for n in decls)))
        for node, owner in zip(uses, enclosing(ranges, [n.start_byte for n in uses])):
            word = source[node.start_byte:node.end_byte]
            if word not in _NO_VALUE_REF and (owner is None or (owner, word) not in local):
                add(node, "")
        return out


_START = attrgetter("start_byte")


# ---- uses of fields ------------------------------------------------------------------------

# A field's use while extraction rewrites receivers (as a call's: `_typed_locals`,
# `_package_values`, `_call_chains`); a `references` edge once written.
FIELD_USE = "field"
_RECEIVED = ("calls", FIELD_USE)


def _field_uses(reads: list[tuple[ts.Node, ts.Node]], keys: list[tuple[ts.Node, ts.Node]], taken: set[int],
                imported: set[str], source: bytes) -> list[PendingRef]:
    """A use of each name a selector selects that no call calls and no import qualifies (`s.conn`,
    `o.opts.fast = true`, a method value `c.run`), its receiver the operand as written (typed
    afterwards as a call's is); and each key of a struct literal of a named type (`T{Field: v}`,
    `&pkg.T{..}`), its receiver the literal's type, `T{}` (a key of a literal whose type is
    elided, `[]T{{Field: v}}`, is left out: nothing here names its type). One per name, receiver
    and line."""
    out: list[PendingRef] = []
    seen: set[tuple[bytes, str, int]] = set()

    def add(node: ts.Node, recv: str) -> None:
        line = node.start_point[0] + 1
        word = source[node.start_byte:node.end_byte]
        if recv and (word, recv, line) not in seen:
            seen.add((word, recv, line))
            out.append((node.start_byte, FIELD_USE, word.decode("utf-8", "replace"), line, "", "", recv))
    for field, operand in reads:
        if field.start_byte not in taken and not (operand.type == "identifier" and text(operand, source) in imported):
            add(field, receiver_text(operand, source))
    for key, literal_type in keys:
        add(key, _type_receiver(literal_type, source))
    return out


# ---- locals whose declaration says their type ------------------------------------------------

# Where a name a `:=` or `var` declares stops being visible: the end of the first of these around it
_SCOPES = frozenset("statement_list block if_statement for_statement expression_switch_statement "
                    "type_switch_statement select_statement func_literal source_file".split())
_NAMED = re.compile(r"(?:\w+\.)?\w+")


_LOCAL_FORMS = ("ltype", "lval", "lrange")  # go.scm: a local's type written, its value, what its range walks


def _declared_names(name: ts.Node, value: ts.Node, how: str) -> list[tuple[ts.Node, ts.Node, str]]:
    """The locals one declaration's capture stands for: its first name, and when that name is
    the first of several a call's results are given to (`_, res, ok := parseAny(s, i)`), each
    later name with its position (`lval1`, `lval2`: the receiver `parseAny()#1`)."""
    out = [(name, value, how)]
    if how == "lval" and value.type == "call_expression" and name.parent is not None:
        later = name.parent.named_children[1:]
        out += [(n, value, f"lval{k}") for k, n in enumerate(later, 1) if n.type == "identifier"]
    return out


# a call of a name, `f()` or `pkg.F()`: the one value form whose later results the resolver reads
_NAME_CALL = re.compile(r"(?:\w+\.)?\w+\(\)")


def _typed_locals(pending: list[PendingRef], locals_: list[tuple[ts.Node, ts.Node, str]],
                  decls: list[ts.Node], ranges: list[tuple[int, int]], source: bytes,
                  fields: _Fields) -> list[PendingRef]:
    """A call on a local or parameter whose declaration says its type gets a receiver with
    that type the resolver reads: `T{}` / `pkg.T{}` for `x := T{...}`, `&T{}`, `new(T)`,
    `v.(*T)`, `var x *T`, a parameter `x *T`; `f()` / `pkg.F()` for `x := f(...)`, `x, err :=
    pkg.F(...)` (the resolver reads the first result that function's signature declares, or T
    when `f` is a type: a conversion); `T{}.M()` for `x := y.M(...)` when `y` is such a local of
    type T, seen where x is declared (the resolver reads the first result of T's method M), or
    `y.M()` as written when `y` is the enclosing method's receiver (`fields.receivers`: its name
    by the method's row; the resolver knows its type); `x := y` takes y's receiver; a call on a
    field's value (`x.f.M()`, `x.f[i].M()`) the type its struct declares (`_Fields`). Go
    scopes are blocks: the declaration a call sees is the innermost one whose block holds it,
    after it; a range clause's value variable walking a field's value (`for _, m := range
    s.matchers`) is an element of it (`s.matchers[]`, `_range_element`); when that is any other
    declaration of the name (another range variable, a parameter of
    a function type, two in one block giving different receivers), or what the value names is
    a local of the function (a local `f`, `pkg` or type `T`) that is no typed local, the call
    keeps its name, and so its guess (a local seen where the declaration is, not one declared
    later in the function). `decls`: every name a function declares
    (`_Values.decls`) and type specs' names."""
    locals_.sort(key=lambda t: t[0].start_byte)
    found = []  # (name, its owner, receiver, where its scope starts)
    for (name, node, how), owner in zip(locals_, enclosing(ranges, [t[0].start_byte for t in locals_])):
        written = how == "ltype"
        recv = (_type_receiver(node, source) if written else _value_receiver(node, source) if how.startswith("lval")
                else _range_element(node, source))
        if how[4:].isdigit() and recv:  # a later result of the call: `f()#1` (a method's, `y.M()`, is left unread)
            recv = f"{recv}#{how[4:]}" if _NAME_CALL.fullmatch(recv) else ""
        if owner is not None and recv:  # `var x T = v`: after v too
            found.append((name, owner, recv, name.parent.end_byte if written else node.end_byte))
    # only the declarations of the names found, and of what their values name, are looked at
    words = {source[f[0].start_byte:f[0].end_byte] for f in found} | {_head(f[2]) for f in found}
    words |= {r[0].encode() for r in fields.receivers.values()}  # is the receiver's name declared again?
    decls = sorted((n for n in decls if source[n.start_byte:n.end_byte] in words), key=_START)
    declared: dict[tuple[int | None, bytes], list[ts.Node]] = {}
    for node, owner in zip(decls, enclosing(ranges, [n.start_byte for n in decls])):
        declared.setdefault((owner, source[node.start_byte:node.end_byte]), []).append(node)
    says: dict[int, tuple[int, str]] = {}  # name position -> (where its scope starts, receiver)
    wanted: set[tuple[int, bytes]] = set()
    fields.declared = declared
    chained = []  # (name, owner, the local its value is or calls a method of, the fields read, the method or None)
    for name, owner, recv, after in found:
        link = _LINK.fullmatch(recv)
        if _visible(declared.get((owner, _head(recv)), ()), name.start_byte):
            if link is None:
                continue  # `x := f()` with a local f, `pkg.T{}` with a local pkg, a type declared in the function
            chained.append((name, owner, *link.groups()))
            wanted.add((owner, link.group(1).encode()))
            recv = _CHAINED
        elif link is not None and (link.group(3) is None or link.group(2)):
            continue  # `x := y`, `x := y.f`, y no local of the function: its type is not known here
        says[name.start_byte] = (after, recv)
        wanted.add((owner, source[name.start_byte:name.end_byte]))
    scopes, rows_of = _scope_rows(wanted, declared, says)
    for name, owner, local, read, method in chained:  # in source order: a chain's earlier links first
        typed = _seen_at(scopes.get((owner, local), ()), name.start_byte)
        if read:  # `x := y.f`, `x := y.f.M()`: the field's declared type (`_Fields`)
            typed = fields.value_of(owner, _FIELD_ON.fullmatch(local + read), typed)
        elif not typed and method is not None and fields.receivers.get(owner, ("",))[0] == local:
            typed, method = f"{local}.{method}()", None
        if method is not None:
            typed = f"{typed}.{method}()" if typed and typed.count("(") < MAX_CHAIN else ""
        rows, i = rows_of[name.start_byte]
        rows[i] = (*rows[i][:2], typed)
    return _rewrite_calls(pending, scopes, ranges, fields)


def _rewrite_calls(pending: list[PendingRef], scopes: dict, ranges: list[tuple[int, int]],
                   fields: _Fields) -> list[PendingRef]:
    """The calls on a local (`x.M()`) or on a call of a local's method (`y.M(a).N()`) with the
    receiver of the declaration each one sees, when that one says a type; those on a field's
    value (`x.f.M()`) with the type the field's struct declares for it."""
    calls = sorted((p for p in pending if p[1] in _RECEIVED and p[6] and (
        _CALL_ON.fullmatch(p[6]) or _FIELD_ON.fullmatch(p[6]))), key=_FIRST)
    rewrite: dict[int, str] = {}
    for p, owner in zip(calls, enclosing(ranges, [p[0] for p in calls])):
        on = _CALL_ON.fullmatch(p[6])
        if on is None:
            base = p[6].split(".", 1)[0]
            typed = fields.value_of(owner, _FIELD_ON.fullmatch(p[6]), _seen_at(scopes.get((owner, base), ()), p[0]))
        else:
            local, method = on.groups()
            typed = _seen_at(scopes.get((owner, local), ()), p[0])
            if typed and method is not None:  # `y.M(a).N()`: N of M's result
                typed = f"{typed}.{method}()" if typed.count("(") < MAX_CHAIN else ""
        if typed:
            rewrite[p[0]] = typed
    return [(*p[:6], rewrite[p[0]]) if p[0] in rewrite and p[1] in _RECEIVED else p for p in pending]


def _package_values(pending: list[PendingRef], local: set[tuple[int | None, bytes]], imported: set[str],
                    ranges: list[tuple[int, int]], var_receivers: dict[str, str]) -> list[PendingRef]:
    """A call on a name the enclosing definition does not declare (no parameter, local or
    receiver of that name) and no import binds (`CommandLine.Parse(args)`), a package-level
    name: a variable this file declares with a type or a call (`var CommandLine *FlagSet`, `=
    NewFlagSet(..)`) gets that receiver (`FlagSet{}`, `NewFlagSet()`), as a typed local does; any
    other gets `CommandLine=`, whose type the resolver reads from the variable's declaration in
    another file of the package. A local of the same name keeps its name, and so its guess."""
    calls = sorted((p for p in pending if p[1] in _RECEIVED and p[6] not in imported and p[6].isidentifier()),
                   key=_FIRST)
    # `pkg.F()`, `pkg.T{}` only through an import: `y.M()` on a package variable y would read as a
    # call on the enclosing method's receiver of that name
    typed = {name: recv for name, recv in var_receivers.items()
             if "." not in recv or recv.split(".", 1)[0] in imported}
    rewrite = {p[0]: typed.get(p[6]) or p[6] + "="
               for p, owner in zip(calls, enclosing(ranges, [p[0] for p in calls]))
               if owner is not None and (owner, p[6].encode()) not in local}
    return [(*p[:6], rewrite[p[0]]) if p[0] in rewrite and p[1] in _RECEIVED else p for p in pending]


def _call_chains(pending: list[PendingRef], local: set[tuple[int | None, bytes]], imported: set[str],
                 ranges: list[tuple[int, int]]) -> list[PendingRef]:
    """A call on the value of a call written out, of a package-level name or of an imported
    package's function, then of its result's methods (`NewDecoder(r).Decode(&v)`,
    `json.NewDecoder(r).Decode(&v)`, `New(b).Strict(true).Decode(d)`), gets the receiver a typed
    local holding that value would (`NewDecoder()`, `json.NewDecoder()`, `New().Strict()`): the
    resolver reads the first result each declares (outside the repository: external). A head
    that the enclosing function declares (a local function value, a local named like a
    package) or that no import binds (`v.M(x)` on a variable) keeps its text, and so its guess."""
    calls = sorted((p for p in pending if p[1] in _RECEIVED and "(" in p[6]), key=_FIRST)
    rewrite: dict[int, str] = {}
    for p, owner in zip(calls, enclosing(ranges, [p[0] for p in calls])):
        chain = _call_chain(p[6]) if owner is not None else None
        if chain is None:
            continue
        pkg, head, written = chain
        if pkg is not None and (pkg not in imported or (owner, pkg.encode()) in local):
            continue
        if pkg is None and (owner, head.encode()) in local:
            continue
        rewrite[p[0]] = written
    return [(*p[:6], rewrite[p[0]]) if p[0] in rewrite else p for p in pending]


def _call_chain(text: str) -> tuple[str | None, str, str] | None:
    """(package or None, the called name, the receiver as a typed local's: `pkg.F().M()`) of a
    receiver that is a call of a name, optionally through a package, followed only by method
    calls (arguments dropped; at most MAX_CHAIN calls); None for any other text."""
    head = _CALLED.match(text)
    if head is None:
        return None
    pkg, name = head.groups()
    written, at = (f"{pkg}." if pkg else "") + name + "()", head.end() - 1
    for _ in range(MAX_CHAIN):
        close = closing_bracket(text, at, raw="`")
        if close is None:
            return None
        if close == len(text) - 1:
            return pkg, name, written
        step = _METHOD_CALL.match(text, close + 1)
        if step is None:
            return None
        written, at = f"{written}.{step.group(1)}()", step.end() - 1
    return None


# a call of a name at the start of a receiver, `F(`, `pkg.F(`; a method call after it, `.M(`
_CALLED = re.compile(r"(?:((?!\d)\w+)\.)?((?!\d)\w+)\(")
_METHOD_CALL = re.compile(r"\.(\w+)\(")


class _Fields:
    """The structs the file declares, read for a call on a value one of their fields holds
    (`s.conn.Write(b)`, `s.conns[i].Write(b)`): the type the field declares (a slice's, an
    array's or a map's element when the field is indexed) becomes the call's receiver, `T{}` or
    `pkg.T{}`, as for a typed local. Only a struct of this file is read here; with one of another
    file on the way the chain is written for the resolver (`T{}.f`), which reads the fields in
    the structs' signatures (an edit of them changes the signature: the incremental rule's cue).
    `receivers`: row -> (name, type) of each method's receiver; `declared`: (row, name) -> the
    declarations of a name in that definition (set by `_typed_locals`)."""

    def __init__(self, structs: dict[str, list[ts.Node]], receivers: dict[int, tuple[str, str]],
                 source: bytes) -> None:
        self.structs = {name: specs[0] for name, specs in structs.items() if len(specs) == 1}
        self.receivers = receivers
        self.source = source
        self.declared: dict[tuple[int | None, bytes], list[ts.Node]] = {}
        self._read: dict[str, tuple[dict[str, ts.Node], list[ts.Node], set[str]]] = {}

    def value_of(self, owner: int | None, on: re.Match, typed: str) -> str:
        """The receiver for the value `x.f.g[i]` (`on`) read in the definition of row `owner`,
        x being a local typed `typed` (`T{}`) there, or else the method's receiver (a name the
        method declares no other time); "" when any step is not known for sure. A struct of
        another file on the way leaves the steps to the resolver, which reads the fields in
        the structs' signatures: `T{}.f.g[]` (`T{}` the local's receiver or the method's type)."""
        base, steps = on.group(1), _STEP.findall(on.group(2))
        if typed:
            struct = typed[:-2] if typed.endswith("{}") and typed[:-2].isidentifier() else ""
        else:
            name, struct = self.receivers.get(owner, ("", ""))
            if name != base or len(self.declared.get((owner, base.encode()), ())) != 1:
                return ""
        if not (typed or struct):
            return ""
        head = typed or f"{struct}{{}}"
        later = "".join(f".{field}{'[]' if index else ''}" for field, index in steps)
        recv = ""
        for field, index in steps:
            node, params = self.field(struct, field) if struct else (_ELSEWHERE, set())
            if node is not None and node is not _ELSEWHERE and index and node.type in _NAMED_TYPES:
                node = _ELSEWHERE  # `type Matchers []Matcher`: the resolver reads the element in its declaration
            if node is _ELSEWHERE:
                return head + later if head.count("(") < MAX_CHAIN else ""
            if node is not None and index:
                node = _element(node)
            recv = _type_receiver(node, self.source) if node is not None else ""
            if not recv or _head(recv).decode() in params:
                return ""
            struct = recv[:-2]
        return recv

    def field(self, struct: str, name: str) -> tuple[ts.Node | None, set[str]]:
        """The type node of the field `name` of the struct `struct` and that struct's type
        parameters: its own field, else one that a struct it embeds promotes, the shallowest
        depth holding the name deciding (two there: neither); None when not known for sure;
        `_ELSEWHERE` when a struct of another file is on the way (the resolver reads it)."""
        level: list[str] = [struct]
        for _ in range(MAX_EMBED_DEPTH + 1):
            found, below = [], []
            for t in level:
                read = self._fields(t)
                if read is None:  # another file's or package's type: it may hold the name
                    return _ELSEWHERE, set()
                own, embeds, params = read
                if name in own:
                    found.append((own[name], params))
                below += [r[:-2] if (r := _type_receiver(e, self.source)) else "" for e in embeds]
            if found:
                return found[0] if len(found) == 1 else (None, set())
            level = below
        return None, set()

    def _fields(self, struct: str) -> tuple[dict[str, ts.Node], list[ts.Node], set[str]] | None:
        """(field name -> type node, embedded type nodes, type parameter names) of a struct this
        file declares once; None for any other name."""
        got = self._read.get(struct)
        if got is None and struct in self.structs:
            spec = self.structs[struct]
            params = spec.child_by_field_name("type_parameters")
            names = {text(n, self.source) for p in (params.named_children if params is not None else ())
                     for n in p.children_by_field_name("name")}
            own, embeds = {}, []
            body = next((c for c in spec.child_by_field_name("type").named_children
                         if c.type == "field_declaration_list"), None)
            for fd in body.named_children if body is not None else ():
                t = fd.child_by_field_name("type") if fd.type == "field_declaration" else None
                written = fd.children_by_field_name("name") if t is not None else ()
                for n in written:
                    own[text(n, self.source)] = t
                if t is not None and not written:  # embedded: its type's name is the field's
                    embeds.append(t)
                    own[_type_receiver(t, self.source)[:-2].rsplit(".", 1)[-1] or "_"] = t
            got = self._read[struct] = (own, embeds, names)
        return got


_TYPED_VALUE = re.compile(r"(?:\w+\.)?\w+(?:\{\}|\(\))")  # `T{}`, `pkg.T{}`, `f()`, `pkg.F()`
_ELSEWHERE = object()  # `_Fields.field`: the struct (or one it embeds) is declared in another file
_NAMED_TYPES = ("type_identifier", "qualified_type")  # a field's type that names a declared type


def _element(node: ts.Node) -> ts.Node | None:
    """The element type of a slice, array or map type: what indexing a value of it gives."""
    if node.type in ("slice_type", "array_type"):
        return node.child_by_field_name("element")
    return node.child_by_field_name("value") if node.type == "map_type" else None


# a value read from a field, indexed or not, of a name: `s.conn`, `s.conns[i]`, `c.opts.dialer`
_FIELD_ON = re.compile(r"((?!\d)\w+)((?:\.\w+(?:\[[^\[\]:]*\])?){1,3})")
_STEP = re.compile(r"\.(\w+)(\[[^\[\]:]*\])?")
MAX_EMBED_DEPTH = 4  # embedding levels followed for a promoted field (the resolver's for methods)


_CHAINED = "?"  # the receiver of a local whose value is another local or its method's result, until that one's is known
# `y`, `y.M()`, or a field's value `y.f.g`, `y.f.M()` (field steps as `_FIELD_ON` reads them)
_LINK = re.compile(r"(\w+)((?:\.\w+(?:\[[^\[\]:]*\])?){0,3}?)(?:\.(\w+)\(\))?")
# a call's receiver: a local, or a call of a local's method (`n.Parent()` in `n.Parent().Kind()`)
_CALL_ON = re.compile(r"((?!\d)\w+)(?:\.(\w+)\([^()]*\))?")
MAX_CHAIN = 3  # calls in a receiver (`f().M().N()`): a longer chain is left to the name's guess


def _visible(decls: list[ts.Node], at: int) -> bool:
    """One of `decls` binds its name at `at`: declared before it, in a block holding it (a
    parameter's `text.BlockReader` names the package though a local `text` comes later)."""
    for n in decls:
        if n.start_byte < at:
            end = _scope_end(n)
            if end is not None and at < end:
                return True
    return False


def _scope_rows(wanted: set[tuple[int, bytes]], declared: dict[tuple[int | None, bytes], list[ts.Node]],
                says: dict[int, tuple[int, str]]) -> tuple[dict, dict]:
    """(owner, name) -> [(from, to, receiver)] of each declaration of the wanted names ("": a
    declaration saying no type), and declaration position -> (that list, the row's index)."""
    scopes: dict[tuple[int, str], list[tuple[int, int, str]]] = {}
    rows_of: dict[int, tuple[list, int]] = {}
    for owner, word in wanted:
        rows = scopes[(owner, word.decode())] = []
        for n in declared.get((owner, word), ()):
            start, recv = says.get(n.start_byte, (n.end_byte, ""))
            end = _scope_end(n)
            if end is not None:
                rows_of[n.start_byte] = (rows, len(rows))
                rows.append((start, end, recv))
    return scopes, rows_of


def _seen_at(rows, at: int) -> str:
    """The receiver of the declaration seen at `at` among a name's rows: the innermost one
    holding it (Go's blocks nest: the one ending first); "" when none, when it says no type, or
    when two there disagree."""
    seen = [s for s in rows if s[0] <= at < s[1]]
    innermost = min((s[1] for s in seen), default=0)
    inner = {s[2] for s in seen if s[1] == innermost}
    return inner.pop() if len(inner) == 1 and not inner & {"", _CHAINED} else ""


_FIRST = itemgetter(0)


def _head(recv: str) -> bytes:
    """The first name a receiver writes: `pkg` of `pkg.T{}`, `f` of `f()`."""
    return re.split(r"[.({]", recv, 1)[0].encode()


def _scope_end(name: ts.Node) -> int | None:
    """Where the name a declaration binds stops being visible; None for a parameter's name in
    a function type (`f func(b *testing.B)`), which binds nothing."""
    node = name.parent
    while node is not None and node.type not in _SCOPES:
        if node.type in ("function_type", "method_elem"):
            return None
        node = node.parent
    return node.end_byte if node is not None else name.end_byte


def _type_receiver(node: ts.Node | None, source: bytes) -> str:
    """`T{}` / `pkg.T{}` for a written named type (`T`, `*pkg.T`, `G[int]`); "" for any
    other (a slice, a map, a predeclared type)."""
    if node is not None and node.type == "pointer_type":
        node = node.named_children[0] if node.named_child_count else None
    if node is not None and node.type == "generic_type":
        node = node.child_by_field_name("type")
    if node is None or node.type not in ("type_identifier", "qualified_type", "identifier", "selector_expression"):
        return ""
    written = source[node.start_byte:node.end_byte]
    if written in _PREDECLARED_TYPES or not _NAMED.fullmatch(written.decode("utf-8", "replace")):
        return ""
    return written.decode() + "{}"


def _value_receiver(node: ts.Node, source: bytes) -> str:
    """The receiver standing for a local's one value: its type when the value writes it
    (a composite literal, its address, `new(T)`, a type assertion), the call `f()` /
    `pkg.F()` / `y.M()` when it is a call of a name, `F().M()` / `pkg.F().M()` for a method
    called on such a call's value (`_call_chain`), the name `y` when it is one; "" for anything
    else."""
    t = node.type
    if t == "identifier":
        return text(node, source)
    if t == "unary_expression" and source[node.start_byte:node.start_byte + 1] == b"&":
        node = node.child_by_field_name("operand")
        t = node.type if node is not None else ""
    if t in ("composite_literal", "type_assertion_expression"):
        return _type_receiver(node.child_by_field_name("type"), source)
    if t in ("selector_expression", "index_expression"):  # a field's value, `s.conn`, `s.conns[i]`
        written = text(node, source)
        return written if _FIELD_ON.fullmatch(written) else ""
    if t != "call_expression":
        return ""
    fn = node.child_by_field_name("function")
    if fn is not None and fn.type == "identifier":
        if source[fn.start_byte:fn.end_byte] == b"new":
            args = node.child_by_field_name("arguments")
            return _type_receiver(args.named_children[0], source) if args is not None and \
                args.named_child_count == 1 else ""
        return text(fn, source) + "()"
    if fn is not None and fn.type == "selector_expression":
        operand = fn.child_by_field_name("operand")
        on = text(operand, source) if operand is not None else ""
        if operand is not None and (operand.type == "identifier" or _FIELD_ON.fullmatch(on)):
            return f"{on}.{text(fn.child_by_field_name('field'), source)}()"
        # a method of a call's value, `New(a).Funcs(m)`: the chain as `_call_chains` writes it
        chain = _call_chain(text(node, source)) if operand is not None and operand.type == "call_expression" else None
        if chain is not None:
            return chain[2]
    return ""


def _range_element(node: ts.Node, source: bytes) -> str:
    """The receiver standing for an element of what a range clause walks when that is a
    field's value (`for _, m := range s.matchers`: `s.matchers[]`, read as `s.matchers[i]`
    is); "" for anything else (a local's elements: its type is not read here)."""
    if node.type != "selector_expression":
        return ""
    walked = _value_receiver(node, source)
    return f"{walked}[]" if walked and _FIELD_ON.fullmatch(f"{walked}[]") else ""


def import_name(import_path: str, alias: str) -> str:
    """The name an import binds in its file: its alias, else most likely the path's last
    element, skipping a major-version element (`/v2`) and `.vN` / `go-` decorations (the
    package clause of an outside package is not read)."""
    if alias:
        return alias
    parts = [p for p in import_path.split("/") if p]
    if len(parts) > 1 and _MAJOR.match(parts[-1]):
        parts.pop()
    last = parts[-1] if parts else import_path
    last = re.sub(r"\.v\d+$", "", last)
    return last.rsplit("-", 1)[-1]


_MAJOR = re.compile(r"^v\d+$")


def _imports(decl: ts.Node, source: bytes) -> list[PendingRef]:
    """`import h "net/http"` -> to_name and module `net/http`, alias `h` (also `.` and `_`)."""
    specs = []
    for ch in decl.named_children:
        specs += ch.named_children if ch.type == "import_spec_list" else [ch]
    out = []
    for spec in specs:
        if spec.type != "import_spec":
            continue
        path = text(spec.child_by_field_name("path"), source).strip("\"`")
        alias = text(spec.child_by_field_name("name"), source)
        out.append((spec.start_byte, "imports", path, start_line(spec), path, alias, ""))
    return out
