"""The corpus subsets the agent tasks are written against (one repository per corpus).

Each corpus is a copy of a few source trees under `<work>/repos/<corpus>/`, laid out as listed
here; task paths are relative to that root, and both Cruxe and `rg` run there, so the paths they
print are comparable. Subsets keep one index under a minute on two cores while staying real
code bases of a thousand files or more.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))

from support.locations import CORPORA_ROOT, GO_SRC, RUST_LIBRARY, SHARED, STDLIB, TS_MODULES  # noqa: E402

GO_PACKAGES = ("archive", "bufio", "bytes", "compress", "context", "database", "encoding", "errors",
               "flag", "fmt", "go", "html", "io", "mime", "net", "os", "path", "regexp", "sort",
               "strconv", "strings", "text", "time")
RUST_CRATES = ("alloc", "core", "std", "proc_macro", "test")
TS_PACKAGES = ("zod", "rxjs", "mobx", "@trpc/server", "@tanstack/query-core")

# corpus id -> (language, [(destination relative to the repo root, source directory)])
CORPORA: dict[str, tuple[str, list[tuple[str, Path]]]] = {
    "py-5k": ("python", [("django", CORPORA_ROOT / "sdist/django-5.2.19/django"),
                         ("salt", CORPORA_ROOT / "sdist/salt-3008.5/salt")]),
    "go-5k": ("go", [(p, GO_SRC / p) for p in GO_PACKAGES]),
    "rs-5k": ("rust", [(c, RUST_LIBRARY / c) for c in RUST_CRATES]),
    "ts-real": ("typescript", [(f"{p}/src", TS_MODULES / p / "src") for p in TS_PACKAGES]),
}

# The holdout (issue 17's robustness check): code of the kit outside every tuned subset above,
# for questions nobody tuned on. Python: stdlib packages and modules; Go: std packages not in
# GO_PACKAGES; Rust: crates of the Debian cargo registry (their `src/` only); TypeScript: effect.
PY_STD = ("asyncio", "concurrent", "email", "html", "http", "importlib", "json", "logging", "multiprocessing",
          "urllib", "wsgiref", "xml", "xmlrpc", "argparse.py", "configparser.py", "dataclasses.py", "ftplib.py",
          "imaplib.py", "pathlib.py", "shutil.py", "smtplib.py", "subprocess.py", "tarfile.py", "zipfile.py")
GO_HOLDOUT = ("container", "crypto", "debug", "hash", "image", "log", "math", "sync", "unicode")
RUST_HOLDOUT = ("indexmap-1.9.2", "petgraph-0.6.2", "rayon-1.6.1", "regex-1.7.1", "regex-syntax-0.6.27",
                "serde-1.0.152", "tokio-1.24.2")
CARGO_REGISTRY = Path("/usr/share/cargo/registry")
HOLDOUT: dict[str, tuple[str, list[tuple[str, Path]]]] = {
    "py-std": ("python", [(m, STDLIB / m) for m in PY_STD]),
    "go-hold": ("go", [(p, GO_SRC / p) for p in GO_HOLDOUT]),
    "rs-hold": ("rust", [(f"{c.rsplit('-', 1)[0]}/src", CARGO_REGISTRY / c / "src") for c in RUST_HOLDOUT]),
    "ts-hold": ("typescript", [("effect/src", TS_MODULES / "effect" / "src")]),
}


class Fetch(NamedTuple):
    """A published package fetched from its registry (PyPI sdist or npm tarball) on first use:
    `member` is the directory inside the archive that is copied."""
    registry: str  # "pypi" or "npm"
    spec: str      # "rich==13.7.1", "immer@10.1.1"
    member: str    # "rich-13.7.1", "package/src"


# User probes (issue 17's "try it as a new user would"): whole published projects, tests and
# all, that no other set touches. Their tasks (probes_*.jsonl) are written by reading the code
# before Cruxe is asked; each file keeps its own validation split.
GOCODE = Path("/usr/share/gocode/src/github.com")
PROBES: dict[str, tuple[str, list[tuple[str, Path | Fetch]]]] = {
    "py-probe": ("python", [("rich", Fetch("pypi", "rich==13.7.1", "rich-13.7.1")),
                            ("requests", Fetch("pypi", "requests==2.31.0", "requests-2.31.0"))]),
    "go-probe": ("go", [("cobra", GOCODE / "spf13/cobra"), ("viper", GOCODE / "spf13/viper"),
                        ("validator", GOCODE / "go-playground/validator")]),
    "rs-probe": ("rust", [(c.rsplit("-", 1)[0], CARGO_REGISTRY / c) for c in
                          ("crossbeam-channel-0.5.6", "parking_lot-0.12.1", "bytes-1.2.1", "hashbrown-0.12.3")]),
    "ts-probe": ("typescript", [("redux-toolkit", Fetch("npm", "@reduxjs/toolkit@2.2.7", "package/src")),
                                ("table-core", Fetch("npm", "@tanstack/table-core@8.20.5", "package/src")),
                                ("immer", Fetch("npm", "immer@10.1.1", "package/src"))]),
    # the second round (2026-11-27): projects none of the above or the kit holds
    "py-probe2": ("python", [("werkzeug", Fetch("pypi", "werkzeug==3.0.6", "werkzeug-3.0.6")),
                             ("attrs", Fetch("pypi", "attrs==24.2.0", "attrs-24.2.0")),
                             ("marshmallow", Fetch("pypi", "marshmallow==3.23.1", "marshmallow-3.23.1"))]),
    "go-probe2": ("go", [("goldmark", GOCODE / "yuin/goldmark"), ("toml", GOCODE / "BurntSushi/toml"),
                         ("mapstructure", GOCODE / "mitchellh/mapstructure"), ("fsnotify", GOCODE / "fsnotify/fsnotify")]),
    "rs-probe2": ("rust", [(c.rsplit("-", 1)[0], CARGO_REGISTRY / c) for c in
                           ("tracing-0.1.37", "tracing-core-0.1.30", "rand-0.8.5", "rand_core-0.6.3", "memchr-2.5.0",
                            "mio-0.8.4", "smallvec-1.9.0")]),
    "ts-probe2": ("typescript", [("tiptap-core", Fetch("npm", "@tiptap/core@2.9.1", "package/src")),
                                 ("prosemirror-model", Fetch("npm", "prosemirror-model@1.23.0", "package/src")),
                                 ("prosemirror-transform", Fetch("npm", "prosemirror-transform@1.10.2", "package/src"))]),
    # the third round (2026-11-27, afternoon): again projects no other set holds
    "py-probe3": ("python", [("click", Fetch("pypi", "click==8.1.7", "click-8.1.7")),
                             ("jinja2", Fetch("pypi", "jinja2==3.1.4", "jinja2-3.1.4")),
                             ("httpx", Fetch("pypi", "httpx==0.27.2", "httpx-0.27.2"))]),
    "go-probe3": ("go", [("gin", GOCODE / "gin-gonic/gin"), ("hcl", GOCODE / "hashicorp/hcl"),
                         ("afero", GOCODE / "spf13/afero"), ("sftp", GOCODE / "pkg/sftp")]),
    "rs-probe3": ("rust", [(c.rsplit("-", 1)[0], CARGO_REGISTRY / c) for c in
                           ("crossbeam-epoch-0.9.13", "crossbeam-utils-0.8.12", "crossbeam-deque-0.8.1",
                            "bumpalo-3.12.0", "once_cell-1.17.0", "proc-macro2-1.0.47", "quickcheck-1.0.3",
                            "socket2-0.4.4", "ahash-0.7.6", "either-1.6.1", "lock_api-0.4.9")]),
    "ts-probe3": ("typescript", [("redux", Fetch("npm", "redux@5.0.1", "package/src")),
                                 ("reselect", Fetch("npm", "reselect@5.1.1", "package/src")),
                                 ("msgpack", Fetch("npm", "@msgpack/msgpack@3.0.0-beta2", "package/src")),
                                 ("form-core", Fetch("npm", "@tanstack/form-core@0.35.0", "package/src")),
                                 ("trpc-client", Fetch("npm", "@trpc/client@10.45.2", "package/src"))]),
    # the fourth round: again projects no other set holds
    "py-probe4": ("python", [("urllib3", Fetch("pypi", "urllib3==2.2.3", "urllib3-2.2.3")),
                             ("packaging", Fetch("pypi", "packaging==24.1", "packaging-24.1")),
                             ("tomlkit", Fetch("pypi", "tomlkit==0.13.2", "tomlkit-0.13.2")),
                             ("itsdangerous", Fetch("pypi", "itsdangerous==2.2.0", "itsdangerous-2.2.0"))]),
    "go-probe4": ("go", [("go-cmp", GOCODE / "google/go-cmp"), ("blackfriday", GOCODE / "russross/blackfriday"),
                         ("pflag", GOCODE / "spf13/pflag"), ("cast", GOCODE / "spf13/cast"),
                         ("properties", GOCODE / "magiconair/properties")]),
    "rs-probe4": ("rust", [(c.rsplit("-", 1)[0], CARGO_REGISTRY / c) for c in
                           ("log-0.4.17", "spin-0.9.5", "fixedbitset-0.4.2", "rayon-core-1.10.1", "tiny-keccak-2.0.2",
                            "arbitrary-1.1.3", "parking_lot_core-0.9.3", "scopeguard-1.1.0")]),
    "ts-probe4": ("typescript", [("trpc-server", Fetch("npm", "@trpc/server@10.45.2", "package/src")),
                                 ("prosemirror-view", Fetch("npm", "prosemirror-view@1.34.3", "package/src")),
                                 ("prosemirror-state", Fetch("npm", "prosemirror-state@1.4.3", "package/src")),
                                 ("virtual-core", Fetch("npm", "@tanstack/virtual-core@3.10.8", "package/src")),
                                 ("signals-core", Fetch("npm", "@preact/signals-core@1.8.0", "package/src"))]),
    "py-probe5": ("python", [("markdown", Fetch("pypi", "markdown==3.7", "markdown-3.7")),
                             ("dateutil", Fetch("pypi", "python-dateutil==2.9.0.post0", "python-dateutil-2.9.0.post0")),
                             ("more-itertools", Fetch("pypi", "more-itertools==10.5.0", "more-itertools-10.5.0")),
                             ("pyparsing", Fetch("pypi", "pyparsing==3.1.4", "pyparsing-3.1.4"))]),
    "go-probe5": ("go", [("testify", GOCODE / "stretchr/testify"), ("go-toml", GOCODE / "pelletier/go-toml"),
                         ("errors", GOCODE / "pkg/errors"), ("go-spew", GOCODE / "davecgh/go-spew"),
                         ("go-difflib", GOCODE / "pmezard/go-difflib"), ("objx", GOCODE / "stretchr/objx"),
                         ("gotenv", GOCODE / "subosito/gotenv")]),
    "rs-probe5": ("rust", [(c.rsplit("-", 1)[0], CARGO_REGISTRY / c) for c in
                           ("syn-1.0.107", "quote-1.0.21", "erased-serde-0.3.23", "num_cpus-1.14.0", "getrandom-0.2.8",
                            "signal-hook-registry-1.4.0", "rand_chacha-0.3.1", "value-bag-1.0.0-alpha.9", "autocfg-1.1.0",
                            "version_check-0.9.4")]),
    "ts-probe5": ("typescript", [("mobx", Fetch("npm", "mobx@6.13.5", "package/src")),
                                 ("query-core", Fetch("npm", "@tanstack/query-core@5.59.0", "package/src")),
                                 ("react-query", Fetch("npm", "@tanstack/react-query@5.59.0", "package/src")),
                                 ("prosemirror-commands", Fetch("npm", "prosemirror-commands@1.6.0", "package/src")),
                                 ("prosemirror-history", Fetch("npm", "prosemirror-history@1.4.1", "package/src")),
                                 ("prosemirror-inputrules", Fetch("npm", "prosemirror-inputrules@1.4.0", "package/src"))]),
    # the sixth round
    "go-probe6": ("go", [("mux", GOCODE / "gorilla/mux"), ("websocket", GOCODE / "gorilla/websocket"),
                         ("logrus", GOCODE / "sirupsen/logrus"), ("cli", GOCODE / "urfave/cli"),
                         ("uuid", GOCODE / "google/uuid"), ("yaml", Path("/usr/share/gocode/src/gopkg.in/yaml.v3"))]),
    "py-probe6": ("python", [("sqlparse", Fetch("pypi", "sqlparse==0.5.1", "sqlparse-0.5.1")),
                             ("h11", Fetch("pypi", "h11==0.14.0", "h11-0.14.0")),
                             ("jsonschema", Fetch("pypi", "jsonschema==4.23.0", "jsonschema-4.23.0")),
                             ("boltons", Fetch("pypi", "boltons==24.0.0", "boltons-24.0.0"))]),
    "ts-probe6": ("typescript", [("db", Fetch("npm", "@tanstack/db@0.15.2", "package/src")),
                                 ("db-ivm", Fetch("npm", "@tanstack/db-ivm@0.2.0", "package/src")),
                                 ("router-core", Fetch("npm", "@tanstack/router-core@1.171.39", "package/src")),
                                 ("pacer", Fetch("npm", "@tanstack/pacer@0.22.0", "package/src")),
                                 ("store", Fetch("npm", "@tanstack/store@0.11.2", "package/src")),
                                 ("history", Fetch("npm", "@tanstack/history@1.162.5", "package/src"))]),
    "rs-probe6": ("rust", [(c.rsplit("-", 1)[0], CARGO_REGISTRY / c) for c in
                           ("serde_json-1.0.87", "anyhow-1.0.69", "itertools-0.10.3", "nom-7.1.1", "semver-1.0.14",
                            "walkdir-2.3.2", "url-2.3.1", "base64-0.13.0")]),
    # the seventh round
    "rs-probe7": ("rust", [(c.rsplit("-", 1)[0], CARGO_REGISTRY / c) for c in
                           ("flate2-1.0.25", "miniz_oxide-0.6.2", "crc32fast-1.3.2", "gimli-0.27.0", "addr2line-0.19.0",
                            "backtrace-0.3.67", "cc-1.0.73", "serde_derive-1.0.152")]),
    "go-probe7": ("go", [("chi", GOCODE / "go-chi/chi"), ("echo", GOCODE / "labstack/echo"),
                         ("semver", GOCODE / "Masterminds/semver"), ("glob", GOCODE / "gobwas/glob"),
                         ("jmespath", GOCODE / "jmespath/go-jmespath"), ("humanize", GOCODE / "dustin/go-humanize")]),
    "ts-probe7": ("typescript", [("react-router", Fetch("npm", "@tanstack/react-router@1.170.46", "package/src")),
                                 ("router-generator", Fetch("npm", "@tanstack/router-generator@1.168.0", "package/src")),
                                 ("router-plugin", Fetch("npm", "@tanstack/router-plugin@1.169.0", "package/src")),
                                 ("query-devtools", Fetch("npm", "@tanstack/query-devtools@5.108.2", "package/src")),
                                 ("vue-query", Fetch("npm", "@tanstack/vue-query@5.104.0", "package/src")),
                                 ("tiptap-react", Fetch("npm", "@tiptap/react@3.34.0", "package/src"))]),
    "py-probe7": ("python", [("structlog", Fetch("pypi", "structlog==24.4.0", "structlog-24.4.0")),
                             ("cachetools", Fetch("pypi", "cachetools==5.5.0", "cachetools-5.5.0")),
                             ("toolz", Fetch("pypi", "toolz==1.0.0", "toolz-1.0.0")),
                             ("webob", Fetch("pypi", "webob==1.8.9", "webob-1.8.9")),
                             ("mistune", Fetch("pypi", "mistune==3.0.2", "mistune-3.0.2"))]),
    # the eighth round
    "rs-probe8": ("rust", [(c.rsplit("-", 1)[0], CARGO_REGISTRY / c) for c in
                           ("csv-1.1.6", "csv-core-0.1.6", "time-0.3.9", "toml-0.5.11", "textwrap-0.16.0",
                            "tempfile-3.3.0", "glob-0.3.0", "humantime-2.1.0")]),
    "py-probe8": ("python", [("babel", Fetch("pypi", "babel==2.16.0", "babel-2.16.0")),
                             ("arrow", Fetch("pypi", "arrow==1.3.0", "arrow-1.3.0")),
                             ("voluptuous", Fetch("pypi", "voluptuous==0.15.2", "voluptuous-0.15.2")),
                             ("bleach", Fetch("pypi", "bleach==6.1.0", "bleach-6.1.0"))]),
    "go-probe8": ("go", [("handlers", GOCODE / "gorilla/handlers"), ("schema", GOCODE / "gorilla/schema"),
                         ("cron", GOCODE / "robfig/cron"), ("gjson", GOCODE / "tidwall/gjson"),
                         ("tablewriter", GOCODE / "olekukonko/tablewriter"),
                         ("golang-lru", GOCODE / "hashicorp/golang-lru")]),
    "ts-probe8": ("typescript", [("msw", Fetch("npm", "msw@2.15.0", "package/src")),
                                 ("interceptors", Fetch("npm", "@mswjs/interceptors@0.41.9", "package/src")),
                                 ("tldraw-store", Fetch("npm", "@tldraw/store@5.1.1", "package/src")),
                                 ("tldraw-state", Fetch("npm", "@tldraw/state@5.1.1", "package/src"))]),
    # the ninth round
    "go-probe9": ("go", [("gojsonschema", GOCODE / "xeipuuv/gojsonschema"),
                         ("govalidator", GOCODE / "asaskevich/govalidator"),
                         ("jwt-go", GOCODE / "dgrijalva/jwt-go"), ("go-version", GOCODE / "hashicorp/go-version"),
                         ("backoff", GOCODE / "cenkalti/backoff")]),
    "py-probe9": ("python", [("deepdiff", Fetch("pypi", "deepdiff==8.0.1", "deepdiff-8.0.1")),
                             ("starlette", Fetch("pypi", "starlette==0.38.6", "starlette-0.38.6")),
                             ("pluggy", Fetch("pypi", "pluggy==1.5.0", "pluggy-1.5.0")),
                             ("humanize", Fetch("pypi", "humanize==4.10.0", "humanize-4.10.0"))]),
    "ts-probe9": ("typescript", [("exception", Fetch("npm", "@milkdown/exception@7.22.1", "package/src")),
                                 ("ctx", Fetch("npm", "@milkdown/ctx@7.22.1", "package/src")),
                                 ("core", Fetch("npm", "@milkdown/core@7.22.1", "package/src")),
                                 ("transformer", Fetch("npm", "@milkdown/transformer@7.22.1", "package/src")),
                                 ("utils", Fetch("npm", "@milkdown/utils@7.22.1", "package/src")),
                                 ("crepe", Fetch("npm", "@milkdown/crepe@7.22.1", "package/src"))]),
    "rs-probe9": ("rust", [(c.rsplit("-", 1)[0], CARGO_REGISTRY / c) for c in
                           ("aho-corasick-0.7.19", "bitflags-1.3.2", "bstr-0.2.17", "byteorder-1.4.3",
                            "regex-automata-0.1.8", "unicode-segmentation-1.9.0", "similar-2.2.1", "http-0.2.7")]),
}
ALL_CORPORA = {**CORPORA, **HOLDOUT, **PROBES}

SOURCE_SUFFIX = {"python": (".py",), "go": (".go",), "rust": (".rs",), "typescript": (".ts", ".tsx")}


def repo_dir(work: Path, corpus: str) -> Path:
    return work / "repos" / corpus


def materialize(work: Path, corpus: str) -> Path:
    """Copy the corpus subset under `work` once (a `.complete` mark says the copy finished)."""
    root = repo_dir(work, corpus)
    mark = root.parent / f".{corpus}.complete"
    if mark.exists():
        return root
    if root.exists():
        shutil.rmtree(root)
    for dest, src in ALL_CORPORA[corpus][1]:
        if isinstance(src, Fetch):
            src = fetched(work / "downloads", src)
        if src.is_file():  # a single-module corpus entry (the stdlib's argparse.py)
            (root / dest).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, root / dest)
            continue
        if not src.is_dir():
            raise SystemExit(f"{corpus}: {src} is missing (run {SHARED}/bench/setup_corpora.sh)")
        shutil.copytree(src, root / dest, symlinks=True,
                        ignore=shutil.ignore_patterns("__pycache__", ".git"))
    mark.write_text("ok\n")
    return root


def fetched(downloads: Path, f: Fetch) -> Path:
    """Download and unpack `f` under `downloads` once; the unpacked member's directory."""
    out = downloads / f.spec.replace("/", "_")
    if not (out / ".complete").exists():
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir(parents=True)
        cmd = ([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:", "-d", str(out),
                f.spec] if f.registry == "pypi" else ["npm", "pack", "-q", "--pack-destination", str(out), f.spec])
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        for archive in out.glob("*.t*gz"):
            with tarfile.open(archive) as tar:
                tar.extractall(out, filter="data")
        (out / ".complete").write_text("ok\n")
    return out / f.member


def is_test_path(path: str) -> bool:
    """Test code, by the conventions of the four ecosystems (call-site truth leaves it out)."""
    parts = path.split("/")
    name = parts[-1]
    # not `test/` or `testing/`: Rust's libtest crate and django.test are library code
    if any(p in ("tests", "testdata", "__tests__", "benches", "testutils") for p in parts[:-1]):
        return True
    return (name.startswith("test_") or name in ("tests.py", "conftest.py", "test.rs")
            or name.endswith(("_test.go", "_test.py", "tests.rs", ".test.ts", ".spec.ts", ".test-d.ts")))
