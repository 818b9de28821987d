"""Agreement of assay's ``tool_call_accuracy`` with the BFCL AST checker (``bfcl-eval``).

For each item of BFCL v4's non-live Python categories (``simple_python``, ``multiple``,
``parallel``, ``parallel_multiple``) and its Java and JavaScript ones (``simple_java``,
``simple_javascript``) it builds candidate calls: the reference (the first
acceptable value of every argument of the possible answer), one more correct candidate with
other acceptable values (``other_acceptable``: a random acceptable value per argument, ``""``
meaning left out), and mutations of one call (chosen with the seed): ``wrong_name``,
``missing_required``, ``wrong_value``, ``extra_argument`` (an argument the answer does not name:
declared in the function doc but not in the answer, or undeclared, by turns), ``int_as_string``
(``5`` written ``"5"``), ``string_case`` (a string argument with its case swapped),
``int_for_float`` (``4.0`` written ``4``: right for both, a number accepts an integer) and
``float_for_int`` (``5`` written ``5.0``: wrong for both, as BFCL reads types), and two kinds
where assay and BFCL differ on purpose: ``explicit_null`` (an argument that may be left out,
given as ``null``: right for assay, wrong for BFCL) and ``reordered`` (the calls of a parallel
item in reverse order: BFCL pairs them greedily, in the order of its possible answers, and
fails where a one-to-one pairing exists, as in ``parallel_178``; assay finds the largest
pairing). A mutation that does not apply to an item (no integer argument, one call, ...) is
skipped, so each kind has its own n.

Java and JavaScript calls are typed JSON for assay (``true``, ``50``, ``["a"]``) and source
literals for BFCL (``"true"``, ``"50L"``, ``"new ArrayList<>(Arrays.asList(\"a\"))"``), written
by ``_bfcl_literals``; a candidate whose literal BFCL's own converter does not read back as the
same value (a string ``"5"`` in an ``integer`` parameter) is skipped and counted.

Each candidate is judged twice:

- by ``bfcl_eval``'s own ``ast_checker`` (the item's language and category), on the calls as
  BFCL's model output (``[{name: {arg: value}}]``, values as literals for Java and JavaScript);
- by ``assay.evaluate(metrics="tool_call_accuracy")`` on a row built from the item: the user
  turn(s) of the question, an assistant turn with the calls as ``tool_calls`` (arguments as
  JSON text), ``tools`` converted from the function docs (see ``to_json_schema``) and
  ``reference_tool_calls`` from the possible answer (every argument's acceptable values as
  ``accept``, ``""`` becoming ``null``: the argument may be left out).

It prints the agreement (both say right, or both say wrong) overall, without the two kinds
that differ on purpose, per candidate kind and per category (those two kinds left out), with a
95 % Wilson interval, and the first disagreements for inspection.

``bfcl-eval`` stays out of assay's dependencies. Install it with ``--no-deps`` anywhere and
point ``--bfcl`` at the folder that holds the ``bfcl_eval`` package (its checker needs only
the standard library once ``bfcl_eval.constants.model_config`` is replaced by a stub, which
this script does; the data files ship inside the package)::

    python3 -m venv /tmp/bfclenv && /tmp/bfclenv/bin/pip install --no-deps bfcl-eval
    .venv/bin/python benchmarks/bfcl_agreement.py \\
        --bfcl /tmp/bfclenv/lib/python3.12/site-packages --show 5
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sys
import time
import types
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _bfcl_literals import literal, round_trips
from _stats import wilson

import assay

CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple", "simple_java",
              "simple_javascript")
#: The language BFCL's checker reads a category's calls in (the rest are Python).
LANGUAGES = {"simple_java": "JAVA", "simple_javascript": "JAVASCRIPT"}
KINDS = ("reference", "other_acceptable", "wrong_name", "missing_required", "wrong_value",
         "extra_argument", "int_as_string", "string_case", "int_for_float", "float_for_int",
         "explicit_null", "reordered")
#: The kinds where assay differs from BFCL on purpose (docs/agents.md lists why).
DELIBERATE = ("explicit_null", "reordered")
INSTALL = ("bfcl_eval was not found. Install it apart from assay, without its dependencies:\n"
           "  python3 -m venv /tmp/bfclenv && /tmp/bfclenv/bin/pip install --no-deps bfcl-eval\n"
           "then pass --bfcl /tmp/bfclenv/lib/python3.X/site-packages (the folder that holds "
           "bfcl_eval/).")

# BFCL's type names in the function docs -> JSON Schema. "dict" is an object; "float" a number
# (BFCL accepts an int there too, as JSON Schema's number does); "tuple" an array (BFCL turns
# tuples into lists before comparing). "any" has no JSON Schema type: the property is left
# without one (any value). BFCL itself maps "any" to str; no candidate here hits the difference.
TYPES = {"dict": "object", "float": "number", "tuple": "array", "any": None,
         # Java and JavaScript (simple_java, simple_javascript): their JSON Schema types
         "String": "string", "char": "string", "Boolean": "boolean", "long": "integer",
         "Bigint": "integer", "double": "number", "HashMap": "object", "Array": "array",
         "ArrayList": "array"}

Call = tuple[str, dict[str, Any]]


@dataclass
class Item:
    id: str
    category: str
    messages: list[dict[str, Any]]
    functions: list[dict[str, Any]]
    answers: list[dict[str, dict[str, list[Any]]]]  # [{name: {arg: [acceptable values]}}]

    def doc(self, name: str) -> dict[str, Any]:
        return next(f for f in self.functions if f["name"] == name)


@dataclass
class Candidate:
    item: Item
    kind: str
    calls: list[Call]
    bfcl: bool = False
    assay: bool | None = None
    output: list[dict[str, dict[str, Any]]] | None = None  # as BFCL's model output
    bfcl_error: str = ""
    assay_reason: str = ""


def load_bfcl(path: str | None) -> tuple[Callable[..., dict[str, Any]], Any, Path,
                                         dict[str, Callable[..., Any]]]:
    """BFCL's ``ast_checker``, its ``Language`` enum, its data folder and its Java and
    JavaScript literal converters."""
    if path:
        folder = Path(path).resolve()
        sys.path.insert(0, str(folder.parent if folder.name == "bfcl_eval" else folder))
    stub = types.ModuleType("bfcl_eval.constants.model_config")
    # convert_func_name() asks the model's config whether "." became "_" in function names:
    # our calls keep the names as the docs write them.
    stub.MODEL_CONFIG_MAPPING = defaultdict(  # type: ignore[attr-defined]
        lambda: types.SimpleNamespace(underscore_to_dot=False))
    sys.modules["bfcl_eval.constants.model_config"] = stub
    try:
        import bfcl_eval
        from bfcl_eval.constants.enums import Language
        from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker
        from bfcl_eval.eval_checker.ast_eval.type_convertor.java_type_converter import (
            java_type_converter,
        )
        from bfcl_eval.eval_checker.ast_eval.type_convertor.js_type_converter import (
            js_type_converter,
        )
    except ImportError as e:
        sys.exit(f"{INSTALL}\n({e})")
    return (ast_checker, Language, Path(bfcl_eval.__file__).parent / "data",
            {"JAVA": java_type_converter, "JAVASCRIPT": js_type_converter})


def load_items(data: Path, category: str) -> list[Item]:
    """A category's questions with their possible answers (both files are JSON lines)."""
    def lines(p: Path) -> list[dict[str, Any]]:
        return [json.loads(x) for x in p.read_text().splitlines() if x.strip()]

    answers = {a["id"]: a["ground_truth"]
               for a in lines(data / "possible_answer" / f"BFCL_v4_{category}.json")}
    return [Item(q["id"], category, q["question"][0], q["function"], answers[q["id"]])
            for q in lines(data / f"BFCL_v4_{category}.json")]


def to_json_schema(schema: Any) -> Any:
    """A BFCL parameter schema as JSON Schema (types renamed per ``TYPES``, recursively)."""
    if not isinstance(schema, dict):
        return schema
    out = {k: v for k, v in schema.items() if k not in ("type", "properties", "items")}
    if "type" in schema:
        kind = TYPES.get(schema["type"], schema["type"])
        if kind is not None:
            out["type"] = kind
    if isinstance(schema.get("properties"), dict):
        out["properties"] = {k: to_json_schema(v) for k, v in schema["properties"].items()}
    if "items" in schema:
        out["items"] = to_json_schema(schema["items"])
    return out


def expand(value: Any, cap: int = 64) -> list[Any]:
    """The concrete values one acceptable value of BFCL's stands for. Inside a dict (or a list
    of dicts) a possible answer nests again: each key has a list of acceptable values, ``""``
    meaning the key may be left out (BFCL's ``dict_checker``). assay's ``accept`` lists
    concrete values, so such a value becomes every combination (at most ``cap``)."""
    if isinstance(value, dict):
        out: list[dict[str, Any]] = [{}]
        for key, accepted in value.items():
            out = [{**d, key: v} if v != "" else d for d in out for v in accepted][:cap]
        return out
    if isinstance(value, list) and any(isinstance(v, dict) for v in value):
        lists: list[list[Any]] = [[]]
        for element in value:
            lists = [[*x, e] for x in lists for e in expand(element, cap)][:cap]
        return lists
    return [value]


def accept_lists(answer: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """A possible answer's ``{arg: [values]}`` as assay's ``accept`` (``""`` -> None)."""
    return {arg: [w for v in accepted for w in ([None] if v == "" else expand(v))]
            for arg, accepted in answer.items()}


def first_values(answer: dict[str, list[Any]], rng: random.Random | None = None) -> dict[str, Any]:
    """One correct argument set: the first acceptable value of each argument (or a random one
    with ``rng``); None means the argument is left out."""
    args = {}
    for name, accepted in accept_lists(answer).items():
        given = [v for v in accepted if v is not None]
        pick = rng.choice(accepted) if rng else (given[0] if given else None)
        if pick is not None:
            args[name] = copy.deepcopy(pick)
    return args


def reference(item: Item, rng: random.Random | None = None) -> list[Call]:
    return [(name, first_values(args, rng)) for a in item.answers for name, args in a.items()]


def _wrong(value: Any) -> Any:
    """A value of the same type that is not ``value`` (None: no such change here)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 7
    if isinstance(value, str):
        return value + " zq9"
    if isinstance(value, list):
        return value[:-1] if value else None
    return None


def _filler(schema: dict[str, Any]) -> Any:
    return {"string": "zq9", "integer": 3, "float": 3.5, "boolean": True, "array": [],
            "tuple": [], "dict": {}}.get(schema.get("type"), "zq9")


def mutate(item: Item, kind: str, rng: random.Random) -> list[Call] | None:
    """The reference with one call changed as ``kind`` says, or None when it does not apply."""
    if kind == "reference":
        return reference(item)
    if kind == "other_acceptable":
        return reference(item, rng)
    calls = reference(item)
    if kind == "reordered":  # every call right, in reverse order
        return calls[::-1] if len(calls) > 1 else None
    if kind == "explicit_null":  # an argument that may be left out, given as null
        optional = [(k, arg) for k, answer in enumerate(item.answers)
                    for arg, accepted in accept_lists(next(iter(answer.values()))).items()
                    if None in accepted]
        if not optional:
            return None
        k, arg = rng.choice(optional)
        calls[k][1][arg] = None
        return calls
    k = rng.randrange(len(calls))
    name, args = calls[k]
    props = item.doc(name)["parameters"].get("properties", {})
    required = item.doc(name)["parameters"].get("required", [])
    answer = item.answers[k][name]
    pick: Callable[[list[str]], str | None] = lambda names: rng.choice(names) if names else None
    if kind == "wrong_name":
        calls[k] = (name + "_v2", args)
        return calls
    if kind == "missing_required":
        arg = pick([a for a in required if a in args])
        if arg is None:
            return None
        del args[arg]
    elif kind == "wrong_value":
        arg = pick([a for a in args if _wrong(args[a]) is not None])
        if arg is None:
            return None
        args[arg] = _wrong(args[arg])
    elif kind == "extra_argument":
        declared = [p for p in props if p not in answer]
        if declared and rng.random() < 0.5:
            arg = rng.choice(declared)
            args[arg] = _filler(props[arg])
        else:
            args["zq_extra"] = "zq9"
    elif kind == "int_as_string":
        arg = pick([a for a, v in args.items() if type(v) is int])
        if arg is None:
            return None
        args[arg] = str(args[arg])
    elif kind in ("int_for_float", "float_for_int"):
        want = float if kind == "int_for_float" else int
        arg = pick([a for a, v in args.items() if type(v) is want and v == int(v)])
        if arg is None:
            return None
        args[arg] = int(args[arg]) if want is float else float(args[arg])
    elif kind == "string_case":
        arg = pick([a for a, v in args.items() if isinstance(v, str) and v.swapcase() != v])
        if arg is None:
            return None
        args[arg] = args[arg].swapcase()
    return calls


def bfcl_output(c: Candidate, converters: dict[str, Callable[..., Any]]
                ) -> list[dict[str, dict[str, Any]]] | None:
    """The candidate's calls as BFCL's model output: as they are for Python; for Java and
    JavaScript every argument as the language's literal, or None when an argument the
    possible answer names has no literal that BFCL's converter reads back as its value."""
    language = LANGUAGES.get(c.item.category)
    if language is None:
        return [{name: args} for name, args in c.calls]
    out = []
    for name, args in c.calls:
        doc = next((f for f in c.item.functions if f["name"] == name), c.item.functions[0])
        props = doc["parameters"].get("properties", {})
        named = {arg for answer in c.item.answers for a in answer.values() for arg in a}
        written = {}
        for arg, value in args.items():
            schema = props.get(arg)
            if schema is None:  # undeclared: BFCL refuses it before reading the value
                written[arg] = value if isinstance(value, str) else json.dumps(value)
                continue
            written[arg] = literal(language, value, schema)
            if (value is not None and arg in named
                    and not round_trips(converters[language], value, written[arg], schema)):
                return None
        out.append({name: written})
    return out


def record(c: Candidate, n: int) -> dict[str, Any]:
    """The assay row of a candidate."""
    item = c.item
    calls = [{"id": f"c{i}", "type": "function",
              "function": {"name": name, "arguments": json.dumps(args)}}
             for i, (name, args) in enumerate(c.calls)]
    tools = [{"type": "function", "function": {
        "name": f["name"], "description": f.get("description", ""),
        "parameters": to_json_schema(f["parameters"])}} for f in item.functions]
    refs = [{"name": name, "accept": accept_lists(args)}
            for answer in item.answers for name, args in answer.items()]
    return {"id": f"{n}:{item.id}:{c.kind}",
            "messages": [*item.messages, {"role": "assistant", "content": None,
                                          "tool_calls": calls}],
            "tools": tools, "reference_tool_calls": refs}


def line(label: str, group: list[Candidate]) -> str:
    n = len(group)
    agree = sum(c.bfcl == c.assay for c in group)
    lo, hi = wilson(agree, n)
    bfcl_ok = sum(c.bfcl for c in group)
    assay_ok = sum(bool(c.assay) for c in group)
    return (f"{label:<20} {n:>6} {agree / n:>9.4f}  [{lo:.4f}, {hi:.4f}]  "
            f"{bfcl_ok:>8} {assay_ok:>8}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bfcl", help="folder holding the bfcl_eval package (site-packages)")
    ap.add_argument("--per-category", type=int, default=0,
                    help="items sampled per category with the seed (0: all)")
    ap.add_argument("--seed", type=int, default=19)
    ap.add_argument("--show", type=int, default=5, help="disagreements printed")
    opts = ap.parse_args()
    ast_checker, language, data, converters = load_bfcl(opts.bfcl)
    rng = random.Random(opts.seed)
    # the kinds added later draw from their own generator: the earlier kinds' candidates
    # stay the ones of the earlier runs
    later_rng = random.Random(opts.seed + 1)
    candidates: list[Candidate] = []
    no_literal: dict[str, int] = defaultdict(int)
    for category in CATEGORIES:
        items = load_items(data, category)
        if opts.per_category and opts.per_category < len(items):
            items = rng.sample(items, opts.per_category)
        for item in items:
            for kind in KINDS:
                calls = mutate(item, kind, later_rng if kind in DELIBERATE else rng)
                if calls is None:
                    continue
                c = Candidate(item, kind, calls)
                c.output = bfcl_output(c, converters)
                if c.output is None:
                    no_literal[kind] += 1
                else:
                    candidates.append(c)
    t0 = time.perf_counter()
    for c in candidates:
        out = ast_checker(c.item.functions, c.output, c.item.answers,
                          getattr(language, LANGUAGES.get(c.item.category, "PYTHON")),
                          c.item.category, "stub")
        c.bfcl = bool(out["valid"])
        c.bfcl_error = "" if c.bfcl else f"{out.get('error_type')}: {out.get('error')}"
    t_bfcl = time.perf_counter() - t0
    t0 = time.perf_counter()
    result = assay.evaluate([record(c, n) for n, c in enumerate(candidates)],
                            metrics="tool_call_accuracy")
    t_assay = time.perf_counter() - t0
    for c, row in zip(candidates, result.rows, strict=True):
        score = row["tool_call_accuracy"]
        c.assay = None if score["value"] is None else score["value"] == 1.0
        c.assay_reason = score.get("reason") or score.get("error") or json.dumps(
            (score.get("details") or {}).get("findings"))[:300]
    items = {c.item.id for c in candidates}
    print(f"bfcl_agreement: {len(items)} items ({', '.join(CATEGORIES)}), "
          f"{len(candidates)} candidates, seed {opts.seed}; BFCL checker {t_bfcl:.1f} s, "
          f"assay.evaluate {t_assay:.1f} s")
    print(f"{'kind':<20} {'n':>6} {'agreement':>9}  {'95% Wilson':<18}  "
          f"{'bfcl ok':>8} {'assay ok':>8}")
    print(line("overall", candidates))
    print(line("without deliberate", [c for c in candidates if c.kind not in DELIBERATE]))
    for kind in KINDS:
        group = [c for c in candidates if c.kind == kind]
        if group:
            print(line(kind, group))
    for category in CATEGORIES:  # the kinds that differ on purpose have their own lines
        group = [c for c in candidates if c.item.category == category
                 and c.kind not in DELIBERATE]
        if group:
            print(line(f"[{category}]", group))
    if no_literal:
        print("skipped, no Java/JavaScript literal reads back as the typed value: "
              + ", ".join(f"{kind} {n}" for kind, n in no_literal.items()))
    unscored = [c for c in candidates if c.assay is None]
    if unscored:
        print(f"{len(unscored)} candidates unscored by assay, e.g. {unscored[0].assay_reason}")
    wrong = [c for c in candidates if c.bfcl != c.assay]
    print(f"\n{len(wrong)} disagreements" + (f"; the first {min(opts.show, len(wrong))}:"
                                             if wrong else ""))
    for c in wrong[: opts.show]:
        print(f"- {c.item.id} {c.kind}: bfcl={c.bfcl} assay={c.assay}\n"
              f"  calls: {json.dumps(c.calls)[:300]}\n"
              f"  answer: {json.dumps(c.item.answers)[:300]}\n"
              f"  bfcl: {c.bfcl_error[:300]}\n  assay: {c.assay_reason[:300]}")


if __name__ == "__main__":
    main()
