#!/usr/bin/env python3
"""Sample the references neither oracle decides, and estimate precision from their reading.

usage:
  python3 bench/refs/undecided_sample.py sample RUN.json [--n 80] [--seed 17]
  python3 bench/refs/undecided_sample.py estimate RUN.json AUDIT.jsonl

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
"""
from __future__ import annotations

import argparse
import json
import math
import random
import sys

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
    args = ap.parse_args(argv)
    with open(args.run, encoding="utf-8") as f:
        run = json.load(f)
    if args.cmd == "sample":
        for rec in sample(run["jedi_undecided"], args.n, args.seed):
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
