"""benchmarks/bfcl_agreement.py without ``bfcl-eval``: the kinds where assay differs from BFCL's
checker on purpose are built as the docs say (an explicit ``null``, the calls of a parallel
item reordered), assay scores them right, Java and JavaScript values are written as the
literals BFCL reads, and docs/agents.md and docs/benchmarks.md name every kind and category
the script prints."""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

import assay

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import bfcl_agreement as bench
from _bfcl_literals import java_literal, js_literal, literal, same_typed

#: BFCL v4's ``parallel_178`` (its function doc and possible answer): the first answer accepts
#: Microsoft or Apple, so BFCL's greedy pairing gives it the first fitting call.
STOCK = {"name": "get_stock_price", "description": "Closing stock price.", "parameters": {
    "type": "dict", "required": ["company_name", "date"], "properties": {
        "company_name": {"type": "string"}, "date": {"type": "string"},
        "exchange": {"type": "string"}}}}
PARALLEL_178 = bench.Item(
    "parallel_178", "parallel", [{"role": "user", "content": "Closing prices?"}], [STOCK],
    [{"get_stock_price": {"company_name": companies, "date": [date], "exchange": ["NASDAQ", ""]}}
     for companies, date in ((["Microsoft", "Apple"], "2022-01-01"),
                             (["Microsoft"], "2022-02-01"), (["Apple"], "2022-01-01"),
                             (["Apple"], "2022-02-01"))])


def _assay_says_right(item: bench.Item, kind: str, calls: list[bench.Call]) -> bool:
    row = bench.record(bench.Candidate(item, kind, calls), 0)
    result = assay.evaluate([row], metrics="tool_call_accuracy")
    return result.rows[0]["tool_call_accuracy"]["value"] == 1.0


def _greedy_pairs(item: bench.Item, calls: list[bench.Call]) -> bool:
    """BFCL's parallel pairing, as its ``parallel_function_checker_no_order`` does it: each
    possible answer in turn takes the first unpaired call assay matches to it."""
    free = list(range(len(calls)))
    for answer in item.answers:
        one = bench.Item(item.id, item.category, item.messages, item.functions, [answer])
        fits = [i for i in free if _assay_says_right(one, "x", [calls[i]])]
        if not fits:
            return False
        free.remove(fits[0])
    return True


def test_reordered_calls_of_parallel_178_defeat_greedy_pairing_and_not_assay() -> None:
    calls = bench.mutate(PARALLEL_178, "reordered", random.Random(0))
    assert calls is not None and [c[1]["company_name"] for c in calls] == [
        "Apple", "Apple", "Microsoft", "Microsoft"]
    assert _greedy_pairs(PARALLEL_178, bench.reference(PARALLEL_178))
    assert not _greedy_pairs(PARALLEL_178, calls)  # the difference docs/agents.md names
    assert _assay_says_right(PARALLEL_178, "reordered", calls)


def test_explicit_null_gives_an_optional_argument_as_null_and_assay_accepts_it() -> None:
    calls = bench.mutate(PARALLEL_178, "explicit_null", random.Random(3))
    assert calls is not None
    assert [args.get("exchange", "left out") for _, args in calls].count(None) == 1
    assert _assay_says_right(PARALLEL_178, "explicit_null", calls)


def test_a_kind_that_cannot_apply_is_skipped() -> None:
    single = bench.Item("s", "simple_python", [], [STOCK], PARALLEL_178.answers[:1])
    assert bench.mutate(single, "reordered", random.Random(0)) is None
    required_only = bench.Item("r", "simple_python", [], [STOCK], [
        {"get_stock_price": {"company_name": ["Apple"], "date": ["2022-01-01"]}}])
    assert bench.mutate(required_only, "explicit_null", random.Random(0)) is None


def test_java_and_javascript_values_are_written_as_the_literals_bfcl_reads() -> None:
    assert java_literal(True, "boolean") == "true"
    assert java_literal(50, "long") == "50L"
    assert java_literal(["a", "b"], "Array", "String") == "new Object[]{a, b}"
    assert java_literal({"limit": 50, "schema": "public"}, "HashMap") == (
        'new HashMap<String, Object>() {{ put("limit", 50); put("schema", "public"); }}')
    assert java_literal("mapController", "any") == "mapController"
    assert js_literal(7, "Bigint") == "7n"
    assert js_literal({"a": [1, "x"]}, "dict") == '{"a": [1, "x"]}'
    assert js_literal("responseData", "dict") == "responseData"  # a variable's name
    assert literal("JAVASCRIPT", None, {"type": "String"}) == "null"
    assert same_typed(4, 4.0) and not same_typed(True, 1) and not same_typed("5", 5)


def _section(text: str, heading: str) -> str:
    start = text.index(heading)
    end = text.find("\n#", start + len(heading))
    return text[start:] if end < 0 else text[start:end]


def test_the_docs_name_every_deliberate_difference_kind_and_category() -> None:
    agents = (ROOT / "docs" / "agents.md").read_text(encoding="utf-8")
    differ = " ".join(_section(agents, "### Where assay and BFCL's checker differ").split())
    for kind in bench.DELIBERATE:
        assert f"`{kind}`" in differ, kind
    assert "parallel_178" in differ and "explicit `null`" in differ
    assert "### Java and JavaScript calls" in agents
    bfcl = _section((ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8"),
                    "## BFCL agreement")
    table = {m[1] for m in re.finditer(r"^\| (?:\*\*)?\[?([\w ]+?)\]?(?:\*\*)? \|", bfcl,
                                       re.MULTILINE)}
    assert set(bench.KINDS) | set(bench.CATEGORIES) <= table, table
