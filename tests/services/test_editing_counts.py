"""What each correction recounts (issue 37 item 7): a new speaker moves one quotation between
two characters' counts and reads no text; renames count mentions before their transaction,
and count again inside it when the characters changed in between."""

from __future__ import annotations

from pathlib import Path

import pytest

from litlens.model import Character
from litlens.services import editing
from litlens.services.books import ingest_file, list_characters, list_quotations
from litlens.store.project import open_project
from tests.services.test_editing import NOVEL


@pytest.fixture
def project(tmp_path: Path) -> Path:
    novel = tmp_path / "novel.txt"
    novel.write_text(NOVEL, encoding="utf-8")
    path = tmp_path / "novel.litlens"
    ingest_file(path, novel)
    return path


def _counts(project: Path) -> dict[str, tuple[int, int]]:
    return {c["name"]: (c["mentions"], c["quotations"]) for c in list_characters(project)}


def test_speaker_correction_moves_one_quotation_and_reads_no_text(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    quote = int(list_quotations(project)[0]["id"])
    first, second = (c["name"] for c in list_characters(project)[:2])
    with open_project(project) as p:
        editing.set_quotation_speaker(p, quote, first)
    before = _counts(project)
    monkeypatch.setattr(editing, "count_mentions", lambda *a: pytest.fail("a speaker correction counted mentions"))
    with open_project(project) as p:
        editing.set_quotation_speaker(p, quote, second)
    after = _counts(project)
    assert after[first] == (before[first][0], before[first][1] - 1)
    assert after[second] == (before[second][0], before[second][1] + 1)
    assert {n: c for n, c in after.items() if n not in {first, second}} == {
        n: c for n, c in before.items() if n not in {first, second}}


def test_recount_counts_again_when_the_characters_changed_since(project: Path) -> None:
    with open_project(project) as p:
        book = p.books()[0].id
        darcy_id, darcy = next((cid, c) for cid, c in p.characters(book) if c.name == "Mr. Darcy")
        # counted for aliases the character no longer has: not used
        stale = editing.count_character_mentions(p, book, [Character(name="Mr. Darcy", aliases=["Mr. Darcy"])])
        stale = editing.MentionCounts(stale.key, {"Mr. Darcy": 999})
        with p.atomic() as conn:
            editing.recount_characters(conn, p, book, [darcy_id], stale)
        assert _counts(project)["Mr. Darcy"][0] == darcy.mention_count
        # counted for exactly the stored names and aliases: used as it is
        fresh = editing.count_character_mentions(p, book, [Character(name="Mr. Darcy", aliases=darcy.aliases)])
        with p.atomic() as conn:
            editing.recount_characters(conn, p, book, [darcy_id], editing.MentionCounts(fresh.key, {"Mr. Darcy": 7}))
        assert _counts(project)["Mr. Darcy"][0] == 7
