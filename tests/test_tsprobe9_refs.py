"""TypeScript references found wanting on ts-probe9 (issue 17, ninth user probe).

milkdown names a generic class's instantiation with a type alias (`export type CmdKey<T> =
SliceType<Cmd<T>>`) and types parameters with it; `meta.create(...)` on such a parameter was
left unresolved: the alias has no members of its own, and `create` is too common a method name
for the name-based fallback."""
from __future__ import annotations

from cruxe.refs import find_references

from support.repos import indexed_files

SLICE = '''\
/// A typed key of a value kept in a container.
export class SliceType<T = any, N extends string = string> {
  readonly name: N
  readonly #defaultValue: T

  constructor(value: T, name: N) {
    this.#defaultValue = value
    this.name = name
  }

  /// Create a slice in a container.
  create(container: Map<symbol, unknown>, value: T = this.#defaultValue): T {
    container.set(Symbol(this.name), value)
    return value
  }
}
'''

COMMANDS = '''\
import { SliceType } from './slice'

export type Cmd<T = undefined> = (payload?: T) => boolean

/// A command's key: a slice holding the command.
export type CmdKey<T = undefined> = SliceType<Cmd<T>>

/// A key of either kind.
export type AnyKey = CmdKey<any> | string

export class CommandManager {
  readonly #container = new Map<symbol, unknown>()

  create<T>(meta: CmdKey<T>, value: Cmd<T>) {
    return meta.create(this.#container, value)
  }

  remove(key: AnyKey) {
    return typeof key === 'string' ? key : key.create(this.#container)
  }
}
'''


def test_a_call_on_a_value_typed_by_an_alias_of_a_generic_class_reaches_the_class_method(tmp_path):
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", {"src/slice.ts": SLICE,
                                                                         "src/commands.ts": COMMANDS})
    answer = find_references(gen, repo, ref, "SliceType.create")
    # line 15 is `meta.create(...)` (meta: CmdKey<T>, an alias of SliceType<...>); line 19's
    # receiver is typed by a union alias, which names no one class: left to the fallbacks
    assert [(r["path"], r["line_start"]) for r in answer["references"]] == [("src/commands.ts", 15)], answer


CODE = '''\
export enum ErrorCode {
  docTypeError = 'docTypeError',
  contextNotFound = 'contextNotFound',
}
'''

ERRORS = '''\
import { ErrorCode } from './code'

export class EditorError extends Error {
  constructor(readonly code: ErrorCode, message: string) {
    super(message)
  }
}

export function docTypeError(type: unknown) {
  return new EditorError(ErrorCode.docTypeError, `Doc type error, unsupported type: ${String(type)}`)
}

export function contextNotFound(name: string) {
  return new EditorError(ErrorCode.contextNotFound, `Context "${name}" not found`)
}
'''

STATE = '''\
import { contextNotFound, docTypeError } from './errors'

export function getDoc(value: unknown, slices: Map<string, unknown>, name: string) {
  if (!slices.has(name)) throw contextNotFound(name)
  if (typeof value === 'string') return value
  throw docTypeError(value)
}
'''


def test_a_bare_name_of_a_function_and_an_enum_member_means_the_function(tmp_path):
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", {"src/code.ts": CODE, "src/errors.ts": ERRORS,
                                                                         "src/state.ts": STATE})
    answer = find_references(gen, repo, ref, "contextNotFound")
    assert (answer["symbol"]["path"], answer["symbol"]["kind"]) == ("src/errors.ts", "function"), answer
    assert [(r["path"], r["line_start"]) for r in answer["references"] if r["edge_type"] == "calls"] == \
        [("src/state.ts", 4)], answer
    assert [(m["path"], m["line_start"], m["arguments"]["path"]) for m in answer["enum_members"]] == \
        [("src/code.ts", 3, "src/code.ts")], answer
    # the member asked for by its enum is the member: `ErrorCode.contextNotFound` is used in errors.ts
    member = find_references(gen, repo, ref, "ErrorCode.contextNotFound")
    assert (member["symbol"]["path"], [(r["path"], r["line_start"]) for r in member["references"]]) == \
        ("src/code.ts", [("src/errors.ts", 14)]), member


KEYMAP = '''\
export type KeymapItem = { key: string; priority?: number }

export class KeymapManager {
  readonly #items: KeymapItem[] = []

  add(item: KeymapItem) {
    this.#items.push(item)
    return () => this.#items.splice(this.#items.indexOf(item), 1)
  }
}
'''

SETUP = '''\
import { KeymapManager } from './keymap'

export const presets = [
  () => {
    const km = new KeymapManager()
    km.add({ key: 'Backspace' })
    return km
  },
  () => {
    const km = new KeymapManager()
    km.add({ key: 'Enter', priority: 50 })
    return km
  },
  (km: Map<string, number>) => km.set('Tab', 1),
]
'''


def test_a_local_declared_alike_in_sibling_callbacks_keeps_its_type(tmp_path):
    # the callbacks are no symbols: both `km` declarations are bound in the module's scope,
    # and both say `new KeymapManager()`; the third callback's parameter `km` is bound there
    # too, so with it the name is ambiguous and nothing is guessed
    files = {"src/keymap.ts": KEYMAP, "src/setup.ts": SETUP}
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", files)
    answer = find_references(gen, repo, ref, "KeymapManager.add")
    assert [(r["path"], r["line_start"]) for r in answer["references"]] == [], answer
    files["src/setup.ts"] = SETUP.replace("  (km: Map<string, number>) => km.set('Tab', 1),\n", "")
    gen, repo, ref = indexed_files(tmp_path / "repo2", tmp_path / "home2", files)
    answer = find_references(gen, repo, ref, "KeymapManager.add")
    assert [(r["path"], r["line_start"]) for r in answer["references"]] == [("src/setup.ts", 6),
                                                                            ("src/setup.ts", 11)], answer


CONTROLLER = '''\
export type AnyHandler = { path: string }

export class HandlersController {
  #handlers: AnyHandler[] = []

  constructor(initial: AnyHandler[]) {
    this.#handlers = initial
  }

  currentHandlers(): AnyHandler[] {
    return this.#handlers
  }
}
'''

ASYNC_CONTROLLER = '''\
import { HandlersController, type AnyHandler } from '#core/experimental/handlers-controller'

export class AsyncHandlersController extends HandlersController {
  boundary(fn: () => void) {
    return () => fn()
  }
}

export function listed(handlers: AnyHandler[]) {
  const controller = new AsyncHandlersController(handlers)
  return controller.currentHandlers().map((h) => h.path)
}
'''


def test_a_subpath_import_no_manifest_maps_is_the_package_directory_it_names(tmp_path):
    # msw imports its own code as `#core/...` through its package.json `imports`; the corpus's
    # package.json has none: `#core` is the package's `core` directory, not an outside package
    files = {"msw/package.json": '{"type": "module"}\n',
             "msw/core/experimental/handlers-controller.ts": CONTROLLER,
             "msw/node/async-handlers-controller.ts": ASYNC_CONTROLLER}
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", files)
    answer = find_references(gen, repo, ref, "HandlersController.currentHandlers")
    assert [(r["path"], r["line_start"], r["edge_type"]) for r in answer["references"]] == \
        [("msw/node/async-handlers-controller.ts", 11, "calls")], answer
