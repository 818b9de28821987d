"""Writes examples/agent.jsonl: 26 conversations of an outdoor shop's support agent with three
tools (get_weather, calculate, lookup_order), labelled correct (12) or failed (14), with the kind
of failure, and the reference calls.

    python benchmarks/make_agent_examples.py examples/agent.jsonl
"""

import json
import sys

TOOLS = [
 {"type": "function", "function": {"name": "get_weather", "description": "Current weather for a city.",
   "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, "required": ["city"]}}},
 {"type": "function", "function": {"name": "calculate", "description": "Evaluate an arithmetic expression.",
   "parameters": {"type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"]}}},
 {"type": "function", "function": {"name": "lookup_order", "description": "Status of an order by its id.",
   "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]}}},
]
SYSTEM = "You are the support assistant of an outdoor shop. Use the tools for weather, arithmetic and orders. Never guess an order's status: look it up."
WEATHER = {"Oslo": (3, "light rain"), "Madrid": (24, "sunny"), "Tokyo": (17, "cloudy"), "Cairo": (31, "clear"), "Lima": (19, "overcast"), "Bergen": (6, "heavy rain")}
ORDERS = {"A1001": ("shipped", "2026-11-20"), "A1002": ("processing", None), "A1003": ("delivered", "2026-11-18"), "A1004": ("cancelled", None), "A1005": ("shipped", "2026-11-24"), "A1006": ("processing", None)}
rows = []
n = 0
def call(cid, name, args):
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args) if isinstance(args, dict) else args}}
def row(label, failure, user, steps, final, refs):
    global n
    n += 1
    msgs = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]
    k = 0
    for calls, results in steps:
        cs = []
        for name, args in calls:
            k += 1; cs.append(call(f"call_{k}", name, args))
        msgs.append({"role": "assistant", "content": None, "tool_calls": cs})
        for c, res in zip(cs, results):
            msgs.append({"role": "tool", "tool_call_id": c["id"], "content": json.dumps(res)})
    if final is not None:
        msgs.append({"role": "assistant", "content": final})
    rows.append({"id": f"agent-{n:02d}", "label": label, "failure": failure, "messages": msgs, "tools": TOOLS,
                 "reference_tool_calls": [{"name": nm, "arguments": a} for nm, a in refs]})
def w(city, unit=None):
    t, s = WEATHER[city]
    return {"city": city, "temp": t if unit != "fahrenheit" else round(t * 9 / 5 + 32), "unit": unit or "celsius", "conditions": s}
def o(oid):
    st, d = ORDERS[oid]
    return {"order_id": oid, "status": st, **({"shipped_on": d} if d and st == "shipped" else {}), **({"delivered_on": d} if st == "delivered" else {})}
# correct runs
for city in ("Oslo", "Madrid", "Tokyo"):
    r = w(city)
    row("correct", None, f"What's the weather in {city} right now?", [([("get_weather", {"city": city})], [r])],
        f"In {city} it is {r['temp']} °C and {r['conditions']}.", [("get_weather", {"city": city})])
row("correct", None, "Is it warm in Cairo? Give me Fahrenheit please.", [([("get_weather", {"city": "Cairo", "unit": "fahrenheit"})], [w("Cairo", "fahrenheit")])],
    f"Yes, it is {w('Cairo','fahrenheit')['temp']} °F and clear in Cairo.", [("get_weather", {"city": "Cairo", "unit": "fahrenheit"})])
for expr, val, q in (("129.99 * 3", 389.97, "How much do three tents at 129.99 each cost?"), ("450 - 450 * 0.15", 382.5, "A 450 euro stove with 15% off: what do I pay?")):
    row("correct", None, q, [([("calculate", {"expression": expr})], [{"result": val}])], f"That comes to {val} euros.", [("calculate", {"expression": expr})])
for oid in ("A1001", "A1003", "A1004"):
    r = o(oid)
    extra = {"shipped": f", shipped on {r.get('shipped_on')}", "delivered": f", delivered on {r.get('delivered_on')}"}.get(r["status"], "")
    row("correct", None, f"Where is my order {oid}?", [([("lookup_order", {"order_id": oid})], [r])], f"Your order {oid} is {r['status']}{extra}.", [("lookup_order", {"order_id": oid})])
row("correct", None, "What's the weather in Lima, and what is 18 * 4?", [([("get_weather", {"city": "Lima"}), ("calculate", {"expression": "18 * 4"})], [w("Lima"), {"result": 72}])],
    "Lima is 19 °C and overcast, and 18 * 4 is 72.", [("get_weather", {"city": "Lima"}), ("calculate", {"expression": "18 * 4"})])
row("correct", None, "Order A1005: has it shipped? If so, how many days ago was that from 2026-11-27?", [([("lookup_order", {"order_id": "A1005"})], [o("A1005")]), ([("calculate", {"expression": "27 - 24"})], [{"result": 3}])],
    "Yes, order A1005 shipped on 2026-11-24, 3 days ago.", [("lookup_order", {"order_id": "A1005"}), ("calculate", {"expression": "27 - 24"})])
row("correct", None, "Thanks for the help earlier!", [], "You're welcome! Let me know if you need anything else.", [])
# failures
row("failed", "wrong_tool", "What's the status of order A1002?", [([("get_weather", {"city": "A1002"})], [{"error": "unknown city"}])],
    "I could not find anything for A1002.", [("lookup_order", {"order_id": "A1002"})])
row("failed", "wrong_tool", "What is 12% of 250?", [([("lookup_order", {"order_id": "12% of 250"})], [{"error": "no such order"}])],
    "Sorry, I can't work that out.", [("calculate", {"expression": "250 * 0.12"})])
row("failed", "wrong_arguments", "What's the weather in Bergen?", [([("get_weather", {"city": "Oslo"})], [w("Oslo")])],
    "It is 3 °C with light rain.", [("get_weather", {"city": "Bergen"})])
row("failed", "wrong_arguments", "Where is my order A1006?", [([("lookup_order", {"order_id": "A1060"})], [{"error": "no such order"}])],
    "There is no order with that number.", [("lookup_order", {"order_id": "A1006"})])
row("failed", "wrong_arguments", "How much are 4 sleeping bags at 89.50?", [([("calculate", {"expression": "4 + 89.50"})], [{"result": 93.5}])],
    "Four sleeping bags cost 93.50 euros.", [("calculate", {"expression": "4 * 89.50"})])
row("failed", "loop", "What's the weather in Tokyo?", [([("get_weather", {"city": "Tokyo"})], [w("Tokyo")])] * 4,
    "It is 17 °C and cloudy in Tokyo.", [("get_weather", {"city": "Tokyo"})])
row("failed", "loop", "Check order A1001 for me.", [([("lookup_order", {"order_id": "A1001"})], [o("A1001")])] * 5,
    None, [("lookup_order", {"order_id": "A1001"})])
row("failed", "ignores_tool_result", "Has order A1002 shipped yet?", [([("lookup_order", {"order_id": "A1002"})], [o("A1002")])],
    "Yes, order A1002 shipped yesterday and should arrive tomorrow.", [("lookup_order", {"order_id": "A1002"})])
row("failed", "ignores_tool_result", "Is it sunny in Madrid?", [([("get_weather", {"city": "Madrid"})], [w("Madrid")])],
    "No, it is cold and raining in Madrid today.", [("get_weather", {"city": "Madrid"})])
row("failed", "ignores_tool_result", "What's 1,250 divided by 5?", [([("calculate", {"expression": "1250 / 5"})], [{"result": 250}])],
    "1,250 divided by 5 is 225.", [("calculate", {"expression": "1250 / 5"})])
row("failed", "no_tool_call", "Where is my order A1003?", [], "Your order A1003 is on its way and will arrive in 2-3 days.", [("lookup_order", {"order_id": "A1003"})])
row("failed", "no_tool_call", "What's the weather like in Cairo?", [], "It's probably mild, around 20 °C.", [("get_weather", {"city": "Cairo"})])
row("failed", "incomplete", "Weather in Oslo, and status of order A1004?", [([("get_weather", {"city": "Oslo"})], [w("Oslo")])],
    "Oslo is 3 °C with light rain.", [("get_weather", {"city": "Oslo"}), ("lookup_order", {"order_id": "A1004"})])
row("failed", "invalid_arguments", "What's the weather in Lima in Fahrenheit?", [([("get_weather", '{"city": "Lima", unit: fahrenheit}')], [{"error": "arguments are not valid JSON"}])],
    "I couldn't get the weather for Lima.", [("get_weather", {"city": "Lima", "unit": "fahrenheit"})])
if __name__ == "__main__":
    with open(sys.argv[1], "w") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(len(rows), sum(r["label"] == "correct" for r in rows), "correct")
