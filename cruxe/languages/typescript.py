"""TypeScript, TSX and JavaScript extraction: definitions, imports and calls from one file.

Rules (the choices CONTRACTS leaves open):

- Kinds: function declarations, generators, overload signatures and `declare function` ->
  function (each overload is its own symbol, on its own line); classes (abstract too) ->
  class; class and object-literal methods, getters, setters, constructors, abstract methods,
  method signatures (interfaces, overloads) -> method; class fields -> variable, or method
  when initialised with an arrow function or function expression (`onClick = () => {}`);
  interface and type-literal property signatures -> variable; interfaces -> interface;
  `type` -> type_alias; `enum` -> enum and each member -> constant; `namespace`/`module`/
  `declare module "x"`/`declare global` -> module (`namespace A.B.C` gives A, B and C).
  Module-level `const` (file or namespace body, not inside functions) -> constant, `let`/`var`
  -> variable, either one function when its value is an arrow function / function expression;
  each declarator is its own symbol. JavaScript also gets CommonJS `exports.x = ...`,
  `module.exports.x = ...`, the function-valued pairs of `module.exports = {...}`, and
  `X.prototype.m = function` and a top-level `X.m = function` (method, qualified `X.m`; not
  on `exports`, `this` or a global such as `window`); TypeScript gets the top-level member
  assignments too. TypeScript/TSX: a function-valued object pair (`{ m: () => {} }`, the pair
  form of `{ m() {} }`) -> method; `x.m = () => {}` / `x.m = function` as a statement in a
  body -> method, qualified `x.m` under the enclosing definition (not on `this` or a global).
  Members with computed names (`[Symbol.iterator]()`) are not symbols.
- Lines: `line_start` includes decorators and `export`/`declare`; for the 2nd and later
  declarators of one statement it is the declarator's own line; `line_end` of a variable is
  its declarator's end (as the TypeScript compiler reports). `name_line` is the identifier's.
- qualified_name: the file's module path, then the dotted lexical path:
  `src/auth/jwt.ts` + `Validator.validate` -> `auth.jwt.Validator.validate`. The module path
  is the part after the last `src/` directory (the whole path when there is none), without
  the extension, with `/` as `.`, and a final `index` dropped (`src/index.ts` -> no prefix).
- Visibility: exported (`export ...`, `export { name }`, `export default name`, CommonJS
  exports) and ambient (`declare`, or anything in a `.d.ts` file) declarations -> public;
  other module-level and local declarations -> private (a module's own). Class members:
  `private` or `#name` -> private, `protected` -> protected, otherwise public;
  interface/type members and enum members -> public.
- References: imports (one per bound name; `export ... from`, `require("x")`, `import("x")`
  too; `export { a as b }` without a source, and `export const b = a`, are imports of the
  file's own `a`, module "", but for an imported `a` not renamed or aliased by a constant: its
  import line is the re-export)
  and calls (`f()`, `obj.f()`, `new X()`, and JSX component tags `<Button/>`).
"""
from __future__ import annotations

import re
from bisect import bisect_right
from functools import lru_cache
from dataclasses import dataclass, field

import tree_sitter as ts

from ..model import FileExtract, Kind, Reference, Symbol
from ._common import (MAX_DOC_CHARS, MAX_SIGNATURE_CHARS, Candidate, Captures, PendingRef, attach_enclosing,
                      block_doc, by_reader, cap, collapse, enclosing, end_line, error_count, matches, nest, owner_of,
                      parse, path_after_src, query, query_sections, short_receiver, spans, start_line, text)

MAX_SCANNED_LINE = 2000  # bytes; longer lines are scanned byte by byte in Python: too slow

# The query of each grammar: the sections of queries/typescript.scm, in this order. The
# capture names are those the .scm lists.
_SECTIONS = {
    "typescript": ("ts-defs", "context", "ts-context", "ts-vars", "namespace-objects", "refs", "ts-refs",
                   "value-refs", "ts-value-decls"),
    "tsx": ("ts-defs", "context", "ts-context", "ts-vars", "namespace-objects", "refs", "ts-refs", "jsx-refs",
            "value-refs", "ts-value-decls"),
    "javascript": ("js-defs", "context", "js-vars", "namespace-objects", "refs", "jsx-refs", "value-refs",
                   "js-value-decls"),
}


@lru_cache(maxsize=None)
def _query_text(lang: str) -> str:
    sections = query_sections("typescript")
    return "".join(sections[name] for name in _SECTIONS[lang])


_FIXED_KINDS = {
    "function_declaration": Kind.FUNCTION, "generator_function_declaration": Kind.FUNCTION,
    "function_signature": Kind.FUNCTION, "class_declaration": Kind.CLASS,
    "abstract_class_declaration": Kind.CLASS, "interface_declaration": Kind.INTERFACE,
    "type_alias_declaration": Kind.TYPE_ALIAS, "enum_declaration": Kind.ENUM,
    "method_definition": Kind.METHOD, "method_signature": Kind.METHOD,
    "abstract_method_signature": Kind.METHOD, "property_signature": Kind.VARIABLE,
    "enum_assignment": Kind.CONSTANT, "pair": Kind.METHOD,
}
_NAME_FIELD = {"field_definition": "property", "pair": "key"}
_FIELD_TYPES = frozenset({"public_field_definition", "field_definition"})
_FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "function", "generator_function"})
_JS_NAME = re.compile(r"[A-Za-z_$][\w$]*")
# Objects whose members assigned at a module's top level are not methods of a definition:
# exports (handled above), globals and `this`.
_NOT_OWNERS = frozenset({"exports", "module", "this", "window", "globalThis", "global", "self", "process"})
_MEMBER_TYPES = frozenset({"method_definition", "method_signature", "abstract_method_signature",
                           "public_field_definition", "field_definition", "property_signature",
                           "enum_assignment", "pair"})
_NAME_TYPES = frozenset({"identifier", "type_identifier", "property_identifier",
                         "private_property_identifier", "string", "shorthand_property_identifier"})


def extract_typescript(source: bytes, path: str) -> FileExtract:
    return _extract("typescript", source, path)


def extract_tsx(source: bytes, path: str) -> FileExtract:
    return _extract("tsx", source, path)


def extract_javascript(source: bytes, path: str) -> FileExtract:
    return _extract("javascript", source, path)


def module_path(path: str) -> str:
    """`src/auth/jwt.ts` -> `auth.jwt`; `src/index.ts` -> ``; `lib/a/index.d.ts` -> `lib.a`."""
    parts, _ = path_after_src(path)
    if not parts:
        return ""
    stem = parts[-1]
    for ext in (".d.ts", ".d.mts", ".d.cts", ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"):
        if stem.endswith(ext):
            stem = stem[:-len(ext)]
            break
    parts[-1] = stem
    if parts[-1] == "index":
        parts.pop()
    return ".".join(parts)


# Module augmentation: an interface or namespace directly inside `declare module "x" {...}` or
# `declare global {...}` adds members to a declaration made elsewhere (it merges with it), so the
# declaration it augments is what a lookup of the name means; the augmentations follow it.
AUGMENTING_KINDS = frozenset({Kind.INTERFACE.value, Kind.MODULE.value})
_AUGMENTING = re.compile(r"declare\s+(?:module\s*['\"]|global\b)")


def augments(kind: str, parent_signature: str | None) -> bool:
    """True for a definition of `kind` whose parent's signature is an augmenting block's."""
    return kind in AUGMENTING_KINDS and _AUGMENTING.match(parent_signature or "") is not None


# ---- grammar gaps ------------------------------------------------------------------------
# tree-sitter-typescript 0.23 (and -javascript 0.25) reject some forms that the compilers
# accept, and one error can turn the rest of a file into an ERROR node. We patch the bytes we parse
# (same length, so every offset and line stays true; names and signatures are read from the
# original bytes) and keep the patched tree only if it has fewer syntax errors:
# - variance annotations on type parameters, `interface I<in out T, out U>`: blanked;
# - escaped backticks (`\``), which the grammar rejects in template literal types: blanked;
# - (JavaScript) reserved words as export names, `export { void_ as void }`: the name's first
#   letter becomes `_`;
# - TypeScript 5 forms it does not know: `export type * from` and a modifier before
#   `accessor` (`static accessor x`): the `type` / `accessor` keyword is blanked;
# - call signatures on their own line after another member, `): A\n  <B>(x: B): C`, read as
#   a call of the previous type: a `;` is put in the indentation to end the member.
# `in`, `out` or `in out`, then what can only be a type parameter: a name and `extends`, `=`,
# `,` or `>`. A match counts only after `<` or `,` (checked in `_patched`).
_VARIANCE = re.compile(rb"(?:in|out)(?:\s+out)?(?=\s+[A-Za-z_$][\w$]*\s*(?:extends\b|[=,>]))")
# (Also members named like an operator keyword, `in: string`, read as `previous in ...`.)
_KEYWORD_MEMBER = rb"|(?:in|as|is|instanceof|satisfies)\??:"
_SIGNATURE_LINE = {
    "typescript": re.compile(rb"\n[ \t]*[ \t](?=\(|<\s*[A-Za-z_$]" + _KEYWORD_MEMBER + rb")"),
    # TSX lines often start with `<` (JSX): only a type parameter list followed by `(` counts.
    "tsx": re.compile(rb"\n[ \t]*[ \t](?=\(|<\s*[A-Za-z_$][^;{}()]*>\s*\(" + _KEYWORD_MEMBER + rb")"),
}
# (`export` must start a word: checked in `_patched`, as a regex that starts with a literal is
# searched for far faster than one that starts with `\b`.)
_EXPORT_TYPE_STAR = re.compile(rb"export\s+(type)\s+\*")
_ACCESSOR = re.compile(rb"\b(?:static|abstract|override|declare|readonly)\s+(accessor)\s+(?=[#\w$\[])")
_RESERVED_EXPORT_NAME = re.compile(
    rb"\bas\s+(null|void|catch|try|while|delete|new|in|for|if|do|switch|case|class|const|enum|export|"
    rb"extends|false|true|finally|function|import|instanceof|return|super|this|throw|typeof|var|with|"
    rb"break|continue|debugger|else)(?=\s*[,}])")
_WORD = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")  # `\w` of a bytes regex
_IDENT = _WORD | frozenset(b"$")
_TYPE_END = _IDENT | frozenset(b">)]}")


def _patched(source: bytes, lang: str) -> bytes | None:
    """The source with the grammar gaps above patched (same length), or None if it has none.
    Regexes find the few candidate sites; small checks around each decide."""
    edits: list[tuple[int, bytes]] = []
    if b"\\`" in source:
        edits.extend(_escaped_backticks(source))
    if lang == "javascript" and b"export" in source:
        edits.extend((m.start(1), b"_") for m in _RESERVED_EXPORT_NAME.finditer(source))
    if b"export type" in source or b"accessor" in source:
        edits.extend((m.start(1), b" " * len(m[1])) for m in _EXPORT_TYPE_STAR.finditer(source)
                     if m.start() == 0 or source[m.start() - 1] not in _WORD)
        if b"accessor" in source:
            edits.extend((m.start(1), b" " * len(m[1])) for m in _ACCESSOR.finditer(source))
    for m in _VARIANCE.finditer(source):
        start = m.start()
        end = _code_end(source, start)
        if (start == 0 or source[start - 1] not in _IDENT) and end > 0 and source[end - 1] in b"<,":
            edits.append((start, b" " * (m.end() - start)))
    if lang in _SIGNATURE_LINE:
        edits.extend((m.end() - 1, b";") for m in _SIGNATURE_LINE[lang].finditer(source)
                     if _ends_type(source, m.start()))
    if not edits:
        return None
    buf = bytearray(source)
    for pos, repl in edits:
        buf[pos:pos + len(repl)] = repl
    return bytes(buf)


def _escaped_backticks(source: bytes) -> list[tuple[int, bytes]]:
    out = []
    i = source.find(b"\\`")
    while i >= 0:
        j = i
        while j > 0 and source[j - 1] == 92:  # count the backslashes before this one
            j -= 1
        if (i - j) % 2 == 0:  # this backslash is not itself escaped
            out.append((i, b"  "))
        i = source.find(b"\\`", i + 2)
    return out


def _code_end(source: bytes, pos: int) -> int:
    """Offset just after the last byte of code before `pos`, skipping whitespace and
    comments (0 if there is none)."""
    while pos > 0:
        while pos > 0 and source[pos - 1] in b" \t\r\n":
            pos -= 1
        if pos >= 2 and source[pos - 2:pos] == b"*/":
            pos = max(source.rfind(b"/*", 0, pos - 2), 0)
            continue
        line_start = source.rfind(b"\n", 0, pos) + 1
        comment = _line_comment_at(source[line_start:pos])
        if comment < 0:
            break
        pos = line_start + comment
    return pos


def _ends_type(source: bytes, pos: int) -> bool:
    """Whether the code before `pos` can end a type member: an identifier, `>`, `)`, `]` or
    `}`, but not the `=>` of an arrow."""
    end = _code_end(source, pos)
    if end == 0 or source[end - 1] not in _TYPE_END:
        return False
    return not (source[end - 1] == ord(">") and end >= 2 and source[end - 2] == ord("="))


def _line_comment_at(line: bytes) -> int:
    """Offset of a `//` comment in one line of code, outside string literals; -1 if none.
    Lines longer than MAX_SCANNED_LINE (minified code) are taken to hold no comment."""
    if len(line) > MAX_SCANNED_LINE or b"//" not in line:
        return -1
    quote = 0
    i, n = 0, len(line)
    while i < n:
        ch = line[i]
        if quote:
            if ch == 92:  # backslash: skip the escaped byte
                i += 1
            elif ch == quote:
                quote = 0
        elif ch in b"'\"`":
            quote = ch
        elif ch == 47 and i + 1 < n and line[i + 1] == 47:
            return i
        i += 1
    return -1


def _parse_best(lang: str, source: bytes) -> ts.Tree:
    patched = _patched(source, lang)
    if patched is None:
        return parse(lang, source)
    tree = parse(lang, patched)
    if not tree.root_node.has_error:
        return tree
    plain = parse(lang, source)
    return tree if _error_score(tree) < _error_score(plain) else plain


def _error_score(tree: ts.Tree) -> tuple[bool, int]:
    """How broken a tree is: whether its root is an ERROR, then its ERROR/MISSING nodes
    (inside ERROR nodes too, unlike `error_count`). Descends only into subtrees with errors."""
    root = tree.root_node
    n = 0
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            n += 1
        if node.has_error:
            stack.extend(node.children)
    return root.is_error, n


# ---- the loop ---------------------------------------------------------------------------

@dataclass(slots=True)
class _Ctx:
    """One file's source and the context the query found around its definitions."""

    source: bytes
    wrapper: dict[tuple[int, int, str], ts.Node] = field(default_factory=dict)  # node -> export/declare around it
    before: dict[int, ts.Node] = field(default_factory=dict)  # start byte -> comment/decorator right before
    ambient: list[tuple[int, int]] = field(default_factory=list)  # `declare` ranges, merged

    def in_ambient(self, pos: int) -> bool:
        i = bisect_right(self.ambient, (pos, _INF)) - 1
        return i >= 0 and self.ambient[i][0] <= pos < self.ambient[i][1]


_INF = float("inf")


def _extract(lang: str, source: bytes, path: str) -> FileExtract:
    tree = _parse_best(lang, source)
    out = FileExtract(path, lang, parse_errors=error_count(tree))
    ctx = _Ctx(source)
    groups = by_reader(matches(query(lang, _query_text(lang)), tree.root_node), _READERS)
    _read_context(groups["context"], ctx)
    cands: list[Candidate] = []
    exported: set[str] = set()
    for caps in groups["definitions"]:
        if "def" in caps:
            c = _definition(caps["def"][0], ctx)
            if isinstance(c, list):
                cands.extend(c)
            elif c is not None:
                cands.append(c)
        elif "vars" in caps:
            cands.extend(_variables(caps["vars"][0], ctx))
        elif "member" in caps:
            c = _enum_member(caps["member"][0], ctx)
            if c is not None:
                cands.append(c)
        elif "global" in caps:
            decl = caps["global"][0]
            cands.append(Candidate(decl, "global", Kind.MODULE.value, signature="declare global",
                                   visibility="public", doc=_doc(decl, ctx), name_line=start_line(decl),
                                   extra={"start": start_line(decl)}))
        elif "cjs" in caps:
            cands.extend(_commonjs(caps["cjs"][0], caps["lhs"][0], caps["rhs"][0], ctx, exported))
        elif "massign" in caps:
            cands.extend(_member_method(caps["massign"][0], caps["mlhs"][0], caps["mrhs"][0], ctx))
        else:
            exported.add(text(caps["exported"][0], source))
    cands, parents = nest(cands)
    ambient = path.endswith((".d.ts", ".d.mts", ".d.cts"))  # declaration files: all visible
    index = _build_symbols(cands, parents, module_path(path), exported, ambient, out.symbols)
    owners = owner_of(cands, parents, index)
    bindings = _bindings(groups)
    raw = _references(groups["refs"], source)
    defined = {c.name for c in cands}
    locals_ = _local_names(bindings, groups["scopes"], cands, source)
    raw = _imported_reexports_folded(_outside_locals(raw, locals_) + use_references(groups, defined, raw, source,
                                                                                    locals_), defined)
    raw = _callback_receivers(raw, groups["callbacks"], bindings, source)
    out.references = _typed_receivers(attach_enclosing(raw, spans(cands), owners), groups["typed"], bindings,
                                      cands, owners, parents, source)
    return out


# The reader of each capture name (see _common.by_reader).
_READERS = {
    **dict.fromkeys(("def", "vars", "member", "global", "cjs", "lhs", "rhs", "massign", "mlhs", "mrhs",
                     "exported"), "definitions"),
    **dict.fromkeys(("wrapper", "wrapped", "before", "after"), "context"),
    **dict.fromkeys(("call", "new", "cname", "crecv", "dynimport", "jsxname", "import", "isrc", "reexport",
                     "esrc", "lexport", "lclause", "aname", "avalue", "rname", "rsrc"), "refs"),  # _references
    **dict.fromkeys(("tref", "vref", "pref", "mref", "mobj"), "uses"),  # use_references
    **dict.fromkeys(("tdecl", "tparam", "vdecl", "pwrite", "jsxend"), "declared"),  # no use there
    "lscope": "scopes",  # _local_names
    "ftype": "function_types",  # _bindings
    **dict.fromkeys(("tmodule", "tnested"), "qualified"),  # `ns.Type`
    **dict.fromkeys(("lvname", "lvtype", "lvnew", "lvcall", "lvread", "lvprop"), "typed"),  # _typed_receivers
    **dict.fromkeys(("cbfn", "cbnew", "cbarrow"), "callbacks"),  # _callback_receivers
}


def _bindings(groups: dict[str, list[Captures]]) -> list[ts.Node]:
    """The names a file binds as values (declarations, parameters, imports), less the
    parameters written inside function types, which name no local of the function whose
    signature holds them (`reaction(effect: (r: IReactionPublic) => void)` binds no `r`)."""
    names = [c["vdecl"][0] for c in groups["declared"] if "vdecl" in c]
    outer: list[tuple[int, int]] = []  # the outermost function types, in source order
    for start, end in sorted((c["ftype"][0].start_byte, c["ftype"][0].end_byte) for c in groups["function_types"]):
        if not outer or start >= outer[-1][1]:
            outer.append((start, end))
    if not outer:
        return names
    starts = [s for s, _ in outer]
    return [n for n in names if (i := bisect_right(starts, n.start_byte) - 1) < 0 or n.start_byte >= outer[i][1]]


_TYPE_ARGS = re.compile(r"<[^<>]*>")
_TYPE_NAME = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*")
# a value read or called: names, ES private members (`this.#cache`), and calls on the way
# (`this.getCache().build`); the resolver follows what it can (refs/common.call_chain)
_VALUE_PATH = re.compile(r"[A-Za-z_$][\w$]*(?:\.#?[A-Za-z_$][\w$]*)*")
_CALLED_PATH = re.compile(r"[A-Za-z_$][\w$]*(?:.*[.\s]#?[A-Za-z_$][\w$]*)?", re.S)


def _plain_type(written: str) -> str:
    """`: Subject<T> | null` -> `Subject`; '' unless one named type remains once type
    arguments and `null`/`undefined` are dropped (a real union says nothing for sure)."""
    t = written.lstrip(":").strip()
    while "<" in t:
        stripped = _TYPE_ARGS.sub("", t)
        if stripped == t:
            return ""
        t = stripped
    parts = [p.strip() for p in t.split("|") if p.strip() not in ("", "null", "undefined")]
    if len(parts) != 1 or not _TYPE_NAME.fullmatch(parts[0]) or parts[0].encode() in _LIB_TYPES:
        return ""
    return parts[0]


def _typed_receivers(refs: list[Reference], typed_caps: list[Captures], bindings: list[ts.Node],
                     cands: list[Candidate], owners: list[int | None], parents: list[int | None],
                     source: bytes) -> list[Reference]:
    """Calls on a local variable whose type its declaration shows get a receiver the resolver
    can follow: `new Subject()` ("an instance of Subject") when the type is written (`const s
    = new Subject<T>()`, `let w: Subject<T> | null`), and the call itself when the value is
    the result of one (`const s = this.getSubject()` -> `this.getSubject()`: resolved only
    when that method's signature writes its return type) or a read of a member (`let c =
    this._connection` -> `this._connection`: resolved through the field's written type). A
    written type wins over the value. Only when that declaration is the name's one binding
    in the enclosing symbol (no parameter, catch variable or other declaration of the same
    name there), or when every binding of the name there is such a declaration saying the
    same (each test callback's `const km = new KeymapManager()`, callbacks being no symbols):
    nothing is guessed. A call in a symbol nested in that one (a method of an
    object literal, an arrow assigned to a member) that binds the name nowhere on the way
    sees the same local."""
    typed: dict[int, tuple[str, str, int]] = {}  # declarator name position -> (name, receiver, rank)
    for caps in typed_caps:
        node = caps["lvname"][0]
        if "lvcall" in caps and "lvprop" in caps:  # `const {unlink} = f()`: `unlink()` is f's result's
            callee = text(caps["lvcall"][0], source)
            recv, rank = (f"{callee}()#" if _TYPE_NAME.fullmatch(callee) else ""), 0
        elif "lvcall" in caps:
            callee = short_receiver(text(caps["lvcall"][0], source))
            recv, rank = (f"{callee}()" if _CALLED_PATH.fullmatch(callee) else ""), 0
        elif "lvread" in caps:  # `let c = this._connection`: the field's declared type
            read = text(caps["lvread"][0], source)
            recv, rank = (read if _VALUE_PATH.fullmatch(read) else ""), 0
            if recv and "lvprop" in caps:  # `let {schema} = view.state`: `view.state.schema`
                recv = f"{recv}.{text(node, source)}"
        else:
            t = _plain_type(text(caps["lvtype"][0] if "lvtype" in caps else caps["lvnew"][0], source))
            recv, rank = (f"new {t}()" if t else ""), (2 if "lvtype" in caps else 1)
        if node.start_byte not in typed or rank > typed[node.start_byte][2]:
            typed[node.start_byte] = (text(node, source), recv, rank)
    if not typed:
        return refs
    marks: list[PendingRef] = [(pos, "typed", name, 0, "", "", recv) for pos, (name, recv, _) in typed.items()]
    marks += [(node.start_byte, "binding", text(node, source), 0, "", "", "") for node in bindings]
    # a destructured name binds as a declared one does (`let {schema} = ...` is no `vdecl`)
    marks += [(c["lvname"][0].start_byte, "binding", text(c["lvname"][0], source), 0, "", "", "")
              for c in typed_caps if "lvprop" in c]
    types: dict[tuple[int | None, str], set[str]] = {}
    declared: dict[tuple[int | None, str], int] = {}
    bindings: dict[tuple[int | None, str], int] = {}
    for m in attach_enclosing(marks, spans(cands), owners):
        key = (m.from_symbol, m.to_name)
        if m.edge_type == "typed":
            types.setdefault(key, set()).add(m.receiver)
            declared[key] = declared.get(key, 0) + 1
        else:
            bindings[key] = bindings.get(key, 0) + 1
    known = {k: next(iter(v)) for k, v in types.items()
             if len(v) == 1 and "" not in v and bindings.get(k, 0) == declared[k]}
    if not known:
        return refs
    out = []
    for r in refs:
        recv = _local_receiver(r, known, bindings, parents) if r.edge_type == "calls" else None
        out.append(Reference(r.edge_type, r.to_name, r.line, r.from_symbol, r.module, r.alias, recv) if recv else r)
    return out


def _destructured_result(r: Reference, known: dict[tuple[int | None, str], str],
                         bound: dict[tuple[int | None, str], int], parents: list[int | None]) -> str | None:
    """A bare call of a name destructured from a call's result (`const {unlink} = f(); unlink()`):
    the member `unlink` of what `f()` returns, so the receiver `f()#` (the `#`: a name the
    module binds, never found by its name alone as an unknown receiver's member is)."""
    recv = _scoped(known, bound, parents, r.from_symbol, r.to_name) if r.edge_type == "calls" else None
    return recv if recv and recv.endswith("()#") else None


def _local_receiver(r: Reference, known: dict[tuple[int | None, str], str], bound: dict[tuple[int | None, str], int],
                    parents: list[int | None]) -> str | None:
    """The receiver a call on a typed local gets (`_typed_receivers`), or None. `w!.next()`: the
    non-null assertion changes nothing about the type; a member of a local read from a member
    (`doc.defaultView!.scrollBy()` after `let doc = view.dom.ownerDocument`) is read through it.
    A bare call of a name destructured from a call's result is that result's member
    (`_destructured_result`); a call on such a name is left alone (what the member holds is
    not known)."""
    if not r.receiver:
        return _destructured_result(r, known, bound, parents)
    root, dot, rest = r.receiver.partition(".")
    recv = _scoped(known, bound, parents, r.from_symbol, root.rstrip("!")) if root else None
    if recv and recv.endswith("()#"):
        return None
    if recv and dot:
        rest = rest.rstrip("!")
        return f"{recv}.{rest}" if _VALUE_PATH.fullmatch(rest) else None
    return recv


def _scoped(known: dict[tuple[int | None, str], str], bound: dict[tuple[int | None, str], int],
            parents: list[int | None], sym: int | None, name: str) -> str | None:
    """The typed local `name` of `sym` or of the nearest symbol around it, unless a symbol on
    the way binds the name itself (its own parameter or local shadows the outer one)."""
    while True:
        hit = known.get((sym, name))
        if hit is not None or bound.get((sym, name)) or sym is None:
            return hit
        sym = parents[sym]


def _callback_receivers(raw: list[PendingRef], callback_caps: list[Captures], bindings: list[ts.Node],
                        source: bytes) -> list[PendingRef]:
    """Untyped parameters of a function passed to a call or `new` (`operate((source,
    subscriber) => ...)`, `new Observable((subscriber) => ...)`) have the type the callee's
    signature gives that parameter of that argument. A call on one, inside that function,
    gets a receiver saying where to read it: `operate@0.1` (argument 0, its parameter 1),
    `new Observable@0.0`; the resolver reads the signature, and a callee it cannot follow
    leaves the call unresolved. Scoped lexically: the innermost such function binding the
    name wins, and one that declares the name again inside is left alone."""
    callbacks: list[tuple[int, int, str, str, int]] = []  # (start, end, name, receiver, param position)
    for caps in callback_caps:
        fn = caps["cbarrow"][0]
        callee = short_receiver(text((caps.get("cbfn") or caps["cbnew"])[0], source))
        # a name (`operate`, `new Observable`), or a collection's own method reached through
        # reads and calls (`this.getAll().forEach`: the element type is read by the resolver)
        if not (_TYPE_NAME.fullmatch(callee) or ("cbfn" in caps and _CALLED_PATH.fullmatch(callee))) \
                or fn.parent is None:
            continue
        index = next(i for i, arg in enumerate(fn.parent.named_children) if arg.id == fn.id)
        prefix = "new " if "cbnew" in caps else ""
        single = fn.child_by_field_name("parameter")
        if single is not None:  # `subscriber => ...`
            params = [single]
        else:
            plist = fn.child_by_field_name("parameters")
            params = plist.named_children if plist is not None else []
        for j, param in enumerate(params):
            if param.type in ("required_parameter", "optional_parameter"):
                if param.child_by_field_name("type") is not None:
                    continue  # written: the parameter rules read it
                param = param.child_by_field_name("pattern")
            if param is not None and param.type == "identifier":
                callbacks.append((fn.start_byte, fn.end_byte, text(param, source), f"{prefix}{callee}@{index}.{j}",
                                  param.start_byte))
    if not callbacks:
        return raw
    declared: dict[str, list[int]] = {}
    for node in bindings:
        declared.setdefault(text(node, source), []).append(node.start_byte)
    scopes: dict[str, list[tuple[int, int, str]]] = {}
    for start, end, name, recv, own in callbacks:
        if not any(start <= d < end and d != own for d in declared.get(name, ())):
            scopes.setdefault(name, []).append((start, end, recv))
    out = []
    for r in raw:
        candidates = scopes.get(r[6].rstrip("!") if r[1] == "calls" else "")
        inner = max((sc for sc in candidates if sc[0] <= r[0] < sc[1]), default=None) if candidates else None
        out.append((*r[:6], inner[2]) if inner is not None else r)
    return out


def _read_context(context_caps: list[Captures], ctx: _Ctx) -> None:
    """Record the context captures in `ctx` (all of them before any definition is read: match
    order is not guaranteed)."""
    ambient = []
    for caps in context_caps:
        if "wrapper" in caps:
            w, inner = caps["wrapper"][0], caps["wrapped"][0]
            ctx.wrapper[inner.start_byte, inner.end_byte, inner.type] = w
            if w.type == "ambient_declaration":
                ambient.append((w.start_byte, w.end_byte))
        else:
            ctx.before[caps["after"][0].start_byte] = caps["before"][0]
    for a, b in sorted(ambient):  # merge, so that one bisect answers `in_ambient`
        if ctx.ambient and a <= ctx.ambient[-1][1]:
            ctx.ambient[-1] = (ctx.ambient[-1][0], max(b, ctx.ambient[-1][1]))
        else:
            ctx.ambient.append((a, b))


def _build_symbols(cands: list[Candidate], parents: list[int | None], modpath: str,
                   exported: set[str], ambient: bool, symbols: list[Symbol]) -> list[int]:
    """Fill `symbols` from nested candidates (every candidate becomes a symbol)."""
    qnames: list[str] = []
    top_level: dict[str, int] = {}
    for i, c in enumerate(cands):
        p = parents[i]
        base = qnames[p] if p is not None else modpath
        if c.qualifier:
            base = f"{base}.{c.qualifier}" if base else c.qualifier
            # `X.prototype.m = ...`: m belongs to X when X is defined (earlier) in this file.
            p = top_level.get(c.qualifier, p) if p is None else p
        qnames.append(f"{base}.{c.name}" if base else c.name)
        if p is None:
            top_level.setdefault(c.name, i)
        vis = c.visibility
        if vis == "private" and p is None and (ambient or c.name in exported):
            vis = "public"
        symbols.append(Symbol(
            name=c.name, qualified_name=qnames[i], kind=c.kind,
            line_start=c.extra["start"], line_end=end_line(c.node),
            signature=c.signature, visibility=vis, parent=p, doc=c.doc, name_line=c.name_line,
            byte_start=c.node.start_byte, byte_end=c.node.end_byte,
        ))
    return list(range(len(cands)))


# ---- definitions ------------------------------------------------------------------------

def _definition(node: ts.Node, ctx: _Ctx) -> Candidate | list[Candidate] | None:
    source = ctx.source
    t = node.type
    if t in ("internal_module", "module"):
        return _module(node, ctx)
    name_node = node.child_by_field_name(_NAME_FIELD.get(t, "name"))
    name = _name(name_node, source)
    if name is None:
        return None
    kind = _FIXED_KINDS.get(t)
    value = None
    if t in _FIELD_TYPES:
        value = node.child_by_field_name("value")
        kind = Kind.METHOD if value is not None and value.type in _FUNCTION_VALUES else Kind.VARIABLE
    elif t == "pair":  # the query takes function-valued pairs (methods), and a module-level object's
        # properties made by a call or naming a value (`http.get`): values, as an interface's are
        value = node.child_by_field_name("value")
        kind = Kind.METHOD if value is not None and value.type in _FUNCTION_VALUES else Kind.VARIABLE
    outer = _outer(node, ctx)
    start = _leading_decorators(outer, ctx)
    return Candidate(
        node, name, kind.value,
        signature=_signature(node, outer, source, value),
        visibility=_visibility(node, outer, name_node, ctx),
        doc=_doc(start, ctx),
        name_line=start_line(name_node),
        extra={"start": start_line(start)},
    )


def _name(node: ts.Node | None, source: bytes) -> str | None:
    """Identifier, `#private` or string-literal name; None for computed or numeric names, and
    for an empty one (`''`, or the zero-width identifier error recovery inserts)."""
    if node is None or node.type not in _NAME_TYPES:
        return None
    s = text(node, source)
    s = s[1:-1] if node.type == "string" else s
    return s or None


def _module(node: ts.Node, ctx: _Ctx) -> Candidate | list[Candidate] | None:
    name_node = node.child_by_field_name("name")
    if name_node is None:
        return None
    outer = _outer(node, ctx)
    start = start_line(outer)
    if name_node.type == "nested_identifier":
        # `namespace A.B.C {}` declares A, B and C; the compiler nests B in A and C in B.
        return _nested_modules(node, name_node, outer, start, ctx)
    name = _name(name_node, ctx.source)
    if name is None:
        return None
    return Candidate(node, name, Kind.MODULE.value, signature=_signature(node, outer, ctx.source),
                     visibility=_visibility(node, outer, name_node, ctx), doc=_doc(outer, ctx),
                     name_line=start_line(name_node), extra={"start": start})


def _nested_modules(node: ts.Node, name_node: ts.Node, outer: ts.Node, start: int,
                    ctx: _Ctx) -> list[Candidate]:
    source = ctx.source
    parts: list[ts.Node] = []
    cur: ts.Node | None = name_node
    while cur is not None and cur.type in ("nested_identifier", "member_expression"):
        prop = cur.child_by_field_name("property")
        if prop is not None:
            parts.append(prop)
        cur = cur.child_by_field_name("object")
    if cur is not None:
        parts.append(cur)
    parts.reverse()
    sig = _signature(node, outer, source)
    vis = _visibility(node, outer, name_node, ctx)
    doc = _doc(outer, ctx)
    return [Candidate(node, text(p, source), Kind.MODULE.value, signature=sig, visibility=vis,
                      doc=doc if i == 0 else "", name_line=start_line(p),
                      extra={"start": start if i == 0 else start_line(p)})
            for i, p in enumerate(parts)]


def _enum_member(node: ts.Node, ctx: _Ctx) -> Candidate | None:
    name = _name(node, ctx.source)
    if name is None:
        return None
    line = start_line(node)
    return Candidate(node, name, Kind.CONSTANT.value, signature=text(node, ctx.source),
                     visibility="public", doc=_doc(node, ctx), name_line=line,
                     scope=False, extra={"start": line})


def _variables(decl: ts.Node, ctx: _Ctx) -> list[Candidate]:
    """One candidate per declarator with a plain identifier name (destructuring is skipped)."""
    source = ctx.source
    outer = _outer(decl, ctx)
    keyword = decl.children[0].type if decl.children else ""
    is_const = keyword == "const"
    prefix = source[outer.start_byte:decl.start_byte].decode("utf-8", "replace")
    vis = "public" if _is_exported_or_ambient(outer, ctx) else "private"
    doc = _doc(outer, ctx)
    out: list[Candidate] = []
    for d in decl.named_children:
        if d.type != "variable_declarator":
            continue
        name_node = d.child_by_field_name("name")
        if name_node is None or name_node.type != "identifier":
            continue
        value = d.child_by_field_name("value")
        is_fn = value is not None and value.type in _FUNCTION_VALUES
        # `const X = class extends Base {...}` is a class (an Error subclass written for ES5, a
        # mixin): its kind and its `extends` in the signature say so, as for a declaration
        kind = Kind.FUNCTION if is_fn else Kind.CLASS if value is not None and value.type == "class" \
            else Kind.CONSTANT if is_const else Kind.VARIABLE
        first = not out
        sig = collapse(f"{prefix}{keyword} {_head(d, value, source)}")
        out.append(Candidate(
            d, text(name_node, source), kind.value, signature=_cap(sig), visibility=vis,
            doc=doc if first else "", name_line=start_line(name_node),
            extra={"start": start_line(outer) if first else start_line(d)},
        ))
    return out


def _commonjs(stmt: ts.Node, lhs: ts.Node, rhs: ts.Node, ctx: _Ctx, exported: set[str]) -> list[Candidate]:
    """`exports.x = ...`, `module.exports.x = ...`, `module.exports = {...}` (its shorthand
    names and identifier value are exported), `X.prototype.m = ...`."""
    source = ctx.source
    target = text(lhs, source)
    if target == "module.exports":
        if rhs.type == "identifier":
            exported.add(text(rhs, source))
        elif rhs.type == "object":
            exported.update(text(c, source) for c in rhs.named_children if c.type == "shorthand_property_identifier")
    parts = target.split(".")
    is_fn = rhs.type in _FUNCTION_VALUES
    kind = Kind.FUNCTION if is_fn else Kind.CLASS if rhs.type == "class" else Kind.VARIABLE
    line = start_line(stmt)
    doc = _doc(stmt, ctx)
    if target == "module.exports" and rhs.type == "object":
        return [_cjs_pair(pair, ctx) for pair in rhs.named_children
                if pair.type == "pair" and (pair.child_by_field_name("value") or rhs).type in _FUNCTION_VALUES
                and _name(pair.child_by_field_name("key"), source) is not None]
    if len(parts) == 2 and parts[0] == "exports" or len(parts) == 3 and parts[:2] == ["module", "exports"]:
        return [Candidate(stmt, parts[-1], kind.value, signature=_cap(collapse(_head_text(stmt, rhs, source))),
                          visibility="public", doc=doc, name_line=start_line(lhs), extra={"start": line})]
    # `X.prototype.m = function`, and `X.m = function` on an object of the module (Express's
    # `res.sendFile = function sendFile(...)`, `app.listen = function`): a method of X
    member = len(parts) == 3 and parts[1] == "prototype" or len(parts) == 2
    if member and is_fn and all(_JS_NAME.fullmatch(p) for p in parts):
        return _member_method(stmt, lhs, rhs, ctx)
    return []


def _member_method(stmt: ts.Node, lhs: ts.Node, rhs: ts.Node, ctx: _Ctx) -> list[Candidate]:
    """`x.m = function` / `x.m = () => {}` (or `X.prototype.m = ...`): the method m of x,
    qualified by x; none on `this`, `exports` or a global (their members belong to no definition)."""
    source = ctx.source
    owner = text(lhs, source).split(".")[0]
    if owner in _NOT_OWNERS:
        return []
    name = text(lhs.child_by_field_name("property"), source)
    return [Candidate(stmt, name, Kind.METHOD.value, signature=_cap(collapse(_head_text(stmt, rhs, source))),
                      visibility="public", doc=_doc(stmt, ctx), name_line=start_line(lhs), qualifier=owner,
                      extra={"start": start_line(stmt)})]


def _cjs_pair(pair: ts.Node, ctx: _Ctx) -> Candidate:
    source = ctx.source
    key = pair.child_by_field_name("key")
    value = pair.child_by_field_name("value")
    return Candidate(pair, _name(key, source) or "", Kind.FUNCTION.value,
                     signature=_cap(collapse(_head_text(pair, value, source))), visibility="public",
                     doc=_doc(pair, ctx), name_line=start_line(key), extra={"start": start_line(pair)})


# ---- hooks: extent, signature, visibility, doc -------------------------------------------

def _outer(node: ts.Node, ctx: _Ctx) -> ts.Node:
    """The node that carries `export`/`declare` (and decorators written before `export`)."""
    cur = node
    while (w := ctx.wrapper.get((cur.start_byte, cur.end_byte, cur.type))) is not None:
        cur = w
    return cur


def _leading_decorators(node: ts.Node, ctx: _Ctx) -> ts.Node:
    """First decorator written before a class member (they are its siblings in the grammar);
    comments between them are skipped."""
    start = cur = node
    while (prev := ctx.before.get(cur.start_byte)) is not None and prev.end_byte <= cur.start_byte:
        if prev.type == "decorator":
            start = prev
        cur = prev
    return start


def _is_exported_or_ambient(outer: ts.Node, ctx: _Ctx) -> bool:
    """`export`ed, `declare`d, or inside `declare module/namespace/global { ... }`."""
    return outer.type in ("export_statement", "ambient_declaration") or ctx.in_ambient(outer.start_byte)


def _visibility(node: ts.Node, outer: ts.Node, name_node: ts.Node | None, ctx: _Ctx) -> str:
    if node.type in _MEMBER_TYPES:  # class, interface, type literal or object members
        if name_node is not None and name_node.type == "private_property_identifier":
            return "private"
        for c in node.children:
            if c.type == "accessibility_modifier":
                return c.children[0].type if c.children else "public"
        return "public"
    return "public" if _is_exported_or_ambient(outer, ctx) else "private"


_BODY_FIELD = {
    "function_declaration": "body", "generator_function_declaration": "body",
    "class_declaration": "body", "abstract_class_declaration": "body", "interface_declaration": "body",
    "enum_declaration": "body", "internal_module": "body", "module": "body", "method_definition": "body",
}


def _signature(node: ts.Node, outer: ts.Node, source: bytes, value: ts.Node | None = None) -> str:
    """Declaration header: from `export`/modifiers (decorators skipped) to the body."""
    start = node.start_byte if outer is node else outer.start_byte
    for c in (outer.children if outer is not node else node.children):
        if c.type != "decorator":
            start = c.start_byte
            break
    end = node.end_byte
    field = _BODY_FIELD.get(node.type)
    body = node.child_by_field_name(field) if field else None
    if body is not None:
        end = body.start_byte
    elif value is not None:
        end = _value_cut(value)
    return _cap(collapse(_code_text(outer, start, end, source)).rstrip(";,{ ").rstrip())


# Comments are looked for in this many bytes of a declaration's head: the signature keeps
# MAX_SIGNATURE_CHARS characters, so a comment further on is cut with the rest.
_SIGNATURE_SCAN_BYTES = 4096
_MAX_DOC_LINES = 60  # line comments of one run read at most (a doc is a few lines)


def _code_text(root: ts.Node, start: int, end: int, source: bytes) -> str:
    """source[start:end] (inside `root`) without its comments: a parameter's `/// doc` line or
    a property type's `/** */` block is no part of a signature, costs tokens in every answer
    showing it, and its commas would split parameters where there are none."""
    scan_end = min(end, start + _SIGNATURE_SCAN_BYTES)
    cuts: list[tuple[int, int]] = []
    if b"//" in source[start:scan_end] or b"/*" in source[start:scan_end]:
        stack = [root]
        while stack:
            n = stack.pop()
            if n.end_byte <= start or n.start_byte >= scan_end:
                continue
            if n.type == "comment":
                cuts.append((max(n.start_byte, start), min(n.end_byte, end)))
            else:
                stack.extend(n.children)
    parts, at = [], start
    for a, b in sorted(cuts):
        parts.append(source[at:a])
        at = b
    parts.append(source[at:end])
    return b" ".join(parts).decode("utf-8", "replace")


NEW_ARGUMENTS_BYTES = 60  # a `new` expression's arguments kept in a signature up to this size


def _value_cut(value: ts.Node) -> int:
    """Where a signature stops inside an initialiser: before a function's or class's body; after
    a `new` expression, which says the value's type (`= new TimeoutManager()`; arguments longer
    than NEW_ARGUMENTS_BYTES left out); else before `=`."""
    if value.type in _FUNCTION_VALUES or value.type == "class":
        body = value.child_by_field_name("body")
        if body is not None:
            return body.start_byte
    if value.type == "new_expression":
        args = value.child_by_field_name("arguments")
        if args is None or args.end_byte - args.start_byte <= NEW_ARGUMENTS_BYTES:
            return value.end_byte
        return args.start_byte
    prev = value.prev_sibling
    return prev.start_byte if prev is not None and prev.type == "=" else value.start_byte


def _head(declarator: ts.Node, value: ts.Node | None, source: bytes) -> str:
    end = _value_cut(value) if value is not None else declarator.end_byte
    return _code_text(declarator, declarator.start_byte, end, source)


def _head_text(node: ts.Node, value: ts.Node | None, source: bytes) -> str:
    end = _value_cut(value) if value is not None else node.end_byte
    return _code_text(node, node.start_byte, end, source).rstrip(";= ")


def _cap(sig: str) -> str:
    return cap(sig.rstrip("=: ").rstrip(), MAX_SIGNATURE_CHARS)


def _doc(node: ts.Node, ctx: _Ctx) -> str:
    """Text of the doc comment right before the definition: a `/** ... */` block, or a run of
    `//` / `///` line comments ending on the line above it (prosemirror and CodeMirror write
    every doc as `///` lines), if any."""
    prev = ctx.before.get(node.start_byte)
    if prev is None or prev.type != "comment" or prev.end_point[0] < node.start_point[0] - 1 \
            or prev.end_byte > node.start_byte:
        return ""
    raw = text(prev, ctx.source)
    if raw.startswith("/**"):
        return block_doc(raw[3:-2])
    return _line_doc(prev, ctx.source) if raw.startswith("//") else ""


# Line comments that instruct a tool rather than describe the code below them.
_DIRECTIVE = re.compile(
    r"(?:eslint|tslint|prettier-ignore|istanbul|biome-ignore|c8 |@ts-|#(?:end)?region|<reference|<amd)")


def _line_doc(last: ts.Node, source: bytes) -> str:
    """The run of `//` comments, one a line, that ends with `last`; a comment written after code
    on its line is that code's remark and starts no run."""
    lines: list[str] = []
    cur: ts.Node | None = last
    while cur is not None and cur.type == "comment":
        raw = text(cur, source)
        prev = cur.prev_sibling
        if not raw.startswith("//") or prev is not None and prev.end_point[0] == cur.start_point[0]:
            break
        body = raw.lstrip("/").strip()
        if not _DIRECTIVE.match(body):
            lines.append(body)
        if prev is None or prev.end_point[0] != cur.start_point[0] - 1 or len(lines) >= _MAX_DOC_LINES:
            break
        cur = prev
    return "\n".join(ln for ln in reversed(lines) if ln)[:MAX_DOC_CHARS]


# ---- references -------------------------------------------------------------------------

def _references(ref_caps: list[Captures], source: bytes) -> list[PendingRef]:
    refs: list[PendingRef] = []
    for caps in ref_caps:
        if "cname" in caps:  # calls and `new`, the bulk: keep this path short
            node = caps["cname"][0]
            name = text(node, source)
            if name == "require" and "call" in caps and "crecv" not in caps:
                refs.extend(_require(caps["call"][0], source))
                continue
            recv = caps.get("crecv")
            receiver = short_receiver(text(recv[0], source)) if recv else ""
            refs.append((node.start_byte, "calls", name, node.start_point[0] + 1, "", "", receiver))
        elif "jsxname" in caps:
            node = caps["jsxname"][0]
            name = text(node, source)
            recv = caps.get("crecv")
            if recv or name[:1].isupper():  # lower-case tags are HTML elements
                receiver = short_receiver(text(recv[0], source)) if recv else ""
                refs.append((node.start_byte, "calls", name, node.start_point[0] + 1, "", "", receiver))
        elif "dynimport" in caps:
            refs.extend(_require(caps["call"][0], source))
        elif "import" in caps:
            refs.extend(_import_refs(caps["import"][0], caps["isrc"][0], source))
        elif "reexport" in caps:
            refs.extend(_reexport_refs(caps["reexport"][0], caps["esrc"][0], source))
        elif "aname" in caps:  # `export const a = b`: exports b as a, as `export { b as a }` does
            node = caps["avalue"][0]
            refs.append((node.start_byte, "imports", text(node, source), start_line(node), "",
                         text(caps["aname"][0], source), ""))
        elif "lexport" in caps:  # without a source (the query's `!source`; with one: "reexport" above)
            refs.extend(_local_export_refs(caps["lclause"][0], source))
        elif "rsrc" in caps:
            node = caps["rname"][0]
            module = _unquote(text(caps["rsrc"][0], source))
            refs.append((node.start_byte, "imports", module, start_line(node), module, text(node, source), ""))
    return refs


# Type names the TypeScript library declares: their uses are not references to the repository.
_LIB_TYPES = frozenset(
    b"Array ReadonlyArray Promise PromiseLike Record Partial Required Readonly Pick Omit Exclude Extract "
    b"NonNullable ReturnType Parameters InstanceType Awaited Map Set WeakMap WeakSet ReadonlyMap ReadonlySet "
    b"Date Error RegExp Function Object String Number Boolean Symbol BigInt Iterable Iterator IterableIterator "
    b"AsyncIterable AsyncIterator Generator AsyncGenerator ArrayLike Uint8Array ArrayBuffer JSX".split())


def _local_names(bindings: list[ts.Node], scope_caps: list[Captures], cands: list[Candidate],
                 source: bytes) -> dict[bytes, list[tuple[int, int]]]:
    """Each name a block, function, catch clause or loop declares for itself (a local `const
    atom = this.records.getAtom(id)`, a parameter, a catch variable) -> the byte spans it is
    seen in: its innermost such node. Not the names of definitions (a nested `function helper()`
    is a symbol the resolver finds) nor the file's top level (what the file binds)."""
    if not scope_caps or not bindings:
        return {}
    scopes = sorted({(c["lscope"][0].start_byte, c["lscope"][0].end_byte) for c in scope_caps},
                    key=lambda r: (r[0], -r[1]))
    definitions = {(c.name, c.name_line) for c in cands}
    nodes = sorted(bindings, key=lambda n: n.start_byte)
    out: dict[bytes, list[tuple[int, int]]] = {}
    for node, i in zip(nodes, enclosing(scopes, [n.start_byte for n in nodes])):
        word = source[node.start_byte:node.end_byte]
        if i is not None and (word.decode("utf-8", "replace"), start_line(node)) not in definitions:
            out.setdefault(word, []).append(scopes[i])
    return out


def _shadowed(locals_: dict[bytes, list[tuple[int, int]]], word: bytes, pos: int) -> bool:
    return any(start <= pos < end for start, end in locals_.get(word, ()))


def _outside_locals(raw: list[PendingRef], locals_: dict[bytes, list[tuple[int, int]]]) -> list[PendingRef]:
    """The calls of a name where a local declares it (`const fn = pick(); fn()`) are the local's:
    no edge to the file's or an import's definition of that name."""
    if not locals_:
        return raw
    return [r for r in raw if r[1] != "calls" or r[6] or not _shadowed(locals_, r[2].encode(), r[0])]


def use_references(groups: dict[str, list[Captures]], defined: set[str], raw: list[PendingRef],
                   source: bytes, locals_: dict[bytes, list[tuple[int, int]]] | None = None) -> list[PendingRef]:
    """`references` edges for type uses and for value uses of names this file defines or
    imports, less the value uses where a local of the same name is seen (`_local_names`). One
    edge per name, qualifier and line."""
    known = {n.encode() for n in defined}
    for r in raw:
        if r[1] == "imports" and r[4]:  # a local export (module "") binds no name here
            known.add((r[5] or r[2]).encode())
    taken = {r[0] for r in raw}
    # type parameters (`<T>`) are local names: their uses are dropped, file-wide. Declared
    # names and qualifiers come from captures (`node.parent` is quadratic on deep nesting).
    type_params = {text(c["tparam"][0], source).encode() for c in groups["declared"] if "tparam" in c}
    declared = {nodes[0].start_byte for c in groups["declared"] for nodes in c.values()}
    qualifiers = {c["tnested"][0].start_byte: c["tmodule"][0] for c in groups["qualified"]}
    # a type's qualifier (`checks.$ZodCheck`) names a namespace, which no local value shadows
    type_qualifiers = {c["tmodule"][0].start_byte for c in groups["qualified"]}
    out: list[PendingRef] = []
    seen: set[tuple[bytes, int]] = set()
    for caps in groups["uses"]:
        for kind in caps:  # the one of tref, vref, pref, mref (beside mobj)
            if kind != "mobj":
                break
        node = caps[kind][0]
        start = node.start_byte
        if start in taken or start in declared:
            continue
        word = source[start:node.end_byte]
        if kind == "vref":
            if word not in known or (locals_ and start not in type_qualifiers and _shadowed(locals_, word, start)):
                continue
        elif kind == "mref":  # `Name.member` read: only through a name this file defines or imports
            obj = caps["mobj"][0]
            qualifier = source[obj.start_byte:obj.end_byte]
            if qualifier not in known:
                continue
            qualifiers[start] = obj
        elif kind == "tref" and (word in _LIB_TYPES or word in type_params):
            continue
        module = qualifiers.get(start)
        recv = "this" if kind == "pref" else short_receiver(text(module, source)) if module is not None else ""
        line = node.start_point[0] + 1
        key = (word + b"." + recv.encode(), line)
        if key in seen:
            continue
        seen.add(key)
        out.append((start, "references", word.decode("utf-8", "replace"), line, "", "", recv))
    return out


def _unquote(s: str) -> str:
    return s[1:-1] if len(s) >= 2 and s[0] in "'\"`" and s[-1] == s[0] else s


def _require(call: ts.Node, source: bytes) -> list[PendingRef]:
    """`require("x")` / `import("x")` with a literal argument: an import of module x."""
    args = call.child_by_field_name("arguments")
    first = args.named_children[0] if args is not None and args.named_children else None
    if first is None or first.type != "string":
        return []
    module = _unquote(text(first, source))
    alias = ""
    decl = call.parent
    if decl is not None and decl.type == "variable_declarator":
        name = decl.child_by_field_name("name")
        alias = text(name, source) if name is not None and name.type == "identifier" else ""
    return [(call.start_byte, "imports", module, start_line(call), module, alias, "")]


def _import_refs(stmt: ts.Node, src: ts.Node, source: bytes) -> list[PendingRef]:
    """One import per bound name: default, `* as ns`, `{a as b}`; a bare import names the module."""
    module = _unquote(text(src, source))
    line = start_line(stmt)
    out: list[PendingRef] = []
    clause = next((c for c in stmt.named_children if c.type == "import_clause"), None)
    for c in clause.named_children if clause is not None else ():
        if c.type == "identifier":
            out.append((c.start_byte, "imports", "default", line, module, text(c, source), ""))
        elif c.type == "namespace_import":
            ident = c.named_children[-1] if c.named_children else None
            out.append((c.start_byte, "imports", "*", line, module, text(ident, source), ""))
        elif c.type == "named_imports":
            for spec in c.named_children:
                if spec.type != "import_specifier":
                    continue
                name = spec.child_by_field_name("name")
                alias = spec.child_by_field_name("alias")
                out.append((spec.start_byte, "imports", _unquote(text(name, source)), start_line(spec),
                            module, text(alias, source), ""))
    if not out:
        out.append((stmt.start_byte, "imports", module, line, module, "", ""))
    return out


def _imported_reexports_folded(refs: list[PendingRef], defined: set[str]) -> list[PendingRef]:
    """Without the local exports of an imported name under its own name or a constant's
    (`import { x } from "./x"` then `export { x }` or `export const y = x`): the import line
    stands for both, as `export { x } from "./x"` is one line (the two were two import lines
    of one target, neither folding the other)."""
    imported = {r[5] or r[2] for r in refs if r[1] == "imports" and r[4]}
    return [r for r in refs if not (r[1] == "imports" and not r[4] and r[2] in imported
                                     and (r[5] in ("", r[2]) or r[5] in defined))]


def _local_export_refs(clause: ts.Node, source: bytes) -> list[PendingRef]:
    """`export { a }` / `export { a as b }`: the module re-exports a name it binds. An import
    whose module is "" (this file): like an import line, it is no use of `a`, so
    find_references folds it into the file's uses or lists it after them."""
    out: list[PendingRef] = []
    for spec in clause.named_children:
        name = spec.child_by_field_name("name")
        if spec.type == "export_specifier" and name is not None and name.type == "identifier":
            alias = spec.child_by_field_name("alias")
            out.append((name.start_byte, "imports", text(name, source), start_line(spec), "",
                        text(alias, source), ""))
    return out


def _reexport_refs(stmt: ts.Node, src: ts.Node, source: bytes) -> list[PendingRef]:
    """`export {a as b} from "m"`, `export * from "m"` and `export * as ns from "m"` import
    from m too."""
    module = _unquote(text(src, source))
    clause = next((c for c in stmt.named_children if c.type in ("export_clause", "namespace_export")), None)
    if clause is None or clause.type == "namespace_export":
        alias = text(clause.named_children[-1], source) if clause is not None and clause.named_children else ""
        return [(stmt.start_byte, "imports", "*", start_line(stmt), module, alias, "")]
    out: list[PendingRef] = []
    for spec in clause.named_children:
        name = spec.child_by_field_name("name")
        if spec.type == "export_specifier" and name is not None:
            alias = spec.child_by_field_name("alias")
            out.append((spec.start_byte, "imports", _unquote(text(name, source)), start_line(spec),
                        module, text(alias, source), ""))
    return out
