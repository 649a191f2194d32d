"""`litlens batch` on a real local Ray (2 CPUs): three tiny books and an empty file."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from litlens.cli import main
from litlens.errors import InputFileError, LitLensError
from litlens.services import batch
from litlens.services.books import list_quotations
from tests.conftest import PDNC, REPO

ray = pytest.importorskip("ray", reason="litlens batch needs ray (a dependency of LitLens)")
pq = pytest.importorskip("pyarrow.parquet")

SAMPLE = REPO / "resources" / "sample" / "pride_and_prejudice.txt"


def _head(path: Path, lines: int) -> str:
    return "".join(path.read_text(encoding="utf-8").splitlines(keepends=True)[:lines])


@pytest.fixture(scope="module")
def local_ray():
    """One local Ray for the module (start-up takes 10-30 s on a loaded 2-core machine)."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first chapter of the sample, the openings of two PDNC novels, and an empty file."""
    folder = tmp_path_factory.mktemp("novels")
    (folder / "pride.txt").write_text(_head(SAMPLE, 120), encoding="utf-8")
    for stem, novel, lines in (("daisy", "DaisyMiller", 120), ("sign", "TheSignOfTheFour", 150)):
        source = PDNC / novel / "novel_text.txt"
        # Without ../shared, a second chapter of the sample stands in for the PDNC novel.
        text = _head(source, lines) if source.is_file() else "".join(SAMPLE.read_text(encoding="utf-8").splitlines(keepends=True)[120 + lines: 240 + lines])
        (folder / f"{stem}.txt").write_text(text, encoding="utf-8")
    (folder / "empty.txt").write_bytes(b"")
    return folder


@pytest.fixture(scope="module")
def first_run(local_ray, corpus: Path, tmp_path_factory: pytest.TempPathFactory):
    """`litlens batch` once through the CLI: (output folder, exit code, manifest, stderr)."""
    out = tmp_path_factory.mktemp("batch") / "out"
    capture = tmp_path_factory.mktemp("stderr") / "stderr.txt"
    saved = sys.stderr
    with open(capture, "w", encoding="utf-8") as fh:
        sys.stderr = fh
        try:
            code = main(["batch", str(corpus), "-o", str(out), "--workers", "2"])
        finally:
            sys.stderr = saved
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    return out, code, manifest, capture.read_text(encoding="utf-8")


def _statuses(manifest: dict) -> dict[str, str]:
    return {b["book"]: b["status"] for b in manifest["books"]}


def test_batch_records_the_failed_book_and_finishes_the_others(first_run) -> None:
    out, code, manifest, stderr = first_run
    assert code == 1
    assert manifest["engine"] == "ray" and manifest["ray_version"] == ray.__version__
    assert manifest["started"] <= manifest["finished"]
    assert _statuses(manifest) == {"daisy": "done", "empty": "failed", "pride": "done", "sign": "done"}
    empty = next(b for b in manifest["books"] if b["book"] == "empty")
    assert "empty" in empty["error"] and empty["quotations"] == 0
    assert "litlens: failed: empty:" in stderr
    for entry in manifest["books"]:
        assert set(entry) == {"book", "status", "error", "seconds", "quotations"}
        if entry["status"] == "done":
            assert entry["error"] is None and entry["seconds"] > 0 and entry["quotations"] > 0
            assert (out / f"{entry['book']}.litlens").is_file()
    assert not (out / "empty.litlens").exists()


def test_batch_output_is_identical_to_ingest_and_attribute_of_one_book(first_run, corpus: Path, tmp_path: Path) -> None:
    out, _, manifest, _ = first_run
    alone = tmp_path / "pride.litlens"
    assert main(["ingest", str(corpus / "pride.txt"), "-p", str(alone)]) == 0
    assert main(["attribute", "-p", str(alone), "--method", "cpu"]) == 0
    expected = list_quotations(alone)
    assert any(q["speaker"] for q in expected)
    assert list_quotations(out / "pride.litlens") == expected

    table = pq.read_table(out / "quotations.parquet").to_pylist()
    assert {row["book"] for row in table} == {"daisy", "pride", "sign"}
    for entry in manifest["books"]:
        assert sum(row["book"] == entry["book"] for row in table) == entry["quotations"]
    rows = [{k: v for k, v in row.items() if k != "book"} for row in table if row["book"] == "pride"]
    exported = tmp_path / "pride.jsonl"
    assert main(["export", "quotes", "-p", str(alone), "-o", str(exported)]) == 0
    assert rows == [json.loads(line) for line in exported.read_text(encoding="utf-8").splitlines()]


def test_batch_second_run_skips_current_books_and_redoes_failed_and_changed_ones(first_run, corpus: Path,
                                                                                   tmp_path: Path, monkeypatch) -> None:
    out, _, first, _ = first_run
    # Work on a copy of the inputs so the module's corpus stays as it was.
    novels = tmp_path / "novels"
    novels.mkdir()
    for path in corpus.iterdir():
        (novels / path.name).write_bytes(path.read_bytes())
    again = batch.run_batch(novels, out)
    assert _statuses(again) == {"daisy": "skipped", "empty": "failed", "pride": "skipped", "sign": "skipped"}
    assert [b["quotations"] for b in again["books"]] == [b["quotations"] for b in first["books"]]

    # The failed book is fixed, one book changes: those two are redone, the others skipped.
    (novels / "empty.txt").write_text(_head(SAMPLE, 60), encoding="utf-8")
    (novels / "sign.txt").write_text((novels / "sign.txt").read_text(encoding="utf-8") + '\n"One more line," said Holmes.\n',
                                     encoding="utf-8")
    third = batch.run_batch(novels, out)
    assert _statuses(third) == {"daisy": "skipped", "empty": "done", "pride": "skipped", "sign": "done"}
    assert len(pq.read_table(out / "quotations.parquet")) == sum(b["quotations"] for b in third["books"])

    # Another LitLens version makes every output stale.
    monkeypatch.setattr(batch, "__version__", "9.9.9")
    fourth = batch.run_batch(novels, out, attribute="none")
    assert set(_statuses(fourth).values()) == {"done"}
    assert all(q["speaker"] is None for q in list_quotations(out / "pride.litlens"))


def _tei_body(path: Path) -> bytes:
    from lxml import etree

    body = etree.parse(str(path)).find(".//{http://www.tei-c.org/ns/1.0}body")
    return etree.tostring(body)


def test_batch_exports_every_done_book_as_tei_and_pdnc(first_run, corpus: Path, tmp_path: Path, capsys) -> None:
    import csv
    import shutil

    out = tmp_path / "out"
    shutil.copytree(first_run[0], out)
    manifest = batch.run_batch(corpus, out, export="tei,pdnc")  # current books skipped, still exported
    assert manifest["exports"] == {"tei": str(out / "tei"), "pdnc": str(out / "pdnc")}
    done = sorted(b["book"] for b in manifest["books"] if b["status"] != "failed")
    assert done == ["daisy", "pride", "sign"]
    assert sorted(p.name for p in (out / "tei").iterdir()) == [f"{stem}.xml" for stem in done]
    for entry in manifest["books"]:
        if entry["status"] == "failed":
            continue
        with open(out / "pdnc" / entry["book"] / "quotation_info.csv", newline="", encoding="utf-8") as fh:
            assert len(list(csv.DictReader(fh))) == entry["quotations"]
    # The same document as `litlens export tei` of that one project.
    single = tmp_path / "pride.xml"
    assert main(["export", "tei", "-p", str(out / "pride.litlens"), "-o", str(single)]) == 0
    assert _tei_body(single) == _tei_body(out / "tei" / "pride.xml")

    # `litlens export tei|pdnc -p OUT` on the batch folder: every book, the failed one named.
    capsys.readouterr()
    assert main(["export", "pdnc", "-p", str(out), "-o", str(tmp_path / "pdnc")]) == 0
    printed = capsys.readouterr().out
    assert "wrote 3 books" in printed and "left out (failed in the batch, no project): empty" in printed
    assert sorted(p.name for p in (tmp_path / "pdnc").iterdir()) == done
    assert main(["export", "tei", "-p", str(out), "-o", str(tmp_path / "tei")]) == 0
    assert _tei_body(tmp_path / "tei" / "sign.xml") == _tei_body(out / "tei" / "sign.xml")


def test_batch_export_bad_requests_are_one_line(first_run, tmp_path: Path, capsys) -> None:
    out = first_run[0]
    assert main(["export", "tei", "-p", str(out), "--book", "1", "-o", str(tmp_path / "t")]) == 2
    assert "leave --book out" in capsys.readouterr().err
    assert main(["export", "tei", "-p", str(tmp_path), "-o", str(tmp_path / "t")]) == 2
    assert "without manifest.json" in capsys.readouterr().err
    (tmp_path / "one.txt").write_text("text", encoding="utf-8")
    assert main(["batch", str(tmp_path), "-o", str(tmp_path / "o"), "--export", "docx"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--export takes a comma-separated list of tei, pdnc" in err
    assert not (tmp_path / "o").exists()


def test_batch_reads_a_list_of_paths_and_refuses_colliding_names(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "one.txt").write_text("text", encoding="utf-8")
    (tmp_path / "b" / "one.txt").write_text("text", encoding="utf-8")
    listing = tmp_path / "novels.list"
    listing.write_text("# corpus\na/one.txt\n\n", encoding="utf-8")
    assert batch.collect_inputs(listing) == [tmp_path / "a" / "one.txt"]
    listing.write_text("a/one.txt\nb/one.txt\n", encoding="utf-8")
    with pytest.raises(InputFileError, match="share the name 'one'"):
        batch.collect_inputs(listing)
    with pytest.raises(InputFileError, match="holds no novels"):
        batch.collect_inputs(tmp_path / "a" / "..")


def test_batch_llm_without_a_server_is_refused_before_any_work(tmp_path: Path, capsys) -> None:
    (tmp_path / "one.txt").write_text("text", encoding="utf-8")
    code = main(["batch", str(tmp_path), "-o", str(tmp_path / "out"), "--attribute", "llm"])
    assert code != 0
    assert "--base-url" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


HAS_VLLM = importlib.util.find_spec("vllm") is not None


@pytest.mark.skipif(HAS_VLLM, reason="vLLM is installed here: the error for its absence cannot be seen")
def test_batch_vllm_without_the_cluster_extra_is_one_line_before_any_work(tmp_path: Path, capsys) -> None:
    (tmp_path / "one.txt").write_text('"Yes," said Anna.\n', encoding="utf-8")
    code = main(["batch", str(tmp_path), "-o", str(tmp_path / "out"), "--attribute", "llm",
                 "--backend", "vllm", "--model", "Qwen/Qwen2.5-7B-Instruct"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("litlens: error: --backend vllm")
    assert "litlens[cluster]" in err and "--backend openai --base-url" in err
    assert not (tmp_path / "out").exists()


def test_batch_in_the_packaged_app_is_one_line(tmp_path: Path, capsys, monkeypatch) -> None:
    (tmp_path / "one.txt").write_text("text", encoding="utf-8")
    monkeypatch.setattr(sys, "frozen", True, raising=False)  # what PyInstaller sets in the bundle
    assert main(["batch", str(tmp_path), "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not in the packaged app" in err
    assert not (tmp_path / "out").exists()


def test_batch_vllm_without_a_model_is_refused(tmp_path: Path, capsys) -> None:
    (tmp_path / "one.txt").write_text("text", encoding="utf-8")
    assert main(["batch", str(tmp_path), "-o", str(tmp_path / "out"), "--attribute", "llm", "--backend", "vllm"]) == 2
    assert "needs --model" in capsys.readouterr().err


def test_batch_vllm_on_a_cluster_without_gpus_is_one_line(local_ray) -> None:
    from litlens.services import batch_vllm

    if batch_vllm.cluster_gpus():
        pytest.skip("this Ray has GPUs")
    with pytest.raises(LitLensError, match="needs GPUs in the Ray cluster") as info:
        batch_vllm.require_gpus()
    assert "\n" not in str(info.value)


def test_vllm_processor_config_uses_every_gpu_with_the_chat_template() -> None:
    from litlens.services.batch_vllm import _postprocess, _Preprocess, vllm_processor_options

    options = vllm_processor_options("meta-llama/Llama-3.1-8B-Instruct", gpus=4, tensor_parallel_size=2)
    assert options["model_source"] == "meta-llama/Llama-3.1-8B-Instruct"
    assert options["concurrency"] == 2  # two engines of two GPUs each
    assert options["engine_kwargs"]["tensor_parallel_size"] == 2
    assert options["engine_kwargs"]["max_model_len"] >= 8192  # 4,096-token chunks plus instructions and answer
    assert all(options[stage]["enabled"] for stage in ("chat_template_stage", "tokenize_stage", "detokenize_stage"))
    with pytest.raises(LitLensError, match="does not fit"):
        vllm_processor_options("m", gpus=1, tensor_parallel_size=2)
    conv = [{"role": "user", "content": "Who speaks?"}]
    row = _Preprocess(40, 0.0)({"row": 3, "messages": conv})
    assert row == {"row": 3, "messages": conv, "sampling_params": {"max_tokens": 40, "temperature": 0.0}}
    out = _postprocess({**row, "generated_text": "1. Anna", "num_input_tokens": 12, "num_generated_tokens": 4})
    assert out == {"row": 3, "answer": "1. Anna", "prompt_tokens": 12, "generated_tokens": 4}


def test_import_litlens_and_the_window_do_not_import_ray() -> None:
    code = "import sys, litlens, litlens.cli, litlens.gui.main_window; print('ray' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                            env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


@pytest.mark.slow  # about 90 s here: Ray, the llama.cpp server and two LLM runs of a tiny book
def test_batch_llm_stage_runs_through_an_openai_compatible_server(local_ray, tmp_path: Path) -> None:
    """The seed-003 protocol against the project's llama.cpp test server, as `litlens attribute --method llm` does."""
    from tests.llm.conftest import HAS_LLAMA_CPP, LlamaServer

    if not HAS_LLAMA_CPP:
        pytest.skip("needs llama-cpp-python[server] (the test extra) for a real OpenAI-compatible server")
    from litlens.llm import packaged_model_path

    try:
        model = packaged_model_path()
    except Exception as exc:  # noqa: BLE001
        pytest.skip(f"the packaged SmolLM2 model is not installed: {exc}")
    novels = tmp_path / "novels"
    novels.mkdir()
    (novels / "walk.txt").write_text(
        '"It is a fine morning," said Elizabeth.\n\n"It is," said Mr. Darcy, "and a long walk."\n\n'
        'Elizabeth smiled. "Then let us go on," she replied.\n', encoding="utf-8")
    server = LlamaServer(model).start()
    try:
        llm = batch.LLMSettings(backend="openai", base_url=server.base_url)
        manifest = batch.run_batch(novels, tmp_path / "out", attribute="llm", llm=llm)
        alone = tmp_path / "walk.litlens"
        assert main(["ingest", str(novels / "walk.txt"), "-p", str(alone)]) == 0
        assert main(["attribute", "-p", str(alone), "--method", "llm", "--backend", "openai",
                     "--base-url", server.base_url]) == 0
    finally:
        server.stop()
    assert _statuses(manifest) == {"walk": "done"}
    produced = list_quotations(tmp_path / "out" / "walk.litlens")
    assert len(produced) == manifest["books"][0]["quotations"] >= 3
    assert produced == list_quotations(alone)
    from litlens.services.attribution import stored_attributions

    methods = {a.method for a in stored_attributions(tmp_path / "out" / "walk.litlens")}
    assert methods and all(m.startswith("llm:") for m in methods)
