"""A name defined once in the library and again in test code (a `__mocks__/` double, a test's
own helper): `find_references` without `path` answers the library's definition and lists the
test code's apart (`test_definitions`), instead of an ambiguity error (vue-query's
`useQueryClient` beside `__mocks__/useQueryClient.ts`)."""
from __future__ import annotations

import pytest

from cruxe.errors import CruxeError
from cruxe.index import run_index

from support.references import refs, sites

MOCKED = {
    "src/useQueryClient.ts": ("import { inject } from 'vue'\n"
                              "import type { QueryClient } from './queryClient'\n\n"
                              "export function useQueryClient(id = ''): QueryClient {\n"
                              "  const client = inject<QueryClient>('VUE_QUERY_CLIENT' + id)\n"
                              "  if (!client) {\n"
                              "    throw new Error(\"No 'queryClient' found in Vue context\")\n"
                              "  }\n"
                              "  return client\n"
                              "}\n"),
    "src/queryClient.ts": "export class QueryClient {\n  clear(): void {}\n}\n",
    "src/useQuery.ts": ("import type { QueryClient } from './queryClient'\n"
                        "import { useQueryClient } from './useQueryClient'\n\n"
                        "export function useQuery(queryClient?: QueryClient) {\n"
                        "  const client = queryClient || useQueryClient()\n"
                        "  return client\n"
                        "}\n"),
    "src/useIsFetching.ts": ("import { useQueryClient } from './useQueryClient'\n\n"
                             "export function useIsFetching() {\n"
                             "  return useQueryClient().clear()\n"
                             "}\n"),
    "src/__mocks__/useQueryClient.ts": ("import { vi } from 'vitest'\n"
                                        "import { QueryClient } from '../queryClient'\n\n"
                                        "const queryClient = new QueryClient()\n\n"
                                        "export const useQueryClient = vi.fn(() => queryClient)\n"),
}


def test_a_name_doubled_in_test_code_is_answered_by_the_library_definition(make_repo):
    root = make_repo(MOCKED)
    run_index(root)
    got = refs(root, "useQueryClient")
    assert (got["symbol"]["path"], got["symbol"]["line_start"]) == ("src/useQueryClient.ts", 4)
    assert set(sites(got["references"])) == {("src/useQuery.ts", 5), ("src/useIsFetching.ts", 4)}
    assert [(d["path"], d["line_start"]) for d in got["test_definitions"]] == [("src/__mocks__/useQueryClient.ts", 6)]
    assert got["test_definitions"][0]["arguments"]["path"] == "src/__mocks__/useQueryClient.ts"


def test_two_library_definitions_beside_a_double_are_still_ambiguous(make_repo):
    root = make_repo({**MOCKED, "lib/useQueryClient.ts": "export function useQueryClient() {\n  return null\n}\n"})
    run_index(root)
    with pytest.raises(CruxeError) as e:
        refs(root, "useQueryClient")
    assert e.value.code == "ambiguous_symbol" and e.value.data["definition_count"] == 3


def test_the_double_is_still_answered_when_its_path_is_given(make_repo):
    root = make_repo(MOCKED)
    run_index(root)
    got = refs(root, "useQueryClient", path="src/__mocks__/useQueryClient.ts")
    assert got["symbol"]["path"] == "src/__mocks__/useQueryClient.ts" and "test_definitions" not in got
