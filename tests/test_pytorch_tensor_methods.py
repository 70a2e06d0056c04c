"""MS602's table of PyTorch tensor methods: every name is a real ``torch.Tensor`` method, every MindSpore
equivalent it suggests exists in the installed MindSpore, and the names it reports are the ones MindSpore's
generated ``tensor_methods`` table lacks."""
from __future__ import annotations

import importlib

import pytest

from ms_lint import mindspore_api as api
from ms_lint.rules.ms602_tensor_method_missing import PYTORCH_ONLY_METHODS


def test_every_method_is_a_pytorch_tensor_method():
    torch = pytest.importorskip("torch")
    assert [name for name in PYTORCH_ONLY_METHODS if not hasattr(torch.Tensor, name)] == []


@pytest.mark.mindspore
@pytest.mark.parametrize("equivalent", sorted({e for e in PYTORCH_ONLY_METHODS.values() if e}))
def test_every_suggested_equivalent_exists_in_mindspore(equivalent):
    module_name, attribute = equivalent.rsplit(".", 1)
    assert callable(getattr(importlib.import_module(module_name), attribute))


def test_the_common_habits_are_missing_from_mindspore_tensors():
    missing = set(PYTORCH_ONLY_METHODS) - api.tensor_methods().keys()
    assert {"detach", "cpu", "cuda", "backward", "relu", "clamp_min"} <= missing
    # Methods both frameworks have are not in the table at all.
    assert not {"view", "permute", "contiguous", "to", "clamp", "swapaxes"} & set(PYTORCH_ONLY_METHODS)
