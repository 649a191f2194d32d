"""The renaming benchmark never writes into the corpus it copies (benchmarks/names_robustness.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import names_robustness  # noqa: E402


def _novel(root: Path, name: str, text: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "novel_text.txt").write_text(text, encoding="utf-8")
    (folder / "character_info.csv").write_text("Character ID,Main Name,Aliases,Gender,Category\n"
                                               "0,Mr. Darcy,\"['Mr. Darcy', 'Darcy']\",M,major\n", encoding="utf-8")
    return folder


def test_a_novel_renamed_after_an_earlier_run_linked_it_is_copied_not_renamed_in_place(tmp_path, monkeypatch):
    pdnc, work = tmp_path / "pdnc", tmp_path / "work"
    source = _novel(pdnc, "Austen", '"Yes," said Mr. Darcy.\n')
    _novel(pdnc, "Other", '"No," said Mr. Bingley.\n')
    monkeypatch.setattr(names_robustness, "RENAMES", {"Other": {"Bingley": "Fox-Ash"}})
    corpus = names_robustness.renamed_corpus(pdnc, work)
    assert (corpus / "Austen").is_symlink()
    monkeypatch.setattr(names_robustness, "RENAMES", {"Austen": {"Darcy": "Young"}})
    corpus = names_robustness.renamed_corpus(pdnc, work)
    assert (source / "novel_text.txt").read_text(encoding="utf-8") == '"Yes," said Mr. Darcy.\n'
    assert "Mr. Darcy" in (source / "character_info.csv").read_text(encoding="utf-8")
    assert not (corpus / "Austen").is_symlink()
    assert (corpus / "Austen" / "novel_text.txt").read_text(encoding="utf-8") == '"Yes," said Mr. Young.\n'
    assert "'Young'" in (corpus / "Austen" / "character_info.csv").read_text(encoding="utf-8")
    # a novel no longer renamed goes back to a link to the original
    assert (corpus / "Other").is_symlink()


def test_renaming_keeps_lengths_and_whole_words():
    assert names_robustness.rename("Darcy and Darcys", {"Darcy": "Young"}) == "Young and Darcys"
    with pytest.raises(AssertionError):
        names_robustness.rename("Darcy", {"Darcy": "Yo"})


def test_the_whole_cast_gets_invented_names_of_the_same_length_and_words_keep_their_sense(tmp_path):
    pdnc = tmp_path / "pdnc"
    folder = pdnc / "Austen"
    folder.mkdir(parents=True)
    text = ('"Yes," said Mr. Darcy to Lizzy Bennet. Rose Maylie rose. "No," said the Jew. '
            'Fagin laughed; the Jew was Fagin. Elizabeth Bennet smiled. Mr. Thursday came.\n')
    (folder / "novel_text.txt").write_text(text, encoding="utf-8")
    (folder / "character_info.csv").write_text(
        "Character ID,Main Name,Aliases,Gender,Category\n"
        "0,Mr. Darcy,\"{'Mr. Darcy', 'Darcy', 'Fitzwilliam Darcy'}\",M,major\n"
        "1,Elizabeth Bennet,\"{'Lizzy', 'Elizabeth', 'Miss Bennet'}\",F,major\n"
        "2,Rose Maylie,\"{'Rose', 'Miss Maylie'}\",F,major\n"
        "3,Fagin,\"{'Fagin', 'The Jew'}\",M,major\n"
        "4,Mr. Thursday,\"{'Mr. Thursday'}\",M,minor\n", encoding="utf-8")
    plan = names_robustness.whole_cast_renames(pdnc)["Austen"]
    assert set(plan) == {"Darcy", "Bennet", "Maylie", "Fagin"}  # "Fitzwilliam" is never written
    assert all(len(new) == len(old) and new.lower() not in text.lower() for old, new in plan.items())
    assert len(set(plan.values())) == len(plan)
    # "Rose" is also a verb, "Lizzy" a diminutive of "Elizabeth", "the Jew" a description,
    # "Mr" a title and "Thursday" a day: all kept
    assert plan == names_robustness.whole_cast_renames(pdnc)["Austen"]  # the same every run
    renamed = names_robustness.rename(text, plan)
    assert "Rose " + plan["Maylie"] in renamed and "the Jew" in renamed and "Lizzy" in renamed
