"""Python messages pasted back (issue 17, fourth Python probe on urllib3/packaging/tomlkit/
itsdangerous). Three shapes the earlier rounds did not meet:
- a value printed as `name=value` (`(read timeout=5.0)`, a pool's repr `Pool(host='x', port=80)`):
  the name is the message's, the value the run's;
- a quoted value holding spaces (`Invalid key "first name"`): one value, not two words;
- a paste of several lines (packaging prints the requirement and a caret under the message):
  a phrase never runs from one line into the next;
and two emitting calls: a helper named for what it does, `tokenizer.raise_syntax_error(f"...")`, and
an exception class's `super().__init__(f"...")`, what `str()` of the exception prints (urllib3's
`f"{pool}: {message}"` around every pool error, tomlkit's `f"{message} at line {line} col {col}"`)."""
from __future__ import annotations

from cruxe.literals import emitted_messages, message_segments
from cruxe.query import search_code

from support.repos import indexed_files

READ_TIMEOUT = ("urllib3.exceptions.ReadTimeoutError: HTTPConnectionPool(host='api.internal', port=8080): "
                "Read timed out. (read timeout=5.0)")
INVALID_KEY = 'tomlkit.exceptions.ParseError: Invalid key "first name" at line 1 col 11'
# the exception's own message ends in a value's hole: the base's wrapper, which fits the whole
# paste too, is no inner message of it
UNEXPECTED = "tomlkit.exceptions.UnexpectedCharError: Unexpected character: 'x' at line 3 col 9"
SEMICOLON = ("packaging.requirements.InvalidRequirement: Expected end or semicolon (after version specifier)\n"
             "    requests>=2.0 beta\n             ~~~~~^")


def test_a_name_equals_value_word_keeps_the_name_and_drops_the_value():
    segs = message_segments(READ_TIMEOUT)
    assert segs[0] == ("read", "timed", "out", "read", "timeout")
    assert not any(w in seg for seg in segs for w in ("8080", "5", "api", "internal"))


def test_a_quoted_value_with_spaces_is_one_value():
    segs = message_segments(INVALID_KEY)
    assert ("invalid", "key") in segs
    assert not any("first" in seg or "name" in seg for seg in segs)
    # a quoted single word stays a value, an apostrophe inside a word is no quote
    assert message_segments("ValueError: doesn't match 'abc' at all") == [("doesn", "t", "match"), ("at", "all")]


def test_a_phrase_ends_at_a_line_break():
    segs = message_segments(SEMICOLON)
    assert segs[0] == ("expected", "end", "or", "semicolon", "after", "version", "specifier")


def test_a_raise_helper_emits_its_message():
    text = ('def parse(tokenizer, after):\n'
            '    if not tokenizer.check("SEMICOLON"):\n'
            '        tokenizer.raise_syntax_error(\n'
            '            f"Expected end or semicolon (after {after})",\n'
            '            span_start=3,\n'
            '        )\n'
            '    tokenizer.report_state("nothing to say here")\n'
            '    assert_error("{% if %}", "Expected an expression here")\n')
    assert emitted_messages(text, "python") == ["Expected end or semicolon (after {after})"]



def test_an_exception_class_emits_what_it_gives_its_base():
    text = ('class PoolError(HTTPError):\n'
            '    def __init__(self, pool, message):\n'
            '        self.pool = pool\n'
            '        super().__init__(f"{pool}: {message} (pool error)")\n\n\n'
            'class Tag:\n'
            '    def __init__(self, name):\n'
            '        super().__init__(f"tag named {name} here")\n')
    assert emitted_messages(text, "python") == ["{pool}: {message} (pool error)"]


FILES = {
    "netlib/pool.py": '''\
class PoolError(Exception):
    def __init__(self, pool, message):
        super().__init__(f"{pool}: {message}")


class ReadTimeoutError(PoolError):
    def __init__(self, pool, url, message):
        super().__init__(pool, message)


class Pool:
    def _raise_timeout(self, err, url, timeout_value):
        """Is the error actually a timeout? Will raise a ReadTimeout or pass"""
        if isinstance(err, TimeoutError):
            raise ReadTimeoutError(
                self, url, f"Read timed out. (read timeout={timeout_value})"
            ) from err

    def _describe(self, timeout):
        """The pool's read timeout, the host and the port, for the logs."""
        return f"read timeout {timeout} for the pool at host and port"
''',
    "tomllib2/parser.py": '''\
class ParseError(ValueError):
    def __init__(self, line, col, message=None):
        super().__init__(f"{message} at line {line} col {col}")


class UnexpectedCharError(ParseError):
    def __init__(self, line, col, char):
        message = f"Unexpected character: {char!r}"
        super().__init__(line, col, message=message)


class Parser:
    def _parse_bare_key(self, key):
        """A key without quotes: no spaces in it."""
        if " " in key:
            raise self.parse_error(ParseError, f'Invalid key "{key}"')
        return key

    def _first_name(self, line):
        """The first name of the line: the key."""
        return line.split("=")[0]
''',
    "reqlib/_parser.py": '''\
def _parse_requirement_marker(tokenizer, *, span_start, after):
    """requirement_marker = SEMICOLON marker WS?"""
    if not tokenizer.check("SEMICOLON"):
        tokenizer.raise_syntax_error(
            f"Expected end or semicolon (after {after})",
            span_start=span_start,
        )
    tokenizer.read()


def _parse_version_specifier(tokenizer):
    """The version specifier of a requirement: its operator and version."""
    return tokenizer.read()
''',
}


def _first_is(hits, path, line):
    return (hits[0].path, hits[0].line_start <= line <= hits[0].line_end) == (path, True)


def test_the_emitting_site_of_each_paste_comes_first(tmp_path):
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", FILES)
    for pasted, path, line in ((READ_TIMEOUT, "netlib/pool.py", 16), (INVALID_KEY, "tomllib2/parser.py", 16),
                               (UNEXPECTED, "tomllib2/parser.py", 8),
                               (SEMICOLON, "reqlib/_parser.py", 5)):
        hits, _, intent = search_code(gen, repo, ref, pasted, limit=5)
        assert intent["intent"] == "error"
        assert _first_is(hits, path, line), (pasted, hits[:3])
