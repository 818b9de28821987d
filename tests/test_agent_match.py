"""Matching one tool call against a reference call (BFCL's AST checker rules, our own code),
and the description of the calls a trajectory leaves unmatched."""

from __future__ import annotations

from typing import Any

import pytest

from assay.data import ReferenceCall, ToolCall
from assay.metrics.agent import compare_calls, match_call, max_matching, same_value, standardize

HOTELS = {"type": "object", "required": ["city"],
          "properties": {"city": {"type": "string"}, "max_price": {"type": "integer"}}}
CONVERT = {"type": "object", "properties": {"amount": {"type": "number"},
                                            "flags": {"type": "array",
                                                      "items": {"type": "boolean"}}}}
BFCL_NAMES = {"type": "dict", "properties": {"rate": {"type": "float"},
                                             "pair": {"type": "tuple"}, "x": {"type": "any"}}}

# A schema the references below contradict (as some BFCL items do).
MISTYPED = {"type": "object", "properties": {
    "venue": {"type": "string"}, "n": {"type": "integer"},
    "words": {"type": "array", "items": {"type": "integer"}},
    "o": {"type": "object", "properties": {"k": {"type": "integer"}}}}}


def call(args: str, name: str = "f") -> ToolCall:
    return ToolCall(id="c", name=name, arguments_text=args)


def ref(name: str = "f", accept: dict[str, list[Any]] | None = None, **arguments: Any) -> ReferenceCall:
    return ReferenceCall(name=name, arguments=arguments, accept=accept or {})


# (call arguments, reference, schema, expected mismatch kinds with their argument)
CASES = [
    ('{"city": "Paris"}', ref(city="Paris"), HOTELS, []),
    ('{"max_price": 200, "city": "Paris"}', ref(city="Paris", max_price=200), HOTELS, []),  # key order
    ('{"city": "NEW york!"}', ref(city="New-York!"), None, []),  # case, space, punctuation
    ('{"city": "New York City"}', ref(city="New York"), None, [("wrong_value", "city")]),
    ('{"city": "Paris", "max_price": "200"}', ref(city="Paris", max_price=200), HOTELS,
     [("wrong_type", "max_price")]),  # "200" is not an integer
    ('{"city": "Paris", "max_price": 200.0}', ref(city="Paris", max_price=200), HOTELS,
     [("wrong_type", "max_price")]),  # nor is 200.0, as BFCL reads it
    ('{"zip": "7890"}', ref(zip=7890), None, [("wrong_type", "zip")]),  # no schema: the reference's type
    ('{"amount": 10}', ref(amount=10.0), CONVERT, []),  # an integer where a number is expected
    ('{"amount": 10.5}', ref(amount=10), CONVERT, [("wrong_value", "amount")]),
    ('{"amount": true}', ref(amount=1), CONVERT, [("wrong_type", "amount")]),  # a bool is no number
    ('{"flags": "true"}', ref(flags=[True]), CONVERT, [("wrong_type", "flags")]),
    ('{"flags": [true, 1]}', ref(flags=[True, True]), CONVERT,  # an int among booleans
     [("wrong_type", "flags")]),
    ('{"city": 7}', ref(city=7), HOTELS, []),  # the reference's own type is allowed (BFCL)
    ('{"city": "Paris"}', ref(city="Paris", max_price=200), HOTELS,
     [("missing_argument", "max_price")]),
    ('{"city": "Paris"}', ref(city="Paris", accept={"max_price": [200, None]}), HOTELS, []),
    ('{"city": "Paris", "max_price": null}', ref(accept={"city": ["Paris"], "max_price": [200, None]}),
     HOTELS, []),  # an explicit null where null is acceptable
    ('{"city": "Paris, France"}', ref(city="Paris", accept={"city": ["Paris", "Paris, France"]}),
     HOTELS, []),  # accept overrides arguments
    ('{"max_price": 200}', ref(accept={"city": ["Paris", None], "max_price": [200]}), HOTELS,
     [("missing_argument", "city")]),  # the schema requires it, whatever the reference accepts
    ('{"city": "Paris", "stars": 4}', ref(city="Paris"), None, [("unexpected_argument", "stars")]),
    ('{"city": "Paris", "max_price": 1}', ref(city="Paris", accept={"max_price": [1]}),
     {"type": "object", "properties": {"city": {"type": "string"}}},
     [("unexpected_argument", "max_price")]),  # the schema does not declare it
    ('{"city": "Paris"', ref(city="Paris"), HOTELS, [("invalid_arguments", None)]),
    ('["Paris"]', ref(city="Paris"), HOTELS, [("invalid_arguments", None)]),  # not an object
    ('{"o": {"b": 1, "a": ["X", 2]}}', ref(o={"a": ["x", 2], "b": 1}), None, []),  # nested, key order
    ('{"o": {"a": 1}}', ref(o={"a": 1, "b": 2}), None, [("wrong_value", "o")]),  # nested key missing
    ('{"l": ["b", "a"]}', ref(l=["a", "b"]), None, [("wrong_value", "l")]),  # lists are ordered
    ('{"rate": 3, "pair": [1, 2], "x": "y"}', ref(rate=3.0, pair=[1, 2], x="Y"), BFCL_NAMES, []),
    # Where the reference contradicts the schema, the reference's type wins (BFCL, any type):
    ('{"venue": true}', ref(accept={"venue": [None, True]}), MISTYPED, []),
    ('{"venue": "yes"}', ref(accept={"venue": [True]}), MISTYPED, [("wrong_type", "venue")]),
    ('{"n": 5.0}', ref(n=5.0), MISTYPED, []),  # a float where the reference has one
    ('{"n": 5.0}', ref(n=5), MISTYPED, [("wrong_type", "n")]),  # but not where it has an int
    ('{"words": ["b", "a"]}', ref(words=["b", "a"]), MISTYPED, []),  # items too
    ('{"words": ["b", 1]}', ref(words=["b", "a"]), MISTYPED, [("wrong_value", "words")]),
    ('{"words": [2, 1.5]}', ref(words=[2, 1]), MISTYPED, [("wrong_type", "words")]),
    ('{"o": {"k": "v"}}', ref(o={"k": "V"}), MISTYPED, []),  # and properties
    # A string where the schema wants an array is a variable name: compared exactly.
    ('{"words": "data[\'x\']"}', ref(words="data['x']"), MISTYPED, []),
    ('{"words": "DATA[\'X\']"}', ref(words="data['x']"), MISTYPED, [("wrong_value", "words")]),
    ('{"words": "data x"}', ref(words="data_x"), MISTYPED, [("wrong_value", "words")]),
    ('{"venue": "DATA x"}', ref(venue="data_x"), MISTYPED, []),  # of the schema's type: as usual
]


@pytest.mark.parametrize("args, reference, schema, expected", CASES)
def test_argument_rules(args: str, reference: ReferenceCall, schema: dict[str, Any] | None,
                        expected: list[tuple[str, str | None]]) -> None:
    found = match_call(call(args), reference, schema)
    assert [(m.kind, m.argument) for m in found] == expected
    assert all(m.text() for m in found)


def test_a_wrong_name_is_the_only_mismatch_reported() -> None:
    found = match_call(call('{"city": 3}', name="weather"), ref("search", city="Paris"), HOTELS)
    assert [m.kind for m in found] == ["wrong_name"]
    assert found[0].text() == "wrong name: called 'weather', expected 'search'"


def test_every_argument_mismatch_of_a_call_is_listed() -> None:
    found = match_call(call('{"max_price": "cheap", "stars": 4}'),
                       ref(city="Paris", max_price=200), HOTELS)
    assert [(m.kind, m.argument) for m in found] == [
        ("missing_argument", "city"), ("wrong_type", "max_price"),
        ("unexpected_argument", "stars")]
    assert found[1].text() == "wrong type for 'max_price': 'cheap' is string, expected integer"


def test_bfcl_string_standardisation() -> None:
    assert standardize("April 1, 2024") == standardize("april 1,2024") == "april12024"
    assert standardize("it's") == 'it"s'
    assert same_value("Paris", "paris") and not same_value("Paris", "Pariss")
    assert same_value(1, 1.0) and not same_value(1, True) and not same_value(None, 0)


def test_max_matching_finds_the_largest_pairing_not_the_greedy_one() -> None:
    # Greedy (call 0 takes reference 0) would leave call 1 unmatched.
    fits = {(0, 0), (0, 1), (1, 0)}
    assert max_matching(2, 2, lambda i, j: (i, j) in fits) == [(0, 1), (1, 0)]
    assert max_matching(0, 3, lambda i, j: True) == []


def test_leftover_calls_are_described_by_name_then_in_order() -> None:
    calls = [call('{"city": "Lyon"}', "search"), call("{}", "weather"), call("{}", "cancel"),
             call('{"x": 1}', "noise")]
    refs = [ref("search", city="Paris"), ref("book", hotel_id=3)]
    findings = compare_calls(calls, refs).findings()
    assert [(f["kind"], f.get("call"), f.get("reference")) for f in findings] == [
        ("wrong_value", 1, 1), ("wrong_name", 2, 2), ("extra_call", 3, None),
        ("extra_call", 4, None)]
    assert findings[0]["text"] == "call 1 search: wrong value for 'city': 'Lyon', expected 'Paris'"
    assert findings[1]["text"] == "call 2 weather: wrong name: called 'weather', expected 'book'"

    missing = compare_calls([], refs).findings()
    assert [f["text"] for f in missing] == ["reference call 1 search: missing",
                                            "reference call 2 book: missing"]
