"""A module-level object whose properties are made by calls (msw's `export const http = { get:
createHttpHandler(HttpMethods.GET), ... }` and `graphql = { query: createScopedGraphQLHandler(
...) }`) is the package's namespace: `http.get` is defined at its property. Before, no symbol
stood there: `locate_symbol("http.get")` found nothing, `graphql.query` found an interface's
member of the same name in the same module, and the calls `http.get(...)` reached nothing.
Properties holding literals (`retries: 3`) stay out: values, no definitions an agent asks for."""
from __future__ import annotations

from cruxe.query.locate import locate_symbol
from cruxe.refs import find_references

from support.repos import call_sites, indexed_files, marked_line

HTTP = '''\
import { HttpHandler } from './handler'

export type Resolver = (info: { request: Request }) => Response

function createHttpHandler(method: string) {
  return (path: string, resolver: Resolver) => new HttpHandler(method, path, resolver)
}

export interface HttpLinkHandlers {
  get: ReturnType<typeof createHttpHandler>
}

/**
 * A namespace to intercept and mock HTTP requests.
 */
export const http = {
  all: createHttpHandler('*'),
  get: createHttpHandler('GET'),  // get
  post: createHttpHandler('POST'),  // post
  retries: 3,
}
'''

HANDLER = '''\
export class HttpHandler {
  constructor(public method: string, public path: string, public resolver: unknown) {}
}
'''

USE = '''\
import { http } from './http'

export const handlers = [
  http.get('/user', () => new Response('ok')),  // call get
  http.post('/user', () => new Response('made')),
]
'''

FILES = {"src/http.ts": HTTP, "src/handler.ts": HANDLER, "src/handlers.ts": USE}


def test_a_namespace_objects_called_properties_are_definitions(tmp_path):
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", FILES)
    hits, _ = locate_symbol(gen, repo, ref, "http.get")
    assert [(h.path, h.line_start) for h in hits] == [("src/http.ts", marked_line(HTTP, "// get"))]
    hits, _ = locate_symbol(gen, repo, ref, "post")
    assert [(h.path, h.line_start) for h in hits] == [("src/http.ts", marked_line(HTTP, "// post"))]
    hits, _ = locate_symbol(gen, repo, ref, "retries")
    assert hits == []
    answer = find_references(gen, repo, ref, "http.get")
    assert call_sites(answer) == [("src/handlers.ts", marked_line(USE, "// call get"))]
