"""Caller tasks: functions defined once in the corpus whose call sites an independent parse
finds and resolves unambiguously; truth = every non-test call site (file:line)."""
from __future__ import annotations

import ast
import collections
import random
import re
from pathlib import Path

from common import code_lines, file_lines, python_trees
from corpora import is_test_path

STDLIB_NAMES_CACHE: dict[frozenset[str], set[str]] = {}
MAX_SITES = 15  # find_references lists 20 by default; a few more than that would measure the limit


def _stdlib_names(ours: frozenset[str] = frozenset()) -> set[str]:
    """Names the Python stdlib defines outside the corpus (`ours`: the stdlib entries the corpus
    copies, for the holdout's py-std): an attribute call by such a name may not be ours."""
    if ours not in STDLIB_NAMES_CACHE:
        import sysconfig
        std = Path(sysconfig.get_paths()["stdlib"])
        names = STDLIB_NAMES_CACHE.setdefault(ours, set())
        for f in std.rglob("*.py"):
            if "site-packages" in f.parts or f.relative_to(std).parts[0] in ours:
                continue
            try:
                tree = ast.parse(f.read_bytes())
            except (SyntaxError, ValueError):
                continue
            names.update(n.name for n in ast.walk(tree)
                         if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)))
    return STDLIB_NAMES_CACHE[ours]


def python_calls(root: Path) -> tuple[dict[str, set[tuple[str, int, int]]], set[str]]:
    """name -> call sites (path, first line, line of the name) in non-test files: `name(...)`,
    `x.name(...)`, and calls through a `from ... import name as alias` alias. A chained call
    may span lines: any line from the call's start to its name identifies the site. Also the
    names bound by assignment, parameter or attribute store (calls by such a name may be to
    whatever was bound)."""
    calls: dict[str, set[tuple[str, int, int]]] = collections.defaultdict(set)
    bound: set[str] = set()
    for rel, tree in python_trees(root):
        alias = {a.asname: a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                 for a in n.names if a.asname}
        foreign = _foreign_imports(tree, root)
        for n in ast.walk(tree):
            if isinstance(n, ast.arg):
                bound.add(n.arg)
            elif isinstance(n, (ast.Name, ast.Attribute)) and isinstance(n.ctx, ast.Store):
                bound.add(n.id if isinstance(n, ast.Name) else n.attr)
            if not isinstance(n, ast.Call):
                continue
            if isinstance(n.func, ast.Name):
                calls[alias.get(n.func.id, n.func.id)].add((rel, n.func.lineno, n.func.lineno))
            elif isinstance(n.func, ast.Attribute):
                calls[n.func.attr].add((rel, n.lineno, n.func.end_lineno))
                if isinstance(n.func.value, ast.Name) and n.func.value.id in foreign:
                    bound.add(n.func.attr)  # `sqlite3.register_converter(...)` is not ours
    return calls, bound


def _foreign_imports(tree: ast.Module, root: Path) -> set[str]:
    """Local names a module binds to modules or objects from outside the corpus: imports, and
    module-level `x = foreign.f(...)` (`advapi32 = ctypes.WinDLL(...)`)."""
    tops = {p.name if p.is_dir() else p.stem for p in root.iterdir() if p.is_dir() or p.suffix == ".py"}
    names = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            names.update((a.asname or a.name).split(".")[0] for a in n.names if a.name.split(".")[0] not in tops)
        elif isinstance(n, ast.ImportFrom) and n.level == 0 and (n.module or "").split(".")[0] not in tops:
            names.update(a.asname or a.name for a in n.names)
    for n in tree.body:
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call):
            f = n.value.func
            while isinstance(f, ast.Attribute):
                f = f.value
            if isinstance(f, ast.Name) and f.id in names:
                names.update(t.id for t in n.targets if isinstance(t, ast.Name))
    return names


def _python(root: Path, rows: list[dict], n: int, rng: random.Random) -> list[tuple[dict, list]]:
    count = collections.Counter(r["name"] for r in rows)
    # the stdlib's own entries when the corpus is a copy of them (py-std); none for py-5k
    import sysconfig
    std_root = Path(sysconfig.get_paths()["stdlib"])
    std = _stdlib_names(frozenset(p.name for p in root.iterdir() if (std_root / p.name).exists()))
    calls, bound = python_calls(root)
    cands = sorted((r["path"], r["name"]) for r in rows
                   if count[r["name"]] == 1 and r["kind"] in ("function", "method") and len(r["name"]) >= 8
                   and not r["name"].startswith("__") and r["name"] not in std and r["name"] not in bound
                   and not is_test_path(r["path"])
                   and 2 <= len(calls.get(r["name"], ())) <= MAX_SITES)
    by_key = {(r["path"], r["name"]): r for r in rows}
    return sample_by_size([(by_key[k], sorted(calls[k[1]])) for k in cands], n, rng)


def sample_by_size(cands: list[tuple[dict, list]], n: int, rng: random.Random) -> list[tuple[dict, list]]:
    """Half the tasks from symbols with 4 or more call sites (most functions have two or three,
    and those say little about recall), half from the rest."""
    many = [c for c in cands if len(c[1]) >= 4]
    few = [c for c in cands if len(c[1]) < 4]
    k = min(len(many), n // 2)
    return rng.sample(many, k) + rng.sample(few, n - k)


# ---- Go, Rust, TypeScript: careful text search over code lines ----------------------------------

CALL_OR_NAME = re.compile(r"(?<![\w$])([A-Za-z_]\w*)(\s*(?:::<[^>]*>\s*)?\()?")
# lines that only name a symbol to bring it into scope: imports, re-exports, `use`, list items
IMPORT_LINE = re.compile(r"^\s*(import|export)\s*(type\s*)?[{*]|\bfrom\s+['\"]|^\s*(pub(\([\w:]+\))?\s+)?use\b|"
                         r"^\s*(type\s+)?\w+(\s+as\s+\w+)?,?\s*$")


TEXT_DEF = {"rust": re.compile(r"\bfn\s+(\w+)"), "go": re.compile(r"^\s*func\s+(?:\([^)]*\)\s*)?(\w+)")}


def _text_calls(root: Path, lang: str, names: set[str]):
    """name -> [(path, line, code before the call)] of `name(` occurrences, and name -> lines
    where the name appears otherwise (a binding, a field, a value: calls by that name may then
    be to something else), import-like lines left out."""
    calls: dict[str, list[tuple[str, int, str]]] = collections.defaultdict(list)
    other: dict[str, set[tuple[str, int]]] = collections.defaultdict(set)
    for rel, no, line in code_lines(root, lang):
        code = re.sub(r'"(?:[^"\\]|\\.)*"', '""', line)
        d = TEXT_DEF.get(lang) and TEXT_DEF[lang].search(code)
        if d and d.group(1) in names:  # a definition the oracle may not see (in a macro body)
            other[d.group(1)].add((rel, no))
            continue
        for m in CALL_OR_NAME.finditer(code):
            if m.group(1) not in names:
                continue
            if m.group(2):
                calls[m.group(1)].append((rel, no, code[:m.start()]))
            elif not IMPORT_LINE.search(code):
                other[m.group(1)].add((rel, no))
    return calls, other


KINDS = {"go": ("func", "method"), "rust": ("function", "method"), "typescript": ("function", "method")}


def _qualifier_ok(lang: str, before: str, row: dict, imported: frozenset[str] = frozenset()) -> bool:
    """A qualified call must name the definition's package/module (Go `pkg.F`, Rust `a::b::f`);
    method-style `.f(` and bare `f(` are accepted (the name is defined once in the corpus), except
    a Go method called through a package the file imports (`io.WriteString(w, s)` is package io's
    function, not a method of the corpus's one `WriteString`)."""
    if lang == "go":
        q = re.search(r"(\w+)\.$", before)
        if row["kind"] == "func":
            return q is None or q.group(1) == row["scope"]
        return (q is not None and q.group(1) not in imported) or before.rstrip().endswith(")")
    if lang == "rust":
        q = re.search(r"(\w+)::$", before)
        return q is None or q.group(1) in ("self", "super", "crate", row.get("scope") or "") \
            or q.group(1) in row["path"].replace(".rs", "").split("/")
    return not re.search(r"\bnew\s+$", before)


def _other(root: Path, lang: str, rows: list[dict], n: int, rng: random.Random) -> list[tuple[dict, list]]:
    count = collections.Counter(r["name"] for r in rows)
    pool = [r for r in rows if count[r["name"]] == 1 and r["kind"] in KINDS[lang] and len(r["name"]) >= 8
            and not is_test_path(r["path"]) and not r["name"].startswith("_")]
    found, other = _text_calls(root, lang, {r["name"] for r in pool})
    cands = []
    for r in sorted(pool, key=lambda r: (r["path"], r["name"])):
        own = range(r["line"], r.get("name_line", r["line"]) + 1)  # the definition's own lines
        if any(not (rel == r["path"] and no in own) for rel, no in other.get(r["name"], ())):
            continue
        sites, bad = [], False
        for rel, no, before in found.get(r["name"], ()):
            if (rel == r["path"] and no in own) or IMPORT_LINE.search(_line(root, rel, no)):
                continue
            if not _qualifier_ok(lang, before, r, _go_imports(root, rel) if lang == "go" else frozenset()):
                bad = True
                break
            sites.append((rel, no, no))
        sites = sorted(set(sites))
        if not bad and 2 <= len(sites) <= MAX_SITES:
            cands.append((r, sites))
    return sample_by_size(cands, n, rng)


_GO_IMPORT = re.compile(r'^\s*(?:import\s+)?(?:(\w+)\s+)?"([^"]+)"', re.M)


def _go_imports(root: Path, rel: str) -> frozenset[str]:
    """The package names a Go file imports (an alias, else the import path's last element)."""
    text = "\n".join(file_lines(str(root), rel))
    head = text.split("\nfunc ", 1)[0]
    return frozenset(alias or path.rsplit("/", 1)[-1] for alias, path in _GO_IMPORT.findall(head))


def _line(root: Path, rel: str, no: int) -> str:
    return file_lines(str(root), rel)[no - 1]


def rg_callers(name: str) -> list[str]:
    return ["-n", f"\\b{re.escape(name)}\\("]


def build(corpus: str, lang: str, root: Path, rows: list[dict], n: int) -> list[dict]:
    rng = random.Random(f"{corpus}/callers")
    picked = _python(root, rows, n, rng) if lang == "python" else _other(root, lang, rows, n, rng)
    tasks = []
    for r, sites in picked:
        tid = f"{corpus}/callers/{r['path']}:{r['name']}"
        with_path = int.from_bytes(tid.encode()[-2:], "big") % 2 == 0
        args = {"symbol_name": r["name"], **({"path": r["path"]} if with_path else {})}
        query = r["name"] + (f" (defined in {r['path']})" if with_path else "")
        how = ("Python ast: Call nodes by name, attribute or import alias, in non-test files; the name is "
               "defined once in the corpus and nowhere in the stdlib" if lang == "python" else
               "text search for `name(` over non-test code lines (comments, strings, definitions and imports "
               "left out, qualified calls checked against the defining package/module); the name is defined "
               "once in the corpus (oracle)")
        tasks.append({"id": tid, "corpus": corpus, "kind": "callers", "subkind": r["kind"],
                      "query": query, "tool": "find_references", "args": args,
                      "definition": {"path": r["path"], "line": r.get("name_line", r["line"])},
                      "expected": [{"path": p, "line_start": a, "line_end": b} for p, a, b in sites],
                      "rg": rg_callers(r["name"]),
                      "truth": how})
    return tasks
