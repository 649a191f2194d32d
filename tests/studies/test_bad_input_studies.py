"""Study and agreement inputs that used to end in tracebacks or blame the wrong thing (issue 43)."""

from __future__ import annotations

import csv
import hashlib
import shutil

import pytest

from litlens.cli import main
from litlens.services.studies import AnnotationSession, export_study
from litlens.services.study_merge import merge
from litlens.store.project import open_project
from litlens.store.studies import StudyStore, effective_judgments
from tests.studies.conftest import ANSWERS, BEIR_MINI, LQA_MINI


def _one_error(capsys) -> str:
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("litlens: error: ") and "Traceback" not in err, err
    return lines[0]


def _answer_all(project, annotator, value):
    session = AnnotationSession.open(project, "proxy", annotator)
    for i in range(len(session.queue)):
        session.answer(i, value)
    session.close()


def _events(project) -> int:
    with open_project(project, readonly=True) as p:
        store = StudyStore(p)
        return len(store.events(store.study("proxy").id))


def test_agreement_reads_a_cp1252_judgments_csv(tmp_path, capsys):
    path = tmp_path / "j.csv"
    path.write_bytes("item_id,annotator,label\n1,Zo\u00eb,a\n1,Ren\u00e9e,a\n2,Zo\u00eb,b\n2,Ren\u00e9e,a\n".encode("cp1252"))
    assert main(["agreement", "--judgments", str(path), "--json"]) == 0
    assert '"annotators": 2' in capsys.readouterr().out


@pytest.mark.parametrize("argv, expected", [
    (["agreement", "--judgments", "{j}", "--scale", "5-1"], "write 1-5"),
    (["agreement", "--judgments", "{j}", "--bootstrap", "-5"], "--bootstrap -5"),
    (["study", "create-likert", "-p", "{p}", "--literaryqa", "{empty}", "--answers", str(ANSWERS)],
     "{empty}: the LiteraryQA file is empty"),
    (["qa-metrics", "--literaryqa", "{blank}", "--answers", str(ANSWERS)], "{blank}: no LiteraryQA questions"),
    (["study", "create-proxy", "-p", "{p}", "--beir", "{beir}"], "corpus.jsonl:1: not a BEIR record"),
    (["qa-metrics", "--literaryqa", "{array}", "--answers", str(ANSWERS)], "{array}:1: not a LiteraryQA book record"),
])
def test_study_commands_blame_the_right_thing_in_one_line(argv, expected, tmp_path, capsys):
    judgments = tmp_path / "j.csv"
    judgments.write_text("item_id,annotator,label\n1,A,3\n1,B,4\n2,A,5\n2,B,5\n", encoding="utf-8")
    empty, blank, array = tmp_path / "empty.jsonl", tmp_path / "no_questions.jsonl", tmp_path / "array.jsonl"
    empty.write_bytes(b"")
    blank.write_text('{"gutenberg_id": "1", "title": "No questions", "qas": []}\n', encoding="utf-8")
    array.write_text('[{"gutenberg_id": "1", "qas": []}]\n', encoding="utf-8")
    beir = tmp_path / "beir"
    shutil.copytree(BEIR_MINI, beir)
    (beir / "corpus.jsonl").write_text('[{"_id": "c1", "text": "x"}]\n', encoding="utf-8")
    names = {"j": judgments, "p": tmp_path / "s.litlens", "empty": empty, "blank": blank, "beir": beir, "array": array}
    assert main([a.format(**names) for a in argv]) != 0
    line = _one_error(capsys)
    assert expected.format(**names) in line  # the LiteraryQA file is named, not the answers file
    assert str(ANSWERS) not in line


def test_merge_is_all_or_nothing(proxy_project, tmp_path, capsys):
    lead = tmp_path / "lead.litlens"
    shutil.copy(proxy_project, lead)
    _answer_all(proxy_project, "A", 1)
    out = tmp_path / "a.csv"
    export_study(proxy_project, "proxy", out, n_boot=0)
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    rows[-1]["duration_ms"] = "five seconds"  # a bad cell after good rows
    with out.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    before = _events(lead)
    assert main(["study", "merge", "-p", str(lead), str(out)]) != 0
    line = _one_error(capsys)
    assert f"{out}:{len(rows) + 1}: duration_ms 'five seconds'" in line
    assert _events(lead) == before  # the good rows before it were not kept


def test_merge_rejects_options_shown_that_is_not_a_list(proxy_project, tmp_path, capsys):
    _answer_all(proxy_project, "A", 1)
    out = tmp_path / "a.csv"
    export_study(proxy_project, "proxy", out, n_boot=0)
    text = out.read_text(encoding="utf-8").splitlines()
    header = text[0].split(",")
    cells = next(csv.reader([text[1]]))
    cells[header.index("options_shown")] = "{not json"
    import io

    buf = io.StringIO()
    csv.writer(buf).writerow(cells)
    out.write_text("\n".join([text[0], buf.getvalue().strip()]) + "\n", encoding="utf-8")
    lead = tmp_path / "lead.litlens"
    shutil.copy(proxy_project, lead)
    assert main(["study", "merge", "-p", str(lead), str(out)]) != 0
    assert "options_shown" in _one_error(capsys)


def test_merge_reports_conflicts_with_the_projects_standing_answers(proxy_project, tmp_path):
    lead = tmp_path / "lead.litlens"
    shutil.copy(proxy_project, lead)
    _answer_all(lead, "A", 1)  # the lead's project already holds A's answers
    _answer_all(proxy_project, "A", 2)  # A answered differently in their own copy, later
    report = merge(lead, [proxy_project])
    assert report["added"] == 5
    assert len(report["conflicts"]) == 5
    assert all(sorted(c["values"].values()) == [1, 2] for c in report["conflicts"])
    assert all(any("before the merge" in source for source in c["values"]) for c in report["conflicts"])
    with open_project(lead, readonly=True) as p:  # the later answer stands
        store = StudyStore(p)
        standing = effective_judgments(store.events(store.study("proxy").id))
    assert {e.value for (_, a), e in standing.items() if a == "A"} == {2}


def test_create_proxy_from_a_utf16_beir_folder(tmp_path, capsys):
    beir = tmp_path / "beir"
    shutil.copytree(BEIR_MINI, beir)
    corpus = beir / "corpus.jsonl"
    corpus.write_bytes(corpus.read_text(encoding="utf-8").encode("utf-16"))
    project = tmp_path / "s.litlens"
    assert main(["study", "create-proxy", "-p", str(project), "--beir", str(beir), "--name", "u"]) == 0
    assert "created proxy study 'u'" in capsys.readouterr().out


def test_literaryqa_reader_still_reads_the_fixture():
    from litlens.studies.likert import read_literaryqa

    assert len(read_literaryqa(LQA_MINI)) == 6
    assert hashlib.sha256(LQA_MINI.read_bytes()).hexdigest()  # the fixture is a file we only read
