"""The steps of one trace, whatever conventions wrote them, as one conversation record.

Steps are taken in span start order:

- the first inference step's input (system prompt included) opens the conversation; a later
  one's input repeats the history, of which only the tool results and the user messages the
  conversation does not hold yet (counted by text) are new; every inference step's output
  gives assistant turns;
- a tool step's result answers the call it names (by id, else the earliest unanswered call of
  the tool);
- a retrieval step's documents become the row's ``contexts`` and the citations of the next
  assistant turn with text, so that groundedness can judge that turn;
- the first tools defined are the row's ``tools``;
- a model call recorded twice in a row (a framework's span around its client library's, as
  LangChain with OpenInference's OpenAI instrumentation gives) is read once;
- a model call that failed (span status ERROR, no output) and was not answered after gives
  the record an ``app_failed`` reason (``target call failed: ...``): the row is left unscored
  with it, never scored as an empty answer.

A tool result is kept only when it answers a call not answered yet (once), so that the same
result read from a tool span and from the next model call's input is not repeated.

Example:
    >>> t = Trace("t1", 1)
    >>> t.steps = [Step(2, "b", "x", "inference", [{"role": "user", "content": "Where?"}],
    ...                 [{"role": "assistant", "content": "Paris."}]),
    ...            Step(1, "a", "x", "retrieval", documents=[{"content": "Paris is..."}])]
    >>> rec = t.record()
    >>> rec["contexts"], rec["messages"][1]["context"]
    (['Paris is...'], {'citations': [{'content': 'Paris is...'}]})
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from ._otlp_step import Step

__all__ = ["Trace"]


class Trace:
    """The steps of one trace (compact: never the raw spans), and what the walk learnt of it:
    its first line, root conversation id, reference calls and the conventions detected."""

    def __init__(self, trace_id: str, line: int) -> None:
        self.trace_id, self.line = trace_id, line
        self.steps: list[Step] = []
        self.conversation_id: str | None = None
        self.refs: Any = None
        self.logged: dict[str, list[dict[str, Any]]] = {}  # span id: its GenAI log events
        self.scopes: dict[str, str | None] = {}  # instrumentation scope name: version

    def conventions(self) -> list[str]:
        """The conventions its spans were read in, in first-seen order."""
        return list(dict.fromkeys(s.convention for s in self.steps if s.convention))

    def missing(self) -> list[str]:
        """What its inference and retrieval spans lacked, one entry per convention and lack."""
        return list(dict.fromkeys(f"{s.convention}: {s.missing}"
                                  for s in self.steps if s.missing))

    def has_content(self) -> bool:
        """Whether any span gave a message or a document."""
        return any(s.inputs or s.outputs or s.documents for s in self.steps)

    def record(self) -> dict[str, Any]:
        """The conversation record (``trace_id``, ``messages``, and when found
        ``conversation_id``, ``tools``, ``contexts``, ``reference_tool_calls``)."""
        assembly = _Assembly()
        for step in sorted(self.steps, key=lambda s: s.start):
            if step.kind == "inference":
                assembly.inference(step)
            elif step.kind == "tool" and step.tool_result is not None:
                assembly.tool(*step.tool_result)
            elif step.kind == "retrieval" and step.documents:
                assembly.documents.extend(step.documents)
                assembly.contexts.extend(d["content"] for d in step.documents)
        rec: dict[str, Any] = {"trace_id": self.trace_id}
        if self.conversation_id:
            rec["conversation_id"] = self.conversation_id
        if assembly.tools is not None:
            rec["tools"] = assembly.tools
        if assembly.contexts:
            rec["contexts"] = assembly.contexts
        if self.refs is not None:
            rec["reference_tool_calls"] = self.refs
        if assembly.failure:
            rec["app_failed"] = assembly.failure
        return {**rec, "messages": assembly.messages}


def _call_key(step: Step) -> str:
    """What tells one model call from another: its user messages, how many tool results it
    was given, its answer (tool calls with their arguments) and whether it failed (a
    framework's span and its client library's span of the same call agree on these, though
    one may lack the system prompt or the tool definitions).

    Example:
        >>> ask = {"role": "user", "content": "Weather?"}
        >>> def call(city): return Step(0, "s", "x", "inference", [ask], [{"role": "assistant",
        ...     "tool_calls": [{"function": {"name": "w", "arguments": f'{{"c": "{city}"}}'}}]}])
        >>> _call_key(call("Paris")) == _call_key(call("Paris")), _call_key(call("Lyon")) == _call_key(call("Paris"))
        (True, False)
    """
    def said(m: dict[str, Any]) -> list[Any]:
        calls = [[(c.get("function") or {}).get("name"),
                  _canonical((c.get("function") or {}).get("arguments"))]
                 for c in m.get("tool_calls") or [] if isinstance(c, dict)]
        return [m.get("role"), str(m.get("content") or ""), calls]
    return json.dumps([[said(m) for m in step.inputs if m.get("role") == "user"],
                       sum(m.get("role") == "tool" for m in step.inputs),
                       [said(m) for m in step.outputs], bool(step.error)], sort_keys=True)


def _canonical(arguments: Any) -> Any:
    """Tool call arguments as one form (JSON text may differ in spacing between spans)."""
    try:
        return json.loads(arguments) if isinstance(arguments, str) else arguments
    except ValueError:
        return arguments


class _Assembly:
    """The conversation built so far from a trace's steps."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.pending: list[tuple[str, str]] = []  # (call id, name) not answered yet
        self.documents: list[dict[str, Any]] = []  # retrieved, not cited yet
        self.contexts: list[str] = []
        self.tools: Any = None
        self.started = False
        self.asked: Counter[str] = Counter()  # the user messages so far, by content
        self.last_call: str | None = None  # the last model call read (see _call_key)
        self.failure: str | None = None  # why the last model call gave no answer

    def inference(self, step: Step) -> None:
        if self.tools is None and step.tools is not None:
            self.tools = step.tools
        key = _call_key(step)
        if key == self.last_call:
            return  # one call on two spans (LangChain's and its OpenAI client's): read once
        self.last_call = key
        if step.error and not step.outputs:
            self.failure = (f"target call failed: the app's model call failed: {step.error} "
                            f"(span {step.span_id})")
        elif step.outputs:
            self.failure = None  # answered after all (a retry)
        if not step.inputs and not step.outputs:
            return  # nothing recorded: it neither opens nor replays the conversation
        if not self.started:
            for m in step.inputs:
                self._add(m)
        else:  # the history again: only its tool results, and the user messages that the
            seen: Counter[str] = Counter()  # conversation does not hold yet, are new
            for m in step.inputs:
                if m.get("role") == "user":
                    seen[str(m.get("content"))] += 1
                    if seen[str(m.get("content"))] <= self.asked[str(m.get("content"))]:
                        continue
                if m.get("role") in ("user", "tool"):
                    self._add(m)
        for m in step.outputs:
            m = {**m, "role": "tool" if m.get("role") == "tool" else "assistant"}
            if self.documents and m["role"] == "assistant" and str(m.get("content")).strip():
                m["context"] = {"citations": self.documents}
                self.documents = []
            self._add(m)
        self.started = self.started or bool(step.inputs)

    def tool(self, call_id: str | None, name: str | None, result: str) -> None:
        match = next((c for c, _ in self.pending if c == call_id), None) or \
            next((c for c, n in self.pending if n == name), None)  # calls logged without ids
        if match is not None:
            self._add({"role": "tool", "tool_call_id": match, "content": result})

    def _add(self, m: dict[str, Any]) -> None:
        """Append ``m``; a tool result only when it answers a pending call (once)."""
        if m.get("role") == "tool":
            answered = next((p for p in self.pending if p[0] == m.get("tool_call_id")), None)
            if answered is None:
                return
            self.pending.remove(answered)
        if m.get("role") == "user":
            self.asked[str(m.get("content"))] += 1
        for call in m.get("tool_calls") or []:
            if isinstance(call, dict) and isinstance(call.get("function"), dict):
                self.pending.append((str(call.get("id")), str(call["function"].get("name"))))
        self.messages.append(m)
