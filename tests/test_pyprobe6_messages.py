"""Python messages pasted back (issue 17, sixth Python probe on sqlparse/h11/jsonschema/boltons):
an exception class whose name starts with an underscore, a private class a library raises all the
same (jsonschema's `exceptions._RefResolutionError`, which Python prints with its module path:
`jsonschema.exceptions._RefResolutionError: Unresolvable JSON pointer: 'definitions/address'`).
Its name is the runtime's wrapper, as a public class's is, not words of the message (the whole
paste was read as message, and the raise site was not found)."""
from __future__ import annotations

from cruxe.intent import classify
from cruxe.literals import exception_name, unwrap_message
from cruxe.query import search_code

from support.repos import indexed_files

POINTER = "jsonschema.exceptions._RefResolutionError: Unresolvable JSON pointer: 'definitions/address'"

FILES = {
    "schemalib/exceptions.py": '''class _Error(Exception):
    """The base of the errors a schema raises."""


class _RefResolutionError(_Error):
    """A reference could not be resolved."""
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
}


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
