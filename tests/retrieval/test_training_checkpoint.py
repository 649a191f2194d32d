"""The retriever's training checkpoint is read with weights_only: a crafted state.pt runs nothing."""

from __future__ import annotations

import json

import pytest

from litlens.errors import LitLensError
from litlens.retrieval.training import train_retriever


class _CreatesAFile:
    """Unpickling this object opens (creates) ``path`` for writing."""

    def __init__(self, path: str):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


@pytest.fixture
def relic(tmp_path):
    sentences = [f"Sentence number {i} of the little book, about walks and letters." for i in range(40)]
    examples = [{"id": f"e{i}", "book": "b", "left": [sentences[i - 1]], "right": [sentences[i + 1]],
                 "quote_start": i, "quote_len": 1} for i in range(2, 30, 3)]
    path = tmp_path / "relic.json"
    path.write_text(json.dumps({"books": {"b": {"sentences": sentences}}, "examples": examples}), encoding="utf-8")
    return path


@pytest.mark.parametrize("payload", ["whole", "inside"])
def test_training_checkpoint_crafted_state_is_refused_and_runs_nothing(relic, tmp_path, payload):
    import torch

    marker = tmp_path / "pwned"
    checkpoint = tmp_path / "model" / "checkpoint"
    checkpoint.mkdir(parents=True)
    evil = _CreatesAFile(str(marker))
    state = evil if payload == "whole" else {"optimizer": evil, "epoch": 1, "history": [], "best": 1.0,
                                             "best_epoch": 1, "bad": 0, "rng": None}
    torch.save(state, checkpoint / "state.pt")
    with pytest.raises(LitLensError, match="not a LitLens training checkpoint.*--no-resume"):
        train_retriever(relic, tmp_path / "model", epochs=1, batch_size=2)
    assert not marker.exists()


def test_training_checkpoint_that_is_not_one_is_refused(relic, tmp_path):
    checkpoint = tmp_path / "model" / "checkpoint"
    checkpoint.mkdir(parents=True)
    (checkpoint / "state.pt").write_bytes(b"not a checkpoint at all")
    with pytest.raises(LitLensError, match="not a LitLens training checkpoint"):
        train_retriever(relic, tmp_path / "model", epochs=1, batch_size=2)


def test_training_checkpoint_of_plain_values_missing_keys_is_refused(relic, tmp_path):
    import torch

    checkpoint = tmp_path / "model" / "checkpoint"
    checkpoint.mkdir(parents=True)
    torch.save({"epoch": 1}, checkpoint / "state.pt")
    with pytest.raises(LitLensError, match="it lacks optimizer"):
        train_retriever(relic, tmp_path / "model", epochs=1, batch_size=2)
