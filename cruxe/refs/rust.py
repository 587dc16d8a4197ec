"""Rust name resolution: crates, module paths, `use` trees, impl methods.

- A crate is the directory above a `src/` (a file outside any `src/` is its own crate);
  qualified names inside a crate are the module path plus the lexical path (extraction's
  rules: `auth::jwt::Validator::validate`, impl items named through their type), so a
  path resolves by building the qualified name it denotes and looking it up.
- `crate::` starts at the crate root, `self::` / `super::` at the file's module; other
  paths try the current module, then the crate root (2018 and 2015 styles), else they are
  another crate's (external).
- Bare names: the file's own items (and the enclosing function's nested items), then the
  file's `use` bindings (alias or last segment), then its glob imports; macros by their
  `macro_rules!` name within the crate. A file's `use`s are one scope: a lone name a
  `use super::..`/`self::..` binds to nothing (an inline module's, read from the file's module)
  is looked up as if unbound.
- `Type::f()` / `Self::f()` / `self.f()`: the methods of that type (impl blocks may live in
  any module of the crate: matched on `Type::f`); other receivers: the one Rust method of
  that name, unless a name the standard traits use everywhere (`new`, `clone`, `len`, ...); a
  name std's values answer everywhere (`is_some`, `skip`, `sort`) only when that one method is
  std's own type's (the repository is std).
  `x.f()` and `x::f()` carry the same receiver text: a lone receiver naming a module that
  has no `f` is a value (a local or parameter named like the module), resolved as above.
- `x.f()` on a parameter of a generic type (`<R: RngCore>(rng: &mut R)`, `where R: Rng`,
  `rng: impl Rng`): `f` of the first bounding trait that has one, supertraits included.
- `self.0.f()` in a method of a tuple struct, `self.inner.f()` in one of a struct with named
  fields: `f` of the field's type as the struct's signature declares it (`struct Sender<'a,
  T>(&'a Channel<T>)`, `struct Foo<T> { inner: Mutex<T> }`), through `Box`/`Rc`/`Arc` unless
  `f` is one the pointer itself has (`clone`: the `Arc`'s); a std type's field reaches the
  crate's impl for that type, else std (external); a field of a generic parameter's type,
  `f` of the first trait the struct bounds it by that has one, else (bounded in an impl
  header, which the index does not keep) the one trait method `f` of the repository, unless
  a std trait has an `f` too. `self.a.b.f()`: the same, on the field `b` of the struct that `a`
  holds by its exact declared type (a chain of a few fields, each but the last a struct of the
  repository).
- `use krate as k;` (a crate of the repository, renamed): `k::f()` is `f` from that crate's root,
  also through the module that binds it (`crate::k::f()`, `use crate::k::{self}`, crossbeam-deque's
  way to its epoch crate); a path receiver naming nothing is tried whole with the call's name.
- `extern crate x;` of a crate the repository does not hold: `self::x::Y`, `crate::x::f` and
  the uses through them are another crate's (external), not unknown.
- `x.f()` on a local whose `let` says its type (extraction's receivers `T{}`, `Arc<T>{}`,
  `T::new()`): `f` of T (a pointer's own methods external); `T::new()` only when the repository's
  `T::new` returns `Self` or T; otherwise the one Rust method of that name, as for any local.
- `x.f()` on a local given a call's result (`let g = self.guard()`, `let x = make()`, `let x =
  a::T::with(..)`; also `make().f()`): `f` of the exact repository type the callee's signature
  returns (`-> T`, `-> Self`, `-> &T`, through `Box`/`Rc`/`Arc` as a field's), read in the
  callee's module; a generic parameter, a std type or a trait leave it as any local's call.
  `x.a.b.f()` on such a local: from the struct it holds, the fields as for `self.a.b.f()`.
- `#[path = "runtime.rs"] pub mod __private;`: the module's name stands for the module that file
  is (extraction's import of `crate::runtime` under the name), so `crate::__private::f()` (quote's
  `$crate::__private::push_group(..)`) reaches runtime.rs's `f`.
- A type alias of the repository (`type InnerMutex<T> = self::spin::SpinMutex<T>`) that has no
  method `f` of its own: `f` of the type it names, as a field's, a parameter's or a path's type.
- A field read `x.f` (extraction's FIELD_READ `references` edges): the field `f` of the struct the
  receiver is typed as, read as a method call's receiver is (`self` in the struct's impl, `self.a.b`
  through the fields' declared types, a typed local and its fields); a known struct without the
  field: unknown (reached through `Deref`); a receiver of unknown type: the one struct field of that
  name in the repository (a range's `start`/`end`: opaque). A field is reached by no path, nor by a
  bare name: `S::len` and `len(..)` mean the method or function beside a `len` field.
- `x.f()` on a constant or static (`PrimitiveDateTime::MIN.f()`, `EPOCH.f()`): `f` of the type its
  declaration writes (`const MIN: Self`: the type whose impl holds it), a variant's (`Weekday::Monday.f()`)
  of its enum; a primitive's or std type's: the crate's impl for it, else std's (external).
"""
from __future__ import annotations

import posixpath
import re
from functools import lru_cache
from typing import NamedTuple

from ..crates import CARGO_NAME, crate_of
from ..languages._common import closing_bracket
from ..languages.rust import FIELD_READ, SMART_POINTERS, module_path
from .common import (AMBIGUOUS, EXTERNAL, IMPORT, MAX_HOPS, MODULE, OPAQUE, RECEIVER, SCOPE, UNIQUE, UNKNOWN,
                     LanguageResolver, Resolution, first, unique)
from .graph import Edge, Graph, Sym

_STD_MACROS = frozenset("println print eprintln eprint format write writeln vec assert assert_eq assert_ne "
                        "debug_assert debug_assert_eq debug_assert_ne panic unreachable unimplemented todo "
                        "matches include_str include_bytes concat stringify env option_env cfg line file "
                        "column module_path format_args compile_error dbg thread_local".split())
# `name = "..."` under [package] or [lib] of a Cargo.toml (other tables' names are skipped)
_COMMON_METHODS = frozenset("new default clone len is_empty iter iter_mut into_iter push pop insert remove get "
                            "get_mut unwrap expect map and_then ok err collect to_string to_owned as_ref as_mut "
                            "into from fmt eq cmp partial_cmp hash next contains extend write read drop deref "
                            "as_str as_bytes with_capacity take borrow borrow_mut lock clear".split())

# A receiver that is a path (`a`, `a::B`, `::std::x`), not an expression holding one
# (`unsafe { ptr::read(kv) }.f()`: that value's type is unknown, not another crate's).
_PATH = re.compile(r"(?:::)?[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*")
_TURBOFISH = re.compile(r"::<[^<>]*(?:<[^<>]*>[^<>]*)*>")
# `self.0.f()`, `self.inner.f()`, `self.a.b.f()`: a call on a field of the method's struct, or
# on a field of that field's struct (a chain of up to _FIELD_HOPS fields)
_SELF_FIELDS = re.compile(r"self((?:\.(?:\d+|[A-Za-z_]\w*))+)")
_FIELD_HOPS = 4
# a tuple field's type, without its visibility, references, lifetimes and `mut`/`dyn`
_FIELD_TYPE = re.compile(r"(?:pub(?:\([^)]*\))?\s+)?(?:&\s*|'\w+\s+|mut\s+|dyn\s+|\*const\s+|\*mut\s+)*"
                         r"((?:::)?[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*)")
# methods a smart pointer answers itself rather than through `Deref` (`self.shared.clone()` on
# an `Arc<T>` clones the `Arc`)
_POINTER_METHODS = frozenset("clone as_ref as_mut borrow borrow_mut deref deref_mut eq ne cmp partial_cmp fmt "
                             "hash into".split())
# methods of std's traits a generic value may have through a bound the index does not see
_STD_TRAIT_METHODS = frozenset("clone clone_from eq ne cmp partial_cmp lt le gt ge max min clamp fmt hash next "
                               "next_back size_hint into from try_from try_into as_ref as_mut borrow borrow_mut "
                               "deref deref_mut drop into_iter default to_string to_owned extend read read_exact "
                               "write write_all flush poll call call_mut call_once index index_mut add sub mul div "
                               "neg not len is_empty get type_id".split())
# methods of std's Option/Result, iterators, slices, str and collections, which a value of
# unknown type most likely calls there, not on the repository's one method of that name
# (syn's private `Visibility::is_some`, `Cursor::skip`); kept when that method is one of std's
# own types' (`_STD_OWNERS`: the repository is std itself)
_STD_VALUE_METHODS = frozenset("is_some is_none is_ok is_err unwrap_or unwrap_or_else unwrap_or_default map_err "
                               "map_or map_or_else ok_or ok_or_else or_else filter filter_map flat_map zip rev "
                               "enumerate skip skip_while take_while step_by chain peekable fold any all find "
                               "find_map position count last nth sum product min_by_key max_by_key for_each "
                               "cloned copied flatten first starts_with ends_with split trim chars bytes lines "
                               "keys values entry retain sort sort_by truncate drain as_slice to_vec".split())
_STD_OWNERS = frozenset("Option Result Iterator DoubleEndedIterator ExactSizeIterator str String Vec VecDeque "
                        "HashMap HashSet BTreeMap BTreeSet [T]".split())
# receivers extraction gives a call on a local whose `let` says its type (languages/rust.py):
# `a::T{}`, `Arc<T>{}` (its declared type) and `a::T::new()` (the associated function called)
_DECLARED = re.compile(rf"((?:{'|'.join(sorted(SMART_POINTERS))})<{_PATH.pattern}>|{_PATH.pattern})\{{\}}")
_CONSTRUCTED = re.compile(rf"({_PATH.pattern})::([A-Za-z_]\w*)\(\)")
# `make()`, `self.guard()`: a local given a call's result (extraction's receiver for `let x =
# make(..)`), or a call on such a call's result written in one chain (`make().f()`)
_CALLED = re.compile(rf"(self\.[A-Za-z_]\w*|{_PATH.pattern})\(\)")
# a typed local's receiver and a chain of its fields (`GlobalData::ensure().data`, `T{}.a.0`)
_LOCAL_FIELDS = re.compile(r"(.+?(?:\{\}|\(\)))((?:\.(?:\d+|[A-Za-z_]\w*))+)")
_STRUCT_NAME = re.compile(r"\b(?:struct|union)\s+[A-Za-z_]\w*\s*")
_ALIAS_NAME = re.compile(r"\btype\s+[A-Za-z_]\w*\s*")
MAX_ALIAS_HOPS = 4  # `type A = B; type B = C;`: a chain of aliases, bounded (a cycle is an error in Rust)
_PARAM_NAME = re.compile(r"\s*(?:const\s+)?([A-Za-z_]\w*)")  # a lifetime (`'a`) does not match
# the public fields of std's types a value of unknown type most likely has (`Range`'s)
_STD_FIELDS = frozenset({"start", "end"})
# std's types every module names without a `use`: a field of one holds no type of the repository
_PRIMITIVES = frozenset("bool char str u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize f32 f64".split())
_STD_TYPES = frozenset("String Vec Option Result Box Rc Arc RefCell Cell HashMap HashSet BTreeMap BTreeSet "
                       "VecDeque Cow PhantomData Mutex RwLock Duration Path PathBuf".split())


class _CrateRoot(NamedTuple):
    """A module's name for the root of a crate of the repository (`use krate as k;`)."""
    crate: str


class RustResolver(LanguageResolver):
    def __init__(self, g: Graph):
        super().__init__(g)
        self._qnames: dict[str, dict[str, list[Sym]]] = {}
        self._methods: dict[str, dict[tuple[str, str], list[Sym]]] = {}
        self._fields: dict[str, dict[tuple[str, str], Sym]] = {}
        self._module_files: dict[str, dict[str, list[str]]] = {}
        self._uses: dict[str, tuple[dict[str, Edge], list[Edge]]] = {}
        self._crate_names: dict[str, str] | None = None
        # what a path denotes, by everything `path` reads: the graph does not change during
        # a resolution, and the same few paths come back from every call site of a crate
        # (docs/BENCHMARKS.md)
        self._paths: dict[tuple, Sym | str | bool | None] = {}
        self._reexports: dict[tuple[str, str, str], Sym | str | bool | _CrateRoot | None] = {}

    def resolve(self, e: Edge) -> Resolution:
        crate, here = crate_of(e.path), module_path(e.path)
        if e.edge_type == "imports":
            return self._use_edge(e, crate, here)
        if e.module == FIELD_READ:
            return self._field_read(crate, here, e)
        if not e.receiver:
            return self._bare(e, crate, here)
        recv = e.receiver
        if recv.endswith(("{}", "()")):
            local = _DECLARED.fullmatch(recv) or _CONSTRUCTED.fullmatch(recv) or _CALLED.fullmatch(recv)
            if local is not None:
                return self._local_method(crate, here, e, local)
        chain = _LOCAL_FIELDS.fullmatch(recv) if ("{}." in recv or ")." in recv) else None
        if chain is not None:
            base = chain.group(1)
            local = _DECLARED.fullmatch(base) or _CONSTRUCTED.fullmatch(base) or _CALLED.fullmatch(base)
            if local is not None:
                return self._local_field_method(crate, here, e, local, chain.group(2)[1:].split("."))
        if recv.endswith(")"):
            chain = _calls_chained(recv)
            got = self._chain_method(crate, here, e, chain) if chain is not None and len(chain) > 1 else None
            if got is not None:
                return got
        if recv.startswith("<") and recv.endswith(">") and " as " in recv:
            self_type, _, traits = recv[1:-1].partition(" as ")
            return self._qualified_self(crate, here, e, self_type, traits)
        if recv in ("self", "Self") or recv.startswith("Self::"):
            owner_type = _impl_type(self.g.get(e.from_id))
            return self._method(crate, owner_type, e.to_name, RECEIVER) if owner_type else (None, UNKNOWN)
        fields = _SELF_FIELDS.fullmatch(recv)
        if fields is not None:
            got = self._field_method(crate, e, fields.group(1)[1:].split("."))
            if got is not None:
                return got
        path_recv = _TURBOFISH.sub("", recv) if "::<" in recv else recv  # `Vec::<u8>::f()`: Vec's
        if _PATH.fullmatch(path_recv):  # `Type::f()`, `module::f()`, or `value.f()`
            parts = path_recv.removeprefix("::").split("::")
            target = self.path(crate, here, e.path, parts)
            if target is None and recv.isidentifier():
                target = self._parameter_type(crate, here, e, recv)
                if target is None:
                    got = self._bound_method(crate, here, e, recv)
                    if got is not None:
                        return got
            if isinstance(target, Sym) and target.kind in ("constant", "variable"):
                return self._constant_method(e, target)
            if isinstance(target, Sym) and target.kind != "module":
                return self._type_method(target, e.to_name)
            if isinstance(target, (str, Sym)):
                got = self._module_item(crate, here, e, parts, target)
                if got[0] is not None or len(parts) > 1 or not recv.isidentifier():
                    return got
                # `block.f()`: a local or parameter named like a module that has no `f` is a
                # value (the receiver text of `x.f()` and `x::f()` is the same), so a method
                return self._value_method(crate, here, e, recv, got)
            if target is None:
                # `krate::f()`, `crate::epoch::pin()` through a renamed crate (`use crossbeam_epoch
                # as epoch;`), or `v.f()` on a local that shares such a name: the same receiver
                # text, so the whole path's item counts only when there is one
                hit = self.path(crate, here, e.path, [*parts, e.to_name])
                if isinstance(hit, Sym):
                    return hit.id, IMPORT
            if target is False:
                return None, EXTERNAL
        return self._any_method(e)

    def _field_read(self, crate: str, here: str, e: Edge) -> Resolution:
        """`x.f` read or written (not called): the field `f` of the struct (or union) the receiver
        holds, typed as a method call's receiver is (`self` in the struct's impl, `self.a.b`
        through the fields' declared types, a local whose `let` says its type, and a chain of
        its fields); a struct literal's or pattern's field (`S { f: 1 }`, receiver `S{}`) the
        same, an enum variant's (`E::V { f }`) the variant's; a known struct without such a field
        reaches it through `Deref`, unknown; another crate's type, external. Any other receiver
        (a type not known): the one field of that name in the repository, as for a method."""
        recv = e.receiver
        fields: list[str] = []
        struct: Sym | None = None
        if recv == "self":
            struct = self._impl_struct(crate, e)
        elif (chained := _SELF_FIELDS.fullmatch(recv)) is not None:
            struct, fields = self._impl_struct(crate, e), chained.group(1)[1:].split(".")
        else:
            chain = _LOCAL_FIELDS.fullmatch(recv) if ("{}." in recv or ")." in recv) else None
            base = chain.group(1) if chain is not None else recv
            local = _DECLARED.fullmatch(base) or _CONSTRUCTED.fullmatch(base) or _CALLED.fullmatch(base) \
                if base.endswith(("{}", "()")) else None
            if local is not None and local.re is _DECLARED and chain is None and "<" not in base:
                # a struct literal's or pattern's type as written (`a::S{}`), or a typed local's:
                # an enum's variant too (`E::V { x }`), whose fields are its own
                written = self.path(crate, here, e.path, base[:-2].removeprefix("::").split("::"))
                if isinstance(written, Sym) and written.kind == "constant":
                    hit = self.fields(crate_of(written.path)).get((written.qname, e.to_name))
                    return (hit.id, RECEIVER) if hit is not None else (None, UNKNOWN)
            if local is not None:
                got = self._local_type(crate, here, e, local)[0]
                if got is False:  # another crate's type (`libc::timespec { tv_sec: .. }`)
                    return None, EXTERNAL
                if isinstance(got, str):
                    got = _one([t for t in self.qnames(crate).get(got, []) if t.kind == "struct"])
                struct = got if isinstance(got, Sym) and got.kind == "struct" else None
                fields = chain.group(2)[1:].split(".") if chain is not None else []
        if len(fields) > _FIELD_HOPS:
            struct = None
        for field in fields:
            struct = self._field_struct(struct, field) if struct is not None else None
        hit = self.fields(crate_of(struct.path)).get((struct.qname, e.to_name)) if struct is not None else None
        if hit is not None:
            return hit.id, RECEIVER
        return (None, UNKNOWN) if struct is not None else self._any_field(e)

    def _any_field(self, e: Edge) -> Resolution:
        """A field read on a receiver of unknown type: the one Rust struct field of that name (a
        name std's own types have as public fields, a range's `start`/`end`, is left opaque; an
        enum variant's fields are read by patterns only, never as `x.f`)."""
        if e.to_name in _STD_FIELDS:
            return None, OPAQUE
        return unique([s for s in self.g.named(e.to_name) if s.language == "rust" and s.kind == "variable"
                       and getattr(self.g.get(s.parent), "kind", None) == "struct"])

    def _is_field(self, s: Sym) -> bool:
        """A named field of a struct, a union or an enum's variant (extraction's variables
        inside one): reached through a value, never by a path."""
        return s.kind == "variable" and getattr(self.g.get(s.parent), "kind", None) in ("struct", "constant")

    def fields(self, crate: str) -> dict[tuple[str, str], Sym]:
        """(the struct's qualified name, the field's name) -> the field, of one crate."""
        got = self._fields.get(crate)
        if got is None:
            self.qnames(crate)
            got = self._fields[crate]
        return got

    def _constant_method(self, e: Edge, value: Sym) -> Resolution:
        """`f` called on a constant or static (`PrimitiveDateTime::MIN.f()`, `DEFAULT.f()`) or an
        enum's variant (`Weekday::Monday.f()`): `f` of the type its declaration writes (`const MIN:
        Self`: the type whose impl holds it; a variant: its enum), read in its own module; a type
        without `f`, or none known: the one method of that name, as for any value."""
        got = self._declared_value_method(e, value, self.g.get(value.parent))
        return got if got[1] != UNKNOWN else self._any_method(e)

    def _declared_value_method(self, e: Edge, value: Sym, parent: Sym | None) -> Resolution:
        """`f` of the type a constant's or static's signature declares, or a variant's enum
        (`_constant_method`)."""
        declared = constant_type(value.signature)
        parts = field_type(declared) if declared else ["Self"] if getattr(parent, "kind", None) == "enum" else []
        if parts == ["Self"]:
            if parent is not None and parent.kind in ("struct", "enum", "union", "trait", "type_alias"):
                return self._type_method(parent, e.to_name)
            owner = value.qname.rsplit("::", 1)[0] if "::" in value.qname else ""
            return self._method(crate_of(value.path), owner, e.to_name, RECEIVER) if owner else (None, UNKNOWN)
        if declared and not parts:  # a slice, an array, a tuple, a fn pointer: std's methods
            return None, EXTERNAL
        crate = crate_of(value.path)
        target = self.path(crate, module_path(value.path), value.path, parts) if parts else None
        if isinstance(target, Sym) and target.kind in ("struct", "enum", "union", "trait", "type_alias"):
            return self._type_method(target, e.to_name)
        if target is None and len(parts) == 1 and (parts[0] in _STD_TYPES or parts[0] in _PRIMITIVES):
            got = self._method(crate, parts[0], e.to_name, RECEIVER)  # the crate's impl for it, else std's
            return got if got[0] is not None else (None, EXTERNAL)
        return (None, EXTERNAL) if target is False else (None, UNKNOWN)

    def _local_method(self, crate: str, here: str, e: Edge, local: re.Match[str]) -> Resolution:
        """`x.f()` on a local whose `let` writes its type (`T{}`, `Arc<T>{}`, extraction's
        receivers) or calls an associated function (`T::new()`, `Self::new()`): `f` of that type,
        through a smart pointer unless the pointer has `f` itself; the function counts only when
        its signature returns `Self` or the type. Anything else: the one method of that name,
        as for any local."""
        got, pointer = self._local_type(crate, here, e, local)
        if pointer and e.to_name in _POINTER_METHODS:
            return None, EXTERNAL
        if isinstance(got, (str, Sym)):
            owner = got if isinstance(got, str) else None
            found = self._method(crate, owner, e.to_name, RECEIVER) if owner else self._type_method(got, e.to_name)
            if found[1] != UNKNOWN:
                return found  # none of its own: reached through `Deref` or a blanket trait impl, as before
        return (None, EXTERNAL) if got is False else self._any_method(e)

    def _local_type(self, crate: str, here: str, e: Edge, local: re.Match[str]) -> tuple[Sym | str | bool | None, bool]:
        """The type a local's receiver (`T{}`, `Arc<T>{}`, `T::new()`, `make()`, `self.guard()`)
        says it holds (`_declared_type`'s answers), and whether through a smart pointer."""
        if local.re is _DECLARED:
            declared = local.group(1)
            return self._declared_type(crate, here, e, field_type(declared)), _pointer(declared)
        got = self._constructed_type(crate, here, e, local.group(1).split("::"), local.group(2)) \
            if local.re is _CONSTRUCTED else None
        if got is not None:
            return got, False
        callee = self._callee(crate, here, e, local.group(0)[:-2])
        returned = return_type(callee.signature) if callee is not None else ""
        return (self._returned_type(callee, returned) if callee is not None else None), _pointer(returned)

    def _local_field_method(self, crate: str, here: str, e: Edge, local: re.Match[str], fields: list[str]) -> Resolution:
        """`x.a.b.f()` on a typed local (`let globals = GlobalData::ensure(); globals.data.write()`):
        from the struct the local holds, the fields as for `self.a.b.f()`; else the one method of
        that name, as for any local."""
        got = self._local_type(crate, here, e, local)[0]
        if isinstance(got, str):
            got = _one([t for t in self.qnames(crate).get(got, []) if t.kind == "struct"])
        struct = got if isinstance(got, Sym) and got.kind == "struct" and len(fields) <= _FIELD_HOPS else None
        for field in fields[:-1]:
            struct = self._field_struct(struct, field) if struct is not None else None
        found = self._struct_field_method(struct, fields[-1], e) if struct is not None else None
        return found if found is not None else self._any_method(e)

    def _declared_type(self, crate: str, here: str, e: Edge, parts: list[str]) -> Sym | str | bool | None:
        """The type a `let`'s declared path names: a type of the repository (a Sym; `Self`: the
        impl's type's qualified name), False for another crate's (std's named ones among them),
        None when not known."""
        if parts == ["Self"]:
            return _impl_type(self.g.get(e.from_id))
        target = self.path(crate, here, e.path, parts) if parts else None
        if isinstance(target, Sym):
            return target if target.kind in ("struct", "enum", "type_alias") else None
        if target is None and len(parts) == 1 and parts[0] in _STD_TYPES:
            return parts[0] if self._method(crate, parts[0], e.to_name, RECEIVER)[0] is not None else False
        return False if target is False else None

    def _constructed_type(self, crate: str, here: str, e: Edge, parts: list[str], fn: str) -> Sym | str | None:
        """The type `T` of `let x = T::fn(..)` when the repository's `T::fn` returns `Self` or `T`."""
        owner = self._declared_type(crate, here, e, parts)
        if isinstance(owner, str):
            found = self._method(crate, owner, fn, RECEIVER)
            name = owner.rsplit("::", 1)[-1]
        elif isinstance(owner, Sym):
            found, name = self._type_method(owner, fn), owner.name
        else:
            return None
        called = self.g.get(found[0]) if found[0] is not None else None
        returned = return_type(called.signature) if called is not None else ""
        if returned == "Self" or (not _pointer(returned) and field_type(returned)[-1:] == [name]
                                  and _FIELD_TYPE.match(returned).group(1) == returned.split("<", 1)[0]):
            return owner
        return None

    def _callee(self, crate: str, here: str, e: Edge, called: str) -> Sym | None:
        """The function, method or tuple struct a call `called` (`make`, `a::T::f`,
        `self.guard`) written in `e`'s function names; None when not the repository's own."""
        if called.startswith("self."):
            owner = _impl_type(self.g.get(e.from_id))
            found = self._method(crate, owner, called[5:], RECEIVER)[0] if owner else None
            return self.g.get(found) if found is not None else None
        target = self.path(crate, here, e.path, called.removeprefix("::").split("::"))
        return target if isinstance(target, Sym) and target.kind in ("function", "method", "struct") else None

    def _returned_type(self, callee: Sym, returned: str) -> Sym | None:
        """The repository type a call of `callee` gives: a tuple struct's own, else the exact
        type the callee's signature returns (`-> T`, `-> Self`, `-> &'a T`, `-> Arc<T>`: what
        the pointer holds), read in the callee's module; None for a generic parameter, a std
        type (`Option<T>`, `Result<T, E>`), a trait (`impl Tr`, `Box<dyn Tr>`) or nothing."""
        if callee.kind == "struct":
            return callee
        parts = field_type(returned) if not returned.startswith("impl ") else []
        if parts == ["Self"]:
            owner = _impl_type(callee)
            parts = [owner.rsplit("::", 1)[-1]] if owner else []
        elif len(parts) == 1 and (parts[0] in generic_parameters(callee.signature, _FN_NAME)
                                  or (len(parts[0]) == 1 and parts[0].isupper())):
            return None
        target = self.path(crate_of(callee.path), module_path(callee.path), callee.path, parts) if parts else None
        return target if isinstance(target, Sym) and target.kind in ("struct", "enum", "type_alias") else None

    def _field_method(self, crate: str, e: Edge, fields: list[str]) -> Resolution | None:
        """`self.0.f()` / `self.inner.f()` in a method of a struct: `f` of the field's type, as
        the struct's signature declares it (`struct Sender<'a, T>(&'a Channel<T>)`, `{ inner:
        Mutex<T> }`; through `Box`, `Rc`, `Arc`, whose methods are the inner type's but for
        those the pointer has itself); a std type's `f` is the crate's impl for it, if any, else
        std's; a generic parameter's, its bounds'. `self.a.b.f()`: each field but the last
        must hold a struct of the repository by its exact declared type (no generic, no
        trait, no std type), whose signature declares the next. None when the signatures say
        nothing."""
        struct = self._impl_struct(crate, e)
        if len(fields) > _FIELD_HOPS:
            return None
        for field in fields[:-1]:
            struct = self._field_struct(struct, field) if struct is not None else None
        return self._struct_field_method(struct, fields[-1], e) if struct is not None else None

    def _field_struct(self, struct: Sym, field: str) -> Sym | None:
        """The struct of the repository that field `field` of `struct` holds, by its declared
        type (through `Box`/`Rc`/`Arc`); None for a generic, a std type or anything else."""
        declared = struct_field(struct.signature, field)
        parts = field_type(declared) if declared is not None else []
        if not parts or parts[0] in generic_parameters(struct.signature):
            return None
        target = self.path(crate_of(struct.path), module_path(struct.path), struct.path, parts)
        for _ in range(MAX_ALIAS_HOPS):
            if not isinstance(target, Sym) or target.kind != "type_alias":
                break
            target = self._aliased(target)
        return target if isinstance(target, Sym) and target.kind == "struct" else None

    def _type_method(self, target: Sym, name: str) -> Resolution:
        """Method `name` of type `target`; of a type alias without one (`type InnerMutex<T> =
        self::spin::SpinMutex<T>`: an alias has no methods of its own unless an impl names it),
        the aliased type's, followed up to MAX_ALIAS_HOPS aliases."""
        got = self._method(crate_of(target.path), target.qname, name, RECEIVER)
        for _ in range(MAX_ALIAS_HOPS):
            if got[1] != UNKNOWN or target.kind != "type_alias":
                break
            aliased = self._aliased(target)
            if aliased is None:
                break
            target, got = aliased, self._method(crate_of(aliased.path), aliased.qname, name, RECEIVER)
        return got

    def _aliased(self, alias: Sym) -> Sym | None:
        """The repository type a type alias names (`type A<T> = self::b::B<T>` -> B, through
        `Box`/`Rc`/`Arc`), read from its signature in its own module; None for anything else (a
        std type, a type parameter, no `=`)."""
        parts = field_type(aliased_type(alias.signature))
        if not parts or parts[0] in generic_parameters(alias.signature, _ALIAS_NAME):
            return None
        target = self.path(crate_of(alias.path), module_path(alias.path), alias.path, parts)
        return target if isinstance(target, Sym) and target.kind in ("struct", "enum", "trait", "type_alias") else None

    def _struct_field_method(self, struct: Sym, field: str, e: Edge) -> Resolution | None:
        """`f` called on field `field` of `struct` (`_field_method`'s last step)."""
        declared = struct_field(struct.signature, field)
        if declared is None:
            return None
        if e.to_name in _POINTER_METHODS and _pointer(declared):
            return None, EXTERNAL
        crate = crate_of(struct.path)
        parts = field_type(declared)
        if parts and parts[0] in generic_parameters(struct.signature):
            # `T`, `P::Searcher`: a type the struct is generic over, known by its bounds only
            bounds = struct_bounds(struct.signature, parts[0]) if len(parts) == 1 else ()
            return self._trait_method(crate, struct.path, e, list(bounds)) or self._generic_method(e)
        if not parts:
            return None
        target = self.path(crate, module_path(struct.path), struct.path, parts)
        if isinstance(target, Sym) and target.kind in ("struct", "enum", "trait", "type_alias"):
            got = self._type_method(target, e.to_name)
            # none of its own: reached through `Deref` or a blanket trait impl, as before
            return got if got[1] != UNKNOWN else None
        if target is None and len(parts) == 1 and parts[0] in _STD_TYPES:
            got = self._method(crate, parts[0], e.to_name, RECEIVER)
            return got if got[0] is not None else (None, EXTERNAL)
        return (None, EXTERNAL) if target is False else None

    def _generic_method(self, e: Edge) -> Resolution | None:
        """`self.raw.lock()` on a field of a generic type bounded where the struct does not say
        (an impl header, `impl<R: RawMutex, T> Mutex<R, T>`, which the index does not keep): a
        generic value has its bounds' methods only, so the one trait method of that name in the
        repository, unless std's traits have one too; of several, the one of the call's own crate
        (two crates each with a `StateID` trait). None otherwise (as before)."""
        if e.to_name in _STD_TRAIT_METHODS:
            return None
        declared = [s for s in self.g.named(e.to_name) if s.kind == "method" and s.language == "rust"
                    and getattr(self.g.get(s.parent), "kind", None) == "trait"]
        if len(declared) > 1:
            declared = [s for s in declared if crate_of(s.path) == crate_of(e.path)]
        return (declared[0].id, UNIQUE) if len(declared) == 1 else None

    def _impl_struct(self, crate: str, e: Edge) -> Sym | None:
        """The struct whose impl holds the method `e` is in: by the impl's qualified name (the
        struct's module), else by its name where the impl is written (`use a::Machine; impl
        Machine` in another module)."""
        owner = _impl_type(self.g.get(e.from_id))
        if owner is None:
            return None
        structs = [t for t in self.qnames(crate).get(owner, []) if t.kind == "struct"]
        if not structs:
            named = self.path(crate, module_path(e.path), e.path, [owner.rsplit("::", 1)[-1]])
            structs = [named] if isinstance(named, Sym) and named.kind == "struct" else []
        return structs[0] if len(structs) == 1 else None

    def _any_method(self, e: Edge) -> Resolution:
        """A method on a receiver of unknown type: the one Rust method of that name; for a
        name std's own values answer everywhere (`is_some`, `skip`), only when that method is
        one of std's own types' (the repository is std)."""
        if e.to_name in _COMMON_METHODS:
            return None, OPAQUE
        got = unique(self.g.few_named(e.to_name, ("method",), ("rust",)))
        if got[0] is not None and e.to_name in _STD_VALUE_METHODS:
            owner = _impl_type(self.g.get(got[0])) or ""
            if owner.rsplit("::", 1)[-1] not in _STD_OWNERS:
                return None, OPAQUE
        return got

    def _value_method(self, crate: str, here: str, e: Edge, name: str, as_module: Resolution) -> Resolution:
        """`name.f()` where `name` also names a module without `f`: through the parameter's
        declared type or its generic type's bounds, else the one method of that name; else
        what the module path said."""
        typed = self._parameter_type(crate, here, e, name)
        if typed is not None:
            return self._type_method(typed, e.to_name)
        got = self._bound_method(crate, here, e, name) or self._any_method(e)
        return got if got[0] is not None else as_module

    def _module_item(self, crate: str, here: str, e: Edge, parts: list[str], module: Sym | str) -> Resolution:
        """`module::f()`: the item the module (a file or an inline `mod`) defines or
        re-exports with `pub use`, the whole path followed as one."""
        hit = self.path(crate, here, e.path, [*parts, e.to_name])
        if isinstance(hit, Sym):
            return hit.id, IMPORT
        if isinstance(module, Sym):  # a `mod` declaration: its items by qualified name
            return self._method(crate_of(module.path), module.qname, e.to_name, IMPORT)
        # several definitions of the name there: counted, not picked
        return _pick(self.qnames(crate).get(_join(module, e.to_name), []), IMPORT)

    def _parameter_type(self, crate: str, here: str, e: Edge, name: str) -> Sym | None:
        """The type of a parameter of the enclosing function (`c: &Csv`, `x: &mut a::B<T>`)."""
        fn = self.g.get(e.from_id)
        while fn is not None and fn.kind not in ("function", "method"):
            fn = self.g.get(fn.parent)
        declared = self.signatures.declared_type(fn.signature, name) if fn is not None else None
        if declared is None:
            return None
        target = self.path(crate, here, e.path, declared.split("::"))
        return target if isinstance(target, Sym) and target.kind in ("struct", "enum", "trait", "type_alias") else None

    def _bound_method(self, crate: str, here: str, e: Edge, name: str) -> Resolution | None:
        """`rng.f()` where the parameter `rng` has a generic type (`<R: RngCore>(rng: &mut R)`,
        `where R: Rng`, `rng: &mut impl Rng`): `f` of the first trait bounding it that has
        one, its supertraits included. None when no trait of the repository bounding it has one."""
        fn = self.g.get(e.from_id)
        while fn is not None and fn.kind not in ("function", "method"):
            fn = self.g.get(fn.parent)
        return self._trait_method(crate, e.path, e, list(parameter_bounds(fn.signature, name)) if fn else [])

    def _trait_method(self, crate: str, written_in: str, e: Edge, paths: list[tuple[str, ...]]) -> Resolution | None:
        """`f` of the first of these traits (paths written in file `written_in`) that has one,
        supertraits included; None when none of the repository has one."""
        bounds = [(p, crate, written_in) for p in paths]
        seen: set[str] = set()
        while bounds and len(seen) < MAX_HOPS:
            parts, home, file = bounds.pop(0)
            trait = self.path(home, module_path(file), file, parts)
            if not isinstance(trait, Sym) or trait.kind != "trait" or trait.id in seen:
                continue
            seen.add(trait.id)
            got = self._method(crate_of(trait.path), trait.qname, e.to_name, RECEIVER)
            if got[0] is not None:
                return got
            bounds += [(p, crate_of(trait.path), trait.path) for p in supertraits(trait.signature)]
        return None  # the method is a std trait's, or the bounds say nothing: as before

    def _chain_method(self, crate: str, here: str, e: Edge, chain: list[str]) -> Resolution | None:
        """`T::new(x).a(y).f()`: `f` of the type the chain's last call returns, each call's type
        read from its signature (`-> Self`, `-> &mut T`, `-> T`, as for a local given a call's
        result); None when one of them is not the repository's exact type (`-> Result<Self, E>`,
        a generic) or has no method of the next name."""
        callee = self._callee(crate, here, e, chain[0])
        owner = self._returned_type(callee, return_type(callee.signature)) if callee is not None else None
        for name in chain[1:]:
            step = self.g.get(self._type_method(owner, name)[0] or "") if owner is not None else None
            if step is None:
                return None
            owner = self._returned_type(step, return_type(step.signature))
        got = self._type_method(owner, e.to_name) if owner is not None else (None, UNKNOWN)
        return got if got[0] is not None else None

    def _qualified_self(self, crate: str, here: str, e: Edge, self_type: str, traits: str) -> Resolution:
        """`<S as StateID>::f()`, or a generic parameter's call `S::f()` that extraction gave
        its bounds (`<S as A + B>`): `f` of the first of those traits that has one (as a call
        through the interface); for another crate's trait (`<HeaderName as TryFrom<K>>`) the
        method of the repository's type before `as`; else as a method of a value of unknown
        type (a blanket impl's: `impl<R: Read> ReadBytesExt for R` gives `R` more methods)."""
        got = self._trait_method(crate, e.path, e, _trait_paths(traits))
        if got is not None:
            return got
        target = self.path(crate, here, e.path, self_type.split("::")) if _PATH.fullmatch(self_type) else None
        if isinstance(target, Sym) and target.kind in ("struct", "enum", "type_alias", "trait"):
            return self._type_method(target, e.to_name)
        return self._any_method(e)

    def _use_edge(self, e: Edge, crate: str, here: str) -> Resolution:
        parts = e.to_name.removeprefix("::").split("::")
        if parts[-1] == "*":
            return None, MODULE
        target = self.path(crate, here, e.path, parts, via_uses=False)
        if isinstance(target, Sym):
            return target.id, IMPORT
        return None, MODULE if isinstance(target, str) else EXTERNAL if target is False else UNKNOWN

    def _bare(self, e: Edge, crate: str, here: str) -> Resolution:
        name = e.to_name
        owner = self.g.get(e.from_id)
        while owner is not None:  # items nested in the enclosing function / inline module
            hit = first([s for s in self.g.children(owner, name) if s.kind != "method" and not self._is_field(s)])
            if hit is not None:
                return hit.id, SCOPE
            owner = self.g.get(owner.parent)
        hit = first([s for s in self.g.top_level(e.path, name) if s.kind != "method"])
        if hit is not None:
            return hit.id, SCOPE
        target = self.path(crate, here, e.path, [name])
        if isinstance(target, Sym):
            return target.id, IMPORT
        macros = [s for s in self.g.named(name) if "macro_rules!" in s.signature and crate_of(s.path) == crate]
        if macros:
            return _pick(macros, SCOPE)
        return (None, EXTERNAL) if name in _STD_MACROS or target is False else (None, UNKNOWN)

    # ---- paths ---------------------------------------------------------------------------
    def path(self, crate: str, here: str, path: str, parts: list[str], via_uses: bool = True,
             hops: int = 0) -> Sym | str | bool | None:
        """What `a::b::c` written in module `here` of file `path` denotes: a symbol, a module
        path (str), False (another crate) or None (nothing found)."""
        key = (crate, here, path, tuple(parts), via_uses, hops)
        try:
            return self._paths[key]
        except KeyError:
            got = self._paths[key] = self._path(crate, here, path, parts, via_uses, hops)
            return got

    def _path(self, crate: str, here: str, path: str, parts: list[str], via_uses: bool,
              hops: int) -> Sym | str | bool | None:
        if len(parts) > 1 and parts[-1] == "self":  # `use a::b::{self}`: the module `a::b`
            parts = parts[:-1]
        if not parts:  # `use *;` / `use ::*;` (2015 edition): the glob names no module path
            return None
        head, rest = parts[0], parts[1:]
        if head == "crate":
            return self._in_crate(crate, "", rest, hops)
        named = self.crate_names().get(head)
        if named is not None and rest:  # this repository's crate by its package name
            return self._in_crate(named, "", rest, hops)
        if head in ("self", "super"):
            base = here
            while parts and parts[0] in ("self", "super"):
                if parts[0] == "super":
                    base = base.rsplit("::", 1)[0] if "::" in base else ""
                parts = parts[1:]
            return self._in_crate(crate, base, parts, hops)
        if via_uses:
            bound, globs = self.uses(path)
            if head in bound:
                use = bound[head]
                renamed = self._renamed_crate(use)
                if renamed is not None and rest:  # `use krate as k; k::f()`: from that crate's root
                    return self._in_crate(renamed, "", rest, hops)
                written = use.to_name.removesuffix("::self").split("::")
                target = self.path(crate, module_path(use.path), use.path, written, via_uses=False, hops=hops + 1)
                if target is None and rest and hops < MAX_HOPS:
                    # `use crate::epoch::{self}` naming a renamed crate (`use crossbeam_epoch as
                    # epoch;` in the root): the whole path, which `_in_crate` follows across
                    return self.path(crate, module_path(use.path), use.path, [*written, *rest], via_uses=False,
                                     hops=hops + 1)
                if rest and isinstance(target, (str, Sym)):
                    home = crate_of(target.path) if isinstance(target, Sym) else crate
                    if isinstance(target, Sym) and target.kind == "module":  # `use crate::m; m::f()`
                        target = self._path_module(target, hops)
                    base = target.qname if isinstance(target, Sym) else target
                    return self._in_crate(home, base, rest, hops)
                if rest or target is not None or written[0] not in ("self", "super"):
                    return target
                # a lone name a `use self::../super::..` binds to nothing: the file's `use`s
                # are read as one scope, and an inline module's (`mod imp { use super::f; }`,
                # whose `super::` was read from the file's module) must not hide the file's `f`
            if not rest:
                for glob in globs:
                    module = self.path(crate, here, path, glob.to_name.split("::")[:-1], via_uses=False)
                    if isinstance(module, str):
                        hit = self._in_crate(crate, module, parts, hops)
                        if hit is not None:
                            return hit
        for base in (here, ""):  # uniform paths (2018), then from the crate root (2015)
            hit = self._in_crate(crate, base, parts, hops)
            if hit is not None:
                return hit
        return False if rest else None  # `other_crate::x`; a lone unknown name is just unknown

    def _in_crate(self, crate: str, base: str, parts: list[str], hops: int = 0) -> Sym | str | bool | None:
        """`base::a::b` inside one crate, one segment at a time: an item, a module, or a
        name a module re-exports with `pub use` (followed up to MAX_HOPS); False when a
        module's `use` binds a segment to another crate's item."""
        cur: Sym | str = base
        for i, seg in enumerate(parts):
            prefix = cur.qname if isinstance(cur, Sym) else cur
            qname = _join(prefix, seg)
            hit = _one(self.qnames(crate).get(qname, []))
            if hit is not None:
                # a path through a `#[path]` module goes on in its file's module; the module as
                # the path's end stays its declaration (`_module_item` reads what it names)
                cur = self._path_module(hit, hops) if hit.kind == "module" and i < len(parts) - 1 else hit
            elif qname in self.module_files(crate):
                cur = qname
            elif (isinstance(cur, str) or cur.kind == "module") and hops < MAX_HOPS:
                # a module, as a path or as its `mod` declaration: what it re-exports
                nxt = self._reexport(crate, prefix, seg, hops)
                if isinstance(nxt, _CrateRoot):  # `use crossbeam_epoch as epoch;`: `crate::epoch::pin`
                    rest = parts[i + 1:]
                    return self._in_crate(nxt.crate, "", rest, hops + 1) if rest else None
                if nxt is None or nxt is False:
                    return nxt
                cur = nxt
            else:
                return None
        return cur

    def _path_module(self, mod: Sym, hops: int) -> Sym | str:
        """A `mod` declaration whose file a `#[path]` attribute names: the module that file is
        (extraction's import of it under the `mod`'s name, the one binding of that name its
        file may have); any other `mod` as it is."""
        crate = crate_of(mod.path)
        if mod.qname in self.module_files(crate) or hops >= MAX_HOPS:
            return mod
        use = self.uses(mod.path)[0].get(mod.name)
        if use is None or not use.to_name.startswith("crate::"):
            return mod
        target = self.path(crate, "", mod.path, use.to_name.split("::"), via_uses=False, hops=hops + 1)
        return target if isinstance(target, str) else mod

    def _reexport(self, crate: str, module: str, name: str,
                  hops: int) -> Sym | str | bool | _CrateRoot | None:
        """`name` as module `module` brings it in: by a `use` naming it, else through its globs
        (`pub use self::wire::*`). Each (module, name) is looked up once per resolution: glob
        re-exports that chain into each other (preludes) would otherwise be walked once per
        path through them, and a cycle meets its own entry (None) and stops. The answer is
        the one found at the depth first asked (MAX_HOPS bounds that search)."""
        key = (crate, module, name)
        if key in self._reexports:
            return self._reexports[key]
        self._reexports[key] = None
        got = self._reexports[key] = self._find_reexport(crate, module, name, hops)
        return got

    def _find_reexport(self, crate: str, module: str, name: str,
                       hops: int) -> Sym | str | bool | _CrateRoot | None:
        for path in self.module_files(crate).get(module, ()):
            bound, globs = self.uses(path)
            use = bound.get(name)
            if use is not None:
                target = self.path(crate, module, path, use.to_name.split("::"), via_uses=False, hops=hops + 1)
                if target is not None and target is not False:
                    return target
                if target is None and "::" not in use.to_name.removesuffix("::self"):
                    # `extern crate value_bag;` / `use crossbeam_epoch as epoch;` (`self::
                    # value_bag::ValueBag`, `crate::epoch::pin` elsewhere): a crate, the
                    # repository's (its root) or another (external), not an unknown name
                    renamed = self._renamed_crate(use)
                    return _CrateRoot(renamed) if renamed is not None else False
            for glob in globs:
                source = self.path(crate, module, path, glob.to_name.split("::")[:-1], via_uses=False, hops=hops + 1)
                home = crate
                if isinstance(source, Sym) and source.kind == "module":
                    source, home = source.qname, crate_of(source.path)
                if isinstance(source, str) and (home, source) != (crate, module):
                    hit = self._in_crate(home, source, [name], hops + 1)
                    if hit is not None:
                        return hit
        return None

    def _renamed_crate(self, use: Edge) -> str | None:
        """The directory of the repository's crate a `use krate as k;` (or `use krate::{self as
        k}`) binds: a lone crate name, renamed or not; None for any other `use`."""
        name = use.to_name.removeprefix("::").removesuffix("::self")
        return self.crate_names().get(name) if "::" not in name else None

    def _method(self, crate: str, type_qname: str, name: str, confidence: str) -> Resolution:
        hits = self.qnames(crate).get(f"{type_qname}::{name}", [])
        if not hits:  # an impl in another module names the method through the type's name
            hits = self.methods(crate).get((type_qname.rsplit("::", 1)[-1], name), [])
        return _pick(hits, confidence)

    # ---- indexes -------------------------------------------------------------------------
    def crate_names(self) -> dict[str, str]:
        """Package (and `[lib]`) names of the repository's Cargo.toml files -> crate directory,
        so that tests/ and examples/ reach the crate they test by its name."""
        if self._crate_names is None:
            self._crate_names = {}
            for p in self.g.files():
                if posixpath.basename(p) == "Cargo.toml":
                    for name in CARGO_NAME.findall(self.g.read_text(p) or ""):
                        self._crate_names.setdefault(name.replace("-", "_"), posixpath.dirname(p))
        return self._crate_names

    def configuration(self) -> list[tuple[str, str]]:
        """What this resolver reads from files that are not code: the Cargo.toml crate names
        (`resolve._configuration`: another set resolves every edge again)."""
        return sorted(self.crate_names().items())

    def module_files(self, crate: str) -> dict[str, list[str]]:
        got = self._module_files.get(crate)
        if got is None:
            got = {}
            for p, lang in self.g.files().items():
                if lang == "rust" and crate_of(p) == crate:
                    got.setdefault(module_path(p), []).append(p)
            self._module_files[crate] = got
        return got

    def qnames(self, crate: str) -> dict[str, list[Sym]]:
        got = self._qnames.get(crate)
        if got is None:
            got = {}
            fields: dict[tuple[str, str], Sym] = {}
            for files in self.module_files(crate).values():
                for p in files:
                    for s in self.g.in_file(p):
                        if s.kind == "variable" and self._is_field(s):  # no path reaches a field
                            fields.setdefault((s.qname.rsplit("::", 1)[0], s.name), s)
                        else:
                            got.setdefault(s.qname, []).append(s)
            self._qnames[crate] = got
            self._fields[crate] = fields
        return got

    def methods(self, crate: str) -> dict[tuple[str, str], list[Sym]]:
        got = self._methods.get(crate)
        if got is None:
            got = {}
            for qname, syms in self.qnames(crate).items():
                parts = qname.split("::")
                for s in syms:
                    if s.kind == "method" and len(parts) >= 2:
                        got.setdefault((parts[-2], s.name), []).append(s)
            self._methods[crate] = got
        return got

    def uses(self, path: str) -> tuple[dict[str, Edge], list[Edge]]:
        """Names a file's `use` declarations bind (alias or last segment), and its globs."""
        got = self._uses.get(path)
        if got is None:
            bound: dict[str, Edge] = {}
            globs: list[Edge] = []
            for imp in self.g.imports(path):
                segments = imp.to_name.rsplit("::", 2)
                # `use a::b::{self}` binds `b`, as `use a::b` does
                last = segments[-2] if segments[-1] == "self" and len(segments) > 1 else segments[-1]
                if last == "*":
                    globs.append(imp)
                elif imp.alias != "_":
                    bound.setdefault(imp.alias or last, imp)
            got = (bound, globs)
            self._uses[path] = got
        return got


@lru_cache(maxsize=65536)
def tuple_fields(signature: str) -> list[str]:
    """The field types of a tuple struct's signature (`pub struct A<'a, T>(pub &'a B<T>, u8)`
    -> [`pub &'a B<T>`, `u8`]); [] for any other struct."""
    m = _STRUCT_NAME.search(signature)
    if m is None:
        return []
    i = m.end()
    if signature.startswith("<", i):
        i = _bracketed(signature, i)[1]
    while signature.startswith(" ", i):
        i += 1
    return _bracketed(signature, i)[0] if signature.startswith("(", i) else []


@lru_cache(maxsize=65536)
def named_fields(signature: str) -> dict[str, str]:
    """The fields of a named struct's (or union's) signature as extraction writes them (`pub
    struct A<T> { inner: Mutex<T>, buf: Vec<u8> }`) -> {inner: `Mutex<T>`, buf: `Vec<u8>`}; a
    list cut by the signature's length limit keeps the fields before the cut."""
    m = _STRUCT_NAME.search(signature)
    brace = signature.find("{", m.end()) if m is not None else -1
    if brace < 0:
        return {}
    items = _bracketed("(" + signature[brace + 1:].removesuffix("}") + ")", 0)[0]
    if signature.endswith("..."):
        items = items[:-1]
    out = {}
    for item in items:
        name, colon, typ = item.partition(":")
        if colon and name.strip().isidentifier():
            out.setdefault(name.strip(), typ.strip())
    return out


def struct_field(signature: str, field: str) -> str | None:
    """The declared type of field `field` (`0`, `inner`) in a struct's signature."""
    if field.isdigit():
        fields = tuple_fields(signature)
        return fields[int(field)] if int(field) < len(fields) else None
    return named_fields(signature).get(field)


def _pointer(declared: str) -> bool:
    """Whether a field's type is a smart pointer (`Arc<T>`, `std::rc::Rc<T>`)."""
    m = _FIELD_TYPE.match(declared)
    return m is not None and m.group(1).rsplit("::", 1)[-1] in SMART_POINTERS and declared[m.end():m.end() + 1] == "<"


# a chain of calls: its first callee (`a::T::new`, `self.f`, turbofish allowed) up to its `(`,
# then each `.name(`
_CHAIN_HEAD = re.compile(rf"(self\.[A-Za-z_]\w*|{_PATH.pattern})\s*(?:::<[^()]*?>)?\s*\(")
_CHAIN_STEP = re.compile(r"\s*\.\s*([A-Za-z_]\w*)\s*(?:::<[^()]*?>)?\s*\(")


def _calls_chained(receiver: str) -> list[str] | None:
    """The calls a receiver written as one chain of calls makes, in order: `a::T::new(x).b(y,
    "(").c()` -> [a::T::new, b, c]; None for any other receiver (a field, an index, `?`, a
    receiver cut short). Not `common.call_chain`, whose segments are dotted names: a Rust chain
    opens with a `::` path and may pass type arguments (`Vec::<u8>::new()`, `.collect::<T>()`)."""
    m = _CHAIN_HEAD.match(receiver)
    names = [m.group(1)] if m is not None else []
    while m is not None:
        end = closing_bracket(receiver, m.end() - 1)
        if end is None:
            return None
        if end + 1 == len(receiver):
            return names
        m = _CHAIN_STEP.match(receiver, end + 1)
        if m is not None:
            names.append(m.group(1))
    return None


@lru_cache(maxsize=65536)
def struct_bounds(signature: str, param: str) -> tuple[tuple[str, ...], ...]:
    """The trait paths a struct's signature bounds its type parameter by (`struct A<T:
    Tr>`, `struct A<T> where T: Tr`)."""
    m = _STRUCT_NAME.search(signature)
    if m is None or not signature.startswith("<", m.end()):
        return ()
    items, end = _bracketed(signature, m.end())
    where = _WHERE.match(signature[end:].lstrip()) if end < len(signature) else None
    if where is not None:
        clause = signature[end:].lstrip()[where.end():].split(" {", 1)[0].split("(", 1)[0]
        items += _bracketed("<" + clause + ">", 0)[0]
    return _bounds_of(items, param)


def return_type(signature: str) -> str:
    """What a function's signature says it returns (`pub fn new(n: usize) -> Self where ..` ->
    `Self`); "" when it says nothing."""
    m = _FN_NAME.search(signature)
    if m is None:
        return ""
    i = _bracketed(signature, m.end())[1] if signature.startswith("<", m.end()) else m.end()
    i = _bracketed(signature, i)[1] if signature.startswith("(", i) else len(signature)
    rest = signature[i:].strip()
    return _WHERE.split(rest[2:], 1)[0].strip() if rest.startswith("->") else ""


def constant_type(signature: str) -> str:
    """The type a constant's or static's signature declares (`pub const MIN: Self` -> `Self`,
    `static ref CACHE: Mutex<Cache> = ..` -> `Mutex<Cache>`); "" without one."""
    m = _CONST_NAME.search(signature)
    return signature[m.end():].partition("=")[0].strip() if m is not None else ""


def aliased_type(signature: str) -> str:
    """What a type alias's signature names after its `=` (`pub type Once<T = ()> =
    crate::once::Once<T>` -> `crate::once::Once<T>`; a default in its generics is not it);
    "" without one (an associated type's bound, `type Xof: Xof`)."""
    m = _ALIAS_NAME.search(signature)
    if m is None:
        return ""
    i = _bracketed(signature, m.end())[1] if signature.startswith("<", m.end()) else m.end()
    head, eq, rhs = signature[i:].partition("=")
    return rhs.strip().removesuffix(";") if eq and not head.strip() else ""


def generic_parameters(signature: str, name: re.Pattern[str] = _STRUCT_NAME) -> set[str]:
    """The type parameters a struct's (or, `name` = _ALIAS_NAME, a type alias's) signature
    declares (`struct A<'a, P: Pattern<'a>, T = u8>` -> {P, T}); lifetimes are no names of
    types."""
    m = name.search(signature)
    if m is None or not signature.startswith("<", m.end()):
        return set()
    heads = (_PARAM_NAME.match(item) for item in _bracketed(signature, m.end())[0])
    return {h.group(1) for h in heads if h is not None}


_FN_NAME = re.compile(r"\bfn\s+[A-Za-z_]\w*\s*")
_TRAIT_NAME = re.compile(r"\btrait\s+[A-Za-z_]\w*\s*")
_CONST_NAME = re.compile(r"\b(?:const|static)\s+(?:ref\s+)?(?:mut\s+)?[A-Za-z_]\w*\s*:")
_WHERE = re.compile(r"\bwhere\b")
# `name: &'a mut impl A + B` (group 2 the bounds) or `name: &mut R` (group 3 the type's name)
_PARAM_TYPE = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\s*:\s*&?\s*(?:'\w+\s+)?(?:mut\s+)?"
                         r"(?:(?:impl|dyn)\s+([^,)]+)|([A-Za-z_]\w*)\s*[,)])")


@lru_cache(maxsize=65536)
def parameter_bounds(signature: str, param: str) -> tuple[tuple[str, ...], ...]:
    """The trait paths bounding the type of function parameter `param`: `rng: &mut R` with
    `<R: RngCore + ?Sized>` or `where R: Rng` -> [[RngCore]] / [[Rng]]; `rng: impl Rng` ->
    [[Rng]]."""
    m = next((m for m in _PARAM_TYPE.finditer(signature) if m.group(1) == param), None)
    if m is not None and m.group(2) is not None:
        return tuple(_trait_paths(m.group(2)))
    fn = _FN_NAME.search(signature)
    if m is None or fn is None:
        return ()
    generic = m.group(3)
    items = _bracketed(signature, fn.end())[0] if signature.startswith("<", fn.end()) else []
    where = _WHERE.search(signature, fn.end())
    if where is not None:
        items += _bracketed("<" + signature[where.end():] + ">", 0)[0]
    return _bounds_of(items, generic)


def _bounds_of(items: list[str], param: str) -> tuple[tuple[str, ...], ...]:
    """The trait paths of the generic items (`T: A + B`, from `<..>` or a `where` clause) that
    bound `param`."""
    out = []
    for item in items:
        head, colon, bound = item.partition(":")
        if colon and head.strip() == param:
            out += _trait_paths(bound)
    return tuple(out)


@lru_cache(maxsize=65536)
def supertraits(signature: str) -> tuple[tuple[str, ...], ...]:
    """The traits a trait's signature names after its colon (`pub trait Rng: RngCore`)."""
    m = _TRAIT_NAME.search(signature)
    if m is None:
        return ()
    i = _bracketed(signature, m.end())[1] if signature.startswith("<", m.end()) else m.end()
    rest = signature[i:].lstrip()
    if not rest.startswith(":"):
        return ()
    return tuple(_trait_paths(_WHERE.split(rest[1:], 1)[0].split("{", 1)[0]))


def _trait_paths(bounds: str) -> list[tuple[str, ...]]:
    """`RngCore + ?Sized + 'a + a::B<T>` -> [[RngCore], [a, B]]: the named traits of a bound."""
    out = []
    for b in bounds.split("+"):
        m = _PATH.match(b.strip())
        if m is not None and not b.strip().startswith(("?", "'")):
            out.append(tuple(m.group().removeprefix("::").split("::")))
    return out


def _bracketed(text: str, at: int) -> tuple[list[str], int]:
    """The comma-separated items of the bracket opening at `at` (nested brackets kept whole),
    and the offset after its closing bracket (the text's end if it does not close)."""
    items, depth, start = [], 0, at + 1
    for j in range(at + 1, len(text)):
        c = text[j]
        if c == ">" and text[j - 1] == "-":
            continue  # `Fn(u8) -> bool`: an arrow, no bracket
        if c in "(<[":
            depth += 1
        elif c in ")>]" and depth:
            depth -= 1
        elif c in ")>]" or (c == "," and depth == 0):
            items.append(text[start:j].strip())
            if c != ",":
                return [x for x in items if x], j + 1
            start = j + 1
    return [x for x in items if x], len(text)


def field_type(field: str) -> list[str]:
    """The path of the type a tuple field holds, its methods' owner: `pub(crate) &'a mut
    a::B<T>` -> [a, B], `Box<B>` -> [B] (a smart pointer derefs to what it holds); [] for a
    type that is no path (`[u8; 4]`, `(A, B)`, `fn()`)."""
    m = _FIELD_TYPE.match(field)
    if m is None:
        return []
    parts = m.group(1).removeprefix("::").split("::")
    if parts[-1] in SMART_POINTERS and m.end() < len(field) and field[m.end()] == "<":
        return field_type(field[m.end() + 1:])
    return parts


def _impl_type(sym: Sym | None) -> str | None:
    """`mod::Type` for a method `mod::Type::f` (the impl's type)."""
    if sym is None or sym.kind != "method" or "::" not in sym.qname:
        return None
    return sym.qname.rsplit("::", 1)[0]


def _join(base: str, rest: str) -> str:
    return f"{base}::{rest}" if base else rest


def _one(hits: list[Sym]) -> Sym | None:
    """One target: a single definition, or several of one file (trait impls of a type)."""
    if not hits:
        return None
    return first(hits) if len({h.path for h in hits}) == 1 else None


def _pick(hits: list[Sym], confidence: str) -> Resolution:
    hit = _one(hits)
    if hit is not None:
        return hit.id, confidence
    return (None, AMBIGUOUS) if hits else (None, UNKNOWN)
