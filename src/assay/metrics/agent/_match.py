"""Whether a predicted tool call matches a reference call, under the rules of the Berkeley
Function Calling Leaderboard's AST checker (our own implementation of its rules).

- Names must be equal (exactly).
- The arguments must be a JSON object (text that is not is ``invalid_arguments``).
- Every ``required`` parameter of the tool's JSON Schema must be given; every argument the
  reference names must be given too, unless ``None`` is among its acceptable values.
- An argument the reference does not name, or the schema does not declare, is unexpected.
- Types follow the schema's ``type`` (``integer``: an int, not ``7.0`` nor ``"7"``; ``number``:
  an int or a float; never a bool for either). BFCL's Python names (``float``, ``dict``,
  ``tuple``, ``any``) are read too. Where the reference and the schema disagree, the
  reference wins: a value (or a list item, or a property) of the same type as an acceptable
  value at that place passes the type check (BFCL's rule for variable names, which BFCL
  applies to any type: a ``true`` for a parameter declared ``string`` whose acceptable value
  is ``true``). Int and float are apart in that comparison. Such a value (of another type
  than the schema's, at the top level) must equal an acceptable value exactly: BFCL reads it
  as a variable name (``data['sales']`` for an array), where case and punctuation count.
  Without a schema, the acceptable values decide the type. An explicit ``null`` is right where ``None`` is acceptable.
- Values: strings compare without case, spaces and the punctuation ``,./-_*^`` (``'`` reads
  as ``"``); numbers by value (``200 == 200.0``); lists in order, item by item; objects key by
  key, recursively (the same keys on both sides).

Example:
    >>> from assay.data import ReferenceCall, ToolCall
    >>> ref = ReferenceCall(name="search", arguments={"city": "Paris"},
    ...                     accept={"max_price": [200, None]})
    >>> match_call(ToolCall(id="1", name="search", arguments_text='{"city": "paris "}'), ref)
    []
    >>> [m.text() for m in match_call(ToolCall(id="2", name="search",
    ...     arguments_text='{"city": "Lyon", "stars": 4}'), ref)]
    ["wrong value for 'city': 'Lyon', expected 'Paris'", "unexpected argument 'stars'"]
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from ...data import ReferenceCall, ToolCall

__all__ = ["Mismatch", "MismatchKind", "match_call", "same_value", "standardize"]

MismatchKind = Literal["wrong_name", "invalid_arguments", "missing_argument",
                       "unexpected_argument", "wrong_type", "wrong_value"]

_IGNORED = re.compile(r"[ ,./\-_*^]")
_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,), "integer": (int,), "number": (int, float), "float": (int, float),
    "double": (int, float), "boolean": (bool,), "array": (list,), "tuple": (list,),
    "list": (list,), "object": (dict,), "dict": (dict,), "null": (type(None),),
}


@dataclass(frozen=True)
class Mismatch:
    """Why a call does not match: its ``kind``, the ``argument`` concerned (if one), and
    ``detail`` (what was got and expected)."""

    kind: MismatchKind
    argument: str | None = None
    detail: str = ""

    def text(self) -> str:
        """One readable line, e.g. ``missing argument 'city'``.

        Example:
            >>> Mismatch("wrong_type", "zip", "'7890' is string, expected integer").text()
            "wrong type for 'zip': '7890' is string, expected integer"
        """
        label = "invalid arguments" if self.kind == "invalid_arguments" else self.kind.replace(
            "_", " ")
        if self.kind in ("missing_argument", "unexpected_argument"):
            return f"{label} {self.argument!r}"
        where = f" for {self.argument!r}" if self.argument else ""
        return f"{label}{where}: {self.detail}" if self.detail else f"{label}{where}"


def standardize(text: str) -> str:
    """A string as BFCL compares it: lower case, without spaces and ``,./-_*^``, ``'`` as ``"``.

    Example:
        >>> standardize("April 1, 2024"), standardize("New-York")
        ('april12024', 'newyork')
    """
    return _IGNORED.sub("", text).lower().replace("'", '"')


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def same_value(value: Any, expected: Any) -> bool:
    """Whether ``value`` equals ``expected`` under the rules above.

    Example:
        >>> same_value(200, 200.0), same_value("7890", 7890), same_value(True, 1)
        (True, False, False)
        >>> same_value({"b": [1, "X y"], "a": 2}, {"a": 2, "b": [1, "x-Y"]})
        True
    """
    if isinstance(value, str) and isinstance(expected, str):
        return standardize(value) == standardize(expected)
    if isinstance(value, bool) or isinstance(expected, bool):
        return value is expected
    if _is_number(value) and _is_number(expected):
        return bool(value == expected)
    if isinstance(value, list) and isinstance(expected, list):
        return len(value) == len(expected) and all(map(same_value, value, expected))
    if isinstance(value, dict) and isinstance(expected, dict):
        return value.keys() == expected.keys() and all(
            same_value(v, expected[k]) for k, v in value.items())
    return value is None and expected is None


def _json_type(value: Any) -> str:
    """The JSON type of a parsed value (``number`` for int and float alike)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if _is_number(value):
        return "number"
    names: dict[type, str] = {str: "string", list: "array", dict: "object"}
    return names.get(type(value), type(value).__name__)


def _is_type(value: Any, name: Any) -> bool:
    kinds = _TYPES.get(name) if isinstance(name, str) else None
    if kinds is None:  # "any", or a type we do not know: no check
        return True
    if isinstance(value, bool) and bool not in kinds:
        return False
    return isinstance(value, kinds)


def _exact_type(value: Any) -> str:
    """A parsed value's type with int and float apart (BFCL compares Python types)."""
    if isinstance(value, bool):
        return "boolean"
    return {int: "integer", float: "float"}.get(type(value)) or _json_type(value)


def _off_schema(value: Any, schema: Any) -> bool:
    """Whether ``value`` is not of the type the schema declares (its top level only)."""
    declared = schema.get("type") if isinstance(schema, dict) else None
    if declared is None:
        return False
    names = declared if isinstance(declared, list) else [declared]
    return not any(_is_type(value, n) for n in names)


def _type_ok(value: Any, schema: Any, hints: list[Any] | None = None) -> bool:
    """Whether ``value`` has the type ``schema`` declares, items and properties included.
    ``hints`` are the acceptable values at the same place: a value of the same type as one of
    them passes whatever the schema says (the reference wins, as in BFCL)."""
    if not isinstance(schema, dict):
        return True
    hints = [h for h in hints or [] if h is not None]
    if _off_schema(value, schema) and not any(_exact_type(value) == _exact_type(h)
                                              for h in hints):
        return False
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        inner = [x for h in hints if isinstance(h, list) for x in h]
        return all(_type_ok(v, schema["items"], inner) for v in value)
    props = schema.get("properties")
    if isinstance(value, dict) and isinstance(props, dict):
        return all(_type_ok(v, props.get(k), [h[k] for h in hints if isinstance(h, dict)
                                              and k in h]) for k, v in value.items())
    return True


def _show(value: Any, width: int = 60) -> str:
    text = repr(value) if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 3] + "..."


def _check_value(name: str, value: Any, accepted: list[Any],
                 schema: Any) -> Mismatch | None:
    """The mismatch of one given argument against its acceptable values, or None."""
    if value is None and None in accepted:
        return None  # left out in effect, which the reference allows
    given = [a for a in accepted if a is not None]
    if not _type_ok(value, schema, given):
        declared = schema.get("type") if isinstance(schema, dict) else None
        return Mismatch("wrong_type", name, f"{_show(value)} is {_json_type(value)}, "
                                             f"expected {declared}")
    if _off_schema(value, schema):  # a variable name, as BFCL reads it: exactly equal
        if any(value == a and _exact_type(value) == _exact_type(a) for a in given):
            return None
    elif any(same_value(value, a) for a in accepted):
        return None
    expected = _show(given[0]) if len(given) == 1 else f"one of {_show(given, 80)}"
    if given and all(_json_type(a) != _json_type(value) for a in given):
        return Mismatch("wrong_type", name, f"{_show(value)} is {_json_type(value)}, "
                                             f"expected {expected}")
    return Mismatch("wrong_value", name, f"{_show(value)}, expected {expected}")


def _invalid(text: str) -> str:
    """What is wrong with arguments that are not a JSON object."""
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return f"not valid JSON: {_show(text)}"
    return f"JSON but not an object: {_show(text)}"


def match_call(call: ToolCall, reference: ReferenceCall,
               schema: dict[str, Any] | None = None) -> list[Mismatch]:
    """Every mismatch between ``call`` and ``reference`` (empty: they match). ``schema`` is the
    JSON Schema of the reference tool's parameters, when the row declares it.

    Example:
        >>> from assay.data import ReferenceCall, ToolCall
        >>> schema = {"type": "object", "properties": {"zip": {"type": "integer"}},
        ...           "required": ["zip"]}
        >>> ref = ReferenceCall(name="f", arguments={"zip": 7890})
        >>> [m.text() for m in match_call(ToolCall(id="1", name="f",
        ...                                         arguments_text='{"zip": "7890"}'), ref, schema)]
        ["wrong type for 'zip': '7890' is string, expected integer"]
        >>> [m.kind for m in match_call(ToolCall(id="2", name="f", arguments_text="{zip"), ref)]
        ['invalid_arguments']
    """
    if call.name != reference.name:
        return [Mismatch("wrong_name", None, f"called {call.name!r}, expected "
                                             f"{reference.name!r}")]
    args = call.arguments()
    if args is None:
        return [Mismatch("invalid_arguments", None, _invalid(call.arguments_text))]
    schema = schema if isinstance(schema, dict) else {}
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else None
    required = [r for r in schema.get("required") or [] if isinstance(r, str)]
    out = [Mismatch("missing_argument", r) for r in required if r not in args]
    for name, value in args.items():
        accepted = reference.acceptable(name)
        if accepted is None or (props is not None and name not in props):
            out.append(Mismatch("unexpected_argument", name))
            continue
        found = _check_value(name, value, accepted, props.get(name) if props else None)
        if found is not None:
            out.append(found)
    for name in reference.argument_names():
        accepted = reference.acceptable(name) or []
        if name not in args and name not in required and None not in accepted:
            out.append(Mismatch("missing_argument", name))
    return out
