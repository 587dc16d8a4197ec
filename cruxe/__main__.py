"""The `cruxe` command line: thin shells over the same functions the MCP tools call.

Exit codes: 0 success, also when a query found nothing; 1 a check failed (doctor); 2 an error
(message and remedy on stderr, or the error payload on stdout with --json); 3 another index job
is running; 130 interrupted (Ctrl-C).
"""
from __future__ import annotations

import argparse
import logging
import os
import re
import sys
import time
from typing import Any

from . import __version__
from .config import EXPLAIN_LEVELS, FRESHNESS_POLICIES
from .errors import BUSY_CODES, EXIT_BUSY, CruxeError
from .jsonenc import to_json
from .model import DETAIL_LEVELS, KIND_ALIASES, KIND_VALUES, LANGUAGES, OUTLINE_DEPTHS, REFERENCE_KINDS, ROLE_VALUES

EXIT_OK, EXIT_FAIL, EXIT_ERROR = 0, 1, 2  # and errors.EXIT_BUSY (3)


def _print_json(payload: Any) -> None:
    sys.stdout.write(to_json(payload) + "\n")


# Control characters (C0, DEL, C1) and the Unicode line/paragraph separators: a file name or a
# line of code from the repository may hold them, and raw they would drive the terminal (an
# escape sequence) or break a tab-separated line. Human output shows them escaped; JSON is exact.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def _human(value: Any) -> str:
    """`value` as text for a terminal: each control character as `\\xNN` (`\\uNNNN`)."""
    text = str(value)
    return _CONTROL.sub(lambda m: f"\\x{ord(m[0]):02x}" if ord(m[0]) < 0x100 else f"\\u{ord(m[0]):04x}", text)


class _ProgressBar:
    """A one-line progress bar on stderr, only when stderr is a terminal."""

    def __init__(self, enabled: bool):
        self.enabled = enabled and sys.stderr.isatty()
        self.last = 0.0

    def __call__(self, done: int, total: int, message: str) -> None:
        now = time.monotonic()
        if not self.enabled or (now - self.last < 0.1 and done < total):
            return
        self.last = now
        width = 30
        filled = int(width * done / total) if total else width
        sys.stderr.write(f"\r{message} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()


# ---- commands ------------------------------------------------------------------------------

def cmd_init(a: argparse.Namespace) -> int:
    from .project import init_project

    project, created = init_project(a.path)
    info = project.info
    payload = {"project_id": project.id, "repo_root": str(project.root), "vcs_mode": info.vcs_mode,
               "ref": project.default_ref(), "created": created,
               "data_dir": str(project.store.dir)}
    if a.json:
        _print_json(payload)
    else:
        verb = "Registered" if created else "Already registered"
        mode = "git" if info.vcs_mode else "single-version"
        print(f"{verb} {project.root} ({mode}, ref {payload['ref']}) as {project.id}")
    return EXIT_OK


def cmd_index(a: argparse.Namespace, force: bool | None = None) -> int:
    from .index import run_index
    from .project import checked_ref, open_project

    force = a.force if force is None else force
    cfg = a.cfg.index
    ref = checked_ref(open_project(a.path), a.ref, write=True) if a.ref else None
    report = run_index(a.path, force=force, ref=ref, workers=a.workers or cfg.workers,
                       max_file_bytes=cfg.max_file_bytes, scan_timeout_s=cfg.scan_timeout_s,
                       progress=_ProgressBar(not a.quiet and not a.json),
                       job_id=getattr(a, "job_id", None))
    payload = report.to_dict()
    if a.json:
        _print_json(payload)
    elif not a.quiet:
        print(f"{payload['mode']} index of ref {payload['ref']}: {payload['changed_files']} file(s) indexed, "
              f"{payload['deleted_files']} removed, {payload['unchanged_files']} unchanged; "
              f"{payload['file_count']} files, {payload['symbol_count']} symbols in {payload['duration_ms']} ms")
        if payload["warning_count"]:
            print(f"{payload['warning_count']} warning(s) (see `cruxe doctor`):", file=sys.stderr)
            for w in payload["warnings"][:10]:
                print(f"  {_human(w)}", file=sys.stderr)
    return EXIT_OK


def cmd_sync(a: argparse.Namespace) -> int:
    return cmd_index(a, force=False)


def cmd_watch(a: argparse.Namespace) -> int:
    from .watch import WATCH_INTERVAL_S, watch

    cfg = a.cfg.index

    def synced(report) -> None:
        payload = report.to_dict()
        if a.json:
            _print_json(payload)
        elif not a.quiet:
            print(f"synced {payload['changed_files']} changed, {payload['deleted_files']} removed file(s) "
                  f"in {payload['duration_ms']} ms", flush=True)

    watch(a.path, interval=a.interval or WATCH_INTERVAL_S, on_sync=synced, events=not a.poll,
          workers=a.workers or cfg.workers, max_file_bytes=cfg.max_file_bytes, scan_timeout_s=cfg.scan_timeout_s)
    return EXIT_OK


# the keys of a `tags --json` line, in order
_TAG_KEYS = ("path", "name", "qualified_name", "kind", "language", "line_start", "line_end", "signature", "visibility",
             "symbol_id", "symbol_stable_id", "parent_symbol_id")


def cmd_tags(a: argparse.Namespace) -> int:
    from .freshness import require_queryable
    from .project import checked_ref, require_project
    from .store import all_symbols

    project = require_project(a.path)
    ref = checked_ref(project, a.ref)
    gen, _ = require_queryable(project, ref)
    out = sys.stdout
    for s in all_symbols(gen, project.id, ref):
        d = {k: getattr(s, k) for k in _TAG_KEYS}
        if a.json:
            out.write(to_json(d) + "\n")
        else:
            out.write(f"{_human(d['name'])}\t{_human(d['path'])}\t{d['line_start']}\t{d['kind']}\t"
                      f"{_human(d['qualified_name'])}\n")
    return EXIT_OK


def cmd_doctor(a: argparse.Namespace) -> int:
    from .health import doctor
    from .project import checked_ref, open_project

    project = open_project(a.path)
    report = doctor(project, checked_ref(project, a.ref), a.cfg.warnings)
    if a.json:
        _print_json(report)
    else:
        for c in report["checks"]:
            mark = "ok  " if c["ok"] else "FAIL"
            detail = c.get("detail")
            text = detail if isinstance(detail, str) else (to_json(detail) if detail is not None else "")
            print(f"[{mark}] {c['check']}: {_human(text[:300])}")
            if not c["ok"] and c.get("remedy"):
                print(f"       remedy: {c['remedy']}")
    return EXIT_OK if report["ok"] else EXIT_FAIL


def _tool(a: argparse.Namespace, name: str, args: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    from .tools import Server

    server = Server(a.path, config=a.cfg)
    return server.call_tool(name, {k: v for k, v in args.items() if v is not None})


def _emit_tool(a: argparse.Namespace, payload: dict[str, Any], is_error: bool, render) -> int:
    if a.json:
        _print_json(payload)
    elif is_error:
        _print_error(payload["error"])
    else:
        render(payload)
    if is_error:
        return EXIT_BUSY if payload["error"]["code"] in BUSY_CODES else EXIT_ERROR
    return EXIT_OK


def _render_results(payload: dict[str, Any]) -> None:
    for r in payload.get("results", []):
        sig = r.get("signature") or r.get("qualified_name") or ""
        print(f"{_human(r['path'])}:{r['line_start']}\t{r.get('kind') or r.get('result_type', '')}\t"
              f"{_human(r.get('name', ''))}\t{_human(sig)}")
        if r.get("snippet") and not r.get("kind"):
            for line in r["snippet"].split("\n")[:3]:
                print(f"    {_human(line)}")
    from .shape import full_metadata

    meta = full_metadata(payload.get("metadata", {}))
    extra = f", intent {payload['query_intent']['intent']}" if "query_intent" in payload else ""
    print(f"-- {len(payload.get('results', []))} of {payload.get('total_candidates', 0)} "
          f"({meta.get('freshness_status')}, {meta.get('result_completeness')}{extra})", file=sys.stderr)
    for w in meta.get("warnings") or ():
        print(f"-- warning: {_human(w)}", file=sys.stderr)


def cmd_search(a: argparse.Namespace) -> int:
    if a.plan:
        from .tools import Server, search_plan

        _print_json(search_plan(Server(a.path, config=a.cfg), {
            "query": a.query, "role": a.role, "language": a.lang, "limit": a.limit, "ref": a.ref}))
        return EXIT_OK
    payload, err = _tool(a, "search_code", {
        "query": a.query, "role": a.role, "language": a.lang, "limit": a.limit, "ref": a.ref,
        "detail_level": a.detail, "compact": a.compact or None, "ranking_explain_level": a.explain,
        "freshness_policy": a.freshness})
    return _emit_tool(a, payload, err, _render_results)


def cmd_locate(a: argparse.Namespace) -> int:
    payload, err = _tool(a, "locate_symbol", {
        "name": a.name, "kind": a.kind, "role": a.role, "language": a.lang, "limit": a.limit, "ref": a.ref,
        "detail_level": a.detail, "compact": a.compact or None, "ranking_explain_level": a.explain,
        "freshness_policy": a.freshness})
    return _emit_tool(a, payload, err, _render_results)


def cmd_outline(a: argparse.Namespace) -> int:
    def render(p: dict[str, Any]) -> None:
        stack = [(s, 0) for s in reversed(p["symbols"])]
        while stack:
            s, depth = stack.pop()
            owner = f"impl {_human(s['impl'])}: " if "impl" in s else ""
            print(f"{'  ' * depth}{s['line_start']}-{s['line_end']}\t{s['kind']}\t{owner}"
                  f"{_human(s.get('signature') or s['name'])}")
            stack.extend((c, depth + 1) for c in reversed(s.get("children", [])))

    payload, err = _tool(a, "get_file_outline", {"path": a.file, "depth": a.depth, "ref": a.ref})
    return _emit_tool(a, payload, err, render)


def cmd_refs(a: argparse.Namespace) -> int:
    def render(p: dict[str, Any]) -> None:
        for r in p.get("references", []):
            print(f"{_human(r['path'])}:{r['line_start']}\t{r['edge_type']}\t{_human(r.get('from_symbol') or '')}\t"
                  f"{_human(r.get('context', ''))}")
        for t in p.get("test_references", []):
            print(f"{_human(t['path'])}:{','.join(map(str, t['lines']))}\t{t['edge_type']}\t(test)")
        folded = f", {p['imports_folded']} import lines folded into uses (--kind imports lists them)" \
            if p.get("imports_folded") else ""
        if p.get("redefinitions"):
            folded += f", {len(p['redefinitions'])} head lines of its own later definitions (--json: redefinitions)"
        owner = p.get("constructor_of")
        if owner:
            folded += f"; a constructor: its callers call the class (cruxe refs {_human(owner['qualified_name'])} --kind calls)"
        for spec in p.get("interfaces", []):
            folded += (f"; {spec['calls']} call(s) through the interface it implements (cruxe refs "
                       f"{_human(spec['qualified_name'])} --file {_human(spec['path'])} --line {spec['line_start']} --kind calls)")
        print(f"-- {p.get('total_references', 0)} resolved, {p.get('unresolved_count', 0)} unresolved{folded}",
              file=sys.stderr)

    payload, err = _tool(a, "find_references", {"symbol_name": a.name, "path": a.file, "line": a.line,
                                                "kind": a.kind, "limit": a.limit, "ref": a.ref})
    return _emit_tool(a, payload, err, render)


def cmd_status(a: argparse.Namespace) -> int:
    def render(p: dict[str, Any]) -> None:
        print(f"{_human(p['repo_root'])} ({p['project_id']}) ref {_human(p['ref'])}: {p['index_status']}, {p['schema_status']}, "
              f"{p['freshness_status']}; {p['file_count']} files, {p['symbol_count']} symbols, "
              f"last indexed {p['last_indexed_at']}")
        if p.get("active_job"):
            print(f"active job: {to_json(p['active_job'])}")

    payload, err = _tool(a, "index_status", {"ref": a.ref})
    return _emit_tool(a, payload, err, render)


def cmd_serve_mcp(a: argparse.Namespace) -> int:
    from .serve import serve

    return serve(a.path, a.cfg, transport=a.transport, bind=a.bind, port=a.port,
                 token=a.token or os.environ.get("CRUXE_HTTP_TOKEN"), prewarm=not a.no_prewarm,
                 watch=a.watch or a.cfg.index.watch)


# ---- parser --------------------------------------------------------------------------------

def _port(text: str) -> int:
    """argparse type: a TCP port number (0 lets the system pick a free one)."""
    try:
        value = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (0-65535)") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{value} is not a port number (0-65535)")
    return value


def _common_options() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--path", default=".", help="repository root (default: current directory)")
    common.add_argument("--json", action="store_true", help="machine-readable JSON on stdout")
    common.add_argument("--config", help="an extra config.toml layered over the others")
    common.add_argument("-v", "--verbose", action="count", default=0, help="more logging on stderr")
    return common


def _query_options() -> argparse.ArgumentParser:
    """The options search and locate share, with the choices their tools' schemas accept."""
    query = argparse.ArgumentParser(add_help=False)
    query.add_argument("--ref", help="branch/ref (default: current branch, HEAD when detached, or 'live')")
    query.add_argument("--lang", choices=LANGUAGES)
    query.add_argument("--role", choices=ROLE_VALUES)
    query.add_argument("--limit", type=int, help="results (default: search.default_limit, as for the MCP tools)")
    query.add_argument("--detail", choices=DETAIL_LEVELS, default="signature")
    query.add_argument("--compact", action="store_true")
    query.add_argument("--explain", choices=EXPLAIN_LEVELS)
    query.add_argument("--freshness", choices=FRESHNESS_POLICIES, default="best_effort",
                       help="freshness policy (default for the CLI: best_effort)")
    return query


def _add_init(sub, common: argparse.ArgumentParser, query: argparse.ArgumentParser) -> None:
    s = sub.add_parser("init", parents=[common], help="register the repository (idempotent)")
    s.set_defaults(func=cmd_init)


def _index_options(s: argparse.ArgumentParser) -> None:
    s.add_argument("--ref", help="branch/ref to index (default: current branch, HEAD when detached, or 'live'; "
                   "another ref is read from git's objects, not the working tree)")
    s.add_argument("--workers", type=int, help="parser and reference-resolution processes "
                   "(default: CPU count, at most 4; 1 uses the least memory)")
    s.add_argument("--quiet", action="store_true", help="no progress or summary")
    s.add_argument("--job-id", help=argparse.SUPPRESS)


def _add_index(sub, common: argparse.ArgumentParser, query: argparse.ArgumentParser) -> None:
    s = sub.add_parser("index", parents=[common], help="index the repository (incremental unless --force)")
    s.add_argument("--force", action="store_true", help="rebuild from scratch beside the live index")
    _index_options(s)
    s.set_defaults(func=cmd_index, force=False)


def _add_sync(sub, common: argparse.ArgumentParser, query: argparse.ArgumentParser) -> None:
    s = sub.add_parser("sync", parents=[common], help="incremental re-index of changed files")
    _index_options(s)
    s.set_defaults(func=cmd_sync, force=False)


def _add_watch(sub, common: argparse.ArgumentParser, query: argparse.ArgumentParser) -> None:
    s = sub.add_parser("watch", parents=[common], help="keep the index in step with the files (Ctrl-C stops)")
    s.add_argument("--interval", type=float, help="seconds between checks (default 1)")
    s.add_argument("--poll", action="store_true", help="poll the files instead of using inotify's events (a file "
                   "system that reports none, e.g. some network mounts); polling is the only way off Linux")
    s.add_argument("--workers", type=int, help="processes for a large sync (default: as for index)")
    s.add_argument("--quiet", action="store_true", help="no line per sync")
    s.set_defaults(func=cmd_watch)


def _add_search(sub, common: argparse.ArgumentParser, query: argparse.ArgumentParser) -> None:
    s = sub.add_parser("search", parents=[common, query], help="ranked search: symbols, paths, errors, prose")
    s.add_argument("query")
    s.add_argument("--plan", action="store_true",
                   help="print the retrieval plan (intent, channels and weights, terms per field) and stop")
    s.set_defaults(func=cmd_search)


def _add_locate(sub, common: argparse.ArgumentParser, query: argparse.ArgumentParser) -> None:
    s = sub.add_parser("locate", parents=[common, query], help="where is NAME defined")
    s.add_argument("name")
    s.add_argument("--kind", help=f"{', '.join(KIND_VALUES)} (aliases: {', '.join(KIND_ALIASES)})")
    s.set_defaults(func=cmd_locate)


def _add_outline(sub, common: argparse.ArgumentParser, query: argparse.ArgumentParser) -> None:
    s = sub.add_parser("outline", parents=[common], help="symbol tree of FILE")
    s.add_argument("file")
    s.add_argument("--depth", choices=OUTLINE_DEPTHS, default="all")
    s.add_argument("--ref")
    s.set_defaults(func=cmd_outline)


def _add_refs(sub, common: argparse.ArgumentParser, query: argparse.ArgumentParser) -> None:
    s = sub.add_parser("refs", parents=[common], help="references to NAME (imports and calls)")
    s.add_argument("name")
    s.add_argument("--file", help="the definition's file, when NAME is defined in several places")
    s.add_argument("--line", type=int, help="with --file: the definition at (or around) this line, when the "
                   "file defines NAME more than once")
    s.add_argument("--kind", choices=REFERENCE_KINDS)
    s.add_argument("--limit", type=int, default=20)
    s.add_argument("--ref")
    s.set_defaults(func=cmd_refs)


def _ref_command(sub, common: argparse.ArgumentParser, name: str, helptext: str, func) -> None:
    """A command whose only own option is `--ref`."""
    s = sub.add_parser(name, parents=[common], help=helptext)
    s.add_argument("--ref")
    s.set_defaults(func=func)


def _add_status(sub, common: argparse.ArgumentParser, query: argparse.ArgumentParser) -> None:
    _ref_command(sub, common, "status", "index state, counts and jobs", cmd_status)


def _add_doctor(sub, common: argparse.ArgumentParser, query: argparse.ArgumentParser) -> None:
    _ref_command(sub, common, "doctor", "check the index, grammars and ignore rules", cmd_doctor)


def _add_tags(sub, common: argparse.ArgumentParser, query: argparse.ArgumentParser) -> None:
    _ref_command(sub, common, "tags", "every indexed symbol (ctags-like; --json: JSON lines)", cmd_tags)


def _add_serve_mcp(sub, common: argparse.ArgumentParser, query: argparse.ArgumentParser) -> None:
    s = sub.add_parser("serve-mcp", parents=[common], help="MCP server on stdio (default) or HTTP")
    s.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    s.add_argument("--bind", default="127.0.0.1", help="HTTP bind address (default: loopback only)")
    s.add_argument("--port", type=_port, default=9100, help="HTTP port, 0-65535 (default 9100; 0 picks a free one)")
    s.add_argument("--token", help="HTTP bearer token (or CRUXE_HTTP_TOKEN)")
    s.add_argument("--no-prewarm", action="store_true", help="skip warming the indices at start")
    s.add_argument("--watch", action="store_true", help="keep the index in step with the files while serving "
                   "(as `cruxe watch`; background syncs need no `balanced` query)")
    s.set_defaults(func=cmd_serve_mcp)


# One builder per command, in the order `cruxe --help` lists them.
_COMMANDS = (_add_init, _add_index, _add_sync, _add_watch, _add_search, _add_locate, _add_outline, _add_refs,
             _add_status, _add_doctor, _add_tags, _add_serve_mcp)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="cruxe", description="Local code search and navigation for AI coding agents.")
    p.add_argument("--version", action="version", version=f"cruxe {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    common, query = _common_options(), _query_options()
    for add in _COMMANDS:
        add(sub, common, query)
    return p


def _print_error(err: dict[str, Any]) -> None:
    print(f"error[{err['code']}]: {err['message']}", file=sys.stderr)
    data = err.get("data") or {}
    remedy = data.get("remedy")
    if remedy:
        print(f"  remedy: {remedy}", file=sys.stderr)
    definitions = data.get("definitions") or []
    for d in definitions:  # ambiguous_symbol: the candidates to pick from
        print(f"  {d.get('path')}:{d.get('line_start')}\t{d.get('kind')}\t{d.get('qualified_name')}", file=sys.stderr)
    if definitions:
        print("  (on the command line: `cruxe refs NAME --file PATH [--line N]`, or NAME as a qualified name)",
              file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    from .procs import isolate_children

    isolate_children()  # before any child process: none may import from the repository
    parser = build_parser()
    a = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    try:
        from .config import load_config

        a.cfg = load_config(a.path if os.path.isdir(a.path) else None, a.config)
        level = logging.getLevelName(a.cfg.log.level.upper())
        logging.getLogger().setLevel(level - 10 * min(a.verbose, 2) if a.verbose else level)
        return a.func(a)
    except CruxeError as e:
        if a.json:
            _print_json({"error": e.to_dict()})
        else:
            _print_error(e.to_dict())
        return EXIT_BUSY if e.code in BUSY_CODES else EXIT_ERROR
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `cruxe tags | head`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        return EXIT_OK
    except Exception as e:  # noqa: BLE001 - the edge: a bug is reported, not dumped as a traceback
        logging.getLogger("cruxe").debug("unexpected failure", exc_info=True)
        err = CruxeError("internal_error", f"{type(e).__name__}: {e}"[:500]).to_dict()
        _print_json({"error": err}) if a.json else _print_error(err)
        print("  (run with -vv for the traceback)", file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
