"""Typed JSON values written as the Java and JavaScript source literals BFCL's checker reads.

BFCL's ``simple_java`` and ``simple_javascript`` model outputs give every argument as a string
of source code (``"true"``, ``"50L"``, ``"new ArrayList<>(Arrays.asList(\\"a\\"))"``, ``"[1, 2]"``),
which its checker converts to a value by the parameter's declared type
(``java_type_converter``, ``js_type_converter``). assay reads tool-call arguments as typed
JSON (``true``, ``50``, ``["a"]``). To give the same call to both, the benchmark writes each
typed value as such a literal, and keeps a call only when BFCL's own converter reads the
literal back as the same value (:func:`round_trips`): a string ``"5"`` in an ``integer``
parameter has no literal that stays a string, so it is not a Java or JavaScript candidate.

Example:
    >>> java_literal(True, "boolean"), java_literal(50, "long"), java_literal(1.5, "float")
    ('true', '50L', '1.5f')
    >>> java_literal(["a", "b"], "ArrayList", "String")
    'new ArrayList<>(Arrays.asList("a", "b"))'
    >>> js_literal("Paris", "String"), js_literal([1.5, 2], "array", "float")
    ('"Paris"', '[1.5, 2]')
    >>> js_literal(None, "String")
    'null'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["NESTED", "java_literal", "js_literal", "literal", "round_trips", "same_typed"]

#: Declared types whose item type BFCL's checker passes to the converter (its
#: ``NESTED_CONVERSION_TYPE_LIST``).
NESTED = ("Array", "ArrayList", "array")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _java_value(value: Any) -> str:
    """A literal for ``parse_java_value`` (no declared type: strings are quoted)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)


def java_literal(value: Any, kind: str, nested: str | None = None) -> str:
    """``value`` as Java source for a parameter declared ``kind`` (items ``nested``)."""
    if value is None:
        return "null"
    if kind == "boolean" and isinstance(value, bool):
        return "true" if value else "false"
    if kind == "long" and _is_int(value):
        return f"{value}L"
    if kind == "float" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{value}f"
    if kind == "Array" and isinstance(value, list):
        items = [java_literal(v, nested) if nested else _java_value(v) for v in value]
        return f"new {'int' if nested == 'integer' else 'Object'}[]{{{', '.join(items)}}}"
    if kind == "ArrayList" and isinstance(value, list):
        if not value:
            return "new ArrayList<>()"
        items = [f'"{v}"' if nested in ("String", "char") else
                 java_literal(v, nested) if nested else _java_value(v) for v in value]
        return f"new ArrayList<>(Arrays.asList({', '.join(items)}))"
    if kind == "HashMap" and isinstance(value, dict):
        puts = "".join(f'put("{k}", {_java_value(v)}); ' for k, v in value.items())
        return f"new HashMap<String, Object>() {{{{ {puts}}}}}" if value else "new HashMap<>()"
    if kind == "char" and isinstance(value, str):
        return f"'{value}'"
    return value if isinstance(value, str) else _java_value(value)


def _js_value(value: Any) -> str:
    """A literal for ``parse_js_value`` or a nested collection (strings quoted)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, list):
        return "[" + ", ".join(map(_js_value, value)) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f'"{k}": {_js_value(v)}' for k, v in value.items()) + "}"
    return str(value)


def js_literal(value: Any, kind: str, nested: str | None = None) -> str:
    """``value`` as JavaScript source for a parameter declared ``kind`` (items ``nested``)."""
    if value is None:
        return "null"
    if kind == "Bigint" and _is_int(value):
        return f"{value}n"
    if kind == "array" and isinstance(value, list):
        return "[" + ", ".join(js_literal(v, nested) if nested else _js_value(v)
                               for v in value) + "]"
    if kind == "String" or not isinstance(value, str):
        return _js_value(value)
    return value  # any, or a variable's name where a value is declared: the text itself


def literal(language: str, value: Any, schema: dict[str, Any]) -> str:
    """``value`` as the ``language`` (``JAVA`` or ``JAVASCRIPT``) literal for ``schema``."""
    kind = schema.get("type", "any")
    nested = (schema.get("items") or {}).get("type") if kind in NESTED else None
    write = java_literal if language == "JAVA" else js_literal
    return write(value, kind, nested)


def same_typed(a: Any, b: Any) -> bool:
    """Equal values of the same JSON type (numbers by value, a bool never a number).

    Example:
        >>> same_typed(4, 4.0), same_typed(True, 1), same_typed(["a"], ["a"])
        (True, False, True)
    """
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(same_typed, a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_typed(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def round_trips(convert: Callable[..., Any], value: Any, text: str,
                schema: dict[str, Any]) -> bool:
    """Whether BFCL's converter reads ``text`` back as ``value`` (as its checker calls it)."""
    kind = schema.get("type", "any")
    try:
        back = (convert(text, kind, (schema.get("items") or {}).get("type"))
                if kind in NESTED else convert(text, kind))
    except Exception:  # noqa: BLE001 - BFCL's converters raise anything on odd input
        return False
    return same_typed(back, value)
