"""Pasted-error tasks: messages found at raise/panic/Errorf/throw sites, holes filled with the
values a user's run would print; truth = the emitting statement's lines."""
from __future__ import annotations

import ast
import random
import re
from pathlib import Path

from common import python_trees
from corpora import SOURCE_SUFFIX, is_test_path

MIN_LITERAL = 18  # characters of constant text: shorter messages are not worth pasting


def fill_value(hint: str, i: int) -> str:
    """A run-time value for a hole, chosen from the hole's expression text or verb."""
    h = hint.lower()
    table = [(("path", "file", "dir", "filename"), "/home/alice/project/config/settings.yaml"),
             (("url", "uri", "href", "endpoint"), "https://api.example.com/v2/items?page=3"),
             (("port",), "8443"), (("host", "addr"), "10.0.3.17"),
             (("count", "len", "size", "bytes", "(is", "number", "code", "status", "%v bytes", "num", "index", "idx", "max", "min", "limit", "%d", "{:}", "line",
               "offset", "n)", "width", "depth", "timeout", "%x"), str(37 + i)),
             (("type", "%t", "kind", "cls", "class"), "NoneType"),
             (("key", "field", "attr", "option", "param", "arg"), "max_retries"),
             (("name", "module", "app", "label", "model", "func", "id"), "billing_report"),
             (("err", "%w", "exc", "error"), "connection reset by peer")]
    for keys, value in table:
        if any(k in h for k in keys):
            return value
    return ["orders_2024", "alice@example.com", "v1.4.2", "production"][i % 4]


def _chunks(parts: list[tuple[str, str | None]]) -> tuple[str, str]:
    """(pasted message, longest constant chunk) from literal parts and holes (hint, None)."""
    out, consts, i = [], [], 0
    for text, hint in parts:
        if hint is None:
            out.append(text)
            consts.append(text)
        else:
            value = fill_value(hint, i)
            out.append(f'"{value}"' if "%q" in hint[20:30] or hint.endswith("%q") else value)
            consts.append("")
            i += 1
    best = max(("".join(consts).split("\0") if False else consts), key=len).strip()
    return "".join(out), best


# ---- Python: ast ------------------------------------------------------------------------------

def _py_parts(node: ast.expr) -> tuple[str, list[tuple[str, str | None]]] | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return "literal", [(node.value, None)]
    if isinstance(node, ast.JoinedStr):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append((v.value, None))
            else:
                parts.append(("", ast.unparse(v.value)))
        return "fstring", parts
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant) \
            and isinstance(node.left.value, str):
        hints = ast.unparse(node.right)
        return "percent", _split_format(node.left.value, re.compile(r"%(?:\([a-z_]+\))?[-#0 +]*\d*(?:\.\d+)?[sdrfixgc]"), hints)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format" \
            and isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str):
        hints = " ".join(ast.unparse(a) for a in [*node.args, *(k.value for k in node.keywords)])
        return "format", _split_format(node.func.value.value, re.compile(r"\{[^{}]*\}"), hints)
    return None


def _split_format(fmt: str, hole: re.Pattern, hints: str) -> list[tuple[str, str | None]]:
    parts, pos = [], 0
    for m in hole.finditer(fmt):
        parts.append((fmt[pos:m.start()], None))
        parts.append(("", m.group(0) + " " + hints))
        pos = m.end()
    parts.append((fmt[pos:], None))
    return [(t.replace("%%", "%").replace("{{", "{").replace("}}", "}"), h) if h is None else (t, h)
            for t, h in parts]


def python_sites(root: Path) -> list[dict]:
    sites = []
    for rel, tree in python_trees(root):
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args):
                continue
            got = _py_parts(node.exc.args[0])
            if got is None:
                continue
            sub, parts = got
            exc = ast.unparse(node.exc.func).split(".")[-1]
            sites.append({"path": rel, "line_start": node.lineno, "line_end": node.end_lineno,
                          "subkind": sub, "parts": parts, "prefix": f"{exc}: "})
    return sites


# ---- Go, Rust, TypeScript: one-line literals at emitting calls ---------------------------------

GO_SITE = re.compile(r'(?:errors\.New|fmt\.Errorf|panic|panic\(fmt\.Sprintf)\(\s*"((?:[^"\\]|\\.)*)"')
RS_SITE = re.compile(r'(?:panic!\(|unreachable!\(|unimplemented!\(|\.expect\(|io_error!\([\w:]+,|'
                     r'io::Error::new\([\w:]+,)\s*"((?:[^"\\]|\\.)*)"')
TS_SITE = re.compile(r"throw new \w*Error\(\s*(?:(['\"])((?:(?!\1)[^\\]|\\.)*)\1|`((?:[^`\\]|\\.)*)`)")
GO_VERB = re.compile(r"%[-+# 0]*\d*(?:\.\d+)?[vTtbcdoOqxXUeEfFgGsqpw]")
RS_HOLE = re.compile(r"\{[^{}]*\}")
TS_HOLE = re.compile(r"\$\{[^}]*\}")


def _unescape(s: str) -> str:
    return s.replace('\\"', '"').replace("\\'", "'").replace("\\\\", "\\").replace("\\n", " ")


def line_sites(root: Path, lang: str) -> list[dict]:
    sites = []
    for f in sorted(p for suf in SOURCE_SUFFIX[lang] for p in root.rglob(f"*{suf}")):
        rel = f.relative_to(root).as_posix()
        if is_test_path(rel) or "/internal/" in f"/{rel}":
            continue
        for no, line in enumerate(f.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if line.lstrip().startswith(("//", "*", "/*")):
                continue
            site = _line_site(lang, line)
            if site:
                sub, parts, prefix = site
                sites.append({"path": rel, "line_start": no, "line_end": no, "subkind": sub, "parts": parts,
                              "prefix": prefix})
    return sites


def _line_site(lang: str, line: str):
    if lang == "go":
        m = GO_SITE.search(line)
        if not m:
            return None
        fmt = _unescape(m.group(1))
        holes = GO_VERB.findall(fmt)
        prefix = "panic: " if "panic(" in m.group(0) else ""
        return ("format" if holes else "literal"), _split_format_plain(fmt, GO_VERB), prefix
    if lang == "rust":
        m = RS_SITE.search(line)
        if not m:
            return None
        fmt = _unescape(m.group(1))
        panics = "Error" not in m.group(0) and "io_error" not in m.group(0)
        prefix = "thread 'main' panicked at '" if panics else ""
        parts = _split_format_plain(fmt, RS_HOLE)
        if panics:
            parts.append(("', src/main.rs:41:10", None))
        return ("format" if RS_HOLE.search(fmt) else "literal"), parts, prefix
    m = TS_SITE.search(line)
    if not m:
        return None
    if m.group(3) is not None:
        fmt = _unescape(m.group(3))
        return ("template" if TS_HOLE.search(fmt) else "literal"), _split_format_plain(fmt, TS_HOLE), "Error: "
    return "literal", [(_unescape(m.group(2)), None)], "Error: "


def _split_format_plain(fmt: str, hole: re.Pattern) -> list[tuple[str, str | None]]:
    parts, pos = [], 0
    for m in hole.finditer(fmt):
        parts.append((fmt[pos:m.start()].replace("{{", "{").replace("}}", "}").replace("%%", "%"), None))
        parts.append(("", fmt[max(0, m.start() - 24):m.end() + 12]))
        pos = m.end()
    parts.append((fmt[pos:].replace("{{", "{").replace("}}", "}").replace("%%", "%"), None))
    return parts


# ---- selection -----------------------------------------------------------------------------------

def build(corpus: str, lang: str, root: Path, n: int) -> list[dict]:
    sites = python_sites(root) if lang == "python" else line_sites(root, lang)
    keep = []
    for s in sites:
        message, chunk = _chunks(s["parts"])
        if len(chunk) < MIN_LITERAL or "\n" in message or "\\" in message:
            continue
        keep.append({**s, "message": s["prefix"] + message, "chunk": chunk})
    by_message: dict[str, list[dict]] = {}
    for s in keep:
        by_message.setdefault(s["message"], []).append(s)
    rng = random.Random(f"{corpus}/error")
    formatted = sorted(m for m, ss in by_message.items() if ss[0]["subkind"] != "literal")
    literal = sorted(m for m, ss in by_message.items() if ss[0]["subkind"] == "literal")
    n_fmt = min(len(formatted), (2 * n + 2) // 3)
    chosen = rng.sample(formatted, n_fmt) + rng.sample(literal, n - n_fmt)
    return [_task(corpus, by_message[m]) for m in chosen]


def _task(corpus: str, same: list[dict]) -> dict:
    s = same[0]
    expected = sorted(({"path": x["path"], "line_start": x["line_start"], "line_end": x["line_end"]} for x in same),
                      key=lambda e: (e["path"], e["line_start"]))
    return {"id": f"{corpus}/error/{s['path']}:{s['line_start']}", "corpus": corpus, "kind": "error",
            "subkind": s["subkind"], "query": s["message"], "tool": "search_code", "args": {"query": s["message"]},
            "expected": expected, "rg": ["-nF", s["chunk"]],
            "truth": ("the emitting statement found in the source (Python: ast Raise nodes; others: a regex over "
                      "one-line literals at error/panic/throw calls), holes filled with plausible run-time values; "
                      "every site producing the same message is expected")}
