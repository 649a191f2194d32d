"""Fuzz the command line with malformed files (issue 43).

Every command's file arguments get, one at a time, an empty file, binary bytes, the valid file
in another encoding (UTF-16, cp1252 bytes in the middle), a truncated copy, JSON of the wrong
shape, CSV of the wrong shape, a NUL byte, another application's SQLite file and a damaged
project. Each run goes through ``litlens.cli.main`` in-process. The outcome is either a clean
result (exit 0; allowed only for inputs that are still valid once decoded) or one
``litlens: error:`` line and a non-zero exit; never a traceback. A failed run leaves the file
it was given byte for byte as it was.

Set ``LITLENS_FUZZ_REPORT=FILE.json`` to write the counts per command (docs/bad_input.md).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import traceback
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from litlens.cli import main
from tests.conftest import FIXTURES

STUDIES = FIXTURES / "studies"
NOVEL = """CHAPTER I.

"Good morning, Mr. Darcy," said Elizabeth. "Is it not a fine day?"

"It is," he replied.

"Then let us walk."

CHAPTER II.

Mr. Darcy and Elizabeth walked. Elizabeth smiled at Darcy; she was happy.
"""

# Inputs that are still valid once decoded: a command may accept them (exit 0) or refuse them cleanly.
REENCODED = {"utf16", "cp1252", "latin1_lone_bytes"}
# A novel or an essay is any text: these variants of one are still valid inputs.
ANY_TEXT = REENCODED | {"truncated", "json_array", "json_scalar", "json_wrong_object", "csv_wrong_columns", "text"}


def acceptable(kind: str, slot: str, variant: str) -> bool:
    """May this variant be accepted (exit 0) rather than refused?"""
    if kind == "txt":
        return variant in ANY_TEXT
    if kind == "sqlite":
        return variant == "empty" and slot == "project"  # an empty file is a project not made yet
    if kind == "csv" and variant == "truncated":
        return True  # a CSV cut after a cell reads as a shorter file with a shorter last cell
    return variant in REENCODED


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "absent"


def _other_app_db(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.executescript("CREATE TABLE books (isbn TEXT PRIMARY KEY, shelf INTEGER);"
                       "INSERT INTO books VALUES ('978-0141439518', 3);")
    conn.close()


def variants(valid: bytes, kind: str) -> dict[str, bytes | Callable[[Path], None]]:
    """Malformed versions of a valid file of ``kind`` (csv, tsv, jsonl, json, txt, sqlite)."""
    text = valid.decode("utf-8", "replace")
    middle = valid.find(b"\n", len(valid) // 2) + 1 or len(valid) // 2
    out: dict[str, bytes | Callable[[Path], None]] = {
        "empty": b"",
        "binary": bytes(range(256)) * 16,
        "png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(64),
        "utf16": text.encode("utf-16"),
        "cp1252": valid[:middle] + "caf\u00e9 \u201cquoted\u201d ".encode("cp1252") + valid[middle:],
        "latin1_lone_bytes": valid[:middle] + b"\xff\xfe\xe9\xe8" * 40 + valid[middle:],
        "truncated": valid[: len(valid) // 2] + b"\xc3",
        "nul": valid[:middle] + b"\x00" + valid[middle:],
        "json_array": b'[{"_id": "1", "text": "x"}, 2, "three"]\n',
        "json_scalar": b'"just a string"\n',
        "json_wrong_object": b'{"unexpected": {"nested": [1, 2, 3]}}\n',
        "csv_wrong_columns": b"alpha,beta\n1,2\n",
        "text": b"Just a line of prose, not data at all.\n",
        "other_sqlite": _other_app_db,
    }
    if kind == "jsonl":
        out["jsonl_arrays"] = b"".join(b"[" + line + b"]\n" for line in valid.splitlines() if line.strip())
        out["jsonl_wrong_types"] = b"".join(b'{"_id": [1], "text": {"a": 1}, "qas": 5, "gutenberg_id": []}\n'
                                            for _ in range(3))
    if kind in ("csv", "tsv"):
        sep = b"\t" if kind == "tsv" else b","
        header, *rows = valid.splitlines()
        n = header.count(sep)
        out["csv_junk_cells"] = b"\n".join([header] + [sep.join([b"[[x"] * (n + 1)) for _ in rows[:3]]) + b"\n"
        out["csv_unclosed_quote"] = header + b'\n"never closed' + sep + b"x\n"
    if kind == "sqlite":
        out["truncated"] = valid[: len(valid) // 2]
        damaged = bytearray(valid)
        for page in range(2, len(valid) // 4096):
            damaged[page * 4096 + 100: page * 4096 + 400] = b"\xa5" * 300
        out["damaged_pages"] = bytes(damaged)
    return out


@dataclass
class Case:
    command: str
    argv: Callable[[dict[str, Path]], list[str]]
    slots: dict[str, tuple[Path, str]]  # slot name → (valid file, kind)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Valid inputs for every command, built once."""
    from litlens.services.studies import AnnotationSession, assign, create_proxy_study, export_study

    root = tmp_path_factory.mktemp("fuzz-world")
    w: dict[str, Path] = {"root": root}
    novel = root / "novel.txt"
    novel.write_text(NOVEL, encoding="utf-8")
    w["novel"] = novel
    project = root / "book.litlens"
    assert main(["ingest", str(novel), "-p", str(project)]) == 0
    w["project"] = project
    beir = root / "beir"
    shutil.copytree(STUDIES / "beir_mini", beir)
    w["beir"] = beir
    study = root / "study.litlens"
    create_proxy_study(study, beir=beir, distractors="bm25", per_item=3, name="proxy")
    assign(study, "proxy", ["A", "B"], overlap=2)
    for name in "AB":
        session = AnnotationSession.open(study, "proxy", name)
        for i in range(len(session.queue)):
            session.answer(i, 1 + (i % 3))
        session.close()
    w["study"] = study
    judgments = root / "judgments.csv"
    export_study(study, "proxy", judgments, n_boot=0)
    w["judgments"] = judgments
    # A lead's project with the same study and no answers yet, to merge into.
    lead = root / "lead.litlens"
    create_proxy_study(lead, beir=beir, distractors="bm25", per_item=3, name="proxy")
    assign(lead, "proxy", ["A", "B"], overlap=2)
    w["lead"] = lead
    w["literaryqa"] = STUDIES / "literaryqa_mini.jsonl"
    w["answers"] = STUDIES / "answers.csv"
    ratings = root / "ratings.csv"
    answers = (STUDIES / "answers.csv").read_text(encoding="utf-8").splitlines()[1:]
    ratings.write_text("item_id,annotator,label\n" + "".join(
        f"{row.split(',')[0]}|{row.split(',')[1]},A,{1 + n % 5}\n" for n, row in enumerate(answers)), encoding="utf-8")
    w["ratings"] = ratings
    pdnc = root / "pdnc" / "Walk"
    pdnc.mkdir(parents=True)
    (pdnc / "novel_text.txt").write_text(NOVEL, encoding="utf-8")
    start = NOVEL.index("Good morning")
    end = start + len("Good morning, Mr. Darcy,")
    (pdnc / "quotation_info.csv").write_text(
        "quoteID,quoteText,subQuotationList,quoteByteSpans,speaker,addressees,quoteType,referringExpression\n"
        f"Q0,\"Good morning, Mr. Darcy,\",\"['Good morning, Mr. Darcy,']\",\"[[{start}, {end}]]\",Elizabeth,"
        "\"['Mr. Darcy']\",Explicit,said Elizabeth\n", encoding="utf-8")
    (pdnc / "character_info.csv").write_text(
        "Character ID,Main Name,Aliases,Gender,Category\n0,Elizabeth,{'Elizabeth'},F,major\n"
        "1,Mr. Darcy,\"{'Mr. Darcy', 'Darcy'}\",M,major\n", encoding="utf-8")
    w["pdnc"] = pdnc
    essay = root / "essay.txt"
    essay.write_text('Elizabeth greets him: "Good morning, Mr. Darcy," and asks whether it is a fine day.\n',
                     encoding="utf-8")
    w["essay"] = essay
    relic = root / "relic.json"
    relic.write_text(json.dumps({"books": {"walk": {"sentences": ["A.", "B said hi.", "C.", "D.", "E."]}},
                                 "examples": [{"id": "e1", "book": "walk", "left": ["A."], "right": ["C."],
                                               "quote_start": 1, "quote_len": 1}]}), encoding="utf-8")
    w["relic"] = relic
    return w


def cases(w: dict[str, Path]) -> list[Case]:
    beir_files = {f"beir/{n}": (w["beir"] / n, "tsv" if n.endswith(".tsv") else "jsonl")
                  for n in ("queries.jsonl", "corpus.jsonl", "qrels/test.tsv")}
    pdnc_files = {f"pdnc/{n}": (w["pdnc"] / n, "csv" if n.endswith(".csv") else "txt")
                  for n in ("novel_text.txt", "quotation_info.csv", "character_info.csv")}
    out = w["root"] / "out"
    book_project = {"project": (w["project"], "sqlite")}
    study_project = {"project": (w["study"], "sqlite")}
    return [
        Case("ingest", lambda p: ["ingest", str(p["novel"]), "-p", str(p["project"])],
             {"novel": (w["novel"], "txt"), **book_project}),
        Case("import-pdnc", lambda p: ["import-pdnc", str(p["pdnc"]), "-p", str(out / "imported.litlens")], pdnc_files),
        Case("eval quotes", lambda p: ["eval", "quotes", "--pdnc", str(p["pdnc"]), "--json"],
             {k: v for k, v in pdnc_files.items() if "character" not in k}),  # eval quotes reads no characters
        Case("train attributor", lambda p: ["train", "attributor", "--pdnc", str(p["pdnc"].parent), "-o",
                                            str(out / "attributor.zip")], pdnc_files),
        Case("books", lambda p: ["books", "-p", str(p["project"]), "--json"], book_project),
        Case("quotes", lambda p: ["quotes", "-p", str(p["project"]), "--json"], book_project),
        Case("characters", lambda p: ["characters", "-p", str(p["project"])], book_project),
        Case("export quotes", lambda p: ["export", "quotes", "-p", str(p["project"]), "-o", str(out / "q.jsonl")],
             book_project),
        Case("reanalyse", lambda p: ["reanalyse", "-p", str(p["project"])], book_project),
        Case("attribute", lambda p: ["attribute", "-p", str(p["project"])], book_project),
        Case("search", lambda p: ["search", "-p", str(p["project"]), "Darcy walked [MASK]", "--method", "bm25"],
             book_project),
        Case("evidence pin", lambda p: ["evidence", "pin", "-p", str(p["project"]), "--claim", "c", "--start", "0",
                                        "--end", "10"], book_project),
        Case("evidence list", lambda p: ["evidence", "list", "-p", str(p["project"])], book_project),
        Case("evidence export", lambda p: ["evidence", "export", "-p", str(p["project"]), "-o", str(out / "e.csv")],
             book_project),
        Case("link-criticism", lambda p: ["link-criticism", "-p", str(p["project"]), str(p["essay"]), "-o",
                                          str(out / "links.json")], {"essay": (w["essay"], "txt"), **book_project}),
        Case("check", lambda p: ["check", "-p", str(p["project"])], book_project),
        Case("study create-proxy", lambda p: ["study", "create-proxy", "-p", str(p["project"]), "--beir", str(p["beir"]),
                                              "--name", "fuzz"], {**beir_files, **study_project}),
        Case("study create-likert", lambda p: ["study", "create-likert", "-p", str(p["project"]), "--literaryqa",
                                               str(p["literaryqa"]), "--answers", str(p["answers"]), "--name", "fz"],
             {"literaryqa": (w["literaryqa"], "jsonl"), "answers": (w["answers"], "csv"), **study_project}),
        Case("study list", lambda p: ["study", "list", "-p", str(p["project"])], study_project),
        Case("study status", lambda p: ["study", "status", "-p", str(p["project"]), "proxy", "--bootstrap", "0"],
             study_project),
        Case("study items", lambda p: ["study", "items", "-p", str(p["project"]), "proxy"], study_project),
        Case("study check", lambda p: ["study", "check", "-p", str(p["project"]), "proxy"], study_project),
        Case("study export", lambda p: ["study", "export", "-p", str(p["project"]), "proxy", "-o",
                                        str(out / "j.csv"), "--bootstrap", "0"], study_project),
        Case("study assign", lambda p: ["study", "assign", "-p", str(p["project"]), "proxy", "--annotators", "C",
                                        "--overlap", "1"], study_project),
        Case("study merge", lambda p: ["study", "merge", "-p", str(p["lead"]), str(p["merged"])],
             {"merged": (w["judgments"], "csv")}),
        Case("study merge (project file)", lambda p: ["study", "merge", "-p", str(p["lead"]), str(p["merged"])],
             {"merged": (w["study"], "sqlite")}),
        Case("study merge (target)", lambda p: ["study", "merge", "-p", str(p["project"]), str(w["judgments"])],
             study_project),
        Case("agreement", lambda p: ["agreement", "--judgments", str(p["judgments"]), "--json"],
             {"judgments": (w["judgments"], "csv")}),
        Case("qa-metrics", lambda p: ["qa-metrics", "--literaryqa", str(p["literaryqa"]), "--answers",
                                      str(p["answers"]), "--ratings", str(p["ratings"]), "--json"],
             {"literaryqa": (w["literaryqa"], "jsonl"), "answers": (w["answers"], "csv"),
              "ratings": (w["ratings"], "csv")}),
        Case("eval retrieval (beir)", lambda p: ["eval", "retrieval", "--beir", str(p["beir"]), "--method", "bm25",
                                                 "--json"], beir_files),
        Case("eval retrieval (relic)", lambda p: ["eval", "retrieval", "--relic", str(p["relic"]), "--method", "bm25",
                                                  "--json"], {"relic": (w["relic"], "json")}),
        Case("train retriever", lambda p: ["train", "retriever", "--data", str(p["relic"]), "-o", str(out / "ret"),
                                           "--epochs", "1"], {"relic": (w["relic"], "json")}),
    ]


def _materialise(case: Case, slot: str, variant: bytes | Callable[[Path], None], w: dict[str, Path],
                 tmp: Path) -> tuple[dict[str, Path], Path]:
    """A copy of the world's inputs the case reads, with ``slot`` replaced by the variant."""
    paths = dict(w)
    valid, _ = case.slots[slot]
    if slot.startswith(("beir/", "pdnc/")):
        folder_key, inner = slot.split("/", 1)
        folder = tmp / folder_key / w[folder_key].name
        shutil.copytree(w[folder_key], folder, symlinks=False)
        target = folder / inner
        paths[folder_key] = folder
    else:
        target = tmp / f"{slot}{valid.suffix}"
        paths[slot] = target
    base_project = case.slots.get("project", (w["project"], ""))[0]
    for key, source in (("project", base_project), ("lead", w["lead"])):
        if key != slot:
            paths[key] = tmp / f"{key}.litlens"
            shutil.copy(source, paths[key])
    target.unlink(missing_ok=True)
    if callable(variant):
        variant(target)
    else:
        target.write_bytes(variant)
    (tmp / "out").mkdir(exist_ok=True)
    return paths, target


RESULTS: dict[str, dict[str, int]] = defaultdict(lambda: {"inputs": 0, "accepted": 0, "clean_errors": 0,
                                                          "tracebacks": 0, "other_failures": 0})


def _case_ids() -> list[str]:
    return [c.command for c in cases(defaultdict(lambda: Path("x")))]


@pytest.mark.parametrize("command", _case_ids())
def test_bad_input_every_file_argument_gives_one_line(command, world, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    case = next(c for c in cases(world) if c.command == command)
    problems = []
    n = 0
    for slot, (valid, kind) in case.slots.items():
        valid_bytes = valid.read_bytes()
        for name, variant in variants(valid_bytes, kind).items():
            n += 1
            tmp = tmp_path / f"{n}-{slot.replace('/', '_')}-{name}"
            tmp.mkdir()
            paths, target = _materialise(case, slot, variant, world, tmp)
            before = _sha(target)
            label = f"{command} [{slot} = {name}]"
            stats = RESULTS[command]
            stats["inputs"] += 1
            try:
                code = main(case.argv(paths))
            except SystemExit as exc:  # argparse only: our commands never exit
                code = exc.code
            except Exception:  # noqa: BLE001 - this is what the test counts
                stats["tracebacks"] += 1
                problems.append(f"{label}: traceback\n{traceback.format_exc(limit=-3)}")
                capsys.readouterr()
                continue
            err = capsys.readouterr().err
            errors = [line for line in err.splitlines() if line.startswith("litlens: error:")]
            if code == 0 and not errors and acceptable(kind, slot, name):
                stats["accepted"] += 1
                continue
            if code != 0 and len(errors) == 1 and "Traceback" not in err:
                if before != hashlib.sha256(b"").hexdigest() and _sha(target) != before:  # an empty file holds nothing
                    stats["other_failures"] += 1
                    problems.append(f"{label}: failed but changed the file it was given")
                else:
                    stats["clean_errors"] += 1
                continue
            stats["other_failures"] += 1
            problems.append(f"{label}: exit {code}, stderr {err[-400:]!r}")
    report = os.environ.get("LITLENS_FUZZ_REPORT")
    if report:
        path = Path(report)
        data = json.loads(path.read_text()) if path.is_file() else {}
        data[command] = RESULTS[command]
        path.write_text(json.dumps(data, indent=2) + "\n")
    assert not problems, f"{len(problems)} of {n} inputs went wrong:\n" + "\n".join(problems)
