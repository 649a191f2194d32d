"""One-off: convert the bundled pickled attributor (resources/attributor.joblib, format 5) to
the data-only model file (format 6), and check that both give the same answers.

Unpickles the old file, so run it only on the file LitLens itself shipped. The check runs
both models on every quotation of the given PDNC novels (gold quotations and characters, and
the sample novel's detected quotations with discovered characters) and compares every
candidate's probability and every calibrated confidence exactly.

    .venv/bin/python benchmarks/convert_attributor_joblib.py resources/attributor.joblib resources/attributor.zip \
        tests/fixtures/pdnc/PrideAndPrejudice ../shared/data/pdnc/Emma ../shared/data/pdnc/WinnieThePooh
"""

from __future__ import annotations

import sys
from pathlib import Path

import joblib

from litlens.attribution.ranker import SpeakerRanker, load_ranker
from litlens.services.attribution import load_novel


def main(old: str, new: str, novels: list[str]) -> int:
    state = joblib.load(old)
    assert state["format"] == "litlens-attributor-5", state["format"]
    before = SpeakerRanker(
        {k: list(v) for k, v in state["passes"].items()}, state["turns"], state["calibration"],
        list(state["trained_on"]), dict(state["meta"]),
    )
    before.save(Path(new))
    after = load_ranker(new)
    assert after.trained_on == before.trained_on and after.meta == before.meta
    total = 0
    for folder in novels:
        for quotes, characters in (("gold", "gold"), ("detected", "discovered")):
            book = load_novel(Path(folder), quotes=quotes, characters=characters).prepared
            d_old, d_new = before.distributions(book), after.distributions(book)
            assert d_old == d_new, f"{folder} {quotes}: the distributions differ"
            p_old, p_new = before.predict(book), after.predict(book)
            assert p_old == p_new, f"{folder} {quotes}: the predictions differ"
            total += len(p_old)
            print(f"{Path(folder).name} ({quotes} quotations, {characters} characters): {len(p_old)} quotations, identical")
    print(f"{total} quotations in all: every probability and confidence identical")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3:]))
