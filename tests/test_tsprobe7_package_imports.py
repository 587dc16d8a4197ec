"""A name imported from a package that is a directory of the repository (packages side by side,
no package.json naming them: @tanstack/router-plugin's `import { getConfig } from
'@tanstack/router-generator'` beside router-generator's sources): the import reaches the same
definition its calls reach, so `find_references` folds it beside the calls instead of listing
it as an unresolved `external` import."""
from __future__ import annotations

from cruxe.index import run_index

from support.references import refs, sites

PACKAGES = {
    "router-generator/config.ts": ("export type Config = { routesDirectory: string }\n\n"
                                   "export function getConfig(inline: Partial<Config>, root: string): Config {\n"
                                   "  return { routesDirectory: inline.routesDirectory ?? root }\n"
                                   "}\n"),
    "router-generator/index.ts": "export { getConfig } from './config'\nexport type { Config } from './config'\n",
    "router-plugin/core/config.ts": ("import { getConfig as getGeneratorConfig } from '@tanstack/router-generator'\n\n"
                                     "export const getConfig = (inline: object, root: string) => {\n"
                                     "  const config = getGeneratorConfig(inline, root)\n"
                                     "  return { ...inline, ...config }\n"
                                     "}\n"),
    "router-plugin/core/composed.ts": ("import { getConfig } from '@tanstack/router-generator'\n\n"
                                       "export function composed(root: string) {\n"
                                       "  return getConfig({}, root)\n"
                                       "}\n"),
}


def test_an_import_from_a_package_directory_reaches_what_its_calls_reach(make_repo):
    root = make_repo(PACKAGES)
    run_index(root)
    got = refs(root, "getConfig", path="router-generator/config.ts")
    assert set(sites(got["references"])) == {("router-plugin/core/config.ts", 4), ("router-plugin/core/composed.ts", 4),
                                             ("router-generator/index.ts", 1)}
    assert got["imports_folded"] == 2  # the plugin's two imports, beside their calls
    assert got["unresolved_count"] == 0 and "unresolved" not in got
