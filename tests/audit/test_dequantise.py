"""Where the float32 copy of a quantised GGUF is kept: one copy per file content, whatever its path."""

from __future__ import annotations

import os
import shutil

from litlens.audit.dequantise import content_key, f32_copy_path


def _model_file(path, size: int, seed: int):
    import numpy as np

    path.write_bytes(np.random.default_rng(seed).integers(0, 256, size, dtype=np.uint8).tobytes())
    return path


def test_the_same_file_in_two_folders_shares_one_copy(tmp_path, monkeypatch):
    monkeypatch.setenv("LITLENS_MODEL_CACHE", str(tmp_path / "cache"))
    (tmp_path / "env1").mkdir()
    (tmp_path / "env2").mkdir()
    first = _model_file(tmp_path / "env1" / "model.gguf", 3_000_000, 1)
    second = tmp_path / "env2" / "model.gguf"
    shutil.copyfile(first, second)
    os.utime(second, ns=(1, 1))  # another install: another path and modification time

    assert f32_copy_path(first) == f32_copy_path(second)
    assert f32_copy_path(first).parent == tmp_path / "cache" / "gguf-f32"
    assert f32_copy_path(first).name.startswith("model-")


def test_another_model_gets_another_copy(tmp_path):
    a = _model_file(tmp_path / "a.gguf", 3_000_000, 1)
    b = _model_file(tmp_path / "b.gguf", 3_000_000, 2)
    c = tmp_path / "c.gguf"
    data = bytearray(a.read_bytes())
    data[len(data) // 2] ^= 0xFF  # a change in the middle, where a quantised tensor would differ
    c.write_bytes(bytes(data))
    keys = {content_key(a), content_key(b), content_key(c)}
    assert len(keys) == 3
    shorter = tmp_path / "short.gguf"
    shorter.write_bytes(a.read_bytes()[:-1])
    assert content_key(shorter) != content_key(a)
