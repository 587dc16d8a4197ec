"""TypeScript / TSX / JavaScript name resolution (one family: each imports the others).

- Specifiers: relative ones (`./x`, `../y`) try the path as written, then with each source
  extension, then as a directory's `index` file; a `.js` written for a `.ts` source (ESM
  style) finds the `.ts`. Bare specifiers go through the nearest tsconfig.json / jsconfig.json's
  `baseUrl` and `paths` (merged along `extends`), then a repository package.json of that
  `name` (a self-import, a workspace package: `tsconfig.py`); all read from the index, and an
  edit of them resolves every edge again (`configuration`). Anything else is a package
  outside the repository, but for a subpath import (`#core/x`) no package.json maps, the
  package's own code: the directory its first segment names (below).
- A module's exports: its top-level definitions, names its imports/re-exports bind
  (`export {a as b} from`, and `export {a as b}` of its own `a`: an import whose module is
  ""), and `export * from` modules, followed up to MAX_HOPS.
- Bare names: enclosing functions' and namespaces' definitions (and functions declared in
  an enclosing constant's initializer: `const m = gen(function*() { function f() {} })`) and
  parameters (a parameter's value is the caller's: a call of it is unresolved, a member of it
  is found through its declared type), the file's top level, its imports; ES modules bind
  every name explicitly, so nothing else is guessed. A name a block, function, catch clause or
  loop declares for itself (`const atom = this.records.getAtom(id)` beside an imported `atom`)
  is that local where it is seen: the extractor writes no edge for its calls and reads there
  (languages/typescript `_local_names`).
- `this.m` / `super.m`: the enclosing class and its `extends` chain; `X.m` when X is a
  class, enum, namespace or imported module; `new X().m()`; a value whose declared type is a
  class, interface or type alias of an object type (`type C = { m(): void }`) reaches its member,
  as does one of an alias of one named type (`type CmdKey<T> = SliceType<Cmd<T>>`: SliceType's)
  (an alias without it, a union, falls through); a field typed by an indexed access type
  (`form: Options<T>['form']`) is typed as that member of the container is, and one typed by a
  utility type that keeps its argument's members (`Required<Options>`) as its argument; a
  receiver typed by a type imported from outside the repository (or reached through one, or
  returned by a function from there, or a member a class neither declares nor inherits from a
  repository base while it extends an outside class) is external, never a repository method of
  the same name, unless the package's name is a directory of the repository (a workspace
  package without a package.json, a bundler alias: it may be that directory, and a name
  imported from it, when no package.json names the package, is the one top-level definition of
  that name under the directory); a value typed by an inline object type (`opts: { onChange?:
  () => void }`) or by a type no repository file declares (the library's and the DOM's: `dom:
  HTMLElement`) reaches no repository method; a constructor's parameter property
  (`constructor(readonly view: View)`) types `this.view`.
  A call's result is the type its callee's signature writes (a local holding it, awaited or
  not, is that call: `const store = await this.getStore()`); a promise's is what it resolves
  to (`): Promise<Query>`), and one no repository file declares (`Promise<IDBObjectStore>`) or
  from outside the repository has no repository member; a type parameter says nothing.
  What a repository function returns when its signature writes no type: its own inner function
  of the member's name (`function createSystem() { return { link, unlink }; function unlink()
  {} }`), reached by `const s = createSystem(); s.unlink()` and by a bare call of a name
  destructured from the call, `const { unlink } = createSystem(); unlink()`.
  Other receivers (a value whose declaration writes no type among them: `export const m =
  createManager()`): the one method of that name in the family, unless it is a common library
  method name.
"""
from __future__ import annotations

import posixpath
import re

from ..model import TS_FAMILY
from .common import (EXTERNAL, IMPORT, MAX_HOPS, MODULE, OPAQUE, RECEIVER, SCOPE, UNKNOWN, Module, ScopedResolver,
                     Resolution, Target, as_resolution, call_chain, constructor_chain, enclosing_symbol, first,
                     ident_chain, unique)
from .graph import Edge, Graph, Sym
from .tsconfig import Mapping, ProjectConfig, import_targets, join, package_targets

_FAMILY = tuple(sorted(TS_FAMILY))
_EXTS = (".ts", ".tsx", ".d.ts", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
_JS_FOR_TS = {".js": (".ts", ".tsx"), ".jsx": (".tsx",), ".mjs": (".mts",), ".cjs": (".cts",)}
_GLOBALS = frozenset("console Math JSON Object Array Promise String Number Boolean Symbol Date Error RegExp Map Set "
                     "WeakMap WeakSet window document globalThis require module exports process setTimeout "
                     "clearTimeout setInterval clearInterval parseInt parseFloat isNaN fetch Buffer Reflect Proxy "
                     "encodeURIComponent decodeURIComponent structuredClone queueMicrotask".split())
_COMMON_METHODS = frozenset(
    "push pop shift unshift slice splice map filter reduce forEach find findIndex some every includes indexOf "
    "join concat sort reverse keys values entries get set has delete clear add then catch finally toString "
    "valueOf call apply bind log warn error info debug emit on off once addEventListener removeEventListener "
    "querySelector getElementById appendChild removeChild setAttribute getAttribute trim split replace match "
    "test exec startsWith endsWith toLowerCase toUpperCase charAt substring padStart assign freeze create parse "
    "stringify resolve reject all race next return throw dispatch subscribe pipe send write end close open "
    "read flat flatMap fill at from of length toJSON toISOString getTime preventDefault stopPropagation "
    "focus blur click render setState forceUpdate".split())
_SCOPES = frozenset({"function", "method", "module"})
_CLASSES = frozenset({"class", "interface"})
# what holds members a receiver's type can name; a type alias of an object type (`type Codec =
# { decode(...): unknown }`) has its members as children, as an interface does
_CONTAINERS = frozenset({"class", "interface", "enum", "module", "type_alias"})
_TYPES = tuple(sorted(_CONTAINERS))
_FUNCTIONS = frozenset({"function", "method"})
# TypeScript's utility types whose members are their type argument's
_SAME_MEMBERS = frozenset({"Required", "Partial", "Readonly", "NonNullable"})
_VALUES = frozenset({"variable", "constant"})
_RETURNS = re.compile(r"\)\s*:\s*([A-Za-z_$][\w$.]*)\s*(?:<[^{]*)?$")
# a value whose declaration writes no type but is a `new` expression (`= new TimeoutManager()`)
_NEW_VALUE = re.compile(r"=\s*new\s+([A-Za-z_$][\w$.]*)\s*(<.*>)?\s*(?:\(.*)?$")
# A callback parameter's receiver (see languages/typescript.py `_callback_receivers`):
# `[new ]callee@argument.parameter`.
_CALLBACK_PARAM = re.compile(r"(new )?(.+)@(\d+)\.(\d+)", re.S)
# The callbacks a collection's own method calls with its elements: argument 0, and the
# parameter the element is (`items.forEach((item) => ...)`, `reduce((acc, item) => ...)`).
_ELEMENT_PARAMETER = {**dict.fromkeys(("forEach", "map", "filter", "find", "findLast", "findIndex", "findLastIndex",
                                       "some", "every", "flatMap"), 0), "reduce": 1, "reduceRight": 1}
_KEYED_ELEMENT_METHODS = frozenset({"forEach"})  # a Set's or a Map's (a Map gives its values)
_ARRAY_OF = re.compile(r"(?:readonly\s+)?([A-Za-z_$][\w$.]*)\s*(?:<.*>)?\s*\[\]|(?:Readonly)?Array\s*<\s*([A-Za-z_$][\w$.]*).*>",
                       re.S)
_COLLECTION_OF = re.compile(r"(?:Readonly)?(Set|Map)\s*<(.+)>", re.S)
_WRITTEN_RETURN = re.compile(r"\)\s*:\s*(.+)$", re.S)
_TYPE_HEAD_NAME = re.compile(r"[A-Za-z_$][\w$.]*(?=\s*(?:<.*)?$)", re.S)
_OPEN, _CLOSE = "([{<", ")]}>"
# A parameter or field typed by an inline object type (`opts: { key: K; onChange?: () => void }`):
# its members are the object's properties, no repository method.
_INLINE_OBJECT = r"(?<![\w$.]){}\s*[?!]?\s*:\s*\{{"
# What a value is typed by when no repository definition can say: the TypeScript library's (and
# the DOM's) types, which no file of the repository declares (`dom: HTMLElement`), and an inline
# object type. A member reached through either is no repository method of the same name.
_LIBRARY = Module("(the TypeScript library)", None)
_INLINE = Module("(an inline object type)", None)
# An indexed access type written for a field or variable (`form: Options<T, U>['form']`): the
# object type's name and the key; the type arguments do not choose the member.
_INDEXED = re.compile(r"([A-Za-z_$][\w$.]*)\s*(?:<.*>)?\s*\[\s*(['\"])([A-Za-z_$][\w$]*)\2\s*\]\s*"
                      r"(?:\|\s*(?:null|undefined)\s*)*;?\s*", re.S)


def split_top(text: str, start: int) -> list[str] | None:
    """The comma-separated items between the bracket at `start` and its match (nesting of
    (), [], {} and <> respected; the `>` of `=>` is no bracket), or None if unbalanced."""
    depth, item, items = 0, start + 1, []
    for i in range(start + 1, len(text)):
        c = text[i]
        if c in _OPEN:
            depth += 1
        elif c in _CLOSE and not (c == ">" and text[i - 1] == "="):
            if depth == 0:
                items.append(text[item:i].strip())
                return [x for x in items if x]
            depth -= 1
        elif c == "," and depth == 0:
            items.append(text[item:i].strip())
            item = i + 1
    return None


def _parameters(signature: str) -> list[str] | None:
    """The parameters of a function or method signature (`name<T>(a: A, b?: B): R`), as written."""
    depth = 0
    for i, c in enumerate(signature):
        if c == "<":
            depth += 1
        elif c == ">" and signature[i - 1] != "=":
            depth -= 1
        elif c == "(" and depth == 0:
            return split_top(signature, i)
    return None


_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
_BARE_ARROW = re.compile(r"(?:^|[=:(,]\s*)(?:async\s+)?([A-Za-z_$][\w$]*)\s*=>")
_DEFAULT = re.compile(r"=[^,{}\[\]]*")  # a destructured name's default value, up to the next item


def _matching(text: str) -> int | None:
    """The index of the bracket that closes the one `text` starts with."""
    depth = 0
    for i, c in enumerate(text):
        if c in _OPEN:
            depth += 1
        elif c in _CLOSE and not (c == ">" and text[i - 1] == "="):
            depth -= 1
            if depth == 0:
                return i
    return None


def _parameter_names(signature: str) -> frozenset[str]:
    """The names a function or method signature binds as parameters: `(a, b?: B, ...c: C[])`,
    a destructuring pattern's names (`{ x, y: renamed = 1 }` binds x and renamed), an arrow's
    one unparenthesized parameter (`f = x =>`); a `this:` pseudo-parameter binds nothing."""
    params = _parameters(signature)
    if params is None:
        m = _BARE_ARROW.search(signature)
        return frozenset({m.group(1)}) if m else frozenset()
    names: set[str] = set()
    for p in params:
        p = p.removeprefix("...").strip()
        if p[:1] in ("{", "["):
            end = _matching(p)
            pattern = _DEFAULT.sub("", p[1:end]) if end is not None else ""
            names.update(m.group() for m in _IDENT.finditer(pattern)
                         if not pattern[m.end():].lstrip().startswith(":"))
        elif (m := _IDENT.match(p)) is not None and m.group() != "this":
            names.add(m.group())
    return frozenset(names)


def _parameter_property(signature: str, name: str) -> bool:
    """A constructor's parameter that declares a property of its class (`readonly name: T`,
    `private name`)."""
    return re.search(rf"\b(?:readonly|public|private|protected)\s+(?:readonly\s+)?{re.escape(name)}\b",
                     signature) is not None


def _callback_parameter(signature: str, argument: int, parameter: int) -> str | None:
    """`name: Type` of parameter `parameter` of the function type that `signature` declares
    for argument `argument` (`init: (source: Observable<T>, subscriber: Subscriber<R>) => void`
    and 0, 1 -> `subscriber: Subscriber<R>`); a `this:` pseudo-parameter does not count."""
    params = _parameters(signature)
    if params is None or argument >= len(params):
        return None
    _, colon, written = params[argument].partition(":")
    written = written.strip()
    if not colon or not written.startswith("("):
        return None
    inner = [p for p in (split_top(written, 0) or []) if not p.startswith("this:")]
    return inner[parameter] if parameter < len(inner) else None


def _untyped(target: Target) -> bool:
    """A variable or constant whose signature writes neither a type nor a value."""
    return isinstance(target, Sym) and target.kind in _VALUES and not re.search(
        rf"(?<![\w$]){re.escape(target.name)}\s*[?!]?\s*[:=]", target.signature)


def _package_name(spec: str) -> str:
    """The package a bare specifier names: `@scope/name/sub` -> `@scope/name`, `name/sub` -> `name`."""
    parts = spec.split("/")
    return "/".join(parts[:2] if parts[0].startswith("@") else parts[:1])


def _returned_type(signature: str) -> str | None:
    """The named type a function or method signature says it returns (`): Subject<T>`)."""
    m = _RETURNS.search(signature)
    return m.group(1) if m else None
_HEADER_TOKEN = re.compile(r"=>|[<>()\[\]{},]|[A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*")


_PROMISES = frozenset({"Promise", "PromiseLike"})
_PROMISED = re.compile(r"\)\s*:\s*(?:Promise|PromiseLike)\s*<\s*([A-Za-z_$][\w$.]*)\s*(?:<.*>)?\s*>\s*$", re.S)


def _promised(signature: str) -> str | None:
    """The one named type a signature's written promise resolves to (`): Promise<Query<T>>` ->
    `Query`), or None (a union, an object type, nothing written)."""
    m = _PROMISED.search(signature)
    return m.group(1) if m else None


_ALIASED_HEAD = re.compile(r"\s*([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\s*")


def _aliased(signature: str) -> list[list[str]]:
    """The one named type a type alias stands for (`type CmdKey<T> = SliceType<Cmd<T>>`:
    SliceType), as a dotted chain, or nothing when the alias is anything else (a union, a
    function or object type, a conditional or indexed type)."""
    depth, eq = 0, -1
    for i, c in enumerate(signature):  # the `=` after the header; a type parameter's default is inside <>
        if c == "<":
            depth += 1
        elif c == ">" and signature[i - 1] != "=":
            depth -= 1
        elif c == "=" and depth == 0 and signature[i + 1:i + 2] != ">":
            eq = i
            break
    written = signature[eq + 1:].strip().rstrip(";").rstrip() if eq >= 0 else ""
    m = _ALIASED_HEAD.match(written)
    if m is None:
        return []
    rest = written[m.end():]
    if rest and not (rest[0] == "<" and _matching(rest) == len(rest) - 1):
        return []
    return [m.group(1).split(".")]


def _extended(signature: str) -> list[list[str]]:
    """The names a class or interface header's `extends` clause writes (`class A<T extends X>
    extends B<T>`: B; `interface I<..> extends J, K.L<M<N>>`: J and K.L), each as a dotted
    chain. Read outside every bracket: the type parameters' own `extends` constraints and the
    bases' type arguments at any depth are skipped, and a header the extractor cut short
    (`... extends CollectionImpl<T, TKey, ...`) still names its base."""
    depth, clause, expecting = 0, None, False
    for m in _HEADER_TOKEN.finditer(signature):
        t = m.group()
        if t == "=>":
            continue
        if t == "{" and depth == 0:  # the body
            break
        if t in _OPEN:
            depth += 1
        elif t in _CLOSE:
            depth = max(depth - 1, 0)
        elif depth:
            continue
        elif t == ",":
            expecting = clause is not None
        elif t == "extends" and clause is None:
            clause, expecting = [], True
        elif t == "implements" and clause is not None:
            break
        elif expecting:
            clause.append(re.sub(r"\s+", "", t).split("."))
            expecting = False
    return clause or []


class TypeScriptResolver(ScopedResolver):
    GLOBALS = _GLOBALS

    def __init__(self, g: Graph):
        super().__init__(g)
        self._files: set[str] | None = None
        self.project = ProjectConfig(g.files, g.read_text)
        self._bindings: dict[str, tuple[dict[str, list[Edge]], list[Edge]]] = {}
        self._lookups: dict[tuple[str, str], Target] = {}
        self._active: set[tuple[str, str]] = set()
        self._bases: dict[str, list[Sym]] = {}
        self._params: dict[str, frozenset[str]] = {}
        self._dirs: set[str] | None = None

    # ---- edges ---------------------------------------------------------------------------
    def import_edge(self, e: Edge) -> Resolution:
        if not e.module:  # `export { a as b }`: the `a` this file binds
            return as_resolution(*self.bare(e.path, e.from_id, e.to_name))
        target = self.specifier(e.module, e.path)
        if target is None:  # a package: one that is a directory of the repository binds as `bound` reads it
            hit = self._in_directory(e.module, e.to_name) if e.to_name not in ("*", "default", e.module) else None
            return as_resolution(hit, IMPORT) if hit is not None else (None, EXTERNAL)
        if e.to_name in ("*", e.module) or (e.to_name == "default" and not e.alias):
            return None, MODULE
        name = e.alias if e.to_name == "default" else e.to_name
        return as_resolution(self.lookup(target, name, 0), IMPORT)

    def attribute(self, e: Edge) -> Resolution:
        recv, name = e.receiver, e.to_name
        if recv == "super":
            cls = enclosing_symbol(self.g, self.g.get(e.from_id), frozenset({"class"}))
            hit = next((h for b in self.bases(cls) if (h := self.member(b, name)) is not None), None) \
                if cls is not None else None
            return as_resolution(hit, RECEIVER)
        if recv.endswith("()#"):  # `const {unlink} = f(); unlink()`: what f() returns, nothing guessed
            segments = call_chain(recv[:-1])
            return as_resolution(self._member_of_calls(e, segments, name) if segments else None, RECEIVER)
        if (cb := _CALLBACK_PARAM.fullmatch(recv)) is not None:
            hit = self._member_of_callback_parameter(e, cb, name)
            if hit is not None:
                return hit.id, RECEIVER
            recv = ""  # an untyped parameter: only the name-based fallbacks below
        chain = ident_chain(recv)
        if chain is None and recv.startswith("new "):
            chain = constructor_chain(recv[4:].strip())
        elif chain is None and (segments := call_chain(recv)):
            # `this.getSubject().subscribe()`, `this.#cache.build(key).fetch()`: methods and
            # functions whose signatures write their return types, call after call; anything
            # else called keeps the fallbacks below
            hit = self._member_of_calls(e, segments, name)
            if hit is not None:
                return as_resolution(hit, RECEIVER)
        if chain:
            base, conf = self.chain(e.path, e.from_id, chain)
            hit = self.attribute_of(base, name) if base is not None else None
            if hit is _INLINE:
                return None, OPAQUE
            # a type alias may be a union or an intersection (`Subscription | (() => void)`), and
            # a value whose declaration writes no type (`export const notifyManager =
            # createNotifyManager()`) is of a type nothing here says: one without the member
            # leaves the call to the name-based fallbacks below
            if hit is not None or (base is not None and getattr(base, "kind", "") != "type_alias"
                                   and not _untyped(base)):
                return as_resolution(hit, conf)
            if chain == ["this"]:
                return None, UNKNOWN
        if name in _COMMON_METHODS:
            return None, OPAQUE
        return unique(self.g.few_named(name, ("method",), _FAMILY))

    def _member_of_callback_parameter(self, e: Edge, cb: re.Match, name: str) -> Sym | None:
        """`subscriber.next()` where `subscriber` is parameter j of the function passed as
        argument i to `callee` (or to `new callee`): the type the callee's signature declares
        for it, or, for a collection's own method (`this.#observers.forEach((o) => ...)`), the
        element type the collection is written with."""
        segments = call_chain(cb.group(2))
        if segments is None:
            return None
        if not cb.group(1) and len(segments) > 1 and cb.group(3) == "0":
            element = self._element_type(e, segments, int(cb.group(4)))
            if element is not None:
                return self.member(element, name)
        if any(called for _, called in segments):
            return None
        callee, _ = self.chain(e.path, e.from_id, [s for s, _ in segments])
        if not isinstance(callee, Sym):
            return None
        if cb.group(1):  # `new X(...)`: X's constructor, its own or inherited
            callee = self.member(callee, "constructor") if callee.kind in _CLASSES else None
        elif callee.kind not in _FUNCTIONS:
            return None
        param = _callback_parameter(callee.signature, int(cb.group(3)), int(cb.group(4))) if callee else None
        if param is None:
            return None
        declared = self.declared_type(param, param.partition(":")[0].strip().rstrip("?"))
        cls = self.named_type(callee.path, callee.parent, declared, _CONTAINERS) if declared else None
        return self.member(cls, name)

    def _member_of_calls(self, e: Edge, segments: list[tuple[str, bool]], name: str) -> Target:
        """Member `name` of what a chain of reads and calls yields (`_walk`)."""
        target = self._walk(e, segments)
        if target is None or self._outside(target):
            return target  # what comes from outside the repository is outside it too
        if isinstance(target, Sym) and target.kind in _FUNCTIONS:  # a factory's result (`_result`)
            return first([k for k in self.g.children(target, name) if k.kind == "function"])
        return self.attribute_of(target, name)

    def _walk(self, e: Edge, segments: list[tuple[str, bool]]) -> Target:
        """What a chain of reads and calls yields: the names up to the first call are one chain
        (`this.#cache.build`), then each call is its callee's written return type and each read
        a member of the type before it."""
        first = next((i for i, (_, called) in enumerate(segments) if called), len(segments) - 1)
        target, _ = self.chain(e.path, e.from_id, [s for s, _ in segments[:first + 1]])
        if segments[first][1]:
            target = self._result(target)
        for segment, called in segments[first + 1:]:
            if target is None or self._outside(target):
                break
            target = self.attribute_of(target, segment)
            if called:
                target = self._result(target)
        return target

    def _element_type(self, e: Edge, segments: list[tuple[str, bool]], parameter: int) -> Sym | None:
        """The container that parameter `parameter` of a callback given to a collection's own
        method is (`this.getAll().forEach((query) => ...)` with `getAll(): Array<Query>`,
        `#observers: QueryObserver[]`): the element type the collection's field, variable or
        returning method writes; None when that is not one named type."""
        method = segments[-1][0]
        holder = [*segments[:-2], (segments[-2][0], False)]
        sym = self._walk(e, holder)
        if not isinstance(sym, Sym):
            return None
        if sym.kind in ("method", "function"):
            m = _WRITTEN_RETURN.search(sym.signature)
            written = m.group(1) if m else ""
        elif sym.kind in _VALUES:
            m = re.search(rf"(?<![\w$]){re.escape(sym.name)}\s*[?!]?\s*:\s*([^=]+)", sym.signature)
            made = None if m else _NEW_VALUE.search(sym.signature)  # `#byKey = new Map<string, Query>()`
            written = m.group(1) if m else f"{made.group(1)}{made.group(2) or ''}" if made else ""
        else:
            return None
        written = "|".join(p for p in written.split("|") if p.strip() not in ("undefined", "null")).strip()
        element = None
        if (a := _ARRAY_OF.fullmatch(written)) and _ELEMENT_PARAMETER.get(method) == parameter:
            element = a.group(1) or a.group(2)
        elif (c := _COLLECTION_OF.fullmatch(written)) and method in _KEYED_ELEMENT_METHODS and parameter == 0:
            args = split_top(f"<{c.group(2)}>", 0) or []
            value = args[-1].strip() if args and (c.group(1) == "Set" or len(args) == 2) else ""
            head = _TYPE_HEAD_NAME.match(value)
            element = head.group(0) if head else None
        return self.named_type(sym.path, sym.parent, element, _CONTAINERS) if element else None

    def _result(self, fn: Target) -> Target:
        """The container a call of `fn` returns, as its signature writes it (`): Query<T>`;
        `): this` is its own class); a callee from outside the repository returns from outside.
        A promise's result is what it resolves to (`): Promise<Query>`: members are read from
        it once awaited; a promise's own are `then`/`catch`/`finally`). A type no repository
        file declares (`): Promise<IDBObjectStore>`) or one from a package outside the
        repository has no repository member; a type parameter (`<T>(): T`) says nothing."""
        if self._outside(fn):
            return fn
        if not isinstance(fn, Sym) or fn.kind not in ("method", "function"):
            return None
        declared = _returned_type(fn.signature)
        if declared is None:
            # a factory whose signature writes no type returns its own inner functions (`function
            # createSystem() { return { link, unlink }; function unlink() {} }`): `_member_of_calls`
            return fn
        if declared == "this":
            return enclosing_symbol(self.g, self.g.get(fn.parent), _CONTAINERS)
        if declared in _PROMISES:
            declared = _promised(fn.signature)
            if declared is None:
                return None
        if self._type_parameter(fn, declared):
            return None
        return self._typed(fn.path, fn.parent, declared)

    def _type_parameter(self, sym: Sym, name: str) -> bool:
        """Whether `name` is a type parameter of `sym` or of a definition around it."""
        while sym is not None:
            head = sym.signature.split("(", 1)[0]
            if re.search(rf"<.*(?<![\w$.]){re.escape(name)}(?![\w$])", head, re.S):
                return True
            sym = self.g.get(sym.parent)
        return False

    # ---- names ---------------------------------------------------------------------------
    def bare(self, path: str, from_id: str | None, name: str) -> tuple[Target, str]:
        sym = self.g.get(from_id)
        while sym is not None:
            if sym.kind in _FUNCTIONS and name in self._parameters_of(sym):
                # a parameter shadows the file's and the imports' definitions of its name
                # (`function addDependency(signal: Signal)` beside `function signal()`), and the
                # members of an object type its signature returns, which are its children
                # (`findDiffEnd(a: Fragment, ...): {a: number, b: number}`)
                return None, SCOPE
            if sym.kind in _SCOPES or sym.kind in _VALUES:
                # a constant's children: functions declared in its initializer (bound there)
                # and its object literal's methods and properties (`http.get`: no binding)
                kids = self.g.children(sym, name)
                hit = first(kids if sym.kind in _SCOPES else
                            [k for k in kids if k.kind != "method" and k.kind not in _VALUES])
                if hit is not None:
                    return hit, SCOPE
            sym = self.g.get(sym.parent)
        hit = first(self.g.top_level(path, name))
        if hit is not None:
            return hit, SCOPE
        return self.bound(path, name, 0), IMPORT

    def declared_type(self, signature: str, name: str) -> str | None:
        """The named type `name` is declared with in `signature`; through a utility type that
        keeps its argument's members (`options: Required<Options<T>>` -> `Options`)."""
        declared = self.signatures.declared_type(signature, name)
        if declared in _SAME_MEMBERS:
            m = re.search(rf"(?<![\w$.]){re.escape(name)}\s*[?!]?\s*:\s*{declared}\s*<\s*([A-Za-z_$][\w$.]*)",
                          signature)
            declared = m.group(1) if m else None
        return declared

    def _parameters_of(self, fn: Sym) -> frozenset[str]:
        got = self._params.get(fn.signature)
        if got is None:
            got = self._params[fn.signature] = _parameter_names(fn.signature)
        return got

    def chain(self, path: str, from_id: str | None, parts: list[str]) -> tuple[Target, str]:
        """`a.b.c` at a use site: its target, or None. The root may be `this` (the enclosing
        class) or a parameter declared with a class/interface (or object type alias) type."""
        if parts[0] == "this":
            target, conf = enclosing_symbol(self.g, self.g.get(from_id), frozenset({"class"})), RECEIVER
        else:
            target, conf = self.bare(path, from_id, parts[0])
            if target is None:
                target, conf = self._parameter_type(from_id, parts[0]), RECEIVER
        for part in parts[1:]:
            if target is None:
                break
            if isinstance(target, Sym):
                conf = RECEIVER if conf == SCOPE else conf
            owner, target = target, self.attribute_of(target, part)
            if target is None and isinstance(owner, Sym) and owner.kind == "class":
                target = self._parameter_property_type(owner, part)
        return target, conf

    def _parameter_property_type(self, cls: Sym, name: str) -> Target:
        """The type of a property the constructor's parameter declares (`constructor(readonly
        view: EditorView)`: `this.view` is no member symbol), as a value of that type."""
        for ctor in self.g.children(cls, "constructor"):
            declared = self.declared_type(ctor.signature, name) if _parameter_property(ctor.signature, name) else None
            if declared is not None:
                return self._typed(ctor.path, ctor.id, declared)
        return None

    def _parameter_type(self, from_id: str | None, name: str) -> Target:
        fn = enclosing_symbol(self.g, self.g.get(from_id), _FUNCTIONS)
        while fn is not None:
            declared = self.declared_type(fn.signature, name)
            if declared is not None:
                return self._typed(fn.path, fn.parent, declared)
            if name in self._parameters_of(fn):
                return _INLINE if re.search(_INLINE_OBJECT.format(re.escape(name)), fn.signature) else None
            fn = enclosing_symbol(self.g, self.g.get(fn.parent), _FUNCTIONS)
        return None

    def _outside(self, target: Target) -> bool:
        """A module no repository file is (a package from node_modules), unless its name is a
        directory of the repository: a workspace package without a package.json, or one a
        bundler's alias maps, may be that directory (`_in_directory`)."""
        if not isinstance(target, Module) or target.path is not None:
            return False
        return not self._package_dirs(target.name)

    def _package_dirs(self, spec: str) -> set[str]:
        """The repository's directories named as the package `spec` names (`@scope/name`:
        `name` or `scope-name`); a subpath import no package.json maps (`#core/utils`), always
        the package's own code, as its first segment names (`core`, the usual `"#core/*":
        "./src/core/*"`)."""
        if self._dirs is None:
            self._dirs = {d for f in self.files() for d in f.split("/")[:-1]}
        package = _package_name(spec).removeprefix("#").split("/")
        return {package[-1], "-".join(package).lstrip("@")} & self._dirs

    def _in_directory(self, spec: str, name: str) -> Sym | None:
        """`name` imported from a package that is a directory of the repository and that no
        package.json or tsconfig maps (projects stitched side by side): the one top-level
        definition of that name under such a directory, else None (the name-based fallbacks).
        Not when a package.json of the repository names that package: resolving it was its
        manifest's business (a test fixture's `react` is not the dependency)."""
        dirs = self._package_dirs(spec)
        if not dirs or _package_name(spec) in self.project.packages():
            return None
        hits = [s for s in self.g.named(name) if s.parent is None and s.language in TS_FAMILY
                and dirs.intersection(s.path.split("/")[:-1])]
        return hits[0] if len(hits) == 1 else None

    def _typed(self, path: str, scope: str | None, declared: str) -> Target:
        """The container a declared type names, or, for a type imported from outside the
        repository (`$pos: ResolvedPos` from "prosemirror-model"), that package: its members
        are no repository method of the same name."""
        cls = self.named_type(path, scope, declared, _CONTAINERS)
        if cls is None and (parts := ident_chain(declared)):
            root, _ = self.bare(path, scope, parts[0])
            if self._outside(root):
                return root
            if root is None and len(parts) == 1 and not self.g.few_named(declared, _TYPES, _FAMILY):
                return _LIBRARY  # `HTMLElement`, `Document`: no repository file declares them
        return cls

    def attribute_of(self, target: Target, name: str) -> Target:
        if isinstance(target, Module):  # outside the repository, whatever is reached through it
            return self.lookup(target.path, name, 0) if target.path else target if self._outside(target) else None
        if not isinstance(target, Sym):
            return None
        if target.kind in _CONTAINERS:
            hit = self.member(target, name)
            return hit if hit is not None else self._inherited_from_outside(target, name)
        if target.kind in _VALUES:  # its object literal's member (`http.get`: `const http = { get: ... }`)
            hit = first([k for k in self.g.children(target, name) if k.kind == "method" or k.kind in _VALUES])
            if hit is not None:
                return hit
        # a field or variable declared with a type, or a getter/method returning one
        declared = self.declared_type(target.signature, target.name) if target.kind in _VALUES else None
        if declared is None and target.kind in _VALUES and (made := _NEW_VALUE.search(target.signature)):
            declared = made.group(1)
        if declared is None and target.kind in _VALUES:
            field = self._indexed_access(target)
            if field is not None:
                return self.attribute_of(field, name)
        if declared is None and target.kind == "method":
            declared = _returned_type(target.signature)
        cls = self._typed(target.path, target.parent, declared) if declared else None
        return self.attribute_of(cls, name) if isinstance(cls, Module) else self.member(cls, name)

    def _inherited_from_outside(self, cls: Sym, name: str, hops: int = 0) -> Module | None:
        """A class's member it neither declares nor inherits from a repository base, when a
        base is from outside the repository (`class Transaction extends Transform`, Transform
        from prosemirror-transform: `this.doc` is Transform's); a parameter property
        (`constructor(readonly doc: Node)`) is the class's own."""
        if cls.kind != "class" or hops > MAX_HOPS \
                or any(_parameter_property(c.signature, name) for c in self.g.children(cls, "constructor")):
            return None
        parts = next(iter(_extended(cls.signature)), None)
        root = self.bare(cls.path, cls.parent, parts[0])[0] if parts else None
        if self._outside(root):
            return root
        return next((got for b in self.bases(cls) if (got := self._inherited_from_outside(b, name, hops + 1))), None)

    def _indexed_access(self, target: Sym) -> Sym | None:
        """The member an indexed access type names (`form: Options<T>['form']` -> the `form`
        that `Options` declares), when the object type is a container that has it; followed
        while that member is typed so too (a loop of them answers None)."""
        field = None
        for _ in range(MAX_HOPS):
            head, colon, written = target.signature.partition(":")
            m = _INDEXED.fullmatch(written.strip()) if colon and head.strip().rstrip("?!") == target.name else None
            if m is None:
                return field
            cls = self.named_type(target.path, target.parent, m.group(1), _CONTAINERS)
            field = self.member(cls, m.group(3)) if cls is not None else None
            if field is None or field.kind not in _VALUES:
                return None
            target = field
        return None

    def member(self, cls: Sym | None, name: str, hops: int = 0) -> Sym | None:
        if cls is None or hops > MAX_HOPS:
            return None
        hit = first(self.g.children(cls, name))
        if hit is not None:
            return hit
        for base in self.bases(cls):
            hit = self.member(base, name, hops + 1)
            if hit is not None:
                return hit
        return None

    def bases(self, cls: Sym) -> list[Sym]:
        """`class A extends B` / `interface I extends J, K` / `type A<T> = B<T>`, resolved in the
        declaring file."""
        got = self._bases.get(cls.id)
        if got is None:
            got = []
            self._bases[cls.id] = got
            alias = cls.kind == "type_alias"  # an alias of one named type has that type's members
            for parts in (_extended(cls.signature) if cls.kind in _CLASSES else _aliased(cls.signature) if alias
                          else ()):
                target = self.chain(cls.path, cls.parent, parts)[0]
                if isinstance(target, Sym) and target.kind in (_CONTAINERS if alias else _CLASSES) \
                        and target.id != cls.id:
                    got.append(target)
        return got

    # ---- modules -------------------------------------------------------------------------
    def files(self) -> set[str]:
        if self._files is None:
            self._files = {p for p, lang in self.g.files().items() if lang in TS_FAMILY}
        return self._files

    def specifier(self, spec: str, from_path: str) -> str | None:
        """The repository file an import specifier names, or None (a package outside it)."""
        if spec.startswith(("./", "../")) or spec in (".", ".."):
            return self._file_at(posixpath.normpath(posixpath.join(posixpath.dirname(from_path), spec)))
        mapping = self.project.mapping_for(posixpath.dirname(from_path))
        if mapping is not None:
            hit = self._mapped(spec, mapping)
            if hit is not None:
                return hit
        if spec.startswith("#"):
            pkg = self.project.enclosing_package(from_path)
            targets = import_targets(pkg, spec) if pkg is not None else []
        else:
            found = self.project.package_of(spec, from_path)
            targets = package_targets(*found) if found is not None else []
        return next((hit for t in targets if (hit := self._file_at(t)) is not None), None)

    def _mapped(self, spec: str, mapping: Mapping) -> str | None:
        """`spec` through a config's `paths` (the first fitting pattern wins, as written), then
        its baseUrl."""
        for pattern, targets in mapping.paths:
            prefix, star, suffix = pattern.partition("*")
            if star and spec.startswith(prefix) and spec.endswith(suffix) or not star and spec == pattern:
                middle = spec[len(prefix):len(spec) - len(suffix)] if star else ""
                for t in targets:
                    where = join(mapping.paths_dir, t.replace("*", middle))
                    hit = self._file_at(where) if where is not None else None
                    if hit is not None:
                        return hit
        where = join(mapping.base, spec) if mapping.base is not None else None
        return self._file_at(where) if where is not None else None

    def _file_at(self, base: str) -> str | None:
        files = self.files()
        if base in files:
            return base
        stem, ext = posixpath.splitext(base)
        for alt in _JS_FOR_TS.get(ext, ()):
            if stem + alt in files:
                return stem + alt
        for cand in [base + x for x in _EXTS] + [posixpath.join(base, "index" + x) for x in _EXTS]:
            if cand in files:
                return cand
        return None

    def configuration(self) -> list[tuple]:
        """What this resolver reads from files that are not code: every tsconfig/jsconfig's
        merged baseUrl and paths and every package.json's name and entry points, by path
        (`resolve._configuration`: another set resolves every edge again). Every one in the
        repository: finding only those above a source file would cost a walk of every source
        file's directories."""
        got: list[tuple] = [(cfg, m.base, m.paths_dir, m.paths) for cfg, m in self.project.configs()]
        for name, pkgs in sorted(self.project.packages().items()):
            got += [(name, p.directory, repr(p.exports), repr(p.imports), p.entry) for p in pkgs]
        members = sorted(self.project.workspace_members())
        return got + [("workspaces", members)] if members else got

    def file_bindings(self, path: str) -> tuple[dict[str, list[Edge]], list[Edge]]:
        """Names a file's imports bind -> edges, and its `export * from` edges."""
        got = self._bindings.get(path)
        if got is None:
            names: dict[str, list[Edge]] = {}
            stars: list[Edge] = []
            for imp in self.g.imports(path):
                if not imp.module and imp.alias in ("", imp.to_name):
                    continue  # `export { a }`: `a` is bound by its definition or import
                if imp.to_name == "*" and not imp.alias:
                    stars.append(imp)
                elif imp.alias or imp.to_name not in ("*", "default", imp.module):
                    names.setdefault(imp.alias or imp.to_name, []).append(imp)
            got = (names, stars)
            self._bindings[path] = got
        return got

    def bound(self, path: str, name: str, hops: int) -> Target:
        names, _ = self.file_bindings(path)
        for imp in names.get(name, ()):
            if not imp.module:  # `export { a as name }`
                return self.lookup(path, imp.to_name, hops + 1)
            target = self.specifier(imp.module, imp.path)
            if target is None:
                hit = self._in_directory(imp.module, imp.to_name) \
                    if imp.to_name not in ("*", "default", imp.module) else None
                return hit if hit is not None else Module(imp.module, None)
            if imp.to_name in ("*", imp.module):  # `* as ns`, `x = require(...)`
                return Module(imp.module, target)
            wanted = imp.alias if imp.to_name == "default" else imp.to_name
            return self.lookup(target, wanted, hops + 1)
        return None

    def lookup(self, path: str, name: str, hops: int) -> Target:
        """What module `path` exports as `name`."""
        key = (path, name)
        if key in self._lookups:
            return self._lookups[key]
        if hops > MAX_HOPS or key in self._active:
            return None
        self._active.add(key)
        try:
            got = first(self.g.top_level(path, name)) or self.bound(path, name, hops)
            if got is None:
                for star in self.file_bindings(path)[1]:
                    target = self.specifier(star.module, path)
                    got = self.lookup(target, name, hops + 1) if target else None
                    if got is not None:
                        break
        finally:
            self._active.discard(key)
        self._lookups[key] = got
        return got

