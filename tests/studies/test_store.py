"""The studies schema: append-only judgments, undo as an event, standing answers."""

from __future__ import annotations

import sqlite3

import pytest

from litlens.services.studies import AnnotationSession, study_status
from litlens.store.project import open_project
from litlens.store.studies import StudyError, StudyStore, effective_judgments


def test_migration_creates_study_tables(proxy_project):
    with open_project(proxy_project) as project:
        names = {r[0] for r in project.conn.execute("SELECT name FROM _migrations")}
        assert "005_studies" in names
        assert project.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_items_keep_options_as_shown_with_gold(proxy_project):
    with open_project(proxy_project) as project:
        store = StudyStore(project)
        items = store.items(store.study("proxy").id)
    assert len(items) == 5
    for item in items:
        assert len(item.options) == 3
        assert [o["gold"] for o in item.options].count(True) == 1
        assert item.options[item.gold_position - 1]["gold"]
        assert "[masked sentence(s)]" in item.data["context"]
    # shuffled per item: gold is not always in the same position
    assert len({i.gold_position for i in items}) > 1


def test_judgments_are_append_only(proxy_project):
    session = AnnotationSession.open(proxy_project, "proxy", "A")
    session.answer(0, 2)
    session.close()
    with open_project(proxy_project) as project:
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            project.conn.execute("UPDATE study_judgments SET value = '3'")
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            project.conn.execute("DELETE FROM study_judgments")


def test_undo_is_a_new_event_and_restores_the_previous_answer(proxy_project):
    session = AnnotationSession.open(proxy_project, "proxy", "A")
    session.answer(0, 1, duration_ms=900, note="first look")
    session.answer(0, 3)
    assert session.queue[0].value == 3
    assert session.undo() == 0
    assert session.queue[0].value == 1
    assert session.undo() == 0
    assert session.queue[0].value is None
    session.close()
    with open_project(proxy_project) as project:
        store = StudyStore(project)
        events = store.events(store.study("proxy").id)
    assert [e.event for e in events] == ["answer", "answer", "undo", "undo"]
    assert events[0].note == "first look" and events[0].duration_ms == 900
    assert len(events[0].options_shown) == 3
    assert effective_judgments(events) == {}


def test_skip_and_return(proxy_project):
    session = AnnotationSession.open(proxy_project, "proxy", "B")
    session.skip(0)
    assert session.next_index(0) == 1
    for i in range(1, 5):
        session.answer(i, 1)
    assert session.next_index(4) == 0  # the skipped item comes back at the end
    session.answer(0, 2)
    assert session.next_index(0) is None
    session.close()
    assert study_status(proxy_project, "proxy")["annotators"]["B"] == {"assigned": 5, "done": 5}


def test_session_is_blind_to_other_annotators(proxy_project):
    a = AnnotationSession.open(proxy_project, "proxy", "A")
    a.answer(0, 2)
    a.close()
    b = AnnotationSession.open(proxy_project, "proxy", "B")
    assert all(e.value is None for e in b.queue)
    assert all(e.annotator == "B" for e in b._mine)
    b.close()


def test_unknown_annotator_and_out_of_scale_value(proxy_project):
    with pytest.raises(StudyError, match="unknown annotator 'Zed'"):
        AnnotationSession.open(proxy_project, "proxy", "Zed")
    session = AnnotationSession.open(proxy_project, "proxy", "A")
    with pytest.raises(StudyError, match="not on this study's scale"):
        session.answer(0, 4)
    session.close()
