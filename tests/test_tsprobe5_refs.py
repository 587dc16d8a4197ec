"""Wrong unique-name call edges left by the fourth TypeScript probe (issue 17, item 0 of tsprobe5).

One index holding several packages (prosemirror-view beside prosemirror-state and virtual-core):
a call whose receiver's type is known and lacks the method went to the one repository method of
that name, found by name alone:
- `opts.onChange?.(v)` where `opts` is typed by an inline object type (virtual-core's `memo`);
- `doc.defaultView!.scrollBy(x, y)` where `doc = view.dom.ownerDocument` and `dom: HTMLElement`
  (the DOM's method, not `Virtualizer.scrollBy`);
- `view.state.schema.text(...)` and `let {schema} = view.state; schema.text(...)` where `state`
  is typed by a class of a package that is a directory of the repository (prosemirror-state)
  whose `schema` comes from a package outside it."""
from __future__ import annotations

from cruxe.refs import find_references

from support.repos import call_sites, indexed_files

SCROLLER = '''\
export class Scroller {
  scrollBy(delta: number): void {}
  onChange(): void {}
  text(value: string): string {
    return value;
  }
}
'''

STATE = '''\
import { Schema } from "outside-model";

export class EditorState {
  schema!: Schema;
  doc!: number;
  reconfigure(): EditorState {
    return this;
  }
}

export class Other {
  reconfigure(): void {}
}
'''

STATE_INDEX = '''\
export { EditorState } from "./state";
'''

VIEW = '''\
import { EditorState } from "pm-state";

export class View {
  dom!: HTMLElement;
  state!: EditorState;
}

export function memo(opts: { key: string; onChange?: (value: number) => void }) {
  opts.onChange?.(1);
}

export function scroll(view: View) {
  let doc = view.dom.ownerDocument;
  doc.defaultView!.scrollBy(1, 2);
}

export function paste(view: View, text: string) {
  const node = view.state.schema.text(text);
  let { schema } = view.state;
  return [node, schema.text(text)];
}

export function configure(view: View) {
  view.state.reconfigure();
  let { state } = view;
  state.reconfigure();
}
'''

FILES = {"virtual/scroller.ts": SCROLLER, "pm-state/state.ts": STATE, "pm-state/index.ts": STATE_INDEX,
         "pm-view/view.ts": VIEW}


def test_a_receiver_of_a_known_type_without_the_method_is_no_unique_name_call(tmp_path):
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", FILES)
    for method in ("onChange", "scrollBy", "text"):
        answer = find_references(gen, repo, ref, method, path="virtual/scroller.ts")
        assert call_sites(answer) == [], (method, answer)


def test_a_class_of_a_package_that_is_a_directory_types_its_values(tmp_path):
    """`reconfigure` is defined twice: only the receiver's type can pick `EditorState`'s, reached
    through a field typed by a class imported from the directory package and through a name
    destructured from that field."""
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", FILES)
    answer = find_references(gen, repo, ref, "EditorState.reconfigure")
    assert call_sites(answer) == [("pm-view/view.ts", 24), ("pm-view/view.ts", 26)], answer


SIGNAL = '''\
declare class Signal<T = any> {
  _value: unknown;
  peek(): T;
}

function Signal(this: Signal, value?: unknown) {
  this._value = value;
}

Signal.prototype.peek = function () {
  return this._value;
};

export { Signal };
'''


def test_the_function_implementing_a_declared_class_is_located_first(tmp_path):
    """signals-core declares `class Signal` (types only, `declare`) and implements it as a function
    with ES5 prototypes: the function does the work, the declaration is listed after it."""
    from cruxe.query.locate import locate_symbol

    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", {"src/index.ts": SIGNAL})
    hits, _ = locate_symbol(gen, repo, ref, "Signal")
    assert [(h.kind, h.line_start) for h in hits] == [("function", 6), ("class", 1)], hits



NOTIFY = '''\
export function createNotifyManager() {
  return {
    batch: <T>(callback: () => T): T => callback(),
  }
}

export const notifyManager = createNotifyManager()
'''

NOTIFY_USE = '''\
import { notifyManager } from "./notify"

export function go(): number {
  return notifyManager.batch(() => 1)
}
'''


def test_a_member_of_a_constant_whose_declaration_writes_no_type_goes_by_name(tmp_path):
    """query-core's `notifyManager = createNotifyManager()`: the constant's type is what a factory
    returns (an object literal), which no declaration writes; its `batch` calls (19 in
    query-core) were unknown, while every other receiver of unknown type goes by name."""
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home",
                                   {"src/notify.ts": NOTIFY, "src/use.ts": NOTIFY_USE})
    answer = find_references(gen, repo, ref, "batch")
    assert call_sites(answer) == [("src/use.ts", 4)], answer


DIFF = '''\
export class Fragment {
  child(index: number) {
    return new Leaf();
  }
}

export class Leaf {
  same(other: Leaf): boolean {
    return this === other;
  }
}

export function lastSame(a: Fragment, b: Fragment): {a: number, b: number} | null {
  return a.child(0).same(b.child(0)) ? {a: 1, b: 2} : null;
}
'''


def test_a_parameter_is_not_shadowed_by_a_member_of_the_returned_object_type(tmp_path):
    """prosemirror-model's `findDiffEnd(a: Fragment, ...): {a: number, b: number}`: the return
    type's members are children of the function, and `a` found the member `a: number` (a number
    has no `child`: no repository method) instead of the parameter."""
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", {"src/diff.ts": DIFF})
    answer = find_references(gen, repo, ref, "child")
    assert call_sites(answer) == [("src/diff.ts", 14)], answer
