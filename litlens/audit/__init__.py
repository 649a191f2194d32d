"""Memorization probes: how much of a book a language model already knows (seed 003).

* :mod:`litlens.audit.mink` — Min-K% Prob and Min-K%++ from per-token log-probabilities.
* :mod:`litlens.audit.cloze` — name cloze (a masked character name to guess).
* :mod:`litlens.audit.csg` — corrupted-speaker guessing (does the model follow the text or memory?).

Plain data in, plain data out; the model comes in as an :class:`litlens.llm.LLMBackend`.
"""

from litlens.audit.stats import MEMORISED_AT, wilson_interval

__all__ = ["MEMORISED_AT", "wilson_interval"]
