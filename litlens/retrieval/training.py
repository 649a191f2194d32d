"""Train the dual encoder (seed 000's recipe): contrastive loss with in-batch negatives, every batch
from one book, AdamW at lr 1e-5, up to 10 epochs, early stopping on validation loss.

Two encoders (query and passage) start from the same weights. The output folder holds
``query/``, ``passage/`` and ``litlens_retriever.json``; :class:`litlens.retrieval.dense.DenseEncoder`
loads it. ``OUTPUT/checkpoint/`` holds the state after the last finished epoch; a new run with the
same output resumes from it.
"""

from __future__ import annotations

import json
import math
import random
import re
import shutil
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from litlens.errors import Cancelled, LitLensError
from litlens.retrieval.datasets import RetrievalSet, load_beir, read_relic_json, relic_query
from litlens.retrieval.dense import RETRIEVER_CONFIG, DenseEncoder, packaged_model_path, pool_hidden

Progress = Callable[[float, str], None]


@dataclass(frozen=True)
class Pair:
    query: str
    passage: str
    book: str


def load_pairs(data: str | Path) -> list[Pair]:
    """(query, gold passage, book) pairs from RELiC-format JSON or a BEIR folder."""
    path = Path(data)
    if path.is_dir():
        ds: RetrievalSet = load_beir(path)
        pairs = []
        for qid, rel in ds.qrels.items():
            for did, grade in rel.items():
                if grade > 0:
                    pairs.append(Pair(ds.queries[qid], ds.corpus[did], ds.book_of.get(did, "beir")))
        return pairs
    raw = read_relic_json(path)
    books = raw["books"]
    return [
        Pair(
            relic_query(ex["left"], ex["right"]),
            " ".join(books[ex["book"]]["sentences"][ex["quote_start"] : ex["quote_start"] + ex["quote_len"]]),
            ex["book"],
        )
        for ex in raw["examples"]
    ]


def book_batches(pairs: list[Pair], batch_size: int, rng: random.Random) -> list[list[Pair]]:
    """Shuffled batches; every batch holds pairs of one book only."""
    by_book: dict[str, list[Pair]] = defaultdict(list)
    for pair in pairs:
        by_book[pair.book].append(pair)
    batches = []
    for items in by_book.values():
        items = items[:]
        rng.shuffle(items)
        batches += [items[i : i + batch_size] for i in range(0, len(items), batch_size)]
    rng.shuffle(batches)
    return [b for b in batches if len(b) >= 2]  # one pair has no in-batch negative


def train_retriever(
    data: str | Path,
    output: str | Path,
    *,
    model: str | None = None,
    epochs: int = 10,
    batch_size: int = 32,
    grad_accum: int = 1,
    lr: float = 1e-5,
    pooling: str = "mean",
    patience: int = 2,
    val_fraction: float = 0.1,
    resume: bool = True,
    seed: int = 13,
    max_length: int = 256,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> dict:
    import torch

    if epochs < 1 or batch_size < 2 or grad_accum < 1:
        raise LitLensError("need --epochs ≥ 1, --batch-size ≥ 2 and --grad-accum ≥ 1")
    pairs = load_pairs(data)
    if len(pairs) < 4:
        raise LitLensError(f"{data}: only {len(pairs)} training pairs; need at least 4 (3 to train, 1 to validate)")
    rng = random.Random(seed)
    torch.manual_seed(seed)
    shuffled = pairs[:]
    rng.shuffle(shuffled)
    n_val = max(2, int(round(len(pairs) * val_fraction)))
    val, train = shuffled[:n_val], shuffled[n_val:]
    output = Path(output)
    checkpoint = output / "checkpoint"
    start_path = str(packaged_model_path() if model is None else model)
    state = None
    if resume and (checkpoint / "state.pt").is_file():
        state = load_checkpoint_state(checkpoint / "state.pt")
        start_q, start_p = str(checkpoint / "query"), str(checkpoint / "passage")
    else:
        start_q = start_p = start_path
    device = "cuda" if torch.cuda.is_available() else "cpu"
    qenc = DenseEncoder(start_q, pooling=pooling, device=device, max_length=max_length, precision="fp32")._passage
    penc = DenseEncoder(start_p, pooling=pooling, device=device, max_length=max_length, precision="fp32")._passage
    if start_q == start_p:  # separate encoders: the query one must be its own copy
        import copy

        qenc = type(penc)(penc.tokenizer, copy.deepcopy(penc.model), penc.max_length)
    params = list(qenc.model.parameters()) + list(penc.model.parameters())
    optimizer = torch.optim.AdamW(params, lr=lr)
    history: list[dict] = []
    best, best_epoch, first_epoch, bad = math.inf, 0, 1, 0
    if state is not None:
        optimizer.load_state_dict(state["optimizer"])
        history, best, best_epoch, bad = state["history"], state["best"], state["best_epoch"], state["bad"]
        first_epoch = state["epoch"] + 1
        rng.setstate(state["rng"])
    scale = 20.0  # vectors are normalised, so dot products lie in [-1, 1]; sharpen the softmax

    def embed(enc, texts):
        batch = enc.tokenizer(texts, padding=True, truncation=True, max_length=max_length, return_tensors="pt").to(device)
        v = pool_hidden(enc.model(**batch).last_hidden_state, batch["attention_mask"], pooling)
        return torch.nn.functional.normalize(v, dim=-1)

    def batch_loss(batch):
        q = embed(qenc, [p.query for p in batch])
        p = embed(penc, [p.passage for p in batch])
        logits = scale * q @ p.T
        return torch.nn.functional.cross_entropy(logits, torch.arange(len(batch), device=device))

    def validation_loss() -> float:
        qenc.model.eval(), penc.model.eval()
        total, count = 0.0, 0
        with torch.inference_mode():
            for batch in book_batches(val, batch_size, random.Random(0)):
                total += float(batch_loss(batch)) * len(batch)
                count += len(batch)
        return total / max(count, 1)

    started = time.perf_counter()
    if state is None:
        history.append({"epoch": 0, "train_loss": None, "val_loss": round(validation_loss(), 5)})
        best = history[0]["val_loss"]
    stopped_early = False
    for epoch in range(first_epoch, epochs + 1):
        if bad >= patience:
            stopped_early = True
            break
        qenc.model.train(), penc.model.train()
        batches = book_batches(train, batch_size, rng)
        if not batches:
            raise LitLensError(f"{data}: no book has 2 training pairs; in-batch negatives need at least 2 per book")
        total = 0.0
        optimizer.zero_grad()
        for n, batch in enumerate(batches, start=1):
            if cancelled is not None and cancelled():
                raise Cancelled("training (the last finished epoch is in the checkpoint)")
            loss = batch_loss(batch)
            (loss / grad_accum).backward()
            total += float(loss.detach())
            if n % grad_accum == 0 or n == len(batches):
                optimizer.step()
                optimizer.zero_grad()
            if progress is not None:
                progress(((epoch - 1) + n / len(batches)) / epochs, f"epoch {epoch}: loss {total / n:.4f}")
        val_loss = validation_loss()
        history.append({"epoch": epoch, "train_loss": round(total / len(batches), 5), "val_loss": round(val_loss, 5)})
        if val_loss < best - 1e-4:
            best, best_epoch, bad = val_loss, epoch, 0
            _save(output, qenc, penc, pooling, start_path, history)
        else:
            bad += 1
        _save_checkpoint(checkpoint, qenc, penc, optimizer, epoch, history, best, best_epoch, bad, rng)
    if best_epoch == 0:  # never improved: the output is the starting model
        _save(output, qenc, penc, pooling, start_path, history) if not (output / RETRIEVER_CONFIG).is_file() else None
    config = json.loads((output / RETRIEVER_CONFIG).read_text(encoding="utf-8"))
    config["history"] = history
    (output / RETRIEVER_CONFIG).write_text(json.dumps(config, indent=2), encoding="utf-8")
    return {
        "output": str(output),
        "train_pairs": len(train),
        "val_pairs": len(val),
        "epochs_run": history[-1]["epoch"],
        "best_epoch": best_epoch,
        "best_val_loss": best,
        "stopped_early": stopped_early or bad >= patience,
        "history": history,
        "device": device,
        "seconds": round(time.perf_counter() - started, 1),
    }


def _save(output: Path, qenc, penc, pooling: str, base: str, history: list[dict]) -> None:
    output.mkdir(parents=True, exist_ok=True)
    for name, enc in (("query", qenc), ("passage", penc)):
        target = output / name
        if target.exists():
            shutil.rmtree(target)
        enc.model.save_pretrained(target)
        enc.tokenizer.save_pretrained(target)
    (output / RETRIEVER_CONFIG).write_text(
        json.dumps({"pooling": pooling, "normalize": True, "base": base, "history": history}, indent=2), encoding="utf-8"
    )


_STATE_KEYS = ("optimizer", "epoch", "history", "best", "best_epoch", "bad", "rng")


def load_checkpoint_state(path: Path) -> dict:
    """The training state saved by :func:`_save_checkpoint`, read with ``weights_only=True``:
    tensors, numbers, strings and containers only, so a crafted file cannot run code."""
    import pickle

    import torch

    fix = f"Delete {path.parent} or pass --no-resume to start afresh"
    try:
        state = torch.load(path, weights_only=True, map_location="cpu")
    except (pickle.UnpicklingError, RuntimeError, EOFError, ValueError) as exc:
        if "weights only" in str(exc).lower():
            why = "it holds objects other than tensors and plain values, which only running code could rebuild"
        else:
            why = re.sub(r"\x1b\[[0-9;]*m", "", str(exc)).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
        raise LitLensError(f"{path}: not a LitLens training checkpoint ({why}). {fix}") from exc
    if not isinstance(state, dict) or any(k not in state for k in _STATE_KEYS):
        raise LitLensError(f"{path}: not a LitLens training checkpoint (it lacks {', '.join(_STATE_KEYS)}). {fix}")
    return state


def _save_checkpoint(checkpoint: Path, qenc, penc, optimizer, epoch, history, best, best_epoch, bad, rng) -> None:
    import torch

    tmp = checkpoint.with_name("checkpoint.tmp")
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    for name, enc in (("query", qenc), ("passage", penc)):
        enc.model.save_pretrained(tmp / name)
        enc.tokenizer.save_pretrained(tmp / name)
    torch.save(
        {"optimizer": optimizer.state_dict(), "epoch": epoch, "history": history, "best": best,
         "best_epoch": best_epoch, "bad": bad, "rng": rng.getstate()},
        tmp / "state.pt",
    )
    if checkpoint.exists():
        shutil.rmtree(checkpoint)
    tmp.rename(checkpoint)  # a crash mid-save leaves the previous checkpoint intact
