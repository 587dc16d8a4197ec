#!/usr/bin/env python3
"""Rust definitions written inside item-level macro bodies (`cfg_rt! { pub fn spawn() {} }`):
how many a text scan independent of Cruxe finds, how many Cruxe extracts, and how many
`locate_symbol NAME` answers at the right file and line.

usage: PYTHONPATH=<checkout> python3 bench/rust_macro_items.py DIR [--work WORK] [--json OUT]

The oracle is a character scanner (no tree-sitter, no Cruxe): it skips comments, strings and char
literals, and gives each `{` a context from the text before it since the last `;`, `{` or `}`:
- item level: the file, and the bodies of `mod`, `impl`, `trait` and `extern` blocks;
- an item-level macro body: `name! {` or `path::name! {` opened at item level (`macro_rules!`
  bodies are templates and do not count), itself item level;
- a `cfg_if!` branch: `if #[..] {`, `else if #[..] {` or `else {` opened directly in an item-level
  macro body, itself item level (and a macro body for what follows);
- code: anything else (function bodies, struct fields, expressions).
A definition is a `fn`/`struct`/`enum`/`union`/`trait`/`type`/`mod`/`const`/`static` keyword
followed by its name (`static ref NAME`, as `lazy_static!` writes it, included), at item level
with an item-level macro body among its enclosing braces (`impl X { .. }` inside a body included).
Its line is the name's line. Each is of one form: `static_ref`, else `cfg_if` (inside a `cfg_if!`
branch), else `macro`; the summary gives the figures per form too.

Cruxe's side: the extraction of each file (`cruxe.extract.extract`, the code on PYTHONPATH) holds
a symbol of that name at that name line ("extracted"); and over an index of DIR built in
WORK (default a temporary directory), `locate_symbol {"name": NAME, "limit": 10}` lists a
result in that file whose lines hold the definition's line: first ("top-1") or among the ten.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator

_KEYWORDS = "fn|struct|enum|union|trait|type|mod|const|static"
_DEF = re.compile(rf"\b({_KEYWORDS})\s+(mut\s+|ref\s+)?(?!(?:{_KEYWORDS}|unsafe|extern|async)\b)([A-Za-z_][A-Za-z0-9_]*)")
_MACRO = re.compile(r"(?:^|[^\w:!])((?:[A-Za-z_]\w*::)*([A-Za-z_]\w*))\s*!\s*$")
_CONTAINER = re.compile(r"^(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?(?:unsafe\s+)?"
                        r"(?:impl\b|mod\s|trait\s|extern\b)")
_BRANCH = re.compile(r"^(?:(?:else\s+)?if\s*#\s*\[[^\]]*\]|else)$")
ITEM, MACRO_BODY, BRANCH, CODE = "item", "macro", "cfg_if", "code"


def _strip(src: str) -> str:
    """`src` with comments, strings and char literals blanked (newlines kept, so lines count)."""
    out = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif src.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if src.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif src.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", src[i:j]))
            i = j
        elif c == '"' or (c == "r" and re.match(r'r#*"', src[i:i + 10]) and (i == 0 or not src[i - 1].isalnum())):
            j = _string_end(src, i)
            out.append(re.sub(r"[^\n]", " ", src[i:j]))
            i = j
        elif c == "'" and re.match(r"'(\\.|[^\\'])'|'\\u\{[0-9a-fA-F]+\}'|'\\x..'", src[i:i + 12]):
            m = re.match(r"'(\\.|[^\\'])'|'\\u\{[0-9a-fA-F]+\}'|'\\x..'", src[i:i + 12])
            out.append(" " * m.end())
            i += m.end()
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _string_end(src: str, i: int) -> int:
    if src[i] == "r":
        m = re.match(r'r(#*)"', src[i:])
        close = '"' + m.group(1)
        j = src.find(close, i + m.end())
        return len(src) if j < 0 else j + len(close)
    j = i + 1
    while j < len(src) and src[j] != '"':
        j += 2 if src[j] == "\\" else 1
    return j + 1


def scan(src: str) -> list[tuple[str, str, int, str]]:
    """(keyword, name, line, form) of each definition at item level inside an item-level macro
    body or `cfg_if!` branch."""
    text = _strip(src)
    stack: list[str] = []  # context of each open `{`
    in_macro = 0  # open `{` that are item-level macro bodies or cfg_if! branches
    out: list[tuple[str, str, int, str]] = []
    seg_start = 0  # where the text since the last `;`, `{` or `}` begins
    line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line_of(pos: int) -> int:
        lo, hi = 0, len(line_starts)
        while lo + 1 < hi:
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if line_starts[mid] <= pos else (lo, mid)
        return lo + 1

    for i, c in enumerate(text):
        if c not in "{};":
            continue
        here = stack[-1] if stack else ITEM
        seg = text[seg_start:i]
        if here != CODE and in_macro:
            m = _DEF.search(seg)
            if m:
                form = "static_ref" if (m.group(2) or "").startswith("ref") else BRANCH if BRANCH in stack else "macro"
                out.append((m.group(1), m.group(3), line_of(seg_start + m.start(3)), form))
        if c == "{":
            head = seg.strip()
            mac = _MACRO.search(seg)
            if here != CODE and mac and mac.group(2) != "macro_rules" and not head.startswith("macro_rules"):
                stack.append(MACRO_BODY)
                in_macro += 1
            elif here == MACRO_BODY and _BRANCH.match(head):
                stack.append(BRANCH)
                in_macro += 1
            elif here != CODE and _CONTAINER.match(head):
                stack.append(ITEM)
            else:
                stack.append(CODE)
        elif c == "}" and stack:
            if stack.pop() in (MACRO_BODY, BRANCH):
                in_macro -= 1
        seg_start = i + 1
    return out


def rust_files(root: Path) -> Iterator[tuple[str, Path]]:
    """(relative path, path) of each `.rs` file under root, in a stable order."""
    for dp, dns, fns in os.walk(root):
        dns[:] = sorted(d for d in dns if not d.startswith(".") and d != "target")
        for fn in sorted(fns):
            if fn.endswith(".rs"):
                p = Path(dp) / fn
                yield p.relative_to(root).as_posix(), p


def oracle(root: Path) -> list[dict]:
    """The scan's definitions, each with `once`: whether its name is written after a definition
    keyword nowhere else in the tree (in any context), so only one answer is right."""
    rows = []
    names: collections.Counter = collections.Counter()
    for rel, p in rust_files(root):
        src = p.read_text(encoding="utf-8", errors="replace")
        names.update(m.group(3) for m in _DEF.finditer(_strip(src)))
        for kw, name, line, form in scan(src):
            rows.append({"path": rel, "keyword": kw, "name": name, "line": line, "form": form})
    for r in rows:
        r["once"] = names[r["name"]] == 1
    return rows


def extracted(root: Path, rows: list[dict]) -> tuple[float, int]:
    """Marks each oracle row `extracted` when its file's extraction holds that name at that name
    line; returns the CPU seconds of extracting every `.rs` file under root and the symbols
    extracted in all."""
    from cruxe.extract import extract
    total, by_file = 0, {}
    t = time.process_time()
    for rel, p in rust_files(root):
        fx = extract(rel, p.read_bytes(), "rust")
        total += len(fx.symbols)
        by_file[rel] = {(s.name, s.name_line or s.line_start) for s in fx.symbols}
    cpu = time.process_time() - t
    for r in rows:
        r["extracted"] = (r["name"], r["line"]) in by_file.get(r["path"], ())
    return cpu, total


def located(root: Path, work: Path, rows: list[dict]) -> float:
    """Marks each oracle row `top1` / `top10` when `locate_symbol` lists it first / among ten;
    returns the index's wall seconds."""
    import subprocess
    from cruxe.tools import Server
    import cruxe
    home = work / "home"
    # the index child runs the code this process imported (`-P`: not the current directory's)
    code = os.pathsep.join([str(Path(cruxe.__file__).resolve().parents[1]), *filter(None, [os.environ.get("PYTHONPATH")])])
    env = {**os.environ, "CRUXE_HOME": str(home), "PYTHONPATH": code}
    t = time.perf_counter()
    subprocess.run([sys.executable, "-P", "-m", "cruxe", "index", "--path", str(root), "--quiet"], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    index_s = time.perf_counter() - t
    os.environ["CRUXE_HOME"] = str(home)
    server = Server(root, home=home)
    for r in rows:
        payload, _ = server.call_tool("locate_symbol", {"name": r["name"], "limit": 10})
        hits = [(h.get("path"), h.get("line_start") or 0, h.get("line_end") or 0) for h in payload.get("results") or []]
        ok = [p == r["path"] and a <= r["line"] <= b for p, a, b in hits]
        r["top1"], r["top10"] = bool(ok[:1] and ok[0]), any(ok)
    return index_s


def tally(rows: list[dict]) -> dict:
    return {"definitions": len(rows), **{k: sum(r[k] for r in rows) for k in ("extracted", "top1", "top10")}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--work", default=None, help="where the copy and its index go (default: a temporary dir)")
    ap.add_argument("--json", default=None)
    a = ap.parse_args(argv)
    work = Path(a.work or tempfile.mkdtemp(prefix="rust_macro_items-"))
    root = work / "repo"
    if root.exists():
        shutil.rmtree(root)
    shutil.copytree(a.dir, root, symlinks=True)
    rows = oracle(root)
    cpu, total = extracted(root, rows)
    index_s = located(root, work, rows)
    all_ = tally(rows)
    found, top1, top10, n = all_["extracted"], all_["top1"], all_["top10"], max(len(rows), 1)
    once = sum(r["once"] for r in rows)
    once1 = sum(r["top1"] and r["once"] for r in rows)
    forms = {f: tally([r for r in rows if r["form"] == f]) for f in ("macro", "cfg_if", "static_ref")}
    summary = {"dir": a.dir, "oracle_definitions": len(rows), "extracted": found, "symbols_total": total,
               "extract_cpu_s": round(cpu, 2), "index_wall_s": round(index_s, 2),
               "locate_top1": top1, "locate_top10": top10, "names_defined_once": once, "locate_top1_once": once1,
               "by_form": forms}
    print(f"{a.dir}: {len(rows)} definitions in item-level macro bodies (text scan); "
          f"extracted {found} ({found / n:.3f}); locate_symbol top-1 {top1} ({top1 / n:.3f}), "
          f"top-10 {top10} ({top10 / n:.3f}); of the {once} whose name is defined once, top-1 {once1}; "
          f"symbols in all {total}; extraction CPU {cpu:.2f} s; index {index_s:.1f} s wall")
    for f, t in forms.items():
        print(f"  {f}: {t['definitions']} definitions, extracted {t['extracted']}, "
              f"top-1 {t['top1']}, top-10 {t['top10']}")
    if a.json:
        Path(a.json).write_text(json.dumps({"summary": summary, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
