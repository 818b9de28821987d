"""The bench's fake judge (``shared/bench/fake_judge.py``), answering a Yes/No question as a real
judge does: a request without a response format or tools whose prompt ends asking for "Yes or
No" gets "No. ..." (the bench alone answers it with a JSON rating, which no verdict can be read
from). ``assay generate``'s requests (writing a question, and its checks) are answered as
``tests/generation_judge.py`` answers them, and the simulated user's (``assay simulate
--scenarios``) as ``tests/simulated_user_judge.py`` does. Run it as the bench:
``python tests/yes_no_judge.py --port N ...``.

Example:
    >>> answer_yes_no("Did the app refuse the request? Answer Yes or No, then a reason.", {})
    ('generic.verdict', 'No. The text does what was asked.')
    >>> answer_yes_no("Rate it 1-5.", {}) is None
    True
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parents[1].parent / "shared" / "bench"
_ASKS_YES_NO = re.compile(r"\bYes (?:or|或) No\b[^\n]*\Z")
#: The last line of assay generate's check prompts (gen_standalone, gen_supported,
#: gen_unanswered).
_ASKS_GENERATE_CHECK = re.compile(r"(understood on its own|supported by the evidence|Do the "
                                  r"documents answer the question|能否单独看懂|得到证据的支持|"
                                  r"文档是否回答了这个问题)[^\n]*\Z")


def answer_yes_no(text: str, req: dict[str, Any]) -> tuple[str, str] | None:
    """``(template name, "No. ...")`` for a Yes/No question, else None (the bench answers)."""
    if req.get("response_format") or req.get("tools"):
        return None
    if not _ASKS_YES_NO.search(text.strip()):
        return None
    return "generic.verdict", "No. The text does what was asked."


def main() -> None:
    sys.path.insert(0, str(BENCH))
    import fake_judge  # type: ignore[import-not-found]
    import judge_templates  # type: ignore[import-not-found]

    bench_respond = judge_templates.respond

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from generation_judge import answer_generation, answer_verdict
    from simulated_user_judge import answer_simulated_user

    def generation(text: str, req: dict[str, Any]) -> tuple[str, str] | None:
        form = ((req.get("response_format") or {}).get("json_schema") or {})
        user = answer_simulated_user(text, str(form.get("name") or ""))
        if user is not None:
            return "simulate.user", user
        written = answer_generation(text, str(form.get("name") or ""), form.get("schema") or {})
        if written is not None:
            return "generate.question", written
        if _ASKS_GENERATE_CHECK.search(text.strip()) and not req.get("response_format"):
            verdict = answer_verdict(text)
            return ("generate.verdict", verdict) if verdict else None
        return None

    def respond(text: str, req: dict[str, Any]) -> Any:
        return generation(text, req) or answer_yes_no(text, req) or bench_respond(text, req)

    judge_templates.respond = respond
    fake_judge.main()


if __name__ == "__main__":
    main()
