"""Annotator view and agreement dashboard, driven with the keyboard (pytest-qt, offscreen)."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

pytest.importorskip("PySide6", reason="the GUI tests need PySide6 (pip install -e '.[test]')")

from PySide6.QtCore import Qt  # noqa: E402

from litlens.gui.annotate import AnnotatorView  # noqa: E402
from litlens.gui.dashboard import AgreementPanel  # noqa: E402
from litlens.services.studies import AnnotationSession  # noqa: E402
from litlens.store.project import open_project  # noqa: E402
from litlens.store.studies import StudyStore  # noqa: E402


def _events(project):
    with open_project(project) as p:
        store = StudyStore(p)
        return store.events(store.study("proxy").id)


@pytest.fixture
def view(qtbot, proxy_project):
    widget = AnnotatorView(proxy_project)
    widget.show_dialogs = False
    qtbot.addWidget(widget)
    widget.show()
    widget.study_box.setCurrentIndex(widget.study_box.findData("proxy"))
    widget.annotator_box.setCurrentText("A")
    qtbot.mouseClick(widget.start_button, Qt.MouseButton.LeftButton)
    return widget


def test_keyboard_answer_is_on_disk_before_the_next_item(qtbot, view, proxy_project):
    assert view.progress_label.text().startswith("Item 1 of 5")
    assert len(view.choice_buttons) == 3
    qtbot.keyClick(view, Qt.Key.Key_2)
    assert view.choice_buttons[1].checked and not view.choice_buttons[0].checked
    with qtbot.waitSignal(view.judgment_recorded):
        qtbot.keyClick(view, Qt.Key.Key_Return)
    events = _events(proxy_project)
    assert [(e.annotator, e.event, e.value) for e in events] == [("A", "answer", 2)]
    assert events[0].duration_ms is not None and len(events[0].options_shown) == 3
    assert view.progress_label.text().startswith("Item 2 of 5")


def test_enter_without_a_choice_records_nothing(qtbot, view, proxy_project):
    qtbot.keyClick(view, Qt.Key.Key_Return)
    qtbot.keyClick(view, Qt.Key.Key_7)  # outside the 1–3 scale: ignored
    qtbot.keyClick(view, Qt.Key.Key_Return)
    assert _events(proxy_project) == []


def test_skip_undo_and_note(qtbot, view, proxy_project):
    qtbot.keyClick(view, Qt.Key.Key_S)
    assert view.index == 1
    qtbot.keyClick(view, Qt.Key.Key_N)
    assert view.note.hasFocus()
    qtbot.keyClicks(view.note, "two look alike")
    qtbot.keyClick(view.note, Qt.Key.Key_Escape)
    qtbot.keyClick(view, Qt.Key.Key_3)
    qtbot.keyClick(view, Qt.Key.Key_Return)
    assert view.index == 2
    qtbot.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert view.index == 1  # back on the item whose answer was taken back
    events = _events(proxy_project)
    assert [e.event for e in events] == ["skip", "answer", "undo"]
    assert events[1].note == "two look alike" and events[2].undoes == events[1].uid
    for _ in range(4):
        qtbot.keyClick(view, Qt.Key.Key_1)
        qtbot.keyClick(view, Qt.Key.Key_Return)
    assert view.index == 0  # the skipped item comes back last
    qtbot.keyClick(view, Qt.Key.Key_1)
    with qtbot.waitSignal(view.queue_finished):
        qtbot.keyClick(view, Qt.Key.Key_Return)
    assert "All done" in view.task.toPlainText()


def test_annotator_view_is_blind_to_others(qtbot, proxy_project):
    other = AnnotationSession.open(proxy_project, "proxy", "B")
    other.answer(0, 3)
    other.close()
    widget = AnnotatorView(proxy_project)
    widget.show_dialogs = False
    qtbot.addWidget(widget)
    widget.start("proxy", "A")
    assert not any(b.checked for b in widget.choice_buttons)
    assert widget.session.done == 0


def test_likert_view_shows_rubric_and_takes_1_to_5(qtbot, likert_project):
    widget = AnnotatorView(likert_project)
    widget.show_dialogs = False
    qtbot.addWidget(widget)
    widget.start("likert", "B")
    assert len(widget.choice_buttons) == 5
    assert "Completely wrong" in widget.choice_buttons[0].text()
    assert "Reference answers" in widget.task.toPlainText()
    qtbot.keyClick(widget, Qt.Key.Key_5)
    qtbot.keyClick(widget, Qt.Key.Key_Return)
    assert widget.session.done == 1


def test_dashboard_refreshes_after_each_judgment(qtbot, view, proxy_project):
    for name, value in (("B", 1), ("C", 1)):
        s = AnnotationSession.open(proxy_project, "proxy", name)
        for i in range(5):
            s.answer(i, value if i else 2)
        s.close()
    panel = AgreementPanel(proxy_project, "proxy", poll=False)
    qtbot.addWidget(panel)
    qtbot.waitUntil(lambda: panel.numbers is not None, timeout=20000)
    assert panel.numbers["summary"].items == 5
    view.judgment_recorded.connect(lambda _uid: panel.refresh())
    with qtbot.waitSignal(panel.refreshed, timeout=20000):
        qtbot.keyClick(view, Qt.Key.Key_1)
        qtbot.keyClick(view, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: panel.numbers["events"] == 11, timeout=20000)
    s = panel.numbers["summary"]
    assert set(s.cohen_kappa) == {"A|B", "A|C", "B|C"}
    assert panel.table.rowCount() >= 4 + 1 + 3 + 3
    assert panel.pairs.rowCount() == 3
    assert panel.table.item(0, 1).text() != ""


def test_study_dialog_creates_and_assigns_in_the_background(qtbot, tmp_path):
    from litlens.gui.study_dialog import StudyDialog
    from litlens.services.studies import list_studies, study_status
    from tests.studies.conftest import ANSWERS, LQA_MINI

    project = tmp_path / "d.litlens"
    dialog = StudyDialog(project)
    qtbot.addWidget(dialog)
    dialog.literaryqa.setText(str(LQA_MINI))
    dialog.answers.setText(str(ANSWERS))
    dialog.likert_name.setText("lk")
    with qtbot.waitSignal(dialog.study_changed, timeout=30000):
        dialog._on_create_likert_clicked()
    assert [s["name"] for s in list_studies(project)] == ["lk"]
    assert dialog.assign_study.count() == 1
    dialog.annotators.setText("A,B,C")
    dialog.overlap.setValue(2)
    with qtbot.waitSignal(dialog.study_changed, timeout=30000):
        dialog._on_assign_clicked()
    assert {a: v["assigned"] for a, v in study_status(project, "lk")["annotators"].items()} == {"A": 16, "B": 16, "C": 16}
    # a mistake is shown in the dialog, nothing is stored
    dialog.answers.setText(str(tmp_path / "missing.csv"))
    dialog.likert_name.setText("broken")
    with qtbot.waitSignal(dialog.runner.failed, timeout=30000):
        dialog._on_create_likert_clicked()
    assert "missing.csv" in dialog.message.text()
    assert [s["name"] for s in list_studies(project)] == ["lk"]


def test_main_window_has_a_studies_menu(qtbot):
    from litlens.gui.main_window import MainWindow

    window = MainWindow()
    qtbot.addWidget(window)
    titles = [a.text() for a in window.menuBar().actions()]
    assert "&Studies" in titles
    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Studies")
    assert [a.text() for a in menu.actions()] == ["&New study or assign annotators…", "&Annotate…",
                                                  "Agreement &dashboard…"]


def test_dashboard_shows_numbers_first_then_confidence_intervals(qtbot, proxy_project):
    for name in "ABC":
        s = AnnotationSession.open(proxy_project, "proxy", name)
        for i in range(5):
            s.answer(i, 1 + (i + (name == "C")) % 3)
        s.close()
    panel = AgreementPanel(proxy_project, "proxy", poll=False)
    qtbot.addWidget(panel)
    with qtbot.waitSignal(panel.ci_refreshed, timeout=30000):
        pass
    assert panel.numbers["with_ci"]
    assert panel.table.item(0, 2).text().startswith("[")
    assert "CIs updating" not in panel.status.text()


def test_dashboard_poll_picks_up_judgments_written_elsewhere(qtbot, proxy_project):
    panel = AgreementPanel(proxy_project, "proxy", poll=False)
    qtbot.addWidget(panel)
    qtbot.waitUntil(lambda: panel.numbers is not None and not panel._busy, timeout=30000)
    assert panel.numbers["events"] == 0
    other = AnnotationSession.open(proxy_project, "proxy", "C")  # its own connection, as another process has
    other.answer(0, 2)
    other.close()
    with qtbot.waitSignal(panel.refreshed, timeout=30000):
        panel.refresh(poll=True)
    assert panel.numbers["events"] == 1
    qtbot.waitUntil(lambda: not panel._busy, timeout=30000)
    with qtbot.assertNotEmitted(panel.refreshed, wait=300):
        panel.refresh(poll=True)  # nothing new: no recompute


def test_study_dialog_says_which_proxy_items_were_skipped(qtbot, tmp_path):
    from litlens.gui.study_dialog import StudyDialog
    from tests.studies.test_proxy_items import write_beir

    gold = "Elizabeth walked alone across the fields to Netherfield on a wet morning in autumn."
    corpus = {"g": gold, "c1": "As we read: " + gold, "c2": gold + " She arrived.", "ok": "Jane stayed in bed."}
    folder = write_beir(tmp_path / "beir", {"q2": "Her walk shows her spirit: [masked sentence(s)]",
                                             "q1": "Jane is ill: [masked sentence(s)]"},
                        corpus | {"g1": "Jane had a cold and kept to her room at Netherfield for days.",
                                  "d1": "Mr. Bingley was all anxiety.", "d2": "The apothecary came."},
                        [("q2", "g", 1), ("q2", "c1", 0), ("q2", "c2", 0), ("q2", "ok", 0),
                         ("q1", "g1", 1), ("q1", "d1", 0), ("q1", "d2", 0)])
    dialog = StudyDialog(tmp_path / "p.litlens")
    qtbot.addWidget(dialog)
    dialog.beir.setText(str(folder))
    dialog.proxy_name.setText("p")
    with qtbot.waitSignal(dialog.study_changed, timeout=60000):
        dialog._on_create_proxy_clicked()
    assert "1 skipped" in dialog.message.text() and "q2" in dialog.message.text()
