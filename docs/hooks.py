"""MkDocs hooks: the pages generated at build time, so they cannot drift from the code.

- ``reference/metrics.md``: every metric of the registry (``assay.metrics.list_metrics``),
  with its kind, the fields it needs, its range, its direction, whether ``--metrics auto``
  plans it, and what it measures (the metric's docstring, or its rubric's opening sentence).
- ``reference/api.md``: one mkdocstrings block per public name of ``assay`` (``__all__``).

``mkdocs.yml`` names this file under ``hooks:``; the tests run the same functions
(tests/test_docs_site.py).
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import Any

PROMPTS = Path(__file__).resolve().parents[1] / "src" / "assay" / "prompts"


def _first_paragraph(text: str) -> str:
    return " ".join(text.strip().split("\n\n", 1)[0].split())


def _rubric_sentence(name: str) -> str | None:
    """The opening sentence of the metric's English rubric (its newest version), if any."""
    files = sorted(PROMPTS.glob(f"{name}/*/en.md"))
    if not files:
        return None
    text = files[-1].read_text(encoding="utf-8")
    text = re.sub(r"^---\n.*?\n---\n", "", text, flags=re.DOTALL).strip()
    first = text.split("\n", 1)[0]
    return re.split(r"(?<=\.)\s", first, maxsplit=1)[0]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def metrics_page() -> str:
    """The metric reference, in Markdown, from the registry.

    Example:
        >>> page = metrics_page()
        >>> "| `f1_score` |" in page and "| `groundedness` |" in page
        True
    """
    from assay.metrics import (
        AUTO_AGENT_METRICS,
        AUTO_CONVERSATION_METRICS,
        AUTO_METRICS,
        REGISTRY,
        list_metrics,
    )

    auto = set(AUTO_METRICS) | set(AUTO_CONVERSATION_METRICS) | set(AUTO_AGENT_METRICS)
    infos = [i for i in list_metrics() if i.source == "built-in"]
    docs: dict[str, str] = {}
    for info in infos:
        docs[info.name] = _first_paragraph(inspect.getdoc(type(REGISTRY[info.name])) or "")
    shared = {d for d in docs.values() if list(docs.values()).count(d) > 1}
    lines = [
        "# Metrics",
        "",
        ("Generated from the metric registry when the site is built (`docs/hooks.py`), so it "
         "lists exactly what `assay metrics` lists (plugins' metrics are added there when "
         "installed: [Plugins](../plugins.md)). *auto*: `--metrics auto` plans the metric when "
         "a row's fields allow it ([Metrics](../guides/evaluate.md#metrics)). Judge metrics "
         "read their rubric from `src/assay/prompts/<rubric>/<version>/<lang>.md`."),
        "",
    ]
    kinds: dict[str, list[Any]] = {}
    for info in infos:
        kinds.setdefault(info.kind, []).append(info)
    for kind, members in kinds.items():
        lines += [f"## {kind}", "",
                  "| metric | needs | range | better | auto | what it measures |",
                  "|---|---|---|---|---|---|"]
        for info in members:
            metric = REGISTRY[info.name]
            about = docs[info.name]
            if about in shared or not about:
                about = _rubric_sentence(info.name) or about
            low, high = info.value_range or (None, None)
            span = "-" if low is None else f"{low:g}-{high:g}"
            better = "higher" if getattr(metric, "higher_is_better", True) else "lower"
            needs = ", ".join(f"`{f}`" for f in info.required) or "-"
            lines.append(f"| `{info.name}` | {needs} | {span} | {better} | "
                         f"{'yes' if info.name in auto else 'no'} | {_cell(about)} |")
        lines.append("")
    return "\n".join(lines)


def api_page() -> str:
    """The API reference: one mkdocstrings block per public name of ``assay``.

    Example:
        >>> "::: assay.evaluate" in api_page()
        True
    """
    import assay

    names = [n for n in assay.__all__ if not n.startswith("_")]
    lines = ["# Python API", "",
             ("The public names of `import assay` (`assay.__all__`), generated when the site "
              "is built. Each package has more public names in its own `__all__` "
              "(`assay.metrics`, `assay.judges`, ...); [Evaluate a dataset]"
              "(../guides/evaluate.md#python-api) shows the API at work."), ""]
    for name in names:
        lines += [f"::: assay.{name}", ""]
    return "\n".join(lines)


GENERATED = {"reference/metrics.md": metrics_page, "reference/api.md": api_page}


def on_files(files: Any, config: Any) -> Any:
    """Add the generated pages to the build."""
    from mkdocs.structure.files import File

    for path, make in GENERATED.items():
        files.append(File.generated(config, path, content=make()))
    return files


try:  # the docs extra's griffe; the hooks above work without it
    import griffe
except ImportError:  # pragma: no cover - only mkdocstrings imports the class below
    griffe = None  # type: ignore[assignment]

if griffe is not None:

    class ExampleSections(griffe.Extension):
        """Reads assay's ``Example:`` docstring sections as Google-style ``Examples:`` ones, so
        their doctests render as code (griffe knows only the plural)."""

        def on_instance(self, *, obj: Any, **kwargs: Any) -> None:
            if obj.docstring is not None:
                obj.docstring.value = re.sub(r"(?m)^(\s*)Example:\s*$", r"\1Examples:",
                                             obj.docstring.value)
