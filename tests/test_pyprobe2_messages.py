"""Python messages pasted back (issue 17, second Python probe on werkzeug/attrs/marshmallow).
An exception raised with several arguments (`raise TypeError(msg, attr, type, value)`, as
attrs' validators do) prints as the tuple of its arguments: the message is the first one, a
string repr, and the rest are values (an object's repr, a class, the bad value)."""
from __future__ import annotations

import pytest

from cruxe.literals import emitted_messages, unwrap_message
from cruxe.query import search_code

from support.repos import indexed_files

ARGS_PASTE = ("TypeError: (\"'port' must be <class 'int'> (got '8080' that is a <class 'str'>).\", "
              "Attribute(name='port', default=NOTHING, validator=<instance_of validator for type <class 'int'>>, "
              "repr=True, eq=True, eq_key=None, order=True, order_key=None, hash=None, init=True, "
              "metadata=mappingproxy({'doc': 'listen port'}), type=None, converter=None, kw_only=False, "
              "inherited=False, on_setattr=None, alias='port'), <class 'int'>, '8080')")


@pytest.mark.parametrize("pasted,message", [
    (ARGS_PASTE, "'port' must be <class 'int'> (got '8080' that is a <class 'str'>)."),
    ("ValueError: ('Don\\'t know \"x\"', 3)", "Don't know \"x\""),
    ("KeyError: ('a', 'b')", "a"),
    # one argument, or a message that merely starts with a parenthesis: as printed
    ("ValueError: (got 3) is not a valid range", "(got 3) is not a valid range"),
    ("ValueError: ('unclosed, 3", "('unclosed, 3"),
])
def test_an_exception_printed_as_its_arguments_is_its_first_one(pasted, message):
    assert unwrap_message(pasted) == message


FILES = {
    "attrlib/validators.py": '''\
class _InstanceOfValidator:
    def __init__(self, type):
        self.type = type

    def __call__(self, inst, attr, value):
        if not isinstance(value, self.type):
            msg = f"'{attr.name}' must be {self.type!r} (got {value!r} that is a {value.__class__!r})."
            raise TypeError(
                msg,
                attr,
                self.type,
                value,
            )


class _IsCallableValidator:
    def __call__(self, inst, attr, value):
        if not callable(value):
            message = "'{name}' must be callable (got {value!r} that is a {actual!r})."
            raise NotCallableError(msg=message.format(name=attr.name, value=value, actual=value.__class__), value=value)


class _SubclassOfValidator:
    def __init__(self, type):
        self.type = type

    def __call__(self, inst, attr, value):
        if not issubclass(value, self.type):
            msg = f"'{attr.name}' must be a subclass of {self.type!r} (got {value!r})."
            raise TypeError(msg, attr, self.type, value)


class _InValidator:
    def __init__(self, options):
        self.options = options

    def __call__(self, inst, attr, value):
        if value not in self.options:
            msg = f"'{attr.name}' must be in {self.options!r} (got {value!r})"
            raise ValueError(msg, attr, self.options, value)
''',
    "attrlib/make.py": '''\
class Attribute:
    """An attribute: its name, default, validator, repr, eq and order flags, hash, init,
    type, converter and whether it is keyword only."""

    def __init__(self, name, default, validator, repr, eq, order, hash, init, type=None, converter=None,
                 kw_only=False, alias=None):
        self.name, self.default, self.validator, self.repr = name, default, validator, repr
        self.eq, self.order, self.hash, self.init = eq, order, hash, init
        self.type, self.converter, self.kw_only, self.alias = type, converter, kw_only, alias


def _transform_attrs(attrs):
    had_default = False
    for a in attrs:
        if had_default and a.default is None:
            msg = f"No mandatory attributes allowed after an attribute with a default value or factory.  Attribute in question: {a!r}"
            raise ValueError(msg)
        had_default = had_default or a.default is not None
    return attrs


def _check_type(attr, type):
    if attr.type is not None and attr.type is not type:
        raise TypeError(f"Type annotation and type argument cannot both be present for the attribute {attr.name!r}: {type!r}")


def _determine_attrib_eq_order(cmp, eq, order, default_eq):
    """The eq, eq_key, order and order_key of an attribute from its cmp, eq and order arguments."""
    if cmp is not None and any((eq is not None, order is not None)):
        raise ValueError("Don't mix `cmp` with `eq' and `order`.")
    eq_key = eq if callable(eq) else None
    eq = default_eq if eq is None else bool(eq)
    order_key = order if callable(order) else None
    order = eq if order is None else bool(order)
    if eq is False and order is True:
        raise ValueError("`order` can only be True if `eq` is True too.")
    return eq, eq_key, order, order_key


def attrib(default=None, validator=None, repr=True, eq=True, order=True, hash=None, init=True, type=None,
           converter=None, kw_only=False, alias=None, metadata=None, on_setattr=None):
    """Define a new attribute: its default, validator, repr, eq, eq_key, order, order_key, hash,
    init, metadata, type, converter, kw_only, on_setattr and alias, each passed to the Attribute
    made for it; inherited ones are not redefined."""
    return Attribute(None, default, validator, repr, eq, order, hash, init, type, converter, kw_only, alias)
''',
}


def test_the_raise_of_an_argument_tuple_comes_first(tmp_path):
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", FILES)
    hits, _, intent = search_code(gen, repo, ref, ARGS_PASTE, limit=5)
    assert intent["intent"] == "error"
    assert (hits[0].path, hits[0].line_start <= 8 <= hits[0].line_end) == ("attrlib/validators.py", True), hits[:3]


# A Python table of messages: a field's messages by key, raised through `self.make_error(key)`,
# which names none of their words.
TABLE_FILES = {
    "schemalib/fields.py": '''\
class Field:
    default_error_messages = {
        "required": "Missing data for required field.",
        "null": "Field may not be null.",
    }

    def make_error(self, key, **kwargs):
        msg = self.error_messages[key]
        return ValidationError(msg.format(**kwargs))


class Integer(Field):
    default_error_messages = {"invalid": "Not a valid integer.", "too_large": "Number too large."}

    def _deserialize(self, value):
        try:
            return int(value)
        except (TypeError, ValueError) as error:
            raise self.make_error("invalid") from error
''',
    "schemalib/utils.py": '''\
def from_iso_date(value):
    """Parse a string and return a datetime.date."""
    if not value:
        raise ValueError("Not a valid ISO8601-formatted date string")
    return value


def from_timestamp(value):
    if value is True or value is False:
        raise ValueError("Not a valid POSIX timestamp")
    return value
''',
}


def test_a_python_table_of_messages_holds_messages(tmp_path):
    assert emitted_messages(TABLE_FILES["schemalib/fields.py"], "python") == [
        "Missing data for required field.", "Field may not be null.", "Not a valid integer.", "Number too large."]
    # a dict of other strings is no table of messages
    assert emitted_messages('LABELS = {"a": "first of all", "b": "second one"}\n', "python") == []


def test_a_pasted_message_of_a_table_finds_its_entry(tmp_path):
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", TABLE_FILES)
    hits, _, _ = search_code(gen, repo, ref, "marshmallow.exceptions.ValidationError: {'age': ['Not a valid integer.']}",
                             limit=5)
    assert (hits[0].path, hits[0].line_start <= 13 <= hits[0].line_end) == ("schemalib/fields.py", True), hits[:3]


# An exception class whose message is a class attribute, printed by its `__str__` (werkzeug's
# HTTP exceptions: `404 Not Found: The requested URL was not found on the server. ...`).
HTTP_FILES = {
    "web/exceptions.py": '''\
class HTTPException(Exception):
    code = None
    description = None

    def __str__(self):
        return f"{self.code} {self.name}: {self.description}"


class BadRequest(HTTPException):
    """*400* `Bad Request`"""

    code = 400
    description = (
        "The browser (or proxy) sent a request that this server could not understand."
    )


class NotFound(HTTPException):
    """*404* `Not Found`

    Raise if a resource does not exist and never existed.
    """

    code = 404
    description = (
        "The requested URL was not found on the server. If you entered"
        " the URL manually please check your spelling and try again."
    )
''',
    "web/registry.py": '''\
_registry = {}


def get_class(classname):
    try:
        return _registry[classname]
    except KeyError as error:
        raise LookupError(
            f"Class with name {classname!r} was not found. You may need to import the class."
        ) from error


class Settings:
    description = "the settings were not found on the server when you entered them"
''',
}
NOT_FOUND = ("werkzeug.exceptions.NotFound: 404 Not Found: The requested URL was not found on the server. "
             "If you entered the URL manually please check your spelling and try again.")


def test_an_exception_class_attribute_is_its_message(tmp_path):
    messages = emitted_messages(HTTP_FILES["web/exceptions.py"] + HTTP_FILES["web/registry.py"], "python")
    assert "The requested URL was not found on the server. If you entered the URL manually please check your " \
           "spelling and try again." in messages
    assert not any(m.startswith("the settings") for m in messages)  # no exception's attribute
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", HTTP_FILES)
    hits, _, _ = search_code(gen, repo, ref, NOT_FOUND, limit=5)
    assert (hits[0].path, hits[0].line_start <= 26 <= hits[0].line_end) == ("web/exceptions.py", True), hits[:3]
