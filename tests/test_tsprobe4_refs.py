"""TypeScript references found wanting before the fourth user probe (issue 17, item 0 of tsprobe4).

- `export { helper }` / `export { helper as assist }` without a source were listed by
  find_references as uses of `helper` (a `references` edge), above the call sites of later
  files; they re-export, as Python's `from .a import x` in a package's `__init__` does, and are
  listed as the house lists those: folded into the file's uses, or after the uses of its rank.
  A module importing the renamed export (`import { assist }`) now reaches `helper`.
- `this.form.validate()` where the field is typed by an indexed access type
  (`form: FieldApiOptions<...>['form']`, @tanstack/form-core) was unresolved."""
from __future__ import annotations

from cruxe.refs import find_references

from support.repos import indexed_files

UTIL = '''\
function helper(a: number): number {
  return a + 1;
}

function other(): number {
  return helper(2);
}

export { helper };
export { helper as assist };
'''

LONE = '''\
function solo(): number {
  return 1;
}

export { solo as single };
'''

USE = '''\
import { assist } from "./util";
import { single } from "./lone";

export const v = assist(1) + single();
'''


def _sites(answer):
    return [(r["path"], r["line_start"], r["edge_type"]) for r in answer["references"]]


def test_a_local_export_is_listed_as_an_import_after_the_uses(tmp_path):
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home",
                                   {"src/util.ts": UTIL, "src/lone.ts": LONE, "src/use.ts": USE})
    answer = find_references(gen, repo, ref, "solo")
    assert _sites(answer) == [("src/use.ts", 4, "calls"), ("src/lone.ts", 5, "imports")], answer
    answer = find_references(gen, repo, ref, "helper")
    # the defining file calls it: its two export lines fold into that use, as use.ts's import does
    assert _sites(answer) == [("src/use.ts", 4, "calls"), ("src/util.ts", 6, "calls")], answer
    assert answer["imports_folded"] == 3, answer
    imports = find_references(gen, repo, ref, "helper", kind="imports")
    assert [(p, n) for p, n, _ in _sites(imports)] == [("src/use.ts", 1), ("src/util.ts", 9), ("src/util.ts", 10)]


FORM = '''\
export class FormApi<TData> {
  values!: TData;
  validate(cause: string): boolean {
    return cause.length > 0;
  }
}

export interface FieldOptions<TParentData, TName extends string> {
  name: TName;
  form: FormApi<TParentData>;
}

export class FieldApi<TParentData, TName extends string> {
  form: FieldOptions<
    TParentData,
    TName
  >['form'];
  loop: FieldApi<TParentData, TName>["loop"];

  constructor(opts: FieldOptions<TParentData, TName>) {
    this.form = opts.form;
    this.loop = this.loop;
  }

  validate(cause: string): boolean {
    this.loop.validate(cause);
    return this.form.validate(cause);
  }
}
'''


def test_a_field_typed_by_an_indexed_access_type_reaches_its_members(tmp_path):
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", {"src/form.ts": FORM})
    answer = find_references(gen, repo, ref, "FormApi.validate")
    assert [(p, n) for p, n, _ in _sites(answer)] == [("src/form.ts", 27)], answer
    # a field typed by itself resolves to nothing (and does not loop)
    answer = find_references(gen, repo, ref, "FieldApi.validate")
    assert _sites(answer) == [], answer


SIGNALS = '''\
declare class Signal {
  _subscribe(node: number): void;
}

export function signal(value: number): Signal {
  return new Signal();
}

function addDependency(signal: Signal, node: number) {
  signal._subscribe(node);
  return signal;
}

export const run = (render: () => void) => render();

function render(): void {}

export function paint() {
  render();
}
'''


def test_a_parameter_shadows_the_files_definition_of_its_name(tmp_path):
    # @preact/signals-core: `addDependency(signal: Signal)` beside `export function signal()`;
    # `signal._subscribe(node)` went to the function `signal` (no member: unresolved) and the
    # parameter's uses were listed as references to that function, a call of a callback
    # parameter `render` as a call of the file's `render`
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", {"src/core.ts": SIGNALS})
    answer = find_references(gen, repo, ref, "Signal._subscribe")
    assert [(p, n) for p, n, _ in _sites(answer)] == [("src/core.ts", 10)], answer
    assert _sites(find_references(gen, repo, ref, "signal")) == []
    assert _sites(find_references(gen, repo, ref, "render")) == [("src/core.ts", 19, "calls")]


INPUT = '''\
export function endComposition(view: number) {
  return view;
}

export function keyup(view: number) {
  endComposition(view);
}
'''

INDEX = '''\
import { endComposition } from "./input";

export const __endComposition = endComposition;
'''


def test_an_exported_alias_constant_is_listed_as_a_reexport_after_the_calls(tmp_path):
    # prosemirror-view's `export const __endComposition = endComposition` (index.ts) was the
    # first "caller" of endComposition, above the calls in input.ts
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", {"src/input.ts": INPUT, "src/index.ts": INDEX})
    answer = find_references(gen, repo, ref, "endComposition")
    # the alias of an imported name is one re-export with its import: the import line, after the call
    assert _sites(answer) == [("src/input.ts", 6, "calls"), ("src/index.ts", 1, "imports")], answer


BARREL = '''\
import isPlainObject from "./isPlainObject";
import { compose } from "./compose";

export { isPlainObject, compose as pipe };
'''

PLAIN = '''\
export default function isPlainObject(obj: unknown): boolean {
  return typeof obj === "object" && obj !== null;
}
'''

COMPOSE = '''\
import isPlainObject from "./isPlainObject";

export function compose(x: unknown) {
  return isPlainObject(x);
}
'''


def test_a_barrel_reexport_of_an_imported_name_is_its_import_line_alone(tmp_path):
    # redux's index.ts imports isPlainObject and lists it in `export { ... }`: one re-export,
    # two lines of one target that neither folds into the other
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home",
                                   {"src/index.ts": BARREL, "src/isPlainObject.ts": PLAIN, "src/compose.ts": COMPOSE})
    answer = find_references(gen, repo, ref, "isPlainObject")
    assert _sites(answer) == [("src/compose.ts", 4, "calls"), ("src/index.ts", 1, "imports")], answer
    # a renamed re-export keeps its line: it binds the new name
    imports = find_references(gen, repo, ref, "compose", kind="imports")
    assert [(p, n) for p, n, _ in _sites(imports)] == [("src/index.ts", 2), ("src/index.ts", 4)], imports


VIRTUALIZER = '''\
export interface Options<T> {
  scrollToFn: (offset: number) => void;
  count: T;
}

export class Virtualizer<T> {
  options!: Required<Options<T>>;
  partial: Partial<Options<T>>;

  constructor(opts: Readonly<Options<T>>) {
    opts.scrollToFn(0);
  }

  scroll(offset: number) {
    this.options.scrollToFn(offset);
    this.partial.scrollToFn?.(offset);
  }
}
'''


def test_a_receiver_typed_through_a_member_keeping_utility_type_reaches_the_members(tmp_path):
    # @tanstack/virtual-core: `options!: Required<VirtualizerOptions<...>>`, and
    # `this.options.scrollToFn(...)` was unresolved
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", {"src/v.ts": VIRTUALIZER})
    answer = find_references(gen, repo, ref, "Options.scrollToFn")
    assert [(p, n) for p, n, _ in _sites(answer)] == [("src/v.ts", 11), ("src/v.ts", 15), ("src/v.ts", 16)], answer


SELECTION = '''\
import { ResolvedPos } from "prosemirror-model";
import * as model from "prosemirror-model";
import { EditorState } from "prosemirror-state";

export class Selection {
  state: EditorState;

  constructor(state: EditorState) {
    this.state = state;
  }

  static near($pos: ResolvedPos, frag: model.Fragment) {
    frag.text();
    return $pos.node($pos.depth);
  }

  content() {
    return this.state.schema.text("x");
  }
}
'''

DECORATION = '''\
export class Decoration {
  node(depth: number) { return depth; }
  text() { return ""; }
}

export function use(d: Decoration) {
  return d.node(2);
}
'''


def test_a_receiver_typed_by_a_type_from_outside_the_repository_is_external(tmp_path):
    # prosemirror-state's `$pos.node(...)` (`$pos: ResolvedPos` from prosemirror-model, not in
    # the repository) was linked to prosemirror-view's one `Decoration.node` by its unique
    # name, and `view.state.schema.text(...)` to a @trpc/server upload handler's `text()`
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home",
                                   {"src/selection.ts": SELECTION, "src/decoration.ts": DECORATION})
    answer = find_references(gen, repo, ref, "Decoration.node")
    assert [(p, n) for p, n, _ in _sites(answer)] == [("src/decoration.ts", 7)], answer
    assert [(u["line_start"], u["reason"]) for u in answer["unresolved"]] == [(14, "external")], answer
    answer = find_references(gen, repo, ref, "Decoration.text")
    assert _sites(answer) == [], answer
    assert [(u["line_start"], u["reason"]) for u in answer["unresolved"]] == [(13, "external"), (18, "external")]


TRANSACTION = '''\
import { Transform } from "prosemirror-transform";
import { Base } from "./base";

export class Transaction extends Transform {
  constructor(readonly own: Base) { super(); }
  insert() {
    this.doc.type.schema.text("x");
    this.own.text();
    return this.steps.length;
  }
}

export class Local<T extends object> extends Base {
  go() { return this.text(); }
}

export function resolveIt(tr: Transaction) {
  return tr.doc.resolve(1).node(2);
}
'''

BASE = '''\
export class Base {
  text() { return ""; }
}

export class Deco {
  text() { return ""; }
  node(d: number) { return d; }
}
'''


def test_members_inherited_from_outside_parameter_properties_and_constrained_generics(tmp_path):
    # prosemirror-state's `class Transaction extends Transform` (prosemirror-transform):
    # `this.doc.type.schema.text()` was linked to a repository `text()` by unique name; a
    # parameter property (`constructor(readonly own: Base)`) was no member to type `this.own`
    # by; `class Local<T extends object> extends Base` read `object` as its base
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home",
                                   {"src/tr.ts": TRANSACTION, "src/base.ts": BASE})
    answer = find_references(gen, repo, ref, "Base.text")
    assert [(p, n) for p, n, _ in _sites(answer)] == [("src/tr.ts", 8), ("src/tr.ts", 14)], answer
    assert [(u["line_start"], u["reason"]) for u in answer["unresolved"]] == [(7, "external")], answer
    answer = find_references(gen, repo, ref, "Deco.node")
    assert _sites(answer) == [] and [(u["line_start"], u["reason"]) for u in answer["unresolved"]] == [(18, "external")]


FRAGMENT = '''\
export class Fragment {
  cutByIndex(from: number, to: number) { return from + to; }
}
'''

REPLACE = '''\
import { Fragment } from "prosemirror-model";

export function dropFromFragment(fragment: Fragment, count: number) {
  return fragment.cutByIndex(count, 0);
}
'''


def test_a_package_named_like_a_directory_of_the_repository_is_not_called_outside(tmp_path):
    # prosemirror-transform imports "prosemirror-model", whose `src/` sits beside it with no
    # package.json to map the name: the type may be that directory's, so the call keeps the
    # name-based resolution it had
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home",
                                   {"prosemirror-model/fragment.ts": FRAGMENT,
                                    "prosemirror-transform/replace.ts": REPLACE})
    answer = find_references(gen, repo, ref, "Fragment.cutByIndex")
    assert [(p, n) for p, n, _ in _sites(answer)] == [("prosemirror-transform/replace.ts", 4)], answer
