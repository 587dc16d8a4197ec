#!/usr/bin/env python3
"""Cost of finding uses of a file's own names (defined or imported) in Python sources, two ways.

usage: python bench/extract/name_use_prefilter.py [DIR] [--step N]

A. the query way: capture every `identifier` (and `obj.attr`) in the tree-sitter query pass,
   then keep those whose text is a known name (what python.name_uses does today);
B. the prefilter way: scan the source bytes for identifier-shaped tokens (one C regex),
   keep tokens that are known names, and confirm each with
   `root.named_descendant_for_byte_range(a, b)` being an `identifier` node of exactly that
   span (which drops hits inside strings and comments).

Prints CPU seconds of both and checks that both find the same identifier nodes (by byte
span). Parsing is done beforehand and not counted. DIR defaults to the stdlib.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import sysconfig
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

from cruxe.languages._common import matches, parse, query  # noqa: E402

IDENT = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
NAMES = "(identifier) @name"
DEFS = """(function_definition name: (identifier) @n) (class_definition name: (identifier) @n)
(aliased_import alias: (identifier) @n) (import_statement name: (dotted_name . (identifier) @n))
(import_from_statement name: (dotted_name . (identifier) @n))"""


def known_names(tree, source: bytes) -> set[bytes]:
    """Names the file defines (def/class) or imports: the set both ways filter by."""
    out = {b"self", b"cls"}
    for _, caps in matches(query("python", DEFS), tree.root_node):
        n = caps["n"][0]
        out.add(source[n.start_byte:n.end_byte])
    return out


def by_query(tree, source: bytes, known: set[bytes]) -> set[tuple[int, int]]:
    found = set()
    for _, caps in matches(query("python", NAMES), tree.root_node):
        n = caps["name"][0]
        if source[n.start_byte:n.end_byte] in known:
            found.add((n.start_byte, n.end_byte))
    return found


def by_prefilter(tree, source: bytes, known: set[bytes]) -> set[tuple[int, int]]:
    root = tree.root_node
    found = set()
    for m in IDENT.finditer(source):
        if m.group() in known:
            a, b = m.span()
            n = root.named_descendant_for_byte_range(a, b)
            if n is not None and n.type == "identifier" and n.start_byte == a and n.end_byte == b:
                found.add((a, b))
    return found


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("dir", nargs="?", default=sysconfig.get_paths()["stdlib"])
    ap.add_argument("--step", type=int, default=1, help="use every Nth file")
    a = ap.parse_args()
    paths = []
    for dp, dns, fns in os.walk(a.dir):
        dns[:] = sorted(d for d in dns if d != "site-packages")
        paths += [os.path.join(dp, f) for f in sorted(fns) if f.endswith(".py")]
    paths = paths[::a.step]
    files = []
    for p in paths:
        with open(p, "rb") as f:
            src = f.read()
        tree = parse("python", src)
        files.append((tree, src, known_names(tree, src)))
    results = {}
    for name, fn in (("query", by_query), ("prefilter", by_prefilter)):
        t0 = time.process_time()
        results[name] = [fn(tree, src, known) for tree, src, known in files]
        results[name + "_cpu"] = time.process_time() - t0
    same = sum(x == y for x, y in zip(results["query"], results["prefilter"]))
    hits = sum(len(x) for x in results["query"])
    print(f"{len(files)} files, {hits} uses of known names; cpu: query {results['query_cpu']:.2f}s, "
          f"prefilter {results['prefilter_cpu']:.2f}s; same nodes in {same}/{len(files)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
