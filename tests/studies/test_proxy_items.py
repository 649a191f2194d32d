"""Valid proxy items: options that share no text, skipped items reported, `study items` and `study check`."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from litlens.cli import main
from litlens.services.studies import check_study, create_proxy_study, study_items
from litlens.store.project import open_project
from litlens.store.studies import StudyError, StudyStore
from litlens.studies.items import PROXY, Option, StudyItem, scale_for
from litlens.studies.overlap import options_overlap
from litlens.studies.proxy import bm25_ranker, proxy_items_from_beir
from tests.conftest import SHARED

GOLD = "The storm broke over the mill at midnight and the miller ran out into the rain with his lantern."
# Ranked first for the query by BM25 (it repeats the query's words), but it copies gold's words.
DUP = ("Storm, mill, miller, lantern: the storm broke over the mill at midnight and the miller ran out "
       "into the rain, the storm, the lantern.")
FIRST = "A storm at sea kept the ships in harbour for a week. The miller counted his sacks."
# Second best, but it repeats a sentence of FIRST; the next one down must be taken instead.
SAME_SENTENCE = "The wind blew the lantern out. The miller counted his sacks."
SECOND = "Nobody in the village remembered a storm like that one since the old baker died."
OTHERS = ["She wrote a long letter to her sister in London about the ball.",
          "The carriage waited at the gate while the family dined.",
          "He read the newspaper by the fire and said nothing all evening."]


def write_beir(folder: Path, queries: dict[str, str], corpus: dict[str, str], qrels: list[tuple[str, str, int]]) -> Path:
    (folder / "qrels").mkdir(parents=True)
    with open(folder / "queries.jsonl", "w", encoding="utf-8") as fh:
        for qid, text in queries.items():
            fh.write(json.dumps({"_id": qid, "text": text}) + "\n")
    with open(folder / "corpus.jsonl", "w", encoding="utf-8") as fh:
        for did, text in corpus.items():
            fh.write(json.dumps({"_id": did, "title": "", "text": text}) + "\n")
    rows = ["query-id\tcorpus-id\tscore"] + [f"{q}\t{d}\t{s}" for q, d, s in qrels]
    (folder / "qrels" / "test.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return folder


@pytest.fixture
def beir(tmp_path: Path) -> Path:
    """q1 can be built (after passing over DUP and SAME_SENTENCE); q2's pool holds only copies of its gold."""
    corpus = {"gold1": GOLD, "dup": DUP, "first": FIRST, "same": SAME_SENTENCE, "second": SECOND,
              **{f"o{n}": t for n, t in enumerate(OTHERS)},
              "gold2": "Elizabeth walked alone across the fields to Netherfield on a wet morning in autumn.",
              "copy2a": "As we read: Elizabeth walked alone across the fields to Netherfield on a wet morning.",
              "copy2b": "Elizabeth walked alone across the fields to Netherfield on a wet morning in autumn.",
              "fine2": "Jane stayed in bed at Netherfield with a cold."}
    queries = {"q1": "The storm is a sign of his ruin: [masked sentence(s)] The miller, the lantern, the storm.",
               "q2": "Her walk shows her spirit: [masked sentence(s)] Elizabeth at Netherfield."}
    qrels = [("q1", "gold1", 1)] + [("q1", d, 0) for d in ["dup", "first", "same", "second", "o0", "o1", "o2"]]
    qrels += [("q2", "gold2", 1), ("q2", "copy2a", 0), ("q2", "copy2b", 0), ("q2", "fine2", 0)]
    return write_beir(tmp_path / "beir", queries, corpus, qrels)


def test_proxy_build_skips_distractors_that_share_text(beir):
    queries = json.loads((beir / "queries.jsonl").read_text().splitlines()[0])
    corpus = [json.loads(line) for line in (beir / "corpus.jsonl").read_text().splitlines()]
    pool = ["dup", "first", "same", "second", "o0", "o1", "o2"]
    texts = [c["text"] for c in corpus]
    row = {c["_id"]: n for n, c in enumerate(corpus)}
    scores = bm25_ranker(texts)(queries["text"], [row[d] for d in pool])
    ranked = [pool[i] for i in sorted(range(len(pool)), key=lambda i: -scores[i])]
    assert ranked[:4] == ["dup", "first", "same", "second"]  # the hand-built ranking the test relies on

    build = proxy_items_from_beir(beir, distractors="bm25", per_item=3)
    (item,) = build.items
    assert item.key == "q1" and item.data["query_id"] == "q1"
    assert sorted(o.source_id for o in item.options) == ["first", "gold1", "second"]
    assert item.data["distractor_ranks"] == [2, 4]  # rank 1 copies gold, rank 3 repeats a sentence of rank 2
    assert item.data["distractor_scores"][0] >= item.data["distractor_scores"][1]
    assert options_overlap([o.text for o in item.options]) == []


def test_proxy_item_that_cannot_be_built_is_skipped_and_reported(beir, tmp_path, capsys):
    build = proxy_items_from_beir(beir, distractors="bm25", per_item=3)
    (skipped,) = build.skipped
    assert skipped.key == "q2" and "only 1 of the 2 distractors" in skipped.reason
    assert [len(i.options) for i in build.items] == [3]

    project = str(tmp_path / "s.litlens")
    assert main(["study", "create-proxy", "-p", project, "--beir", str(beir), "--name", "p"]) == 0
    out = capsys.readouterr().out
    assert "skipped item q2: only 1 of the 2 distractors" in out and "1 item(s) skipped" in out
    assert main(["study", "create-proxy", "-p", project, "--beir", str(beir), "--name", "p2", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["name"] == "p2" and report["items"] == 1
    assert [s["key"] for s in report["skipped"]] == ["q2"] and "no run of 8 words" in report["skipped"][0]["reason"]
    assert [i["query_id"] for i in study_items(project, "p2")] == ["q1"]


def test_proxy_no_buildable_item_is_one_error_line_and_stores_nothing(beir, tmp_path, capsys):
    project = tmp_path / "none.litlens"
    with pytest.raises(StudyError, match="no proxy item could be built"):
        create_proxy_study(project, beir=beir, per_item=7)  # q1 has only 5 valid distractors, q2 one
    assert main(["study", "create-proxy", "-p", str(project), "--beir", str(beir), "--per-item", "7"]) != 0
    err = capsys.readouterr().err.strip()
    assert err.startswith("litlens: error: no proxy item could be built") and "\n" not in err
    assert "2 skipped" in err and "smaller --per-item" in err
    assert not project.exists()


def test_study_items_json_exact_shape(beir, tmp_path, capsys):
    project = str(tmp_path / "s.litlens")
    study = create_proxy_study(project, beir=beir, name="p")
    capsys.readouterr()
    assert main(["study", "items", "-p", project, "p", "--json"]) == 0
    items = json.loads(capsys.readouterr().out)
    with open_project(project) as p:
        stored = StudyStore(p).items(study.id)
    assert len(items) == 1
    (item,) = items
    assert list(item) == ["item_id", "query_id", "context", "options"]
    assert item["item_id"] == str(stored[0].id) and item["query_id"] == "q1"
    assert item["context"].startswith("The storm is a sign of his ruin: [masked sentence(s)]")
    assert [list(o) for o in item["options"]] == [["position", "text", "gold", "doc_id"]] * 3
    assert [o["position"] for o in item["options"]] == [1, 2, 3]
    assert [o["doc_id"] for o in item["options"]] == [o["source_id"] for o in stored[0].options]
    assert [o["gold"] for o in item["options"]].count(True) == 1
    gold = next(o for o in item["options"] if o["gold"])
    assert gold["position"] == stored[0].gold_position and gold["text"] == GOLD and gold["doc_id"] == "gold1"
    assert main(["study", "items", "-p", project, "p"]) == 0
    listing = capsys.readouterr().out
    assert f"item {item['item_id']} (query q1)" in listing and "[gold1]" in listing


def _old_study(project: Path) -> dict[str, int]:
    """A study stored as LitLens did before the overlap test: one item's options share a sentence."""
    shared = "He moved by little and little nearer to Mr Chester's chair."
    items = [
        StudyItem("q_a", {"context": "Ch. 3 [masked sentence(s)] then he spoke."},
                  [Option(f"The room was dark. {shared}", "c1", True), Option(f"{shared} Nobody stirred.", "c2"),
                   Option("The clock struck nine in the hall.", "c3")]),
        StudyItem("q_b", {"context": "Later [masked sentence(s)] and so on."},
                  [Option("She laughed.", "c4"), Option("The coach was late.", "c5", True),
                   Option("Rain fell on the roofs.", "c6")]),
    ]
    with open_project(project) as p:
        store = StudyStore(p)
        sid = store.create_study("old", PROXY, items, scale=scale_for(PROXY, 3))
        return {i.key: i.id for i in store.items(sid)}


def test_study_check_reports_overlapping_options_of_an_older_study(tmp_path, capsys):
    project = tmp_path / "old.litlens"
    ids = _old_study(project)
    report = check_study(project, "old")
    assert report["items"] == 2 and report["overlapping"] == 1
    (problem,) = report["problems"]
    assert problem["item_id"] == str(ids["q_a"]) and problem["query_id"] == "q_a"
    assert problem["overlaps"] == [{"options": [1, 2], "shared": "He moved by little and little nearer to Mr Chester's chair"}]

    assert main(["study", "check", "-p", str(project), "old"]) == 0
    out = capsys.readouterr().out
    assert f"item {ids['q_a']}: options 1 and 2 share \"He moved by little" in out
    assert out.strip().endswith("1 of 2 items have overlapping options")
    assert main(["study", "check", "-p", str(project), "old", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == report


def test_study_check_of_a_new_study_finds_nothing(beir, tmp_path, capsys):
    project = str(tmp_path / "s.litlens")
    create_proxy_study(project, beir=beir, name="p")
    capsys.readouterr()
    assert main(["study", "check", "-p", project, "p"]) == 0
    assert capsys.readouterr().out.strip() == "no item of 1 has overlapping options"


def test_proxy_study_from_the_dev_set_has_no_overlapping_options(tmp_path):
    dev = SHARED / "data" / "birco-relic-dev"
    if not dev.is_dir():
        pytest.skip(f"needs {dev} (../shared is absent in a plain clone)")
    project = tmp_path / "dev.litlens"
    study = create_proxy_study(project, beir=dev, distractors="bm25", per_item=3)
    report = check_study(project, study.name)
    assert report["overlapping"] == 0, report["problems"][:3]
    assert report["items"] + len(study.settings["skipped"]) == 30
    assert all(len(i["options"]) == 3 for i in study_items(project, study.name))


def _fake_retrieval(monkeypatch, hits):
    """Evidence retrieval replaced by one pinned passage (characters 100–200) and a fixed ranking."""
    import litlens.services.retrieval as retrieval

    pinned = {"id": 7, "start": 100, "end": 200, "text": GOLD, "query": "the storm", "claim_text": "Storms", "claim": "storms"}
    monkeypatch.setattr(retrieval, "list_evidence", lambda project, book_id=None, claim=None: [pinned])
    monkeypatch.setattr(retrieval, "search", lambda project, query, **kw: [
        SimpleNamespace(start=s, end=e, text=t, score=10.0 - n) for n, (s, e, t) in enumerate(hits)])


def test_pinned_distractors_share_no_characters_and_no_text(monkeypatch, tmp_path):
    _fake_retrieval(monkeypatch, [
        (150, 260, FIRST),  # overlaps the pinned passage's characters
        (300, 400, SECOND),
        (380, 450, OTHERS[0]),  # overlaps the distractor just kept
        (500, 600, DUP),  # shares 8 words with the gold
        (700, 800, OTHERS[1]),
    ])
    study = create_proxy_study(tmp_path / "p.litlens", pinned=["storms"], per_item=3, name="pin")
    (item,) = study_items(tmp_path / "p.litlens", "pin")
    assert sorted(o["doc_id"] for o in item["options"]) == ["100-200", "300-400", "700-800"]
    assert item["query_id"] is None and item["context"] == "Storms\n\n[masked sentence(s)]"
    assert study.settings["skipped"] == []


def test_pinned_item_without_enough_distractors_is_reported(monkeypatch, tmp_path):
    _fake_retrieval(monkeypatch, [(150, 260, FIRST), (300, 400, SECOND), (500, 600, DUP)])
    project = tmp_path / "p.litlens"
    with pytest.raises(StudyError, match=r"storms#7: only 1 of the 2 distractors needed share no characters, no sentence"):
        create_proxy_study(project, pinned=["storms"], per_item=3)
    assert not project.exists()
