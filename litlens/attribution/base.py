"""The attribution record shared by every attribution method (CPU ranker, LLM protocol)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Attribution:
    """Who speaks one quotation, according to one method.

    ``speaker`` is a character id of the book's character list (``None``: no answer),
    ``confidence`` is in [0, 1], ``method`` is ``"cpu"`` or ``"llm:<model>"``, and
    ``addressees`` are character ids of the people spoken to.
    """

    quotation_id: str
    speaker: str | None
    confidence: float
    method: str
    addressees: tuple[str, ...] = ()
