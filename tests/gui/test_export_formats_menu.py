"""File ▸ Export ▸ TEI and PDNC write what `litlens export tei|pdnc` writes (issue 40 item 3)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog

from litlens.export.tei import body_text
from litlens.quotes.pdnc import read_pdnc_quotations


def _open(window, qtbot, project: Path) -> None:
    with qtbot.waitSignal(window.book_opened, timeout=10000):
        assert window.open_project(project)


def test_export_formats_menu_writes_tei(window, qtbot, monkeypatch, gold_project, tmp_path):
    _open(window, qtbot, gold_project)
    out = tmp_path / "pp"  # no suffix: the dialog's .xml is added
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(out), "")))
    with qtbot.waitSignal(window.exporter.done, timeout=60000) as done:
        window.export_actions["tei-xml"].trigger()
    assert done.args == ["tei-xml", str(out) + ".xml", 1270]
    xml = Path(str(out) + ".xml").read_bytes()
    assert xml.count(b"<said ") == 1708
    assert "".join(body_text(xml).split()) == "".join(window.state.session.text.split())
    assert "Exported 1,270 quotations" in window.statusBar().currentMessage()


def test_export_formats_menu_writes_pdnc_folder(window, qtbot, monkeypatch, gold_project, tmp_path):
    _open(window, qtbot, gold_project)
    folder = tmp_path / "PrideAndPrejudice"
    folder.mkdir()
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: str(folder)))
    with qtbot.waitSignal(window.exporter.done, timeout=60000) as done:
        window.export_actions["pdnc-folder"].trigger()
    assert done.args == ["pdnc-folder", str(folder), 1270]
    assert len(read_pdnc_quotations(folder / "quotation_info.csv")) == 1270
    assert (folder / "novel_text.txt").read_text(encoding="utf-8") == window.state.session.text


def test_export_formats_menu_cancelled_folder_writes_nothing(window, qtbot, monkeypatch, gold_project):
    _open(window, qtbot, gold_project)
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: ""))
    from litlens.gui.export_menu import ask_and_export

    assert ask_and_export(window, "pdnc-folder") is False
