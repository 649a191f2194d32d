"""Fixtures for the export tests: the TEI schema compiled once a session, projects built by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from litlens.model import Chapter, Character, Paragraph, Quotation, RawBook, Sentence, Structure
from litlens.store.project import open_project
from tests.conftest import SHARED

TEI_RNG = SHARED / "data" / "tei" / "tei_all_4.2.1.rng"


@pytest.fixture(scope="session")
def tei_schema():
    """tei_all 4.2.1 compiled by lxml (about 20-45 s on a loaded 2-core machine: once a session)."""
    if not TEI_RNG.is_file():
        pytest.skip(f"needs the TEI schema at {TEI_RNG} (../shared is absent in a plain clone)")
    from lxml import etree

    return etree.RelaxNG(etree.parse(str(TEI_RNG)))


TEXT = (
    "CHAPTER I.\n\n"
    "\u201cWho is there?\u201d asked Anne. \u201cIs it you,\nTom?\u201d\n\n"
    "Nobody answered for a while.\n\n"
    "CHAPTER II.\n\n"
    "\u201cIt is I,\u201d said the Doctor at last.\n"
)


def _spans_of(text: str, *pieces: str) -> list[tuple[int, int]]:
    out = []
    for piece in pieces:
        start = text.index(piece)
        out.append((start, start + len(piece)))
    return out


def make_project(
    path: Path,
    *,
    quotations: list[Quotation] | None = None,
    characters: list[Character] | None = None,
    text: str = TEXT,
) -> Path:
    """A one-book project with two chapters whose headings are their first paragraphs."""
    heads = [text.index("CHAPTER I."), text.index("CHAPTER II.")] if "CHAPTER II." in text else [0]
    chapters = []
    for n, start in enumerate(heads):
        end = heads[n + 1] if n + 1 < len(heads) else len(text)
        title = text[start:].split("\n", 1)[0] if text[start:].startswith("CHAPTER") else ""
        chapters.append(Chapter(n, title, start, end))
    paragraphs = []
    pos = 0
    for block in text.split("\n\n"):
        stripped = block.strip()
        if stripped:
            start = text.index(stripped, pos)
            chapter = max((c.index for c in chapters if c.start <= start), default=None)
            paragraphs.append(Paragraph(len(paragraphs), start, start + len(stripped), chapter))
            pos = start + len(stripped)
    sentences = [Sentence(p.index, p.start, p.end, p.index, p.chapter) for p in paragraphs]
    if quotations is None:
        quotations = [
            Quotation(spans=_spans_of(text, "Who is there?", "Is it you,\nTom?"), type="explicit",
                      referring_expression="asked Anne", speaker="Anne", addressees=["Tom"], speaker_confidence=0.93,
                      chapter=0),
            Quotation(spans=_spans_of(text, "It is I,"), type="anaphoric", referring_expression="said the Doctor",
                      speaker="Dr. O'Neil (the 2nd)", speaker_confidence=0.41, chapter=1),
        ]
    if characters is None:
        characters = [
            Character(name="Anne", aliases=["Anne", "Miss Anne Shirley"], gender="female"),
            Character(name="Tom", aliases=["Tom"], gender="male"),
            Character(name="Dr. O'Neil (the 2nd)", aliases=["Dr. O'Neil (the 2nd)", "the Doctor"], gender="unknown"),
            Character(name="2 Tom", aliases=["2 Tom"]),  # starts with a digit: not an NCName as it is
            Character(name="explicit", aliases=["explicit"]),  # would clash with a category id
        ]
    raw = RawBook(text=text, source_path="/books/anne.txt", format="txt", encoding="utf-8", title="Anne", author="A. Writer")
    structure = Structure(chapters=chapters, paragraphs=paragraphs, sentences=sentences, persons=[])
    with open_project(path) as project:
        project.add_book(raw, structure, quotations, characters, sha256="0" * 64, word_count=len(text.split()),
                         pipeline_version="test")
    return path


@pytest.fixture(scope="session")
def pp_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped PDNC fixture (Pride and Prejudice with gold quotations), imported once a session."""
    from litlens.services.books import import_pdnc
    from tests.conftest import SAMPLE_PDNC

    path = tmp_path_factory.mktemp("pp") / "pp.litlens"
    import_pdnc(path, SAMPLE_PDNC)
    return path
