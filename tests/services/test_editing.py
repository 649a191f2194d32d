"""Human corrections through the services: persisted at once, undoable across reopen, kept on re-analysis."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from litlens.services import editing
from litlens.services.books import ingest_file, list_characters, list_quotations, reanalyse_book
from litlens.store.project import open_project

NOVEL = """CHAPTER I.

"Good morning, Mr. Darcy," said Elizabeth Bennet. "Is it not a fine day?"

"It is," said Mr. Darcy. He looked at Lizzy for a while.

"I think it will rain," said Lizzy.

Darcy said nothing. Elizabeth walked to the window, and Mr. Darcy followed her.

CHAPTER II.

"Where is Jane?" asked Mrs. Bennet.

"She is in the garden," Elizabeth replied.

"Then call her in," said Mrs. Bennet, and Elizabeth went out to fetch Jane Bennet.
"""


@pytest.fixture(scope="module")
def ingested(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("editing")
    novel = folder / "novel.txt"
    novel.write_text(NOVEL, encoding="utf-8")
    project = folder / "novel.litlens"
    ingest_file(project, novel)
    return project


@pytest.fixture
def project(ingested, tmp_path) -> Path:
    copy = tmp_path / "novel.litlens"
    shutil.copy(ingested, copy)
    return copy


def _characters(project: Path) -> dict[str, dict]:
    return {c["name"]: c for c in list_characters(project)}


def _id_of(project: Path, name: str) -> int:
    return int(_characters(project)[name]["id"])


def _with_lizzy_split_off(project: Path) -> None:
    """Make 'Lizzy' a character of its own, so there is something to merge back."""
    elizabeth = next(c for c in list_characters(project) if "Lizzy" in c["aliases"])
    with open_project(project) as p:
        editing.split_alias(p, 1, int(elizabeth["id"]), "Lizzy")


def test_merge_moves_aliases_and_speech_and_undo_restores_after_reopen(project):
    _with_lizzy_split_off(project)
    quotes = list_quotations(project)
    lizzy_quote = next(q for q in quotes if q["referring_expression"] == "said Lizzy")
    with open_project(project) as p:
        editing.set_quotation_speaker(p, int(lizzy_quote["id"]), "Lizzy")
    before = _characters(project)
    target = next(name for name in before if "Elizabeth" in name)
    assert before["Lizzy"]["quotations"] == 1

    with open_project(project) as p:
        editing.merge_characters(p, 1, _id_of(project, "Lizzy"), _id_of(project, target))
    merged = _characters(project)
    assert "Lizzy" not in merged and "Lizzy" in merged[target]["aliases"]
    assert merged[target]["quotations"] == before[target]["quotations"] + 1
    assert next(q for q in list_quotations(project) if q["id"] == lizzy_quote["id"])["speaker"] == target

    # A new process: the undo log lives in the project file.
    with open_project(project) as p:
        undone = editing.undo(p, 1)
    assert undone is not None and undone.kind == "merge"
    restored = _characters(project)
    assert restored["Lizzy"]["quotations"] == 1 and "Lizzy" not in restored[target]["aliases"]
    assert restored[target]["quotations"] == before[target]["quotations"]

    with open_project(project) as p:
        redone = editing.redo(p, 1)
    assert redone is not None and "Lizzy" not in _characters(project)


def test_rename_and_gender_are_undoable_and_follow_into_speakers(project):
    darcy = next(c for c in list_characters(project) if "Darcy" in c["name"])
    quote = next(q for q in list_quotations(project) if q["referring_expression"] == "said Mr. Darcy")
    with open_project(project) as p:
        editing.set_quotation_speaker(p, int(quote["id"]), darcy["name"])
        editing.rename_character(p, 1, int(darcy["id"]), "Fitzwilliam Darcy")
        editing.set_gender(p, 1, int(darcy["id"]), "male")
    renamed = _characters(project)["Fitzwilliam Darcy"]
    assert darcy["name"] in renamed["aliases"] and renamed["quotations"] == 1
    assert next(q for q in list_quotations(project) if q["id"] == quote["id"])["speaker"] == "Fitzwilliam Darcy"
    with open_project(project) as p:
        assert editing.undo(p, 1).kind == "gender"
        assert editing.undo(p, 1).kind == "rename"
    assert darcy["name"] in _characters(project)
    assert next(q for q in list_quotations(project) if q["id"] == quote["id"])["speaker"] == darcy["name"]


@pytest.mark.parametrize(
    "action, message",
    [
        (lambda p, ids: editing.merge_characters(p, 1, ids[0], ids[0]), "two different"),
        (lambda p, ids: editing.rename_character(p, 1, ids[0], "   "), "cannot be empty"),
        (lambda p, ids: editing.rename_character(p, 1, ids[0], p.characters(1)[1][1].name), "merge them instead"),
        (lambda p, ids: editing.set_gender(p, 1, ids[0], "robot"), "gender must be one of"),
        (lambda p, ids: editing.set_quotation_type(p, 1, "shouted"), "type must be one of"),
        (lambda p, ids: editing.set_quotation_speaker(p, 1, "Nobody At All"), "not a character"),
        (lambda p, ids: editing.split_alias(p, 1, ids[0], "Not An Alias"), "is not an alias"),
        (lambda p, ids: editing.add_quotation(p, 1, 5, 2), "outside"),
    ],
)
def test_impossible_edits_are_refused_with_a_reason_and_change_nothing(project, action, message):
    before = (list_characters(project), list_quotations(project))
    with open_project(project) as p:
        ids = [cid for cid, _ in p.characters(1)]
        with pytest.raises(editing.EditError, match=message):
            action(p, ids)
        assert editing.undo(p, 1) is None
    assert (list_characters(project), list_quotations(project)) == before


def test_corrections_survive_reanalysis_and_the_rest_is_redetected(project):
    quotes = list_quotations(project)
    retyped, deleted = quotes[0], quotes[1]
    text = NOVEL
    missed_start = text.index("Darcy said nothing")
    missed_end = missed_start + len("Darcy said nothing.")
    with open_project(project) as p:
        editing.set_quotation_type(p, int(retyped["id"]), "implicit")
        editing.reject_quotation(p, int(deleted["id"]))
        editing.add_quotation(p, 1, missed_start, missed_end)

    book = reanalyse_book(project)
    after = list_quotations(project)
    assert book.quotations == len(after) == len(quotes)  # one deleted, one added
    by_span = {tuple(map(tuple, q["spans"])): q for q in after}
    assert by_span[tuple(map(tuple, retyped["spans"]))]["type"] == "implicit"
    assert tuple(map(tuple, deleted["spans"])) not in by_span
    assert ((missed_start, missed_end),) in by_span
    # Untouched quotations come back from the detector unchanged.
    assert all(by_span[tuple(map(tuple, q["spans"]))]["type"] == q["type"] for q in quotes[2:])
    # Edits before a re-analysis stay in force but can no longer be undone.
    with open_project(project) as p:
        assert editing.undo(p, 1) is None


def test_reanalysis_keeps_an_edited_character_list(project):
    _with_lizzy_split_off(project)
    reanalyse_book(project)
    assert "Lizzy" in _characters(project)


def test_cancelled_reanalysis_leaves_the_project_as_it_was(project):
    from litlens.errors import Cancelled

    with open_project(project) as p:
        editing.set_quotation_type(p, int(list_quotations(project)[0]["id"]), "implicit")
    before = (list_characters(project), list_quotations(project))
    with pytest.raises(Cancelled):
        reanalyse_book(project, cancelled=lambda: True)
    assert (list_characters(project), list_quotations(project)) == before
    with open_project(project) as p:
        assert editing.undo(p, 1).kind == "quote-type"


def test_reanalysis_refuses_a_book_with_gold_quotations(tmp_path):
    from litlens.errors import LitLensError
    from litlens.services.books import import_pdnc

    from ..conftest import SAMPLE_PDNC

    project = tmp_path / "gold.litlens"
    import_pdnc(project, SAMPLE_PDNC)
    with pytest.raises(LitLensError, match="gold"):
        reanalyse_book(project)
    assert len(list_quotations(project)) == 1270


def test_an_edit_survives_the_process_being_killed_right_after(project):
    import subprocess
    import sys

    quote_id = int(list_quotations(project)[0]["id"])
    code = (
        "import os, signal, sys\n"
        "from litlens.services import editing\n"
        "from litlens.store.project import open_project\n"
        "p = open_project(sys.argv[1])\n"
        "editing.set_quotation_type(p, int(sys.argv[2]), 'implicit')\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    run = subprocess.run([sys.executable, "-c", code, str(project), str(quote_id)], capture_output=True, timeout=60)
    assert run.returncode == -9
    stored = next(q for q in list_quotations(project) if int(q["id"]) == quote_id)
    assert stored["type"] == "implicit"
    with open_project(project) as p:
        assert editing.undo(p, 1).kind == "quote-type"


def test_a_name_split_off_by_hand_is_suggested_back_and_not_after_the_merge(project):
    from litlens.services.books import merge_suggestions

    _with_lizzy_split_off(project)
    seen = []
    suggestions = merge_suggestions(project, progress=lambda f, m: seen.append(f))
    assert seen and seen[-1] == 1.0
    lizzy = [s for s in suggestions if s["fold"] == "Lizzy"]
    assert len(lizzy) == 1
    assert "Elizabeth" in lizzy[0]["keep"] and lizzy[0]["reason"] == "names" and lizzy[0]["probability"] == 1.0
    assert lizzy[0]["fold_id"] == str(_id_of(project, "Lizzy")) and lizzy[0]["keep_id"] == str(_id_of(project, lizzy[0]["keep"]))
    assert suggestions[0] == lizzy[0]  # the rules' suggestions come first
    with open_project(project) as p:
        editing.merge_characters(p, 1, int(lizzy[0]["fold_id"]), int(lizzy[0]["keep_id"]))
    assert not [s for s in merge_suggestions(project) if "Lizzy" in (s["fold"], s["keep"])]


def test_suggested_merges_are_cancellable_and_read_only(project):
    from litlens.errors import Cancelled
    from litlens.services.books import merge_suggestions

    _with_lizzy_split_off(project)
    before = project.read_bytes()
    with pytest.raises(Cancelled):
        merge_suggestions(project, cancelled=lambda: True)
    merge_suggestions(project)
    assert project.read_bytes() == before
