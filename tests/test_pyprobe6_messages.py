"""Python messages pasted back (issue 17, sixth Python probe on sqlparse/h11/jsonschema/boltons):
an exception class whose name starts with an underscore, a private class a library raises all the
same (jsonschema's `exceptions._RefResolutionError`, which Python prints with its module path:
`jsonschema.exceptions._RefResolutionError: Unresolvable JSON pointer: 'definitions/address'`).
Its name is the runtime's wrapper, as a public class's is, not words of the message (the whole
paste was read as message, and the raise site was not found).
And a message jsonschema keeps in a variable named `error` before it yields the error (`error =
"Additional properties are not allowed (%s %s unexpected)"`, then `ValidationError(error %
extras_msg(extras))`): the literal is a message, as one given to a `msg` or `message` is (it was not,
so the paste found the exception class, not the site)."""
from __future__ import annotations

from cruxe.intent import classify
from cruxe.literals import emitted_messages, exception_name, unwrap_message
from cruxe.query import search_code

from support.repos import indexed_files

POINTER = "jsonschema.exceptions._RefResolutionError: Unresolvable JSON pointer: 'definitions/address'"

FILES = {
    "schemalib/exceptions.py": '''class _Error(Exception):
    """The base of the errors a schema raises."""


class _RefResolutionError(_Error):
    """A reference could not be resolved."""


class ValidationError(_Error):
    """An instance is invalid under a schema."""
''',
    "schemalib/resolver.py": '''from urllib.parse import unquote

from schemalib import exceptions


class Resolver:
    def __init__(self, document):
        self.document = document

    def resolve_fragment(self, fragment):
        """Follow a pointer fragment through the document."""
        document = self.document
        for part in unquote(fragment).split("/"):
            try:
                document = document[part]
            except (TypeError, LookupError) as err:
                raise exceptions._RefResolutionError(
                    f"Unresolvable JSON pointer: {fragment!r}",
                ) from err
        return document
''',
    "schemalib/keywords.py": '''from schemalib.exceptions import ValidationError


def extras_msg(extras):
    verb = "was" if len(extras) == 1 else "were"
    return ", ".join(repr(extra) for extra in extras), verb


def additionalProperties(validator, aP, instance, schema):
    extras = [key for key in instance if key not in schema.get("properties", {})]
    if not aP and extras:
        error = "Additional properties are not allowed (%s %s unexpected)"
        yield ValidationError(error % extras_msg(sorted(extras, key=str)))


def required(validator, required, instance, schema):
    for property in required:
        if property not in instance:
            error = ValidationError(f"{property!r} is a required property")
            yield error
''',
}
EXTRA = "jsonschema.exceptions.ValidationError: Additional properties are not allowed ('nickname' was unexpected)"



def test_a_private_exception_name_is_the_wrapper():
    assert exception_name(POINTER) == "_RefResolutionError"
    assert unwrap_message(POINTER) == "Unresolvable JSON pointer: 'definitions/address'"
    assert unwrap_message("_Error: pointer missing") == "pointer missing"
    assert classify("_SchemaError: pointer missing")[0] == "error"


def test_the_raise_site_comes_first(tmp_path):
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", FILES)
    hits, _, intent = search_code(gen, repo, ref, POINTER, limit=5)
    assert intent["intent"] == "error"
    assert (hits[0].path, hits[0].line_start <= 17 <= hits[0].line_end) == ("schemalib/resolver.py", True), hits[:3]


def test_a_message_kept_in_an_error_variable_is_emitted():
    got = emitted_messages(FILES["schemalib/keywords.py"], "python")
    assert got == ["Additional properties are not allowed (%s %s unexpected)", "{property!r} is a required property"]
    # nor is a string given to `errors` (a codec's error handler) or to another name
    assert emitted_messages('errors = "strict or else"\nterror = "a scary thing"\n', "python") == []


def test_the_yielding_functions_come_first(tmp_path):
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", FILES)
    for pasted, line in ((EXTRA, 12),):
        hits, _, intent = search_code(gen, repo, ref, pasted, limit=5)
        assert intent["intent"] == "error"
        assert (hits[0].path, hits[0].line_start <= line <= hits[0].line_end) == ("schemalib/keywords.py", True), \
            (pasted, hits[:3])
