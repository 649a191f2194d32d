"""Could a learned filter over finished quotations beat the rules? (development check)

Detects quotations in the 20 PDNC novels as ``eval_quotes_dev.py`` does, labels each
prediction true (matched to a gold quotation, IoU >= 0.5) or false, describes it by 27
features (length and spans, cue and type, first and last characters, its place in the
paragraph, pronouns, the narration before and after it) and, leaving one novel out at a
time, trains LightGBM trees on the other 19. A prediction the trees think more likely false
than true (above each threshold) would be dropped. Dropping pays only when it removes more
false quotations than true ones; the rules' own output is the baseline (nothing dropped).

Usage:  .venv/bin/python benchmarks/quote_filter_cv.py
Prints, per threshold, how many false and true quotations the filter would drop.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import eval_quotes_dev as dev  # noqa: E402

_PERSONAL = re.compile(r"\b(?:I|me|my|we|us|our|you|your)\b")
_TYPES = ("explicit", "anaphoric", "implicit")


def features(text: str, preds: list, j: int) -> list[float]:
    q = preds[j]
    body = " ".join(text[a:b] for a, b in q.spans)
    para_start = text.rfind("\n\n", 0, q.start)
    para_start = para_start + 2 if para_start >= 0 else 0
    para_end = text.find("\n\n", q.end)
    para_end = para_end if para_end >= 0 else len(text)
    before, after = text[para_start : q.start].strip(), text[q.end : para_end].strip()
    prev_q = preds[j - 1] if j > 0 else None
    next_q = preds[j + 1] if j + 1 < len(preds) else None
    first, last = body.lstrip("_* ")[:1], body.rstrip("_* ")[-1:]
    return [
        len(q.spans), len(body.split()), len(body), first.islower(), first.isupper(),
        ".,!?;:-".find(last) if last else -1, len(before), len(after), before[-1:] == ":", before[-1:] == ",",
        _TYPES.index(q.type), q.referring_expression is not None,
        prev_q is not None and prev_q.end > para_start, next_q is not None and next_q.start < para_end,
        body.count("\n"), len(_PERSONAL.findall(body)), body.count("!"), body.count("?"),
        bool(re.search(r"[A-Z]{4,}", body)), text[para_start:para_end].count('"'),
        q.start - (prev_q.end if prev_q else 0), (next_q.start if next_q else len(text)) - q.end,
        sum(c.isupper() for c in body) / max(1, len(body)), before[-1:].isalpha(),
        para_end - para_start, "'" in body, len(re.findall(r" {2,}", body)),
    ]


def main() -> None:
    import lightgbm as lgb

    rows, labels, novels = [], [], []
    for novel in sorted(d for d in dev.PDNC.iterdir() if (d / "quotation_info.csv").is_file()):
        _, text, _, pred, matches = dev.evaluate(novel, True, Path("/tmp/litlens_persons"))
        matched = {j for _, j, _ in matches}
        for j in range(len(pred)):
            rows.append(features(text, pred, j))
            labels.append(j not in matched)
            novels.append(novel.name)
    x, y, groups = np.array(rows, float), np.array(labels, int), np.array(novels)
    print(f"{len(y)} predictions, {int(y.sum())} false")
    dropped = {t: [0, 0] for t in (0.5, 0.6, 0.7)}
    for name in sorted(set(novels)):
        train, test = groups != name, groups == name
        model = lgb.LGBMClassifier(n_estimators=300, learning_rate=0.03, num_leaves=15, min_child_samples=40, verbose=-1)
        model.fit(x[train], y[train])
        p_false = model.predict_proba(x[test])[:, 1]
        for t in dropped:
            drop = p_false > t
            dropped[t][0] += int(y[test][drop].sum())
            dropped[t][1] += int((1 - y[test][drop]).sum())
    for t, (false, true) in dropped.items():
        print(f"threshold {t}: would drop {false} false and {true} true quotations (net {false - true:+d} errors removed)")


if __name__ == "__main__":
    main()
