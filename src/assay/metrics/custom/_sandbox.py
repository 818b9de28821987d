"""The Jinja sandbox that renders custom metric templates, with bounds on what a render may do.

Jinja's :class:`~jinja2.sandbox.SandboxedEnvironment` refuses unsafe attributes (``__class__``,
``mro``, ...) and ranges over 100,000 items, but a template may still loop for hours (nested
loops over a field's characters) or build a string of gigabytes (``'x' * 10**9``, a string
doubled in a loop). Here a render is bounded: at most :data:`MAX_LOOP_STEPS` loop steps and
calls, :data:`MAX_CHARS` characters in any string it builds and in its output, sizes (widths, counts)
up to :data:`MAX_CHARS` given to filters and methods, and :data:`RENDER_SECONDS` seconds; past a bound
it stops with :class:`TemplateRenderError` (``kind == "limit"``).

:func:`refused_names` finds, before any row, the attributes the sandbox would refuse;
:func:`compile_bounded` compiles a parsed template with its loops and concatenations bounded.

Example:
    >>> t = compile_bounded(ENV.parse("{% for i in range(3) %}{{ i }}{% endfor %} {{ x }}"))
    >>> render_bounded(t, {"x": "ok"})
    '012 ok'
    >>> render_bounded(compile_bounded(ENV.parse("{{ x * 10**9 }}")), {"x": "ab"})
    Traceback (most recent call last):
    ...
    assay.metrics.custom._sandbox.TemplateRenderError: template line 1: a string of more than 2,000,000 characters (the bound of a rendered template)
    >>> refused_names(ENV.parse("{{ ''.__class__.__mro__ }}"))
    [(1, '__class__'), (1, '__mro__')]
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextvars import ContextVar
from typing import Any, Literal

import jinja2
import jinja2.sandbox
from jinja2 import nodes

__all__ = ["ENV", "MAX_CHARS", "MAX_LOOP_STEPS", "RENDER_SECONDS", "TemplateRenderError",
           "compile_bounded", "refused_names", "render_bounded"]

#: Most characters a render may build, in any string or in its output.
MAX_CHARS = 2_000_000
#: Most loop steps and calls in one render.
MAX_LOOP_STEPS = 1_000_000
#: Longest a render may take.
RENDER_SECONDS = 2.0
#: Attribute names the sandbox refuses whatever the object (besides names starting with "_").
_INTERNAL = frozenset({"mro", "gi_frame", "gi_code", "gi_yieldfrom", "cr_frame", "cr_code",
                       "cr_await", "ag_code", "ag_frame", "f_globals", "f_locals", "f_builtins",
                       "f_code", "tb_frame", "tb_next", "co_code"})
_LOOP, _CONCAT = "__assay_loop", "__assay_concat"
#: Filters and methods whose numbers are sizes (a width, a count): bounded by MAX_CHARS.
_SIZED = frozenset({"center", "indent", "wordwrap", "truncate", "batch", "slice", "ljust",
                    "rjust", "zfill", "expandtabs", "safe_range", "range"})

RenderErrorKind = Literal["refused", "limit", "error"]


class TemplateRenderError(Exception):
    """A template that could not render: the sandbox ``refused`` an expression, a bound was
    reached (``limit``), or an ``error`` (an undefined value, a type error, ...); ``line`` is
    the template line, when known."""

    def __init__(self, message: str, kind: RenderErrorKind, line: int | None = None) -> None:
        super().__init__(f"template line {line}: {message}" if line else message)
        self.message, self.kind, self.line = message, kind, line


class _Budget:
    """What one render may still spend."""

    __slots__ = ("deadline", "steps")

    def __init__(self) -> None:
        self.steps = MAX_LOOP_STEPS
        self.deadline = time.monotonic() + RENDER_SECONDS

    def step(self) -> None:
        self.steps -= 1
        if self.steps < 0:
            raise _Limit(f"more than {MAX_LOOP_STEPS:,} loop steps and calls")
        if not self.steps % 1024 and time.monotonic() > self.deadline:
            raise _Limit(f"it took more than {RENDER_SECONDS:g} s")


class _Limit(Exception):
    """A bound of :class:`_Budget` or of a value's size was reached."""


_BUDGET: ContextVar[_Budget | None] = ContextVar("assay_template_budget", default=None)


def _spend() -> None:
    budget = _BUDGET.get()
    if budget is not None:
        budget.step()


def _too_long() -> _Limit:
    return _Limit(f"a string of more than {MAX_CHARS:,} characters (the bound of a rendered "
                  "template)")


def _check_size(value: Any) -> Any:
    if isinstance(value, (str, list, tuple)) and len(value) > MAX_CHARS:
        raise _too_long()
    return value


def _check_numbers(args: Iterable[Any]) -> None:
    for arg in args:
        if isinstance(arg, int) and not isinstance(arg, bool) and abs(arg) > MAX_CHARS:
            raise _Limit(f"the size {arg if arg < 10**12 else 'given'} is over {MAX_CHARS:,}, "
                         "the largest a template may ask for")


def _loop(iterable: Iterable[Any]) -> Iterator[Any]:
    """A ``{% for %}`` loop's items, each counted against the render's budget."""
    for item in iterable:
        _spend()
        yield item


def _concat(*parts: Any) -> str:
    """``a ~ b``, refused past :data:`MAX_CHARS` before the string is built."""
    texts = [str(p) for p in parts]
    if sum(map(len, texts)) > MAX_CHARS:
        raise _too_long()
    return "".join(texts)


def _bounded_filter(name: str, f: Callable[..., Any]) -> Callable[..., Any]:
    """``f`` with its sizes bounded (a filter in :data:`_SIZED`) and its result's checked."""
    sized = name in _SIZED

    @functools.wraps(f)  # keeps jinja's pass_context / pass_environment marks
    def bounded(*args: Any, **kwargs: Any) -> Any:
        _spend()
        if sized:
            _check_numbers([*args[1:], *kwargs.values()])
        return _check_size(f(*args, **kwargs))

    return bounded


class _BoundedSandbox(jinja2.sandbox.SandboxedEnvironment):
    """The sandbox, with ``*``, ``**`` and ``+`` and every call bounded (see the module)."""

    intercepted_binops = frozenset({"*", "**", "+"})

    def call_binop(self, context: Any, operator_: str, left: Any, right: Any) -> Any:
        if (operator_ == "**" and isinstance(left, int) and isinstance(right, int)
                and right > 64 and abs(left) > 1):
            raise _Limit(f"{left} ** {right} is too large a number")
        if operator_ == "*":
            for seq, n in ((left, right), (right, left)):
                if isinstance(seq, (str, list, tuple)) and isinstance(n, int) and (
                        len(seq) * n > MAX_CHARS):
                    raise _too_long()
        if operator_ == "+" and isinstance(left, (str, list, tuple)) and isinstance(
                right, (str, list, tuple)) and len(left) + len(right) > MAX_CHARS:
            raise _too_long()
        return super().call_binop(context, operator_, left, right)

    def call(self, context: Any, obj: Any, /, *args: Any, **kwargs: Any) -> Any:
        _spend()
        if getattr(obj, "__name__", None) in _SIZED:
            _check_numbers([*args, *kwargs.values()])
        return _check_size(super().call(context, obj, *args, **kwargs))


ENV = _BoundedSandbox(undefined=jinja2.StrictUndefined, autoescape=False)
ENV.filters = {name: _bounded_filter(name, f) for name, f in ENV.filters.items()}
ENV.globals.update({_LOOP: _loop, _CONCAT: _concat})


def refused_names(parsed: nodes.Template) -> list[tuple[int, str]]:
    """``(line, name)`` of each attribute the template reads (``x.name``, ``x['name']``,
    ``x|attr('name')``) that the sandbox refuses on any object: a name starting with ``_``,
    or an internal one such as ``mro``."""
    found: list[tuple[int, str]] = []
    for node in parsed.find_all((nodes.Getattr, nodes.Getitem, nodes.Filter)):
        if isinstance(node, nodes.Getattr):
            name: Any = node.attr
        elif isinstance(node, nodes.Getitem):
            name = node.arg.value if isinstance(node.arg, nodes.Const) else None
        elif isinstance(node, nodes.Filter):
            name = (node.args[0].value if node.name == "attr" and node.args
                    and isinstance(node.args[0], nodes.Const) else None)
        else:  # pragma: no cover - find_all yields only the three kinds asked for
            continue
        if isinstance(name, str) and (name.startswith("_") or name in _INTERNAL):
            found.append((node.lineno, name))
    return sorted(found)


def compile_bounded(parsed: nodes.Template) -> jinja2.Template:
    """The template compiled with each loop's items and each ``~`` counted and bounded."""
    for loop in parsed.find_all(nodes.For):
        loop.iter = nodes.Call(nodes.Name(_LOOP, "load", lineno=loop.lineno), [loop.iter], [],
                               None, None, lineno=loop.lineno)
    for concat in list(parsed.find_all(nodes.Concat)):
        call = nodes.Call(nodes.Name(_CONCAT, "load", lineno=concat.lineno), concat.nodes, [],
                          None, None, lineno=concat.lineno)
        _replace(parsed, concat, call)
    return ENV.from_string(parsed)


def _replace(tree: nodes.Node, old: nodes.Node, new: nodes.Node) -> None:
    """Put ``new`` where ``old`` is in ``tree``."""
    for node in tree.find_all(nodes.Node):
        for field, value in node.iter_fields():
            if value is old:
                setattr(node, field, new)
            elif isinstance(value, list) and any(v is old for v in value):
                setattr(node, field, [new if v is old else v for v in value])


def render_bounded(template: jinja2.Template, values: Mapping[str, Any]) -> str:
    """``template`` rendered with ``values`` within the bounds of the module.

    Raises:
        TemplateRenderError: the sandbox refused an expression, a bound was reached, or the
            template failed (an undefined value, a wrong type, ...).
    """
    token = _BUDGET.set(_Budget())
    try:
        size, parts = 0, []
        for part in template.generate(**values):
            size += len(part)
            if size > MAX_CHARS:
                raise _too_long()
            parts.append(part)
        return "".join(parts)
    except jinja2.sandbox.SecurityError as e:
        raise TemplateRenderError(str(e), "refused", _template_line(e)) from None
    except (_Limit, OverflowError, RecursionError, MemoryError) as e:
        message = str(e) if isinstance(e, (_Limit, OverflowError)) else type(e).__name__
        raise TemplateRenderError(message, "limit", _template_line(e)) from None
    except Exception as e:  # noqa: BLE001 - the user's template failed on this row: its reason
        raise TemplateRenderError(f"{type(e).__name__}: {e}", "error", _template_line(e)
                                  ) from None
    finally:
        _BUDGET.reset(token)


def _template_line(error: BaseException) -> int | None:
    """The template line where ``error`` was raised (jinja's frames are named ``<template>``)."""
    line = None
    tb = error.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<template>":
            line = tb.tb_lineno
        tb = tb.tb_next
    return line

