"""Pasted warnings and errors of the seventh TypeScript probe (@tanstack/react-router,
@tanstack/router-generator): a message that starts with the word a runtime prints before
messages (`Warning: ...` written in the literal itself), and one pasted cut short, were no
emitting site's message, so the answer said that no site emits them (`no_emitting_site`)."""
from __future__ import annotations

from cruxe.query import search_code

from support.repos import indexed_files

FILES = {
    "react-router/renderRouteNotFound.tsx": (
        "import warning from 'tiny-warning'\n"
        "import type { AnyRoute } from './route'\n\n"
        "export function renderRouteNotFound(route: AnyRoute, data: unknown) {\n"
        "  if (!route.options.notFoundComponent) {\n"
        "    if (process.env.NODE_ENV === 'development') {\n"
        "      console.warn(\n"
        "        `Warning: A notFoundError was encountered on the route with ID \"${route.id}\", but a notFoundComponent"
        " option was not configured, nor was a router level defaultNotFoundComponent configured. Consider"
        " configuring at least one of these to avoid the generic defaultNotFoundComponent`,\n"
        "      )\n"
        "    }\n"
        "    return null\n"
        "  }\n"
        "  return route.options.notFoundComponent(data)\n"
        "}\n"),
    "react-router/Match.tsx": (
        "export function Outlet(props: { route: { id: string; notFoundComponent?: unknown } }) {\n"
        "  if (!props.route.notFoundComponent) {\n"
        "    // a route without a not found component renders the router level one\n"
        "    return renderDefault(props.route.id, 'notFoundComponent option')\n"
        "  }\n"
        "  return null\n"
        "}\n"),
}

PASTE = ('Warning: A notFoundError was encountered on the route with ID "/posts/$postId", but a notFoundComponent '
         "option was not configured, nor was a router level defaultNotFoundComponent configured.")


def test_a_warning_written_with_its_name_and_pasted_cut_short_is_found_at_its_site(tmp_path):
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", FILES)
    hits, _, intent = search_code(gen, repo, ref, PASTE, limit=5)
    assert intent["intent"] == "error" and intent.get("emitting_site", True) is True
    assert (hits[0].path, hits[0].line_start) == ("react-router/renderRouteNotFound.tsx", 4)
