"""What the tests and the benches share: corpus and oracle locations, the stdio client of a
real server, the fuzzing strategies and their oracle, the concurrency and crash harnesses, the
toy transport host, the index-job watchers.

The import rule: a test imports `support` (and `cruxe`), never another test module or a
bench; a bench puts `tests/` on `sys.path` and imports `support`, never a test module. Pytest
puts `tests/` on `sys.path` itself (the directory of the root conftest), so tests just write
`from support.locations import STDLIB`.
"""
