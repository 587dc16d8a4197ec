#!/usr/bin/env python3
"""find_references against a precise oracle (SCIP from scip-python or scip-typescript).

usage:
  python3 bench/refs_oracle.py setup-python [--work DIR]      # corpus + scip-python index
  python3 bench/refs_oracle.py setup-typescript [--work DIR]  # corpus + scip-typescript index
  python3 bench/refs_oracle.py run --corpus DIR --scip FILE [--package NAME] [--sample N] [--seed S]
                                   [--adjudicate jedi] [--kinds type,function,method,variable]

`setup-*` copies a corpus into --work (default /tmp/cruxe_refs_oracle), installs the indexer
with npm into --work (pinned version; the npm registry must be reachable once) and writes
<work>/<corpus>.scip. `run` indexes the corpus with Cruxe in a temporary CRUXE_HOME and asks
find_references for a sample of the corpus's functions, methods and classes (stratified by
kind, fixed seed), each by qualified name + path, as an agent would; `--kinds variable` (or
`type,function,method,variable`) samples the classes' attributes too (scip's `Class#attr.`
terms: class-level and instance attributes; a term of a module or a function is left out).

The oracle's truth for a symbol is the set of (path, line) of its non-definition
occurrences in the corpus, import lines included. So Cruxe's side is every reference it
lists: the default answer, which folds an import line into the same file's other uses of
the symbol (`imports_folded`), together with the `kind: "imports"` answer, which lists every
import; folding changes what an agent reads, not what this bench measures. Reported, per kind and overall (micro-averaged over sites):
  recall     = oracle sites that Cruxe lists / oracle sites
  precision  = listed sites that the oracle confirms / listed sites
  false_zero = symbols with oracle references for which Cruxe answers 0 references AND
               unresolved_count 0 (a confident wrong absence), / symbols with references
  honest_zero = same 0 references but unresolved_count > 0 (Cruxe says it does not know)
  precision_seen = listed sites that the oracle confirms / listed sites on whose line the
               oracle records an occurrence of some symbol of the same name (a class's
               constructor counts as the class): the oracle's indexer leaves many calls on
               untyped values unresolved (`e.is_silenced()`), and a site it has no
               occurrence for is not a false one, only an unchecked one
One JSON object on stdout; --details adds the worst symbols for debugging.

--adjudicate jedi asks a second, independent static analyzer about every listed site the
oracle does not confirm. It needs the `jedi` package (`pip install jedi`; a requirement of
this option only, not of Cruxe). At each use of the symbol's name on the site's line (an
identifier token that is not itself a definition), jedi's goto (imports followed) and infer
are asked (on a line without the name, at every identifier on it, which can confirm the site
and nothing else); the site is
  jedi_confirmed  if an answer is the definition: its name, its file, a line in its span,
  jedi_other      if jedi answers at every use and never so (likely a Cruxe error),
  jedi_undecided  otherwise: jedi names nothing at some use, or the line holds none
                  (a use on a line that does not name the symbol, a name in a string).
Set aside: `instance` answers (a value, such as what a property returns, is no definition)
and answers in jedi's bundled stubs of the corpus's own packages (another version of the
same code, no span here to compare with). Reported beside the scip-only figures, which it
leaves unchanged:
  precision_adjudicated = listed sites confirmed by the oracle or by jedi / listed sites
  jedi_calibration = jedi's verdicts on a fixed-seed sample of sites the oracle confirms:
               how often jedi reaches the definition at all, and how often it says
               something else where scip-python and Cruxe agree
With --details, `jedi_other` lists each disagreement (the site, its line, where jedi went),
`jedi_undecided` and `jedi_confirmed` the other verdicts' sites, `jedi_calibration_other`
each disagreement on the calibration sample.
"""
from __future__ import annotations

import argparse
import io
import keyword
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import tokenize
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench" / "refs"))
sys.path.insert(0, str(ROOT / "tests"))

import scip  # noqa: E402
from support.locations import CORPORA_ROOT  # noqa: E402

SCIP_PYTHON = "@sourcegraph/scip-python@0.6.6"
SCIP_TYPESCRIPT = "@sourcegraph/scip-typescript@0.4.0"
DJANGO_SDIST = CORPORA_ROOT / "sdist/django-5.2.19/django"
# Django sub-packages: real classes, inheritance and cross-module imports, a few hundred
# files, and (unlike a copy of stdlib packages) no clash with the interpreter's own modules,
# which would send pyright's resolution to typeshed instead of the corpus.
DJANGO_PARTS = ("db", "core", "utils", "dispatch", "apps", "http", "forms", "template", "urls",
                "middleware", "views")
KIND_OF_SUFFIX = {"#": "type", "().": "function", ".": "variable"}
DEFAULT_KINDS = frozenset({"type", "function", "method"})
ALL_KINDS = DEFAULT_KINDS | {"variable"}
CALIBRATION_SITES = 500  # oracle-confirmed sites --adjudicate also asks jedi about


# ---- setup ---------------------------------------------------------------------------------

def npm_install(work: Path, package: str) -> Path:
    bin_name = package.split("/")[-1].split("@")[0]
    exe = work / "node_modules" / ".bin" / bin_name
    if not exe.exists():
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", package], cwd=work, check=True,
                       stdout=subprocess.DEVNULL)
    return exe


def setup_python(work: Path) -> None:
    corpus = work / "dj"
    if not corpus.exists():
        if not DJANGO_SDIST.exists():
            sys.exit(f"{DJANGO_SDIST} missing (see shared/bench/setup_corpora.sh)")
        (corpus / "django").mkdir(parents=True)
        shutil.copy(DJANGO_SDIST / "__init__.py", corpus / "django")
        for part in DJANGO_PARTS:
            shutil.copytree(DJANGO_SDIST / part, corpus / "django" / part)
    exe = npm_install(work, SCIP_PYTHON)
    env_file = work / "env.json"
    env_file.write_text("[]")  # no site-packages: imports resolve inside the corpus or to typeshed
    subprocess.run([str(exe), "index", "--project-name", "dj", "--project-version", "1",
                    "--environment", str(env_file), "--output", str(work / "dj.scip"), "--quiet", "."],
                   cwd=corpus, check=True)
    print(json.dumps({"corpus": str(corpus), "scip": str(work / "dj.scip"), "package": "dj"}))


def setup_typescript(work: Path, source: Path) -> None:
    corpus = work / "ts"
    if not corpus.exists():
        shutil.copytree(source, corpus)
    exe = npm_install(work, SCIP_TYPESCRIPT)
    npm_install(work, "typescript@5.4.5")
    cfg = corpus / "tsconfig.json"
    if not cfg.exists():
        cfg.write_text(json.dumps({"compilerOptions": {"target": "es2020", "module": "commonjs", "allowJs": True,
                                                       "noEmit": True, "skipLibCheck": True},
                                   "include": ["**/*.ts", "**/*.tsx"]}))
    subprocess.run([str(exe), "index", "--output", str(work / "ts.scip")], cwd=corpus, check=True)
    print(json.dumps({"corpus": str(corpus), "scip": str(work / "ts.scip")}))


# ---- the oracle ----------------------------------------------------------------------------

def oracle(scip_path: Path, package: str | None,
           kinds: frozenset[str] = DEFAULT_KINDS) -> tuple[dict[str, tuple], dict[str, set]]:
    """(definitions: scip symbol -> (path, line, name, kind), references: symbol -> sites), the
    definitions of `kinds` only: type, function, method, variable (a term of a class: an
    attribute, `Class#attr.`)."""
    defs: dict[str, tuple] = {}
    refs: dict[str, set] = defaultdict(set)
    for occ in scip.read_occurrences(scip_path.read_bytes()):
        if occ.symbol.startswith("local ") or (package and scip.package(occ.symbol) != package):
            continue
        if occ.is_definition:
            desc = scip.descriptors(occ.symbol)
            if not desc or desc[-1][1] not in KIND_OF_SUFFIX:
                continue
            kind = KIND_OF_SUFFIX[desc[-1][1]]
            if kind in ("function", "variable") and len(desc) > 1 and desc[-2][1] == "#":
                kind = "method" if kind == "function" else kind
            elif kind == "variable":  # a module's or a function's term: no class's attribute
                continue
            if kind not in kinds:
                continue
            defs.setdefault(occ.symbol, (occ.path, occ.line, desc[-1][0], kind))
        else:
            refs[occ.symbol].add((occ.path, occ.line))
    for sym, (path, line, _, _) in defs.items():
        refs[sym].discard((path, line))
    return defs, refs


def names_by_line(scip_path: Path) -> dict[tuple[str, int], set[str]]:
    """(path, line) -> the names of every symbol (any package) the oracle records there."""
    out: dict[tuple[str, int], set[str]] = defaultdict(set)
    for occ in scip.read_occurrences(scip_path.read_bytes()):
        desc = scip.descriptors(occ.symbol)
        if desc:
            named = desc[-2] if desc[-1][0] == "<constructor>" and len(desc) > 1 else desc[-1]
            out[(occ.path, occ.line)].add(named[0])
    return out


# ---- the second oracle (jedi), for the sites the first does not confirm -----------------------

class JediJudge:
    """Where jedi says a name at a site goes. One jedi Script per file, sites asked in file order."""

    def __init__(self, corpus: Path):
        try:
            import jedi
        except ImportError:
            sys.exit("--adjudicate jedi needs the jedi package: pip install jedi")
        self.jedi = jedi
        self.root = corpus
        self.project = jedi.Project(corpus)
        self.path: str | None = None
        # jedi ships stubs of some packages (Django's among them): a stub of the corpus's own
        # code describes another version of it and has no span here to compare with
        self.own = {p.name.removesuffix(".py") for p in corpus.iterdir()}

    def _load(self, path: str) -> None:
        if path == self.path:
            return
        code = (self.root / path).read_text(encoding="utf-8", errors="replace")
        self.path, self.lines = path, code.splitlines()
        self.script = self.jedi.Script(code, path=self.root / path, project=self.project)
        self.names: dict[int, list[tuple[int, str]]] = defaultdict(list)
        try:  # identifier tokens only: a name inside a string or a comment is no occurrence
            for tok in tokenize.generate_tokens(io.StringIO(code).readline):
                if tok.type == tokenize.NAME:
                    self.names[tok.start[0]].append((tok.start[1], tok.string))
        except (tokenize.TokenError, SyntaxError):
            pass

    def occurrences(self, path: str, line: int, name: str | None) -> tuple[str, list[list[tuple]]]:
        """(the site's line, for each use of name on it (of every identifier when name is
        None) the [(path, line, type, full name)] jedi's goto (imports followed) and infer
        give there). A token that jedi finds to be a definition itself (`class Serializer(`)
        is no use; values (`instance` answers: what a property returns) are no definitions."""
        self._load(path)
        text = self.lines[line - 1].strip() if 0 < line <= len(self.lines) else ""
        cols = [col for col, tok in self.names.get(line, ())
                if tok == name or (name is None and not keyword.iskeyword(tok))]
        answers = [self._answers(line, col) for col in cols]
        return text, [found for found in answers if found is not None]

    def _answers(self, line: int, col: int) -> list[tuple] | None:
        found: set[tuple] = set()
        for ask in (lambda: self.script.goto(line, col, follow_imports=True),
                    lambda: self.script.infer(line, col)):
            try:
                names = ask()
            except Exception:  # a jedi crash at one position leaves that occurrence unanswered
                continue
            for n in names:
                if n.module_path == self.script.path and (n.line, n.column) == (line, col):
                    return None
                if n.type != "instance" and not self._own_stub(n):
                    found.add((self._relative(n.module_path), n.line, n.type, n.full_name or n.name))
        return sorted(found, key=lambda t: tuple("" if v is None else str(v) for v in t))

    def _own_stub(self, n) -> bool:
        path, top = n.module_path, (n.full_name or "").split(".", 1)[0]
        return path is not None and top in self.own and not Path(path).resolve().is_relative_to(self.root)

    def _relative(self, module_path) -> str | None:
        if module_path is None:
            return None
        try:
            return Path(module_path).resolve().relative_to(self.root).as_posix()
        except ValueError:
            return str(module_path)


def lands(hit: tuple, found: list[tuple]) -> bool:
    """Whether one of jedi's answers is the definition (Cruxe's row `hit`): its name, in its
    file, inside its span (a method of a class is inside the class's span, and no use of it)."""
    return any(p == hit[0] and ln is not None and hit[2] <= ln <= hit[3] and full.rsplit(".", 1)[-1] == hit[1]
               for p, ln, _, full in found)


def adjudicate(judge: JediJudge, pending: list[tuple]) -> list[tuple[str, dict]]:
    """For each (symbol's Cruxe row, site): 'confirmed' if jedi takes some use of the name
    there to the definition (`lands`); 'other' if jedi answers at every use and never there (the line holds no use Cruxe could mean); else 'undecided'. Each verdict comes
    with a record of the site and of what jedi said."""
    verdicts = []
    for hit, site in pending:
        text, answers = judge.occurrences(site[0], site[1], hit[1])
        if not answers:  # a line that uses the symbol under another name (`_` for gettext)
            answers = judge.occurrences(site[0], site[1], None)[1]
            if not any(lands(hit, found) for found in answers):
                answers = []  # which identifier Cruxe meant is unknown: never a disagreement
        record = {"symbol": hit[4], "definition": f"{hit[0]}:{hit[2]}", "site": f"{site[0]}:{site[1]}",
                  "text": text, "occurrences": len(answers),
                  "jedi": sorted({f"{p}:{ln} {typ} {full}" for found in answers for p, ln, typ, full in found})}
        if any(lands(hit, found) for found in answers):
            verdicts.append(("confirmed", record))
        else:
            verdicts.append(("other" if answers and all(answers) else "undecided", record))
    return verdicts


# ---- cruxe ---------------------------------------------------------------------------------

def index_corpus(corpus: Path, home: Path):
    os.environ["CRUXE_HOME"] = str(home)
    from cruxe.index import run_index
    from cruxe.project import open_project
    t = time.perf_counter()
    report = run_index(corpus)
    seconds = time.perf_counter() - t
    project = open_project(corpus)
    return project, project.store.current_generation(report.ref), report.ref, seconds


def cruxe_symbols(gen, repo: str, ref: str) -> dict[tuple[str, str], list[tuple]]:
    out: dict[tuple[str, str], list[tuple]] = defaultdict(list)
    for row in gen.db.execute('SELECT path, name, line_start, line_end, qualified_name, kind FROM symbol_relations '
                              'WHERE repo=? AND "ref"=?', (repo, ref)):
        out[(row[0], row[1])].append(tuple(row))
    return out


def match(defn: tuple, syms: dict) -> tuple | None:
    """The Cruxe symbol for an oracle definition: same file and name, innermost span
    holding the oracle's definition line."""
    path, line, name, _ = defn
    fits = [s for s in syms.get((path, name), ()) if s[2] <= line <= s[3]]
    return min(fits, key=lambda s: s[3] - s[2]) if fits else None


def run(args: argparse.Namespace) -> dict:
    from cruxe.errors import CruxeError
    from cruxe.refs import find_references
    defs, refs = oracle(Path(args.scip), args.package, frozenset(args.kinds.split(",")))
    seen_names = names_by_line(Path(args.scip))
    home = Path(tempfile.mkdtemp(prefix="cruxe_refs_oracle_"))
    try:
        project, gen, ref, index_seconds = index_corpus(Path(args.corpus).resolve(), home)
        sample, unmatched = pick_sample(defs, cruxe_symbols(gen, project.id, ref), args.sample, args.seed)
        totals: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
        worst, pending, agreed = [], [], []
        t = time.perf_counter()
        for kind, sym, hit in sample:
            truth = refs.get(sym, set())
            try:
                ans = find_references(gen, project.id, ref, hit[4], path=hit[0], limit=100_000)
            except CruxeError as e:
                totals[kind]["errors"] += 1
                worst.append({"symbol": hit[4], "error": e.code})
                continue
            # the sites in test code are listed apart, by file, each file with its `lines`
            got = {(r["path"], r["line_start"]) for r in ans["references"]}
            got |= {(t["path"], line) for t in ans.get("test_references", ()) for line in t["lines"]}
            # the target's own later definitions' head lines (a setter, a redefinition), which
            # the answer sets apart from the references and scip records as occurrences
            got |= {(r["path"], r["line_start"]) for r in ans.get("redefinitions", ())}
            if ans.get("imports_folded"):  # the default answer folds imports beside a use: ask for them
                imports = find_references(gen, project.id, ref, hit[4], path=hit[0], kind="imports", limit=100_000)
                got |= {(r["path"], r["line_start"]) for r in imports["references"]}
                got |= {(t["path"], line) for t in imports.get("test_references", ()) for line in t["lines"]}
            seen = sum(1 for site in got if hit[1] in seen_names.get(site, ()))
            for key in (kind, "all"):
                tally(totals[key], truth, got, seen, ans["unresolved_count"])
            pending += [(kind, hit, site) for site in got - truth]
            agreed += [(kind, hit, site) for site in got & truth]
            if truth - got or got - truth:
                worst.append({"symbol": hit[4], "path": hit[0], "kind": kind, "oracle": len(truth), "listed": len(got),
                              "missed": sorted(truth - got)[:5], "extra": sorted(got - truth)[:5],
                              "unresolved_count": ans["unresolved_count"]})
        query_seconds = time.perf_counter() - t
        records, calibration = {}, {}
        if args.adjudicate:
            judge = JediJudge(Path(args.corpus).resolve())
            records = adjudicate_all(judge, pending, totals)
            calibration, records["jedi_calibration_other"] = calibrate(judge, agreed, args.seed)
        report = {"corpus": str(args.corpus), "oracle_symbols": len(defs), "unmatched_definitions": unmatched,
                  "index_seconds": round(index_seconds, 2),
                  "query_ms_mean": round(1000 * query_seconds / max(1, len(sample)), 2),
                  "sample_per_kind": args.sample, "seed": args.seed, "kinds": args.kinds,
                  "by_kind": {key: summary(tk, args.adjudicate) for key, tk in sorted(totals.items())}}
        if calibration:
            report["jedi_calibration"] = calibration
        if args.details:
            worst.sort(key=lambda w: -(len(w.get("missed", [])) + len(w.get("extra", []))))
            report["details"] = worst[:args.details]
            report |= {key: found[:args.details] for key, found in records.items()}
        return report
    finally:
        shutil.rmtree(home, ignore_errors=True)


def tally(tk: dict, truth: set, got: set, seen: int, unresolved: int) -> None:
    """Add one symbol's answer to a kind's totals."""
    tk["symbols"] += 1
    tk["oracle_sites"] += len(truth)
    tk["listed_sites"] += len(got)
    tk["confirmed"] += len(got & truth)
    tk["listed_seen"] += seen
    tk["with_refs"] += bool(truth)
    tk["false_zero"] += bool(truth) and not got and unresolved == 0
    tk["honest_zero"] += bool(truth) and not got and unresolved > 0


def pick_sample(defs: dict, syms: dict, per_kind: int, seed: int) -> tuple[list[tuple], int]:
    """[(kind, scip symbol, Cruxe row)] stratified by kind with a fixed seed, and how many
    oracle definitions have no Cruxe symbol."""
    by_kind: dict[str, list[tuple[str, tuple]]] = defaultdict(list)
    unmatched = 0
    for sym, defn in sorted(defs.items()):
        hit = match(defn, syms)
        if hit is None:
            unmatched += 1
            continue
        by_kind[defn[3]].append((sym, hit))
    rng = random.Random(seed)
    sample = []
    for kind in sorted(by_kind):
        items = by_kind[kind]
        sample += [(kind, *x) for x in (rng.sample(items, per_kind) if len(items) > per_kind else items)]
    return sample, unmatched


def adjudicate_all(judge: JediJudge, pending: list[tuple], totals: dict) -> dict[str, list[dict]]:
    """Ask jedi about every unconfirmed listed site (in file order, so each file is parsed
    once); count its verdicts per kind; return the records of each verdict."""
    pending = sorted(pending, key=lambda p: (p[2], p[1][4], p[1][0]))
    verdicts = adjudicate(judge, [(hit, site) for _, hit, site in pending])
    records: dict[str, list[dict]] = {"jedi_other": [], "jedi_undecided": [], "jedi_confirmed": []}
    for (kind, _, _), (verdict, record) in zip(pending, verdicts):
        for key in (kind, "all"):
            totals[key]["jedi_" + verdict] += 1
        records["jedi_" + verdict].append(record)
    return records


def calibrate(judge: JediJudge, agreed: list[tuple], seed: int) -> tuple[dict, list[dict]]:
    """jedi's verdicts on a sample of the sites the oracle confirms (fixed seed, file order),
    and the records of its disagreements there."""
    agreed = sorted(agreed, key=lambda p: (p[2], p[1][4], p[1][0]))
    picked = random.Random(seed).sample(agreed, min(CALIBRATION_SITES, len(agreed)))
    picked.sort(key=lambda p: (p[2], p[1][4], p[1][0]))
    verdicts = adjudicate(judge, [(hit, site) for _, hit, site in picked])
    named = [v for v, _ in verdicts]
    return ({"sites": len(picked)} | {v: named.count(v) for v in ("confirmed", "other", "undecided")},
            [record for v, record in verdicts if v == "other"])


def summary(tk: dict, adjudicated: str | None) -> dict:
    out = {
        "symbols": int(tk["symbols"]), "errors": int(tk["errors"]),
        "oracle_sites": int(tk["oracle_sites"]), "listed_sites": int(tk["listed_sites"]),
        "recall": round(tk["confirmed"] / tk["oracle_sites"], 4) if tk["oracle_sites"] else None,
        "precision": round(tk["confirmed"] / tk["listed_sites"], 4) if tk["listed_sites"] else None,
        "precision_seen": round(tk["confirmed"] / tk["listed_seen"], 4) if tk["listed_seen"] else None,
        "symbols_with_refs": int(tk["with_refs"]),
        "false_zero_rate": round(tk["false_zero"] / tk["with_refs"], 4) if tk["with_refs"] else None,
        "false_zeros": int(tk["false_zero"]), "honest_zeros": int(tk["honest_zero"]),
    }
    if adjudicated:
        either = tk["confirmed"] + tk["jedi_confirmed"]
        out["precision_adjudicated"] = round(either / tk["listed_sites"], 4) if tk["listed_sites"] else None
        out |= {f"jedi_{v}": int(tk[f"jedi_{v}"]) for v in ("confirmed", "other", "undecided")}
    return out


def _kinds(written: str) -> str:
    kinds = {k.strip() for k in written.split(",") if k.strip()}
    if not kinds or not kinds <= ALL_KINDS:
        raise argparse.ArgumentTypeError(f"kinds among {', '.join(sorted(ALL_KINDS))}")
    return ",".join(sorted(kinds))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("setup-python", "setup-typescript"):
        s = sub.add_parser(name)
        s.add_argument("--work", default="/tmp/cruxe_refs_oracle")
        if name == "setup-typescript":
            s.add_argument("--source", required=True, help="a TypeScript project directory to copy")
    r = sub.add_parser("run")
    r.add_argument("--corpus", required=True)
    r.add_argument("--scip", required=True)
    r.add_argument("--package", help="SCIP package name of the corpus (others are external)")
    r.add_argument("--sample", type=int, default=150, help="symbols per kind")
    r.add_argument("--seed", type=int, default=7)
    r.add_argument("--details", type=int, default=0)
    r.add_argument("--kinds", default=",".join(sorted(DEFAULT_KINDS)), type=_kinds,
                   help="the oracle's definitions sampled, comma-separated: type, function, method and "
                        "variable (a class's attribute: `Class#attr.` in scip); default type,function,method")
    r.add_argument("--adjudicate", choices=["jedi"],
                   help="ask jedi about the listed sites the oracle does not confirm (needs pip install jedi)")
    a = ap.parse_args()
    if a.cmd == "run":
        print(json.dumps(run(a), indent=1))
        return
    work = Path(a.work)
    work.mkdir(parents=True, exist_ok=True)
    if a.cmd == "setup-python":
        setup_python(work)
    else:
        setup_typescript(work, Path(a.source))


if __name__ == "__main__":
    main()
