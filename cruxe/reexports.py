"""A Python package's public names, read at query time: which definition a qualified
`pkg.Name` means when the package re-exports it (`attr.evolve` is `attr/_funcs.py`'s, which
`attr/__init__.py` imports; `httpx.get` is `httpx/_api.py`'s, star-imported). locate_symbol,
search_code and find_references read a qualified name alike through it, from the index only
(the import edges the resolver stored, the files' indexed text).
"""
from __future__ import annotations

import posixpath
import re

from .filetext import file_text, line_of
from .languages.python import module_path
from .store import Generation, Symbol, chunks, edges_to

MAX_REEXPORT_CHECKS = 32  # module-level definitions of one name asked about (one indexed read each)
MAX_PACKAGE_DEPTH = 4  # packages above a module followed through their star imports
_STAR_IMPORT = re.compile(r"^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+\*", re.M)
_ALL_LIST = re.compile(r"^__all__\s*(?::[^=\n]*)?=\s*[\[(]([^\])]*)[\])]", re.M)


def reexported(gen: Generation, repo: str, ref: str, rows: list[Symbol], segments: list[str]) -> list[Symbol]:
    """The definitions among `rows` (named `segments[-1]`) that a qualified `pkg.Name` reaches
    through a module's imports, a Python module whose dotted path ends with the qualifier
    (case-insensitively, as `intent.qualified_matches` reads it) binding it:
    - by a module-level import resolved to the definition (through the chain of re-exports
      the resolver follows) under its own name: `attr.evolve` is `attr/_funcs.py`'s `evolve`
      that `attr/__init__.py` imports, not only the `.pyi` stub that declares it;
    - by star imports of the packages above its module, each module listing the name in its
      `__all__` when it has one: `httpx.get` is `httpx/_api.py`'s (`from ._api import *`).
    Only the module-level Python definitions of the name are asked about, at most
    MAX_REEXPORT_CHECKS."""
    qualifier = [s.lower() for s in segments[:-1]]
    if not qualifier:
        return []
    texts: dict[str, str | None] = {}

    def text_of(path: str) -> str | None:
        if path not in texts:
            texts[path] = file_text(gen, repo, ref, path)
        return texts[path]

    top = [r for r in rows if r.language == "python" and r.qualified_name == f"{module_path(r.path)}.{r.name}"]
    found = [row for row in top[:MAX_REEXPORT_CHECKS]
             if _imported_by(gen, repo, ref, row, qualifier) or _star_exported(row, qualifier, text_of)]
    # the import binds the name, not one of its definitions: an overloaded function's `@overload`
    # stubs and implementation (one path and qualified name) are all re-exported, whichever of
    # them the resolver tied the import to
    same = {(r.path, r.qualified_name) for r in found}
    return [r for r in top if (r.path, r.qualified_name) in same]


def _names_module(path: str, qualifier: list[str]) -> bool:
    return path.endswith((".py", ".pyi")) and module_path(path).lower().split(".")[-len(qualifier):] == qualifier


def _imported_by(gen: Generation, repo: str, ref: str, row: Symbol, qualifier: list[str]) -> bool:
    return any(site.from_symbol_id is None and _names_module(site.path, qualifier)
               and _binds_own_name(gen, repo, ref, site.path, site.line, row.name)
               for site in edges_to(gen, [row.symbol_id], "imports"))


def _binds_own_name(gen: Generation, repo: str, ref: str, path: str, line: int, name: str) -> bool:
    """The import written at `path:line` binds `name` as itself (`name` or `name as name`, not
    `name as other`); a line the index holds no text for is taken at its word."""
    text = line_of(chunks(gen, repo, ref, path, (line, line)), line) or ""
    alias = re.search(rf"\b{re.escape(name)}\s+as\s+(\w+)", text)
    return alias is None or alias.group(1) == name


def _star_exported(row: Symbol, qualifier: list[str], text_of) -> bool:
    """Whether the packages above `row`'s module star-import it, hop by hop up to one whose
    dotted path ends with `qualifier`, each module passing the name on (public, and in its
    `__all__` when it has one)."""
    if row.name.startswith("_"):
        return False
    module, directory = row.path, posixpath.dirname(row.path)
    for _ in range(MAX_PACKAGE_DEPTH):
        if not directory:
            return False
        init = f"{directory}/__init__.py"
        if init != module:
            text = text_of(init)  # the package first: most import no module with a star
            if text is None or not any(_star_target(m, init, module) for m in _STAR_IMPORT.findall(text)):
                return False
            passed = text_of(module)
            if passed is None or not _lists(passed, row.name):
                return False
            if _names_module(init, qualifier):
                return True
        module, directory = init, posixpath.dirname(directory)
    return False


def _lists(text: str, name: str) -> bool:
    """A module's star import passes `name` on: no `__all__` list, or one that names it."""
    m = _ALL_LIST.search(text)
    return m is None or re.search(rf"[\"']{re.escape(name)}[\"']", m.group(1)) is not None


def _star_target(written: str, init: str, module: str) -> bool:
    """`from <written> import *` in `init` imports `module` (a file path): relative to the
    package, or absolute by the module's dotted path."""
    dots = len(written) - len(written.lstrip("."))
    rest = written[dots:].split(".") if written[dots:] else []
    if dots:
        base = posixpath.dirname(init)
        for _ in range(dots - 1):
            base = posixpath.dirname(base)
        stem = posixpath.join(base, *rest)
        return module in (f"{stem}.py", f"{stem}.pyi", f"{stem}/__init__.py", f"{stem}/__init__.pyi")
    return module_path(module).split(".")[-len(rest):] == rest if rest else False
