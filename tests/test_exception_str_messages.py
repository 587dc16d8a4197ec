"""A Python exception's `__str__` is the format a traceback prints after the exception's name
(issue 17, pasted errors; found on pyparsing, whose every error reads `Expected X, found 'y'
(at char 4), (line:1, col:5)` from `ParseBaseException.__str__`). What it returns is a message;
the `__str__` of a class that is no exception is not. The method often sits far below its class
statement, past the snippet chunk a query weighs: the fit must not need to see the class."""
from __future__ import annotations

from cruxe.literals import emitted_messages
from cruxe.query import search_code

from support.repos import indexed_files

PASTE = "mygrammar.errors.GrammarError: Expected end of text, found 'x'  (at char 4), (line:1, col:5)"

# enough properties between the class statement and `__str__` that they are not in one chunk
PROPERTIES = "".join(f'''
    @property
    def position_{k}(self) -> int:
        """The position number {k} of the error in the input text, counted from zero."""
        return self.loc + {k}
''' for k in range(40))

FILES = {
    "mygrammar/errors.py": f'''\
class GrammarError(Exception):
    """An input the grammar does not accept."""

    def __init__(self, text, loc, msg):
        self.text, self.loc, self.msg = text, loc, msg
{PROPERTIES}
    def __str__(self) -> str:
        found = repr(self.text[self.loc:self.loc + 1])
        return f"{{self.msg}}, found {{found}}  (at char {{self.loc}}), (line:{{self.lineno}}, col:{{self.column}})"
''',
    "mygrammar/helpers.py": '''\
def must_repeat(expected, tokens):
    """The repeated expression must match the tokens the first match found."""
    if tokens != expected:
        raise ValueError(f"Expected {expected}, found{tokens}")
''',
}


def test_an_exception_str_emits_its_format_and_a_plain_class_str_does_not():
    text = ('class GrammarError(Exception):\n'
            '    def __str__(self):\n'
            '        return f"{self.msg}  (at char {self.loc})"\n\n\n'
            'class Point:\n'
            '    def __str__(self):\n'
            '        return f"point at x {self.x} and y {self.y}"\n')
    assert emitted_messages(text, "python") == ["{self.msg}  (at char {self.loc})"]


def test_a_pasted_error_answers_the_exception_str_first(tmp_path):
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", FILES)
    hits, _, intent = search_code(gen, repo, ref, PASTE, limit=5)
    assert intent["intent"] == "error"
    assert (hits[0].path, hits[0].name) == ("mygrammar/errors.py", "__str__"), hits[:3]
