"""Measure which attributes PyTorch's layers have that the MindSpore layers mapped to them lack.

For every layer of the PyTorch API mapping (``ms_lint/data/pytorch_mapping.json``, domain ``layers``), both layers
are built with small arguments and their instances compared: an attribute the PyTorch instance has (what its
``__init__`` sets, its parameters and buffers: ``in_features``, ``groups``, ``running_mean``) that reading on the
MindSpore instance raises AttributeError is recorded, per MindSpore version, with the MindSpore name the mapping
gives for it where there is one. A layer that cannot be built with the sample arguments is left out.

    python -m ms_lint.tools.layer_attributes              # measure with the installed MindSpore (and torch)
    python -m ms_lint.tools.layer_attributes --check      # exit 1 where the table disagrees with the installed one

Run it under each supported MindSpore release to add that release's column; the PyTorch side needs torch.
"""
from __future__ import annotations

import argparse
import importlib
import inspect
import json
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "data"
MAPPING = DATA / "pytorch_mapping.json"
TABLE = DATA / "layer_attributes.json"

# Sample values for the required parameters of a layer, by name (both libraries' spellings).
_SAMPLES = {
    "in_features": 4, "out_features": 4, "in_channels": 4, "out_channels": 4, "in1_features": 4, "in2_features": 4,
    "in1_channels": 4, "in2_channels": 4, "num_features": 4, "num_channels": 4, "num_groups": 2,
    "kernel_size": 3, "ksizes": [1, 3, 3, 1], "strides": [1, 1, 1, 1], "rates": [1, 1, 1, 1],
    "normalized_shape": (4,), "num_embeddings": 8, "vocab_size": 8, "embedding_dim": 4, "embedding_size": 4,
    "input_size": 4, "hidden_size": 4, "embed_dim": 4, "num_heads": 2, "d_model": 4, "nhead": 2, "size": 3,
    "output_size": 2, "upscale_factor": 2, "downscale_factor": 2, "lambd": 0.5, "padding": 1, "dim": 1, "axis": 1,
    "depth_radius": 2, "scale_factor": 2, "start_dim": 1, "end_dim": -1, "normalized_shape_": (4,),
}


def _build(factory):
    """An instance of ``factory`` built with sample values for its required parameters, or None."""
    try:
        signature = inspect.signature(factory.__init__)
    except (TypeError, ValueError):
        return None
    kwargs = {}
    for name, parameter in list(signature.parameters.items())[1:]:
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD) or parameter.default is not \
                parameter.empty:
            continue
        if name not in _SAMPLES:
            return None
        kwargs[name] = _SAMPLES[name]
    try:
        return factory(**kwargs)
    except Exception:  # noqa: BLE001 - a layer the samples cannot build is left out
        return None


def _pytorch_attributes(instance) -> list[str]:
    """The public names a PyTorch layer instance holds: what ``__init__`` set, its parameters and buffers."""
    names = set(vars(instance)) | set(instance._parameters) | set(instance._buffers)
    return sorted(name for name in names if not name.startswith("_") and name != "training")


def _lacks(instance, name: str) -> bool:
    try:
        getattr(instance, name)
    except AttributeError:
        return True
    except Exception:  # noqa: BLE001 - another error is not a missing attribute
        return False
    return False


def _import(qualname: str):
    module, _, name = qualname.rpartition(".")
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return None


def measure(table: dict) -> dict:
    """``table`` with the installed MindSpore's column measured (and PyTorch's names, where torch is installed)."""
    import mindspore

    version = mindspore.__version__
    apis = json.loads(MAPPING.read_text())["apis"]
    layers = table.setdefault("layers", {})
    try:
        import torch  # noqa: F401
        table["pytorch"] = torch.__version__.split("+")[0]
        have_torch = True
    except ImportError:
        have_torch = False
    for qualname, entry in sorted(apis.items()):
        if entry.get("domain") != "layers" or not qualname.startswith("mindspore.nn."):
            continue
        row = layers.get(qualname)
        if have_torch:
            factory = _import(entry["pytorch"])
            instance = _build(factory) if factory is not None else None
            if instance is None:
                layers.pop(qualname, None)
                continue
            row = layers[qualname] = {"pytorch": entry["pytorch"], "pytorch_attributes": _pytorch_attributes(instance),
                                      "missing": (row or {}).get("missing", {})}
        if row is None:
            continue
        factory = _import(qualname)
        instance = _build(factory) if factory is not None else None
        if instance is None:
            row["missing"].pop(version, None)
            continue
        renamed = entry.get("names", {})
        # MindSpore's name for it, where the mapping gives one and the instance has it
        row["missing"][version] = {name: renamed[name] if name in renamed and not _lacks(instance, renamed[name])
                                   else None for name in row["pytorch_attributes"] if _lacks(instance, name)}
    for row in list(layers.values()):
        if not row["missing"]:
            continue
        row["missing"] = dict(sorted(row["missing"].items()))
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the installed MindSpore; write nothing")
    args = parser.parse_args(argv)
    stored = json.loads(TABLE.read_text()) if TABLE.exists() else {}
    measured = measure(json.loads(json.dumps(stored)))
    if args.check:
        if measured != stored:
            print("layer_attributes: the table differs from what the installed MindSpore gives", file=sys.stderr)
            return 1
        return 0
    TABLE.write_text(json.dumps(measured, indent=1, sort_keys=True) + "\n")
    print(f"layer_attributes: {len(measured.get('layers', {}))} layers measured into {TABLE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
