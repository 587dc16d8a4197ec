"""The same files indexed under two directories answer a search with the same bytes, even when
more hits tie at the fetch cut-off than are fetched (here 200 tied hits at a fetch of 40;
Tantivy breaks such ties by document address, which follows segment layout and the repository's
id, not the content)."""
from __future__ import annotations

from cruxe.index import run_index
from cruxe.project import open_project
from cruxe.query import search_code


def tied_files(n: int) -> dict[str, str]:
    files = {}
    for i in range(n):
        word = "tally" if i % 15 == 0 else f"word{i}"
        files[f"pkg{i % 7}/mod_{i:04d}.py"] = (f'def handler_{i:04d}(x):\n    """Return the {word}."""\n'
                                              f"    return x.{word}\n")
    return files


def answer(root):
    run_index(root)
    project = open_project(root)
    ref = project.default_ref()
    gen = project.store.current_generation(ref)
    hits, total, _ = search_code(gen, project.id, ref, "tally", limit=5)
    return [(h.path, h.line_start, h.name) for h in hits], total


def test_same_files_elsewhere_same_answer(make_repo):
    files = tied_files(3000)
    first = answer(make_repo(files, name="one"))
    second = answer(make_repo(files, name="elsewhere/two"))
    assert first == second
    assert len(first[0]) == 5
