"""Go name resolution: packages are directories, imports name packages by path.

- An import path maps to a repository directory through the `module` line of the nearest
  go.mod that prefixes it (read from the index); without one, a path that is itself a
  directory of the repository, or that ends with one (two components at least, so
  `github.com/x/util` never lands on any `util/`; one when the importing file lies inside that
  top directory, a project without a go.mod importing its own root package). Anything else is
  outside.
- A bare name is a package-level definition of the same directory (every file of a package
  shares one scope), or a name of a dot-import; the predeclared functions are external.
- `pkg.Name` goes through the import that binds `pkg` (its alias, or the imported
  package's own name); `recv.M()` inside `func (recv *T) ...` is T's method M, or the method
  M that T's struct promotes from a type it embeds (its signature lists them: `*Base`,
  `shop.Base`), the shallowest embedding first, as Go selects it.
- A call on a local or parameter whose declaration says its type, as Go's blocks scope it
  (the extractor writes the receiver `T{}` or `pkg.T{}` for `p *T`, `x := T{}`, `var x *T`,
  `new(T)`, ...; `f()` or `pkg.F()` for `x, err := f(..)`, `f()#1` for `_, y := f(..)`, the result
  declared at that position; the field's declared type for a call on
  a field's value, `s.conn.Write(b)`, when the file declares the struct, else `Server{}.conn`,
  `T{}.conns[]`, whose fields' types `field_type` reads in the structs' signatures, an indexed
  field of a named slice or map type through that type's declaration, then the
  methods and fields the receiver chains, in order): T's method M (its own, a
  promoted one, or an interface's method spec, its own or one of an interface it embeds), T being the first result f's signature
  declares (a named type, every definition of f agreeing), or f itself when f is a type (a
  conversion), then for each method the receiver chains (`T{}.M()`, `f().M()`, and `r.M()` on
  the enclosing method's receiver r) the first result that method declares; external when T,
  or `pkg`, is outside the repository. (A parameter's type is
  not read from the enclosing function's signature here: a closure's parameter or a range
  variable of the same name shadows it, and the receiver's text must name the type's package
  for an appearing package to retry the call.)
- A call on a package-level variable of another file (the extractor's `x=`: a name the function
  does not declare): the type its one declaration writes (`var x *T`, `var x *b.T`, `= &b.T{}`,
  `new(T)`) or the first result of the one call that is its value (`= New()`, `= b.New(..)`),
  another package's through an import binding it by its alias or last path element; external
  for an outside package's. The receiver names only `x`: the incremental rule retries the call
  because a variable whose signature writes a dirty name is dirty too (`resolve._with_values`).
- A type known on the way (a typed local, the method's receiver) that has no method of the
  name while it, or a repository type it embeds, embeds an outside package's type: external
  (the method is promoted from there: `http.ResponseWriter`'s `Header`).
- What a typed receiver's name is: T's method, or T's field (a struct's named field, a
  definition; a call of a field holding a function reaches it too), its own or promoted, the
  shallowest depth deciding; a type of build-tagged variants (several structs of one name) reaches
  the field the using file's variant declares when fields are among the names found.
- A use of a selected name (`references`: `s.conn`, `T{Field: v}`, a method value) on a receiver
  not typed: unknown, a candidate, never a guess by the name.
- Other receivers of calls: the one Go method of that name in the repository, unless it is a name
  that the standard interfaces use everywhere (Close, String, Write, ...).
Several package-level definitions of one name in one directory (build-tagged variants)
are `ambiguous`: each is a real target, and neither may show a confident zero.
"""
from __future__ import annotations

import posixpath
import re
from functools import lru_cache
from typing import Callable

from ..languages.go import import_name, struct_signature
from ..store import name_tail
from .common import (AMBIGUOUS, EXTERNAL, IMPORT, MODULE, OPAQUE, RECEIVER, SCOPE, UNKNOWN, LanguageResolver,
                     Resolution, unique)
from .graph import Edge, Graph, Sym

_BUILTIN_FUNCS = frozenset("append cap clear close complex copy delete imag len make max min new panic print "
                           "println real recover".split())
_COMMON_METHODS = frozenset("Close Error String Read Write Len Less Swap Lock Unlock RLock RUnlock Get Set Add "
                            "Done Wait Err Value Next Reset Flush Seek Sum Size Bytes Int Format".split())
_RECEIVER = re.compile(r"^func\s*\(\s*(\w+)\s+\*?\s*(\w+)")
_MODULE_LINE = re.compile(r"^\s*module\s+\"?([^\s\"]+)\"?", re.M)
# `type T struct { *Base; shop.Other; List[int] }`, `type RW interface { Reader; io.Writer }`:
# the embedded types the extractor writes
_BODY = re.compile(r" (?:struct|interface) \{ ")
# an embedded type as the signature writes it: `*Base`, `shop.Other`, `List[int]`
_EMBEDDED = re.compile(r"^\*?\s*(?:(\w+)\.)?(\w+)(?:\[.*\])?$")
_FIELD = re.compile(r"^(\w+(?:\s*,\s*\w+)*)\s+(\S.*)$")  # `a, b *T`: named fields and their type
_PREDECLARED = frozenset("any bool byte comparable complex64 complex128 error float32 float64 int int8 int16 "
                         "int32 int64 rune string uint uint8 uint16 uint32 uint64 uintptr".split())
MAX_EMBED_DEPTH = 4  # embedding levels followed for a promoted method


class GoResolver(LanguageResolver):
    def __init__(self, g: Graph):
        super().__init__(g)
        self._dirs: dict[str, list[str]] | None = None
        self._mods: list[tuple[str, str]] | None = None
        self._pkg_syms: dict[str, dict[str, list[Sym]]] = {}
        self._methods: dict[str, dict[tuple[str, str], list[Sym]]] = {}
        self._bindings: dict[str, dict[str, str | None]] = {}
        self._pkg_names: dict[str, str] = {}
        self._embeds: dict[tuple[str, str], list[tuple[str, str]]] = {}
        self._parts: dict[str, tuple[tuple[str, ...], dict[str, str], frozenset[str]]] = {}

    def resolve(self, e: Edge) -> Resolution:
        if e.edge_type == "imports":
            return (None, MODULE) if self.import_dir(e.to_name, e.path) is not None else (None, EXTERNAL)
        name, here = e.to_name, posixpath.dirname(e.path)
        if not e.receiver:
            return self._bare(e, here, name)
        package_value = e.receiver.endswith("=")  # `CommandLine=`: a name the function does not declare
        if package_value:
            e = e._replace(receiver=e.receiver[:-1])
        bindings = self.bindings(e.path)
        if e.receiver in bindings:
            target = bindings[e.receiver]
            if target is None:
                return None, EXTERNAL
            return _pick(self.package_level(target).get(name, []), IMPORT)
        # a call reaches a method, or a field holding a function (`s.hook()`); a use of a selected
        # name (`references`: `s.conn`, `T{Field: v}`, a method value `c.run`) a field or a method
        member = lambda d, t, n: self._member_of(d, t, n, e.path)  # noqa: E731
        typed = self.var_type(here, e.receiver) if package_value else None
        if typed is EXTERNAL:
            return None, EXTERNAL
        got = member(*typed, name) if typed is not None else None
        if got is not None:
            return got
        owner = self.g.get(e.from_id)
        m = _RECEIVER.match(owner.signature) if owner is not None and owner.kind == "method" else None
        local = _LOCAL.match(e.receiver)
        if local is not None:
            typed = self._through_local(e.path, here, local, name, m.groups() if m is not None else None, member)
            if typed is not None:
                return typed
        if m is not None and m.group(1) == e.receiver:
            got = member(here, m.group(2), name)
            if got is not None:
                return got
        if e.receiver in self.package_level(here):  # `T.Method` method expressions
            hits = self.method_set(here, e.receiver, name)
            if hits:
                return _pick(hits, RECEIVER)
        if e.edge_type == "references":  # a field's use on a receiver not typed: no guess by the name
            return None, UNKNOWN
        if name in _COMMON_METHODS:
            return None, OPAQUE
        return unique(self.g.few_named(name, ("method",), ("go",)))

    def _bare(self, e: Edge, here: str, name: str) -> Resolution:
        hits = self.package_level(here).get(name, [])
        if hits:
            return _pick(hits, SCOPE)
        for alias, target in self.bindings(e.path).items():
            if alias.startswith(".") and target is not None:  # dot-imports
                hits = self.package_level(target).get(name, [])
                if hits:
                    return _pick(hits, IMPORT)
        return (None, EXTERNAL) if name in _BUILTIN_FUNCS else (None, UNKNOWN)

    # ---- packages ------------------------------------------------------------------------
    def dirs(self) -> dict[str, list[str]]:
        """Package directory -> its Go files."""
        if self._dirs is None:
            self._dirs = {}
            for path, lang in self.g.files().items():
                if lang == "go":
                    self._dirs.setdefault(posixpath.dirname(path), []).append(path)
        return self._dirs

    def package_level(self, directory: str) -> dict[str, list[Sym]]:
        """name -> package-level definitions (methods excluded) of one directory."""
        got = self._pkg_syms.get(directory)
        if got is None:
            got = {}
            for path in self.dirs().get(directory, ()):
                for s in self.g.in_file(path):
                    if s.parent is None and s.kind != "method":
                        got.setdefault(s.name, []).append(s)
            self._pkg_syms[directory] = got
        return got

    def methods(self, directory: str) -> dict[tuple[str, str], list[Sym]]:
        """(receiver type, method name) -> methods declared in one directory."""
        got = self._methods.get(directory)
        if got is None:
            got = {}
            for path in self.dirs().get(directory, ()):
                for s in self.g.in_file(path):
                    parts = s.qname.split(".")
                    if s.kind == "method" and s.parent is None and len(parts) >= 2:
                        got.setdefault((parts[-2], s.name), []).append(s)
            self._methods[directory] = got
        return got

    def _through_local(self, path: str, here: str, local: re.Match, name: str,
                       receiver: tuple[str, str] | None,
                       member: Callable[[str, str, str], Resolution | None]) -> Resolution | None:
        """A call on a local whose declaration says its type (the extractor's receiver `T{}`,
        `pkg.T{}`) or whose value is the result of a call of a name (`f()`, `pkg.F()`: the
        first result f's signature declares, or f itself when it is a type), or of a method
        (`T{}.M()`, or `r.M()` on the enclosing method's receiver `r`, of `receiver`'s
        (name, type): the first result T's method M declares). Outside the repository:
        external. `member` finds the name in the type so reached. None when it decides nothing."""
        pkg, word, form, links = local.groups()
        steps = _LINKS.findall(links)
        if receiver is not None and pkg == receiver[0] and form == "()" and pkg not in self.bindings(path):
            pkg, word, form, steps = None, receiver[1], "{}", [(word, "()"), *steps]
        directory = self._package_of(path, here, pkg)
        if directory is EXTERNAL or directory is None:
            return (None, EXTERNAL) if directory is EXTERNAL else None
        typed = (directory, word) if form == "{}" else self.result_type(directory, word, int(form[3:] or 0))
        for step, how in steps:  # `T{}.M()`: the first result of T's method M; `T{}.f`: f's type
            if typed is EXTERNAL or typed is None:
                break
            typed = (self._declared_result(self.method_set(*typed, step)) if how == "()"
                     else self.field_type(*typed, step, how == "[]"))
        if typed is EXTERNAL or typed is None:
            return (None, EXTERNAL) if typed is EXTERNAL else None
        return member(*typed, name)

    def var_type(self, directory: str, name: str) -> tuple[str, str] | str | None:
        """(directory, type name) of the package-level variable `name` of `directory` when its
        one declaration writes it: a declared type or a value that writes one (`var d *T`, `var
        d *b.T`, `= &b.T{...}`, `new(T)`), or a call's value (`= New()`, `= b.New(x)`: the first
        result the function declares, as for a local). EXTERNAL for an outside package's; else
        None. Another package counts only through an import that binds it by its alias or its
        path's last element: those are the names an edited import makes dirty, and a variable
        whose signature writes a dirty name makes its own name dirty (`resolve._with_values`),
        so the calls on it elsewhere are retried when what the declaration names changes."""
        defs = self.package_level(directory).get(name, [])
        m = _VAR.match(defs[0].signature) if len(defs) == 1 and defs[0].kind == "variable" else None
        if m is None or (m.group(2).startswith("=") and "," in m.group(1)):
            return None
        if m.group(2).startswith("="):
            value = m.group(2)[1:].strip()
            v = _VALUE_TYPE.match(value)
            if v is None:
                return self._call_value(defs[0].path, directory, value)
            declared = (v.group(1) or v.group(3) or "", v.group(2) or v.group(4))
        else:
            t = _PARAM_TYPE.match(m.group(2).split("=", 1)[0].strip())
            declared = (t.group(1) or "", t.group(2)) if t is not None else None
        if declared is None or (not declared[0] and declared[1] in _PREDECLARED):
            return None
        at = self._value_package(defs[0].path, directory, declared[0])
        return at if at is None or at is EXTERNAL else (at, declared[1])

    def _call_value(self, path: str, here: str, value: str) -> tuple[str, str] | str | None:
        """The type of a variable's value that is one call of a package-level name, `f(..)` or
        `pkg.F(..)`, and nothing after it (a chain is not read); else None."""
        call = _VALUE_CALL.match(value)
        if call is None or _split_list(value, call.end())[1] != len(value) - 1:
            return None
        at = self._value_package(path, here, call.group(1))
        return at if at is None or at is EXTERNAL else self.result_type(at, call.group(2))

    def _value_package(self, path: str, here: str, pkg: str | None) -> str | None:
        """`_package_of` for a name a package-level variable's declaration writes: `pkg` only
        when an import of the file binds it by its alias or its path's last element."""
        if pkg and not any(pkg == (imp.alias or name_tail(imp.to_name)) for imp in self.g.imports(path)):
            return None
        return self._package_of(path, here, pkg)

    def _package_of(self, path: str, here: str, pkg: str | None) -> str | None:
        """The directory of the package `pkg` names in the file at `path` (`here` without
        one); EXTERNAL for one outside the repository, None for a name no import binds."""
        if not pkg:
            return here
        bindings = self.bindings(path)
        if pkg not in bindings:
            return None
        return EXTERNAL if bindings[pkg] is None else bindings[pkg]

    def result_type(self, directory: str, name: str, position: int = 0) -> tuple[str, str] | str | None:
        """(directory, type name) of the value `name(...)` gives, for the package-level `name`
        of `directory`: a function's declared result at `position` (the first unless the
        extractor's receiver says another: `parseAny()#1` for `_, res, ok := parseAny(s, i)`)
        when it is a named type (every definition of the name agreeing), or the type itself
        when `name` is one (a conversion); EXTERNAL when that type is from outside the
        repository; else None."""
        defs = self.package_level(directory).get(name, [])
        if defs and all(d.kind in ("struct", "interface", "type_alias") for d in defs):
            return (directory, name) if not position else None
        funcs = [d for d in defs if d.kind == "function"]
        return self._declared_result(funcs, position) if len(funcs) == len(defs) else None

    def _declared_result(self, defs: list[Sym], position: int = 0) -> tuple[str, str] | str | None:
        """(directory, type name) of the result at `position` the functions or methods `defs`
        declare, every one agreeing; EXTERNAL when that type is from outside the repository;
        else None."""
        got: set[tuple[str, str] | str | None] = set()
        for d in defs:
            declared = first_result(d.signature, d.name, position)
            at = self._package_of(d.path, posixpath.dirname(d.path), declared[0]) if declared is not None else None
            got.add(at if at is EXTERNAL or at is None else (at, declared[1]))
        return got.pop() if len(got) == 1 else None

    def _member_of(self, directory: str, type_name: str, name: str, path: str = "") -> Resolution | None:
        """T's method or field `name` (a method called, a field holding a function called,
        `s.hook()`; a field's use `T{}.conn`, `T{Field: v}`, a method value `t.run`): its own (an
        interface's method spec), else one a type it embeds promotes, breadth first, the
        shallowest depth holding the name deciding (two there are ambiguous, as to the
        compiler); external when T has none and it embeds an outside package's type
        (`http.ResponseWriter`'s `Header`: promoted from there). A type declared in several
        files of its package (build-tagged variants: fsnotify's `Watcher` has a field `isClosed` in
        two backends, a method `isClosed` in a third) reaches, when fields are among the names
        found, the ones the using file `path` declares, when it declares any."""
        level, seen = [(directory, type_name)], set()
        for _ in range(MAX_EMBED_DEPTH + 1):
            fields = [f for d, t in level for f in self.fields(d, t, name)]
            hits = fields + [h for d, t in level for h in (self.methods(d).get((t, name), []) or self.specs(d, t, name))]
            if fields and len(hits) > 1:
                hits = [h for h in hits if h.path == path] or hits
            if hits:
                return _pick(hits, RECEIVER)
            seen.update(level)
            level = [x for d, t in level for x in self.embedded(d, t) if x not in seen]
            if not level:
                break
        return (None, EXTERNAL) if self.embeds_outside(directory, type_name) else None

    def fields(self, directory: str, type_name: str, name: str) -> list[Sym]:
        """The field definitions `name` of the structs `type_name` of `directory` (their children;
        one struct, or each build-tagged variant; an alias of a struct type, `type E = struct{..}`)."""
        return [f for s in self.package_level(directory).get(type_name, []) if s.kind in ("struct", "type_alias")
                for f in self.g.children_of(s.path, s.id).get(name, ()) if f.kind == "variable"]

    def embeds_outside(self, directory: str, type_name: str) -> bool:
        """The struct or interface `type_name` of `directory`, or one of the repository's types
        it embeds (to MAX_EMBED_DEPTH), embeds a type of a package outside the repository."""
        level, seen = [(directory, type_name)], set()
        for _ in range(MAX_EMBED_DEPTH + 1):
            for d, t in level:
                structs = [s for s in self.package_level(d).get(t, []) if s.kind in ("struct", "interface")]
                if len(structs) != 1:
                    continue
                bindings = self.bindings(structs[0].path)
                for written in self.parts(structs[0])[0]:
                    pkg = _EMBEDDED.match(written).group(1)
                    if pkg and pkg in bindings and bindings[pkg] is None:
                        return True
            seen.update(level)
            level = [x for d, t in level for x in self.embedded(d, t) if x not in seen]
            if not level:
                return False
        return False

    def method_set(self, directory: str, type_name: str, name: str) -> list[Sym]:
        """The methods `name` of the type `type_name` of `directory`: its own (an interface's
        method specs), else those the types it embeds promote (a struct's embedded structs
        and interfaces, an interface's embedded interfaces), breadth first: the shallowest
        depth holding the name decides (two there are ambiguous, as they are to the compiler)."""
        level, seen = [(directory, type_name)], set()
        for _ in range(MAX_EMBED_DEPTH + 1):
            hits = [h for d, t in level for h in self.methods(d).get((t, name), []) or self.specs(d, t, name)]
            if hits or not level:
                return hits
            seen.update(level)
            level = [x for d, t in level for x in self.embedded(d, t) if x not in seen]
        return []

    def specs(self, directory: str, type_name: str, name: str | None = None) -> list[Sym]:
        """The method specs (named `name`, or all) of the interface `type_name` of `directory`."""
        return [c for t in self.package_level(directory).get(type_name, []) if t.kind == "interface"
                for n, cs in self.g.children_of(t.path, t.id).items() if name is None or n == name for c in cs]

    def embedded(self, directory: str, type_name: str) -> list[tuple[str, str]]:
        """(directory, type name) of each repository type that the struct or interface
        `type_name` of `directory` embeds, read from its signature (a package outside is left
        out)."""
        key = (directory, type_name)
        got = self._embeds.get(key)
        if got is None:
            got = self._embeds[key] = []
            structs = [s for s in self.package_level(directory).get(type_name, [])
                       if s.kind in ("struct", "interface")]
            for written in self.parts(structs[0])[0] if len(structs) == 1 else ():
                e = _EMBEDDED.match(written)
                target = self.bindings(structs[0].path).get(e.group(1)) if e.group(1) else directory
                if target is not None:
                    got.append((target, e.group(2)))
        return got

    def field_type(self, directory: str, type_name: str, field: str,
                   indexed: bool) -> tuple[str, str] | str | None:
        """(directory, type name) of the value of the field `field` of the struct `type_name`
        of `directory` (its element when `indexed`: a slice's, an array's, a map's), read
        from the struct's signature: its own field, else one a type it embeds promotes, the
        shallowest depth holding the name deciding (two there: None); EXTERNAL for a type
        from outside the repository; None when not known (a type parameter, a type no
        name, a predeclared type, a signature cut before it)."""
        level, seen = [(directory, type_name)], set()
        for _ in range(MAX_EMBED_DEPTH + 1):
            found = []
            for d, t in level:
                struct = self._struct(d, t)
                _, fields, params = self.parts(struct) if struct is not None else ((), {}, ())
                if field in fields:
                    found.append((struct, fields[field], params))
            if found:
                return self._typed_field(*found[0], indexed) if len(found) == 1 else None
            seen.update(level)
            level = [x for d, t in level for x in self.embedded(d, t) if x not in seen]
            if not level:
                return None
        return None

    def parts(self, t: Sym) -> tuple[tuple[str, ...], dict[str, str], frozenset[str]]:
        """`type_parts` of a struct's or interface's signature; one that the length limit cut
        is written again without the limit from the type's text in its file, as extraction
        writes it (`languages.go.struct_signature`): a big struct (gojsonschema's `subSchema`,
        net/http's `Transport`) declares most of its fields after the cut, and a call on their
        values was a guess by name."""
        got = self._parts.get(t.id)
        if got is None:
            signature = t.signature
            if signature.endswith("...") and t.kind == "struct":
                # found by its declaration: the indexed text is the file's chunks joined, not
                # numbered as the file's lines
                text = self.g.read_text(t.path) or ""
                head = re.search(_STRUCT_HEAD.format(re.escape(t.name)), text)
                if head is not None:  # to its closing brace, at the head's indentation (gofmt's layout)
                    end = text.find("\n" + head.group(1) + "}", head.end())
                    declaration = text[head.start():end + len(head.group(1)) + 2] if end >= 0 else text[head.start():]
                    signature = struct_signature(declaration) or signature
            got = self._parts[t.id] = type_parts(signature)
        return got

    def _struct(self, directory: str, type_name: str) -> Sym | None:
        """The struct `type_name` of `directory`, when it is one definition."""
        structs = [s for s in self.package_level(directory).get(type_name, []) if s.kind == "struct"]
        return structs[0] if len(structs) == 1 else None

    def _typed_field(self, struct: Sym, declared: str, params: set[str],
                     indexed: bool) -> tuple[str, str] | str | None:
        """(directory, type name) of a value of the field type `declared` that `struct`
        writes (its element when `indexed`), or EXTERNAL, or None (see `field_type`)."""
        where = struct
        if indexed:
            element = _element(declared)
            if not element:  # a named slice or map type: its element is in its declaration
                where, element = self._named_element(struct, declared, params)
            declared = element
        m = _PARAM_TYPE.match(declared.strip()) if declared else None
        if m is None or (not m.group(1) and (m.group(2) in params or m.group(2) in _PREDECLARED)):
            return None
        at = self._package_of(where.path, posixpath.dirname(where.path), m.group(1))
        return at if at is EXTERNAL or at is None else (at, m.group(2))

    def _named_element(self, struct: Sym, declared: str, params: set[str]) -> tuple[Sym, str]:
        """(the declaration, the element type it writes) of the named type `declared` that
        `struct` writes when it is a slice, array or map type of the repository (`type
        Matchers []Matcher`); (struct, "") otherwise."""
        m = _PARAM_TYPE.match(declared.strip())
        if m is None or (not m.group(1) and (m.group(2) in params or m.group(2) in _PREDECLARED)):
            return struct, ""
        at = self._package_of(struct.path, posixpath.dirname(struct.path), m.group(1))
        defs = self.package_level(at).get(m.group(2), []) if at is not None and at is not EXTERNAL else []
        named = _NAMED_TYPE.match(defs[0].signature) if len(defs) == 1 and defs[0].kind == "type_alias" else None
        return (defs[0], _element(named.group(1))) if named is not None else (struct, "")

    def members(self, sym: Sym) -> list[str]:
        """The names of the methods of a type (`refs.dirty.type_members`): Go declares them
        outside the type, so no definition is its child (an interface's specs are); with those
        of the types its struct or interface embeds, the edges through which may resolve
        otherwise once its embedding changes."""
        directory = posixpath.dirname(sym.path)
        out: list[str] = []
        level, seen = [(directory, sym.name)], set()
        for _ in range(MAX_EMBED_DEPTH + 1):
            seen.update(level)
            out += [n for d, t in level for (owner, n) in self.methods(d) if owner == t]
            out += [s.name for d, t in level for s in self.specs(d, t)]
            # a field's name: the calls on its value (`Server{}.conn`) follow its declared type
            out += [f for d, t in level if (s := self._struct(d, t)) is not None for f in self.parts(s)[1]]
            level = [x for d, t in level for x in self.embedded(d, t) if x not in seen]
        return out

    def package_name(self, directory: str) -> str:
        """The name the directory's package clause gives, read from a non-test file's
        definitions: a `_test.go` file may belong to the external test package `x_test`,
        which no import binds."""
        got = self._pkg_names.get(directory)
        if got is None:
            got = self._pkg_names[directory] = self._read_package_name(directory)
        return got

    def _read_package_name(self, directory: str) -> str:
        for path in sorted(self.dirs().get(directory, ()), key=lambda p: p.endswith("_test.go")):
            for s in self.g.in_file(path):
                if s.parent is None and "." in s.qname:
                    name = s.qname.split(".", 1)[0]
                    if not (path.endswith("_test.go") and name.endswith("_test")):
                        return name
        return posixpath.basename(directory)

    # ---- imports -------------------------------------------------------------------------
    def modules(self) -> list[tuple[str, str]]:
        """(directory, module path) of every go.mod, longest module path first."""
        if self._mods is None:
            mods = []
            for path in self.g.files():
                if posixpath.basename(path) == "go.mod":
                    m = _MODULE_LINE.search(self.g.read_text(path) or "")
                    if m:
                        mods.append((posixpath.dirname(path), m.group(1)))
            self._mods = sorted(mods, key=lambda x: (-len(x[1]), x[0]))
        return self._mods

    def configuration(self) -> list[tuple[str, str]]:
        """What this resolver reads from files that are not code: the go.mod module paths
        (`resolve._configuration`: another set resolves every edge again)."""
        return self.modules()

    def import_dir(self, import_path: str, importer: str = "") -> str | None:
        """The repository directory of an import path, or None when it is outside. `importer`,
        the importing file, lets a project without a go.mod import its own root package: a
        directory of one component that ends the path counts when the importer lies inside it
        (`jwt-go/cmd/jwt/app.go` importing `github.com/dgrijalva/jwt-go`; not `util/` for
        `github.com/x/util` from anywhere else)."""
        dirs = self.dirs()
        for moddir, modpath in self.modules():
            if import_path == modpath or import_path.startswith(modpath + "/"):
                rest = import_path[len(modpath):].lstrip("/")
                # the module's own root package is its go.mod's directory (no "cobra/" for "cobra")
                d = posixpath.join(moddir, rest) if moddir and rest else (moddir or rest)
                return d if d in dirs else None
        if import_path in dirs:
            return import_path
        fits = [d for d in dirs if d.count("/") >= 1 and import_path.endswith("/" + d)]
        if len(fits) == 1:
            return fits[0]
        top = posixpath.dirname(importer).split("/", 1)[0]
        if fits or not top or top not in dirs or not import_path.endswith("/" + top):
            return None
        # a go.mod over it names its packages' paths itself
        return None if any(moddir in ("", top) for moddir, _ in self.modules()) else top

    def bindings(self, path: str) -> dict[str, str | None]:
        """Names a file's imports bind -> package directory (None: outside the repository);
        dot-imports are keyed `.<path>`, blank imports bind nothing."""
        got = self._bindings.get(path)
        if got is None:
            got = {}
            for imp in self.g.imports(path):
                target = self.import_dir(imp.to_name, path)
                alias = imp.alias
                if alias == "_":
                    continue
                if alias == ".":
                    got["." + imp.to_name] = target
                    continue
                got[alias or (self.package_name(target) if target is not None else import_name(imp.to_name, ""))] = target
            self._bindings[path] = got
        return got


_NAMED_TYPE = re.compile(r"^type\s+\w+(?:\[[^\]]*\])?\s*=?\s*(\S.*)$")  # `type Matchers []Matcher`: what it names
_PARAM_TYPE = re.compile(r"^\*?\s*(?:(\w+)\.)?(\w+)(?:\[.*\])?$")
# The receiver the extractor gives a call on a typed local (go.py `_typed_locals`: `T{}`,
# `pkg.F()`), followed by the methods whose result it is (`ast.Node{}.NextSibling()`) and the
# fields whose value it is (`Server{}.conn`, `Server{}.conns[]` indexed) in the order read
_LOCAL = re.compile(r"^(?:(\w+)\.)?(\w+)(\{\}|\(\)(?:#\d+)?)((?:\.\w+(?:\(\)|\[\])?)*)$")
# a package-level variable's signature: its names, then its type and/or `= value`
_VAR = re.compile(r"^var\s+(\w+(?:\s*,\s*\w+)*)\s*(.*)$")
# a value that writes its type: `T{...}`, `&pkg.T{...}`, `G[int]{...}`, `new(T)`
# a value that is a call of a package-level name: `New(`, `codec.NewRegistry(`
_VALUE_CALL = re.compile(r"^(?:(\w+)\.)?(\w+)\s*\(")
_VALUE_TYPE = re.compile(r"^(?:&\s*)?(?:(\w+)\.)?(\w+)(?:\[[^\]]*\])?\s*\{|^new\(\s*\*?\s*(?:(\w+)\.)?(\w+)\s*\)")
_LINKS = re.compile(r"\.(\w+)(\(\)|\[\]|)")


def _split_list(text: str, start: int, sep: str = ",") -> tuple[list[str], int]:
    """The `sep`-separated parts of the bracketed list opened just before `start`, and the
    index of its closing bracket (len(text) when it is not closed)."""
    depth, parts = 1, []
    for i in range(start, len(text)):
        ch = text[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                parts.append(text[start:i])
                return parts, i
        elif ch == sep and depth == 1:
            parts.append(text[start:i])
            start = i + 1
    return parts, len(text)


def _named_types(parts: list[str]) -> dict[str, tuple[str, str]]:
    """name -> (package or "", type name) of the parts of a list of named parameters (`a, b
    *pkg.T`: the names before a part's type share it) declared with one named type."""
    got: dict[str, tuple[str, str]] = {}
    waiting: list[str] = []
    for part in parts:
        words = part.split(None, 1)
        if len(words) == 1:
            waiting.append(words[0])
            continue
        if len(words) != 2:
            continue
        m = _PARAM_TYPE.match(words[1].strip())
        for param in (*waiting, words[0]):
            if m is not None and param.isidentifier():
                got[param] = (m.group(1) or "", m.group(2))
        waiting = []
    return got


def first_result(signature: str, name: str, position: int = 0) -> tuple[str, str] | None:
    """(package or "", type name) of the first result a Go function's signature declares
    when it is one named type (`func newParser(src []byte) *Parser`, `func Open(p string)
    (*pkg.File, error)`, named results too), or of the result at `position` (`func
    parseAny(json string, i int) (int, Result, bool)`: 1 is `Result`); None for any other, for
    a type parameter of the function, and for a signature cut short."""
    head = re.search(rf"\b{re.escape(name)}\s*(\[[^\]]*\])?\s*\(", signature)
    if head is None or signature.endswith("..."):
        return None
    end = _split_list(signature, head.end())[1]
    rest = signature[end + 1:].strip()
    if rest.startswith("("):
        parts, _ = _split_list(rest, 1)
        if len(parts) <= position:
            return None
        if any(len(p.split(None, 1)) == 2 for p in parts):  # named results: `(a, b T, err error)`
            named = _named_types(parts)
            names = [n.strip() for p in parts for n in p.split(None, 1)[0].split(",") if n.strip()]
            declared = named.get(names[position]) if position < len(names) else None
        else:
            m = _PARAM_TYPE.match(parts[position].strip())
            declared = (m.group(1) or "", m.group(2)) if m else None
    elif position:
        return None
    else:
        m = _PARAM_TYPE.match(rest)
        declared = (m.group(1) or "", m.group(2)) if m and rest else None
    if declared is None or (head.group(1) and not declared[0]
                            and re.search(rf"\b{declared[1]}\b", head.group(1))):
        return None
    return declared


_STRUCT_HEAD = r"(?m)^([ \t]*)(?:type[ \t]+)?{}(?:\[[^\]\n]*\])?[ \t]+struct[ \t]*\{{"  # a struct's declaration, by name


@lru_cache(maxsize=65536)
def type_parts(signature: str) -> tuple[tuple[str, ...], dict[str, str], frozenset[str]]:
    """(the embedded types as written, field name -> declared type, type parameter names) of
    a struct's or interface's signature as the extractor writes it (`type Box[T any] struct {
    *Base; item T; a, b *Other }`; an embedded type is a field named after its type too); a
    list cut by the signature's length limit keeps the parts before the cut."""
    head = re.match(r"type \w+", signature)
    if head is None:
        return (), {}, frozenset()
    at, params = head.end(), frozenset()
    if signature.startswith("[", at):  # type parameters: `[K comparable, V any]`, `[K, V any]`
        parts, at = _split_list(signature, at + 1)
        params = frozenset(p.split(None, 1)[0] for p in parts if p.strip())
    body = _BODY.search(signature, at)
    if body is None:
        return (), {}, params
    rest = signature[body.end():]
    cut = rest.endswith("...")
    text = (rest if cut else rest.removesuffix(" }")) + ")"
    parts, end = _split_list(text, 0, ";")
    if cut and end < len(text):  # the last part ends at the cut (one cut in a bracket was never closed)
        parts.pop()
    embeds, fields = [], {}
    for part in (p.strip() for p in parts):
        e = _EMBEDDED.match(part)
        if e is not None:
            embeds.append(part)
            fields.setdefault(e.group(2), part)
            continue
        f = _FIELD.match(part)
        for name in f.group(1).split(",") if f is not None else ():
            fields.setdefault(name.strip(), f.group(2))
    return tuple(embeds), fields, params


def _element(declared: str) -> str:
    """The element type of a slice, array or map type as written (`[]*T`, `[4]T`,
    `map[string]T`): what indexing a value of it gives; "" for any other."""
    t = declared.strip()
    start = 4 if t.startswith("map[") else 1 if t.startswith("[") else 0
    if not start:
        return ""
    end = _split_list(t, start)[1]
    return t[end + 1:].strip()


def _pick(hits: list[Sym], confidence: str) -> Resolution:
    if len(hits) == 1:
        return hits[0].id, confidence
    return (None, AMBIGUOUS) if hits else (None, UNKNOWN)
