"""Study judgments CSV: formula-like annotator names and notes are written as text and merged back as they were."""

from __future__ import annotations

import shutil

import pytest

from litlens.services.studies import AnnotationSession, assign, export_study
from litlens.services.study_merge import merge
from litlens.store.project import open_project
from litlens.store.studies import StudyStore
from tests.services.test_csv_exports import PREFIXES, VALUE, assert_no_cell_runs


@pytest.mark.parametrize("prefix", PREFIXES, ids=["equals", "plus", "minus", "at", "tab", "cr"])
@pytest.mark.parametrize("all_events", [False, True], ids=["standing", "all-events"])
def test_study_export_cells_are_text_and_merge_reads_them_back(proxy_project, tmp_path, prefix, all_events):
    note = VALUE.format(prefix)
    annotator = "@" + "annotator" if prefix.isspace() else prefix + "annotator"  # names are stripped
    assign(proxy_project, "proxy", [annotator], overlap=1)
    lead = tmp_path / "lead.litlens"
    shutil.copy(proxy_project, lead)  # knows the annotator, has none of their answers
    session = AnnotationSession.open(proxy_project, "proxy", annotator)
    for i in range(len(session.queue)):
        session.answer(i, 1, note=note if i == 0 else "'Tis plain", duration_ms=500)
    session.close()
    out = tmp_path / "judgments.csv"
    export_study(proxy_project, "proxy", out, n_boot=0, all_events=all_events)
    rows = assert_no_cell_runs(out)
    mine = [r for r in rows if r["annotator"] == "'" + annotator]
    assert mine and {r["note"] for r in mine} == {"'" + note, "''Tis plain"}
    report = merge(lead, [out])
    assert report["added"] == len(mine)
    with open_project(lead) as project:
        store = StudyStore(project)
        events = [e for e in store.events(store.study("proxy").id) if e.annotator == annotator]
    expected = [note] + ["'Tis plain"] * (len(events) - 1)
    # every note as written (no "'" left over); a carriage return may come back as a line feed,
    # as the judgments reader normalises line ends
    assert sorted(e.note.replace("\r", "\n") for e in events) == sorted(n.replace("\r", "\n") for n in expected)
