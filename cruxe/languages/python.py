"""Python extraction: definitions, imports and calls from one tree-sitter query pass.

What counts as a symbol (and why):
- every `def` / `async def` (kind `method` when its innermost enclosing definition is a
  class, as Python's own `ast` scoping sees it, else `function`; properties are methods)
  and every `class`, at any depth, with decorators inside `line_start`;
- module-level names bound by assignment (`X = ...`, `x: int = 1`, `x: int`, `a = b = 1`,
  `a, b = ...`), also inside module-level `if`/`try`/`with` blocks (feature switches and
  fallback imports live there); ALL_CAPS -> `constant`, else `variable`; only the first
  binding of a name per scope is kept, so re-assignments do not clutter search;
- class-level attributes bound the same way directly in a class body (enum members,
  dataclass and model fields): cheap, since only class bodies' top statements are read,
  and agents search for them by name;
- instance attributes a class's methods assign (`self.x = ...`, `self.a, self.b = ...`,
  `self.a = self.b = ...`; `self` being whatever the method's first parameter is named), as
  `variable`s of the class, one per name the class body does not bind itself: the first
  assignment that shows the attribute's class (`self.x = Foo(...)`, `self.x: Foo = ...`,
  `self.x = param` with `param: Foo`), which `self.x.method()` needs (the resolver reads it from
  the signature as it does for a class-level `x: Foo`), else the first in a set-up method
  (`__init__`, `__new__`, `__post_init__`, `setUp`, ...), else the first in source order. Not
  definitions: `self.x += 1` (it reads x first), `for self.x in`, `with ... as self.x`;
- `type X = ...` (Python 3.12) at module level as `type_alias`.

Module path (prefix of `qualified_name`): the file path without its extension, `/` -> `.`,
a leading `src/` or `lib/` component dropped (src-layout and CPython's `Lib/`), and
`pkg/__init__.py` naming the package `pkg`.
"""
from __future__ import annotations

import bisect
import builtins
import inspect
import re
from collections.abc import Sequence, Set as AbstractSet
from operator import attrgetter, itemgetter

import tree_sitter as ts

from ..model import FileExtract, Kind, Symbol
from ._common import (MAX_DOC_CHARS, MAX_SIGNATURE_CHARS, MAX_VALUE_SIGNATURE_CHARS, Candidate, PendingRef,
                      attach_enclosing, cap, captures, collapse, end_line, enclosing, error_count, first_line, nest,
                      parse, query, query_text, receiver_text, spans, start_line, text)

LANG = "python"

# One pass over the tree, read with `captures()` (a list per capture name; `matches()` would
# build a dict per match, and most identifiers are captured): definitions, calls, imports, then
# the other uses of names (see name_uses). The capture names are those queries/python.scm lists.
QUERY = query_text(LANG)

_CODING = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")
_CONST_NAME = re.compile(r"^_*[A-Z][A-Z0-9_]*$")
# Compound statements at module level whose blocks still bind module names.
_MODULE_BLOCKS = frozenset({"if_statement", "elif_clause", "else_clause", "try_statement",
                            "except_clause", "except_group_clause", "finally_clause",
                            "with_statement", "block"})
_BRACKET_SPACE = re.compile(r"(?<=[(\[]) | (?=[)\]])")
_START = attrgetter("start_byte")
_FIRST = itemgetter(0)
_RANKED = itemgetter(0, 1)


def extract(source: bytes, path: str) -> FileExtract:
    source = recode(source)
    tree = parse(LANG, source)
    root = tree.root_node
    caps = captures(query(LANG, QUERY), root)
    defs = sorted(caps.get("def", ()), key=_START)
    pending = _calls(caps, source)
    plain: set[str] = set()  # names bound by `import a.b` / `import a.b as c`
    other: set[str] = set()  # ... by `from m import x [as y]`
    for node in caps.get("import", ()):
        refs = _imports(node, source)
        pending += refs
        if node.type == "import_statement":
            plain.update(r[5] or r[2].split(".", 1)[0] for r in refs)
        else:
            other.update(r[5] or r[2] for r in refs)
    cands = [_def_candidate(n, source) for n in defs]
    heads = _heads(cands, defs)
    cands += [a for n in defs if n.type == "class_definition" for a in _class_attributes(n, source)]
    cands += _module_bindings(root, source)
    defined = {c.name for c in cands}
    typed = instance_attributes(defs, _self_assignments(caps.get("objset", ()), source), source)
    ordered, parents = nest(cands + typed)
    if typed:
        parents = _owned_by_class(ordered, parents)
    symbols = _symbols(ordered, parents, module_path(path))
    pending = aliased_calls(caps, pending, defs, source)
    name_uses(caps, defined, defs, pending, source, plain - other - defined, heads,
              {c.name for c in typed})
    pending = typed_locals(caps, pending, defs, source)
    pending += _redefinitions(ordered, parents)
    refs = attach_enclosing(pending, spans(ordered))
    return FileExtract(path, LANG, symbols=symbols, references=refs, parse_errors=error_count(tree),
                       source=source)


def recode(source: bytes) -> bytes:
    """Honour a PEP 263 coding cookie (`# -*- coding: latin-1 -*-`) on the first two lines:
    re-encode such a file as UTF-8 so names decode right. Newlines keep their lines."""
    head = source[:200]
    m = _CODING.search(head.split(b"\n", 2)[0]) or _CODING.search(b"".join(head.split(b"\n", 2)[1:2]))
    if m is None:
        return source
    codec = m.group(1).decode("ascii", "replace").lower().replace("_", "-")
    if codec in ("utf-8", "utf8") or codec.startswith("utf-8-"):
        return source
    try:
        return source.decode(codec, "replace").encode("utf-8", "replace")
    except LookupError:  # unknown codec name: parse the bytes as they are
        return source


# ---- module path ------------------------------------------------------------------------

def module_path(path: str) -> str:
    """Dotted module name for a repository-relative file path (see module docstring)."""
    stem = path.rsplit(".", 1)[0] if path.endswith((".py", ".pyi")) else path
    parts = [p for p in stem.split("/") if p]
    if len(parts) > 1 and parts[0].lower() in ("src", "lib"):
        parts = parts[1:]
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def base_expressions(signature: str) -> list[str]:
    """Positional base expressions of `class A(B, C[int], metaclass=M)` (of a `def`: its
    required positional parameters)."""
    open_at = signature.find("(")
    close_at = signature.rfind(")")
    if open_at < 0 or close_at <= open_at:
        return []
    out, depth, cur = [], 0, []
    for ch in signature[open_at + 1:close_at]:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur).strip())
    return [x for x in out if x and "=" not in x and not x.startswith("*")]


def visibility(name: str) -> str:
    if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
        return "private"
    return "public"


# ---- definitions ------------------------------------------------------------------------

def _heads(cands: list[Candidate], defs: list[ts.Node]) -> list[tuple[int, int]]:
    """(start, body start) of each definition's head, sorted: its decorators, a class's
    bases and keywords, a function's parameters (defaults, annotations) and return
    annotation. Python evaluates all of these in the scope around the definition, before
    the name is bound; heads never overlap (no definition starts inside one)."""
    out = []
    for c, n in zip(cands, defs):
        body = n.child_by_field_name("body")
        out.append((c.node.start_byte, body.start_byte if body is not None else n.end_byte))
    out.sort()
    return out


def _def_candidate(node: ts.Node, source: bytes) -> Candidate:
    """A def/class node -> Candidate spanning its decorators, named at the def line."""
    outer = node.parent if node.parent is not None and node.parent.type == "decorated_definition" else node
    name = text(node.child_by_field_name("name"), source)
    kind = Kind.CLASS.value if node.type == "class_definition" else Kind.FUNCTION.value
    body = node.child_by_field_name("body")
    return Candidate(node=outer, name=name, kind=kind, signature=_header(node, body, source),
                     visibility=visibility(name), doc=_docstring(body, source),
                     name_line=start_line(node), extra={"end_line": code_end_line(node)})


def code_end_line(node: ts.Node) -> int:
    """Last line holding code of `node`: tree-sitter lets a block swallow the comments
    that follow its last statement, while a definition ends at its last token (as
    Python's `ast` says). Descends the last non-comment child chain, no recursion."""
    while node.child_count:
        last = node.child(node.child_count - 1)
        while last is not None and last.type == "comment":
            last = last.prev_sibling
        if last is None:
            break
        node = last
    return end_line(node)


def _header(node: ts.Node, body: ts.Node | None, source: bytes) -> str:
    """`async def f(a, b) -> T` / `class A(B)`: the text up to the body's colon, comments out."""
    end = body.start_byte if body is not None else node.end_byte
    head = source[node.start_byte:end]
    if b"#" not in head:  # the common case: no comment can hide a colon, cut at the last one
        colon = head.rfind(b":")
        sig = head[:colon if colon >= 0 else len(head)].decode("utf-8", "replace")
        if "\n" in sig or "  " in sig or "\t" in sig:
            sig = collapse(sig)
        if "( " in sig or " )" in sig or "[ " in sig or " ]" in sig:
            sig = _BRACKET_SPACE.sub("", sig)
        return cap(sig.strip(), MAX_SIGNATURE_CHARS)
    return _header_with_comments(node, body, source)


def _header_with_comments(node: ts.Node, body: ts.Node | None, source: bytes) -> str:
    colon_end = node.end_byte
    for ch in node.children:
        if body is not None and ch.start_byte >= body.start_byte:
            break
        if ch.type == ":":
            colon_end = ch.start_byte
    pieces, pos = [], node.start_byte
    params = node.child_by_field_name("parameters") or node.child_by_field_name("superclasses")
    # Comments inside the parameter list are not part of the signature.
    for ch in (params.children if params is not None else ()):
        if ch.type == "comment":
            pieces.append(source[pos:ch.start_byte])
            pos = ch.end_byte
    pieces.append(source[pos:colon_end])
    sig = collapse(b"".join(pieces).decode("utf-8", "replace"))
    return cap(_BRACKET_SPACE.sub("", sig), MAX_SIGNATURE_CHARS)


def _docstring(body: ts.Node | None, source: bytes) -> str:
    if body is None or body.named_child_count == 0:
        return ""
    first = body.named_children[0]
    if first.type != "expression_statement" or first.named_child_count != 1:
        return ""
    return string_value(first.named_children[0], source)


def string_value(node: ts.Node, source: bytes) -> str:
    """Text of a string literal (quotes and prefixes dropped, indentation cleaned), '' if
    the node is not a plain string."""
    if node.type == "concatenated_string":
        return "".join(string_value(ch, source) for ch in node.named_children)[:MAX_DOC_CHARS]
    if node.type != "string":
        return ""
    parts = [text(ch, source) for ch in node.named_children
             if ch.type in ("string_content", "escape_sequence")]
    return inspect.cleandoc("".join(parts))[:MAX_DOC_CHARS]


def _module_bindings(root: ts.Node, source: bytes) -> list[Candidate]:
    """Names bound at module level, walking only compound statements' blocks (no defs)."""
    out: list[Candidate] = []
    seen: set[str] = set()
    for ch in _statements(root, _MODULE_BLOCKS):
        if ch.type == "expression_statement":
            out += _bindings(ch, source, seen)
        elif ch.type == "type_alias_statement":
            out += _type_alias(ch, source, seen)
    return out


def _statements(root: ts.Node, blocks: AbstractSet[str]):
    """The statements under `root`, descending into the compound statements of `blocks`
    (a block's own statements before those of the blocks inside it)."""
    stack = [root]
    while stack:
        children = stack.pop().named_children
        stack.extend(ch for ch in reversed(children) if ch.type in blocks)
        yield from children


def _class_attributes(cls: ts.Node, source: bytes) -> list[Candidate]:
    body = cls.child_by_field_name("body")
    if body is None:
        return []
    out: list[Candidate] = []
    seen: set[str] = set()
    for ch in body.named_children:
        if ch.type == "expression_statement":
            out += _bindings(ch, source, seen)
    return out


# The builtin types whose instances literals and calls of the type's name make: their methods
# are the builtins', never a repository's. (`type(x)` is left out: it returns a class, maybe
# the repository's; so are the callables whose result is their argument.)
VALUE_TYPES = frozenset({"str", "bytes", "bytearray", "list", "dict", "set", "frozenset", "tuple", "int", "float",
                         "complex", "bool", "memoryview", "range", "slice"})
_LITERAL_TYPES = {"list": "list", "list_comprehension": "list", "dictionary": "dict",
                  "dictionary_comprehension": "dict", "set": "set", "set_comprehension": "set", "tuple": "tuple",
                  "string": "str", "concatenated_string": "str", "integer": "int", "float": "float",
                  "true": "bool", "false": "bool"}


# Instance attributes whose type the assignment shows. Only these become symbols: they are
# what `self.x.method()` needs (the resolver reads the type from the signature, as it does
# for a class-level `x: T`); an untyped `self.x = v` would only add names to search.
_TYPE_NAME = re.compile(r"[A-Za-z_][\w.]*")
_OPTIONAL = re.compile(r"^(?:typing\.)?Optional\[(.+)\]$|^(.+?)\s*\|\s*None$|^None\s*\|\s*(.+)$", re.S)
_CLASS_NAME = re.compile(r"^_*[A-Z]\w*[a-z]\w*$")  # CapWords: a class by convention, not a CONSTANT()
# library calls whose result is of their argument's class (or the one they are told): a copy, a cast
_SAME_CLASS_CALLS = frozenset({"copy", "deepcopy", "cast", "replace", "proxy"})
_GENERIC = re.compile(r"([A-Za-z_][\w.]*)\s*\[.*\]", re.S)
_GENERIC_BUILTINS = frozenset({"list", "dict", "set", "frozenset", "tuple"})
_TYPING_FORMS = frozenset({"Union", "Type", "Callable", "Literal", "Annotated", "ClassVar", "Final", "Optional",
                           "Generic", "Protocol", "Concatenate", "TypeGuard", "Unpack", "Required", "NotRequired"})
_CAPWORDS_TAIL = re.compile(rb"(?:^|\.)_*[A-Z]\w*$")  # the bytes' last dotted part may be one


def _self_assignments(objects: list[ts.Node], source: bytes) -> list[ts.Node]:
    """The statements `self.x = ...` / `cls.x = ...`, `self.a, self.b = ...` and `self.a = self.b =
    ...`, once each, whatever the object's name (a method's first parameter may have any name:
    `instance_attributes` reads which): QUERY's `objset`, a few per class, so their parents are
    asked for, not matched by a query pattern of their own, which every file's walk would pay for."""
    out: dict[int, ts.Node] = {}
    for obj in objects:
        target = obj.parent
        up = target.parent if target is not None else None
        if up is not None and up.type in _TUPLE_TARGETS:
            target, up = up, up.parent
        while up is not None and up.type == "assignment" and up.child_by_field_name("left") == target:
            target, up = up, up.parent  # `self.a = self.b = v`: the outer assignment's statement
        if up is not None and up.type == "expression_statement" and target.type == "assignment":
            out.setdefault(up.start_byte, up)
    return list(out.values())


_TUPLE_TARGETS = frozenset({"pattern_list", "tuple_pattern"})
# The methods that set an object up: an attribute's first assignment in one of them is its
# definition (else its first assignment in source order).
_SETUP_METHODS = frozenset({"__init__", "__new__", "__post_init__", "setUp", "setup_method", "asyncSetUp"})


def _attribute_targets(stmt: ts.Node, me: bytes, source: bytes) -> list[tuple[ts.Node, ts.Node, bool]]:
    """(assignment, `me.x` target, alone) of each attribute of `me` the statement assigns:
    `me.x = v` (alone: the value is x's), `me.a, me.b = v` and each target of `me.a = me.b = v`."""
    out = []
    assign = stmt.named_children[0] if stmt.named_child_count else None
    while assign is not None and assign.type == "assignment":
        left = assign.child_by_field_name("left")
        right = assign.child_by_field_name("right")
        chained = right is not None and right.type == "assignment"
        for target in (left.named_children if left is not None and left.type in _TUPLE_TARGETS else (left,)):
            if target is None or target.type != "attribute":
                continue
            obj = target.child_by_field_name("object")
            if obj is not None and source[obj.start_byte:obj.end_byte] == me \
                    and target.child_by_field_name("attribute") is not None:
                out.append((assign, target, target is left and not chained))
        assign = right
    return out


def instance_attributes(defs: list[ts.Node], stmts: list[ts.Node], source: bytes) -> list[Candidate]:
    """The instance attributes the methods of each class assign (`self.x = ...`, `self.a, self.b =
    ...`, `self`, or `cls`, being the method's first parameter), as `variable` candidates of the
    class, one per name the class body does not bind itself (a class attribute, a method, a
    property): the first assignment that shows the attribute's class (`self.x = Ctor(...)`,
    `self.x: T = ...`, `self.x = param` with `param: T`), as the resolver needs it, else the first
    in a set-up method (`__init__`, `setUp`, ...), else the first in source order. `stmts`: the
    file's `self.x = ...` statements (`_self_assignments`). The candidate spans the `self.x`
    target only (no use inside it); its signature is the statement's first line, or `self.x: T =
    param` for a parameter."""
    if not stmts:
        return []
    fdefs = sorted((d for d in defs if d.type == "function_definition"), key=lambda d: (d.start_byte, -d.end_byte))
    stmts = sorted(stmts, key=_START)
    by_fn: dict[int, list[ts.Node]] = {}  # function start -> the statements it holds (not its nested defs')
    for st, i in zip(stmts, enclosing([(d.start_byte, d.end_byte) for d in fdefs], [n.start_byte for n in stmts])):
        if i is not None:
            by_fn.setdefault(fdefs[i].start_byte, []).append(st)
    out: list[Candidate] = []
    for cls in defs:
        body = cls.child_by_field_name("body") if cls.type == "class_definition" else None
        if body is None:
            continue
        methods = [fn for fn in (ch.child_by_field_name("definition") if ch.type == "decorated_definition" else ch
                                 for ch in body.named_children) if fn is not None and fn.start_byte in by_fn]
        if methods:
            out += _typed_assignments(cls, body, methods, by_fn, source)
    return out


def _typed_assignments(cls: ts.Node, body: ts.Node, methods: list[ts.Node], by_fn: dict[int, list[ts.Node]],
                       source: bytes) -> list[Candidate]:
    taken = {c.name for c in _class_attributes(cls, source)}
    for ch in body.named_children:
        fn = ch.child_by_field_name("definition") if ch.type == "decorated_definition" else ch
        if fn is not None and fn.type in ("function_definition", "class_definition"):
            taken.add(text(fn.child_by_field_name("name"), source))
    found: list[tuple[int, int, Candidate]] = []  # (rank: typed, set-up, other; position; candidate)
    for fn in methods:
        params = _parameter_types(fn, source)
        me = params.get("", "").encode()
        setup = me and text(fn.child_by_field_name("name"), source) in _SETUP_METHODS
        for st in by_fn[fn.start_byte] if me else ():
            for assign, left, alone in _attribute_targets(st, me, source):
                attr = left.child_by_field_name("attribute")
                name = text(attr, source)
                if name in taken:
                    continue
                sig = _attribute_signature(st, assign, source, params) if alone else ""
                rank = 0 if sig else 1 if setup else 2
                kind = Kind.CONSTANT.value if _CONST_NAME.match(name) else Kind.VARIABLE.value
                found.append((rank, st.start_byte, Candidate(
                    node=left, name=name, kind=kind, signature=sig or _untyped_signature(st, source, left),
                    visibility=visibility(name), name_line=start_line(attr), scope=False,
                    extra={"bytes": (st.start_byte, st.end_byte)})))
    out: list[Candidate] = []
    for _, _, c in sorted(found, key=_RANKED):
        if c.name not in taken:
            taken.add(c.name)
            out.append(c)
    return out


def _parameter_types(fn: ts.Node, source: bytes) -> dict[str, str]:
    """The method's parameters -> their annotated class name ('' when none, or not one
    name); the first parameter (`self`) under the key ''."""
    params = fn.child_by_field_name("parameters")
    out: dict[str, str] = {}
    for p in params.named_children if params is not None else ():
        if p.type == "identifier":
            name, kind = text(p, source), ""
        elif p.type in ("typed_parameter", "typed_default_parameter"):
            ident = p.child_by_field_name("name") or (p.named_children[0] if p.named_child_count else None)
            if ident is None or ident.type != "identifier":
                continue
            name, kind = text(ident, source), _class_of_annotation(p.child_by_field_name("type"), source)
        elif p.type == "default_parameter":
            name, kind = text(p.child_by_field_name("name"), source), ""
        else:
            continue
        if not out:
            out[""] = name
        out[name] = kind
    return out


def _class_of_annotation(node: ts.Node | None, source: bytes) -> str:
    """`Foo`, `pkg.Foo`, `"Foo"`, `Optional[Foo]`, `Foo | None` -> the dotted name; else ''."""
    if node is None:
        return ""
    return annotation_class(collapse(text(node, source)))


def annotation_class(written: str) -> str:
    """The class an annotation's text names, unwrapped as `_class_of_annotation` says; else ''.
    A generic class's parameters are not its class (`RecentlyUsedContainer[K, V]`, `list[int]`);
    a typing form's are (`Union[...]`, `Type[...]`, `Callable[...]`: no one class)."""
    written = written.strip()
    for _ in range(2):
        written = written.strip("\"'")
        m = _OPTIONAL.match(written)
        if m is None:
            break
        written = (m.group(1) or m.group(2) or m.group(3)).strip()
    m = _GENERIC.fullmatch(written)
    if m is not None:
        head = m.group(1).rsplit(".", 1)[-1]
        generic = head in _GENERIC_BUILTINS or (_CLASS_NAME.match(head) and head not in _TYPING_FORMS)
        written = m.group(1) if generic else ""
    return written if _TYPE_NAME.fullmatch(written) else ""


def _attribute_signature(stmt: ts.Node, assign: ts.Node, source: bytes, params: dict[str, str]) -> str:
    """The signature of a typed `self.x = ...` ('' when the assignment shows no type)."""
    right = assign.child_by_field_name("right")
    if assign.child_by_field_name("type") is not None:
        return _value_signature(stmt, source)
    if right is None:
        return ""
    if right.type in ("call", "boolean_operator"):
        return _value_signature(stmt, source) if _constructed(right, source) else ""
    if right.type == "identifier":
        kind = params.get(text(right, source), "")
        if kind:
            left = assign.child_by_field_name("left")
            return cap(f"{collapse(text(left, source))}: {kind} = {text(right, source)}", MAX_VALUE_SIGNATURE_CHARS)
    return ""


# The signatures `_attribute_signature` writes for an instance attribute whose assignment shows
# its class: annotated (`self.x: T = ...`), or a CapWords call that is the whole value
# (`self.x = Foo(...)`, `self.x = given or pkg.Foo(...)`, as `_constructed` reads the tree).
_ANNOTATED_ATTRIBUTE = re.compile(r"[A-Za-z_]\w*\.[A-Za-z_]\w*\s*:")
_CONSTRUCTED_ATTRIBUTE = re.compile(r"[A-Za-z_]\w*\.[A-Za-z_]\w*\s*=\s*(?:\w+\s+or\s+)?(?:\w+\.)*_*[A-Z]\w*[a-z]\w*\s*\(")


def shows_class(signature: str) -> bool:
    """Whether an instance attribute's signature (its statement's first line) shows its class as
    `_attribute_signature` does (`self.x = Foo()`), which the resolver reads; one that does not
    (`self.x = make()`, `self.x = Foo() if c else Bar()`, `self.x = Foo().bar`) types nothing."""
    if _ANNOTATED_ATTRIBUTE.match(signature):
        return True
    m = _CONSTRUCTED_ATTRIBUTE.match(signature)
    if m is None:
        return False
    rest = _after_call(signature, m.end() - 1)
    return rest is None or not rest.strip() or rest.lstrip().startswith("#")


def _after_call(line: str, open_at: int) -> str | None:
    """The text after the parenthesis opened at `open_at` closes (strings skipped); None when it
    does not close on the line (the call goes on below)."""
    depth, quote, i = 0, "", open_at
    while i < len(line):
        ch = line[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return line[i + 1:]
        i += 1
    return None


def _untyped_signature(stmt: ts.Node, source: bytes, obj: ts.Node) -> str:
    """An untyped attribute's signature: its statement's first line, or, when that line does not
    show the attribute (`(` opening a tuple of targets), the statement's head on one line."""
    line = _value_signature(stmt, source)
    if line.startswith(source[obj.start_byte:obj.end_byte].decode("utf-8", "replace")):
        return line
    head = source[stmt.start_byte:min(stmt.end_byte, stmt.start_byte + 4 * MAX_VALUE_SIGNATURE_CHARS)]
    return cap(collapse(head.decode("utf-8", "replace")), MAX_VALUE_SIGNATURE_CHARS)


def _owned_by_class(cands: list[Candidate], parents: list[int | None]) -> list[int | None]:
    """An instance attribute's parent is its method's class (nest() gives the method)."""
    out = list(parents)
    for i, c in enumerate(cands):
        if "bytes" not in c.extra:
            continue
        p = out[i]
        while p is not None and cands[p].kind != Kind.CLASS.value:
            p = out[p]
        out[i] = p
    return out


def _bindings(stmt: ts.Node, source: bytes, seen: set[str]) -> list[Candidate]:
    """Candidates for `a = b = 1`, `x: T = v`, `a, (b, c) = ...` (identifiers only)."""
    assign = stmt.named_children[0] if stmt.named_child_count else None
    names: list[ts.Node] = []
    while assign is not None and assign.type == "assignment":
        names += _target_names(assign.child_by_field_name("left"))
        assign = assign.child_by_field_name("right")
    if not names:
        return []
    sig = _value_signature(stmt, source)
    out = []
    for n in names:
        name = text(n, source)
        if name in seen:
            continue
        seen.add(name)
        kind = Kind.CONSTANT.value if _CONST_NAME.match(name) else Kind.VARIABLE.value
        out.append(Candidate(node=stmt, name=name, kind=kind, signature=sig,
                             visibility=visibility(name), name_line=start_line(n), scope=False))
    return out


def _target_names(left: ts.Node | None) -> list[ts.Node]:
    if left is None:
        return []
    if left.type == "identifier":
        return [left]
    out, stack = [], [left]
    while stack:
        node = stack.pop()
        if node.type == "identifier":
            out.append(node)
        elif node.type in ("pattern_list", "tuple_pattern", "list_pattern"):
            stack.extend(reversed(node.named_children))
    return out


def _type_alias(stmt: ts.Node, source: bytes, seen: set[str]) -> list[Candidate]:
    left = stmt.child_by_field_name("left")
    ident = left
    while ident is not None and ident.type != "identifier" and ident.named_child_count:
        ident = ident.named_children[0]
    if ident is None or ident.type != "identifier":
        return []
    name = text(ident, source)
    if name in seen:
        return []
    seen.add(name)
    return [Candidate(node=stmt, name=name, kind=Kind.TYPE_ALIAS.value,
                      signature=_value_signature(stmt, source), visibility=visibility(name),
                      name_line=start_line(ident), scope=False)]


def _value_signature(stmt: ts.Node, source: bytes) -> str:
    return first_line(stmt, source, MAX_VALUE_SIGNATURE_CHARS)


def _symbols(cands: list[Candidate], parents: list[int | None], module: str) -> list[Symbol]:
    out: list[Symbol] = []
    for c, p in zip(cands, parents):
        kind = c.kind
        if kind == Kind.FUNCTION.value and p is not None and cands[p].kind == Kind.CLASS.value:
            kind = Kind.METHOD.value
        prefix = out[p].qualified_name if p is not None else module
        span = (c.node.start_byte, c.node.end_byte)
        qname = f"{prefix}.{c.name}" if prefix else c.name
        out.append(Symbol(name=c.name, qualified_name=qname, kind=kind,
                          line_start=start_line(c.node),
                          line_end=c.extra.get("end_line") or end_line(c.node),
                          signature=c.signature, visibility=c.visibility, parent=p,
                          doc=c.doc, name_line=c.name_line, byte_start=c.extra.get("bytes", span)[0],
                          byte_end=c.extra.get("bytes", span)[1]))
    return out


# ---- references -------------------------------------------------------------------------

def _redefinitions(cands: list[Candidate], parents: list[int | None]) -> list[PendingRef]:
    """A `def`/`class` that binds again a name its scope's first `def`/`class` bound (a
    property's setter, the variants of `if ...: def f` / `else: def f`) is a reference to
    that name at its name line, so an edit of the first finds the others. Placed just
    before the definition: it is read in the scope around it, which resolves it to the first."""
    first: dict[tuple[int | None, str], int] = {}
    out: list[PendingRef] = []
    for i, c in enumerate(cands):
        if c.kind not in (Kind.FUNCTION.value, Kind.CLASS.value):
            continue
        key = (parents[i], c.name)
        if key in first:
            out.append((max(c.node.start_byte - 1, 0), "references", c.name, c.name_line, "", "", ""))
        else:
            first[key] = i
    return out


def typed_locals(caps: dict[str, list[ts.Node]], pending: list[PendingRef], defs: list[ts.Node],
                 source: bytes) -> list[PendingRef]:
    """Calls on a function's local whose binding shows its class (`w = Writer(...)`,
    `w: Writer = ...`, a literal `w = []`) get the receiver `Writer()` (`list()`), a
    constructor call the resolver follows (`w.write()` is Writer's write, or nothing: never
    another class's method of that name). The binding shows the class of every use when it is
    the name's one binding in its function (no parameter, loop target, other assignment, `:=`
    or `global` of the name there); else of the uses it dominates (`_reaching`): nothing is
    guessed. A local bound to a call rooted at an imported name gets that call as its receiver
    (`_call_value`: another library's value, or one of unknown class). Member reads on a local
    whose binding shows its class, and on a parameter annotated with a class and never
    rebound (`o.label` for `o: Order`: the resolver reads the annotation), are references too."""
    fdefs = sorted((d for d in defs if d.type == "function_definition"), key=lambda d: (d.start_byte, -d.end_byte))
    funcs = [(d.start_byte, d.end_byte) for d in fdefs]
    # only names some call or member read uses as its object can take a type
    wanted = {r[6].encode() for r in pending if r[1] == "calls" and r[6]}
    wanted.update(source[n.start_byte:n.end_byte] for n in caps.get("obj", ()))
    imported = _imported_names(pending)
    assigned = _local_assignments(caps.get("lvassign", ()), funcs, source, wanted, imported)
    typed = {k: got[0][1] for k, got in assigned.items() if len(got) == 1 and got[0][1]}
    agreed = _agreed_call_values(assigned, source, imported)
    for i, fn in enumerate(fdefs):
        params = fn.child_by_field_name("parameters")
        if params is None or b":" not in source[params.start_byte:params.end_byte]:
            continue  # no annotation
        for name, kind in _parameter_types(fn, source).items():
            if name and kind:
                typed.setdefault((i, name.encode()), name)
    names = {k[1] for k in typed} | {k[1] for k, got in assigned.items() if any(r for _, r in got)}
    if not names:
        return pending
    binds = _local_binds(caps, names, funcs, source)
    typed = {k: v for k, v in typed.items() if len(binds.get(k, ())) == 1}
    typed.update((k, v) for k, v in agreed.items() if len(binds.get(k, ())) == len(assigned[k]))
    reaching = _Reaching(assigned, binds)
    results = {r for got in assigned.values() for n, r in got
               if r and r == _call_value(n.child_by_field_name("right"), source, imported)}

    def receiver(fn: int | None, name: bytes, pos: int) -> str | None:
        return typed.get((fn, name)) or reaching.at(fn, name, pos)

    def class_shown(fn: int | None, name: bytes, pos: int) -> str | None:
        # a call's result is no class a member read could be resolved against
        got = receiver(fn, name, pos)
        return None if got in results else got

    pending.sort(key=_FIRST)
    calls = [i for i, r in enumerate(pending) if r[1] == "calls" and r[6] and r[6].encode() in names]
    out = list(pending)
    for i, fn in zip(calls, enclosing(funcs, [pending[i][0] for i in calls])):
        recv = receiver(fn, pending[i][6].encode(), pending[i][0])
        if recv:
            out[i] = (*pending[i][:6], recv)
    return out + _typed_reads(caps, source, funcs, names, class_shown, pending)


def aliased_calls(caps: dict[str, list[ts.Node]], pending: list[PendingRef], defs: list[ts.Node],
                  source: bytes) -> list[PendingRef]:
    """A bare call of a function's local bound to an attribute (`render = console.render_str`
    then `render(x)`, the bound method kept in a local for speed, or a short name for it) is
    that attribute's call: `console.render_str(x)`, resolved through its receiver as if
    written so. The binding decides as a typed local's does (`typed_locals`): the name's one
    binding in its function, or one that dominates the call."""
    bare = {r[2].encode() for r in pending if r[1] == "calls" and not r[6]}
    if not bare:
        return pending
    funcs = sorted(((d.start_byte, d.end_byte) for d in defs if d.type == "function_definition"),
                   key=lambda r: (r[0], -r[1]))
    assigned = {k: [(node, _alias_of(node, source)) for node, _ in got]
                for k, got in _local_assignments(caps.get("lvassign", ()), funcs, source, bare).items()}
    assigned = {k: got for k, got in assigned.items() if any(alias for _, alias in got)}
    if not assigned:
        return pending
    binds = _local_binds(caps, {k[1] for k in assigned}, funcs, source)
    single = {k: got[0][1] for k, got in assigned.items() if len(got) == 1 and len(binds.get(k, ())) == 1}
    reaching = _Reaching(assigned, binds)
    calls = sorted((i for i, r in enumerate(pending) if r[1] == "calls" and not r[6]), key=lambda i: pending[i][0])
    out = list(pending)
    for i, fn in zip(calls, enclosing(funcs, [pending[i][0] for i in calls])):
        name = pending[i][2].encode()
        alias = single.get((fn, name)) or reaching.at(fn, name, pending[i][0])
        if alias:
            obj, _, attr = alias.rpartition(".")
            out[i] = (pending[i][0], "calls", attr, *pending[i][3:6], obj)
    return out


def _alias_of(assign: ts.Node, source: bytes) -> str:
    """`a.b.c` for `x = a.b.c` (names and attributes only: no call, subscript or literal on
    the way), else ''."""
    right = assign.child_by_field_name("right")
    if right is None or right.type != "attribute" or assign.child_by_field_name("type") is not None:
        return ""
    node = right.child_by_field_name("object")
    while node is not None and node.type == "attribute":
        node = node.child_by_field_name("object")
    if node is None or node.type != "identifier":
        return ""
    written = receiver_text(right, source)
    return written if _DOTTED.fullmatch(written) else ""  # not cut for display, no spaces


def _local_assignments(assigns: list[ts.Node], funcs: list[tuple[int, int]], source: bytes,
                       wanted: AbstractSet[bytes], imported: AbstractSet[bytes] = frozenset()
                       ) -> dict[tuple[int, bytes], list[tuple[ts.Node, str]]]:
    """(function index, local name) -> each `name = value` / `name: T = ...` of it there, in
    source order, with the class it shows (`Foo()`, `list()`), else the call it is the result
    of when an imported name roots it (`_call_value`; '' when none); for the names in `wanted`
    only."""
    out: dict[tuple[int, bytes], list[tuple[ts.Node, str]]] = {}
    named = []  # the assignment starts with its target: read from the text (a non-ASCII name: no match)
    for n in assigns:
        m = _LEFT_NAME.match(source, n.start_byte)
        if m is not None and m.group() in wanted:
            named.append((n.start_byte, m.group(), n))
    named.sort(key=_FIRST)
    for (pos, name, node), fn in zip(named, enclosing(funcs, [n[0] for n in named])):
        if fn is not None:  # else module level: a variable symbol, typed by its signature
            out.setdefault((fn, name), []).append(
                (node, _local_class(node, source) or _call_value(node.child_by_field_name("right"), source, imported)))
    return out


def _imported_names(pending: list[PendingRef]) -> frozenset[bytes]:
    """The names the file's imports bind (`import a.b` binds `a`, `from m import x as y` binds `y`)."""
    out = set()
    for r in pending:
        if r[1] == "imports" and r[2] != "*":
            out.add((r[5] or (r[2].split(".")[0] if r[4] == r[2] else r[2])).encode())
    return frozenset(out)


def _call_value(value: ts.Node | None, source: bytes, imported: AbstractSet[bytes]) -> str:
    """The receiver a call's result stands for when an imported name roots the call chain
    (`email.parser.Parser(policy=p).parsestr(data)` -> `email.parser.Parser().parsestr()`, the
    arguments left out): the resolver reads another library's result as that library's value,
    and the repository's own as a value of unknown class. '' for anything else, and for a lone
    constructor call (`_constructed` says what it makes)."""
    calls = []
    node = value
    while node is not None and node.type == "call":
        calls.append(node)
        callee = node.child_by_field_name("function")
        obj = callee.child_by_field_name("object") if callee is not None and callee.type == "attribute" else None
        node = obj if obj is not None and obj.type == "call" else None
    if not calls:
        return ""
    head = calls[-1].child_by_field_name("function")
    written = receiver_text(head, source) if head is not None and head.type in ("identifier", "attribute") else ""
    if not _DOTTED.fullmatch(written) and not written.isidentifier():
        return ""
    if written.split(".")[0].encode() not in imported or (len(calls) == 1 and _constructed(calls[0], source)):
        return ""
    if len(calls) == 1 and written.rsplit(".", 1)[-1] in _SAME_CLASS_CALLS:
        return ""  # `copy.copy(x)`: x's class, whatever library copies it
    tails = [text(c.child_by_field_name("function").child_by_field_name("attribute"), source) for c in calls[-2::-1]]
    return "".join([written, "()", *(f".{t}()" for t in tails)])


def _agreed_call_values(assigned: dict[tuple[int, bytes], list[tuple[ts.Node, str]]], source: bytes,
                        imported: AbstractSet[bytes]) -> dict[tuple[int, bytes], str]:
    """Locals assigned more than once, each time a call's result rooted at the same imported
    name (`parsed = email.parser.Parser().parsestr(s)` / `else: parsed = email.parser.BytesParser()
    .parsebytes(b)`): the first one's call stands for all (the resolver decides by the root)."""
    out = {}
    for k, got in assigned.items():
        if len(got) < 2 or not all(r and r == _call_value(n.child_by_field_name("right"), source, imported)
                                   for n, r in got):
            continue
        if len({r.split("(")[0].split(".")[0] for _, r in got}) == 1:
            out[k] = got[0][1]
    return out


def _local_binds(caps: dict[str, list[ts.Node]], names: set[bytes], funcs: list[tuple[int, int]],
                 source: bytes) -> dict[tuple[int | None, bytes], list[int]]:
    """(function index, name) -> the positions where the function binds one of `names`
    (parameters, assignment, loop, `with`/`except` and `:=` targets, in source order), and
    [-1] first when it declares the name `global` (or a function nested in it `nonlocal`):
    then another scope's code may rebind it at any time."""
    nodes = sorted((n.start_byte, source[n.start_byte:n.end_byte], role) for role in ("local", "global", "walrus")
                   for n in caps.get(role, ()) if source[n.start_byte:n.end_byte] in names)
    shared = set()
    if b"nonlocal" in source:  # rare: ask the tree which bindings are `nonlocal` declarations
        shared = {source[n.start_byte:n.end_byte] for n in caps.get("local", ())
                  if n.parent is not None and n.parent.type == "nonlocal_statement"}
    out: dict[tuple[int | None, bytes], list[int]] = {}
    for (pos, name, role), fn in zip(nodes, enclosing(funcs, [n[0] for n in nodes])):
        spots = out.setdefault((fn, name), [])
        if (role == "global" or name in shared) and spots[:1] != [-1]:
            spots.insert(0, -1)
        spots.append(pos)
    return out


class _Reaching:
    """The class a local's binding shows at a use it dominates: the use is the binding's
    function's, after the assignment statement and inside the block holding it (every path
    to the use runs the assignment), no other binding of the name comes between, and none
    follows in that block (a loop around the use could bring it back). `msg = Multipart()`
    then `msg.attach()` is Multipart's attach even when `msg` is a parameter too. A use on
    the right of an assignment that binds the name again (`url = url.replace(...)`) reads the
    binding before it: the new one takes effect after the value is computed, and the
    rebinding runs after the use, not around it, unless a loop inside the block holds it."""

    def __init__(self, assigned: dict[tuple[int, bytes], list[tuple[ts.Node, str]]],
                 binds: dict[tuple[int | None, bytes], list[int]]):
        self.binds = binds
        self.at_left = {node.start_byte: (node, recv) for got in assigned.values() for node, recv in got if recv}
        self.assigns = {node.start_byte: node for got in assigned.values() for node, _ in got}

    def at(self, fn: int | None, name: bytes, pos: int) -> str | None:
        spots = self.binds.get((fn, name))
        if fn is None or not spots or spots[0] == -1:
            return None
        i = bisect.bisect_left(spots, pos) - 1
        own = self.assigns.get(spots[i]) if i >= 0 else None
        if own is not None and pos < own.end_byte:  # the value of the assignment that rebinds the name
            i -= 1
        else:
            own = None
        hit = self.at_left.get(spots[i]) if i >= 0 else None
        if hit is None or pos < hit[0].end_byte:
            return None
        stmt = hit[0].parent
        block = stmt.parent if stmt is not None and stmt.type == "expression_statement" else None
        if block is None or block.type != "block" or not block.start_byte <= pos < block.end_byte:
            return None
        later = spots[i + 1:]
        if own is not None:
            if _in_loop_below(own, block):
                return None  # a loop runs the rebinding first, then the use reads its value
            later = later[1:]
        if later and later[0] < block.end_byte:
            return None
        return hit[1]


_LOOPS = frozenset({"for_statement", "while_statement"})


def _in_loop_below(node: ts.Node, block: ts.Node) -> bool:
    """Whether a loop inside `block` holds `node`."""
    up = node.parent
    while up is not None and up.start_byte >= block.start_byte and up != block:
        if up.type in _LOOPS:
            return True
        up = up.parent
    return False


def _typed_reads(caps: dict[str, list[ts.Node]], source: bytes, funcs: list[tuple[int, int]], names: set[bytes],
                 receiver, pending: list[PendingRef]) -> list[PendingRef]:
    """`w.name` read (not called, not assigned) on a typed local: a reference, receiver `Writer()`.
    `receiver(function index, local name, position)`: that class as a receiver, or None."""
    objs = sorted((n for n in caps.get("obj", ()) if source[n.start_byte:n.end_byte] in names), key=_START)
    if not objs:
        return []
    callees = {r[0] for r in pending if r[1] == "calls"}
    bound = {n.start_byte for n in caps.get("objset", ())}
    found: list[_Use] = []
    for pos, fn in zip(objs, enclosing(funcs, [n.start_byte for n in objs])):
        recv = receiver(fn, source[pos.start_byte:pos.end_byte], pos.start_byte) if pos.start_byte not in bound else None
        name, a, line_node = _attribute_after(pos, source) if recv else (None, 0, pos)
        if name is not None and a not in callees:
            found.append((a, name, recv.encode(), line_node))
    return _one_per_line(found, ())


def _local_class(assign: ts.Node, source: bytes) -> str:
    """`Foo()` for `x = Foo(...)` / `x = pkg.Foo(...)` / `x: Foo = ...`, `list()` for `x = []`
    or `x = list(...)` (a builtin value type), else ''."""
    kind = _class_of_annotation(assign.child_by_field_name("type"), source)
    if not kind:
        right = assign.child_by_field_name("right")
        kind = _constructed(right, source) or _builtin_value(right, source)
    return f"{kind}()" if kind else ""


def _builtin_value(value: ts.Node | None, source: bytes) -> str:
    """The builtin type of a literal (`[]`, `{}`, `""`, f-strings, numbers, comprehensions)
    or of a call of a builtin value type's name (`dict(...)`); else ''."""
    if value is None:
        return ""
    kind = _LITERAL_TYPES.get(value.type, "")
    if kind == "str" and value.type == "string" and source[value.start_byte:value.start_byte + 2].lower() in (
            b"b'", b'b"', b"br", b"rb"):
        return "bytes"
    if kind or value.type != "call":
        return kind
    callee = value.child_by_field_name("function")
    if callee is not None and callee.type == "identifier":
        written = source[callee.start_byte:callee.end_byte].decode("utf-8", "replace")
        return written if written in VALUE_TYPES else ""
    return ""


def _constructed(value: ts.Node | None, source: bytes) -> str:
    """The class `value` is an instance of when it says so: `Foo(...)`, `pkg.Foo(...)`, or
    `given or Foo(...)` (a default for a parameter, of the same class by the idiom); else ''.
    A CapWords callee is taken for a class, as Python's naming convention writes one."""
    if value is not None and value.type == "boolean_operator":
        op = value.child_by_field_name("operator")
        if op is None or op.type != "or" or value.child_by_field_name("left").type != "identifier":
            return ""
        value = value.child_by_field_name("right")
    if value is None or value.type != "call":
        return ""
    callee = value.child_by_field_name("function")
    if callee is None or callee.type not in ("identifier", "attribute"):
        return ""
    written = source[callee.start_byte:callee.end_byte]
    if not _CAPWORDS_TAIL.search(written):  # most calls: a lower-case function, decided on the bytes
        return ""
    written = written.decode("utf-8", "replace")
    return written if _TYPE_NAME.fullmatch(written) and _CLASS_NAME.match(written.rsplit(".", 1)[-1]) else ""


def _imports(node: ts.Node, source: bytes) -> list[PendingRef]:
    """`import a.b as c` -> to_name a.b, module a.b, alias c; `from .m import x as y` ->
    to_name x, module .m, alias y; `from m import *` -> to_name *. `import m` and `from m
    import m` would be written alike (a package may bind its own name: attrs' `attr`), so the
    latter carries its name as alias (the name it binds), and `import m as m` (a stub's
    re-export) none."""
    module_node = node.child_by_field_name("module_name")
    module = text(module_node, source)
    if node.type == "future_import_statement":
        module = "__future__"
    out = []
    for ch in node.named_children:
        if ch == module_node:
            continue
        if ch.type == "wildcard_import":
            out.append((ch.start_byte, "imports", "*", start_line(ch), module, "", ""))
        elif ch.type == "aliased_import":
            name = text(ch.child_by_field_name("name"), source)
            alias = text(ch.child_by_field_name("alias"), source)
            alias = "" if not module and alias == name else alias
            out.append((ch.start_byte, "imports", name, start_line(ch), module or name, alias, ""))
        elif ch.type == "dotted_name":
            name = text(ch, source)
            out.append((ch.start_byte, "imports", name, start_line(ch), module or name, name if module == name else "",
                        ""))
    return out


def _calls(caps: dict[str, list[ts.Node]], source: bytes) -> list[PendingRef]:
    """`f(x)` -> to_name f; `a.b.f(x)` -> to_name f, receiver `a.b` (line of `f`). An
    attribute callee ends its `@callattr` node (no other identifier ends there)."""
    attrs = {n.end_byte: n for n in caps.get("callattr", ())}
    out: list[PendingRef] = []
    for callee in caps.get("callee", ()):
        start, end = callee.start_byte, callee.end_byte
        attr = attrs.get(end)
        out.append((start, "calls", source[start:end].decode("utf-8", "replace"), callee.start_point[0] + 1, "", "",
                    receiver_text(attr.child_by_field_name("object"), source) if attr is not None else ""))
    return out


# Uses of names that are not calls: `isinstance(x, Foo)`, `class A(Base)`, `x: Foo`,
# `@decorator`, callbacks, `Foo.CONST`, `self.method` passed around, properties. The
# identifiers are captured in the same query pass (the walk, not the matching, is the cost),
# but a bare name is kept only when this file defines or imports it: a bare name reaches a
# repository symbol only through a definition or an import (or a star import), so the rest
# (locals, parameters, builtins) would only be unresolvable noise in the edge table.
_SELF_NAMES = (b"self", b"cls")
# The attribute name after an attribute's object (`self.x` -> x), read from the text when
# nothing but spaces stands between (else the tree is asked): one match costs a fraction of
# the node's parent and field lookups. A name that goes on in non-ASCII does not match.
_ATTRIBUTE_NAME = re.compile(rb"[ \t]*\.[ \t]*([A-Za-z_]\w*)(?![\w\x80-\xff])")
_BUILTINS = frozenset(dir(builtins))
_LEFT_NAME = re.compile(rb"[A-Za-z_]\w*(?![\w\x80-\xff])")
_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")


def name_uses(uses: dict[str, list[ts.Node]], defined: set[str], defs: list[ts.Node],
              pending: list[PendingRef], source: bytes, modules: AbstractSet[str] = frozenset(),
              heads: Sequence[tuple[int, int]] = (), attributes: AbstractSet[str] = frozenset()) -> None:
    """Add to `pending` a `references` edge for each non-call use among `uses` (captures of
    QUERY; one per name, receiver and line), and drop the bare names, calls included,
    that their function, or a function around it, binds locally (parameters, assignments,
    loop/with/except targets): Python makes such a name local in the whole function and
    in the functions nested in it (unless one declares it `global`), so it cannot mean the
    module-level definition or import of the same name. Bare calls of builtins the file
    does not redefine or import are dropped too; `self.x` reads are kept only for names
    some definition here has (instance attributes are the bulk of the rest).

    `modules`: names the file binds only by plain imports (`import os`, `import a.b as c`).
    A bare use of one is a use of that module, and a module is no symbol: no find_references
    answer can list it, and counted in `unresolved_count` it would only add noise to every
    symbol that happens to share the name (`salt`, `pytest`, `os`...). Its attribute reads
    (`os.path`, `salt.utils`) are kept like any others.

    `heads`: (start, body start) of each definition's head (`_heads`), sorted: a use there,
    call or not, is evaluated in the scope around the definition, and is placed there.

    `attributes`: the instance attributes this file's classes define (`self.x = Foo()`):
    their `self.x` reads are kept, but a bare `x` is no use of them."""
    known, callees, star = _file_names(defined, pending)
    module_only = {n.encode() for n in modules} if not star else ()
    members = known | {n.encode() for n in attributes} if attributes else known
    found = _attribute_uses(uses, source, known, callees, star, module_only, members)
    found = _without_baseless_reads(found, members, defs, source)
    found += _plain_uses(uses.get("name", ()), source, known, star, module_only)
    found += _super_uses(uses, source, callees)
    out = _one_per_line(found, heads)
    if not star:  # `len(x)` here can only be the builtin: no edge can ever resolve it
        names = {n.decode("utf-8", "replace") for n in known}
        pending[:] = [r for r in pending if r[1] != "calls" or r[6] or r[2] in names or r[2] not in _BUILTINS]
    if heads:  # calls in heads too (the positions of calls served `callees` above), in source
        # order first: captures() lists are not, and moved calls share one position
        pending.sort(key=_FIRST)
        pending[:] = [(_outside_heads(r[0], heads), *r[1:]) if r[1] == "calls" else r for r in pending]
    pending += out
    bindings = _local_bindings(uses, source, known, star)
    if bindings:
        pending[:] = _without_locals(pending, bindings, defs, source)
        if any(b[2] for b in bindings):
            _global_imports(pending, bindings, defs)


# A use found, before its line is known: (position, name, receiver text, node on its line).
_Use = tuple[int, bytes, bytes, ts.Node]


def _attribute_uses(uses: dict[str, list[ts.Node]], source: bytes, known: set[bytes], callees: set[int],
                    star: bool, module_only: AbstractSet[bytes], members: AbstractSet[bytes]) -> list[_Use]:
    """`obj.attr` (QUERY's `obj`): obj is a use, and attr one when read through a known object."""
    bound = {n.start_byte for n in uses.get("objset", ())}  # objects of `obj.attr = ...` and the like
    assigned = _self_assigned(uses.get("objset", ()), source)
    found: list[_Use] = []
    for pos in uses.get("obj", ()):
        start = pos.start_byte
        word = source[start:pos.end_byte]
        own = word in known
        selfish = word in _SELF_NAMES
        if own or selfish:
            # `obj.attr` read through a known object: an edge to attr, receiver obj (besides
            # obj's own use below). Found from the object's identifier, not by a query pattern
            # of its own: that pattern captured three nodes per attribute in the file, most
            # of them on objects no rule can follow
            name, a, line_node = _attribute_after(pos, source)
            # `self.x` with no x defined here but assigned (`self.x = ...`): no edge (an
            # instance attribute, the bulk of self/cls reads) nor for `self.__class__`; one
            # never assigned here may be a base class's method or property (`self.closed`),
            # which the resolver finds through the bases
            if (name is not None and not (selfish and name not in members and (name in assigned or name[:2] == b"__"))
                    and a not in callees and start not in bound):
                found.append((a, name, word, line_node))
        if (own or star and not selfish) and word not in module_only:
            found.append((start, word, b"", pos))
    return found


def _attribute_after(obj: ts.Node, source: bytes) -> tuple[bytes | None, int, ts.Node]:
    """(attribute name, its position, a node on its line) of `obj.name`; name None when
    the attribute is no plain identifier."""
    m = _ATTRIBUTE_NAME.match(source, obj.end_byte)
    if m is not None:  # the name from the text, on the object's line
        return m.group(1), m.start(1), obj
    # the text cannot tell (a comment, a line break, a non-ASCII name): ask the tree
    attr = obj.parent.child_by_field_name("attribute")
    if attr is None or attr.type != "identifier":
        return None, 0, obj
    return source[attr.start_byte:attr.end_byte], attr.start_byte, attr


def _without_baseless_reads(found: list[_Use], members: AbstractSet[bytes], defs: list[ts.Node],
                            source: bytes) -> list[_Use]:
    """Drop the `self.x` reads of names no definition here has inside a class with no base
    (`class A:`, `class A(object):`): nothing outside the file can define x for it, so the
    read is an instance attribute's (set elsewhere, or a mixin's host's) and no edge."""
    reads = [u for u in found if u[2] in _SELF_NAMES and u[1] not in members]
    if not reads:
        return found
    ranges = sorted(((d.start_byte, d.end_byte) for d in defs), key=lambda r: (r[0], -r[1]))
    node_at = {d.start_byte: d for d in defs}
    # each definition's class: itself, or the innermost class around it (None: none)
    classes: list[ts.Node | None] = []
    for i, parent in enumerate(enclosing(ranges, [r[0] - 1 for r in ranges])):
        node = node_at[ranges[i][0]]
        classes.append(node if node.type == "class_definition" else classes[parent] if parent is not None else None)
    reads.sort(key=_FIRST)
    drop = set()
    for use, i in zip(reads, enclosing(ranges, [u[0] for u in reads])):
        cls = classes[i] if i is not None else None
        if cls is None or not _has_base(cls, source):
            drop.add(use[0])
    return [u for u in found if u[0] not in drop or u[2] not in _SELF_NAMES]


def _has_base(cls: ts.Node, source: bytes) -> bool:
    supers = cls.child_by_field_name("superclasses")
    return supers is not None and any(ch.type != "keyword_argument" and source[ch.start_byte:ch.end_byte] != b"object"
                                      for ch in supers.named_children)


def _self_assigned(objects: list[ts.Node], source: bytes) -> set[bytes]:
    """The attribute names bound through self/cls in the file (`self.x = ...`, `for self.x in`)."""
    out: set[bytes] = set()
    for pos in objects:
        if source[pos.start_byte:pos.end_byte] in _SELF_NAMES:
            m = _ATTRIBUTE_NAME.match(source, pos.end_byte)
            if m is not None:
                out.add(m.group(1))
    return out


def _plain_uses(nodes: list[ts.Node], source: bytes, known: set[bytes], star: bool,
                module_only: AbstractSet[bytes]) -> list[_Use]:
    """Any other use (QUERY's `name`; never a callee: those are `call` children) of a name the
    file defines or imports."""
    found: list[_Use] = []
    for pos in nodes:
        start = pos.start_byte
        word = source[start:pos.end_byte]
        if (word in known or star and word not in _SELF_NAMES) and word not in module_only:
            found.append((start, word, b"", pos))
    return found


def _super_uses(uses: dict[str, list[ts.Node]], source: bytes, callees: set[int]) -> list[_Use]:
    """`super().method` used as a value, not called."""
    found: list[_Use] = []
    for _, sup, pos in _attributes(uses, "sattribute", "sup", "sattr"):
        start = pos.start_byte
        if source[sup.start_byte:sup.end_byte] == b"super" and start not in callees:
            found.append((start, source[start:pos.end_byte], b"super()", pos))
    return found


def _one_per_line(found: list[_Use], heads: Sequence[tuple[int, int]]) -> list[PendingRef]:
    """`references` edges in source order (captures() lists are not), one per name, receiver
    and line: of a name's uses on one line the first is kept, the same one every run."""
    found.sort(key=_FIRST)
    out: list[PendingRef] = []
    seen: set[tuple[bytes, bytes, int]] = set()
    for start, word, recv, pos in found:
        line = pos.start_point[0] + 1
        key = (word, recv, line)
        if key not in seen:
            seen.add(key)
            out.append((_outside_heads(start, heads) if heads else start, "references",
                        word.decode("utf-8", "replace"), line, "", "", recv.decode("utf-8", "replace")))
    return out


def _local_bindings(uses: dict[str, list[ts.Node]], source: bytes, known: set[bytes],
                    star: bool) -> list[tuple[int, str, bool]]:
    """(position, name, is `global`) of each binding (QUERY's `local` and `global`) of a name
    the file defines or imports."""
    bindings: list[tuple[int, str, bool]] = []
    for role in ("local", "global"):
        for pos in uses.get(role, ()):
            start = pos.start_byte
            word = source[start:pos.end_byte]
            if word in known or star and word not in _SELF_NAMES:
                bindings.append((start, word.decode("utf-8", "replace"), role == "global"))
    return bindings


def _attributes(uses: dict[str, list[ts.Node]], whole: str, obj: str, attr: str):
    """(attribute node, its object, its attribute name) from captures() lists, paired by
    position (the object starts the node, the name ends it), not by list order."""
    objs = {n.start_byte: n for n in uses.get(obj, ())}
    attrs = {n.end_byte: n for n in uses.get(attr, ())}
    for node in uses.get(whole, ()):
        o, a = objs.get(node.start_byte), attrs.get(node.end_byte)
        if o is not None and a is not None:
            yield node, o, a


def _file_names(defined: set[str], pending: list[PendingRef]) -> tuple[set[bytes], set[int], bool]:
    """(names the file defines or imports, positions of call names, has a star import)."""
    known = {n.encode() for n in defined}
    callees: set[int] = set()
    star = False
    for ref in pending:
        if ref[1] == "calls":
            callees.add(ref[0])
        elif ref[2] == "*":
            star = True
        else:
            known.add((ref[5] or ref[2]).encode())
            known.add(ref[2].split(".", 1)[0].encode())
    return known, callees, star


def _outside_heads(pos: int, heads: Sequence[tuple[int, int]]) -> int:
    """A use inside a definition's head is evaluated in the scope around the definition
    (`@name.setter` and a method's defaults see the class body, `class A(dict)` does not see
    A's own `dict`): move it just before the definition, so the enclosing symbol is the
    scope's (-1, before everything, for a definition at the file's first byte)."""
    i = bisect.bisect_right(heads, (pos, 1 << 62)) - 1
    if i >= 0 and heads[i][0] <= pos < heads[i][1]:
        return heads[i][0] - 1
    return pos


def _without_locals(refs: list[PendingRef], bindings: list[tuple[int, str, bool]],
                    defs: list[ts.Node], source: bytes) -> list[PendingRef]:
    """`refs` without the bare uses of names a function binds, read in it or in a scope
    nested in it (see name_uses): from the use's innermost definition outwards, the first
    function that binds the name or declares it `global` decides. A class body sees its own
    bindings (the resolver reads them, in order) but hides them from the functions in it.
    A use is kept when that function also defines the name with a `def` or `class` (that
    definition is a symbol the resolver finds in the function's scope)."""
    ordered = sorted(defs, key=lambda d: (d.start_byte, -d.end_byte))
    scopes = [(d.start_byte, d.end_byte, d.type == "class_definition") for d in ordered]
    ranges = [(r[0], r[1]) for r in scopes]
    spots = sorted({b[0] for b in bindings})
    at = dict(zip(spots, enclosing(ranges, spots)))
    binds = {(at[p], name): is_global for p, name, is_global in sorted(bindings, key=lambda b: b[2])
             if at[p] is not None}  # `global x` and `x = 1` in one function: x is global there
    if not any(not g and not scopes[i][2] for (i, _), g in binds.items()):
        return refs  # no function binds a name the file defines or imports: nothing to drop
    names = {name for _, name in binds}
    positions = sorted({r[0] for r in refs if r[1] != "imports" and not r[6] and r[2] in names})
    owner = dict(zip(positions, enclosing(ranges, positions)))
    parents = _parents(ranges)
    nested = {(parents[i], text(d.child_by_field_name("name"), source))  # (scope, a definition's name in it)
              for i, d in enumerate(ordered) if parents[i] is not None}
    local: dict[tuple[int | None, str], bool] = {}
    out = []
    for r in refs:
        if r[1] != "imports" and not r[6] and r[2] in names:
            key = (owner[r[0]], r[2])
            if key not in local:
                local[key] = _bound_in_function(key[0], r[2], binds, scopes, parents, nested)
            if local[key]:
                continue
        out.append(r)
    return out


def _global_imports(refs: list[PendingRef], bindings: list[tuple[int, str, bool]], defs: list[ts.Node]) -> None:
    """Place at module level (position -1) the imports in a function that declares the name
    they bind `global` (`global np; import numpy as np`): they bind the module's name, not
    the function's."""
    funcs = sorted(((d.start_byte, d.end_byte) for d in defs if d.type == "function_definition"),
                   key=lambda r: (r[0], -r[1]))
    declared = sorted((p, name) for p, name, is_global in bindings if is_global)
    glob = {(fn, name) for (_, name), fn in zip(declared, enclosing(funcs, [p for p, _ in declared]))
            if fn is not None}
    imports = sorted((r[0], i) for i, r in enumerate(refs) if r[1] == "imports")
    for (_, i), fn in zip(imports, enclosing(funcs, [p for p, _ in imports])):
        r = refs[i]
        if fn is not None and ((fn, r[5] or r[2]) in glob or (fn, r[2].split(".", 1)[0]) in glob):
            refs[i] = (-1, *r[1:])


def _bound_in_function(scope: int | None, name: str, binds: dict[tuple[int, str], bool],
                       scopes: list[tuple[int, int, bool]], parents: list[int | None],
                       nested: set[tuple[int | None, str]]) -> bool:
    """Whether `name` read in scope `scope` (an index of `scopes`) is a function's local
    that no definition of the function names."""
    first = True
    while scope is not None:
        g = binds.get((scope, name))
        if scopes[scope][2]:  # a class body: its own names only to its own statements
            if first and g is not None:
                return False
        elif g is not None:
            return not g and (scope, name) not in nested
        first = False
        scope = parents[scope]
    return False


def _parents(ranges: list[tuple[int, int]]) -> list[int | None]:
    """The index of the innermost range around each of `ranges` (sorted by (start, -end))."""
    out: list[int | None] = []
    stack: list[int] = []
    for i, (start, _) in enumerate(ranges):
        while stack and ranges[stack[-1]][1] <= start:
            stack.pop()
        out.append(stack[-1] if stack else None)
        stack.append(i)
    return out
