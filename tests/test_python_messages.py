"""Python messages pasted back (issue 17 user probes, py-probe: rich and requests): a value that
Python prints as an object's repr (`<class 'str'>`, `<Report object at 0x7f...>`) is a value, not
words of the message; a message raised in a long class is found although the class's snippet
chunks are cut inside a docstring; a message written as adjacent f-strings on several lines (as
black writes a long one) is one message; a whole traceback pasted is its exception's message."""
from __future__ import annotations

import pytest

from cruxe.literals import best_fit, emitted_messages, field_texts, message_segments, unwrap_message
from cruxe.query import search_code
from cruxe.store.writer import CHUNK_MAX_LINES

from support.repos import indexed_files


@pytest.mark.parametrize("pasted,segments", [
    ("TypeError: chunk_size must be an int, it is instead a <class 'str'>.",
     [("chunk_size", "must", "be", "an", "int", "it", "is", "instead", "a")]),
    ("NotRenderableError: Unable to render <__main__.Report object at 0x7f3a2c1d0e50>; A str is required",
     [("a", "str", "is", "required"), ("unable", "to", "render")]),
    ("ValueError: hook must be callable, got (<function on_done at 0x7f0a1b2c3d4e>) instead",
     [("hook", "must", "be", "callable", "got"), ("instead",)]),
    ("RuntimeError: no retry for <Response [503]>", [("no", "retry", "for")]),
])
def test_a_repr_in_a_pasted_message_is_a_value(pasted, segments):
    assert message_segments(pasted) == segments


def test_a_comparison_in_a_message_is_no_repr():
    assert message_segments("ValueError: need lo < hi and hi > 0") == [("need", "lo", "hi", "and", "hi")]


# A class longer than one snippet chunk, cut inside a docstring: the chunk after the cut starts
# in the middle of the docstring.
DOC_LINES = CHUNK_MAX_LINES + 20
LONG_CLASS = "\n".join([
    "class Response:",
    "    def describe(self):",
    '        """What a response holds.',
    *[f"        Line {i} of a long description of the attributes." for i in range(DOC_LINES)],
    '        """',
    "        return self.body",
    "",
    "    def iter_content(self, chunk_size=1):",
    '        """Iterate over the body in pieces."""',
    "        if chunk_size is not None and not isinstance(chunk_size, int):",
    "            raise TypeError(",
    '                f"chunk_size must be an int, it is instead a {type(chunk_size)}."',
    "            )",
    "        return iter(self.body)",
    "",
    "    def close(self):",
    '        """Release the connection."""',
    "        self.raw.close()",
    "",
])
RAISE_LINE = LONG_CLASS.splitlines().index("            raise TypeError(") + 1
PASTED = "TypeError: chunk_size must be an int, it is instead a <class 'str'>."


def test_a_chunk_cut_inside_a_docstring_keeps_its_messages():
    n = len(LONG_CLASS.splitlines())
    chunks = [(1, CHUNK_MAX_LINES), (CHUNK_MAX_LINES + 1, n)]
    fields = field_texts(LONG_CLASS, "python", chunks)
    assert fields[0] == ""
    assert fields[1].startswith("chunk_size must be an int it is instead a |")
    piece = "\n".join(LONG_CLASS.splitlines()[CHUNK_MAX_LINES:])
    fit, at = best_fit(piece, "python", unwrap_message(PASTED))
    assert fit > 0 and piece.count("\n", 0, at) + CHUNK_MAX_LINES + 1 == RAISE_LINE + 1


FILES = {
    "client/models.py": LONG_CLASS,
    "client/hooks.py": '''\
def register(hooks, event, hook):
    if not callable(hook):
        raise TypeError(f"a hook must be an instance of a callable class, it is instead a {type(hook)}")
    hooks[event].append(hook)


def dispatch(hooks, event, data):
    for hook in hooks.get(event, ()):
        data = hook(data) or data
    return data
''',
}


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    return indexed_files(tmp_path_factory.mktemp("pymsg"), tmp_path_factory.mktemp("pymsghome"), FILES)


def test_the_raise_in_a_long_class_comes_first_and_explains_the_paste(indexed):
    gen, repo, ref = indexed
    hits, _, intent = search_code(gen, repo, ref, PASTED, limit=5)
    assert intent["intent"] == "error" and intent.get("emitting_site", True)
    top = hits[0]
    assert (top.path, top.line_start <= RAISE_LINE + 1 <= top.line_end) == ("client/models.py", True), hits[:3]


def test_adjacent_f_strings_on_several_lines_are_one_message():
    source = ('raise MissingSchema(\n    f"Invalid URL {url!r}: No scheme supplied. "\n'
              '    f"Perhaps you meant https://{url}?"\n)')
    assert emitted_messages(source, "python") == [
        "Invalid URL {url!r}: No scheme supplied. Perhaps you meant https://{url}?"]
    # a literal that is another argument stays apart
    assert emitted_messages('raise E("first part", f"other {x} words")', "python") == ["first part", "other {x} words"]


TRACEBACK = """\
Traceback (most recent call last):
  File "/home/me/app/fetch.py", line 12, in <module>
    r = client.get("api.example.org/v1")
  File "/usr/lib/python3.11/site-packages/client/models.py", line 9, in iter_content
    raise TypeError(
    ^^^^^^^^^^^^^^^^
TypeError: chunk_size must be an int, it is instead a <class 'str'>.
"""


def test_a_pasted_traceback_is_its_exception():
    assert unwrap_message(TRACEBACK) == "chunk_size must be an int, it is instead a <class 'str'>."
    assert unwrap_message("Traceback (most recent call last):\nno frames here").startswith("Traceback")


def test_a_traceback_finds_the_raise_as_the_message_does(indexed):
    gen, repo, ref = indexed
    hits, _, intent = search_code(gen, repo, ref, TRACEBACK, limit=5)
    assert intent["intent"] == "error" and intent.get("emitting_site", True)
    assert (hits[0].path, hits[0].line_start <= RAISE_LINE + 1 <= hits[0].line_end) == ("client/models.py", True)
