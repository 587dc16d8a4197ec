"""What a Python exception prints is what its `__str__` returns (py-probe5, issue 17): pyparsing's
`ParseBaseException.__str__` builds every parse error's text, `f"{self.msg}{foundstr}  (at char
{self.loc}), (line:{self.lineno}, col:{self.column})"`, and Django's
`DjangoUnicodeDecodeError.__str__` returns `"%s. You passed in %r (%s)" % (...)`; neither literal
was a message, so a pasted `ParseException: Expected end of text, found 'x'  (at char 4), (line:1,
col:5)` had no site. Like Rust's `Display` impl (`fn fmt`), the literal an exception class's
`__str__` returns is one (literals.py)."""
from __future__ import annotations

from cruxe.literals import emitted_segments

EXCEPTION_STR = '''\
class ParseBaseException(Exception):
    """base exception class for all parsing runtime exceptions"""

    # pyparsing's class holds 160 lines of docstrings and properties above its `__str__`
    LONG = """
''' + "    a line of the class's long documentation\n" * 150 + '''    """

    def __init__(self, pstr, loc, msg):
        self.pstr, self.loc, self.msg = pstr, loc, msg

    def __str__(self) -> str:
        foundstr = ", found %r" % self.pstr[self.loc]
        return f"{self.msg}{foundstr}  (at char {self.loc}), (line:{self.lineno}, col:{self.column})"
'''


def test_the_literal_an_exception_str_returns_is_a_message():
    assert emitted_segments(EXCEPTION_STR, "python") == [["at", "char", "|", "line", "|", "col", "|"]]
    src = ('class DjangoUnicodeDecodeError(UnicodeDecodeError):\n    def __str__(self):\n'
           '        return "%s. You passed in %r (%s)" % (super().__str__(), self.obj, type(self.obj))\n')
    assert emitted_segments(src, "python") == [["you", "passed", "in", "|"]]


def test_another_class_str_is_no_message():
    # a value's printed form is no error message: a token, a node, a version string
    src = ('class Token:\n    def __str__(self):\n        return f"token {self.kind} at line {self.line}"\n')
    assert emitted_segments(src, "python") == []
    src = ('class Version:\n    def __str__(self):\n        return "plain words here"\n\n'
           'class KeyError2(Exception):\n    pass\n')
    assert emitted_segments(src, "python") == []
