"""`extract(path, source, language) -> FileExtract`: a pure function over bytes.

Runs in worker processes. Never raises for bad input: a file that fails to parse yields
what can be recovered plus a warning naming the file.
"""
from __future__ import annotations

import logging

from .languages import get_extractor
from .languages._common import BudgetExceeded
from .model import FileExtract, lone_cr_to_lf

log = logging.getLogger(__name__)

_BOM = b"\xef\xbb\xbf"

# What the extractors (languages/, literals, codetokens) and the writer's snippet chunking
# (`store.writer.chunk_ranges`) make of the same bytes: bump it when that changes (a new kind of
# reference, a symbol read differently, chunks cut elsewhere) without the tables changing shape
# (that is SCHEMA_VERSION). A generation records the version that wrote it; a job finding another
# rebuilds the ref beside it instead of syncing rows of two extractors into one index, and the
# ref reads stale until then (so `balanced` starts that job).
# 3: identifier parts split acronyms (codetokens.PARTS_PATTERN); 4: Python instance attributes
# with a visible type are variables of their class, and a line starting with a dereference
# (`*out = ...`) is code whose messages count (literals); 5: Python uses in a definition's head
# (bases, decorators, defaults, annotations) belong to the scope around it, and a name an
# enclosing function binds is no reference in the functions nested in it; 6: a literal given
# whole to a constant named in capitals is a message (literals._message_constant); 7: a Python
# local's binding types the uses it dominates (not only a name bound once), literals and builtin
# value types included (`x = []` -> receiver `list()`); 8: Rust items written in an item-level
# macro's `{ }` body (`cfg_rt! { pub fn spawn() {} }`) are read as items; 9: a JavaScript
# function assigned to a member of a module's object (`res.sendFile = function`) is its method;
# 10: a literal given to gettext (`_("...")`) or to `fail(`/`abort(` is a message; 11: Rust items
# in each branch of a `cfg_if!` too, and an attribute in a macro's tokens (`#[cfg(unix)]`) holds
# no calls; 12: a literal given to a method named `err` (a scanner's `s.err("illegal char")`) is a
# message; 13: a literal given to a variable named for a message (`msg = f"..."`) or returned by a
# function named for one is a message, and `f"a " f"b"` pieces are one literal; 14: TypeScript
# function-valued object pairs and `x.m = () => {}` in bodies are methods, a let/var holding a
# function is a function, a TS table of messages (`const errors = [...]`) holds messages, a typed
# local is seen from the methods nested in its function; 15: a Rust literal written by a `fn fmt`
# (`"...".fmt(f)`, `write!(f, ..)`, `f.write_str`) or given to thiserror's `#[error(..)]` (not in a
# doc comment) is a message, `fn name(` in a Rust macro's tokens is no call of `name`, a
# `#[macro_export]` macro is public, and a Rust `assert!(cond)` without a message emits
# "assertion failed: cond"; 16: a file's messages are found in one scan of the file
# (literals.field_texts), so a chunk cut inside a docstring or raw string keeps its messages; 17: a
# bare call of a Python local bound to an attribute (`f = obj.method`) is a call of that attribute;
# 18: in Go, a literal in an `Error() string` method's body and a constant's whole value (any
# case) are messages, a struct's signature lists the types it embeds, and a name used as a value
# (not called) is a `references` edge; 19: only a Python file's messages are found in one scan of
# the file, the other languages' chunk by chunk again (a stray backtick in a comment threw a
# TypeScript file's scan off to its end); 20: a Go call on a local whose declaration says its type
# (`x := T{}`, `var x *T`, `x := new(T)`, `x, err := f(..)`) or a parameter's (`p *T`) gets the
# receiver `T{}` / `f()`; 21: a literal given to Rust's log macros (`info!`, `warn!`, `debug!`,
# `trace!`, `log!`) is a message.
# 22: a TypeScript/JavaScript signature leaves out the comments inside
# it (a parameter's `/// doc`, an object type's `/** */`), a run of `//` / `///` line
# comments right above a definition is its doc, and `const X = class extends B {}` is a class.
# 23: a Go interface's signature lists the interfaces it embeds, and a
# literal given to a call whose name has the word panic (`p.panicItemf(`, `encPanic(`) is a message,
# and a Go local given a method's result (`x := y.M()`) or another local (`x := y`) is typed by it.
# 24: a Python table of messages (`default_error_messages = {...}`, a name
# ending in errors/messages/warnings) holds messages; 25: a Python `from m import m` carries its
# name as alias, `import m as m` none (the two were written alike); 26: a string class attribute of a
# Python exception class (werkzeug's `description = (...)`) is a message; 27: a message written as
# literals and values joined by `+` (`"No node type '" + name + "' found"`) has a hole at each value;
# 28: a TypeScript template's hole holding a nested template or braces is one hole.
# 29: a chunk over CHUNK_MAX_LINES is cut where a statement ends, not at a fixed line.
# 30: a Rust struct with named fields lists them in its signature (`pub struct A { inner: Mutex<T> }`),
# as a tuple struct's header already did: the types `self.inner.f()` resolves through; 31: a Rust
# turbofish call in a macro's arguments (`assert_eq!(x & low_bits::<T>(), 0)`) is a call; 32: a Rust
# enum's variants are symbols (constants: `Steal::Retry`).
# 33: a Go call on a field's value (`s.conn.Write(b)`) whose struct the file declares gets the
# field's declared type as its receiver; a Go signature whose parameters close on a line of
# their own drops the trailing comma (`id uint32, )`). 34: 29's cut is undone (fixed offsets again:
# docs/BENCHMARKS.md, "A long definition cut where a statement ends"). 35: outside Python the
# pieces of one long definition are scanned for messages together (a message across the cut stays
# whole), each other chunk alone as before.
# 36: a Go struct's signature lists its named fields after its embedded types, and a call on a
# field of a struct another file declares gets `T{}.f` as its receiver (the resolver reads the field).
# 37: a printf-style wrapper of an emitting verb (`f.failf(...)`, `abortln`) emits its literal's message.
# 38: a Go call on a name its function does not declare and no import binds is on a package-level
# name: a variable of its file gets the receiver its declaration gives, any other `x=`.
# 39: a Python literal given to a helper named for raising (`tokenizer.raise_syntax_error(f"...")`) or
# to `super().__init__(...)` in an exception class is a message; a Python local assigned a call's
# result rooted at an imported name has that call as its receiver (`email.parser.Parser().parsestr()`),
# a generic annotation its class. 40: ... but not a copy's or a cast's (`copy.copy(x)`), and a member
# read on such a local is no reference.
# 41: a TypeScript `export { a as b }` without a source is an import of the file's own `a` (module ""),
# no use. 42: so is a top-level `export const b = a`. 43: neither is an edge for an imported `a` (not
# renamed, or aliased by a constant): the import line is the re-export.
# 45: what a Python exception class's `__str__` returns is a message.
# 46: a Rust call on a local a `let` gives a call's result has that call as its receiver
# (`make()`, `self.guard()`). 47: a `#[path]` module is an import of its file's module.
# 48: a Rust `match` arm of an error's variant giving a literal is a message (`Error::X => Some("..")`).
# 49: ... and a call on a field of a typed Rust local has the local's receiver and the fields.
# 50: ... also when the chain of fields is written over lines (`globals\n    .data\n    .write()`).
# 51: a literal given to a throwing helper named `die` or `invariant` is an emitted message; a
# TypeScript call on a member of a local read from a member (`doc.defaultView!.scrollBy()` after
# `let doc = view.dom.ownerDocument`) or destructured from one (`let {schema} = view.state`) gets
# that read as its receiver's root.
# 52: a Go call on a call's value written out (`NewDecoder(r).Decode(&v)`) gets the receiver a typed
# local of that value takes (`NewDecoder()`). 53: ... and so does a local holding such a chain
# (`t := template.New(n).Funcs(m)`).
# 54: a TypeScript local assigned from a call through an ES private member or a chain of calls
# (`const q = this.#cache.build(k)`, `this.getCache().build(k)`) is typed by that call.
# 55: a TypeScript value's signature keeps a `new` initialiser (`= new TimeoutManager()`).
# 56: a TypeScript function value's parameter whose type is written types the calls on it.
# 57: a callback given to a collection's method reached through reads and calls
# (`this.getAll().forEach((q) => ...)`) says where its parameters' type is read.
# 58: a snake-case helper with `error` among its words emits its message (yaml's
# `yaml_parser_set_scanner_error`); 59: Go's `fmt.Fprintf`/`Fprintln`/`Fprint` to `os.Stderr` emits it.
# 60: a literal given to a variable named `error` or `err` (`*_error`) is a message.
# 61: a TypeScript bare call of a name destructured from a call's result (`const {unlink} =
# createReactiveSystem(); unlink()`) gets that call as receiver.
# 62: a call on a Go range clause's value variable walking a field (`for _, m := range s.items`)
# gets the field's element as receiver (`T{}.items[]`), a named slice type's left to the resolver.
# 63: a TSX closing tag (`</CatchBoundary>`) is no second use of its component. 64: the literal
# scan of TypeScript, Go and Rust reads a comment whole (a quote in it opens no literal).
# 65: a Rust literal written by a `Display`'s `fn fmt` however far below its `fn` (was: within 2,000
# characters).
# 66: a later name a Go call's results are given to (`_, res, ok := parseAny(s, i)`) gets the call
# with its position as receiver (`parseAny()#1`).
# 67: TypeScript (four steps on its branch, one here): a local holding an awaited call gets that
# call as the receiver of its calls, as an unawaited one does; a name a block, function, catch
# clause or loop declares for itself is that local where it is seen (its calls and reads there are
# no uses of the file's or an import's definition of the name), though a type's qualifier
# (`checks.$ZodCheck`) is the namespace it names; a module-level object's properties made by a call
# or naming a value are definitions (`export const http = { get: createHttpHandler('GET') }`).
# 68: a literal that is all a function with braces returns is a message (a locale's templates, an
# `Error()` method's text); Go text/template's `{{.x}}` is one hole.
# 69: a Python local's use on the right of the assignment that binds it again (`url = url.replace(..)`)
# reads the binding before it (was: the rebinding's, which shows no class). 70: also when the
# rebinding sits in a branch below the earlier binding (not in a loop there).
# 71: a TypeScript local declared alike in every binding of its name in a symbol (each test
# callback's `const km = new KeymapManager()`) keeps the type its declarations say.
# 72: a Rust call on a generic type parameter (`S::from_usize(0)` in `impl<S: StateID>`) gets the
# receiver `<S as StateID>`: the bounds the items around it declare (rsprobe9).
# 73: a Rust file's own `macro_rules!` whose matcher holds a tuple of fragments with a `$k:ident` the
# transcriber defines (`const $k`) makes each row of its invocations a definition
# (`status_codes! { (404, NOT_FOUND, "Not Found"); }`: `StatusCode::NOT_FOUND`) (rsprobe9).
# 74: a Rust struct's, union's or enum struct variant's named fields are variables (`S::len`), and a
# field read or written (`x.f`, not called), a struct literal's key and a struct pattern's field
# (`S { f: 1 }`) are `references` edges with their receiver; a Rust field's Tantivy document holds
# its names only (rsfield).
# 75 (pyattr, renumbered from 74 on merge): every Python instance attribute a method assigns is a
# variable of its class (was: only one whose assignment shows its class), tuple and chained targets
# too, on whatever the method's first parameter is named, and its `self.x` reads are references.
# 76 (gofield, renumbered from 74 on merge): a Go struct's named fields (an alias of a struct
# type's too) are definitions (`variable`, `pkg.T.field`, children of the type), and each selected
# name no call calls (`s.conn`, a method value) and each struct literal key (`T{Field: v}`) a
# `references` edge on its receiver.
EXTRACTION_VERSION = "76"

# Symbols kept per file. Hand-written files hold a few thousand at most; past this a file is
# generated (a minified bundle, a table), and each symbol costs a row, a Tantivy document and
# a result that can crowd out real code: the first ones are kept, the rest dropped with a warning.
MAX_SYMBOLS_PER_FILE = 20_000


def extract(path: str, source: bytes, language: str) -> FileExtract:
    fn = get_extractor(language)
    if fn is None:
        return FileExtract(path, language, warnings=[f"{path}: no grammar for {language}; indexed as text only"])
    if source.startswith(_BOM):
        # Keep byte offsets and line numbers: blank the BOM instead of removing it.
        source = b"   " + source[3:]
    source = lone_cr_to_lf(source)  # line numbers as `model.text_lines` counts them
    try:
        out = fn(source, path)
    except BudgetExceeded as e:
        return FileExtract(path, language, warnings=[f"{path}: {e}; indexed as text only"])
    except RecursionError:
        return FileExtract(path, language, warnings=[f"{path}: nesting too deep to extract; indexed as text only"])
    except Exception as e:  # noqa: BLE001 - one bad file never stops a run
        log.debug("extract failed for %s", path, exc_info=True)
        return FileExtract(path, language, warnings=[f"{path}: extraction failed ({type(e).__name__}: {e}); indexed as text only"])
    if not out.source:
        out.source = source
    if out.parse_errors:
        out.warnings.append(f"{path}: {out.parse_errors} syntax error region(s); recovered what parsed")
    if len(out.symbols) > MAX_SYMBOLS_PER_FILE:
        _cap_symbols(out, MAX_SYMBOLS_PER_FILE)
    return out


def _cap_symbols(fx: FileExtract, cap: int) -> None:
    """Keep the first `cap` symbols (in source order, so each kept symbol's parent is kept);
    a reference from a dropped symbol is attributed to its nearest kept enclosing symbol."""
    dropped = len(fx.symbols) - cap
    owner: list[int | None] = []  # per symbol: itself when kept, else its nearest kept ancestor
    for i, s in enumerate(fx.symbols):
        owner.append(i if i < cap else (owner[s.parent] if s.parent is not None and s.parent < i else None))
    del fx.symbols[cap:]
    fx.symbols[:] = [s if s.parent is None or s.parent < cap else s._replace(parent=None) for s in fx.symbols]
    fx.references = [r if r.from_symbol is None or r.from_symbol < cap else r._replace(from_symbol=owner[r.from_symbol])
                     for r in fx.references]
    fx.warnings.append(f"{fx.path}: {cap + dropped} symbols, more than the {cap} kept per file; "
                       f"the last {dropped} dropped (the text is still searched)")
