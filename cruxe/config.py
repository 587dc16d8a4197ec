"""Layered settings, normalised once into frozen records.

Layers, lowest first: built-in defaults < `$CRUXE_HOME/config.toml` < `<repo>/.cruxe/config.toml`
< an explicit `--config FILE` < `CRUXE_*` environment variables. Values are merged key by key
(a later layer replaces one key, not a whole section), then each key is validated once: a value
of the wrong type, an unknown enum member or a number out of range falls back to the canonical
default with a logged warning, recorded in `Config.warnings` so `doctor` can show it. A config
problem never stops a query; only an explicit `--config` path that does not exist is an error,
because the user named that file on purpose.

`<repo>/.cruxe/config.toml` comes with the repository and is untrusted: it may only lower the
resource limits (`LIMIT_KEYS`), and it is read only as a bounded regular file inside the
repository (`safeio`; a symlink leading out of it is not followed).

`[search]` is the canonical section; `[query]` (the older spelling of spec 03) is read as
`[search]`, and when one file sets a key in both, `[search]` wins. The legacy
`debug.ranking_reasons` flag only applies when no layer sets `search.ranking_explain_level`.
"""
from __future__ import annotations

import logging
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from .errors import invalid_input
from .safeio import read_prefix

log = logging.getLogger(__name__)

FRESHNESS_POLICIES: tuple[str, ...] = ("strict", "balanced", "best_effort")
EXPLAIN_LEVELS: tuple[str, ...] = ("off", "basic", "full")
LOG_LEVELS: tuple[str, ...] = ("debug", "info", "warning", "error", "critical")

# Bounds with their reasons. Responses below 1 KiB cannot hold one signature-level result;
# above 16 MiB an agent's context is flooded long before the limit helps.
MIN_RESPONSE_BYTES = 1024
MAX_RESPONSE_BYTES = 16 * 1024 * 1024
MAX_LIMIT = 100  # the tools' own ceiling for `limit`
# Results per search_code / locate_symbol answer unless asked: 5, not CONTRACTS' 10 (DEPARTURES.md).
DEFAULT_LIMIT = 5
MAX_FILE_BYTES = 1 << 20  # spec 01: files over 1 MiB are skipped (generated or data files)
# The range `index.max_file_bytes` may be set in: files above 64 MiB are data, not code; a
# limit below 1 KiB would leave nothing useful to index.
MAX_FILE_BYTES_FLOOR, MAX_FILE_BYTES_CEILING = 1024, 64 * 1024 * 1024
MAX_WORKERS = 64
# The scan fails past its time limit rather than hold the writer lock for ever (a hostile
# ignore file, a hung network mount). A large monorepo on a slow disk walks in well under the
# default; a day is the most anyone could mean.
DEFAULT_SCAN_TIMEOUT_S, MAX_SCAN_TIMEOUT_S = 300, 86_400

CONFIG_FILE = "config.toml"
# A config file holds a few dozen keys; anything this large is not one, and is not read whole.
CONFIG_FILE_LIMIT = 1024 * 1024
REPO_CONFIG_DIR = ".cruxe"


def default_workers(requested: int | None = None) -> int:
    """The one worker-count rule, for parser and resolution processes alike: `requested`
    (--workers, `index.workers`) or else the CPU count, never more than the CPUs or 4 (more
    rarely pays on a laptop and starves the server), never fewer than 1."""
    cpus = os.cpu_count() or 1
    return max(1, min(requested or cpus, cpus, 4))


@dataclass(frozen=True, slots=True)
class SearchConfig:
    freshness_policy: str = "balanced"
    ranking_explain_level: str = "off"
    max_response_bytes: int = 65536
    default_limit: int = DEFAULT_LIMIT


@dataclass(frozen=True, slots=True)
class IndexConfig:
    max_file_bytes: int = MAX_FILE_BYTES
    workers: int = field(default_factory=default_workers)
    scan_timeout_s: int = DEFAULT_SCAN_TIMEOUT_S
    watch: bool = False  # serve-mcp keeps the index in step with the files (as `serve-mcp --watch`)


@dataclass(frozen=True, slots=True)
class LogConfig:
    level: str = "warning"  # stderr is shared with the MCP host's logs: quiet by default


def cruxe_home(env: Mapping[str, str] | None = None) -> Path:
    """`$CRUXE_HOME`, else `~/.cruxe` (tests and benchmarks point it at a temp dir)."""
    env = os.environ if env is None else env
    value = env.get("CRUXE_HOME", "").strip()
    return Path(value).expanduser() if value else Path("~/.cruxe").expanduser()


@dataclass(frozen=True, slots=True)
class Config:
    search: SearchConfig = field(default_factory=SearchConfig)
    index: IndexConfig = field(default_factory=IndexConfig)
    log: LogConfig = field(default_factory=LogConfig)
    home: Path = field(default_factory=cruxe_home)
    sources: tuple[str, ...] = ()  # config files actually read, lowest layer first
    warnings: tuple[str, ...] = ()


# ---- value parsers: raw value -> canonical value, or ValueError(reason) ---------------------

Parser = Callable[[Any], Any]


def _enum(values: tuple[str, ...], aliases: Mapping[str, str] | None = None) -> Parser:
    def parse(raw: Any) -> str:
        if not isinstance(raw, str):
            raise ValueError(f"expected one of {'|'.join(values)}, got {type(raw).__name__}")
        v = raw.strip().lower().replace("-", "_")
        v = (aliases or {}).get(v, v)
        if v not in values:
            raise ValueError(f"expected one of {'|'.join(values)}, got {raw!r}")
        return v
    return parse


def _int_range(lo: int, hi: int) -> Parser:
    def parse(raw: Any) -> int:
        if isinstance(raw, bool) or not isinstance(raw, int):
            raise ValueError(f"expected an integer, got {type(raw).__name__}")
        if not lo <= raw <= hi:
            raise ValueError(f"expected {lo}..{hi}, got {raw}")
        return raw
    return parse


def _bool(raw: Any) -> bool:
    if not isinstance(raw, bool):
        raise ValueError(f"expected true or false, got {raw!r}")
    return raw


def _int_text(text: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise ValueError(f"expected an integer, got {text!r}") from None


def _bool_text(text: str) -> bool:
    v = text.strip().lower()
    if v in ("1", "true", "yes", "on"):
        return True
    if v in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"expected true or false, got {text!r}")


@dataclass(frozen=True, slots=True)
class _Key:
    parse: Parser
    from_text: Callable[[str], Any] = str  # how an environment string becomes a TOML-like value
    env: str = ""


# (section, key) -> how to read it. `default` values live in the dataclasses above.
_KEYS: dict[tuple[str, str], _Key] = {
    ("search", "freshness_policy"): _Key(_enum(FRESHNESS_POLICIES), env="CRUXE_FRESHNESS_POLICY"),
    ("search", "ranking_explain_level"): _Key(_enum(EXPLAIN_LEVELS), env="CRUXE_RANKING_EXPLAIN_LEVEL"),
    ("search", "max_response_bytes"): _Key(_int_range(MIN_RESPONSE_BYTES, MAX_RESPONSE_BYTES), _int_text,
                                           "CRUXE_MAX_RESPONSE_BYTES"),
    ("search", "default_limit"): _Key(_int_range(1, MAX_LIMIT), _int_text, "CRUXE_DEFAULT_LIMIT"),
    ("index", "max_file_bytes"): _Key(_int_range(MAX_FILE_BYTES_FLOOR, MAX_FILE_BYTES_CEILING), _int_text,
                                      "CRUXE_MAX_FILE_BYTES"),
    ("index", "workers"): _Key(_int_range(1, MAX_WORKERS), _int_text, "CRUXE_WORKERS"),
    ("index", "scan_timeout_s"): _Key(_int_range(1, MAX_SCAN_TIMEOUT_S), _int_text, "CRUXE_SCAN_TIMEOUT_S"),
    ("index", "watch"): _Key(_bool, _bool_text, "CRUXE_WATCH"),
    ("log", "level"): _Key(_enum(LOG_LEVELS, {"warn": "warning", "fatal": "critical"}), env="CRUXE_LOG_LEVEL"),
    ("debug", "ranking_reasons"): _Key(_bool, _bool_text, "CRUXE_DEBUG_RANKING_REASONS"),
}
# Resource limits (sizes, counts, processes): a repository's own config may only lower them.
LIMIT_KEYS = frozenset({("search", "max_response_bytes"), ("search", "default_limit"),
                        ("index", "max_file_bytes"), ("index", "workers")})
_SECTION_ALIASES = {"query": "search"}
_LIMIT_SECTIONS: dict[str, Callable[[], Any]] = {"search": SearchConfig, "index": IndexConfig}
_SECTIONS = frozenset(s for s, _ in _KEYS)
ENV_VARS: dict[str, tuple[str, str]] = {k.env: sk for sk, k in _KEYS.items() if k.env}

# A merged layer: (section, key) -> (raw value, where it came from)
_Raw = dict[tuple[str, str], tuple[Any, str]]


# ---- layers -------------------------------------------------------------------------------

def _read_toml(path: Path, warnings: list[str], confine_to: Path | None = None) -> dict[str, Any] | None:
    """One config file, or None when it is absent or unusable (with a warning). The file is
    read without blocking and only when regular and at most CONFIG_FILE_LIMIT bytes: a FIFO
    or a link to `/dev/zero` in a repository must not hang or exhaust Cruxe. With
    `confine_to` (the repository's own file), a symlink leading out of it is not followed."""
    if confine_to is not None and not (os.path.lexists(path) and _confined(path, confine_to, warnings)):
        return None
    try:
        data = read_prefix(path, CONFIG_FILE_LIMIT, follow=True, whole=True)
        return tomllib.loads(data.decode("utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError) as e:
        reason = "nested too deeply" if isinstance(e, RecursionError) else e
        warnings.append(f"{path}: cannot read config ({reason}); its settings are ignored")
        return None


def _confined(path: Path, root: Path, warnings: list[str]) -> bool:
    # the same rule as a symlinked .gitignore: a link out of the repository is not read
    target, top = os.path.realpath(path), os.path.realpath(root)
    if target == top or target.startswith(top + os.sep):
        return True
    warnings.append(f"{path}: symlink points outside the repository; not read")
    return False


def _flatten(doc: Mapping[str, Any], source: str, warnings: list[str]) -> _Raw:
    """One file's tables as (section, key) pairs; `[query]` read as `[search]`, `[search]` winning."""
    out: _Raw = {}
    # Aliased sections first, so the canonical section of the same file overrides them.
    for section in sorted(doc, key=lambda s: s not in _SECTION_ALIASES):
        table = doc[section]
        canonical = _SECTION_ALIASES.get(section, section)
        if canonical not in _SECTIONS:
            warnings.append(f"{source}: unknown section [{section}] ignored")
            continue
        if not isinstance(table, dict):
            warnings.append(f"{source}: [{section}] must be a table; ignored")
            continue
        for key, value in table.items():
            if (canonical, key) not in _KEYS:
                warnings.append(f"{source}: unknown key {section}.{key} ignored")
                continue
            out[(canonical, key)] = (value, f"{source}: {section}.{key}")
    return out


def _env_layer(env: Mapping[str, str], warnings: list[str]) -> _Raw:
    out: _Raw = {}
    for name in sorted(ENV_VARS):
        text = env.get(name, "")
        if not text.strip():
            continue  # an empty variable means "unset", as shells commonly use it
        section_key = ENV_VARS[name]
        try:
            out[section_key] = (_KEYS[section_key].from_text(text), name)
        except ValueError as e:
            warnings.append(f"{name}: {e}; ignored")
    return out


def _layer_paths(repo_root: str | None, explicit: str | None, home: Path) -> list[tuple[Path, Path | None]]:
    """(path, the repository root for the untrusted repository layer, else None), lowest first."""
    paths: list[tuple[Path, Path | None]] = [(home / CONFIG_FILE, None)]
    if repo_root:
        paths.append((Path(repo_root) / REPO_CONFIG_DIR / CONFIG_FILE, Path(repo_root)))
    if explicit:
        path = Path(explicit).expanduser()
        if not path.is_file():
            raise invalid_input(f"config file not found: {explicit}", path=str(path))
        paths.append((path, None))
    return paths


def _lower_only(layer: _Raw, below: _Raw, warnings: list[str]) -> _Raw:
    """The repository layer without the resource limits it would raise (or set to an invalid
    value, which would fall back to a default above the user's own): a repository may only
    lower what the built-in defaults and the user's config allow."""
    out = dict(layer)
    for key in LIMIT_KEYS & layer.keys():
        ceiling = _value(below, *key, getattr(_LIMIT_SECTIONS[key[0]](), key[1]), [])
        value, source = layer[key]
        try:
            value = _KEYS[key].parse(value)
        except ValueError as e:
            warnings.append(f"{source}: {e}; ignored (a repository may only lower {key[0]}.{key[1]})")
            del out[key]
            continue
        if value > ceiling:
            warnings.append(f"{source}: {value} is above {ceiling}; ignored (a repository may only lower "
                            f"{key[0]}.{key[1]}: raise it in $CRUXE_HOME/config.toml, --config or {_KEYS[key].env})")
            del out[key]
    return out


# ---- normalisation ------------------------------------------------------------------------

def _value(raw: _Raw, section: str, key: str, default: Any, warnings: list[str]) -> Any:
    if (section, key) not in raw:
        return default
    value, source = raw[(section, key)]
    try:
        return _KEYS[(section, key)].parse(value)
    except ValueError as e:
        warnings.append(f"{source}: {e}; using default {default!r}")
        return default


def _explain_level(raw: _Raw, default: str, warnings: list[str]) -> str:
    # Precedence of spec 04: search.ranking_explain_level, then legacy debug.ranking_reasons.
    if ("search", "ranking_explain_level") in raw:
        return _value(raw, "search", "ranking_explain_level", default, warnings)
    legacy = _value(raw, "debug", "ranking_reasons", None, warnings)
    if legacy is None:
        return default
    return "full" if legacy else "off"


def _normalise(raw: _Raw, warnings: list[str]) -> tuple[SearchConfig, IndexConfig, LogConfig]:
    s, i, lg = SearchConfig(), IndexConfig(), LogConfig()
    search = SearchConfig(
        freshness_policy=_value(raw, "search", "freshness_policy", s.freshness_policy, warnings),
        ranking_explain_level=_explain_level(raw, s.ranking_explain_level, warnings),
        max_response_bytes=_value(raw, "search", "max_response_bytes", s.max_response_bytes, warnings),
        default_limit=_value(raw, "search", "default_limit", s.default_limit, warnings),
    )
    index = IndexConfig(
        max_file_bytes=_value(raw, "index", "max_file_bytes", i.max_file_bytes, warnings),
        workers=_value(raw, "index", "workers", i.workers, warnings),
        scan_timeout_s=_value(raw, "index", "scan_timeout_s", i.scan_timeout_s, warnings),
        watch=_value(raw, "index", "watch", i.watch, warnings),
    )
    return search, index, LogConfig(level=_value(raw, "log", "level", lg.level, warnings))


def load_config(repo_root: str | None, explicit: str | None = None,
                env: Mapping[str, str] | None = None) -> Config:
    """Read every layer, merge key by key, validate once. Never raises for bad values."""
    env = os.environ if env is None else env
    home = cruxe_home(env)
    warnings: list[str] = []
    raw: _Raw = {}
    sources: list[str] = []
    for path, repo in _layer_paths(repo_root, explicit, home):
        doc = _read_toml(path, warnings, confine_to=repo)
        if doc is not None:
            sources.append(str(path))
            layer = _flatten(doc, str(path), warnings)
            raw.update(_lower_only(layer, raw, warnings) if repo is not None else layer)
    raw.update(_env_layer(env, warnings))
    search, index, log_cfg = _normalise(raw, warnings)
    for w in warnings:
        log.warning("config: %s", w)
    return Config(search=search, index=index, log=log_cfg, home=home,
                  sources=tuple(sources), warnings=tuple(warnings))


# ---- per-request resolution (request > config) -------------------------------------------

def _resolve(name: str, request_value: str | None, configured: str, allowed: tuple[str, ...]) -> str:
    if request_value is None:
        return configured
    if request_value not in allowed:
        raise invalid_input(f"{name} must be one of {'|'.join(allowed)}, got {request_value!r}",
                            argument=name, allowed=list(allowed))
    return request_value


def resolve_explain_level(request_value: str | None, cfg: Config) -> str:
    return _resolve("ranking_explain_level", request_value, cfg.search.ranking_explain_level, EXPLAIN_LEVELS)


def resolve_freshness_policy(request_value: str | None, cfg: Config) -> str:
    return _resolve("freshness_policy", request_value, cfg.search.freshness_policy, FRESHNESS_POLICIES)
