"""Bare import specifiers that a TypeScript/JavaScript repository maps itself: tsconfig `extends`
chains, jsconfig.json, a package importing itself by its package.json name, one workspace package
importing another. The configs are untrusted: a chain leaving the repository, a cycle and broken
JSON must neither be followed out nor stop indexing."""
from __future__ import annotations

import json
import logging
from pathlib import Path

from cruxe.index import run_index

from support.incremental import resolved_file

UTIL = "export function helper(): number {\n  return 1;\n}\n"
MAIN = 'import { helper } from "{spec}";\n\nexport function run(): number {\n  return helper();\n}\n'


def target_of(root: Path, path: str, line: int, name: str) -> str | None:
    run_index(root)
    return resolved_file(root, path, line, name)


def main(spec: str) -> str:
    return MAIN.replace("{spec}", spec)


def test_paths_declared_in_an_extended_tsconfig_map_imports(make_repo):
    root = make_repo({
        "tsconfig.base.json": json.dumps({"compilerOptions": {"baseUrl": ".", "paths": {"@internal/*": ["src/*"]}}}),
        "tsconfig.json": ('{\n  // the project file\n  "extends": "./tsconfig.base",\n'
                          '  "compilerOptions": {"strict": true,},\n}\n'),
        "src/util.ts": UTIL,
        "src/main.ts": main("@internal/util")})
    assert target_of(root, "src/main.ts", 4, "helper") == "src/util.ts"


def test_paths_are_relative_to_the_file_declaring_them_along_extends(make_repo):
    # the base sits in configs/: its `paths` (no baseUrl) are relative to configs/, not to the leaf
    root = make_repo({
        "configs/base.json": json.dumps({"compilerOptions": {"paths": {"#lib/*": ["../pkg/lib/*"]}}}),
        "pkg/tsconfig.json": json.dumps({"extends": ["../configs/base.json"]}),
        "pkg/lib/util.ts": UTIL,
        "pkg/main.ts": main("#lib/util")})
    assert target_of(root, "pkg/main.ts", 4, "helper") == "pkg/lib/util.ts"


def test_jsconfig_paths_map_imports_of_a_javascript_project(make_repo):
    root = make_repo({
        "jsconfig.json": json.dumps({"compilerOptions": {"baseUrl": "src"}}),
        "src/lib/util.js": "export function helper() {\n  return 1;\n}\n",
        "src/main.js": main("lib/util").replace(": number", "")})
    assert target_of(root, "src/main.js", 4, "helper") == "src/lib/util.js"


def test_a_package_importing_itself_by_name_reaches_the_source_of_its_exports(make_repo):
    exports = {".": {"types": "./dist/index.d.ts", "import": "./dist/kit.mjs"},
               "./query": {"types": "./dist/query/index.d.ts", "default": "./dist/query/cjs/index.js"}}
    root = make_repo({
        "package.json": json.dumps({"name": "@acme/kit", "exports": exports}),
        "src/index.ts": 'export { helper } from "./util";\n',
        "src/util.ts": UTIL,
        "src/query/index.ts": "export function ask(): number {\n  return 2;\n}\n",
        "src/tests/main.test.ts": main("@acme/kit"),
        "src/query/use.ts": 'import { ask } from "@acme/kit/query";\n\nexport const a = ask();\n'})
    assert target_of(root, "src/tests/main.test.ts", 4, "helper") == "src/util.ts"
    assert target_of(root, "src/query/use.ts", 3, "ask") == "src/query/index.ts"


def test_a_workspace_package_imports_another_by_its_name(make_repo):
    root = make_repo({
        "package.json": json.dumps({"name": "monorepo", "private": True, "workspaces": ["packages/*"]}),
        "packages/core/package.json": json.dumps({"name": "core-lib", "main": "dist/index.js"}),
        "packages/core/src/index.ts": UTIL,
        "packages/app/package.json": json.dumps({"name": "app", "dependencies": {"core-lib": "*"}}),
        "packages/app/src/main.ts": main("core-lib")})
    assert target_of(root, "packages/app/src/main.ts", 4, "helper") == "packages/core/src/index.ts"


def test_configs_leaving_the_repository_looping_or_broken_are_ignored(make_repo, tmp_path, caplog):
    # a config outside the root that would map the alias: never read
    (tmp_path / "outside.json").write_text(json.dumps({"compilerOptions": {"baseUrl": ".", "paths": {
        "@x/*": ["repo/src/*"]}}}))
    root = make_repo({
        "tsconfig.json": json.dumps({"extends": ["../outside.json", "./a.json"]}),
        "a.json": json.dumps({"extends": "./b.json"}),
        "b.json": json.dumps({"extends": "./a.json", "compilerOptions": {"baseUrl": "../.."}}),
        "sub/tsconfig.json": '{"compilerOptions": {"paths": {"@x/*": [',
        "package.json": "not json",
        "src/util.ts": UTIL,
        "src/main.ts": main("@x/util"),
        "sub/main.ts": main("@x/util")})
    with caplog.at_level(logging.WARNING):
        assert target_of(root, "src/main.ts", 4, "helper") is None
        assert target_of(root, "sub/main.ts", 4, "helper") is None
    said = caplog.text
    assert "leaves the repository" in said and "not valid JSON" in said and "circular" in said


def test_a_hash_specifier_goes_through_the_nearest_package_imports(make_repo):
    imports = {"#internal/*": {"types": "./src/internal/*.ts", "default": "./dist/internal/*.js"},
               "#dep": "some-package"}
    root = make_repo({
        "package.json": json.dumps({"imports": {"#internal/*": "./wrong/*.ts"}}),
        "pkg/package.json": json.dumps({"name": "pkg", "imports": imports}),
        "pkg/src/internal/util.ts": UTIL,
        "wrong/util.ts": UTIL,
        "pkg/src/main.ts": main("#internal/util"),
        "pkg/src/dep.ts": 'import { helper } from "#dep";\n\nexport const x = helper();\n'})
    assert target_of(root, "pkg/src/main.ts", 4, "helper") == "pkg/src/internal/util.ts"
    assert target_of(root, "pkg/src/dep.ts", 3, "helper") is None


def test_a_package_outside_the_workspaces_is_not_what_its_name_imports(make_repo):
    # a test fixture's package.json named like a real dependency: imports of that name elsewhere
    # are the dependency's (node_modules), not the fixture's
    root = make_repo({
        "package.json": json.dumps({"name": "app", "workspaces": ["packages/*"]}),
        "tests/fixtures/react/package.json": json.dumps({"name": "react", "main": "index.ts"}),
        "tests/fixtures/react/index.ts": UTIL,
        "src/main.ts": main("react")})
    assert target_of(root, "src/main.ts", 4, "helper") is None


def test_pnpm_workspace_globs_make_packages_importable_by_name(make_repo):
    root = make_repo({
        "pnpm-workspace.yaml": "packages:\n  - 'libs/*'\n",
        "libs/core/package.json": json.dumps({"name": "@acme/core", "types": "src/index.ts"}),
        "libs/core/src/index.ts": UTIL,
        "apps/web/main.ts": main("@acme/core")})
    assert target_of(root, "apps/web/main.ts", 4, "helper") == "libs/core/src/index.ts"


def test_comments_are_stripped_strings_kept_and_a_crafted_file_refused():
    from cruxe.refs.tsconfig import parse_jsonc, strip_comments

    assert parse_jsonc('{"a": "x//y", /* c */ "b": [1, 2,], // d\n "c": "q\\"/*",}', "t") == \
        {"a": "x//y", "b": [1, 2], "c": 'q"/*'}
    assert strip_comments('{"a": 1 /* never closed') == '{"a": 1  '
    # a crafted file (quotes and backslashes without an end) is read once, not from every quote:
    # bench/hostile_bench.py `backtracking_tsconfig` measures it; here, only what it yields
    crafted = '{"baseUrl": "' + '"\\' * 1000
    assert parse_jsonc(crafted, "t") is None
