"""Name cloze and corrupted-speaker guessing on small hand-built books."""

from __future__ import annotations

import pytest

from litlens.audit import cloze, csg
from litlens.model import Character, Paragraph, Quotation, Sentence

FILLER = "the rain kept falling on the old grey roofs of the quiet town all through that long evening"


def sentences_of(text: str, paragraph: int = 0) -> list[Sentence]:
    out, start = [], 0
    for part in text.split(". "):
        end = start + len(part) + 1
        out.append(Sentence(len(out), start, min(end, len(text)), paragraph, 0))
        start = end + 1
    return out


CHARACTERS = [
    Character("Winifred Hale", ["Winifred Hale", "Winifred", "Miss Hale"], "female"),
    Character("Mr. Oswin", ["Mr. Oswin", "Oswin"], "male"),
]


def fake_ner(names: set[str]):
    """Entities = every word in ``names`` (the test decides what the recogniser sees)."""
    import re

    def run(passages: list[str]) -> list[list[tuple[int, int, str]]]:
        return [[(m.start(), m.end(), "PERSON") for m in re.finditer(r"[A-Z][a-z]+", p) if m.group() in names]
                for p in passages]

    return run


def test_cloze_masks_the_one_character_name():
    text = f"Winifred watched as {FILLER}. Then {FILLER} and {FILLER}. Nobody came."
    items = cloze.eligible_items(text, sentences_of(text), CHARACTERS, fake_ner({"Winifred"}))
    assert len(items) == 1
    assert items[0].answer == "Winifred"
    assert items[0].passage.count("[MASK]") == 1 and "Winifred" not in items[0].passage
    assert 40 <= len(items[0].passage.split()) <= 60


@pytest.mark.parametrize(
    "text,ner",
    [
        (f"Winifred watched Oswin as {FILLER}. Then {FILLER} and {FILLER}.", {"Winifred", "Oswin"}),  # two names
        (f"Winifred watched as {FILLER}. Then {FILLER} and Oswin saw {FILLER}.", {"Winifred"}),  # a missed name
        (f"Gertrude watched as {FILLER}. Then {FILLER} and {FILLER}.", {"Gertrude"}),  # not a character
        (f"Winifred watched as {FILLER}.", {"Winifred"}),  # too short
    ],
)
def test_cloze_leaves_out_ineligible_passages(text, ner):
    assert cloze.eligible_items(text, sentences_of(text), CHARACTERS, fake_ner(ner)) == []


@pytest.mark.parametrize(
    "reply,guess",
    [
        ("<name>Winifred</name>", "Winifred"),
        ("<name> Oswin </name> is my guess", "Oswin"),
        ("Winifred", "Winifred"),
        ("<name>he</name>", ""),  # a pronoun is not a name
        ("I am not sure who it is.", ""),
        ("", ""),
    ],
)
def test_cloze_parse_guess_keeps_only_a_name(reply, guess):
    assert cloze.parse_guess(reply) == guess


class ScriptedBackend:
    """Answers from a list, in order (the scoring is under test here, not a model)."""

    name = "scripted:test"

    def __init__(self, replies: list[str]):
        self.replies = list(replies)

    def chat(self, conversations, *, max_new_tokens=256, temperature=0.0):
        out, self.replies = self.replies[: len(conversations)], self.replies[len(conversations):]
        return out


def test_cloze_run_scores_exact_matches_with_an_interval():
    items = [cloze.ClozeItem("x [MASK] y", "Winifred", 0), cloze.ClozeItem("[MASK] z", "Oswin", 10),
             cloze.ClozeItem("w [MASK]", "Oswin", 20)]
    result = cloze.run(ScriptedBackend(["<name>winifred</name>", "<name>she</name>", "<name>Hale</name>"]), items)
    assert result["passages"] == 3
    assert result["accuracy"] == pytest.approx(1 / 3)
    lo, hi = result["ci"]
    assert 0 < lo < 1 / 3 < hi < 1
    assert [i["guess"] for i in result["items"]] == ["winifred", "", "Hale"]
    assert [i["correct"] for i in result["items"]] == [True, False, False]


def story() -> tuple[str, list[Paragraph], list[Quotation]]:
    paras = [
        f"Winifred stood by the window while {FILLER}, and {FILLER}.",
        '"The carriage is late," said Winifred, turning from the glass.',
        '"It will come," Mr. Oswin answered.',
    ]
    text, spans, pos = "", [], 0
    for p in paras:
        spans.append((pos, pos + len(p)))
        text += p + "\n\n"
        pos = len(text)
    paragraphs = [Paragraph(i, s, e, 0) for i, (s, e) in enumerate(spans)]
    q1 = text.index("The carriage")
    q2 = text.index("It will come")
    quotations = [
        Quotation([(q1, q1 + len("The carriage is late,"))], "explicit", "said Winifred", speaker="Winifred Hale"),
        Quotation([(q2, q2 + len("It will come,"))], "explicit", "Mr. Oswin answered", speaker="Mr. Oswin"),
        Quotation([(q2, q2 + 3)], "implicit", None, speaker="Mr. Oswin"),
    ]
    return text, paragraphs, quotations


def test_csg_renames_the_speaker_with_a_same_gender_name_the_book_never_uses():
    text, paragraphs, quotations = story()
    items = csg.eligible_items(text, paragraphs, quotations, CHARACTERS, seed=1)
    assert [i.original for i in items] == ["Winifred Hale", "Mr. Oswin"]
    her, him = items
    assert her.replacement in csg.NEW_NAMES["female"] and him.replacement in csg.NEW_NAMES["male"]
    assert "Winifred" not in her.passage and her.passage.count(her.replacement) == 2
    assert "Oswin" not in him.passage and f"Mr. {him.replacement} answered" in him.passage
    assert len(her.passage.split()) >= csg.MIN_PASSAGE_WORDS  # the paragraph before was added


@pytest.mark.parametrize(
    "reply,followed",
    [("Beatrix", "text"), ("It is Winifred.", "memory"), ("Mr. Oswin", "other"), ("", "other")],
)
def test_csg_classify(reply, followed):
    item = csg.CSGItem("p", "q", "Winifred Hale", ("Winifred",), "Beatrix", 0)
    assert csg.classify(reply, item) == followed


def test_csg_run_reports_shares():
    text, paragraphs, quotations = story()
    items = csg.eligible_items(text, paragraphs, quotations, CHARACTERS, seed=1)
    result = csg.run(ScriptedBackend([items[0].replacement, "Oswin"]), items, "the novel Test")
    assert result["items"] == 2
    assert (result["followed_text"], result["followed_memory"], result["other"]) == (0.5, 0.5, 0.0)
    assert {d["followed"] for d in result["details"]} == {"text", "memory"}
