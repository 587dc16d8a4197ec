"""Python name resolution: scopes, imports (absolute, relative, star, re-exports), classes.

Python binds every name explicitly: a bare name is a definition of the enclosing function
or of the module, an import, a star import, or a builtin/local. So a bare name that none
of these explains stays unresolved; it is never matched by name across the repository.
Scopes follow the language: an import inside a function binds its name in that function
(and the functions nested in it) only, ahead of a module definition of the name; a class
body is seen only by its own statements, which run top to bottom, so a name it reads before
binding it (`x = list(validators.X)` above `def validators`) is looked up outside. (Names a
function binds are dropped at extraction, and bases, decorators and defaults are read in the
scope around their definition: cruxe/languages/python.py.)
Attribute uses (`x.f()`, `x.f`) resolve through the receiver when the syntax shows its
type: `self`/`cls` (the enclosing class and its bases, left to right; a class with no bases
calling `self.f()` that it lacks is a mixin, calling the repository's one method `f`),
`super()` (C's bases; when none in the repository defines the name and C derives from outside
code: external), a name bound to a class or module, a constructor call `Foo().f()`, an
annotated parameter, an attribute whose class extraction recorded (`self.out = Writer()` in any
method of the class or a base, `self.x: T`, a class-level `x: T`: `self.out.write()`), a local whose binding
extraction saw (`w = Writer()` -> receiver `Writer()`; `f = obj.method` makes `f()` the call
`obj.method()`; `m = email.parser.Parser().parsestr(s)` -> receiver `email.parser.Parser().parsestr()`).
A receiver whose value is from outside
the repository calls outside code: a class imported from elsewhere (`MIMEBase()`: external), a
call rooted at another library (`email.parser.Parser().parsestr()`: external), a
builtin value (a literal, `list()`: external), a repository class that does not define the
name (inherited from an outside base, or nothing: unknown). A repository function's or method's
result is an instance of the class its return annotation names (`read_po(f).update()`, or through a
local bound to that call). A call's result whose class the repository does not say (a function
without a return annotation, or overloaded with different ones; the last call of a chain)
and a property's value without a return annotation are receivers of unknown type. For any other receiver (a
local variable, an unannotated parameter, an untyped attribute) only a unique method of that name in the
repository resolves (a `.pyi` stub's declaration of it is no rival), and not when the name is one
of the builtin types' own methods (`x.get()` is far more often a dict than the one `get` a
repository defines) or of a regular
expression match's (`m.span()`), nor for a read
(not a call) of a name some class also binds as a data attribute, or of a method that takes
arguments (no property: most likely another class's untyped attribute of that name).
"""
from __future__ import annotations

import builtins
import io
import logging
import posixpath
import re

from ..languages.python import VALUE_TYPES, annotation_class, base_expressions, module_path, shows_class
from ..model import is_declaration_file
from .common import (AMBIGUOUS, EXTERNAL, IMPORT, MAX_HOPS, MODULE, OPAQUE, RECEIVER, SCOPE, UNKNOWN, Module, ScopedResolver,
                     Resolution, Target, as_resolution, constructor_chain, enclosing_symbol, first,
                     ident_chain, unique)
from .graph import Edge, Graph, Sym

log = logging.getLogger(__name__)

_BUILTINS = frozenset(dir(builtins))
# A regular expression match's and pattern's own methods (`m.group(1)`, `m.span()`, `get = m.span`),
# not those whose names a repository's classes use too (`start`, `end`, `search`, `match`, `sub`).
_RE_METHODS = frozenset("group groups groupdict span lastgroup lastindex regs findall finditer fullmatch "
                        "subn".split())
# Methods of builtin, I/O and regular expression types, and the stdlib logging API: an unknown receiver
# calling one of these is most likely not the repository's method of the same name.
_COMMON_METHODS = frozenset(
    n for t in (str, bytes, bytearray, list, dict, set, frozenset, tuple, int, float, complex, object,
                io.IOBase, io.TextIOWrapper, io.BufferedReader, io.BytesIO, io.StringIO)
    for n in dir(t)) | frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "log"}) \
    | _RE_METHODS
_SCOPES = frozenset({"function", "method"})
_CLASS = frozenset({"class"})
_BINDINGS = frozenset({"variable", "constant"})
_SUBSCRIPT = re.compile(r"\[.*\]$", re.S)
# a receiver written as a literal: a string (any prefix), a list, dict or set display
_LITERAL = re.compile(r"""^(?:[rRbBuUfF]{0,2}["']|[\[{])""")
# `name: T = ...` | `name = T(...)` | `name = given or T(...)` | `name = T` (first line of a
# variable's assignment; `self.name` for an instance attribute)
_VALUE_TYPE = re.compile(r"^[\w.]+\s*(?::\s*([\w.]+)\s*(?:=|$)|=\s*(?:\w+\s+or\s+)?([\w.]+)\s*\(|=\s*([\w.]+)\s*$)")
_ANNOTATED = re.compile(r"^[\w.]+\s*:\s*([^=\n]+?)\s*(?:=|$)")
_RETURNS = re.compile(r"->\s*[\"']?(?:Optional\[)?([A-Za-z_][\w.]*)")
_NOT_YET = object()  # a memo's "not asked yet", where None is an answer
_NONE: dict = {}  # no imports in a scope (shared, never written)
# one scope a bare name is looked up in: name -> definitions, name -> imports, is a class body
_Scope = tuple[dict[str, list[Sym]], dict[str, list[Edge]], bool]


def _after_call(text: str, at: int) -> str:
    """What follows the call whose parenthesis opens at `text[at]` (its balanced close)."""
    depth = 0
    for i in range(at, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return text[i + 1:]
    return ""


class PythonResolver(ScopedResolver):
    GLOBALS = _BUILTINS

    def __init__(self, g: Graph):
        super().__init__(g)
        self._modules: dict[str, str] | None = None
        self._namespaces: set[str] = set()
        self._module_names: dict[tuple[str, str], str | None] = {}
        self._bound: dict[tuple[str, str], Target] = {}
        self._roots: dict[tuple[str, str | None, str, int | None], tuple[Target, str]] = {}
        self._suffix: dict[str, list[str]] = {}
        self._bindings: dict[str, tuple[dict[str, list[Edge]], list[str]]] = {}
        self._scoped: dict[str, dict[str, dict[str, list[Edge]]]] = {}  # imports inside defs
        self._lookups: dict[tuple[str, str], Target] = {}
        self._bases: dict[str, list[Sym | None]] = {}
        self._active: set[tuple[str, str]] = set()
        self._members: dict[tuple[str, str], Sym | None] = {}
        self._building = 0  # bases() computations in progress
        self._receivers: dict[str, list[str] | None] = {}
        self._scopes: dict[tuple[str, str | None], tuple[_Scope, ...]] = {}
        self._assignments: dict[str, str | None] = {}  # variable -> the scope its value is read in
        self._attributes: dict[str, bool] = {}  # name -> some class has a data attribute so named

    def resolve(self, e: Edge) -> Resolution:
        if e.edge_type == "imports" or e.receiver:
            return super().resolve(e)
        target, conf = self.bare(e.path, e.from_id, e.to_name, e.line)  # the line: a class body's order
        if target is None and e.to_name in _BUILTINS:
            return None, EXTERNAL
        return as_resolution(target, conf)

    # ---- edges -------------------------------------------------------------------------
    def import_edge(self, e: Edge) -> Resolution:
        if e.to_name == "*":
            mod = self.module_named(e.module, e.path)
            return None, MODULE if mod is not None else EXTERNAL
        if self._is_plain_import(e):
            name = self.module_named(e.to_name, e.path)
            return None, MODULE if name is not None else EXTERNAL
        mod = self.module_named(e.module, e.path)
        if mod is None:
            return None, EXTERNAL
        return as_resolution(self.lookup(mod, e.to_name, 0), IMPORT)

    def attribute(self, e: Edge) -> Resolution:
        recv, name = e.receiver, e.to_name
        if recv.startswith("super(") and recv.endswith(")"):
            return self._super_member(e, name)
        parts = self._receivers.get(recv, _NOT_YET)
        if parts is _NOT_YET:  # receivers repeat (`self`, `os.path`, `self.assertEqual`'s self)
            parts = self._receivers[recv] = ident_chain(recv) or constructor_chain(recv)
        if parts:
            base, conf = self.chain(e.path, e.from_id, parts, e.line)
            if base is not None and self._result_of_unknown_class(recv, parts, base):
                return self._by_unique_method(name, e.edge_type == "calls")
            if base is not None:
                returned = self._called_function_class(recv, parts, base)
                hit = self.member(returned, name) if returned is not None else self.attribute_of(base, name)
                if hit is None and not isinstance(base, Module):
                    hit = self._in_subclass(returned or self.class_of(base), name)
                    if hit is None and parts in (["self"], ["cls"]) and e.edge_type == "calls":
                        hit = self._mixed_with(self.class_of(base), name)
                return as_resolution(hit, conf)
            if parts[0] in ("self", "cls") and len(parts) == 1:
                return None, UNKNOWN  # an instance attribute, or inherited from outside
            if len(parts) == 1 and parts[0] in VALUE_TYPES and recv.endswith(")"):
                return None, EXTERNAL  # `list()`, `str()` (a typed local's literal): a builtin's method
        elif _LITERAL.match(recv):
            return None, EXTERNAL
        found = self._by_unique_method(name, e.edge_type == "calls")
        if found[0] is not None and parts and len(parts) == 2 and parts[0] == "self" \
                and self._own_method(e, found[0]):
            return None, UNKNOWN  # a wrapper calling the object it wraps (see _own_method)
        return found

    def _own_method(self, e: Edge, target_id: str) -> bool:
        """The one method of the name is the calling class's own (or a base's), called on an
        untyped attribute of `self`: a wrapper delegating to the object it holds, whose method it
        mirrors (Django's `BaseDatabaseWrapper.cursor()` calls `self.connection.cursor(...)`, the
        driver's; a cache backend's `decr` calls `self._cache.decr`), not itself again."""
        target = self.g.get(target_id)
        owner = self.g.get(target.parent) if target is not None and target.parent else None
        cls = enclosing_symbol(self.g, self.g.get(e.from_id), _CLASS)
        return (owner is not None and cls is not None and owner.kind == "class"
                and (owner.id == cls.id or self._derives(cls, owner)))

    def _result_of_unknown_class(self, recv: str, parts: list[str], base: Target) -> bool:
        """The receiver is a call's result whose class the repository does not say: a
        repository function's or method's without a return annotation (`make()`, a property
        read `self._current`), or the last call of a chain (`Foo(a).build()`: not Foo's, for
        all we know). Another library's result (`email.parser.Parser().parsestr()`) is not:
        that library's value."""
        head = len(".".join(parts))
        if isinstance(base, Module):
            return False
        if len(recv) == head:  # no call: a property's value (`self._current`) is one without an annotation
            return base.kind == "method" and self.class_of(base) is None
        if _after_call(recv, head).strip():
            return True
        if base.kind == "function":
            return self._returned_class(base) is None
        return base.kind in _SCOPES and self.class_of(base) is None

    def _called_function_class(self, recv: str, parts: list[str], base: Target) -> Sym | None:
        """The class a call of a repository function returns, as its return annotation writes it
        (`catalog = read_po(f)` with `def read_po(...) -> Catalog`: `catalog.update()` is
        Catalog's), for a receiver that is that call's result; None otherwise (the function
        object itself, `f.__doc__`)."""
        if not isinstance(base, Sym) or base.kind != "function" or len(recv) == len(".".join(parts)):
            return None
        return self._returned_class(base)

    def _returned_class(self, fn: Sym) -> Sym | None:
        """The class `fn`'s return annotation names; None for an overloaded function or method
        whose definitions (`@overload` stubs, the implementation) return different classes: which
        one depends on the arguments (tomlkit's `item(value: bool) -> Bool`, `-> Integer`, ...).
        A definition that returns nothing said (a property's setter, `-> None` or unannotated) is
        no rival."""
        m = _RETURNS.search(fn.signature)
        if m is None:
            return None
        same = self.g.children_of(fn.path, fn.parent).get(fn.name, ())
        said = {r.group(1) for r in (_RETURNS.search(s.signature) for s in same) if r is not None}
        if len(said - {"None"}) > 1:
            return None
        return self.named_type(fn.path, fn.parent, m.group(1), _CLASS)

    def _super_member(self, e: Edge, name: str) -> Resolution:
        """`super().name` in class C: the first of C's bases (and theirs) that defines it.
        Found nowhere in the repository while C inherits from outside code (`threading.Thread`,
        `Exception`), it is that code's method: external, no candidate for a repository class
        that is not among C's bases. Otherwise (a mixin with no bases, whose `super()` reaches
        whatever follows it in a subclass's MRO; a base that did not resolve) it stays unknown."""
        cls = self._super_class(e, self.g.get(e.from_id))
        if cls is None:
            return None, UNKNOWN
        for base in self.bases(cls):
            hit = self.member(base, name) if base is not None else None
            if hit is not None:
                return hit.id, RECEIVER
        return None, EXTERNAL if self._inherits_from_outside(cls) else UNKNOWN

    def _inherits_from_outside(self, cls: Sym) -> bool:
        """Whether a base of `cls` or of its repository bases is a class from outside the
        repository (imported from elsewhere, or a builtin other than `object`) while every
        base resolved: one base that resolved to nothing might be the definition looked for."""
        outside, todo, seen = False, [cls], {cls.id}
        while todo and len(seen) <= MAX_HOPS * 4:
            c = todo.pop()
            for expr, base in zip(base_expressions(c.signature), self.bases(c)):
                if base is not None:
                    if base.id not in seen:
                        seen.add(base.id)
                        todo.append(base)
                    continue
                parts = ident_chain(_SUBSCRIPT.sub("", expr))
                if not parts or parts == ["object"]:
                    continue
                target = self.chain(c.path, c.parent, parts, c.line)[0]
                if (isinstance(target, Module) and target.path is None) \
                        or (target is None and len(parts) == 1 and parts[0] in _BUILTINS):
                    outside = True
                else:
                    return False
        return outside

    def _super_class(self, e: Edge, owner: Sym | None) -> Sym | None:
        """The class whose bases `super()` / `super(C, self)` searches."""
        args = e.receiver[len("super("):-1].split(",")[0].strip()
        parts = ident_chain(args) if args else None
        if parts:
            cls = self.chain(e.path, e.from_id, parts, e.line)[0]
            return cls if isinstance(cls, Sym) and cls.kind == "class" else None
        return enclosing_symbol(self.g, owner, _CLASS)

    def _by_unique_method(self, name: str, call: bool) -> Resolution:
        """A receiver of unknown type: the repository's one method of that name, unless the
        name is a builtin type's method, or the use reads (not calls) a name some class here
        binds as a data attribute too (a class attribute, a typed instance attribute:
        `query.order_by` may read `Query.order_by = ()` as well as name `QuerySet.order_by`,
        while `qs.order_by()` calls a method) or a method that takes arguments (so no
        property: `join.table_alias` reads `Join`'s untyped attribute, not `Query.table_alias()`).
        A stub file's declarations count only when no module implements the name."""
        if name in _COMMON_METHODS:
            return None, OPAQUE
        found = self.g.few_named(name, ("method",), ("python",))
        # a stub (`.pyi`) declares what a module implements: no rival of the implementation
        found = [s for s in found if not is_declaration_file(s.path)] or found
        if not call and len(found) == 1 and (self._data_attribute(name) or len(base_expressions(found[0].signature)) > 1):
            # a read: the method only as a callback (no property takes a second argument), or
            # another class's attribute of that name, which extraction does not always see
            return None, AMBIGUOUS
        return unique(found)

    def _data_attribute(self, name: str) -> bool:
        found = self._attributes.get(name)
        if found is None:
            found = self._attributes[name] = any(
                s.kind in _BINDINGS and s.language == "python" and s.parent is not None
                and getattr(self.g.get(s.parent), "kind", None) == "class" for s in self.g.named(name))
        return found

    # ---- names -------------------------------------------------------------------------
    def bare(self, path: str, from_id: str | None, name: str, line: int | None = None) -> tuple[Target, str]:
        """What a bare name means at a use site: (target, confidence). `line`: the use's
        line (None: no use in particular, such as a type a signature names)."""
        local = self.g.local_names(path)
        if (local is None or name in local[0] or (from_id is not None and from_id not in local[1])
                or name in self.scoped_imports(path)[""]):
            found = self._scope(path, from_id, name, line)
            if found is not None:
                return found
        # else every scope visible from the use is in this file, which lacks the name
        return self.bound(path, name, 0), IMPORT

    def _scope(self, path: str, from_id: str | None, name: str, line: int | None) -> tuple[Target, str] | None:
        """The name as a definition or an import of a scope visible from the use, innermost
        first; None when only the module's imports can bind it."""
        for names, imports, body in self._scope_chain(path, from_id):
            hit = names.get(name)
            if hit is not None and body:  # an instance attribute is no name of the class body
                hit = [s for s in hit if not self._untyped(s)] or None
            if hit is not None and body and line is not None:
                # a class body runs top to bottom: what it binds after the use is not bound yet
                hit = [s for s in hit if s.end < line] or None
            if hit is not None:
                return (hit[0] if len(hit) == 1 else first(hit)), SCOPE
            if name in imports:
                return self._imported(imports[name], 0), IMPORT
        return None

    def _scope_chain(self, path: str, from_id: str | None) -> tuple[_Scope, ...]:
        """The scopes a bare name used in `from_id` is looked up in, innermost first: each
        as (name -> its definitions there, name -> the imports binding it there, whether it
        is the class body the use is in)."""
        key = (path, from_id)
        got = self._scopes.get(key)
        if got is not None:  # a function's edges ask about its scopes again and again
            return got
        g = self.g
        sym = g.get(from_id)
        while sym is not None and sym.kind in _BINDINGS:  # `X = f()`: evaluated in X's scope
            sym = g.get(sym.parent)
        innermost = True
        scopes = []
        while sym is not None:
            # enclosing functions' names are visible; a class body only to its own code
            if sym.kind in _SCOPES or (innermost and sym.kind == "class"):
                scopes.append((g.children_of(sym.path, sym.id), self.scoped_imports(sym.path).get(sym.id, _NONE),
                               sym.kind == "class"))
            innermost = False
            sym = g.get(sym.parent)
        scopes.append((g.children_of(path, None), _NONE, False))  # the module's imports: `bound`
        got = self._scopes[key] = tuple(scopes)
        return got

    def chain(self, path: str, from_id: str | None, parts: list[str], line: int | None = None) -> tuple[Target, str]:
        """`a.b.c` at a use site (on `line`): the target of the whole chain, or None. The root may be
        self/cls (the enclosing class) or a parameter annotated with a class."""
        if line is not None and not self._scope_chain(path, from_id)[0][2]:
            line = None  # only a class body's order depends on the line
        key = (path, from_id, parts[0], line)
        root = self._roots.get(key)
        if root is None:  # one function asks about the same receiver again and again
            root = self._roots[key] = self._root(path, from_id, parts[0], line)
        if len(parts) == 1:
            return root
        target, conf = root
        for part in parts[1:]:
            if target is None:
                return None, conf
            if isinstance(target, Sym):
                conf = RECEIVER if conf == SCOPE else conf
            target = self.attribute_of(target, part)
            if isinstance(target, Sym) and self._untyped(target):
                # `self.x = v` shows no class: a chain through it reaches nothing known, as
                # when the attribute was no symbol (the callers fall back to the name alone)
                target = None
        return target, conf

    def _root(self, path: str, from_id: str | None, name: str, line: int | None) -> tuple[Target, str]:
        if name in ("self", "cls"):
            return enclosing_symbol(self.g, self.g.get(from_id), _CLASS), RECEIVER
        target, conf = self.bare(path, from_id, name, line)
        if target is None:
            return self._parameter_class(from_id, name), RECEIVER
        return target, conf

    def _parameter_class(self, from_id: str | None, name: str) -> Sym | None:
        """The class a parameter of an enclosing function is annotated with (`x: Foo`)."""
        fn = enclosing_symbol(self.g, self.g.get(from_id), _SCOPES)
        while fn is not None:
            if name not in fn.signature:  # neither annotated nor a parameter here: no parse
                fn = enclosing_symbol(self.g, self.g.get(fn.parent), _SCOPES)
                continue
            declared = self.signatures.declared_type(fn.signature, name)
            if declared is not None:
                return self.named_type(fn.path, fn.parent, declared, _CLASS)
            if self.signatures.has_parameter(fn.signature, name):
                return None  # an unannotated parameter of this function
            fn = enclosing_symbol(self.g, self.g.get(fn.parent), _SCOPES)
        return None

    def attribute_of(self, target: Target, name: str) -> Target:
        if isinstance(target, Module):
            if target.path is None:
                return Module(f"{target.name}.{name}", None)
            return self.lookup(target.name, name, 0)
        return self.member(self.class_of(target), name)

    def class_of(self, target: Target) -> Sym | None:
        """The class whose members an attribute of `target` reads: a class itself, a
        variable's value class, a property's return type."""
        if isinstance(target, Sym) and target.kind == "class":
            return target
        if isinstance(target, Sym) and target.kind in _BINDINGS:
            return self.value_class(target)
        if isinstance(target, Sym) and target.kind == "method":  # a property: its return type
            return self._returned_class(target)
        return None

    def _in_subclass(self, cls: Sym | None, name: str) -> Sym | None:
        """A receiver declared as `cls`, which lacks `name`, calling the repository's one method
        so named when a subclass of `cls` defines it: the code narrowed the receiver
        (`isinstance(self.type, RangeBase)` before `self.type.describe_range()`, with
        `self.type: ParamType`). Several such methods, or one outside `cls`'s subclasses,
        decide nothing."""
        if cls is None or name in _COMMON_METHODS:
            return None
        found = self.g.few_named(name, ("method",), ("python",))
        found = [s for s in found if not is_declaration_file(s.path)] or found
        owner = self.g.get(found[0].parent) if len(found) == 1 else None
        return found[0] if owner is not None and owner.kind == "class" and self._derives(owner, cls) else None

    def _mixed_with(self, cls: Sym | None, name: str) -> Sym | None:
        """`self.name()` in a class with no bases of its own that lacks `name`: a mixin calling
        what a class it is mixed with defines (sqlparse's `NameAliasMixin` calls
        `self.token_next_by()`, `TokenList`'s, beside which `Identifier` mixes it in). Nothing
        outside the repository can give the class that name, so the repository's one method of
        that name is the one called; several, or none, decide nothing. A class with bases may get
        the name from an outside base, and a name its file assigns to an attribute (`self.on_close
        = on_close`, `monitor.on_close = f`, `setattr(x, "on_close", f)`) or asks `hasattr` about
        is a value held under it (a callback): no guess there. (The whole file is read: the
        index's text of a file is its chunks, not numbered as the file's lines.)"""
        if cls is None or cls.kind != "class" or any(x != "object" for x in base_expressions(cls.signature)):
            return None
        text = self.g.read_text(cls.path)
        quoted = rf"[\"']{re.escape(name)}[\"']"
        held = rf"\.{re.escape(name)}\s*(?::[^=\n]*)?=(?!=)|\b(?:has|set)attr\([^,()]*,\s*{quoted}"
        if text is None or re.search(held, text):
            return None
        target, _ = self._by_unique_method(name, True)
        return self.g.get(target) if target is not None else None

    def _derives(self, sub: Sym, cls: Sym) -> bool:
        """`sub` has `cls` among its repository bases, at any depth (bounded)."""
        todo, seen = [sub], {sub.id}
        while todo and len(seen) <= MAX_HOPS * 4:
            for base in self.bases(todo.pop()):
                if base is None or base.id in seen:
                    continue
                if base.id == cls.id:
                    return True
                seen.add(base.id)
                todo.append(base)
        return False

    def value_class(self, var: Sym) -> Sym | None:
        """The class of a variable whose signature shows it: `x: Foo = ...`, `x = Foo(...)`
        (an instance: its attributes are the class's) or `x = Foo` (an alias)."""
        if self._untyped(var):
            return None
        m = _VALUE_TYPE.match(var.signature)
        expr = m and (m.group(1) or m.group(2) or m.group(3))
        if not expr:  # `x: Optional[Foo]`, `x: "Foo"`, `x: Foo | None = None`
            a = _ANNOTATED.match(var.signature)
            expr = a and annotation_class(a.group(1))
        if not expr or expr.rsplit(".", 1)[-1] == var.name:
            return None
        return self.named_type(var.path, self._assigned_in(var), expr, _CLASS)

    def _untyped(self, var: Sym) -> bool:
        """An instance attribute (a variable of a class that one of its methods assigns) whose
        assignment shows no class (`self.x = make()`): a definition to find and list the reads
        of, but nothing to type a chain with, and no name of the class body."""
        return (var.kind in _BINDINGS and var.parent is not None and self._assigned_in(var) != var.parent
                and not shows_class(var.signature))

    def _assigned_in(self, var: Sym) -> str | None:
        """The scope a variable's assignment is read in: the method that assigns an
        instance attribute (`self.x = Foo()` sees the method's imports), else the variable's own."""
        got = self._assignments.get(var.id, _NOT_YET)
        if got is _NOT_YET:
            got = var.parent
            cls = self.g.get(var.parent)
            if cls is not None and cls.kind == "class":
                for syms in self.g.children_of(cls.path, cls.id).values():
                    got = next((s.id for s in syms if s.kind == "method" and s.line <= var.line <= s.end), got)
            self._assignments[var.id] = got
        return got

    # ---- classes -----------------------------------------------------------------------
    def member(self, cls: Sym | None, name: str) -> Sym | None:
        """`name` defined in class `cls` or inherited from its bases (depth first, left to
        right: Python's MRO for the usual single and mixin hierarchies)."""
        if cls is None:
            return None
        if self._active or self._building or self._type_depth:
            # inside an import, base or type lookup in progress, whose cycle cuts can hide
            # what a lookup from the top finds: not an answer to remember
            return self._member(cls, name, 0, set())
        key = (cls.id, name)
        hit = self._members.get(key, _NOT_YET)
        if hit is _NOT_YET:  # the same questions come back many times (docs/BENCHMARKS.md)
            hit = self._members[key] = self._member(cls, name, 0, set())
        return hit

    def _member(self, cls: Sym | None, name: str, hops: int, seen: set[str]) -> Sym | None:
        if cls is None or hops > MAX_HOPS:
            return None
        if cls.id in seen:
            return None
        seen.add(cls.id)
        own = self.g.firsts_of(cls.path, cls.id).get(name)
        if own is not None and not self._untyped(own):
            return own
        # an instance attribute the class assigns without a class of its own: a base's
        # definition of the name (its method, its typed attribute) comes first
        for base in self.bases(cls):
            hit = self._member(base, name, hops + 1, seen) if base is not None else None
            if hit is not None:
                return hit
        return own

    def bases(self, cls: Sym) -> list[Sym | None]:
        """The class's bases resolved from its signature `class A(B, m.C, metaclass=M)`."""
        got = self._bases.get(cls.id)
        if got is None:
            got = []
            self._bases[cls.id] = got  # a class deriving from itself sees no bases
            self._building += 1
            try:
                for expr in base_expressions(cls.signature):
                    parts = ident_chain(_SUBSCRIPT.sub("", expr))
                    # read where the class statement runs: in the scope around it, at its line
                    target = self.chain(cls.path, cls.parent, parts, cls.line)[0] if parts else None
                    got.append(target if isinstance(target, Sym) and target.kind == "class" else None)
            finally:
                self._building -= 1
        return got

    # ---- modules -----------------------------------------------------------------------
    def modules(self) -> dict[str, str]:
        """Dotted module name -> file, for every Python file (package `__init__` first,
        then `.py`, then `.pyi`, as the import system prefers them). A file is known by its
        path-derived name (extraction's module path) and, when it sits in a package, also by
        its name from the outermost package directory: `django-5.2/django/db/x.py` is
        `django.db.x`, as `sys.path` would see it from its source root (kept only when that
        name is unambiguous)."""
        if self._modules is None:
            files = [p for p, lang in self.g.files().items() if lang == "python"]
            packages = {posixpath.dirname(p) for p in files if posixpath.basename(p) in _INITS}
            ranked: dict[str, tuple[int, str]] = {}
            rooted: dict[str, set[str]] = {}
            for path in files:
                rank = 0 if posixpath.basename(path) in _INITS else 1
                rank = rank * 2 + (1 if path.endswith(".pyi") else 0)
                name = module_path(path)
                if name and (name not in ranked or (rank, path) < ranked[name]):
                    ranked[name] = (rank, path)
                alt = _rooted_name(path, packages)
                if alt and alt != name:
                    rooted.setdefault(alt, set()).add(path)
            self._modules = {n: p for n, (_, p) in ranked.items()}
            for name, paths in rooted.items():
                if name not in self._modules and len({module_path(p) for p in paths}) == 1:
                    self._modules[name] = min(paths, key=lambda p: (posixpath.basename(p) not in _INITS, p))
            # packages without __init__.py (namespace packages) are modules with no file
            for name in list(self._modules):
                parts = name.split(".")
                for i in range(1, len(parts)):
                    self._namespaces.add(".".join(parts[:i]))
        return self._modules

    def module_named(self, written: str, from_path: str) -> str | None:
        """The dotted name of the repository module an import names, or None (outside)."""
        key = (written, from_path if written.startswith(".") else "")
        got = self._module_names.get(key, _NOT_YET)
        if got is _NOT_YET:
            got = self._module_names[key] = self._module_named(written, from_path)
        return got

    def _module_named(self, written: str, from_path: str) -> str | None:
        modules = self.modules()
        if written.startswith("."):
            dots = len(written) - len(written.lstrip("."))
            parts = module_path(from_path).split(".") if module_path(from_path) else []
            if not from_path.endswith(("__init__.py", "__init__.pyi")):
                parts = parts[:-1]
            if dots > 1:
                parts = parts[:len(parts) - (dots - 1)] if dots - 1 <= len(parts) else []
            rest = written[dots:]
            # always inside the repository, even as a namespace package with no file
            return ".".join(parts + ([rest] if rest else []))
        if written in modules or written in self._namespaces:
            return written
        return self._by_suffix(written)

    def _by_suffix(self, written: str) -> str | None:
        """A module named relative to a deeper root (`pkg.mod` for `python/pkg/mod.py`):
        the one module whose dotted name ends with it, if exactly one."""
        if not self._suffix:
            for name in self.modules():
                self._suffix.setdefault(name.rsplit(".", 1)[-1], []).append(name)
        if "." not in written:
            return None  # `import jinja2` must not find `pkg/backends/jinja2.py`
        tail = written.rsplit(".", 1)[-1]
        fits = [n for n in self._suffix.get(tail, ()) if n.endswith("." + written)]
        return fits[0] if len(fits) == 1 else None

    def file_bindings(self, path: str) -> tuple[dict[str, list[Edge]], list[str]]:
        """The names the file's module-level imports bind -> import edges, and its
        star-imported modules."""
        got = self._bindings.get(path)
        if got is None:
            names: dict[str, list[Edge]] = {}
            stars: list[str] = []
            scoped: dict[str, dict[str, list[Edge]]] = {"": {}}
            for imp in self.g.imports(path):
                if imp.to_name == "*":
                    stars.append(imp.module)
                    continue
                if imp.alias:
                    bound = imp.alias
                elif self._is_plain_import(imp):
                    bound = imp.to_name.split(".", 1)[0]
                else:
                    bound = imp.to_name
                if imp.from_id is None:
                    names.setdefault(bound, []).append(imp)
                else:  # inside a def or class: binds there only ("": every such name of the file)
                    scoped.setdefault(imp.from_id, {}).setdefault(bound, []).append(imp)
                    scoped[""].setdefault(bound, [])
            got = (names, stars)
            self._bindings[path] = got
            self._scoped[path] = scoped
        return got

    def scoped_imports(self, path: str) -> dict[str, dict[str, list[Edge]]]:
        """Definition id -> the names imports inside it bind -> their edges; under "" every
        name some definition of the file imports."""
        if path not in self._scoped:
            self.file_bindings(path)
        return self._scoped[path]

    def _is_plain_import(self, imp: Edge) -> bool:
        """`import a.b` (to_name == module) rather than `from m import x`; extraction writes
        `from m import m` with its name as alias (`import m as m` has none)."""
        return imp.to_name == imp.module and imp.alias != imp.to_name

    def bound(self, path: str, name: str, hops: int) -> Target:
        """What an import in `path` binds to `name`: a symbol, a module, or None."""
        if hops == 0:  # a use site's question: asked again and again for the same names
            key = (path, name)
            got = self._bound.get(key, _NOT_YET)
            if got is _NOT_YET:
                got = self._bound[key] = self._bound_uncached(path, name, 0)
            return got
        return self._bound_uncached(path, name, hops)

    def _bound_uncached(self, path: str, name: str, hops: int) -> Target:
        names, stars = self.file_bindings(path)
        hit = self._imported(names.get(name, ()), hops)
        if hit is not None:
            return hit
        for star in stars:
            mod = self.module_named(star, path)
            if mod is not None:
                hit = self.lookup(mod, name, hops + 1)
                if hit is not None:
                    return hit
        return self._imported_submodule(path, name)

    def _imported_submodule(self, path: str, name: str) -> Target:
        """In a package's `__init__`, a submodule the file imports from (`from .sub import x`,
        `from .sub import *`) is bound under its own name too: importing it sets the package's
        attribute, and the package's namespace is this file's globals (toolz's `__init__` calls
        `functoolz._sigs.create_signature_registry()` after `from .functoolz import *`)."""
        if posixpath.basename(path) not in _INITS:
            return None
        sub = self.module_named(f".{name}", path)
        modules = self.modules()
        if sub is None or (sub not in modules and sub not in self._namespaces):
            return None
        for imp in self.g.imports(path):
            mod = self.module_named(imp.module, path) if imp.module else None
            if mod is not None and (mod == sub or mod.startswith(sub + ".")):
                return Module(sub, modules.get(sub, ""))
        return None

    def _imported(self, imports: list[Edge], hops: int) -> Target:
        """What one scope's imports of a name bind it to."""
        fallback: Target = None
        for imp in imports:
            target = self._binding_target(imp, hops)
            if isinstance(target, Sym) or (isinstance(target, Module) and target.path is not None):
                return target  # try/except ImportError fallbacks: the repository's wins
            fallback = fallback or target
        return fallback

    def _binding_target(self, imp: Edge, hops: int) -> Target:
        if self._is_plain_import(imp):
            full = imp.to_name if imp.alias else imp.to_name.split(".", 1)[0]
            mod = self.module_named(full, imp.path)
            return Module(mod, self.modules().get(mod, "")) if mod is not None else Module(full, None)
        mod = self.module_named(imp.module, imp.path)
        if mod is None:
            return Module(f"{imp.module}.{imp.to_name}", None)
        hit = self.lookup(mod, imp.to_name, hops + 1)
        if hit is None:
            # `from pkg import sub` imports the submodule when the package binds no such name;
            # in the package's own `__init__` that binding is this very import (a cycle: None)
            sub = f"{mod}.{imp.to_name}"
            if sub in self.modules() or sub in self._namespaces:
                return Module(sub, self.modules().get(sub, ""))
        return hit

    def lookup(self, module: str, name: str, hops: int) -> Target:
        """`name` as an attribute of repository module `module`: a top-level definition, a
        name the module imports (re-exports), a submodule, or a star-imported name."""
        key = (module, name)
        if key in self._lookups:
            return self._lookups[key]
        if hops > MAX_HOPS or key in self._active:
            return None
        self._active.add(key)
        try:
            got = self._lookup(module, name, hops)
        finally:
            self._active.discard(key)
        self._lookups[key] = got
        return got

    def _lookup(self, module: str, name: str, hops: int) -> Target:
        modules = self.modules()
        path = modules.get(module) if module else None
        sub = f"{module}.{name}" if module else name
        if path is not None:
            hit = first(self.g.top_level(path, name))
            if hit is not None:
                return hit
            names, _ = self.file_bindings(path)
            if name in names:
                return self.bound(path, name, hops)
        if sub in modules or sub in self._namespaces:
            return Module(sub, modules.get(sub, ""))
        return self.bound(path, name, hops) if path is not None else None


_INITS = frozenset({"__init__.py", "__init__.pyi"})


def _rooted_name(path: str, packages: set[str]) -> str:
    """Dotted name of a file counted from its outermost package directory ('' when the
    file is in no package)."""
    directory = posixpath.dirname(path)
    if directory not in packages:
        return ""
    parts: list[str] = []
    while directory and directory in packages:  # "" (the root) has no name: stop there
        parts.insert(0, posixpath.basename(directory))
        directory = posixpath.dirname(directory)
    stem = posixpath.basename(path).rsplit(".", 1)[0]
    return ".".join(parts if stem == "__init__" else parts + [stem])
