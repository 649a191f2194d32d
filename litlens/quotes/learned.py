"""The learned steps of character discovery and their data-only model file.

Two LightGBM classifiers run after the name rules (:mod:`litlens.quotes.aliases`):

* **same person?** over pairs of entries (:mod:`litlens.quotes.same_person`): the
  confident pairs are joined;
* **a person?** over the joined entries (:mod:`litlens.quotes.people`): the entries
  under its threshold are left out of the list.

Both are trained on PDNC's own character lists by ``benchmarks/characters_train.py``,
which chooses each threshold by leave-novels-out cross-validation (5 folds, novel i in fold
i mod 5) and writes the models trained on all novels to
``resources/characters_model.json``.

The file is JSON: the format name, for each classifier its feature list, threshold(s) and
the booster in LightGBM's own text format; the training novels and the cross-validated
figures the thresholds were chosen by. Reading it parses text only: nothing in it runs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from litlens.quotes.aliases import Found
from litlens.quotes.people import KEEP_FEATURES, entry_rows, keep_entries, speakers
from litlens.quotes.same_person import FEATURES, join_pairs, pair_rows

FORMAT = "litlens-characters-1"
MODEL_FILE = Path(__file__).resolve().parents[2] / "resources" / "characters_model.json"


class CharacterModelError(ValueError):
    """The file is not a character model this LitLens can read; the message says why."""


@dataclass
class Decision:
    """One LightGBM classifier, or several bagged ones whose probabilities are averaged, and
    the probability at which it acts."""

    booster: Any
    threshold: float
    floor: float = 0.0  # same person: no pair across two joined groups under floor * threshold

    @property
    def boosters(self) -> list:
        return self.booster if isinstance(self.booster, list) else [self.booster]

    def probabilities(self, rows: np.ndarray) -> np.ndarray:
        if len(rows) == 0:
            return np.zeros(0)
        return np.mean([np.asarray(b.predict(rows), dtype=float) for b in self.boosters], axis=0)


@dataclass
class CharacterModel:
    """The two learned steps; either may be absent (that step is skipped)."""

    same_person: Decision | None
    person: Decision | None
    meta: dict = field(default_factory=dict)

    def apply(self, found: Found, quotations: list | None = None) -> Found:
        """Join the entries of one person, then leave out the entries that are no person."""
        if self.same_person is not None:
            pairs, rows = pair_rows(found)
            d = self.same_person
            found = join_pairs(found, pairs, d.probabilities(rows), d.threshold, d.floor)
        if self.person is not None:
            d = self.person
            found = keep_entries(found, d.probabilities(entry_rows(found, quotations)), d.threshold,
                                 speakers(found, quotations))
        return found

    def to_json(self) -> str:
        def part(d: Decision | None, features: tuple) -> dict | None:
            if d is None:
                return None
            saved = [b.model_to_string() for b in d.boosters]
            return {"features": list(features), "threshold": d.threshold, "floor": d.floor,
                    "lightgbm": saved[0] if len(saved) == 1 else saved}

        return json.dumps({"format": FORMAT, **self.meta,
                           "same_person": part(self.same_person, FEATURES),
                           "person": part(self.person, KEEP_FEATURES)}, indent=1)

    @classmethod
    def from_json(cls, data: str, source: str = "the model") -> CharacterModel:
        import lightgbm

        try:
            doc = json.loads(data)
        except ValueError as error:
            raise CharacterModelError(f"{source} is not a LitLens character model: not JSON ({error})") from None
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise CharacterModelError(f"{source} is not a LitLens character model: expected format {FORMAT!r}")

        def part(key: str, features: tuple) -> Decision | None:
            d = doc.get(key)
            if d is None:
                return None
            if d.get("features") != list(features):
                raise CharacterModelError(f"{source}: its {key} model was trained on other features; retrain "
                                          "it with benchmarks/characters_train.py")
            saved = d["lightgbm"]
            booster = ([lightgbm.Booster(model_str=m) for m in saved] if isinstance(saved, list)
                       else lightgbm.Booster(model_str=saved))  # several: their probabilities are averaged
            return Decision(booster, float(d["threshold"]), float(d["floor"]))

        meta = {k: v for k, v in doc.items() if k not in ("format", "same_person", "person")}
        return cls(part("same_person", FEATURES), part("person", KEEP_FEATURES), meta)

    @classmethod
    def load(cls, path: Path) -> CharacterModel:
        return cls.from_json(Path(path).read_text(encoding="utf-8"), str(path))


@lru_cache(maxsize=1)
def default_model() -> CharacterModel | None:
    """The bundled model, or None when its file is not there (the name rules alone)."""
    if not MODEL_FILE.is_file():
        return None
    return CharacterModel.load(MODEL_FILE)
