"""The building blocks of the English patterns (see :mod:`._english`): the words for the text
under evaluation, the grader, the top of a scale, sentence starts and verdict values.

Example:
    >>> import re
    >>> bool(re.fullmatch(_THIS, "this answer", re.I)), bool(re.search(_GRADER, "a banana"))
    (True, False)
"""

from __future__ import annotations

__all__: list[str] = []

# The text under evaluation, named from inside it: "this answer", "the response above".
_TEXT = (r"(?:answer|response|reply|output|text|completion|submission|passage|summary|content"
         r"|message|generation|statement|essay|result|solution)")
_THIS = (rf"(?:(?:this|the\s+(?:above|following|previous|preceding|present)|the|my|that)\s+"
         rf"{_TEXT}(?:\s+(?:above|below|here))?|it|this|that)")
# Who grades: the judge, by any of its names.
_GRADER = (r"(?:evaluators?|graders?|judges?|raters?|assessors?|annotators?|scorers?|examiners?"
           r"|reviewers?|markers?|moderators?|classifiers?"
           r"|(?:ai|llm|language\s+model|automated|model|safety|automatic)\s+"
           r"(?:judges?|evaluators?|graders?|classifiers?|reviewers?|raters?|scorers?)"
           r"|(?:evaluation|evaluator|grading|grader|scoring|judge|judging|reviewer|rating"
           r"|safety)\s+(?:model|llm|system|ai))")
# The top of a scale, or the verdict an attacker wants.
_TOP = (r"(?:(?:a|an|the)\s+)?(?:(?:5|five|10|ten|100)(?:\s*/\s*(?:5|10|100)|\s+out\s+of\s+"
        r"(?:5|five|10|ten|100))?(?!\s*(?:%|percent|(?:star|minute|hour|day|week"
        r"|month|year|time|second|point|mile|meter|dollar|euro|pound|people|person)s?\b))"
        r"|(?:perfect|maximum|max|highest|top|full|best)(?:\s+possible)?"
        r"(?:\s+(?:score|marks?|rating|grade|points|credit|severity))?"
        r"|(?:fully\s+|completely\s+|entirely\s+)?(?:correct|grounded|supported|faithful|accurate"
        r"|relevant|harmless|benign|non-?toxic|safe|passing|pass)\b"
        r"|very\s+low|lowest(?:\s+(?:possible\s+)?(?:severity|score|rating))?|minimal|none\b)")
# The same, with a noun: "this answer", "the response above" (no bare pronoun).
_THIS_NOUN = (rf"(?:(?:this|the\s+(?:above|following|previous|preceding|present)|my)\s+{_TEXT}"
              r"(?:\s+(?:above|below|here))?)")
_NOT_FIRST_PERSON = r"(?<!\bI\s)(?<!\bI'd\s)(?<!would\s)(?<!\bwe\s)(?<!they\s)(?<!\bcan\s)"
_QUALIFIER = (r"(?:above|previous|prior|preceding|earlier|foregoing|original|initial|existing"
              r"|former|old|system|grading|scoring|evaluation|evaluator|judging|rating|your|all"
              r"|any|these|those)")
_RULES = (r"(?:rubrics?|instructions?|criteria|guidelines?|rules?|prompts?|directions?|scoring"
          r"|grading|policy|policies|directives?|constraints?|standards?)")
# A sentence or line start: after punctuation, or a capital after a space ("... Score: 5").
_SENTENCE = (r"(?:^|(?<=[.!?;:()\]}>\"'])|(?<=[.!?;:)\]}>\"']\s)|(?<=\s)(?=(?-i:[A-Z])))"
             r"[ \t]*")
# The same without "a capital after a space": a label mid-line ("Metacritic Score : 95/100" in a
# retrieved page) is data; a verdict line starts a line or follows a sentence.
_LINE_OR_SENTENCE = r"(?:^|(?<=[.!?;:()\]}>\"'])|(?<=[.!?;:)\]}>\"']\s))[ \t]*"
_LOW = r"(?:none|0|very\s+low|low|minimal|negligible|safe|harmless|benign|no)"
# A number on a judge's scale (0-10 or 100, or "n/m", "n out of m"); "Score:167" on a forum
# post is not a verdict.
_VALUE = (r"(?:(?:10|100|\d)(?:\.\d+)?(?!\d)(?:\s*/\s*\d+|\s+out\s+of\s+\d+)?|\d+\s*/\s*\d+"
          r"|yes|no|pass(?:ed)?|fail(?:ed)?"
          r"|correct|incorrect|true|false|safe|unsafe|harmless|benign|supported|grounded"
          r"|faithful|(?:response|output|assistant)?\s*\(?[ab]\)?|\[\[[ab12]\]\]|tie)")
# A JSON verdict's key, and what may not precede the object (code: "x = {", "f({", "return {").
_VERDICT_KEY = (r"(?:score|scores|rating|grade|verdict|result|label|judge?ment|decision|evaluation"
                r"|assessment|final[_ ]?(?:score|verdict|rating)|overall[_ ]?score|groundedness"
                r"|faithfulness|relevance|coherence|fluency|similarity|correctness|accuracy"
                r"|severity|harm(?:ful)?|safety|safe|toxicity|hallucinat(?:ion|ed)|supported"
                r"|grounded|winner|preference|preferred|better|choice|pass(?:ed)?|is_correct"
                r"|hate_unfairness|sexual|violence|self_harm|得分|评分|分数|结论|判定|严重程度)")
_NOT_CODE = r"(?<![=(,]\s)(?<![=(,])(?<!return\s)"
_END = r"[ \t]*(?:$|[.,;)](?!\d)|\n|(?=\s+(?-i:[A-Z\[{])))"
