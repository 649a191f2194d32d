"""Study use cases through the services and the CLI: create, export, merge, agreement, QA metrics."""

from __future__ import annotations

import csv
import json
import random
import shutil

import pytest

from litlens.cli import main
from litlens.errors import DataFormatError
from litlens.services.studies import (
    AnnotationSession,
    agreement_from_csv,
    assign,
    create_proxy_study,
    export_study,
    qa_metrics,
)
from litlens.services.study_merge import merge
from litlens.store.project import open_project
from litlens.store.studies import StudyError, StudyStore
from litlens.studies.overlap import options_overlap
from tests.conftest import SHARED
from tests.studies.conftest import ANSWERS, LQA_MINI

KEYS = {"fleiss_kappa", "krippendorff_alpha", "cohen_kappa", "all_agree", "none_agree", "items", "annotators"}


def _annotate(project, study, annotator, choose):
    session = AnnotationSession.open(project, study, annotator)
    for i, entry in enumerate(session.queue):
        session.answer(i, choose(entry), duration_ms=1000 + i)
    session.close()


def _write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def test_proxy_study_from_the_real_birco_data(tmp_path):
    beir = SHARED / "data" / "birco-relic-dev"
    if not beir.is_dir():
        pytest.skip(f"needs {beir} (../shared is absent in a plain clone)")
    project = tmp_path / "s.litlens"
    study = create_proxy_study(project, beir=beir, distractors="bm25", per_item=3)
    with open_project(project) as p:
        items = StudyStore(p).items(study.id)
    assert len(items) == 30
    assert all(len(i.options) == 3 and sum(o["gold"] for o in i.options) == 1 for i in items)
    # distractors are the pool's best BM25 matches: their scores are recorded in rank order
    assert all(i.data["distractor_scores"][0] >= i.data["distractor_scores"][1] for i in items)


def test_assign_overlap_is_balanced(tmp_path):
    project = tmp_path / "s.litlens"
    from tests.studies.conftest import BEIR_MINI

    create_proxy_study(project, beir=BEIR_MINI, name="p")
    counts = assign(project, "p", ["A", "B", "C", "D"], overlap=2)
    assert sum(counts.values()) == 10 and max(counts.values()) - min(counts.values()) <= 1
    with pytest.raises(StudyError, match="--overlap"):
        assign(project, "p", ["A", "B"], overlap=3)


def test_proxy_study_from_pinned_evidence(tmp_path):
    pytest.importorskip("litlens.services.retrieval", reason="needs evidence retrieval (issue 5)")
    from litlens.services.books import ingest_file
    from litlens.services.retrieval import pin_evidence

    lines = ["CHAPTER I", ""]
    topics = ["the garden and its roses", "the old mill by the river", "a letter from London", "the storm at night",
              "the ball at the assembly rooms", "a walk across the fields", "the quarrel over the inheritance"]
    frames = [  # each topic comes back three times, worded afresh: options must not share 8 words or a sentence
        "Paragraph {n} tells of {topic}. \"I think of {topic},\" said Mary. Nobody else cared for {topic}, and the evening passed.",
        "In paragraph {n} the talk turns to {topic}. Mary dreamt of {topic} once more. Her brother laughed at her.",
        "Paragraph {n}: her aunt wrote about {topic}. \"How strange,\" said John. The letter lay unread till Sunday.",
    ]
    for n, topic in enumerate(topics * 3):
        lines += [frames[n // len(topics)].format(n=n, topic=topic), ""]
    book = tmp_path / "small.txt"
    book.write_text("\n".join(lines), encoding="utf-8")
    project = tmp_path / "p.litlens"
    ingest_file(project, book)
    with open_project(project) as p:
        text = p.text(1)
    start = text.index("Paragraph 3 tells")
    end = text.index("evening passed.", start) + len("evening passed.")
    with pytest.raises(StudyError, match="no evidence is pinned"):
        create_proxy_study(project, pinned=["storms"])
    pin_evidence(project, "storms", start, end, claim_text="Storms stand for Mary's unrest", query="the storm at night")
    study = create_proxy_study(project, pinned=["storms"], distractors="bm25", per_item=3)
    with open_project(project) as p:
        items = StudyStore(p).items(study.id)
    assert len(items) == 1
    options = items[0].options
    assert len(options) == 3 and sum(o["gold"] for o in options) == 1
    gold = next(o for o in options if o["gold"])
    assert "Paragraph 3" in gold["text"]
    assert all("storm" in o["text"] for o in options if not o["gold"])  # strong distractors: same topic
    assert options_overlap([o["text"] for o in options]) == []  # no shared sentence or run of 8 words
    ranges = sorted(tuple(map(int, o["source_id"].split("-"))) for o in options)
    assert all(a[1] <= b[0] for a, b in zip(ranges, ranges[1:]))  # and no shared characters of the book


def test_export_writes_one_row_per_judgment_and_agreement_json(proxy_project, tmp_path):
    rng = random.Random(0)
    for name in "ABC":
        _annotate(proxy_project, "proxy", name,
                  lambda e: e.item.gold_position if rng.random() < 0.8 else rng.choice([1, 2, 3]))
    out = tmp_path / "out" / "judgments.csv"
    out.parent.mkdir()
    result = export_study(proxy_project, "proxy", out, n_boot=200)
    rows = list(csv.DictReader(open(out, encoding="utf-8")))
    assert result["judgments"] == len(rows) == 15
    row = rows[0]
    assert row["study"] == "proxy" and row["gold_position"] in "123" and len(json.loads(row["option_texts"])) == 3
    assert row["duration_ms"] and row["created_at"] and row["judgment_uid"]
    summary = json.loads((out.parent / "agreement.json").read_text())
    assert KEYS <= set(summary)
    assert set(summary["details"]["accuracy"]) == {"A", "B", "C"}
    assert "majority_accuracy" in summary["details"]
    # the exported CSV is itself valid input for `litlens agreement`
    again = agreement_from_csv(out)
    assert again.as_json()["fleiss_kappa"] == summary["fleiss_kappa"]


def test_merge_detects_duplicates_and_reports_conflicts(proxy_project, tmp_path):
    lead = tmp_path / "lead.litlens"
    shutil.copy(proxy_project, lead)  # the lead's copy before anyone annotated
    _annotate(proxy_project, "proxy", "A", lambda e: 1)
    copy_b = tmp_path / "b.litlens"
    shutil.copy(proxy_project, copy_b)
    # annotator B works on their own copy; A's judgments travel along in the file
    _annotate(copy_b, "proxy", "B", lambda e: 2)
    first = merge(lead, [proxy_project, copy_b])
    assert first["added"] == 10 and first["duplicates"] == 5 and first["conflicts"] == []
    # merging again adds nothing
    assert merge(lead, [copy_b])["added"] == 0
    # A changes their mind on a third machine: a conflict between sources is reported
    copy_a2 = tmp_path / "a2.litlens"
    shutil.copy(proxy_project, copy_a2)
    session = AnnotationSession.open(copy_a2, "proxy", "A")
    session.answer(0, 3)
    session.close()
    report = merge(lead, [proxy_project, copy_a2])
    assert report["added"] == 1
    assert len(report["conflicts"]) == 1
    conflict = report["conflicts"][0]
    # the lead's standing answer (1, merged before) is a source too
    assert conflict["annotator"] == "A" and sorted(conflict["values"].values()) == [1, 1, 3]


def test_merge_of_exported_csv_and_unknown_annotator(proxy_project, tmp_path):
    _annotate(proxy_project, "proxy", "C", lambda e: e.item.gold_position)
    out = tmp_path / "c.csv"
    export_study(proxy_project, "proxy", out, n_boot=0)
    lead = tmp_path / "lead.litlens"
    shutil.copy(proxy_project, lead)
    assert merge(lead, [out])["duplicates"] == 5
    text = out.read_text().splitlines()
    bad = tmp_path / "bad.csv"
    _write(bad, "\n".join([text[0], text[1].replace(",C,", ",Zed,")]) + "\n")
    with pytest.raises(DataFormatError, match=r"bad.csv:2: unknown annotator 'Zed'"):
        merge(lead, [bad])


@pytest.mark.parametrize(
    ("content", "kwargs", "message"),
    [
        ("item,annotator,label\n1,A,1\n", {}, r"x.csv:1: missing column\(s\) item_id"),
        ("item_id,annotator,label\n1,A,1\n1,B,7\n", {"scale": "1-5"}, r"x.csv:3: label '7' is outside the scale"),
        ("item_id,annotator,label\n1,A,1\n2,A,2\n1,A,3\n", {}, r"x.csv:4: duplicate judgment: A already rated item 1 on line 2"),
        ("item_id,annotator,label\n1,A,good\n", {"kind": "ordinal"}, r"x.csv:2: label 'good' is not a number"),
        ("item_id,annotator,label\n1,,2\n", {}, r"x.csv:2: empty annotator"),
    ],
)
def test_agreement_csv_errors_name_the_line(tmp_path, content, kwargs, message):
    with pytest.raises(DataFormatError, match=message):
        agreement_from_csv(_write(tmp_path / "x.csv", content), **kwargs)


def test_agreement_cli_prints_exactly_the_documented_keys(tmp_path, capsys):
    rows = ["item_id,annotator,label,comment"]
    rng = random.Random(3)
    for i in range(30):
        truth = rng.randint(1, 5)
        for a in "ABC":
            rows.append(f"q{i},{a},{min(5, max(1, truth + rng.choice([0, 0, 1, -1])))},x")
    path = _write(tmp_path / "j.csv", "\n".join(rows) + "\n")
    assert main(["agreement", "--judgments", str(path), "--kind", "ordinal", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == KEYS
    assert set(out["cohen_kappa"]) == {"A|B", "A|C", "B|C"}
    assert out["items"] == 30 and out["annotators"] == 3
    assert 0.3 < out["krippendorff_alpha"] < 1


def test_cli_error_is_one_line(tmp_path, capsys):
    path = _write(tmp_path / "j.csv", "item_id,label\n1,2\n")
    assert main(["agreement", "--judgments", str(path), "--json"]) != 0
    err = capsys.readouterr().err
    assert err.startswith("litlens: error:") and "j.csv:1: missing column(s) annotator" in err


def test_likert_study_and_qa_metrics_kendall_tau(likert_project):
    quality = {(r["question_id"] + "|" + r["system"]): int(r["quality"]) for r in csv.DictReader(open(ANSWERS))}
    rng = random.Random(5)
    for name in "AB":
        _annotate(likert_project, "likert", name,
                  lambda e: min(5, max(1, quality[e.item.key] + rng.choice([0, 0, 0, 1, -1]))))
    result = qa_metrics(LQA_MINI, ANSWERS, ratings="likert", project_path=likert_project)
    assert set(result["systems"]) == {"reader-large", "reader-small", "keyword-baseline", "guesser"}
    assert result["rated_answers"] == 24
    taus = result["kendall_tau"]
    assert set(taus) == {"em", "f1", "rouge_l", "meteor"}
    # the systems' human ranking is clear, and every metric agrees with it more than not
    assert all(t is not None and t > 0.3 for t in taus.values())
    assert "exact+stem" in result["meteor_variant"] or "WordNet" in result["meteor_variant"]
    big = result["systems"]["reader-large"]
    assert big["f1"] > result["systems"]["guesser"]["f1"]


def test_likert_answers_errors(tmp_path):
    bad = _write(tmp_path / "a.csv", "question_id,system,answer\n32154-0,s,yes\n99999-1,s,no\n")
    with pytest.raises(DataFormatError, match=r"a.csv:3: unknown question '99999-1'"):
        qa_metrics(LQA_MINI, bad)
    dup = _write(tmp_path / "d.jsonl", '{"question_id": "32154-0", "system": "s", "answer": "x"}\n'
                 '{"question_id": "32154-0", "system": "s", "answer": "y"}\n')
    with pytest.raises(DataFormatError, match=r"d.jsonl:2: duplicate answer"):
        qa_metrics(LQA_MINI, dup)


def test_study_cli_round_trip(tmp_path, capsys):
    from tests.studies.conftest import BEIR_MINI

    project = str(tmp_path / "s.litlens")
    assert main(["study", "create-proxy", "-p", project, "--beir", str(BEIR_MINI), "--distractors", "bm25",
                 "--per-item", "3", "--name", "p"]) == 0
    assert main(["study", "assign", "-p", project, "p", "--annotators", "A,B", "--overlap", "2"]) == 0
    assert main(["study", "create-likert", "-p", project, "--literaryqa", str(LQA_MINI), "--answers", str(ANSWERS),
                 "--mode", "summary", "--name", "l"]) == 0
    capsys.readouterr()
    assert main(["study", "list", "-p", project, "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [(s["name"], s["kind"], s["items"]) for s in listed] == [("p", "proxy", 5), ("l", "likert", 24)]
    _annotate(project, "p", "A", lambda e: 1)
    assert main(["study", "status", "-p", project, "p", "--json", "--bootstrap", "50"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["annotators"]["A"] == {"assigned": 5, "done": 5}
    out = tmp_path / "j.csv"
    assert main(["study", "export", "-p", project, "p", "-o", str(out)]) == 0
    assert (tmp_path / "agreement.json").is_file()


def test_proxy_distractors_from_the_dense_encoder(tmp_path):
    pytest.importorskip("litlens.retrieval.dense", reason="needs the evidence-retrieval dense encoder")
    from tests.studies.conftest import BEIR_MINI

    study = create_proxy_study(tmp_path / "d.litlens", beir=BEIR_MINI, distractors="dense", per_item=3, limit=2)
    with open_project(tmp_path / "d.litlens") as p:
        items = StudyStore(p).items(study.id)
    assert len(items) == 2 and study.mode == "dense"
    for item in items:
        assert sum(o["gold"] for o in item.options) == 1
        scores = item.data["distractor_scores"]
        assert scores[0] >= scores[1] and -1.0 <= scores[1] <= 1.0  # cosine similarities, best first


def test_qa_metrics_from_a_ratings_csv_with_bertscore(tmp_path):
    rows = ["item_id,annotator,label"] + [f"{r['question_id']}|{r['system']},writer,{r['quality']}"
                                          for r in csv.DictReader(open(ANSWERS))]
    ratings = _write(tmp_path / "r.csv", "\n".join(rows) + "\n")
    result = qa_metrics(LQA_MINI, ANSWERS, ratings=str(ratings), bertscore=True)
    systems = result["systems"]
    assert systems["reader-large"]["bertscore"] > systems["guesser"]["bertscore"]
    assert result["kendall_tau"]["bertscore"] > 0
    assert systems["reader-large"]["human"] == 5.0


def test_export_all_events_keeps_skips_and_undos(proxy_project, tmp_path):
    session = AnnotationSession.open(proxy_project, "proxy", "A")
    session.skip(0)
    session.answer(1, 2)
    session.undo()
    session.answer(1, 3)
    session.close()
    out = tmp_path / "log.csv"
    result = export_study(proxy_project, "proxy", out, n_boot=0, all_events=True)
    rows = list(csv.DictReader(open(out, encoding="utf-8")))
    assert [r["event"] for r in rows] == ["skip", "answer", "undo", "answer"]
    assert rows[2]["undoes"] == rows[1]["judgment_uid"]
    assert result["judgments"] == 1 and result["rows"] == 4


def test_agreement_monitor_matches_a_fresh_computation(proxy_project):
    from litlens.services.studies import AgreementMonitor

    monitor = AgreementMonitor(proxy_project, "proxy")
    rng = random.Random(9)
    sessions = {name: AnnotationSession.open(proxy_project, "proxy", name) for name in "ABC"}
    for step in range(25):
        name = rng.choice("ABC")
        s = sessions[name]
        if step % 7 == 6:
            s.undo()
        else:
            s.answer(rng.randrange(5), rng.choice([1, 2, 3]))
        live = monitor.refresh(n_boot=0)["summary"].as_json()
        with open_project(proxy_project) as p:
            store = StudyStore(p)
            from litlens.services.studies import study_table
            from litlens.studies import agreement as ag

            st = study_table(store, store.study("proxy"))
        fresh = ag.summarize(st.table, level=st.level, gold=st.gold).as_json()
        assert live == fresh
    for s in sessions.values():
        s.close()
    monitor.close()


@pytest.mark.parametrize("name", ["lead#1.litlens", "what?.litlens", "%41.litlens", "a b%20c.litlens", "x?mode=rwc#.litlens"])
def test_merge_reads_a_project_file_whatever_its_name(proxy_project, tmp_path, name):
    _annotate(proxy_project, "proxy", "A", lambda e: 1)
    folder = tmp_path / "annotators"
    folder.mkdir()
    source = folder / name
    shutil.copy(proxy_project, source)
    lead = tmp_path / "lead.litlens"
    shutil.copy(proxy_project, lead)
    before = sorted(p.name for p in folder.iterdir())
    report = merge(lead, [source])
    assert report["duplicates"] == 5 and report["added"] == 0
    after = sorted(p.name for p in folder.iterdir() if p.name not in (name + "-wal", name + "-shm"))  # SQLite's own
    assert after == before  # no stray file such as "lead" or "what"
