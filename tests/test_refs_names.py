"""find_references reads its target as locate_symbol reads a name: a crate-, package- or
module-qualified name that locate_symbol answers is answered, in every language (user probes
of issue 17 item 6: `hashbrown::HashMap::insert` was "symbol not found")."""
from __future__ import annotations

import pytest

from cruxe.errors import CruxeError
from cruxe.index import run_index
from cruxe.project import open_project
from cruxe.query.locate import locate_symbol
from cruxe.refs import find_references

RUST = {
    "hashbrown/Cargo.toml": '[package]\nname = "hashbrown"\nversion = "0.1.0"\n',
    "hashbrown/src/lib.rs": "mod map;\npub use map::HashMap;\n",
    "hashbrown/src/map.rs": ("pub struct HashMap { n: usize }\n\nimpl HashMap {\n"
                             "    pub fn insert(&mut self, k: usize) -> usize {\n        self.n += k;\n        self.n\n    }\n\n"
                             "    pub fn fill(&mut self) {\n        self.insert(1);\n    }\n}\n"),
    "other/Cargo.toml": '[package]\nname = "other"\nversion = "0.1.0"\n',
    "other/src/lib.rs": ("pub struct Set;\n\nimpl Set {\n    pub fn insert(&self) {}\n}\n\n"
                         "pub fn go(s: &Set) {\n    s.insert();\n}\n"),
}
# a crate at the repository's root: no path says its name, its Cargo.toml does
RUST_ROOT = {"Cargo.toml": RUST["hashbrown/Cargo.toml"], "src/lib.rs": RUST["hashbrown/src/lib.rs"],
             "src/map.rs": RUST["hashbrown/src/map.rs"]}
RUST_DASHED = {"Cargo.toml": '[package]\nname = "crossbeam-channel"\nversion = "0.1.0"\n',
               "src/lib.rs": "mod channel;\npub use channel::bounded;\n\npub fn make() {\n    bounded();\n}\n",
               "src/channel.rs": "pub fn bounded() {}\n"}
PYTHON = {
    "pkg/__init__.py": "from .mod import Klass\n",
    "pkg/mod.py": "class Klass:\n    def run(self):\n        return 1\n\n\ndef main():\n    Klass().run()\n",
    "other/mod.py": "class Klass:\n    def run(self):\n        return 2\n",
}
GO = {
    "go.mod": "module example.com/m\n\ngo 1.21\n",
    "store/store.go": "package store\n\nfunc Open() int { return 1 }\n",
    "cache/cache.go": "package cache\n\nfunc Open() int { return 2 }\n",
    "main.go": ('package main\n\nimport "example.com/m/store"\n\nfunc main() {\n\tstore.Open()\n}\n'),
}
TS = {
    "src/util/strings.ts": "export function trim(s: string): string {\n  return s.trim();\n}\n",
    "src/other.ts": "export function trim(s: string): string {\n  return s;\n}\n",
    "src/main.ts": "import { trim } from './util/strings';\n\nexport const x = trim(' a ');\n",
}


def _both(root, name: str):
    run_index(root)
    project = open_project(root)
    gen = project.store.current_generation("live")
    hits, _ = locate_symbol(gen, project.id, "live", name)
    return hits, find_references(gen, project.id, "live", name)


@pytest.mark.parametrize("files, name, where, caller", [
    (RUST, "hashbrown::HashMap::insert", "hashbrown/src/map.rs", ("hashbrown/src/map.rs", 10)),
    (RUST_ROOT, "hashbrown::HashMap::insert", "src/map.rs", ("src/map.rs", 10)),
    (RUST_DASHED, "crossbeam_channel::bounded", "src/channel.rs", ("src/lib.rs", 5)),
    (PYTHON, "pkg.Klass.run", "pkg/mod.py", ("pkg/mod.py", 7)),
    (GO, "store.Open", "store/store.go", ("main.go", 6)),
    (TS, "strings.trim", "src/util/strings.ts", ("src/main.ts", 3)),
])
def test_qualified_name_locate_answers_is_answered(make_repo, files, name, where, caller):
    hits, out = _both(make_repo(files), name)
    assert hits[0].path == where
    assert out["symbol"]["path"] == where
    assert caller in {(r["path"], r["line_start"]) for r in out["references"]}


def test_qualifier_in_no_definition_is_still_not_found(make_repo):
    root = make_repo(PYTHON)
    run_index(root)
    project = open_project(root)
    gen = project.store.current_generation("live")
    with pytest.raises(CruxeError) as err:
        find_references(gen, project.id, "live", "nowhere.Klass.run")
    assert err.value.code == "symbol_not_found"


def test_scope_case_as_written_picks_one_target(make_repo):
    """`Klass.run` matches both classes; the qualifier in another case is still read, as
    locate_symbol reads it (case-insensitive when nothing matches as written)."""
    hits, out = _both(make_repo(PYTHON), "pkg.klass.run")
    assert hits[0].path == "pkg/mod.py" and out["symbol"]["path"] == "pkg/mod.py"
