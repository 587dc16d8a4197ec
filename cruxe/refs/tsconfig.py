"""What a TypeScript / JavaScript repository says about bare import specifiers outside its code.

All of it is UNTRUSTED repository content, read only through the index (`Graph.read_text`, the
indexed text of the repository's own files), so nothing outside the repository root is ever
read; malformed JSON is a logged warning and the file counts as absent.

- tsconfig.json, else jsconfig.json, of the nearest directory whose merged options map
  anything: `compilerOptions.baseUrl` (relative to the file that declares it) and `paths`
  (relative to the baseUrl, else to the file that declares them), merged along `extends`
  (a string or, as TypeScript 5 allows, a list; later ones win, the file itself last). Only
  relative `extends` inside the repository are followed (a package's shared config lives in
  node_modules, never indexed), at most MAX_EXTENDS deep, a cycle cut.
- package.json: a package's `name` maps an import of it (`name`, `name/sub`) into its directory,
  through `exports` (subpaths, `*` patterns, conditions: `types` first) or `types` / `module` /
  `main`; how a package imports itself, and how one workspace package of a monorepo imports
  another (a member of a `workspaces` glob or of pnpm-workspace.yaml's `packages`; any other
  package.json, a test fixture's, is reached by no name from outside it). A `#name` specifier goes through the `imports` of the package.json nearest above
  the importing file. A target under an output directory that is not in the repository (`dist/x.d.ts`)
  is looked for as its source (`src/x.ts`), where a build puts it.
"""
from __future__ import annotations

import json
import logging
import posixpath
import re
from typing import Callable, NamedTuple

log = logging.getLogger(__name__)

CONFIG_NAMES = ("tsconfig.json", "jsconfig.json")
MAX_EXTENDS = 8       # extends chains in real repositories are two or three deep
MAX_EXTENDS_LIST = 8  # entries of one `extends` list
MAX_PACKAGES = 2000   # package.json files read (a large monorepo holds a few hundred)
MAX_CONDITION_DEPTH = 6
MAX_WORKSPACE_GLOBS = 64
# conditions of an `exports` entry, the ones naming sources or declarations first
CONDITIONS = ("types", "typings", "import", "module", "default", "require", "node", "browser")
_DECLARATION = re.compile(r"\.d\.[mc]?ts$|\.[mc]?jsx?$")
MAX_CONFIG_CHARS = 1 << 20  # a config or package.json past this is no hand-written one: ignored
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


class Mapping(NamedTuple):
    """A config's merged specifier mapping: `base` the baseUrl's directory (None without one),
    `paths` the patterns as written with their targets, `paths_dir` the directory targets are
    relative to."""
    base: str | None
    paths: tuple[tuple[str, tuple[str, ...]], ...]
    paths_dir: str


class Package(NamedTuple):
    name: str
    directory: str
    exports: object  # the `exports` value as written (None without one)
    imports: object  # the `imports` value as written (`#name` specifiers)
    entry: tuple[str, ...]  # `types`, `typings`, `module`, `main` as written, in that order
    workspaces: tuple[str, ...] = ()  # `workspaces` globs as written (a monorepo's root)


def parse_jsonc(text: str, path: str) -> dict | None:
    """A JSON object written with comments and trailing commas (tsconfig style), None when it is
    not one (logged: a repository's broken config must not stop indexing)."""
    if len(text) > MAX_CONFIG_CHARS:
        log.warning("%s: larger than %d characters, ignored for import resolution", path, MAX_CONFIG_CHARS)
        return None
    cleaned = _TRAILING_COMMA.sub(r"\1", strip_comments(text))
    try:
        data = json.loads(cleaned)
    except (ValueError, RecursionError):
        log.warning("%s: not valid JSON, ignored for import resolution", path)
        return None
    return data if isinstance(data, dict) else None


def strip_comments(text: str) -> str:
    """`text` without its `//` and `/* */` comments, strings kept as written; one pass (a
    pattern that retried an unterminated string or comment from every quote took quadratic
    time on a crafted file). An unterminated comment or string runs to the end."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        j = _next_special(text, i)
        out.append(text[i:j])
        if j >= n:
            break
        if text[j] == '"':
            k = j + 1
            while k < n and text[k] != '"':
                k += 2 if text[k] == "\\" else 1
            out.append(text[j:k + 1])
            i = k + 1
        elif text.startswith("//", j):
            k = text.find("\n", j)
            i = n if k < 0 else k
        else:  # /*
            k = text.find("*/", j + 2)
            i = n if k < 0 else k + 2
            out.append(" ")
    return "".join(out)


_SPECIAL = re.compile(r'"|//|/\*')


def _next_special(text: str, i: int) -> int:
    m = _SPECIAL.search(text, i)
    return m.start() if m else len(text)


def inside(path: str) -> str | None:
    """`path` normalised, None when it leaves the repository root (or is absolute)."""
    if path.startswith("/"):
        return None
    norm = posixpath.normpath(path)
    return None if norm == ".." or norm.startswith("../") else ("" if norm == "." else norm)


def join(directory: str, rel: str) -> str | None:
    return inside(posixpath.join(directory, rel) if directory else rel)


class ProjectConfig:
    """tsconfig/jsconfig mappings and package.json packages of one indexed repository."""

    def __init__(self, files: Callable[[], dict[str, str]], read_text: Callable[[str], str | None]):
        self._files = files
        self._read = read_text
        self._json: dict[str, dict | None] = {}
        self._merged: dict[str, dict] = {}
        self._active: set[str] = set()
        self._nearest: dict[str, Mapping | None] = {}
        self._packages: dict[str, list[Package]] | None = None
        self._members: set[str] | None = None

    def read(self, path: str) -> dict | None:
        if path not in self._json:
            text = self._read(path) if path in self._files() else None
            self._json[path] = parse_jsonc(text, path) if text else None
        return self._json[path]

    # ---- tsconfig / jsconfig -----------------------------------------------------------
    def mapping_for(self, directory: str) -> Mapping | None:
        """The mapping of the nearest config at or above `directory` that maps anything."""
        if directory in self._nearest:
            return self._nearest[directory]
        got = None
        for name in CONFIG_NAMES:
            cfg = posixpath.join(directory, name) if directory else name
            if cfg in self._files():
                got = self.mapping(cfg)
                break  # TypeScript reads jsconfig.json only where no tsconfig.json is
        if got is None and directory:
            got = self.mapping_for(posixpath.dirname(directory))
        self._nearest[directory] = got
        return got

    def mapping(self, cfg: str) -> Mapping | None:
        """The config at `cfg` merged along its `extends`, None when it maps nothing."""
        merged = self._merge(cfg, 0)
        base, paths = merged.get("baseUrl"), merged.get("paths")
        if base is None and not paths:
            return None
        paths_dir, table = paths if paths else ("", ())
        return Mapping(base, table, base if base is not None else paths_dir)

    def _merge(self, cfg: str, depth: int) -> dict:
        """{"baseUrl": directory, "paths": (declaring directory, table)}, each from the last
        file of the chain that declares it."""
        if cfg in self._merged:
            return self._merged[cfg]
        if cfg in self._active or depth > MAX_EXTENDS:
            log.warning("%s: extends chain too deep or circular, cut there", cfg)
            return {}
        self._active.add(cfg)
        try:
            data = self.read(cfg) or {}
            out: dict = {}
            for parent in self._extends(cfg, data.get("extends")):
                out.update(self._merge(parent, depth + 1))
            out.update(_own_options(cfg, data.get("compilerOptions")))
        finally:
            self._active.discard(cfg)
        self._merged[cfg] = out
        return out

    def _extends(self, cfg: str, value: object) -> list[str]:
        """The repository files an `extends` value names (relative ones only)."""
        items = [value] if isinstance(value, str) else value if isinstance(value, list) else []
        got = []
        for item in items[:MAX_EXTENDS_LIST]:
            if not isinstance(item, str) or not item.startswith(("./", "../")):
                continue  # a package's config (node_modules) or an absolute path: not ours to read
            target = join(posixpath.dirname(cfg), item)
            if target is None:
                log.warning("%s: extends %r leaves the repository, ignored", cfg, item)
                continue
            found = next((t for t in (target, target + ".json") if t in self._files()), None)
            if found is not None:
                got.append(found)
        return got

    def configs(self) -> list[tuple[str, Mapping]]:
        """Every config file of the repository that maps something, by path."""
        files = self._files()
        return [(p, m) for p in sorted(files) if posixpath.basename(p) in CONFIG_NAMES
                and (m := self.mapping(p)) is not None]

    # ---- package.json ------------------------------------------------------------------
    def packages(self) -> dict[str, list[Package]]:
        """name -> the repository's packages of that name ("": those with `imports` only)."""
        if self._packages is None:
            self._packages = {}
            manifests = sorted(p for p in self._files() if posixpath.basename(p) == "package.json")
            if len(manifests) > MAX_PACKAGES:
                log.warning("%d package.json files: the first %d read for import resolution",
                            len(manifests), MAX_PACKAGES)
            for path in manifests[:MAX_PACKAGES]:
                pkg = _package(path, self.read(path))
                if pkg is not None:
                    self._packages.setdefault(pkg.name, []).append(pkg)
        return self._packages

    def package_of(self, spec: str, from_path: str) -> tuple[Package, str] | None:
        """The repository package a bare specifier names and the subpath in it (`.`, `./x`):
        one enclosing the importing file (a self-import) first, else the only one of that name."""
        parts = spec.split("/")
        n = 2 if spec.startswith("@") else 1
        if len(parts) < n or not all(parts[:n]):
            return None
        found = self.packages().get("/".join(parts[:n]))
        if not found:
            return None
        subpath = "./" + "/".join(parts[n:]) if len(parts) > n else "."
        members = [p for p in found if p.directory in self.workspace_members()]
        pick = _innermost({spec: found}, from_path) or (members[0] if len(members) == 1 else None)
        return (pick, subpath) if pick is not None else None

    def workspace_members(self) -> set[str]:
        """Directories of the packages a monorepo's `workspaces` (package.json) or
        pnpm-workspace.yaml lists: only those are reached by name from outside themselves, as
        through node_modules links (a test fixture's package.json named `react` is not)."""
        if self._members is None:
            globs = [(p.directory, g) for ps in self.packages().values() for p in ps for g in p.workspaces]
            for path in (p for p in self._files() if posixpath.basename(p) == "pnpm-workspace.yaml"):
                globs += [(posixpath.dirname(path), g) for g in _pnpm_globs(self._read(path) or "")]
            dirs = {p.directory for ps in self.packages().values() for p in ps}
            self._members = {d for d in dirs if any(_in_workspace(root, g, d) for root, g in globs)}
        return self._members

    def enclosing_package(self, from_path: str) -> Package | None:
        """The package.json nearest above a file (where its `#name` imports are declared)."""
        return _innermost(self.packages(), from_path)


_PNPM_ITEM = re.compile(r"""^\s*-\s*['"]?([^'"#\s]+)""")


def _pnpm_globs(text: str) -> list[str]:
    """The `packages:` list of a pnpm-workspace.yaml (the one key it has), read line by line."""
    globs, inside = [], False
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line[:1].isspace():
            inside = line.split(":", 1)[0].strip() == "packages"
            continue
        m = _PNPM_ITEM.match(line) if inside else None
        if m and len(globs) < MAX_WORKSPACE_GLOBS:
            globs.append(m.group(1))
    return globs


def _in_workspace(root: str, glob: str, directory: str) -> bool:
    """Whether `directory` is matched by a workspace glob written in `root` (`packages/*`,
    `apps/**`; a `!` glob excludes nothing here: the package still exists)."""
    if glob.startswith("!"):
        return False
    pattern = join(root, glob.strip().removeprefix("./").rstrip("/"))
    if pattern is None or directory == root:
        return False
    rx = "".join(".*" if part == "**" else re.escape(part).replace(r"\*", "[^/]*")
                 for part in re.split(r"(\*\*)", pattern))
    return re.fullmatch(rx, directory) is not None


def _innermost(pkgs: dict[str, list[Package]], from_path: str) -> Package | None:
    mine = [p for ps in pkgs.values() for p in ps if not p.directory or from_path.startswith(p.directory + "/")]
    return max(mine, key=lambda p: len(p.directory)) if mine else None


def _own_options(cfg: str, opts: object) -> dict:
    if not isinstance(opts, dict):
        return {}
    out: dict = {}
    directory = posixpath.dirname(cfg)
    base = opts.get("baseUrl")
    if isinstance(base, str):
        where = join(directory, base)
        if where is None:
            log.warning("%s: baseUrl %r leaves the repository, ignored", cfg, base)
        else:
            out["baseUrl"] = where
    paths = opts.get("paths")
    if isinstance(paths, dict):
        table = tuple((k, tuple(t for t in v if isinstance(t, str))) for k, v in paths.items()
                      if isinstance(k, str) and isinstance(v, list))
        out["paths"] = (directory, table)
    return out


def _package(path: str, data: dict | None) -> Package | None:
    """A package.json's package: a `name`, or `imports` / `workspaces` (read without a name)."""
    name = data.get("name") if data else None
    if not isinstance(name, str) or not name:
        if not data or not isinstance(data.get("imports"), dict) and not data.get("workspaces"):
            return None
        name = ""
    entry = tuple(v for k in ("types", "typings", "module", "main") if isinstance(v := data.get(k), str))
    spaces = data.get("workspaces")
    spaces = spaces.get("packages") if isinstance(spaces, dict) else spaces
    globs = tuple(g for g in spaces[:MAX_WORKSPACE_GLOBS] if isinstance(g, str)) if isinstance(spaces, list) else ()
    return Package(name, posixpath.dirname(path), data.get("exports"), data.get("imports"), entry, globs)


def package_targets(pkg: Package, subpath: str) -> list[str]:
    """Repository paths (as written, not yet checked) that `subpath` of `pkg` names, in order
    of preference; for each, where its source would be when it is a build output."""
    exports = pkg.exports
    if isinstance(exports, (str, list)) or isinstance(exports, dict) and not _is_subpath_map(exports):
        exports = {".": exports}
    if isinstance(exports, dict):
        written = _matched(exports, subpath)
    else:
        written = list(pkg.entry) + ["index"] if subpath == "." else [subpath]
    got = _with_sources(pkg, written)
    if subpath == "." and not got:
        got = [p for p in (join(pkg.directory, "src/index"), join(pkg.directory, "index")) if p is not None]
    return got


def import_targets(pkg: Package, spec: str) -> list[str]:
    """What a `#name` specifier maps to through the package's `imports` (Node's subpath imports):
    its targets inside the package (`./src/x.js`; another package's name leaves it)."""
    if not isinstance(pkg.imports, dict):
        return []
    return _with_sources(pkg, [w for w in _matched(pkg.imports, spec) if w.startswith("./")])


def _matched(table: dict, key: str) -> list[str]:
    """The targets of the entries of an exports/imports table that fit `key` (`*` patterns)."""
    written: list[str] = []
    for pattern, value in table.items():
        if not isinstance(pattern, str):
            continue
        prefix, star, suffix = pattern.partition("*")
        if star and key.startswith(prefix) and key.endswith(suffix) and len(key) >= len(pattern) - 1:
            middle = key[len(prefix):len(key) - len(suffix)]
            written += [t.replace("*", middle) for t in _condition_targets(value, 0)]
        elif not star and pattern == key:
            written += _condition_targets(value, 0)
    return written


def _with_sources(pkg: Package, written: list[str]) -> list[str]:
    got = []
    for w in written:
        target = join(pkg.directory, w)
        if target is not None:
            got.append(target)
            got += _source_of_output(pkg.directory, target)
    return got


def _is_subpath_map(exports: dict) -> bool:
    return any(isinstance(k, str) and k.startswith(".") for k in exports)


def _condition_targets(value: object, depth: int) -> list[str]:
    """The targets of an `exports` value: a path, a list of them, or conditions (see CONDITIONS)."""
    if depth > MAX_CONDITION_DEPTH:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [t for v in value[:MAX_EXTENDS_LIST] for t in _condition_targets(v, depth + 1)]
    if isinstance(value, dict):
        keys = [k for k in CONDITIONS if k in value] + [k for k in value if k not in CONDITIONS]
        return [t for k in keys for t in _condition_targets(value[k], depth + 1)]
    return []


def _source_of_output(directory: str, target: str) -> list[str]:
    """Where the source of a build output (`dist/query/index.d.ts`) would be: its path below the
    output directory, under `src/` and under the package itself (`src/query/index`)."""
    rel = target[len(directory) + 1:] if directory else target
    first, _, rest = rel.partition("/")
    if not rest or first == "src":
        return []
    stem = _DECLARATION.sub("", rest)
    return [p for p in (join(directory, "src/" + stem), join(directory, stem)) if p is not None]
