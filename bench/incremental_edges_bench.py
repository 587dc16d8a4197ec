#!/usr/bin/env python3
"""Incremental syncs against a whole index: do the edges agree after edits that change types?

usage: python3 bench/incremental_edges_bench.py [--corpus django|py-5k|ts-real|go-5k|rs-5k] [--seed 1]
       [--edits 8] [--classes attr_type,...] [--work DIR] [--keep] [--branch]

A copy of a small real corpus (`django`: py-5k's Django tree; `py-5k`: Django and Salt, for the
syncs' cost at scale; `ts-real`, `go-5k`, `rs-5k`: the TypeScript, Go and Rust subsets of
bench/agent_tasks/corpora.py) is indexed once (home 0). Then, per class of edit, from a copy of
home 0 and the pristine tree: `--edits` seeded random edits of that class, each followed by an
incremental sync (`index.run_index`, the path `cruxe sync` and the watch take); then a fresh whole
index of the same tree in another home, and the two edge tables are diffed. An edge is compared
by what does not depend on row order or on the job that wrote it: its file, line, edge type,
name, receiver, the qualified name of the definition it stands in, its target's path and
qualified name, and its confidence (as multisets: one line may use a name twice). The tree is
restored before the next class.

Classes of edit (each changes type information some other file's edges can depend on; the
edit is chosen among the definitions the index lists, so it is real code):
  attr_type      an attribute's or field's declared or constructed type names another class
  return_type    a function's or method's return annotation names another class (added if none)
  base_list      a class's base list names another class
  typed_local    a local typed by an annotation or a constructor call gets another class
  import_target  an import takes the same name from another module that defines it
  method_added   a class with subclasses gains a method one of its ancestors has (an override)
  method_removed a method of a class with subclasses is deleted
  method_renamed a method of a class with subclasses is renamed (its callers are not)
Go (its default set: GO_CLASSES) reads these its own way: a struct's embedded fields are its
bases and "subclasses" are the structs that embed it; attr_type changes a struct field's type,
return_type a function's result, base_list an embedded field's type, typed_local a `var x T` or
`x := T{...}`, import_target aliases an import of a package of the repository to another one
that defines a name the file uses through it, method_added appends a method to an embedded
struct; and it has five classes of its own:
  embed_added    a struct embeds another struct of its package that has methods
  embed_removed  an embedded field goes
  receiver_type  a method's receiver becomes another struct of its package
  package_added  a package the files import from outside appears (a new directory, one file)
  package_removed a small package of the repository that other directories import goes
Rust (RUST_CLASSES): attr_type changes a struct field's type, return_type a `-> T`, typed_local
a `let x: T`, import_target a `use a::b::Name;` to another module of the crate that defines
Name, receiver_type an inherent `impl T {` to another type of the same file, method_added an
`impl T { fn name }` at the end of T's file of a name other files call, and method_removed /
method_renamed any type's method (Rust's resolver follows no base lists: no base_list class).
With `--branch`, the same edits are made on a git branch instead: the copy is a git repository
(one commit on `main`, checked out and indexed: the base), and per class a branch `feature` gets
the edits in a scratch worktree, each committed and followed by a sync of `feature`
(`run_index(ref="feature")`: an overlay over main, docs/ARCHITECTURE.md "Overlays"); then the
overlay's merged edges (its own files' edges, and the base's for the files the branch left alone
with the overlay's `base_edge_fixes` in place of the rows they fix: what find_references reads
through `store.layers`) are compared with a whole index of the branch's checkout, by file, line,
name, edge type and target (path and qualified name), split into the overlay's files and the
base's (`base_files`).

"another class": one whose name the same file already uses (defines or imports), so the edit
stays resolvable. One JSON object on stdout: per class, edits applied, edges compared, edges
differing (only in the synced index / only in the fresh one), sync time, and a few examples.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from agent_tasks.corpora import CORPORA  # noqa: E402

CLASSES = ("attr_type", "return_type", "base_list", "typed_local", "import_target", "method_added",
           "method_removed", "method_renamed")
TYPE_KINDS = ("class", "interface", "struct", "type_alias", "enum", "trait")
# Go's own classes: Go has no base lists or class bodies; a struct's embedded fields are its bases
# (their methods and fields are promoted), and a method belongs to its type by its receiver
GO_CLASSES = ("attr_type", "return_type", "base_list", "embed_added", "embed_removed", "receiver_type",
              "typed_local", "import_target", "method_added", "method_removed", "method_renamed", "package_added",
              "package_removed")
SOURCES = {"django": ("python", [("django", CORPORA["py-5k"][1][0][1])]), "py-5k": CORPORA["py-5k"],
           "ts-real": CORPORA["ts-real"], "go-5k": CORPORA["go-5k"], "rs-5k": CORPORA["rs-5k"]}
SUFFIX = {"python": (".py",), "typescript": (".ts", ".tsx"), "go": (".go",), "rust": (".rs",)}
# Rust's: no base lists either (a trait's methods are not followed through `impl Trait for T`);
# a type's methods are its impl blocks' items, in any module of its crate
RUST_CLASSES = ("attr_type", "return_type", "typed_local", "import_target", "receiver_type", "method_added",
                "method_removed", "method_renamed")
_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
# a Go struct's embedded field: a line that is a type alone (`*pkg.T`, `T[int]`, a tag, a comment)
_GO_EMBED = re.compile(r"^\s*\*?(?:\w+\.)?([A-Za-z_]\w*)(?:\[[^\]]*\])?\s*(?:`[^`]*`)?\s*(?://.*)?$")


# ---- the index's facts the edits are chosen from -----------------------------------------------

class Facts:
    """Definitions and subclass links of the pristine tree, read from home 0's index."""

    def __init__(self, repo: Path, home: Path):
        project, db = _open(repo, home)
        cols = "s.symbol_id, s.name, s.qualified_name, s.kind, f.path, s.line_start, s.line_end, s.parent_symbol_id, " \
               "coalesce(s.signature, '')"
        self.syms = [tuple(r) for r in db.execute(f"SELECT {cols} FROM symbols s JOIN paths f ON f.id = s.file_id "
                                                 "ORDER BY f.path, s.line_start, s.symbol_id")]
        self.by_id = {s[0]: s for s in self.syms}
        self.classes = [s for s in self.syms if s[3] in TYPE_KINDS]
        self.class_names = {s[1] for s in self.classes}
        self.members: dict[bytes, list[tuple]] = {}
        for s in self.syms:
            if s[7] is not None:
                self.members.setdefault(s[7], []).append(s)
        # subclass links: a class's own line names a resolved class (its base list; the edge stands
        # in the class or, since a definition's head is read in its enclosing scope, around it)
        self.subclasses: dict[bytes, list[tuple]] = {}
        for from_id, to_id in db.execute(
                "SELECT a.symbol_id, e.to_symbol_id FROM symbol_edges e JOIN symbols a ON a.file_id = e.file_id "
                "AND a.line_start = e.source_line JOIN symbols b ON b.symbol_id = e.to_symbol_id "
                f"WHERE a.kind IN {TYPE_KINDS} AND b.kind IN {TYPE_KINDS}"):
            if from_id != to_id:
                self.subclasses.setdefault(to_id, []).append(self.by_id[from_id])
        self.bases = {s[0]: b for b, subs in self.subclasses.items() for s in subs}
        if any(s[4].endswith(".go") for s in self.syms):
            self._go_types(repo, db)
        # top-level definitions by name: where an import could take a name from instead
        self.top = {}
        for s in self.syms:
            if s[7] is None:
                self.top.setdefault(s[1], []).append(s)
        self.imports = [tuple(r) for r in db.execute(
            "SELECT source_file, source_line, to_name, coalesce(module, '') FROM edges WHERE edge_type = 'imports' "
            "ORDER BY source_file, source_line, rowid")]

        self.go_dirs = {os.path.dirname(s[4]) for s in self.syms if s[4].endswith(".go")}
        self.method_names = {s[1] for s in self.syms if s[3] == "method"}
        # where names are used: by edges naming them, and inside edges' receivers
        self.used_in: dict[str, set[str]] = {}
        self.receiver_in: dict[str, set[str]] = {}
        for path, name, receiver in db.execute("SELECT source_file, to_tail, coalesce(receiver, '') FROM edges"):
            self.used_in.setdefault(name, set()).add(path)
            for w in set(_IDENT.findall(receiver)):
                self.receiver_in.setdefault(w, set()).add(path)
        del project

    def _go_types(self, repo: Path, db) -> None:
        """Go's members and bases: a method is its receiver type's (`pkg.T.M`, declared anywhere
        in T's directory), and a struct's embedded fields (a line that is a type alone) are its
        bases, read from its body's text and the type references the index resolved there."""
        types = {(os.path.dirname(s[4]), s[2]): s for s in self.classes if s[4].endswith(".go")}
        for s in self.syms:
            t = types.get((os.path.dirname(s[4]), s[2].rsplit(".", 1)[0])) if s[3] == "method" and s[7] is None else None
            if t is not None:
                self.members.setdefault(t[0], []).append(s)
        resolved = {(p, line, name): to for p, line, name, to in db.execute(
            "SELECT source_file, source_line, to_name, to_symbol_id FROM edges "
            "WHERE edge_type = 'references' AND to_symbol_id IS NOT NULL")}
        self.embeds: dict[bytes, list[int]] = {}  # struct id -> its embedded fields' lines
        for s in self.classes:
            if s[3] != "struct" or not s[4].endswith(".go"):
                continue
            lines = (repo / s[4]).read_text(errors="replace").split("\n")
            for line_no in range(s[5] + 1, min(s[6], len(lines) + 1)):
                m = _GO_EMBED.match(lines[line_no - 1])
                if m is None:
                    continue
                self.embeds.setdefault(s[0], []).append(line_no)
                to = resolved.get((s[4], line_no, m.group(1)))
                if to is not None and to != s[0] and to in self.by_id:
                    self.subclasses.setdefault(to, []).append(s)
                    self.bases.setdefault(s[0], to)

    def elsewhere(self, pool: list[tuple], rng: random.Random, uses: dict[str, set[str]],
                  where=lambda s: {s[4]}) -> list[tuple]:
        """`pool` shuffled, those whose name `uses` lists in files other than `where` first:
        an edit that another file's edges can depend on tells the most."""
        rng.shuffle(pool)
        return sorted(pool, key=lambda s: not (uses.get(s[1], set()) - where(s)))

    def ancestors_members(self, cls: tuple) -> list[tuple]:
        out, seen, cur = [], set(), self.bases.get(cls[0])
        while cur is not None and cur not in seen:
            seen.add(cur)
            out += [m for m in self.members.get(cur, []) if m[3] == "method"]
            cur = self.bases.get(cur)
        return out


# ---- edits -------------------------------------------------------------------------------------

class Tree:
    """The working copy: edits by line, files created and deleted, and the originals to restore
    (None: a file the edits created)."""

    def __init__(self, repo: Path):
        self.repo, self.original = repo, {}

    def lines(self, rel: str) -> list[str]:
        return (self.repo / rel).read_text().split("\n")

    def write(self, rel: str, lines: list[str]) -> None:
        p = self.repo / rel
        self.original.setdefault(rel, p.read_text() if p.exists() else None)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("\n".join(lines))

    def delete(self, rel: str) -> None:
        p = self.repo / rel
        self.original.setdefault(rel, p.read_text())
        p.unlink()

    def restore(self) -> None:
        for rel, text in self.original.items():
            p = self.repo / rel
            if text is None:
                p.unlink(missing_ok=True)
                while p.parent != self.repo and not any(p.parent.iterdir()):  # the directories it made
                    p = p.parent
                    p.rmdir()
            else:
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_text(text)
        self.original.clear()


def _other_class(rng: random.Random, tree: Tree, facts: Facts, rel: str, old: str) -> str | None:
    """A class name other than `old` that file `rel` already writes (defines or imports)."""
    used = sorted({w for w in _IDENT.findall((tree.repo / rel).read_text()) if w in facts.class_names} - {old})
    return rng.choice(used) if used else None


def _swap_type(rng, tree, facts, rel, line_no, pattern: re.Pattern) -> str | None:
    """On line `line_no` (1-based) of `rel`, the class name group 1 of `pattern` matches becomes
    another; the description of the edit, or None when the line has no such name."""
    lines = tree.lines(rel)
    if line_no > len(lines):
        return None
    m = pattern.search(lines[line_no - 1])
    if m is None or m.group(1) not in facts.class_names:
        return None
    new = _other_class(rng, tree, facts, rel, m.group(1))
    if new is None:
        return None
    text = lines[line_no - 1]
    lines[line_no - 1] = text[:m.start(1)] + new + text[m.end(1):]
    tree.write(rel, lines)
    return f"{rel}:{line_no} {m.group(1)} -> {new}"


_ATTR = {"python": re.compile(r"self\.\w+\s*(?::\s*|=\s*)([A-Z]\w*)\b"),
         "go": re.compile(r"^\s*\w+(?:\s*,\s*\w+)*\s+[*\[\]]*(?:\w+\.)?([A-Za-z_]\w*)\b"),
         "rust": re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?\w+\s*:\s*(?:&(?:'\w+\s+)?(?:mut\s+)?)?(?:[\w:]+::)?([A-Z]\w*)\b"),
         "typescript": re.compile(r"^\s*(?:(?:private|public|protected|readonly|static)\s+)*\w+[?!]?\s*:\s*([A-Z]\w*)\b")}
_LOCAL = {"python": re.compile(r"^\s+\w+\s*(?::\s*|=\s*)([A-Z]\w*)\b"),
          "typescript": re.compile(r"^\s+(?:const|let|var)\s+\w+\s*(?::\s*|=\s*new\s+)([A-Z]\w*)\b"),
          "go": re.compile(r"^\s+(?:var\s+\w+\s+\*?|\w+\s*:=\s*&?)(?:\w+\.)?([A-Za-z_]\w*)(?:\s*$|\{)"),
          "rust": re.compile(r"^\s+let\s+(?:mut\s+)?\w+\s*:\s*(?:&(?:mut\s+)?)?(?:[\w:]+::)?([A-Z]\w*)\b")}
_RETURN = {"python": re.compile(r"\)\s*->\s*([A-Z]\w*)\b"), "typescript": re.compile(r"\)\s*:\s*([A-Z]\w*)\b"),
           "go": re.compile(r"\)\s+\(?\*?(?:\w+\.)?([A-Za-z_]\w*)(?:\s*,[^)]*\))?\s*\{\s*$"),
           "rust": re.compile(r"\)\s*->\s*(?:&(?:'\w+\s+)?(?:mut\s+)?)?(?:[\w:]+::)?([A-Z]\w*)\b")}
_BASE = {"python": re.compile(r"^\s*class\s+\w+\((?:[\w.]+\.)?([A-Z]\w*)"),
         "typescript": re.compile(r"\b(?:extends|implements)\s+([A-Z]\w*)"), "go": _GO_EMBED}


def _struct_lines(rng, facts: Facts, lang: str, only_embeds: bool = False) -> list[tuple[str, int]]:
    """(path, line) of Go or Rust struct bodies' lines (or only Go's embedded fields'), the
    structs whose names other files use first."""
    structs = facts.elsewhere([s for s in facts.classes if s[3] == "struct" and s[4].endswith(SUFFIX[lang])], rng,
                              facts.used_in)
    return [(s[4], n) for s in structs
            for n in (facts.embeds.get(s[0], []) if only_embeds else range(s[5] + 1, s[6]))]


def edit_attr_type(rng, tree, facts, lang):
    if lang in ("go", "rust"):  # a struct field's type
        return next((d for p, n in _struct_lines(rng, facts, lang) if (d := _swap_type(rng, tree, facts, p, n, _ATTR[lang]))), None)
    pool = facts.elsewhere([s for s in facts.syms if s[3] in ("variable", "field", "property", "constant")
                            and s[7] is not None], rng, facts.receiver_in)
    return next((d for s in pool if (d := _swap_type(rng, tree, facts, s[4], s[5], _ATTR[lang]))), None)


def edit_return_type(rng, tree, facts, lang):
    pool = facts.elsewhere([s for s in facts.syms if s[3] in ("function", "method")], rng, facts.receiver_in)
    for s in pool:
        d = _swap_type(rng, tree, facts, s[4], s[5], _RETURN[lang])
        if d:
            return d
        if lang == "python" and s[3] == "method":  # none written: one is added
            lines = tree.lines(s[4])
            head = lines[s[5] - 1]
            new = _other_class(rng, tree, facts, s[4], "")
            if new and head.rstrip().endswith("):") and "->" not in head:
                lines[s[5] - 1] = head.rstrip()[:-1] + f" -> {new}:"
                tree.write(s[4], lines)
                return f"{s[4]}:{s[5]} + -> {new}"
    return None


def edit_base_list(rng, tree, facts, lang):
    if lang == "go":  # an embedded field's type
        return next((d for p, n in _struct_lines(rng, facts, lang, True) if (d := _swap_type(rng, tree, facts, p, n, _BASE[lang]))), None)
    pool = [c for c in facts.classes if c[0] in facts.bases]
    rng.shuffle(pool)
    pool.sort(key=lambda c: not any(s[4] != c[4] for s in facts.subclasses.get(c[0], [])))
    return next((d for s in pool if (d := _swap_type(rng, tree, facts, s[4], s[5], _BASE[lang]))), None)


def edit_typed_local(rng, tree, facts, lang):
    pool = [s for s in facts.syms if s[3] in ("function", "method") and s[6] > s[5] + 1]
    rng.shuffle(pool)
    for s in pool[:400]:
        for line_no in range(s[5] + 1, s[6] + 1):
            d = _swap_type(rng, tree, facts, s[4], line_no, _LOCAL[lang])
            if d:
                return d
    return None


def _module_of(path: str, lang: str) -> str:
    if lang == "python":
        mod = path[:-3].replace("/", ".")
        return mod[:-len(".__init__")] if mod.endswith(".__init__") else mod
    return re.sub(r"\.tsx?$", "", path)


def edit_import_target(rng, tree, facts, lang):
    pool = list(facts.imports)
    rng.shuffle(pool)
    tail = (lambda n: n.rsplit("::", 1)[-1]) if lang == "rust" else (lambda n: n)
    pool.sort(key=lambda i: not (facts.used_in.get(tail(i[2]), set()) - {i[0]}))
    for path, line, name, module in pool:
        if lang in ("go", "rust"):
            d = (_go_import_target if lang == "go" else _rust_import_target)(rng, tree, facts, path, line, name)
            if d:
                return d
            continue
        others = [s for s in facts.top.get(name, []) if s[4] != path and s[4].endswith(SUFFIX[lang])]
        if len(others) < 2:
            continue
        target = rng.choice(others)
        lines = tree.lines(path)
        text = lines[line - 1]
        if lang == "python":
            m = re.match(r"^(\s*from\s+)(\S+)(\s+import\s+)(.*)$", text)
            if not m or "(" in m.group(4) or name not in re.split(r"[\s,]+", m.group(4)):
                continue
            new_mod = _module_of(target[4], lang)
            if new_mod == module or m.group(2).lstrip(".") and new_mod.endswith(m.group(2).lstrip(".")):
                continue
            names = [n for n in re.split(r"\s*,\s*", m.group(4).strip()) if n and n != name]
            lines[line - 1] = (m.group(1) + m.group(2) + m.group(3) + ", ".join(names)) if names else ""
            indent = re.match(r"\s*", text).group(0)
            lines.insert(line, f"{indent}from {new_mod} import {name}")
        else:
            m = re.match(r"^(\s*import\s*(?:type\s*)?\{)([^}]*)(\}\s*from\s*)(['\"])([^'\"]+)(['\"];?)\s*$", text)
            if not m or name not in [n.strip() for n in m.group(2).split(",")]:
                continue
            rel = os.path.relpath(_module_of(target[4], lang), os.path.dirname(path))
            rel = rel if rel.startswith(".") else "./" + rel
            if m.group(5).endswith(".js"):
                rel += ".js"
            if rel == m.group(5):
                continue
            names = [n.strip() for n in m.group(2).split(",") if n.strip() and n.strip() != name]
            lines[line - 1] = f"{m.group(1)} {', '.join(names)} {m.group(3)}{m.group(4)}{m.group(5)}{m.group(6)}" \
                if names else ""
            lines.insert(line, f"import {{ {name} }} from '{rel}';")
        tree.write(path, lines)
        return f"{path}:{line} {name}: {module} -> {target[4]}"
    return None


def _with_subclasses(facts: Facts) -> list[tuple]:
    return [c for c in facts.classes if c[0] in facts.subclasses]


def _class_body_line(tree: Tree, cls: tuple, lang: str) -> tuple[int, str] | None:
    """Where a new member goes (0-based index to insert at) and its indentation."""
    lines = tree.lines(cls[4])
    for i in range(cls[5] - 1, min(cls[6], len(lines))):
        if lang == "python" and lines[i].rstrip().endswith(":") and re.match(r"\s*class\b", lines[i]):
            nxt = next((ln for ln in lines[i + 1:cls[6]] if ln.strip()), "")
            return i + 1, re.match(r"\s*", nxt).group(0) or "    "
        if lang == "typescript" and lines[i].rstrip().endswith("{"):
            nxt = next((ln for ln in lines[i + 1:cls[6]] if ln.strip()), "  ")
            return i + 1, re.match(r"\s*", nxt).group(0) or "  "
    return None


def edit_method_added(rng, tree, facts, lang):
    if lang == "rust":
        return _rust_method_added(rng, tree, facts)
    pool = _with_subclasses(facts)
    rng.shuffle(pool)
    pool.sort(key=lambda c: not any(s[4] != c[4] for s in facts.subclasses.get(c[0], [])))
    for cls in pool:
        own = {m[1] for m in facts.members.get(cls[0], [])}
        inherited = sorted({m[1] for m in facts.ancestors_members(cls)} - own)
        if lang == "go":
            d = _go_method_added(rng, tree, facts, cls, own, inherited)
            if d:
                return d
            continue
        if not inherited or cls[3] != "class":
            continue
        at = _class_body_line(tree, cls, lang)
        if at is None:
            continue
        subfiles = {s[4] for s in facts.subclasses[cls[0]]}
        name = rng.choice([n for n in inherited if facts.used_in.get(n, set()) & subfiles] or inherited)
        lines = tree.lines(cls[4])
        body = ([f"{at[1]}def {name}(self, *args, **kwargs):", f"{at[1]}    return None", ""] if lang == "python"
                else [f"{at[1]}{name}(...args: any[]): any {{", f"{at[1]}  return undefined;", f"{at[1]}}}"])
        lines[at[0]:at[0]] = body
        tree.write(cls[4], lines)
        return f"{cls[4]}:{cls[5]} {cls[1]} + {name}"
    return None


def _go_method_added(rng, tree, facts, cls, own: set[str], inherited: list[str]) -> str | None:
    """A Go struct that is embedded elsewhere gains a method (at the end of its file): one its own
    embedded types promote, else one of another type that its embedders' files call."""
    if cls[3] != "struct" or "[" in cls[8]:
        return None
    subfiles = {s[4] for s in facts.subclasses[cls[0]]}
    called = sorted(n for n in facts.method_names - own if facts.used_in.get(n, set()) & subfiles)
    names = [n for n in inherited if facts.used_in.get(n, set()) & subfiles] or inherited or called
    if not names:
        return None
    name = rng.choice(names)
    lines = tree.lines(cls[4])
    lines += ["", f"func (*{cls[1]}) {name}(...interface{{}}) interface{{}} {{ return nil }}"]
    tree.write(cls[4], lines)
    return f"{cls[4]}:{cls[5]} {cls[1]} + {name}"


def _rust_types(facts: Facts) -> list[tuple]:
    """Rust structs and enums that take no generic parameters (`impl T` needs none)."""
    return [c for c in facts.classes if c[3] in ("struct", "enum") and c[4].endswith(".rs") and "<" not in c[8]]


def _rust_method_added(rng, tree, facts) -> str | None:
    """A Rust type gains a method (an impl block at the end of its file) of a name that other
    files call: the method of that name elsewhere is no longer the only one."""
    pool = facts.elsewhere(_rust_types(facts), rng, facts.used_in)
    for cls in pool:
        own = {m[1] for m in facts.members.get(cls[0], [])}
        names = sorted(n for n in facts.method_names - own if facts.used_in.get(n, set()) - {cls[4]}
                       and n.isidentifier())
        if not names:
            continue
        name = rng.choice(names)
        lines = tree.lines(cls[4])
        lines += ["", f"impl {cls[1]} {{", f"    pub fn {name}(&self) {{}}", "}", ""]
        tree.write(cls[4], lines)
        return f"{cls[4]}:{cls[5]} {cls[1]} + {name}"
    return None


def _subclass_methods(facts: Facts, rng: random.Random, lang: str = "") -> list[tuple]:
    """Methods of classes with subclasses, those named in the subclasses' other files first
    (Rust: methods of any type, those named in other files first)."""
    if lang == "rust":
        return facts.elsewhere([m for m in facts.syms if m[3] == "method" and m[7] is not None
                                and m[4].endswith(".rs")], rng, facts.used_in)
    pool = [(m, {s[4] for s in facts.subclasses[c[0]]}) for c in _with_subclasses(facts)
            for m in facts.members.get(c[0], []) if m[3] == "method" and not m[1].startswith("__")]
    rng.shuffle(pool)
    return [m for m, subs in sorted(pool, key=lambda p: not (facts.used_in.get(p[0][1], set()) & (p[1] - {p[0][4]})))]


def edit_method_removed(rng, tree, facts, lang):
    for m in _subclass_methods(facts, rng, lang):
        lines = tree.lines(m[4])
        start = m[5] - 1
        while start > 0 and lines[start - 1].strip().startswith("@"):
            start -= 1
        if lang == "python" and not re.match(r"\s*(async\s+)?def\b", lines[m[5] - 1]):
            continue
        indent = re.match(r"\s*", lines[m[5] - 1]).group(0)
        # Go: blank lines in its place, so that the index's line numbers of the file's other
        # definitions stay true for later edits
        filler = [f"{indent}pass"] if lang == "python" else [""] * (m[6] - start) if lang in ("go", "rust") else []
        lines[start:m[6]] = filler
        tree.write(m[4], lines)
        return f"{m[4]}:{m[5]} - {m[2]}"
    return None


def edit_method_renamed(rng, tree, facts, lang):
    for m in _subclass_methods(facts, rng, lang):
        lines = tree.lines(m[4])
        text = lines[m[5] - 1]
        pat = re.compile(rf"(\bdef\s+){re.escape(m[1])}\b" if lang == "python"
                         else rf"^(func\s*\([^)]*\)\s*){re.escape(m[1])}(?=\s*[(\[])" if lang == "go"
                         else rf"(\bfn\s+){re.escape(m[1])}\b" if lang == "rust"
                         else rf"^(\s*(?:\w+\s+)*){re.escape(m[1])}(?=\s*[(<])")
        hit = pat.search(text)
        if hit is None:
            continue
        new = m[1] + "_renamed"
        lines[m[5] - 1] = text[:hit.end(1)] + new + text[hit.end():]
        tree.write(m[4], lines)
        return f"{m[4]}:{m[5]} {m[1]} -> {new}"
    return None


def _go_structs(facts: Facts) -> dict[str, list[tuple]]:
    """directory -> its Go structs that take no type parameters."""
    out: dict[str, list[tuple]] = {}
    for c in facts.classes:
        if c[3] == "struct" and c[4].endswith(".go") and "[" not in c[8]:
            out.setdefault(os.path.dirname(c[4]), []).append(c)
    return out


def edit_embed_added(rng, tree, facts, lang):
    """A Go struct gains an embedded field: another struct of its package that has methods."""
    if lang != "go":
        return None
    structs = _go_structs(facts)
    pool = facts.elsewhere([c for cs in structs.values() for c in cs if c[6] > c[5]], rng, facts.used_in)
    for cls in pool:
        others = [c for c in structs[os.path.dirname(cls[4])] if c[0] != cls[0] and facts.members.get(c[0])]
        lines = tree.lines(cls[4])
        if not others or not lines[cls[5] - 1].rstrip().endswith("{"):
            continue
        new = rng.choice(others)
        lines[cls[5]:cls[5]] = [f"\t{new[1]}"]
        tree.write(cls[4], lines)
        return f"{cls[4]}:{cls[5]} {cls[1]} + embeds {new[1]}"
    return None


def edit_embed_removed(rng, tree, facts, lang):
    """A Go struct's embedded field goes (a blank line in its place: line numbers stay)."""
    if lang != "go":
        return None
    for path, line_no in _struct_lines(rng, facts, lang, True):
        lines = tree.lines(path)
        if line_no > len(lines) or not _GO_EMBED.match(lines[line_no - 1]):
            continue
        was = lines[line_no - 1].strip()
        lines[line_no - 1] = ""
        tree.write(path, lines)
        return f"{path}:{line_no} - embeds {was}"
    return None


_GO_RECEIVER = re.compile(r"^func\s*\(\s*(?:\w+\s+)?\*?\s*(\w+)\s*\)")


def _rust_impl_moved(rng, tree, facts) -> str | None:
    """A Rust inherent impl block (`impl T {`) becomes another type's of the same file: its
    methods move to that type."""
    by_file: dict[str, list[tuple]] = {}
    for c in _rust_types(facts):
        by_file.setdefault(c[4], []).append(c)
    pool = facts.elsewhere([c for cs in by_file.values() if len(cs) > 1 for c in cs if facts.members.get(c[0])],
                           rng, facts.used_in)
    for cls in pool:
        lines = tree.lines(cls[4])
        pat = re.compile(rf"^(impl\s+){re.escape(cls[1])}(\s*\{{\s*)$")
        at = next((i for i, text in enumerate(lines) if pat.match(text)), None)
        if at is None:
            continue
        new = rng.choice([c for c in by_file[cls[4]] if c[0] != cls[0]])[1]
        lines[at] = pat.sub(rf"\g<1>{new}\g<2>", lines[at])
        tree.write(cls[4], lines)
        return f"{cls[4]}:{at + 1} impl {cls[1]} -> impl {new}"
    return None


def edit_receiver_type(rng, tree, facts, lang):
    """A Go method moves to another struct of its package (its receiver's type changes); in
    Rust, an inherent impl block to another type."""
    if lang == "rust":
        return _rust_impl_moved(rng, tree, facts)
    if lang != "go":
        return None
    structs = _go_structs(facts)
    pool = facts.elsewhere([s for s in facts.syms if s[3] == "method" and s[7] is None and s[4].endswith(".go")],
                           rng, facts.used_in)
    for m in pool:
        lines = tree.lines(m[4])
        hit = _GO_RECEIVER.match(lines[m[5] - 1]) if m[5] <= len(lines) else None
        if hit is None:
            continue
        others = [c for c in structs.get(os.path.dirname(m[4]), []) if c[1] != hit.group(1)
                  and m[1] not in {x[1] for x in facts.members.get(c[0], [])}]
        if not others:
            continue
        new = rng.choice(others)[1]
        text = lines[m[5] - 1]
        lines[m[5] - 1] = text[:hit.start(1)] + new + text[hit.end(1):]
        tree.write(m[4], lines)
        return f"{m[4]}:{m[5]} {m[2]}: receiver {hit.group(1)} -> {new}"
    return None


_GO_IMPORT = re.compile(r'^(\s*(?:import\s+)?)(\w+\s+)?"([^"]+)"(.*)$')


def _go_import_target(rng, tree, facts, path: str, line: int, import_path: str) -> str | None:
    """A Go import of a package of the repository takes another package that defines one of
    the names the file uses through it (an alias keeps the name it binds)."""
    lines = tree.lines(path)
    m = _GO_IMPORT.match(lines[line - 1]) if line <= len(lines) else None
    if m is None or m.group(3) != import_path or import_path not in facts.go_dirs:
        return None
    bound = (m.group(2) or "").strip() or os.path.basename(import_path)
    used = _go_uses_through(tree, {path}, bound)
    others = sorted({os.path.dirname(s[4]) for n in used for s in facts.top.get(n, [])
                     if s[4].endswith(".go")} - {import_path})
    if not others:
        return None
    target = rng.choice(others)
    lines[line - 1] = f'{m.group(1)}{bound} "{target}"{m.group(4)}'
    tree.write(path, lines)
    return f"{path}:{line} {bound}: {import_path} -> {target}"


def _go_uses_through(tree: Tree, files: set[str], bound: str) -> list[str]:
    """The exported names `files` use through the package name `bound` (`bound.Name`)."""
    pat = re.compile(rf"\b{re.escape(bound)}\.([A-Z]\w*)")
    return sorted({n for f in sorted(files) for n in pat.findall((tree.repo / f).read_text(errors="replace"))})


def edit_package_added(rng, tree, facts, lang):
    """A package the repository's files import from outside appears in the repository (a new
    directory, one file defining one of the names they use through it): their imports and
    qualified uses now name it."""
    if lang != "go":
        return None
    importers: dict[str, set[str]] = {}
    for path, _, to, _ in facts.imports:
        if path.endswith(".go") and to not in facts.go_dirs and "." not in to.split("/")[0]:
            importers.setdefault(to, set()).add(path)
    pool = sorted(importers)
    rng.shuffle(pool)
    for to in pool:
        bound = os.path.basename(to)
        used = _go_uses_through(tree, importers[to], bound) if bound.isidentifier() else []
        rel = f"{to}/{bound}.go"
        if not used or (tree.repo / rel).exists():
            continue
        name = rng.choice(used)
        tree.write(rel, [f"package {bound}", "", f"func {name}() {{}}", ""])
        return f"{rel} + {name} ({len(importers[to])} importers)"
    return None


def edit_package_removed(rng, tree, facts, lang):
    """A small package of the repository that other directories import goes (every file of its
    directory deleted)."""
    if lang != "go":
        return None
    files: dict[str, set[str]] = {}
    for s in facts.syms:
        if s[4].endswith(".go"):
            files.setdefault(os.path.dirname(s[4]), set()).add(s[4])
    importers = {to for path, _, to, _ in facts.imports if to in files and os.path.dirname(path) != to}
    pool = sorted(d for d in importers if len(files[d]) <= 3 and all((tree.repo / f).exists() for f in files[d]))
    rng.shuffle(pool)
    for d in pool:
        for f in sorted(files[d]):
            tree.delete(f)
        return f"{d}/ - {len(files[d])} files"
    return None


_RUST_USE = re.compile(r"^(\s*(?:pub(?:\([^)]*\))?\s+)?use\s+)([\w:]+)::(\w+)(\s*;\s*)$")


def _rust_import_target(rng, tree, facts, path: str, line: int, to_name: str) -> str | None:
    """A Rust `use a::b::Name;` takes Name from another module of its crate that defines it."""
    from cruxe.crates import crate_of
    lines = tree.lines(path)
    m = _RUST_USE.match(lines[line - 1]) if line <= len(lines) else None
    if m is None or f"{m.group(2)}::{m.group(3)}" != to_name:
        return None
    name, crate = m.group(3), crate_of(path)
    others = sorted({s[2].rsplit("::", 1)[0] if "::" in s[2] else "" for s in facts.top.get(name, [])
                     if s[4].endswith(".rs") and crate_of(s[4]) == crate and s[3] not in ("module", "method")})
    # another module, not the same one named otherwise (`self::x` in `a/mod.rs` is `crate::a::x`)
    others = [o for o in others if o.rsplit("::", 1)[-1] != m.group(2).rsplit("::", 1)[-1]]
    if not others:
        return None
    module = rng.choice(others)
    lines[line - 1] = f"{m.group(1)}crate::{module + '::' if module else ''}{name}{m.group(4)}"
    tree.write(path, lines)
    return f"{path}:{line} {name}: {m.group(2)} -> crate::{module}"


EDITS = {"attr_type": edit_attr_type, "return_type": edit_return_type, "base_list": edit_base_list,
         "typed_local": edit_typed_local, "import_target": edit_import_target, "method_added": edit_method_added,
         "method_removed": edit_method_removed, "method_renamed": edit_method_renamed, "embed_added": edit_embed_added,
         "embed_removed": edit_embed_removed, "receiver_type": edit_receiver_type, "package_added": edit_package_added,
         "package_removed": edit_package_removed}


# ---- indexes and their edges -------------------------------------------------------------------

# per sync: (seconds in resolve_edges, edges the incremental resolution looked at)
RESOLUTIONS: list[tuple[float, int]] = []
# per overlay resolution: seconds in its fixes of base edges (`refs.resolve._fix_base_edges`)
FIX_TIMES: list[float] = []


def _spy_resolution() -> None:
    """Time each resolution and count the edges an incremental one retries (the job imports
    `resolve_edges` from cruxe.refs at call time, and it calls `_resolve_incremental`)."""
    import cruxe.refs as refs
    from cruxe.refs import resolve as mod
    resolve, incremental = refs.resolve_edges, mod._resolve_incremental
    seen: list[int] = []

    def timed(*a, **k):
        seen.clear()
        t = time.perf_counter()
        try:
            return resolve(*a, **k)
        finally:
            RESOLUTIONS.append((time.perf_counter() - t, seen[0] if seen else -1))

    def counted(*a, **k):
        out = incremental(*a, **k)
        seen.append(out[0])
        return out
    refs.resolve_edges, mod._resolve_incremental = timed, counted
    fix = mod._fix_base_edges

    def fixing(*a, **k):
        t = time.perf_counter()
        try:
            return fix(*a, **k)
        finally:
            FIX_TIMES.append(time.perf_counter() - t)
    mod._fix_base_edges = fixing


def index(repo: Path, home: Path, ref: str | None = None) -> float:
    from cruxe.index import run_index
    os.environ["CRUXE_HOME"] = str(home)
    t = time.perf_counter()
    run_index(repo, home=home, **({"ref": ref} if ref else {}))
    return time.perf_counter() - t


def _open(repo: Path, home: Path):
    """(the project, its live generation's database): the project keeps the database open."""
    from cruxe.project import open_project
    os.environ["CRUXE_HOME"] = str(home)
    project = open_project(repo)
    gen = project.store.current_generation("live") or project.store.current_generation("main")  # main: --branch
    return project, gen.db


def edges(repo: Path, home: Path) -> Counter:
    project, db = _open(repo, home)
    q = ("SELECT v.source_file, v.source_line, v.edge_type, v.to_name, coalesce(v.receiver, ''), "
         "coalesce(a.qualified_name, ''), coalesce(tf.path, ''), coalesce(t.qualified_name, ''), "
         "coalesce(v.confidence, '') FROM edges v JOIN symbol_edges e ON e.rowid = v.rowid "
         "LEFT JOIN symbols a ON a.symbol_id = e.from_symbol_id LEFT JOIN symbols t ON t.symbol_id = e.to_symbol_id "
         "LEFT JOIN paths tf ON tf.id = t.file_id")
    return Counter(tuple(r) for r in db.execute(q))


def _median(values: list) -> float | None:
    return round(sorted(values)[len(values) // 2], 3) if values else None


def run_class(name, rng, work, repo, home0, facts, lang, n_edits) -> dict:
    tree = Tree(repo)
    synced, fresh = work / f"home-{name}", work / f"fresh-{name}"
    shutil.copytree(home0, synced)
    applied, sync_s, resolutions = [], [], []
    try:
        for _ in range(n_edits):
            d = EDITS[name](rng, tree, facts, lang)
            if d is None:
                break
            applied.append(d)
            RESOLUTIONS.clear()
            sync_s.append(index(repo, synced))
            resolutions.extend(RESOLUTIONS)
        a = edges(repo, synced)
        index(repo, fresh)
        b = edges(repo, fresh)
    finally:
        tree.restore()
    only_synced, only_fresh = a - b, b - a
    out = {"edits": len(applied), "edges_compared": sum(b.values()),
           "edges_differing": sum(only_synced.values()) + sum(only_fresh.values()),
           "only_synced": sum(only_synced.values()), "only_fresh": sum(only_fresh.values()),
           "sync_s_median": _median(sync_s), "sync_s_max": round(max(sync_s), 3) if sync_s else None,
           "resolution_s_median": _median([r[0] for r in resolutions]),
           "edges_retried_median": _median([r[1] for r in resolutions]),
           "edges_retried_max": max((r[1] for r in resolutions), default=None),
           "applied": applied,
           "examples": {"synced": [list(k) for k in sorted(only_synced)[:4]],
                        "fresh": [list(k) for k in sorted(only_fresh)[:4]]}}
    shutil.rmtree(synced, ignore_errors=True)
    shutil.rmtree(fresh, ignore_errors=True)
    return out


def _diff(mine: Counter, truth: Counter) -> dict:
    only_mine, only_truth = mine - truth, truth - mine
    return {"edges_compared": sum(truth.values()),
            "edges_differing": sum(only_mine.values()) + sum(only_truth.values()),
            "only_overlay": sum(only_mine.values()), "only_whole": sum(only_truth.values()),
            "examples": {"overlay": [list(k) for k in sorted(only_mine, key=str)[:4]],
                         "whole": [list(k) for k in sorted(only_truth, key=str)[:4]]}}


def overlay_against_whole(repo: Path, whole: Path) -> dict:
    """feature's merged edges (`branch_sync_bench`'s reading: the overlay's files' edges, the
    base's for the rest, neither changed nor deleted on the branch, with the overlay's fixes
    applied) against the whole index `whole`."""
    from branch_sync_bench import _edge_answers, _fixes, _targets
    from cruxe.project import open_project
    store = open_project(repo).store
    overlay = store.current_generation("feature").path / "index.db"
    base = store.current_generation("main").path / "index.db"
    con = sqlite3.connect(f"file:{overlay}?mode=ro", uri=True)
    try:
        paths = {p for (p,) in con.execute("SELECT path FROM file_manifest")}
        # and its tombstones (paths the branch deleted: the base's edges there are not read)
        record = con.execute("SELECT value FROM meta WHERE key = 'overlay'").fetchone()
        shadow = frozenset(paths | set(json.loads(record[0])["paths"] if record else ()))
    finally:
        con.close()
    targets, truth_targets, fixes = _targets([base, overlay]), _targets([whole]), _fixes(overlay)
    files = _diff(_edge_answers(overlay, targets, paths), _edge_answers(whole, truth_targets, paths))
    rest = _diff(_edge_answers(base, targets, None, shadow, fixes),
                 _edge_answers(whole, truth_targets, None, shadow))
    return {"overlay_files": files, "base_files": {**rest, "fixes": len(fixes)}}


def run_class_branch(name, rng, work, repo, home0, facts, lang, n_edits) -> dict:
    """`--branch`: the class's edits committed on `feature` (a scratch worktree off main), the
    branch synced as an overlay after each, then compared with a whole index of its checkout."""
    from branch_sync_bench import git, whole_index_of
    from cruxe.freshness import index_state
    from cruxe.index import run_index
    from cruxe.project import open_project
    synced, scratch = work / f"home-{name}", work / f"wt-{name}"
    shutil.copytree(home0, synced)
    git(repo, "worktree", "add", "-q", "-b", "feature", str(scratch), "main")
    tree, applied, sync_s, resolutions = Tree(scratch), [], [], []
    try:
        index(repo, synced, ref="feature")  # the branch's first index: an overlay of nothing yet
        for _ in range(n_edits):
            d = EDITS[name](rng, tree, facts, lang)
            if d is None:
                break
            applied.append(d)
            git(scratch, "add", "-A")  # and the files an edit created
            git(scratch, "commit", "-qm", d)
            RESOLUTIONS.clear()
            sync_s.append(index(repo, synced, ref="feature"))
            resolutions.extend(RESOLUTIONS)
        storage = index_state(open_project(repo), "feature").storage
        whole = whole_index_of(scratch, work / f"fresh-{name}", run_index)
        found = overlay_against_whole(repo, whole)
    finally:
        git(repo, "worktree", "remove", "--force", str(scratch))
        git(repo, "branch", "-D", "feature")
    out = {"edits": len(applied), "storage": storage,
           "edges_compared": found["overlay_files"]["edges_compared"] + found["base_files"]["edges_compared"],
           "edges_differing": found["overlay_files"]["edges_differing"] + found["base_files"]["edges_differing"],
           **found, "sync_s_median": _median(sync_s), "sync_s_max": round(max(sync_s), 3) if sync_s else None,
           "resolution_s_median": _median([r[0] for r in resolutions]),
           "fix_s_median": _median(FIX_TIMES[-len(sync_s):] if sync_s else []), "applied": applied}
    shutil.rmtree(synced, ignore_errors=True)
    shutil.rmtree(work / f"fresh-{name}", ignore_errors=True)
    return out


def _git_base(repo: Path) -> None:
    """The copy as a git repository, one commit on `main` (`--branch`)."""
    from branch_sync_bench import git
    if not (repo / ".git").exists():
        git(repo, "init", "-q", "-b", "main")
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "base")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", choices=sorted(SOURCES), default="django")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--edits", type=int, default=8, help="edits per class, each followed by a sync")
    ap.add_argument("--classes", help="comma-separated (default: every class of the corpus's language)")
    ap.add_argument("--work", type=Path, help="work directory (default: a temporary one, removed)")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    ap.add_argument("--branch", action="store_true", help="edits on a branch synced as an overlay (see above)")
    a = ap.parse_args()
    lang, parts = SOURCES[a.corpus]
    work = a.work or Path(tempfile.mkdtemp(prefix="cruxe-incr-edges-"))
    repo = work / "repo"
    try:
        if not repo.exists():
            for dest, src in parts:
                shutil.copytree(src, repo / dest, symlinks=True, ignore=shutil.ignore_patterns("__pycache__", ".git"))
        if a.branch:
            _git_base(repo)
        _spy_resolution()
        home0 = work / "home0"
        if home0.exists():
            shutil.rmtree(home0)
        t0 = index(repo, home0)
        facts = Facts(repo, home0)
        out = {"corpus": a.corpus, "branch": a.branch, "seed": a.seed, "edits_per_class": a.edits, "date": time.strftime("%Y-%m-%d %H:%M"),
               "load": os.getloadavg()[0], "first_index_s": round(t0, 1), "classes": {}}
        classes = a.classes.split(",") if a.classes else {"go": GO_CLASSES, "rust": RUST_CLASSES}.get(lang, CLASSES)
        for name in classes:
            rng = random.Random(f"{a.seed}-{name}")
            out["classes"][name] = (run_class_branch if a.branch else run_class)(name, rng, work, repo, home0, facts, lang, a.edits)
            print(f"{name}: {json.dumps({k: v for k, v in out['classes'][name].items() if k not in ('applied', 'examples', 'overlay_files', 'base_files')})}",
                  file=sys.stderr)
        out["total"] = {k: sum(c[k] for c in out["classes"].values())
                        for k in ("edits", "edges_compared", "edges_differing")}
        print(json.dumps(out, indent=1))
    finally:
        if not a.keep and a.work is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
