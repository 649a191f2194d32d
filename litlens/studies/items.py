"""Study items as plain data: what an annotator sees, exactly as shown."""

from __future__ import annotations

from dataclasses import dataclass, field

PROXY = "proxy"
LIKERT = "likert"
LIKERT_SCALE = [1, 2, 3, 4, 5]

# The 1–5 rubric of seed 002 (LiteraryQA), in our own words.
LIKERT_RUBRIC = {
    1: "Completely wrong: nothing in the answer matches the references.",
    2: "Mostly off, but something in it is related to the references.",
    3: "Partly right: errors, omissions, or major extra claims that cannot be checked.",
    4: "Right, with minor details that cannot be checked against the references{summary}.",
    5: "The same as a reference, or a paraphrase that keeps its meaning.",
}


def rubric(mode: str = "reference") -> dict[int, str]:
    extra = " or the summary" if mode == "summary" else ""
    return {k: v.format(summary=extra) for k, v in LIKERT_RUBRIC.items()}


@dataclass(frozen=True)
class Option:
    text: str
    source_id: str | None = None
    gold: bool = False

    def as_json(self) -> dict:
        return {"text": self.text, "source_id": self.source_id, "gold": self.gold}


@dataclass
class StudyItem:
    """One item: ``data`` holds the task (context, question, answer…); ``options`` are in shown order."""

    key: str
    data: dict
    options: list[Option] = field(default_factory=list)

    @property
    def gold_position(self) -> int | None:
        """1-based position of the gold option as shown (None for Likert items)."""
        for n, option in enumerate(self.options, start=1):
            if option.gold:
                return n
        return None


@dataclass(frozen=True)
class SkippedItem:
    """An item that could not be built, and why (reported to the user, never shown short)."""

    key: str
    reason: str

    def as_json(self) -> dict:
        return {"key": self.key, "reason": self.reason}


@dataclass
class ItemBuild:
    """The items a builder made, in order, and the ones it had to leave out."""

    items: list[StudyItem] = field(default_factory=list)
    skipped: list[SkippedItem] = field(default_factory=list)


def scale_for(kind: str, n_options: int = 3) -> list[int]:
    return list(range(1, n_options + 1)) if kind == PROXY else list(LIKERT_SCALE)
