"""An offline example agent: an outdoor shop's support assistant with three tools.

The tools work over small fixed data (the same as ``examples/agent.jsonl``): the weather in
Oslo, Madrid, Tokyo, Cairo, Lima and Bergen, and orders A1001-A1006. ``agent`` is rule-based
and deterministic: it picks tools by keywords, returns its tool calls, and once the tool
results are in the conversation it answers from them. Run it on the tasks::

    assay run examples/agent_tasks.jsonl --target python:examples.agent_app:agent \\
        --tools python:examples.agent_app:TOOLS \\
        --metrics tool_call_accuracy,trajectory_exact_match --judge fake

A request that needs a detail the tools take (an order number, a known city) gets a question
for it (and the next message is read as the answer to it); anything else it cannot do gets "Sorry, I can only help with ...". That is enough for
simulated users to play against (``examples/scenarios.jsonl``).

Example:
    >>> calls = agent([{"role": "user", "content": "Weather in Oslo and order A1001?"}], None)
    >>> [(c["function"]["name"], c["function"]["arguments"]) for c in calls[0]["tool_calls"]]
    [('get_weather', '{"city": "Oslo"}'), ('lookup_order', '{"order_id": "A1001"}')]
    >>> calculate("450 - 450 * 0.15"), calculate("(2 + 3) ** 2")
    ({'result': 382.5}, {'result': 25})
    >>> agent([{"role": "user", "content": "Where is my order?"}], None)[0]["content"]
    'I can look that up. What is your order number? It looks like A1234.'
    >>> asked = [{"role": "user", "content": "Is it raining there?"},
    ...          agent([{"role": "user", "content": "Is it raining there?"}], None)[0]]
    >>> asked[1]["content"][:22], agent([*asked, {"role": "user", "content": "Bergen."}],
    ...                                 None)[0]["tool_calls"][0]["function"]["arguments"]
    ('Which city do you mean', '{"city": "Bergen"}')
"""

from __future__ import annotations

import ast
import json
import operator
import re
from collections.abc import Callable
from typing import Any

__all__ = ["TOOLS", "TOOL_SPECS", "agent", "calculate", "get_weather", "lookup_order"]

WEATHER = {"Oslo": (3, "light rain"), "Madrid": (24, "sunny"), "Tokyo": (17, "cloudy"),
           "Cairo": (31, "clear"), "Lima": (19, "overcast"), "Bergen": (6, "heavy rain")}
ORDERS = {"A1001": ("shipped", "2026-11-20"), "A1002": ("processing", None),
          "A1003": ("delivered", "2026-11-18"), "A1004": ("cancelled", None),
          "A1005": ("shipped", "2026-11-24"), "A1006": ("processing", None)}


def get_weather(city: str, unit: str | None = None) -> dict[str, Any]:
    """Current weather for a city (celsius unless ``unit="fahrenheit"``)."""
    if city not in WEATHER:
        return {"error": "unknown city"}
    temp, conditions = WEATHER[city]
    if unit == "fahrenheit":
        temp = round(temp * 9 / 5 + 32)
    return {"city": city, "temp": temp, "unit": unit or "celsius", "conditions": conditions}


_OPS: dict[type, Callable[..., Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow, ast.USub: operator.neg, ast.UAdd: operator.pos}


def _value(node: ast.AST) -> float:
    """An arithmetic expression's value, read from its syntax tree (numbers and operators
    only: names, calls and everything else are refused)."""
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value  # type: ignore[no-any-return]
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        left, right = _value(node.left), _value(node.right)
        if isinstance(node.op, ast.Pow) and abs(right) > 100:
            raise ValueError("exponent too large")
        return _OPS[type(node.op)](left, right)  # type: ignore[no-any-return]
    if isinstance(node, ast.UnaryOp) and type(node.op) in _OPS:
        return _OPS[type(node.op)](_value(node.operand))  # type: ignore[no-any-return]
    raise ValueError(f"not arithmetic: {ast.dump(node)[:60]}")


def calculate(expression: str) -> dict[str, Any]:
    """Evaluate an arithmetic expression (+ - * / // % ** and parentheses; no eval)."""
    value = _value(ast.parse(expression.replace(",", ""), mode="eval").body)
    value = round(value, 10)
    return {"result": int(value) if float(value).is_integer() else value}


def lookup_order(order_id: str) -> dict[str, Any]:
    """Status of an order by its id."""
    if order_id not in ORDERS:
        return {"error": "no such order"}
    status, day = ORDERS[order_id]
    out: dict[str, Any] = {"order_id": order_id, "status": status}
    if day and status in ("shipped", "delivered"):
        out["shipped_on" if status == "shipped" else "delivered_on"] = day
    return out


#: The tool functions, by name (what ``--tools python:examples.agent_app:TOOLS`` loads).
TOOLS: dict[str, Callable[..., Any]] = {
    "get_weather": get_weather, "calculate": calculate, "lookup_order": lookup_order}


def _spec(name: str, description: str, properties: dict[str, Any],
          required: list[str]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "description": description,
            "parameters": {"type": "object", "properties": properties, "required": required}}}


#: The OpenAI function tool definitions of :data:`TOOLS`.
TOOL_SPECS = [
    _spec("get_weather", "Current weather for a city.",
          {"city": {"type": "string"},
           "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, ["city"]),
    _spec("calculate", "Evaluate an arithmetic expression.",
          {"expression": {"type": "string"}}, ["expression"]),
    _spec("lookup_order", "Status of an order by its id.",
          {"order_id": {"type": "string"}}, ["order_id"]),
]

_ASK_CITY = "Which city do you mean?"
_WEATHER_WORDS = re.compile(r"weather|warm|cold|sunny|rain|temperature", re.IGNORECASE)
_ORDER = re.compile(r"\b[A-Z]\d{4}\b")
_EXPRESSION = re.compile(r"\(?\d[\d,.]*\)?(?:\s*(?:[-+*/%]|\*\*)\s*\(?\d[\d,.]*\)?)+")


def _plan(text: str) -> list[tuple[str, dict[str, Any]]]:
    """The calls a request asks for, by keyword: weather in a known city, orders by id,
    arithmetic written out."""
    calls: list[tuple[str, dict[str, Any]]] = []
    if _WEATHER_WORDS.search(text):
        for city in WEATHER:
            if city.lower() in text.lower():
                unit = {"unit": "fahrenheit"} if "fahrenheit" in text.lower() else {}
                calls.append(("get_weather", {"city": city, **unit}))
    calls += [("lookup_order", {"order_id": oid}) for oid in _ORDER.findall(text)]
    words = re.sub(r"\bdivided by\b", "/", re.sub(r"\btimes\b", "*", text))
    for found in _EXPRESSION.finditer(words):
        expression = re.sub(r"(?<=\d),(?=\d{3})", "", found.group().strip())
        calls.append(("calculate", {"expression": expression}))
    return calls


def _sentence(name: str, result: Any) -> str:
    if not isinstance(result, dict) or "error" in result:
        error = result.get("error") if isinstance(result, dict) else result
        return f"The {name} tool failed: {error}."
    if name == "get_weather":
        degrees = "°F" if result["unit"] == "fahrenheit" else "°C"
        return f"In {result['city']} it is {result['temp']} {degrees} and {result['conditions']}."
    if name == "calculate":
        return f"That comes to {result['result']}."
    when = {"shipped": f", shipped on {result.get('shipped_on')}",
            "delivered": f", delivered on {result.get('delivered_on')}"}.get(result["status"], "")
    return f"Your order {result['order_id']} is {result['status']}{when}."


def _answer(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The final answer, from the tool results after the last user message."""
    names: dict[str, str] = {}
    sentences = []
    for message in messages:
        for call in message.get("tool_calls") or []:
            names[call["id"]] = call["function"]["name"]
        if message["role"] == "tool":
            try:
                result = json.loads(message["content"])
            except ValueError:
                result = message["content"]
            sentences.append(_sentence(names.get(message["tool_call_id"], "?"), result))
    return {"role": "assistant", "content": " ".join(sentences)}


def _no_call_reply(text: str) -> str:
    """The reply to a request that needs no tool call: thanks, a question for the detail a
    tool needs (the order number, a city it knows), or what it can help with."""
    lowered = text.lower()
    if "thank" in lowered:
        return "You're welcome! Let me know if you need anything else."
    if re.search(r"\border", lowered):
        return "I can look that up. What is your order number? It looks like A1234."
    if _WEATHER_WORDS.search(text):
        return f"{_ASK_CITY} I have the weather for {', '.join(WEATHER)}."
    return "Sorry, I can only help with the weather, sums written out and orders."


def agent(messages: list[dict[str, Any]],
          tools: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """One turn of the rule-based agent: tool calls for a new request, or the answer once the
    tool results are in. ``tools``: the row's OpenAI tools (only those are called; None: all)."""
    last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
    since = messages[last_user + 1:]
    if any(m["role"] == "tool" for m in since):
        return [_answer(since)]
    offered = {t["function"]["name"] for t in tools} if tools else set(TOOLS)
    request = messages[last_user]["content"]
    asked = [m.get("content") or "" for m in messages[:last_user] if m["role"] == "assistant"]
    if asked and asked[-1].startswith(_ASK_CITY):  # the answer to its question for a city
        request = f"weather in {request}"
    plan = [(name, args) for name, args in _plan(request) if name in offered]
    if not plan:
        return [{"role": "assistant", "content": _no_call_reply(messages[last_user]["content"])}]
    made = sum(len(m.get("tool_calls") or []) for m in messages)
    calls = [{"id": f"call_{made + i}", "type": "function",
              "function": {"name": name, "arguments": json.dumps(args)}}
             for i, (name, args) in enumerate(plan, start=1)]
    return [{"role": "assistant", "content": None, "tool_calls": calls}]
