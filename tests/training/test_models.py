"""``train_last_layers``: only the last k decoder layers keep ``requires_grad``."""

from __future__ import annotations

import importlib.util

import pytest

from ramseygadgets.training.models import train_last_layers

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
