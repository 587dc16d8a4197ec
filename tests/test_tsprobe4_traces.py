"""A pasted JavaScript trace whose frames are in no indexed file (issue 17, fourth user probe).

A library's user pastes what node printed: the message, then frames in the package's bundled
`dist/*.mjs`, which the repository's `src/` is not. No frame is a place the index answers, and
the whole paste, frames included, was searched as the message: the frames' words (`app`,
`node_modules`, `dist`, the bundle's hash) buried the one call that emits the message, and
the answer warned `no_emitting_site` with the exception's class first (@trpc/server's
`No "mutation"-procedure on path "user.create"` from `callProcedure`)."""
from __future__ import annotations

from cruxe.query import search_code

from support.repos import indexed_files

ERROR = '''\
export class TRPCError extends Error {
  public readonly code: string;
  constructor(opts: { message?: string; code: string }) {
    super(opts.message ?? opts.code);
    this.code = opts.code;
    this.name = 'TRPCError';
  }
}
'''

ROUTER = '''\
import { TRPCError } from './TRPCError';

export function callProcedure(opts: { path: string; type: string; procedures: Record<string, unknown> }) {
  const { type, path } = opts;
  if (!(path in opts.procedures)) {
    throw new TRPCError({
      code: 'NOT_FOUND',
      message: `No "${type}"-procedure on path "${path}"`,
    });
  }
  return opts.procedures[path];
}

export function createRouter(procedures: Record<string, unknown>) {
  // a router of procedures, each with a path and a type
  return { procedures, path: '', type: 'router' };
}
'''

PASTE = ('TRPCError: No "mutation"-procedure on path "user.create"\n'
         '    at callProcedure (/app/node_modules/@trpc/server/dist/router-5274008e.mjs:183:11)\n'
         '    at procedure (/app/node_modules/@trpc/server/dist/router-5274008e.mjs:212:16)\n'
         '    at async /app/node_modules/@trpc/server/dist/resolveHTTPResponse-2fc435bb.mjs:95:30')


def test_a_trace_in_no_indexed_file_is_searched_by_its_message(tmp_path):
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home",
                                   {"src/error/TRPCError.ts": ERROR, "src/core/router.ts": ROUTER})
    hits, _, info = search_code(gen, repo, ref, PASTE)
    assert (hits[0].path, hits[0].name) == ("src/core/router.ts", "callProcedure"), hits
    assert "emitting_site" not in info, info
