"""Red-teaming: adversarial datasets from seed requests (``assay simulate``), the jailbreak defect
rate (``assay jailbreak``), multi-turn attacks (``assay jailbreak --strategy crescendo|pair``:
the attack success rate beside the plain defect rate) and defect rates of two runs compared
(``assay compare-defects``).

Example:
    >>> from assay.redteam import load_seeds, load_templates
    >>> len(load_seeds()), len(load_templates())
    (40, 6)
"""

from ._attack_loop import ATTACK_STRATEGIES, DEFAULT_BACKTRACKS, DEFAULT_TURNS, attack
from ._attack_report import ALL
from ._attacker import Attacker
from ._compare import ANY, compare_defects, read_run
from ._crescendo import crescendo
from ._exchange import AppCalls
from ._jailbreak import FunctionTarget, jailbreak
from ._pair import ask_plain, pair
from ._scorer import ReplyScorer
from ._simulate import Attack, injected_attacks, looks_like_refusal, plain_attacks, simulate
from ._simulate import _Asking as AttackAsking
from ._sources import BUILTIN, JailbreakTemplate, Seed, load_seeds, load_templates, pick_seeds

__all__ = ["ALL", "ANY", "ATTACK_STRATEGIES", "BUILTIN", "DEFAULT_BACKTRACKS", "DEFAULT_TURNS",
           "AppCalls", "Attack", "AttackAsking", "Attacker", "FunctionTarget", "JailbreakTemplate",
           "ReplyScorer", "Seed", "ask_plain", "attack", "compare_defects", "crescendo",
           "injected_attacks", "jailbreak", "load_seeds", "load_templates", "looks_like_refusal",
           "pair", "pick_seeds", "plain_attacks", "read_run", "simulate"]
