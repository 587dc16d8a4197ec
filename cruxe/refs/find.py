"""`find_references`: who imports, calls or uses a symbol, and how much is unknown.

The answer never claims more than the index knows. Resolved references are listed (one
per source line, in (path, line) order, the implementation's files first, then examples and
docs: `testcode.py`); each use is listed once: an import line of the target is folded
into the file's other references to it (counted in `imports_folded`, present when not 0)
and stays listed when it is the file's only one; `kind: "imports"` lists every import.
The references in test code (test files, and test code inside source files) are apart, in
`test_references`: one entry per file and edge type, `{path, edge_type, lines}` (`testcode.split_test_code`); `limit`
counts the entries of each list, `total_references` every site. A target that is itself test
code (a test helper) keeps them in `references` (those inside source files marked `test: true`):
its callers are the tests.
Edges that name the symbol but could not be tied
to any definition are counted in `unresolved_count`, always present, so "0 references,
0 unresolved" means no use of that name was found at all, while "0 references, 7
unresolved" tells the agent to look before deleting anything. The unresolved ones are
listed too, after the resolved ones, in their own list (`unresolved`, each entry with
`resolved: false` and the reason the resolver gave; the implementation's before tests'),
bounded by `limit` like the resolved.
The head lines of the target's own later definitions (a setter, a redefinition) are no
references: `redefinitions` lists them apart. A constructor is called through its class:
`constructor_of` names it (and a next action asks for its calls), and only the ambiguous
unresolved uses of the constructor's name are its candidates; a method's are all but the
`super().m()` calls the resolver tied to outside code (`external`: in a class deriving from
an imported or builtin class whose repository bases lack `m`). A Go method names the
repository's interface methods it implements and that have calls (`interfaces`, a next action
for each): Go calls it through them without saying so (`_interfaces_of`); a TypeScript method,
the members of the interfaces its class `implements` (`_implemented`); a Rust method, the method
of the trait its impl block implements (`_trait_methods`).

Targets: the name is read as locate_symbol reads one (`intent.parse_name`,
`intent.private_spelling`, `intent.qualified_matches`), so it may be qualified (`a::b`, `A.b`, `A->b`, `A#b`: a suffix of
qualified names, else the qualifier's segments in order in the path and qualifier, as
`hashbrown::HashMap::insert` names `hashbrown/src/map.rs`'s `map::HashMap::insert`), the
scope as written chosen over other cases; a Python package's public name is the definition it
re-exports, with its stubs (`attr.evolve`: `attr/_funcs.py`'s, `reexports.reexported`). Definitions that share a path and qualified name (conditional redefinitions,
overloads, property setters) are one target, answered as its first definition with a body (an
overload's implementation); one outside test code beside others all in test files (a `__mocks__/`
double) is the target, the others listed in `test_definitions`; a name written bare that also names
an enum's member (`ErrorCode.docTypeError` beside the function `docTypeError`) means the other
definitions, the members listed in `enum_members`. `path` + `line` pick the definition at (or
around) that line. Several targets in the `path` given are all answered, grouped by
definition (`definitions`, each reference saying which one it reaches); several targets and
no `path` raise `ambiguous_symbol` listing them, each with the arguments that pick it.
"""
from __future__ import annotations

import re
from typing import Any, Callable, Iterable

from ..crates import CrateNames
from ..declarations import declarations
from ..fields import are_fields
from ..errors import CruxeError
from ..filetext import line_of
from ..impls import impl_trait
from ..intent import (NAME_SEPARATORS, file_and_name, in_file, is_macro_call, parse_name, private_spelling,
                      qualified_matches, scope_as_written)
from ..model import is_declaration_file, is_test_file, normalize_repo_path
from ..inherited import inherited_members, overriding_members
from ..reexports import reexported
from ..shape import apply_safety_limit
from ..sourcetests import InSourceTests
from ..store import (EdgeSite, Generation, Symbol, chunks, edges_to, outline_rows, symbols_by_id, symbols_named,
                     unresolved_count, unresolved_edges)
from .resolve import resolver_version
from .testcode import SOURCE, path_rank, source_before_test_code, split_test_code
from .typescript import split_top

EDGE_KINDS = ("calls", "imports", "references")
# several edges on one line (a call and a type use, say) show once, as the strongest
_KIND_ORDER = {"calls": 0, "imports": 1, "references": 2}
MAX_CONTEXT_CHARS = 160  # one source line for orientation, not a code dump
MAX_LISTED_DEFINITIONS = 20  # in an ambiguous_symbol error: enough to pick from
MAX_NEXT_ACTIONS = 3  # every suggestion is paid for in the agent's tokens
MAX_LIMIT = 500  # the tool schema's maximum `limit`
# the line that defines a name with a keyword, after any modifiers (`pub`, `export`, `async`...)
_DEFINING_LINE = re.compile(r"(?:[a-z]+(?:\([^)]*\))?\s+)*(?:def|class|fn|function|func)\s+[\w(]")
MAX_HEAD_LINES = 20  # a definition's decorators or attributes, read to find its own name's line


def find_references(gen: Generation, repo: str, ref: str, symbol_name: str, path: str | None = None,
                    kind: str | None = None, limit: int = 20, line: int | None = None,
                    max_bytes: int | None = None) -> dict[str, Any]:
    """The answer (see the module docstring); `max_bytes`: the payload safety limit on the
    listed references (resolved, then unresolved), which sets `truncated` and
    `safety_limit_applied` when it cuts."""
    _check_arguments(kind, limit, path, line)
    db = gen.db
    if resolver_version(db) is None:
        raise CruxeError("no_edges_available", "the reference graph of this index is not built yet "
                         "(first index still running, or interrupted before resolving references)",
                         {"remedy": "Wait for the index job, or run `cruxe sync` (sync_repo) to finish it."})
    segments = private_spelling(parse_name(symbol_name, "symbol_name"), lambda n: bool(symbols_named(gen, n.lower())))
    name = segments[-1]
    targets, set_aside, members, fields_apart = _targets(gen, repo, ref, symbol_name, segments,
                                                         normalize_repo_path(path) if path else None, line, kind)
    found, redefinitions = _redefinitions(gen, repo, ref, targets, _grouped_references(gen, targets, kind))
    refs, folded = _fold_imports(found) if kind is None else (found, 0)
    in_source_tests = InSourceTests(gen, repo, ref)
    refs = source_before_test_code(refs, limit, in_source_tests)
    entries, tests = split_test_code(refs, _tests_apart(targets, in_source_tests))
    owner = _constructor_of(gen, targets)
    interfaces = _interfaces_of(gen, repo, ref, targets)
    keep = _candidates(targets, owner)
    unresolved = unresolved_sites(gen, name, kind, limit + 1, keep)
    page, test_page, listed = entries[:limit], tests[:limit], unresolved[:limit]
    _decorate(gen, repo, ref, page + listed + redefinitions)
    out: dict[str, Any] = {"symbol": _public(targets[0][0])}
    if len(targets) > 1:
        out["definitions"] = [{**_public(t[0]), "total_references": sum(r["definition"] == t[0]["qualified_name"]
                                                                        for r in refs)} for t in targets]
    out.update(references=page, total_references=len(refs))
    if test_page:
        out["test_references"] = test_page
    if folded:
        out["imports_folded"] = folded
    if redefinitions:
        out["redefinitions"] = redefinitions
    if set_aside:
        out["test_definitions"] = [{**_public(t[0]), "arguments": _picking(t[0])} for t in set_aside]
    if members:
        out["enum_members"] = [{**_public(t[0]), "arguments": _picking(t[0])} for t in members]
    if fields_apart:
        out["fields"] = [{**_public(t[0]), "arguments": _picking(t[0])} for t in fields_apart]
    # a use the resolver tied to a module of the repository (dateutil's `from dateutil import
    # relativedelta`, then `relativedelta.relativedelta(...)`: the module, named like the class it
    # holds) is the module's, no candidate of a definition
    out["unresolved_count"] = unresolved_count(gen, name, kind, modules=False) if keep is None else \
        sum(1 for e in unresolved_edges(gen, name, kind, modules=False) if keep(e))
    if owner is not None:
        out["constructor_of"] = _public(owner)
    if interfaces:
        out["interfaces"] = interfaces
    if listed:
        out["unresolved"] = listed
    if len(entries) > limit or len(tests) > limit or len(unresolved) > limit:
        out["truncated"] = True
    if max_bytes is not None:
        _apply_safety_limit(out, max_bytes)
    return out


def _check_arguments(kind: str | None, limit: Any, path: str | None, line: Any) -> None:
    if kind is not None and kind not in EDGE_KINDS:
        raise CruxeError("invalid_input", f"unknown reference kind {kind!r}",
                         {"field": "kind", "allowed": list(EDGE_KINDS)})
    if not isinstance(limit, int) or limit < 1:
        raise CruxeError("invalid_input", "limit must be a positive integer", {"field": "limit"})
    if line is not None and (not isinstance(line, int) or isinstance(line, bool) or line < 1):
        raise CruxeError("invalid_input", "line must be a positive integer", {"field": "line"})
    if line is not None and not path:
        raise CruxeError("invalid_input", "`line` picks a definition in the file given by `path`; pass both",
                         {"field": "line", "remedy": "Pass `path` (the definition's file) with `line`."})


def _apply_safety_limit(out: dict[str, Any], max_bytes: int) -> None:
    """Keep the longest prefix of (resolved, then test, then unresolved) references that fits."""
    lists = ("references", "test_references", "unresolved")
    whole = [out.get(k, []) for k in lists]
    kept, cut = apply_safety_limit([e for part in whole for e in part], max_bytes)
    if not cut:
        return
    for key, part in zip(lists, whole):
        mine, kept = kept[:len(part)], kept[len(part):]
        if mine or key == "references":
            out[key] = mine
        else:
            out.pop(key, None)
    out["truncated"] = True
    out["safety_limit_applied"] = True


def next_actions(args: dict[str, Any], out: dict[str, Any]) -> list[dict[str, Any]]:
    """Follow-ups: a constructor's class calls (`constructor_of`), then those of a cut answer
    (`truncated`), most specific first: one definition of a grouped answer at a time, callers
    only, then every resolved reference when `limit` (not the payload limit) cut them and the
    tool's maximum allows it. Each keeps the request's workspace and ref."""
    carried = {k: args[k] for k in ("workspace", "ref") if args.get(k)}
    asked = {k: args[k] for k in ("symbol_name", "path", "line", "kind") if args.get(k) is not None}
    actions: list[dict[str, Any]] = []

    def add(arguments: dict[str, Any], reason: str) -> None:
        actions.append({"tool": "find_references", "arguments": {**arguments, **carried}, "reason": reason})

    owner = out.get("constructor_of")
    if owner is not None:
        add({**_picking(owner), "kind": "calls"},
            f"a constructor is called through its class: the call sites of {owner['name']}")
    for spec in out.get("interfaces", [])[:MAX_NEXT_ACTIONS - 1]:
        add({**_picking(spec), "kind": "calls"},
            f"{spec['calls']} call(s) through the interface {spec['qualified_name']}, which this method implements")
    if not out.get("truncated"):
        return actions

    for d in out.get("definitions", []):
        add({**asked, **_picking(d)}, f"the references of {d['qualified_name']} alone")
    if "kind" not in asked:
        add({**asked, "kind": "calls"}, "the call sites only")
    listed = len(out["references"]) + sum(len(t["lines"]) for t in out.get("test_references", []))
    total = out["total_references"]
    if not out.get("safety_limit_applied") and listed < total <= MAX_LIMIT:
        add({**asked, "limit": total}, "every resolved reference")
    return actions[:MAX_NEXT_ACTIONS]


# ---- the target ------------------------------------------------------------------------------

def _targets(gen: Generation, repo: str, ref: str, symbol_name: str, segments: list[str], path: str | None,
             line: int | None,
             kind: str | None) -> tuple[list[list[dict[str, Any]]], list[list[dict[str, Any]]],
                                        list[list[dict[str, Any]]], list[list[dict[str, Any]]]]:
    """The definitions asked for, grouped into targets (rows of one path and qualified
    name), in (path, line) order: one, or several of the one file `path` names; the targets
    in test code set aside for the one outside it (`_library_over_test_code`); and the enum
    members set aside for the other definitions of a bare name (`_others_over_enum_members`); and
    the fields set aside for the other definitions of the name (`_others_over_fields`)."""
    name = segments[-1]
    every = rows = _definitions(gen, repo, ref, segments, is_macro_call(symbol_name))
    located = file_and_name(symbol_name)
    if path is None and located:  # `tests/test_items.py::test_x`: the file the name is written with
        named = {r["path"] for r in rows if in_file(r["path"], located[0])}
        path = named.pop() if len(named) == 1 else None
    if path is not None:
        rows = [r for r in rows if r["path"] == path]
    fields = _field_ids(gen, rows)
    groups: dict[tuple[str, str, bool], list[dict[str, Any]]] = {}
    for r in rows:  # a field and a method of one qualified name (a Rust getter) are two targets
        groups.setdefault((r["path"], r["qualified_name"], r["symbol_id"] in fields), []).append(r)
    targets = [groups[k] for k in sorted(groups, key=lambda k: (k[0], groups[k][0]["line_start"], k[1], k[2]))]
    _bodies_first(gen, repo, ref, targets)
    if line is not None and targets:
        targets = _at_line(targets, line, symbol_name, path)
    fields_apart: list[list[dict[str, Any]]] = []
    if len(targets) > 1:
        targets, fields_apart = _others_over_fields(targets, fields)
    if path is None and len(targets) > 1:
        targets = _stubs_with_their_body(targets)
    set_aside: list[list[dict[str, Any]]] = []
    if path is None and len(targets) > 1:
        targets, set_aside = _library_over_test_code(targets)
    members: list[list[dict[str, Any]]] = []
    if path is None and len(targets) > 1 and len(segments) == 1:
        targets, members = _others_over_enum_members(gen, targets)
    if not targets:
        where = f" in {path}" if path else ""
        data: dict[str, Any] = {"symbol_name": name, "path": path, "unresolved_count": unresolved_count(gen, name, kind)}
        if every:  # defined, only not in the file given (a path a few folders off, a guess)
            data["definitions"] = [{**_public(r), "arguments": _picking(r)} for r in every[:MAX_LISTED_DEFINITIONS]]
            data["remedy"] = ("It is defined elsewhere: repeat the call with one listed definition's `arguments`, "
                              "or without `path`.")
        raise CruxeError("symbol_not_found", f"no definition of {symbol_name.strip()!r}{where} in the index", data)
    if len(targets) > 1 and path is None:
        defs = [{**_public(t[0]), "arguments": _picking(t[0])} for t in targets]
        raise CruxeError("ambiguous_symbol", f"{symbol_name.strip()!r} has {len(defs)} definitions; pass `path` "
                         "(all of that file's definitions, grouped), `path` + `line` or a definition's "
                         "`arguments` to pick one",
                         {"symbol_name": name, "definition_count": len(defs),
                          "definitions": defs[:MAX_LISTED_DEFINITIONS],
                          "remedy": "Repeat the call with one listed definition's `arguments` (its qualified "
                                    "name, `path` and `line`), or with `path` alone for every definition in "
                                    "that file."})
    return targets, set_aside, members, fields_apart


def _field_ids(gen: Generation, rows: list[dict[str, Any]]) -> set[str]:
    """The ids of the rows that are a type's fields (`fields.are_fields`)."""
    return {r["symbol_id"] for r, f in zip(rows, are_fields(gen, [r["row"] for r in rows])) if f}


def _others_over_fields(targets: list[list[dict[str, Any]]], fields: set[str]
                        ) -> tuple[list[list[dict[str, Any]]], list[list[dict[str, Any]]]]:
    """(the targets that are no type's fields, the fields) when a name means both (a field and
    the getter method of one name, `len` and `fn len(&self)`; a function beside another type's
    field): a call names the function, so the fields are listed apart, each with the `arguments`
    that pick it (its `line`); else (targets, [])."""
    field = [t[0]["symbol_id"] in fields for t in targets]
    if all(field) or not any(field):
        return targets, []
    return [t for t, f in zip(targets, field) if not f], [t for t, f in zip(targets, field) if f]


def _others_over_enum_members(gen: Generation, targets: list[list[dict[str, Any]]]
                              ) -> tuple[list[list[dict[str, Any]]], list[list[dict[str, Any]]]]:
    """(the targets that are no enum's members, the members) when a name written bare means
    both: code reaches an enum's member through its enum (`ErrorCode.ctxCallOutOfScope`, beside
    the function `ctxCallOutOfScope()` that builds the error with that code), so the bare name
    asks for the others; else (targets, [])."""
    rows = [t[0]["row"] for t in targets]
    parents = symbols_by_id(gen, sorted({r.parent_symbol_id for r in rows if r.parent_symbol_id}))
    member = [r.parent_symbol_id in parents and parents[r.parent_symbol_id].kind == "enum" for r in rows]
    if all(member) or not any(member):
        return targets, []
    return [t for t, m in zip(targets, member) if not m], [t for t, m in zip(targets, member) if m]


def _library_over_test_code(targets: list[list[dict[str, Any]]]
                            ) -> tuple[list[list[dict[str, Any]]], list[list[dict[str, Any]]]]:
    """(the one target outside test code, the others) when all but one are in test files (a
    `__mocks__/` double, a test's own helper of the same name): the name asked for without a
    `path` is the library's (vue-query's `useQueryClient` beside its `__mocks__` one); else
    (targets, [])."""
    library = [t for t in targets if not is_test_file(t[0]["path"])]
    if len(library) != 1:
        return targets, []
    return library, [t for t in targets if t is not library[0]]


def _stubs_with_their_body(targets: list[list[dict[str, Any]]]) -> list[list[dict[str, Any]]]:
    """One target when all but one are in declaration files (a `.pyi` stub, a `.d.ts`): the
    definition with a body, its stubs' rows after its own, so the calls resolved to either are
    listed and the stubs' lines are its redefinitions (attrs' and werkzeug's `.pyi` made `define`
    and `evolve` ambiguous, though 82 of the 83 calls reach the implementation)."""
    bodies = [t for t in targets if not is_declaration_file(t[0]["path"])]
    if len(bodies) != 1:
        return targets
    return [bodies[0] + [r for t in targets if t is not bodies[0] for r in t]]


CONSTRUCTORS = frozenset({"__init__", "__new__", "constructor"})  # Python, TypeScript


def _constructor_of(gen: Generation, targets: list[list[dict[str, Any]]]) -> dict[str, Any] | None:
    """The class whose constructor the one target is (`Text.__init__` -> `Text`), else None:
    `Text(...)` calls are edges to the class, not to its `__init__`."""
    row = targets[0][0]
    if len(targets) > 1 or row["kind"] != "method" or row["name"] not in CONSTRUCTORS:
        return None
    qualified = row["qualified_name"][:-len(row["name"])]
    owner = NAME_SEPARATORS.split(qualified)
    if len(owner) < 2:  # no qualifier: no class holds it
        return None
    for s in symbols_named(gen, owner[-2].lower()):
        tail = qualified[len(s.qualified_name):]
        if s.kind == "class" and s.path == row["path"] and qualified.startswith(s.qualified_name) \
                and NAME_SEPARATORS.fullmatch(tail):
            return _row(s)
    return None


MAX_INTERFACES = 5  # interface methods listed as reaching a Go method (a name like `String` has many)


def _interfaces_of(gen: Generation, repo: str, ref: str,
                   targets: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Go: the repository's interface methods the one target method implements, with how many
    calls the resolver tied to each (those with none left out). Go says a type implements an
    interface by its methods' names alone: every method the interface declares is a method of
    the target's type, in the target's package. A call through the interface may run the target
    (logrus calls `TextFormatter.Format` as `entry.Logger.Formatter.Format(entry)`, an edge to
    `Formatter.Format`); those calls are the interface's references, named here and asked for
    by a next action, not mixed into the target's."""
    row = targets[0][0]
    if len(targets) > 1 or row["kind"] != "method":
        return []
    if row["path"].endswith(_TS_SUFFIXES):
        return _implemented(gen, repo, ref, row)
    if row["path"].endswith(".rs"):
        return _trait_methods(gen, repo, ref, row)
    if not row["path"].endswith(".go"):
        return []
    owner = row["qualified_name"].split(".")
    if len(owner) < 3:
        return []
    directory = row["path"].rpartition("/")[0]
    named: dict[str, list[Symbol]] = {}  # name -> its definitions, read once per call

    def defined(name: str) -> list[Symbol]:
        got = named.get(name)
        if got is None:
            got = named[name] = [s for s in symbols_named(gen, name.lower()) if s.name == name and s.kind == "method"
                                 and s.path.endswith(".go")]
        return got

    def has_method(name: str) -> bool:  # type owner[-2] of the target's package has method `name`
        return any(s.path.rpartition("/")[0] == directory and s.qualified_name.split(".")[-2:-1] == owner[-2:-1]
                   for s in defined(name))

    specs = [s for s in defined(row["name"]) if s.parent_symbol_id is not None]
    parents = symbols_by_id(gen, sorted({s.parent_symbol_id for s in specs}))
    if any(s.symbol_id == row["symbol_id"] and parents[s.parent_symbol_id].kind == "interface"
           for s in specs if s.parent_symbol_id in parents):
        return []  # the target is an interface's method: its calls are its own references
    implemented = []
    for spec in specs:
        iface = parents.get(spec.parent_symbol_id)
        if iface is None or iface.kind != "interface":
            continue
        declared = {r.name for r in outline_rows(gen, repo, ref, iface.path, top_only=False)
                    if r.parent_symbol_id == iface.symbol_id and r.kind == "method"}
        if all(has_method(m) for m in sorted(declared)):
            implemented.append(spec)
    return _with_calls(gen, implemented)


_TS_SUFFIXES = (".ts", ".tsx", ".mts", ".cts")
_IMPLEMENTS = re.compile(r"\bimplements\s+(.+)$", re.S)
_HEAD_NAME = re.compile(r"\s*(?:[A-Za-z_$][\w$]*\.)*([A-Za-z_$][\w$]*)")
HEADER_LINES = 5  # a class header's `implements` clause written over a few lines


def _implemented(gen: Generation, repo: str, ref: str, row: dict[str, Any]) -> list[dict[str, Any]]:
    """TypeScript: the members named like the target method of the interfaces its class says it
    `implements` (the ones the class header's type references reach), with how many calls the
    resolver tied to each: a call on a value typed by the interface (`destination.next(v)`, an
    `Observer<T>`) may run the target."""
    method: Symbol = row["row"]
    cls = symbols_by_id(gen, [method.parent_symbol_id]).get(method.parent_symbol_id) \
        if method.parent_symbol_id else None
    said = _IMPLEMENTS.search(cls.signature or "") if cls is not None and cls.kind == "class" else None
    if said is None:
        return []
    owners: list[Symbol] = []
    for part in split_top(f"<{said.group(1)}>", 0) or [said.group(1)]:
        head = _HEAD_NAME.match(part)
        owners += [iface for iface in (symbols_named(gen, head.group(1).lower()) if head else [])
                   if iface.name == head.group(1) and any(
                       e.path == cls.path and cls.line_start <= e.line <= cls.line_start + HEADER_LINES
                       for e in edges_to(gen, [iface.symbol_id], "references"))]
    return _called_members(gen, repo, ref, owners, method.name)


def _called_members(gen: Generation, repo: str, ref: str, owners: list[Symbol], name: str) -> list[dict[str, Any]]:
    """The members named `name` of `owners` (interfaces, traits) that have calls (`_with_calls`)."""
    members = [r.symbol_id for owner in owners for r in outline_rows(gen, repo, ref, owner.path, top_only=False)
               if r.parent_symbol_id == owner.symbol_id and r.name == name]
    return _with_calls(gen, symbols_by_id(gen, members).values())


def _with_calls(gen: Generation, members: Iterable[Symbol]) -> list[dict[str, Any]]:
    """`members` that have calls, each with how many (distinct lines), most first; at most
    MAX_INTERFACES."""
    found: list[dict[str, Any]] = []
    for member in members:
        calls = len({(e.path, e.line) for e in edges_to(gen, [member.symbol_id], "calls")})
        if calls:
            found.append({**_public(_row(member)), "calls": calls})
    found.sort(key=lambda d: (-d["calls"], d["path"], d["line_start"]))
    return found[:MAX_INTERFACES]


def _trait_methods(gen: Generation, repo: str, ref: str, row: dict[str, Any]) -> list[dict[str, Any]]:
    """Rust: the method of the repository's trait that the target's `impl Trait for Type` block
    implements, with how many calls the resolver tied to it: a call on a generic or `dyn Trait`
    value (`serializer.serialize_str(v)` with `S: Serializer`) may run the target. A trait name
    defined in several crates of the repository answers each of them."""
    trait = impl_trait(gen, repo, ref, row["row"])
    if not trait:
        return []
    traits = [t for t in symbols_named(gen, trait.lower())
              if t.name == trait and t.kind == "trait" and t.path.endswith(".rs")]
    return _called_members(gen, repo, ref, traits, row["name"])


def _candidates(targets: list[list[dict[str, Any]]],
                owner: dict[str, Any] | None) -> Callable[[EdgeSite], bool] | None:
    """Which unresolved uses of the name are candidates (None: all). Another class's
    `super().__init__()` (a base the index does not hold) names no target's constructor, one
    the resolver found ambiguous may; a `super().m()` the resolver tied to outside code (its
    class derives from an imported or builtin class, and no repository base defines `m`)
    reaches no method of the repository. (A use tied to a module is no candidate of any
    definition: the store leaves those out, `unresolved_edges(..., modules=False)`.)"""
    if owner is not None:
        return lambda e: e.confidence == "ambiguous"
    if all(t[0]["path"].endswith(".rs") for t in targets):
        # Rust: a function or method is used by a call (or a `use`), never read as `x.f` (the
        # field reads' `references` edges), and a field by a read, never a call (`x.f()` is a method's)
        if all(t[0]["kind"] in ("function", "method") for t in targets):
            return lambda e: e.edge_type != "references" and (e.confidence != "external" or not _is_super(e.receiver))
        if all(t[0]["kind"] == "variable" for t in targets):
            return lambda e: e.edge_type != "calls"
    if all(t[0]["kind"] == "method" for t in targets):
        return lambda e: e.confidence != "external" or not _is_super(e.receiver)
    return None


def _is_super(receiver: str | None) -> bool:
    """`super()`, `super(C, self)` (Python), `super` (TypeScript)."""
    return receiver is not None and (receiver == "super" or receiver.startswith("super("))


def _tests_apart(targets: list[list[dict[str, Any]]], in_source_tests: InSourceTests) -> Callable[[str | None], bool]:
    """Whether a definition's references in test code go apart (by `definition`, None for a
    lone target): not when it is itself test code, a test helper, whose callers are the tests
    that the question is about, each a site to read."""
    def is_test(t: list[dict[str, Any]]) -> bool:
        return is_test_file(t[0]["path"]) or in_source_tests(t[0]["path"], t[0]["line_start"])

    if len(targets) == 1:
        apart = not is_test(targets[0])
        return lambda definition: apart
    library = {t[0]["qualified_name"] for t in targets if not is_test(t)}
    return lambda definition: definition in library


def _picking(d: dict[str, Any]) -> dict[str, Any]:
    """The arguments that pick exactly this definition: `path` + `line` choose it even where
    its qualified name is also the tail of another one's (`A.m` in `A.m` and `B.A.m`)."""
    return {"symbol_name": d["qualified_name"], "path": d["path"], "line": d["line_start"]}


def _at_line(targets: list[list[dict[str, Any]]], line: int, symbol_name: str,
             path: str | None) -> list[list[dict[str, Any]]]:
    """The target defined at `line`, else the innermost one whose span holds it."""
    starting = [t for t in targets if any(r["line_start"] == line for r in t)]
    if starting:
        return starting[:1]
    around = [(max(r["line_start"] for r in t if r["line_start"] <= line <= r["line_end"]), t)
              for t in targets if any(r["line_start"] <= line <= r["line_end"] for r in t)]
    if around:
        return [max(around, key=lambda x: x[0])[1]]
    raise CruxeError("symbol_not_found", f"no definition of {symbol_name.strip()!r} at {path}:{line}",
                     {"symbol_name": symbol_name.strip(), "path": path, "line": line,
                      "definitions": [_public(t[0]) for t in targets][:MAX_LISTED_DEFINITIONS],
                      "remedy": "Pass the `line` of one of the listed definitions (its `line_start`), "
                                "or `path` alone for all of them."})


def _definitions(gen: Generation, repo: str, ref: str, segments: list[str],
                 macro: bool = False) -> list[dict[str, Any]]:
    """The definitions a (qualified) name means, read as locate_symbol reads it: a qualified
    name by `intent.qualified_matches`, those matching its scope as written when some do, or
    the definitions a Python package's imports re-export under it with the stubs that declare
    it (no other same-named definition: `pkg.Request` is the one `pkg/__init__.py` imports), or,
    when none of these matches, the member a Python class inherits from a repository base
    (`LRUCache.maxsize` is `Cache.maxsize`: `inherited.inherited_members`), else its overrides
    in the class's subclasses (`Cache.popitem`: `inherited.overriding_members`);
    then those named exactly as written when some are, else any case. A Rust macro call
    (`vec!`) means the macros so named when there are some, not the module `vec`."""
    name = segments[-1]
    rows = symbols_named(gen, name.lower())
    if macro:
        rows = [r for r in rows if (r.signature or "").startswith("macro_rules!")] or rows
    if len(segments) > 1:
        home = CrateNames(gen, repo, ref)
        exported = reexported(gen, repo, ref, rows, segments)
        rows = qualified_matches(rows, segments, home) or \
            ([] if exported else inherited_members(gen, segments) or overriding_members(gen, segments))
        rows = [r for r in rows if scope_as_written(r, segments, home)] or rows
        if exported:
            rows = exported + [r for r in rows if r not in exported and is_declaration_file(r.path)]
    rows = [r for r in rows if r.name == name] or rows
    return [_row(s) for s in rows]


def _row(s: Symbol) -> dict[str, Any]:
    return {"symbol_id": s.symbol_id, "name": s.name, "qualified_name": s.qualified_name, "kind": s.kind,
            "path": s.path, "line_start": s.line_start, "line_end": s.line_end, "row": s}


def _bodies_first(gen: Generation, repo: str, ref: str, targets: list[list[dict[str, Any]]]) -> None:
    """A target's definitions with a body before its declarations (in line order otherwise), so
    that an overloaded function (Python's `@overload` stubs, TypeScript's overload signatures,
    above the implementation) is answered as its implementation, the stubs being its
    `redefinitions`."""
    for t in targets:
        if len(t) > 1:
            stubs = declarations(gen, repo, ref, [r["row"] for r in t])
            if stubs and t[0]["symbol_id"] in stubs:
                t.sort(key=lambda r: r["symbol_id"] in stubs)


def _public(row: dict[str, Any]) -> dict[str, Any]:
    return {k: row[k] for k in ("name", "qualified_name", "kind", "path", "line_start", "symbol_id")}


# ---- references ------------------------------------------------------------------------------

def _references(gen: Generation, ids: list[str], kind: str | None) -> list[dict[str, Any]]:
    best: dict[tuple[str, int], dict[str, Any]] = {}
    for e in edges_to(gen, ids, kind):
        path, line, edge_type, from_id = e.path, e.line, e.edge_type, e.from_symbol_id
        cur = best.get((path, line))
        cand = {"path": path, "line_start": line, "edge_type": edge_type, "from_symbol": from_id}
        if cur is None or (_KIND_ORDER.get(edge_type, 9), from_id or "") < (_KIND_ORDER.get(cur["edge_type"], 9),
                                                                         cur["from_symbol"] or ""):
            best[(path, line)] = cand
    return [best[k] for k in sorted(best, key=lambda k: (path_rank(k[0]), k))]


def _fold_imports(refs: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """The references without the import lines of files that also use the target otherwise
    (the use says more than the import), and how many were dropped. An import that is its
    file's only reference to the target (a re-export, a side-effect import, a use the
    resolver did not link) stays, after the uses of its rank (`path_rank`): a package's
    `__init__.py` re-export sorted first by path and stood above every call. Grouped answers
    fold per definition."""
    used = {(r["path"], r.get("definition")) for r in refs if r["edge_type"] != "imports"}
    kept = [r for r in refs if r["edge_type"] != "imports" or (r["path"], r.get("definition")) not in used]
    order = {d: i for i, d in enumerate(dict.fromkeys(r.get("definition") for r in kept))}
    kept.sort(key=lambda r: (order[r.get("definition")], path_rank(r["path"]), r["edge_type"] == "imports"))
    return kept, len(refs) - len(kept)


def _grouped_references(gen: Generation, targets: list[list[dict[str, Any]]],
                        kind: str | None) -> list[dict[str, Any]]:
    """Each target's references in (path, line) order, target after target; with several
    targets each reference names the one it reaches (`definition`: its qualified name,
    unique within the one file the targets share)."""
    if len(targets) == 1:
        return _references(gen, [d["symbol_id"] for d in targets[0]], kind)
    out: list[dict[str, Any]] = []
    for t in targets:
        for r in _references(gen, [d["symbol_id"] for d in t], kind):
            r["definition"] = t[0]["qualified_name"]
            out.append(r)
    return out


def _redefinitions(gen: Generation, repo: str, ref: str, targets: list[list[dict[str, Any]]],
                   refs: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(references, redefinitions): the sites on the head lines (decorators, attributes, the
    `def` line) of a target's own later definitions (a property's setter, `@width.setter` and
    its `def width`; a conditional or overloaded redefinition) set apart. The extraction
    records them as uses of the first definition (a rename must change them too), but they
    define the target: no caller. The head lines of the definition that answers for the target
    (an overload's implementation, `_bodies_first`) are neither: it is the answer's `symbol`."""
    heads: set[tuple[str | None, str, int]] = set()
    own: set[tuple[str | None, str, int]] = set()
    for t in targets:
        key = t[0]["qualified_name"] if len(targets) > 1 else None
        for row in sorted(t, key=lambda r: r["line_start"])[1:]:
            lines = {(key, row["path"], n) for n in _head_lines(gen, repo, ref, row)}
            (own if row is t[0] else heads).update(lines)
    if not heads and not own:
        return refs, []
    split: tuple[list[dict[str, Any]], list[dict[str, Any]]] = ([], [])
    for r in refs:
        at = (r.get("definition"), r["path"], r["line_start"])
        if at not in own:
            split[at in heads].append(r)
    return split


def _head_lines(gen: Generation, repo: str, ref: str, row: dict[str, Any]) -> list[int]:
    """A definition's decorators or attributes (`@...`, `#[...]`) and the line that defines it
    with a keyword (`def`, `class`, `fn`, `function`, `func`); none when it has no such line
    (`f = classmethod(f)` defines and uses `f`)."""
    first, last = row["line_start"], min(row["line_end"], row["line_start"] + MAX_HEAD_LINES)
    found = chunks(gen, repo, ref, row["path"], (first, last))
    for n in range(first, last + 1):
        text = (line_of(found, n) or "").lstrip()
        if _DEFINING_LINE.match(text):
            return list(range(first, n + 1))
        if not text.startswith(("@", "#[")):
            return []
    return []


def _decorate(gen: Generation, repo: str, ref: str, refs: list[dict[str, Any]]) -> None:
    """Enclosing symbols' qualified names and the source line of each reference, in place."""
    ids = sorted({r["from_symbol"] for r in refs if r["from_symbol"]})
    names = {i: s.qualified_name for i, s in symbols_by_id(gen, ids).items()}
    texts = {p: chunks(gen, repo, ref, p) for p in sorted({r["path"] for r in refs})}
    for r in refs:
        r["from_symbol"] = names.get(r["from_symbol"]) if r["from_symbol"] else None
        line = line_of(texts[r["path"]], r["line_start"])
        if line is not None:
            line = line.strip()
            r["context"] = line if len(line) <= MAX_CONTEXT_CHARS else line[:MAX_CONTEXT_CHARS - 1] + "…"


# ---- unresolved ------------------------------------------------------------------------------

def unresolved_sites(gen: Generation, name: str, kind: str | None, n: int,
                     keep: Callable[[EdgeSite], bool] | None = None) -> list[dict[str, Any]]:
    """The first `n` source lines of the edges `unresolved_count` counts, none tied to a
    module (those `keep` keeps, when given): the implementation's first, then examples' and
    docs', then tests' (`testcode.path_rank`, as for resolved references), within each those
    the resolver could not decide before those it tied to outside code, each in (path, line)
    order; one entry per line (its strongest edge, as for resolved references), with the
    reason the resolver left it (ambiguous, external, opaque, unknown). The edges come in
    (path, line) order, so reading stops once `n` undecided lines of the implementation are held: a
    name whose candidates are mostly in tests is read to its end, as `unresolved_count` reads
    it."""
    # by (path_rank, tied outside): within each rank, the uses the resolver tied to outside code
    # (`t.Add` on a `time.Time`, `xs.extend` on a list) after those it could not decide
    ranks: tuple[dict[tuple[str, int], dict[str, Any]], ...] = tuple({} for _ in range(6))
    for e in unresolved_edges(gen, name, kind, modules=False):
        if keep is not None and not keep(e):
            continue
        bucket = 2 * path_rank(e.path) + (e.confidence == "external")
        best = ranks[bucket]
        key = (e.path, e.line)
        if key not in best and len(best) == n:
            if bucket == 2 * SOURCE:
                break
            continue
        cur = best.get(key)
        if cur is None or _KIND_ORDER.get(e.edge_type, 9) < _KIND_ORDER.get(cur["edge_type"], 9):
            best[key] = {"path": e.path, "line_start": e.line, "edge_type": e.edge_type,
                         "from_symbol": e.from_symbol_id, "resolved": False, "reason": e.confidence or "pending"}
    seen: set[tuple[str, int]] = set()  # a line with both kinds of use is listed once, undecided
    out = []
    for best in ranks:
        for key, site in best.items():
            if key not in seen:
                seen.add(key)
                out.append(site)
    return out[:n]
