"""What the sites of an application's factories pass a Cell (``ms_lint.model.construction``): ``**kwargs`` followed
through two factory levels to the calls that run (``resnet50()`` -> ``_resnet("resnet50", ..., **kwargs)`` ->
``ResNet(block, layers, **kwargs)``), past what names a class or function without building or calling it: the
module's ``__all__`` where no code reads it, a type annotation (``-> ResNet``), a string a factory never reads
(``arch``), and a factory nothing calls (``resnext50()``, which fills ``kwargs`` itself). Anything else keeps the
branch: a call that passes the keyword, a factory that reads the string, a file that reads ``__all__``, a library."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from ms_lint.engine import check_file
from ms_lint.settings import Settings
from ms_lint.target import forget_projects

MODEL = textwrap.dedent("""\
    from typing import Any

    import mindspore.nn as nn

    __all__ = ["Net", "net_s", "net_x"]


    class Net(nn.Cell):
        def __init__(self, channels: int, zero_init: bool = False) -> None:
            super(Net, self).__init__()
            self.dense = nn.Dense(channels, channels)
            if zero_init:
                self.conv = nn.Conv2d(channels, channels, 3, bias=False)

        def construct(self, x):
            return self.dense(x)


    def _net(arch: str, channels: int, **kwargs: Any) -> Net:
        return Net(channels, **kwargs)


    def net_s(pretrained: bool = False, **kwargs: Any) -> Net:
        return _net("net_s", 3, **kwargs)


    def net_x(pretrained: bool = False, **kwargs: Any) -> Net:
        kwargs["zero_init"] = True
        return _net("net_x", 3, **kwargs)
""")
CONV_LINE = 13
EVAL = "import mindspore as ms\nfrom model import net_s, net_x\n\nms.set_context(mode=ms.GRAPH_MODE)\n"


@pytest.fixture(autouse=True)
def fresh_projects():
    forget_projects()
    yield
    forget_projects()


def found(root: Path, builds: str, model: str = MODEL, **files: str) -> list[tuple[int, str]]:
    root.mkdir(parents=True, exist_ok=True)
    (root / "model.py").write_text(model)
    (root / "eval.py").write_text(EVAL + builds)
    for name, text in files.items():
        (root / name).write_text(text)
    return sorted((f.line, f.code) for f in check_file(str(root / "model.py"), Settings(), ["MS604"]))


def test_keywords_no_running_call_passes_through_two_factories(tmp_path):
    assert found(tmp_path / "app", "net = net_s()\n") == []


@pytest.mark.parametrize("builds, model, files", [
    ("net = net_s(zero_init=True)\n", MODEL, {}),  # a call passes the keyword on
    ("net = net_x()\n", MODEL, {}),  # the factory that fills it runs
    ("net = net_s()\n", MODEL.replace("    return Net(channels", "    print(arch)\n    return Net(channels"),
     {}),  # the string "net_s" is read: it may choose what runs
    ("net = net_s()\n", MODEL, {"tool.py": "import model\n\nNAMES = list(model.__all__)\n"}),  # __all__ read
    ("net = net_s()\n", MODEL.replace("-> Net:\n    return Net", "-> 'Net':\n    return Net"),
     {}),  # a string annotation is a string naming the class
    ("net = net_s()\nnet2 = _net('net_s', 3, zero_init=True)\nfrom model import _net\n", MODEL, {}),
])
def test_a_site_that_may_pass_the_keyword_keeps_the_branch(tmp_path, builds, model, files):
    assert found(tmp_path / "app", builds, model, **files) == [(CONV_LINE, "MS604")]


def test_a_library_keeps_the_branch(tmp_path):
    root = tmp_path / "lib"
    (root / "pkg").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "pkg"\nversion = "0.1.0"\n')
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "model.py").write_text(MODEL)
    (root / "pkg" / "use.py").write_text("from pkg.model import net_s\n\nnet = net_s()\n")
    assert sorted((f.line, f.code) for f in check_file(str(root / "pkg" / "model.py"), Settings(), ["MS604"])) == [
        (CONV_LINE, "MS604")]
