"""Pasted-error tasks: messages found at raise/panic/Errorf/throw sites, holes filled with the
values a user's run would print; truth = the emitting statement's lines."""
from __future__ import annotations

import ast
import random
import re
from pathlib import Path

from common import code_lines, python_trees

PANIC_PREFIX, PANIC_SUFFIX = "thread 'main' panicked at '", "', src/main.rs:41:10"  # how Rust 1.63 prints a panic
MIN_LITERAL = 18  # characters of constant text: shorter messages are not worth pasting


TYPE_VALUE = {"python": "NoneType", "go": "*fs.PathError", "rust": "alloc::string::String", "typescript": "bigint"}
FILL = [({"path", "file", "dir", "filename", "fname", "src", "dst"}, "/home/alice/project/config/settings.yaml"),
        ({"url", "uri", "href", "endpoint"}, "https://api.example.com/v2/items?page=3"),
        ({"port"}, "8443"), ({"host", "addr", "ip"}, "10.0.3.17"),
        ({"count", "len", "length", "size", "bytes", "number", "code", "status", "num", "index", "idx", "max",
          "min", "limit", "line", "offset", "width", "depth", "timeout", "is", "n", "i", "capacity"}, "37"),
        ({"key", "field", "attr", "option", "param", "arg", "opt", "setting"}, "max_retries"),
        ({"name", "module", "app", "label", "model", "func", "id", "user", "pkg", "method"}, "billing_report"),
        ({"err", "exc", "error", "e", "reason"}, "connection reset by peer")]
NUMBER_VERB = re.compile(r"%[-+# 0]*\d*[dxXobc]|\{:[^}]*[dxXob]\}")
# errors only another platform's users see (a Linux user pastes the Linux message)
OTHER_PLATFORM = re.compile(r"_(windows|plan9|js|wasm|aix|solaris|darwin|freebsd|openbsd|netbsd|dragonfly|illumos|"
                            r"ios|android|hurd|zos)(_\w+)?\.go$|/sys/(?!unix/|common/)|/sys_common/(?=windows)|"
                            r"/os/(?!unix/|linux/|fd/|raw/)")


def fill_value(hint: str, i: int, lang: str) -> str:
    """A run-time value for a hole. `hint` is the hole (its verb, or its expression) followed by
    the words around it; the value follows the verb, else the first word that says what it is."""
    verb = hint.split(" ", 1)[0]
    if verb == "%T":
        return TYPE_VALUE[lang]
    if NUMBER_VERB.fullmatch(verb):
        return str(37 + i)
    words = set(re.sub(r"(?<=[a-z])(?=[A-Z])", " ", hint).lower().replace("_", " ").split())
    words = {w.strip("{}()[]%$.,:;'\"`*&!") for w in words}
    if words & {"type", "kind", "cls", "class"}:
        return TYPE_VALUE[lang]
    for keys, value in FILL:
        if words & keys:
            return str(37 + i) if value == "37" else value
    return ["orders_2024", "alice@example.com", "v1.4.2", "production"][i % 4]


def _chunks(parts: list[tuple[str, str | None]], lang: str) -> tuple[str, str]:
    """(pasted message, longest constant chunk) from literal parts and holes (hint, None)."""
    out, consts, i = [], [], 0
    for text, hint in parts:
        if hint is None:
            out.append(text)
            consts.append(text)
        else:
            value = fill_value(hint, i, lang)
            out.append(f'"{value}"' if hint.startswith("%q") else value)
            consts.append("")
            i += 1
    best = max(consts, key=len).strip()
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
        return "percent", _split_format(node.left.value, PERCENT_HOLE, hints)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format" \
            and isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str):
        hints = " ".join(ast.unparse(a) for a in [*node.args, *(k.value for k in node.keywords)])
        return "format", _split_format(node.func.value.value, re.compile(r"\{[^{}]*\}"), hints)
    return None


PERCENT_HOLE = re.compile(r"%(?:\([a-z_]+\))?[-#0 +]*\d*(?:\.\d+)?[sdrfixgc]")


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
    for rel, no, line in code_lines(root, lang):
        if "/internal/" in f"/{rel}" or OTHER_PLATFORM.search(f"/{rel}"):
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
        prefix = PANIC_PREFIX if panics else ""
        parts = _split_format_plain(fmt, RS_HOLE)
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
        parts.append(("", f"{m.group(0)} {fmt[max(0, m.start() - 24):m.start()]}"))
        pos = m.end()
    parts.append((fmt[pos:].replace("{{", "{").replace("}}", "}").replace("%%", "%"), None))
    return parts


# ---- selection -----------------------------------------------------------------------------------

def build(corpus: str, lang: str, root: Path, n: int) -> list[dict]:
    sites = python_sites(root) if lang == "python" else line_sites(root, lang)
    keep = []
    for s in sites:
        message, chunk = _chunks(s["parts"], lang)
        if len(chunk) < MIN_LITERAL or "\n" in message or "\\" in message:
            continue
        suffix = PANIC_SUFFIX if s["prefix"] == PANIC_PREFIX else ""
        keep.append({**s, "message": s["prefix"] + message + suffix, "chunk": chunk})
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
