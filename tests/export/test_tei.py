"""TEI P5 export: valid against tei_all, the whole text kept, one ``said`` per sub-quotation."""

from __future__ import annotations

import re

import pytest
from lxml import etree

from litlens.cli import main
from litlens.errors import InputFileError
from litlens.export.tei import TEI_NS, XML_ID, IdMaker, body_text, xml_safe_text
from litlens.model import Character, Quotation
from litlens.services.export_formats import export_tei
from litlens.store.project import open_project
from tests.conftest import require_shared
from tests.export.conftest import TEXT, make_project

NS = {"t": TEI_NS}
NCNAME = re.compile(r"^[A-Za-z_][A-Za-z0-9._-]*$")


def _squash(s: str) -> str:
    return "".join(s.split())


def _export(project, tmp_path, name="book.xml"):
    out = tmp_path / name
    summary = export_tei(project, out)
    return summary, out.read_bytes(), etree.parse(str(out))


def test_tei_export_valid_whole_text_and_linked_said(tmp_path, tei_schema):
    summary, xml, doc = _export(make_project(tmp_path / "p.litlens"), tmp_path)
    assert tei_schema.validate(doc), tei_schema.error_log
    assert body_text(xml) == TEXT  # exactly, not only whitespace aside
    saids = doc.findall(".//t:said", NS)
    assert [s.text for s in saids] == ["Who is there?", "Is it you,\nTom?", "It is I,"]
    assert summary.quotations == 2 and summary.saids == 3
    first, second, third = saids
    assert first.get("next") == "#" + second.get(XML_ID) and second.get("prev") == "#" + first.get(XML_ID)
    assert third.get("next") is None and third.get("prev") is None
    assert first.get("ana") == "#explicit" and third.get("ana") == "#anaphoric"
    assert first.get("cert") == "high" and third.get("cert") == "low"
    assert {s.get("direct") for s in saids} == {"true"} and {s.get("aloud") for s in saids} == {"true"}
    persons = {p.get(XML_ID): p for p in doc.findall(".//t:particDesc/t:listPerson/t:person", NS)}
    anne = persons[first.get("who")[1:]]
    assert [n.text for n in anne.findall("t:persName", NS)] == ["Anne", "Miss Anne Shirley"]
    assert anne.get("sex") == "F"
    assert persons[first.get("toWhom")[1:]].find("t:persName", NS).text == "Tom"
    assert persons[third.get("who")[1:]].find("t:persName", NS).text == "Dr. O'Neil (the 2nd)"
    heads = [h.text for h in doc.findall(".//t:body/t:div/t:head", NS)]
    assert heads == ["CHAPTER I.", "CHAPTER II."]
    header = doc.find("t:teiHeader", NS)
    assert header.findtext(".//t:titleStmt/t:title", namespaces=NS) == "Anne"
    assert header.findtext(".//t:titleStmt/t:author", namespaces=NS) == "A. Writer"
    assert header.findtext(".//t:sourceDesc//t:idno", namespaces=NS) == "/books/anne.txt"
    assert [c.get(XML_ID) for c in header.findall(".//t:taxonomy/t:category", NS)] == ["explicit", "anaphoric", "implicit"]
    assert header.find(".//t:appInfo/t:application", NS).get("ident") == "LitLens"


def test_tei_ids_are_valid_and_unique_for_any_name(tmp_path, tei_schema):
    _, _, doc = _export(make_project(tmp_path / "p.litlens"), tmp_path)
    ids = [el.get(XML_ID) for el in doc.iter() if el.get(XML_ID) is not None]
    assert len(ids) == len(set(ids))
    assert all(NCNAME.match(i) for i in ids), ids
    names = {p.findtext("t:persName", namespaces=NS): p.get(XML_ID) for p in doc.iterfind(".//t:person", NS)}
    assert names["2 Tom"] == "person_2_Tom"
    assert names["explicit"] != "explicit"  # the category keeps its id
    assert tei_schema.validate(doc), tei_schema.error_log


def test_tei_book_without_quotations_is_valid_and_has_no_said(tmp_path, tei_schema):
    project = make_project(tmp_path / "p.litlens", quotations=[], characters=[])
    summary, xml, doc = _export(project, tmp_path)
    assert tei_schema.validate(doc), tei_schema.error_log
    assert doc.findall(".//t:said", NS) == [] and summary.saids == 0
    assert doc.find(".//t:particDesc", NS) is None
    assert body_text(xml) == TEXT


def test_tei_sub_quotation_across_a_paragraph_break_is_cut_and_linked(tmp_path, tei_schema):
    start = TEXT.index("Tom?")
    end = TEXT.index("Nobody") + len("Nobody answered")
    quote = Quotation(spans=[(start, end)], type="implicit", speaker="Tom")
    project = make_project(tmp_path / "p.litlens", quotations=[quote], characters=[Character("Tom", ["Tom"])])
    summary, xml, doc = _export(project, tmp_path)
    assert tei_schema.validate(doc), tei_schema.error_log
    saids = doc.findall(".//t:said", NS)
    assert len(saids) == 2 and saids[0].get("next") == "#" + saids[1].get(XML_ID)
    assert any("paragraph break" in note for note in summary.notes)
    assert body_text(xml) == TEXT
    assert saids[0].get("cert") == "high"  # no confidence recorded: gold or a person's choice


def test_tei_overlapping_quotations_nest_or_are_cut(tmp_path, tei_schema):
    outer = Quotation(spans=[(TEXT.index("Who"), TEXT.index("Tom?") + 4)], type="implicit")
    inner = Quotation(spans=[(TEXT.index("there?"), TEXT.index("there?") + 6)], type="implicit")
    crossing = Quotation(spans=[(TEXT.index("you,"), TEXT.index("Tom?\u201d") + 6)], type="implicit")
    project = make_project(tmp_path / "p.litlens", quotations=[outer, inner, crossing], characters=[])
    _, xml, doc = _export(project, tmp_path)
    assert tei_schema.validate(doc), tei_schema.error_log
    assert body_text(xml) == TEXT
    top = doc.find(".//t:p/t:said", NS)
    assert top.find("t:said", NS).text == "there?"


def test_tei_control_characters_become_replacement_characters():
    assert xml_safe_text("a\x0bb\x00c\td\n") == "a\ufffdb\ufffdc\td\n"


def test_tei_id_maker_is_unique_and_ncname():
    ids = IdMaker(reserved=["explicit"])
    made = [ids.make(n) for n in ["Élise", "Élise", "explicit", "3rd man", "", "-.", "Mr. Smith"]]
    assert made[:3] == ["Elise", "Elise-2", "explicit-2"]
    assert len(set(made)) == len(made) and all(NCNAME.match(m) for m in made)


# /proc refuses new files even to root, so a folder without write permission is tested as root too.
@pytest.mark.parametrize("target", ["missing-folder/out.xml", "a-file/out.xml", ".", "/proc/litlens-export.xml"])
def test_tei_unwritable_output_is_one_line(tmp_path, capsys, target, monkeypatch):
    project = make_project(tmp_path / "p.litlens")
    (tmp_path / "a-file").write_text("x", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["export", "tei", "-p", str(project), "-o", target]) == 2
    err = capsys.readouterr().err
    assert err.startswith("litlens: error:") and err.count("\n") == 1
    with pytest.raises(InputFileError):
        export_tei(project, tmp_path / target)


def test_tei_cli_writes_the_file(tmp_path, capsys):
    project = make_project(tmp_path / "p.litlens")
    out = tmp_path / "anne.xml"
    assert main(["export", "tei", "-p", str(project), "-o", str(out)]) == 0
    assert "2 quotations as 3 <said>" in capsys.readouterr().out
    assert etree.parse(str(out)).getroot().tag == f"{{{TEI_NS}}}TEI"


def _check_book(project, tmp_path, tei_schema):
    import time

    _, xml, doc = _export(project, tmp_path)
    start = time.perf_counter()
    assert tei_schema.validate(doc), tei_schema.error_log
    seconds = time.perf_counter() - start
    with open_project(project, readonly=True) as p:
        text = p.text(1)
        spans = sum(len(q.spans) for _, q in p.quotations(1))
    assert _squash(body_text(xml)) == _squash(text)
    assert len(doc.findall(".//t:said", NS)) == spans
    return seconds


def test_tei_shipped_pride_and_prejudice_validates(pp_project, tmp_path, tei_schema):
    seconds = _check_book(pp_project, tmp_path, tei_schema)
    assert seconds < 60


@pytest.mark.parametrize("novel", ["DaisyMiller", "TheSignOfTheFour"])
def test_tei_real_pdnc_novels_validate(novel, tmp_path, tei_schema):
    from litlens.services.books import import_pdnc

    pdnc = require_shared()
    project = tmp_path / "n.litlens"
    import_pdnc(project, pdnc / novel)
    _check_book(project, tmp_path, tei_schema)
