"""The plain personas a simulated user takes when its scenario gives none, picked by the seed.

The simulated user's model runs at temperature 0, so the same scenario and model would always
give the same user. ``seed`` varies it in a way you can name: a scenario without a
``persona`` gets one of :data:`PERSONAS`, picked from a hash of the seed and the scenario's id
(so two scenarios of one run may differ, each one's pick never depends on the others, and a
seed gives the same picks on every run and machine). The row records the persona used.

Example:
    >>> [p.name for p in PERSONAS]
    ['terse', 'chatty', 'vague at first', 'impatient', 'formal', 'unsure of the terms']
    >>> pick_persona(0, "s1").name == pick_persona(0, "s1").name
    True
    >>> len({pick_persona(seed, "s1").name for seed in range(40)}) > 3
    True
    >>> pick_persona(0, "s1").text("zh") != pick_persona(0, "s1").text("en")
    True
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

__all__ = ["PERSONAS", "Persona", "pick_persona"]


@dataclass(frozen=True)
class Persona:
    """How a simulated user writes: a short name, and the description given to its model in
    English (``en``) and Chinese (``zh``)."""

    name: str
    en: str
    zh: str

    def text(self, prompt_lang: str) -> str:
        """The description in the language of the prompt (``zh`` or ``en``)."""
        return self.zh if prompt_lang == "zh" else self.en


PERSONAS: tuple[Persona, ...] = (
    Persona("terse", "You write very short messages, a few words each, with no greeting.",
            "你的消息很短，每条只有几个词，不打招呼。"),
    Persona("chatty", "You are friendly and talkative, and say a little about why you ask.",
            "你友好又健谈，会顺便说一点你为什么要问。"),
    Persona("vague at first", "Your first message is vague; you become precise only when the "
            "app asks you to.", "你的第一条消息说得很含糊；只有应用问你时，你才说得具体。"),
    Persona("impatient", "You are in a hurry, say so, and want a direct answer.",
            "你很赶时间，会这样说，并且想要直截了当的回答。"),
    Persona("formal", "You write politely and formally, in full sentences.",
            "你写得礼貌、正式，用完整的句子。"),
    Persona("unsure of the terms", "You do not know the right terms and describe things in "
            "your own everyday words.", "你不知道专业说法，用自己的日常话来描述。"),
)
"""The personas a seed picks from (plain ways of writing, no invented facts)."""


def pick_persona(seed: int, scenario_id: str) -> Persona:
    """The persona of scenario ``scenario_id`` under ``seed``: one of :data:`PERSONAS`, chosen
    by the sha256 of both (not Python's ``hash``, which changes from process to process)."""
    digest = hashlib.sha256(f"{seed}\n{scenario_id}".encode()).digest()
    return PERSONAS[int.from_bytes(digest[:8], "big") % len(PERSONAS)]
