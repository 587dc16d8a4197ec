#!/usr/bin/env python3
"""Sample the references neither oracle decides, and estimate precision from their reading.

usage:
  python3 bench/refs/undecided_sample.py sample RUN.json [--n 80] [--seed 17]
  python3 bench/refs/undecided_sample.py estimate RUN.json AUDIT.jsonl
  python3 bench/refs/undecided_sample.py self-attr RUN.json --corpus DIR

RUN.json is the output of `bench/refs_oracle.py run ... --adjudicate jedi --details N` with N at
least the number of undecided sites (so that `jedi_undecided` lists all of them). `sample` prints
a fixed-seed random sample of those sites, one JSON object a line (site, symbol, definition, the
line's text), in an order that does not depend on the run's listing order. Each is then read by
hand and given a verdict in AUDIT.jsonl: `right`, `wrong` or `unknowable`, with a reason.

`estimate` combines the run's overall counts with the audited share: the true precision is taken
as (scip-confirmed + jedi-confirmed + right share x undecided) / listed, with a Wilson 95%
interval on the share. `decided` takes the share among the sites read as `right` or `wrong`;
`pessimistic` takes it among all the sites read, so `unknowable` counts as wrong. jedi's `other`
verdicts count as wrong; `precision_lower_bound` counts every undecided site as wrong (the run's
`precision_adjudicated`). One JSON object on stdout.

`self-attr` lists every undecided site of one shape, to be read whole rather than sampled: a use
`self.<attr>.m` inside a class C (DIR is the run's corpus) linked to a method m of C or of a base C
names. A wrapper's attribute often holds the object it wraps (a driver's connection), whose
methods the wrapper mirrors. One JSON object a line.
"""
from __future__ import annotations

import argparse
import ast
import json
import math
import random
import re
import sys
from pathlib import Path

VERDICTS = ("right", "wrong", "unknowable")


def _key(rec: dict) -> tuple:
    return (rec["site"], rec["symbol"], rec["definition"])


def sample(undecided: list[dict], n: int, seed: int) -> list[dict]:
    """A fixed-seed sample of n sites, independent of the order the run listed them in."""
    pool = sorted(undecided, key=_key)
    picked = random.Random(seed).sample(pool, min(n, len(pool)))
    return [{"site": r["site"], "symbol": r["symbol"], "definition": r["definition"],
             "text": r["text"]} for r in sorted(picked, key=_key)]


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a proportion k/n."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return (max(0.0, mid - half), min(1.0, mid + half))


def estimate(overall: dict, verdicts: list[str]) -> dict:
    """Precision figures from the run's `by_kind.all` and the audited verdicts."""
    listed = overall["listed_sites"]
    undecided = overall["jedi_undecided"]
    unconfirmed = undecided + overall["jedi_other"] + overall["jedi_confirmed"]
    confirmed = listed - unconfirmed + overall["jedi_confirmed"]
    counts = {v: verdicts.count(v) for v in VERDICTS}

    def figures(right: int, n: int) -> dict:
        lo, hi = wilson(right, n)
        return {"right_share": round(right / n, 4) if n else None,
                "right_share_95": [round(lo, 4), round(hi, 4)],
                "precision": round((confirmed + (right / n if n else 0.0) * undecided) / listed, 4),
                "precision_95": [round((confirmed + x * undecided) / listed, 4) for x in (lo, hi)]}

    return {
        "listed": listed, "confirmed_by_scip_or_jedi": confirmed, "undecided": undecided,
        "audited": len(verdicts), "verdicts": counts,
        "precision_lower_bound": round(confirmed / listed, 4),
        # the share among the sites a reading could decide
        "decided": figures(counts["right"], counts["right"] + counts["wrong"]),
        # every `unknowable` counted as wrong
        "pessimistic": figures(counts["right"], len(verdicts)),
    }


def _classes(source: str) -> list[tuple[int, int, str, set[str]]]:
    """(first line, last line, name, the last part of each base's name) of every class."""
    return [(n.lineno, n.end_lineno, n.name, {ast.unparse(b).split(".")[-1] for b in n.bases})
            for n in ast.walk(ast.parse(source)) if isinstance(n, ast.ClassDef)]


def self_attr(undecided: list[dict], read) -> list[dict]:
    """The sites `self.<attr>.m` whose method m is the enclosing class's own or a named base's;
    `read(path)` gives a corpus file's text."""
    found, seen = [], {}
    for rec in sorted(undecided, key=_key):
        path, line = rec["site"].rsplit(":", 1)
        if path not in seen:
            seen[path] = _classes(read(path))
        around = [c for c in seen[path] if c[0] <= int(line) <= c[1]]
        if not around:
            continue
        first, _, name, bases = max(around)
        owner, method = rec["symbol"].rsplit(".", 2)[-2:]
        if (owner == name or owner in bases) and re.search(rf"\bself\.\w+\.{re.escape(method)}\b", rec["text"]):
            found.append({"site": rec["site"], "class": name, "symbol": rec["symbol"], "text": rec["text"]})
    return found


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("sample")
    s.add_argument("run")
    s.add_argument("--n", type=int, default=80)
    s.add_argument("--seed", type=int, default=17)
    e = sub.add_parser("estimate")
    e.add_argument("run")
    e.add_argument("audit")
    w = sub.add_parser("self-attr")
    w.add_argument("run")
    w.add_argument("--corpus", required=True)
    args = ap.parse_args(argv)
    with open(args.run, encoding="utf-8") as f:
        run = json.load(f)
    if args.cmd == "sample":
        for rec in sample(run["jedi_undecided"], args.n, args.seed):
            print(json.dumps(rec))
        return 0
    if args.cmd == "self-attr":
        for rec in self_attr(run["jedi_undecided"], lambda p: Path(args.corpus, p).read_text(encoding="utf-8")):
            print(json.dumps(rec))
        return 0
    with open(args.audit, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    bad = [r for r in rows if r.get("verdict") not in VERDICTS]
    if bad:
        print(f"unknown verdict in {bad[0]}", file=sys.stderr)
        return 2
    print(json.dumps(estimate(run["by_kind"]["all"], [r["verdict"] for r in rows]), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
