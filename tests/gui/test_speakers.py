"""Speakers: attribute in the background (progress, cancel), review by keyboard, per-character view."""

from __future__ import annotations

import shutil

from PySide6.QtCore import Qt

from litlens.gui.speakers import AttributeDialog, ask_and_attribute


def _open(window, qtbot, project):
    with qtbot.waitSignal(window.book_opened, timeout=10000):
        window.open_path(project)
    window.docks["speakers"].raise_()  # the review list fills when its tab is chosen
    qtbot.waitUntil(lambda: not window.speakers.when_shown.pending)


def _attribute(window, qtbot):
    with qtbot.waitSignal(window.runner.finished, timeout=180000):
        assert ask_and_attribute(window, {"method": "cpu"})


def test_attribute_dialog_enables_llm_fields_only_for_llm(qtbot):
    dialog = AttributeDialog(settings={"method": "cpu"})
    qtbot.addWidget(dialog)
    assert not dialog.model_edit.isEnabled()
    dialog.method_box.setCurrentIndex(dialog.method_box.findData("llm"))
    assert dialog.model_edit.isEnabled() and not dialog.url_edit.isEnabled()
    dialog.backend_box.setCurrentIndex(dialog.backend_box.findData("openai"))
    dialog.url_edit.setText("http://127.0.0.1:9/v1")
    assert dialog.settings() == {"method": "llm", "backend": "openai", "model": None,
                                 "base_url": "http://127.0.0.1:9/v1", "api_key_env": None}


def test_speakers_attribute_review_and_correct_by_keyboard(window, qtbot, detected_project, tmp_path):
    project = tmp_path / "pp.litlens"
    shutil.copy(detected_project, project)
    _open(window, qtbot, project)
    panel = window.speakers
    assert panel.summary.text() == "not attributed yet"
    _attribute(window, qtbot)
    assert all(row.quotation.speaker for row in window.state.session.quotes)
    confs = [i.confidence for i in panel.items if i.method]
    assert confs and confs == sorted(confs)
    # Keyboard: select the least certain quotation, press 1 -> the first listed speaker, as a human edit.
    panel.table.setFocus()
    panel.table.selectRow(0)
    target = panel.items[0].quotation_id
    first = panel.quick[0]
    qtbot.keyClick(panel.table, Qt.Key.Key_1)
    corrected = window.state.session.quote(target).quotation
    assert corrected.speaker == first and corrected.edited
    assert panel.items[-1].quotation_id == target  # corrected ones go to the end of the review list
    assert window.state.session.history()[-1].kind == "quote-speaker"
    # A second attribution keeps the correction.
    _attribute(window, qtbot)
    assert window.state.session.quote(target).quotation.speaker == first
    # Per-character view lists exactly that character's quotations.
    panel.character_box.setCurrentIndex(panel.character_box.findData(first))
    expected = sum(1 for row in window.state.session.quotes if row.quotation.speaker == first)
    assert panel.character_quotes.count() == expected > 0
    # Colour by speaker tints the reader.
    panel.colour_box.setChecked(True)
    assert window.reader.view.speaker_colours and first in window.reader.view.speaker_colours


def test_speakers_cancel_leaves_nothing_half_done(window, qtbot, detected_project, tmp_path):
    project = tmp_path / "pp.litlens"
    shutil.copy(detected_project, project)
    _open(window, qtbot, project)
    with qtbot.waitSignal(window.runner.cancelled, timeout=60000):
        ask_and_attribute(window, {"method": "cpu"})
        window.cancel_button.click()
    window.state.session.reload()
    assert all(row.quotation.speaker is None for row in window.state.session.quotes)


def test_speakers_attribute_without_a_book_says_so(window, qtbot):
    with qtbot.waitSignal(window.error_shown, timeout=5000) as shown:
        ask_and_attribute(window, {"method": "cpu"})
    assert "Open a book" in shown.args[0]


def test_speakers_review_list_marks_hand_corrections_apart_from_gold(window, qtbot, fresh_gold):
    _open(window, qtbot, fresh_gold)
    panel = window.speakers
    row = window.state.session.quotes[12]
    window.state.edit("set_quote_speaker", row.id, "Jane" if row.quotation.speaker != "Jane" else "Elizabeth")
    labels = {item.quotation_id: panel.model.index(r, 0).data() for r, item in enumerate(panel.items)}
    assert labels[row.id] == "✎ corrected"
    assert labels[window.state.session.quotes[13].id] == "gold"
