"""A float32 copy of a quantised GGUF file, so that llama.cpp scores tokens with exact arithmetic.

llama.cpp multiplies quantised weights (Q4_1, Q8_0, …) with activations it quantises to 8 bits
on the fly, and keeps its key/value cache in float16. Both shift each token's log-probability a
little (0.007–0.05 nats on Min-K% for the packaged model), which is noise in a measurement that
is read as a small difference between a book and its control. Scoring the same weights
de-quantised to float32, with a float32 cache, gives the numbers of a plain transformers
computation on the same GGUF (which also de-quantises) to within 1e-4.

The copy is written once per source file under
:func:`litlens.llm.transformers_backend.model_cache_dir`, streamed one tensor at a time. It is
keyed by the file's content (its size and a digest of samples spread over it), not its path:
the same model installed in another environment or folder reuses the copy instead of adding
another of several hundred megabytes.
"""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path

from litlens.errors import LLMError

_LOCK = threading.Lock()


_SAMPLES = 64  # blocks read from a file to key its copy
_BLOCK = 1 << 16


def content_key(source: str | Path) -> str:
    """A digest of the file's size, its first megabyte (the GGUF header and metadata) and
    blocks spread evenly over the rest: the same for two copies of one file wherever they
    are, different for another model or quantisation, and read in milliseconds even for a
    file of gigabytes."""
    path = Path(source)
    size = path.stat().st_size
    digest = hashlib.sha1(str(size).encode())
    with path.open("rb") as f:
        digest.update(f.read(1 << 20))
        for k in range(_SAMPLES):
            f.seek(size * k // _SAMPLES)
            digest.update(f.read(_BLOCK))
        f.seek(max(0, size - _BLOCK))
        digest.update(f.read(_BLOCK))
    return digest.hexdigest()[:12]


def f32_copy_path(source: str | Path) -> Path:
    from litlens.llm.transformers_backend import model_cache_dir

    path = Path(source).resolve()
    return model_cache_dir() / "gguf-f32" / f"{path.stem}-{content_key(path)}.f32.gguf"


def is_float32(source: str | Path) -> bool:
    """True when every tensor of the file is already float32 (nothing to de-quantise)."""
    import gguf

    reader = gguf.GGUFReader(str(source))
    return all(t.tensor_type == gguf.GGMLQuantizationType.F32 for t in reader.tensors)


def dequantised_gguf(source: str | Path) -> Path:
    """The float32 copy of ``source`` (made on first use); ``source`` itself if already float32."""
    source = Path(source)
    with _LOCK:
        if is_float32(source):
            return source
        target = f32_copy_path(source)
        if target.is_file():
            return target
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            partial = target.with_name(target.name + f".{os.getpid()}.part")
            _write_f32(source, partial)
            os.replace(partial, target)
        except OSError as exc:
            raise LLMError(
                f"{target}: cannot write the float32 copy of {source.name} that exact scoring needs ({exc}). "
                "Free disk space or set LITLENS_MODEL_CACHE to a folder with room"
            ) from exc
        return target


def _write_f32(source: Path, target: Path) -> None:
    import gguf
    import numpy as np

    reader = gguf.GGUFReader(str(source))
    arch = reader.fields["general.architecture"].contents()
    writer = gguf.GGUFWriter(str(target), arch)
    try:
        for field in reader.fields.values():
            if field.name == "general.architecture" or field.name.startswith("GGUF."):
                continue  # written by GGUFWriter itself
            kind = field.types[0]
            sub = field.types[-1] if kind == gguf.GGUFValueType.ARRAY else None
            value = field.contents()
            if field.name == "general.file_type":
                value = int(gguf.LlamaFileType.ALL_F32)
            writer.add_key_value(field.name, value, kind, sub_type=sub)
        for tensor in reader.tensors:
            shape = tuple(int(n) for n in reversed(tensor.shape.tolist()))  # numpy order
            writer.add_tensor_info(tensor.name, shape, np.dtype(np.float32), int(tensor.n_elements) * 4)
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_ti_data_to_file()
        for tensor in reader.tensors:
            values = gguf.dequantize(tensor.data, tensor.tensor_type).astype(np.float32, copy=False)
            writer.write_tensor_data(np.ascontiguousarray(values))
    finally:
        writer.close()
