"""Stored attributions: replaced per method atomically, human and gold speakers never overwritten."""

from __future__ import annotations

import pytest

from litlens.attribution.base import Attribution
from litlens.services import editing
from litlens.store.attribution import read_attributions, save_attributions
from litlens.store.project import open_project


def _answers(project, book_id, method="cpu", pick=0, n=None):
    qids = [qid for qid, _ in project.quotations(book_id)][:n]
    cids = [cid for cid, _ in project.characters(book_id)]
    return [Attribution(str(q), str(cids[pick]), 0.75, method, (str(cids[pick + 1]),)) for q in qids]


def test_migration_adds_attribution_table_and_column(detected):
    with open_project(detected) as project:
        names = {r[0] for r in project.conn.execute("SELECT name FROM _migrations")}
        assert "004_attribution" in names
        cols = {r[1] for r in project.conn.execute("PRAGMA table_info(quotations)")}
        assert "speaker_method" in cols


def test_save_replaces_the_methods_answers_and_shows_speakers(detected):
    with open_project(detected) as project:
        book_id = project.books()[0].id
        first_name = project.characters(book_id)[0][1].name
        counts = save_attributions(project, book_id, _answers(project, book_id), "cpu")
        assert counts["saved"] == counts["shown"] == len(project.quotations(book_id))
        save_attributions(project, book_id, _answers(project, book_id, pick=1, n=5), "cpu")
        stored = read_attributions(project, book_id, "cpu")
        assert len(stored) == 5  # the earlier run of the same method is replaced, not merged
        save_attributions(project, book_id, _answers(project, book_id, method="llm:x", n=3), "llm:x")
        assert len(read_attributions(project, book_id)) == 8  # other methods are kept
        q = project.quotations(book_id)[0][1]
        assert q.speaker == first_name and q.speaker_confidence == 0.75


def test_human_correction_survives_reattribution_until_undone(detected):
    with open_project(detected) as project:
        book_id = project.books()[0].id
        save_attributions(project, book_id, _answers(project, book_id), "cpu")
        qid = project.quotations(book_id)[0][0]
        other = project.characters(book_id)[2][1].name
        editing.set_quotation_speaker(project, qid, other)
        counts = save_attributions(project, book_id, _answers(project, book_id), "cpu")
        assert counts["kept"] == 1
        assert dict(project.quotations(book_id))[qid].speaker == other
        editing.undo(project, book_id)
        save_attributions(project, book_id, _answers(project, book_id), "cpu")
        assert dict(project.quotations(book_id))[qid].speaker == project.characters(book_id)[0][1].name


def test_gold_speakers_are_kept(gold):
    with open_project(gold) as project:
        book_id = project.books()[0].id
        before = [q.speaker for _, q in project.quotations(book_id)]
        counts = save_attributions(project, book_id, _answers(project, book_id), "cpu")
        assert counts["shown"] == sum(1 for s in before if s is None)
        assert [q.speaker for _, q in project.quotations(book_id)] == before
        assert len(read_attributions(project, book_id, "cpu")) == len(before)  # still stored, for comparison


def test_save_rejects_unknown_speaker_ids_and_writes_nothing(detected):
    with open_project(detected) as project:
        book_id = project.books()[0].id
        answers = _answers(project, book_id)
        answers[-1] = Attribution(answers[-1].quotation_id, "999999", 0.5, "cpu")
        with pytest.raises(ValueError, match="999999"):
            save_attributions(project, book_id, answers, "cpu")
        assert read_attributions(project, book_id) == []
        assert all(q.speaker is None for _, q in project.quotations(book_id))
