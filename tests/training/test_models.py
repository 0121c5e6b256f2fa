"""``train_last_layers``: only the last k decoder layers keep ``requires_grad``; the GGUF load
parses the file once, builds gguf's tensor-name map once per (architecture, layers) and leaves
gguf as it was."""

from __future__ import annotations

import importlib.util

import pytest

from ramseygadgets.training.models import _gguf_read_once, train_last_layers

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None, reason="torch (the train extra) is not installed"
)


def _tiny_decoder(layers: int):
    import torch

    class Decoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = torch.nn.Embedding(10, 4)
            self.layers = torch.nn.ModuleList(torch.nn.Linear(4, 4) for _ in range(layers))

    class CausalLM(torch.nn.Module):  # the transformers layout: model.model.layers
        def __init__(self) -> None:
            super().__init__()
            self.model = Decoder()
            self.head = torch.nn.Linear(4, 10)

    return CausalLM()


def test_only_the_last_layers_are_trainable() -> None:
    model = _tiny_decoder(5)
    assert train_last_layers(model, 2) == 2 * (4 * 4 + 4)
    trainable = {name for name, p in model.named_parameters() if p.requires_grad}
    assert trainable == {f"model.layers.{i}.{w}" for i in (3, 4) for w in ("weight", "bias")}


@pytest.mark.parametrize("count", [0, 6])
def test_a_count_outside_the_layers_is_refused(count: int) -> None:
    with pytest.raises(ValueError, match=r"count must be 1\.\.5"):
        train_last_layers(_tiny_decoder(5), count)


def test_the_tensor_name_map_is_built_once_while_loading_and_gguf_is_left_as_it_was() -> None:
    gguf = pytest.importorskip("gguf")
    reading, building = gguf.GGUFReader, gguf.get_tensor_name_map
    arch = next(iter(gguf.MODEL_ARCH_NAMES))
    assert gguf.get_tensor_name_map(arch, 2) is not gguf.get_tensor_name_map(arch, 2)
    with _gguf_read_once():
        from gguf import get_tensor_name_map  # as transformers imports it, on every call

        once = get_tensor_name_map(arch, 2)
        assert get_tensor_name_map(arch, 2) is once
        assert get_tensor_name_map(arch, 3) is not once
    assert (gguf.GGUFReader, gguf.get_tensor_name_map) == (reading, building)
    with pytest.raises(RuntimeError), _gguf_read_once():
        raise RuntimeError("a failed load")
    assert (gguf.GGUFReader, gguf.get_tensor_name_map) == (reading, building)


def test_the_file_is_parsed_once_while_loading(smollm2_gguf) -> None:
    pytest.importorskip("gguf")
    with _gguf_read_once():
        from gguf import GGUFReader  # as transformers imports it, on every call

        reader = GGUFReader(smollm2_gguf)
        assert GGUFReader(str(smollm2_gguf)) is reader and reader.fields
