"""Module augmentations (`declare module "x" { interface I {...} }`, `declare global`) are listed
after the declaration they augment. tiptap declares `interface Commands` once in `index.ts` and
augments it in every `commands/<name>.ts`: the folder named like the query lifted each
augmentation above the original (issue 17, third user probe, item 0)."""
from __future__ import annotations

from cruxe.query import locate_symbol, search_code

from support.repos import indexed_files

ORIGINAL = "export interface Commands<ReturnType = any> {}\n\nexport namespace Commands {\n  export const all = 1\n}\n"


def augmentation(command: str) -> str:
    return (f"declare module '@acme/core' {{\n  interface Commands<ReturnType> {{\n"
            f"    {command}: {{\n      {command}: () => ReturnType,\n    }}\n  }}\n}}\n\n"
            f"export const {command} = () => true\n")


FILES = {
    "core/index.ts": ORIGINAL,
    **{f"core/commands/{c}.ts": augmentation(c) for c in ("blur", "focus", "cut", "lift")},
    "core/commands/more.ts": "declare module '@acme/core' {\n  namespace Commands {\n    const more: number\n  }\n}\n",
    # the original lies deeper than its augmentation: no tie-break on paths decides
    "core/lib/dom/web.ts": "export interface Storage {\n  length: number\n}\n",
    "core/global.ts": "declare global {\n  interface Storage {\n    extra: number\n  }\n}\nexport {}\n",
}


def indexed(tmp_path):
    return indexed_files(tmp_path / "repo", tmp_path / "home", FILES)


def test_the_original_interface_comes_before_its_augmentations(tmp_path):
    gen, repo, ref = indexed(tmp_path)
    hits, total = locate_symbol(gen, repo, ref, "Commands")
    # each augmentation follows the declaration of its kind that it merges with; all stay listed
    assert total == 7
    order = [(h.path, h.kind) for h in hits]
    assert order.index(("core/index.ts", "interface")) == 0, order
    assert order.index(("core/index.ts", "module")) < order.index(("core/commands/more.ts", "module")), order
    assert sorted(p for p, _ in order[1:]) == sorted(["core/index.ts", *(f"core/commands/{c}.ts"
                                                      for c in ("blur", "focus", "cut", "lift", "more"))])


def test_a_global_augmentation_comes_after_the_interface_it_augments(tmp_path):
    gen, repo, ref = indexed(tmp_path)
    hits, total = locate_symbol(gen, repo, ref, "Storage")
    assert [h.path for h in hits] == ["core/lib/dom/web.ts", "core/global.ts"]


def test_search_for_the_name_puts_the_original_first(tmp_path):
    gen, repo, ref = indexed(tmp_path)
    hits, _, _ = search_code(gen, repo, ref, "Commands")
    assert (hits[0].path, hits[0].line_start) == ("core/index.ts", 1), [(h.path, h.line_start) for h in hits[:5]]
