"""What an attribute of an application's configuration holds in every run (``ms_lint.model.configuration``): a
key every configuration file of the application and every argparse default agree on is a constant, and the
branches it decides (``Net(non_local=config.non_local)`` then ``if non_local:``; ``if config.temporal_pool:``) never
run, as if the literal were written. A shell script that passes the key, a configuration that cannot be read,
two values, code that assigns it, or no source at all leave it unknown; an option's ``choices`` bound it."""
from __future__ import annotations

import ast
import sys
import textwrap
from pathlib import Path

import pytest

from ms_lint.engine import check_file
from ms_lint.model.configuration import configuration_key, configuration_keys, configured_value, configured_values
from ms_lint.model.values import UNKNOWN
from ms_lint.settings import Settings
from ms_lint.target import forget_projects

MODEL = textwrap.dedent("""\
    from mindspore import nn

    from model_utils.config import config


    class Net(nn.Cell):
        def __init__(self, channels, non_local=True, mode="fc"):
            super().__init__()
            self.dense = nn.Dense(channels, channels)
            if non_local:
                self.blocks = [nn.Dense(channels, channels)]
            if mode == "conv":
                self.convs = [nn.Dense(channels, channels)]
            if config.temporal_pool:
                self.pools = [nn.Dense(channels, channels)]

        def construct(self, x):
            return self.dense(x)
""")
NON_LOCAL_LINE, MODE_LINE, POOL_LINE = 11, 13, 15
# The model zoo's loader: a YAML file read into an object, each key an option of the command line too.
LOADER = textwrap.dedent("""\
    import argparse
    import os

    import yaml


    class Config:
        def __init__(self, values):
            for key, value in values.items():
                setattr(self, key, Config(value) if isinstance(value, dict) else value)


    def get_config():
        parser = argparse.ArgumentParser(add_help=False)
        parser.add_argument("--config_path", type=str, default="../config/a.yaml")
        path, _ = parser.parse_known_args()
        with open(os.path.join(os.path.dirname(__file__), path.config_path)) as handle:
            values = yaml.safe_load(handle)
        parser = argparse.ArgumentParser(parents=[parser])
        for key, value in values.items():
            parser.add_argument("--" + key, default=value)
        values.update(vars(parser.parse_args()))
        return Config(values)


    config = get_config()
""")
TRAIN = textwrap.dedent("""\
    import mindspore as ms

    from model import Net
    from model_utils.config import config

    ms.set_context(mode=ms.GRAPH_MODE)


    def main():
        net = Net(3, non_local=config.non_local, mode=config.mode)
        optimizer = ms.nn.Momentum(net.trainable_params(), 0.1, 0.9)
        ms.train.Model(net, ms.nn.MSELoss(), optimizer).train(1, None)


    if __name__ == "__main__":
        main()
""")
OFF = "non_local: False\nmode: fc\ntemporal_pool: False\n"


@pytest.fixture(autouse=True)
def fresh_projects():
    forget_projects()
    yield
    forget_projects()


def application(root: Path, configs: dict[str, str] | None = None, train: str = TRAIN,
                files: dict[str, str] | None = None) -> Path:
    """An application: ``model.py``, ``train.py``, the loader and the configuration files (``config/a.yaml``:
    everything off, unless given)."""
    texts = {"model.py": MODEL, "train.py": train, "model_utils/config.py": LOADER, "model_utils/__init__.py": ""}
    texts.update({f"config/{name}": text for name, text in (configs or {"a.yaml": OFF}).items()})
    texts.update(files or {})
    for name, text in texts.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root / "model.py"


def found(model: Path) -> list[int]:
    return sorted(finding.line for finding in check_file(str(model), Settings(), ["MS201"]))


def value(model: Path, expression: str):
    return configured_value(str(model), ast.parse(expression, mode="eval").body)


def values(model: Path, expression: str):
    found_values = configured_values(str(model), ast.parse(expression, mode="eval").body)
    return found_values if found_values is UNKNOWN else {value for _, value in found_values}


def test_a_switch_off_in_every_configuration_leaves_its_branches_out(tmp_path):
    model = application(tmp_path / "app", {"a.yaml": OFF, "b.yaml": OFF.replace("fc", "'fc'")})
    assert (value(model, "config.non_local"), value(model, "config.mode"), value(model, "args.temporal_pool")) == (
        False, "fc", False)
    assert found(model) == []


def test_the_same_code_with_the_switches_on_keeps_its_branches(tmp_path):
    on = "non_local: True\nmode: conv\ntemporal_pool: True\n"
    model = application(tmp_path / "app", {"a.yaml": on, "b.yaml": on})
    assert found(model) == [NON_LOCAL_LINE, MODE_LINE, POOL_LINE]


def test_one_configuration_that_turns_a_switch_on_keeps_its_branch(tmp_path):
    big = OFF.replace("non_local: False", "non_local: True")
    model = application(tmp_path / "app", {"a.yaml": OFF, "big.yaml": big})
    assert value(model, "config.non_local") is UNKNOWN
    assert values(model, "config.non_local") == {False, True}
    assert found(model) == [NON_LOCAL_LINE]


@pytest.mark.parametrize("default, expected", [("False", False), ("True", UNKNOWN)])
def test_a_key_a_configuration_leaves_out_takes_the_option_s_default(tmp_path, default, expected):
    train = TRAIN.replace("import mindspore as ms\n", "import argparse\n\nimport mindspore as ms\n", 1) + (
        f"parser = argparse.ArgumentParser()\nparser.add_argument('--non_local', type=bool, default={default})\n")
    model = application(tmp_path / "app", {"a.yaml": OFF, "b.yaml": OFF.replace("non_local: False\n", "")}, train)
    assert value(model, "config.non_local") is expected
    assert found(model) == ([] if expected is False else [NON_LOCAL_LINE])


def test_an_option_no_configuration_sets_holds_its_default(tmp_path):
    train = TRAIN.replace("import mindspore as ms\n", "import argparse\n\nimport mindspore as ms\n", 1) + (
        "parser = argparse.ArgumentParser()\nparser.add_argument('--use-pool', action='store_true')\n"
        "parser.add_argument('--depth', type=int, required=True)\nparser.add_argument('--name', default=None)\n"
        "parser.add_argument('--scale', default=float('1'))\n")
    model = application(tmp_path / "app", train=train)
    assert value(model, "args.use_pool") is False
    assert value(model, "args.name") is None
    assert value(model, "args.depth") is UNKNOWN  # required: every run passes it
    assert value(model, "args.scale") is UNKNOWN  # no literal
    assert value(model, "args.missing") is UNKNOWN  # no source sets it


@pytest.mark.parametrize("script", [
    "python train.py --config_path=../config/a.yaml --non_local=True\n",
    "python train.py --non-local True\n",
    "python main.py --options non_local=True dn_scalar=100\n",
])
def test_a_shell_script_that_passes_the_key_leaves_it_unknown(tmp_path, script):
    model = application(tmp_path / "app", files={"scripts/run_train.sh": script})
    assert value(model, "config.non_local") is UNKNOWN
    assert value(model, "config.temporal_pool") is False  # a key the script does not pass
    assert found(model) == [NON_LOCAL_LINE]


@pytest.mark.parametrize("code", [
    "config.non_local = True\n",
    "config.non_local |= True\n",
    "setattr(config, 'non_local', True)\n",
    "defaults = {'non_local': True}\n",
    "import subprocess\nsubprocess.run(['python', 'train.py', '--non_local', 'True'])\n",
])
def test_code_that_sets_the_key_leaves_it_unknown(tmp_path, code):
    model = application(tmp_path / "app", files={"tools/launch.py": "from model_utils.config import config\n" + code})
    assert value(model, "config.non_local") is UNKNOWN
    assert found(model) == [NON_LOCAL_LINE]


@pytest.mark.parametrize("code", [
    "class Block:\n    def __init__(me, non_local):\n        me.non_local = non_local\n",  # its own attribute
    '"""non_local"""\n\n\ndef non_local(x):\n    return x\n',  # a docstring, a function of that name
    "parser.add_argument('--non_local', dest='non_local', default=False)\n",  # an option with that default
])
def test_code_that_only_names_the_key_leaves_it_known(tmp_path, code):
    model = application(tmp_path / "app", files={"blocks.py": code})
    assert value(model, "config.non_local") is False


CHOICES = TRAIN.replace("import mindspore as ms\n", "import argparse\n\nimport mindspore as ms\n", 1) + (
    "parser = argparse.ArgumentParser()\n"
    "parser.add_argument('--model_type', type=str, default='DDBPN', choices=['DBPNS', 'DDBPN', 'DBPN'])\n")


def test_choices_bound_what_a_script_may_pass(tmp_path):
    model = application(tmp_path / "app", train=CHOICES, files={"scripts/run.sh": "python train.py --model_type=$2\n"})
    assert value(model, "args.model_type") is UNKNOWN
    assert values(model, "args.model_type") == {"DBPNS", "DDBPN", "DBPN"}


def test_an_option_no_script_passes_holds_its_default_among_its_choices(tmp_path):
    model = application(tmp_path / "app", train=CHOICES)
    assert value(model, "args.model_type") == "DDBPN"


@pytest.mark.parametrize("broken", ["non_local: [False\n", "non_local: False\n\tmode: fc\n"])
def test_a_configuration_the_parser_cannot_read_leaves_every_key_unknown(tmp_path, broken):
    model = application(tmp_path / "app", {"a.yaml": OFF, "broken.yaml": broken})
    assert value(model, "config.non_local") is UNKNOWN
    assert value(model, "config.temporal_pool") is UNKNOWN
    assert found(model) == [NON_LOCAL_LINE, MODE_LINE, POOL_LINE]


def test_without_pyyaml_nothing_is_known_from_yaml(tmp_path, monkeypatch):
    """PyYAML comes with the ``validate`` extra only: without it no YAML file is read, and no key is known."""
    monkeypatch.setitem(sys.modules, "yaml", None)  # ``import yaml`` raises ImportError, as where it is missing
    with pytest.raises(ImportError):
        import yaml  # noqa: F401
    model = application(tmp_path / "app")
    assert value(model, "config.non_local") is UNKNOWN
    assert found(model) == [NON_LOCAL_LINE, MODE_LINE, POOL_LINE]


def test_json_and_python_configurations_are_read_too(tmp_path):
    model = application(tmp_path / "app", {"a.json": '{"non_local": false, "mode": "fc", "temporal_pool": false}',
                                           "b.py": "non_local = False\nmode = 'fc'\ntemporal_pool = 0\n"})
    assert value(model, "config.non_local") is False
    assert value(model, "config.temporal_pool") is UNKNOWN  # ``0`` is no ``False``
    assert found(model) == [POOL_LINE]


def test_nested_keys_are_read_at_their_depth(tmp_path):
    nested = "model:\n  backbone:\n    non_local: False\n    depth: 50\nnon_local: True\n"
    model = application(tmp_path / "app", {"a.yaml": OFF + nested.replace("non_local: True\n", ""),
                                           "b.yaml": "model:\n  backbone:\n    non_local: False\n    depth: 50\n"})
    assert value(model, "cfg.model.backbone.depth") == 50
    assert value(model, "config.model.backbone.non_local") is UNKNOWN  # also set at the top of a.yaml
    assert value(model, "config.model") is UNKNOWN  # no value a branch is decided by


def test_only_attributes_of_a_configuration_are_asked():
    keys = [configuration_keys(ast.parse(text, mode="eval").body)
            for text in ("config.x", "me.config.x", "args.model.x", "net.x", "x", "self_cfg.x", "config")]
    assert keys == [("x",), ("x",), ("model", "x"), None, None, None, None]


def test_a_library_has_no_configuration(tmp_path):
    """A library's users may configure it any way: its configuration folder says nothing of their runs."""
    root = tmp_path / "lib"
    for name, text in {"pyproject.toml": "[project]\nname = 'lib'\n", "lib/__init__.py": "", "lib/model.py": MODEL,
                       "config/a.yaml": OFF}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    assert value(root / "lib" / "model.py", "config.non_local") is UNKNOWN
    assert value(application(tmp_path / "app"), "config.non_local") is False


# A Cell built only by a factory that a branch calls: never built where every run leaves the branch out.
BUILT = textwrap.dedent("""\
    from mindspore import nn


    class Pool(nn.Cell):
        def __init__(self, channels):
            super().__init__()
            self.layers = [nn.Dense(channels, channels)]

        def construct(self, x):
            return x


    class Wrapper(nn.Cell):
        def __init__(self, channels):
            super().__init__()
            self.pool = Pool(channels)

        def construct(self, x):
            return self.pool(x)


    def make_pool(channels):
        return Wrapper(channels)


    class Net(nn.Cell):
        def __init__(self, channels, non_local=True):
            super().__init__()
            self.non_local = non_local
            self.dense = self.build(channels)

        def build(self, channels):
            if self.non_local:
                return make_pool(channels)
            return nn.Dense(channels, channels)

        def construct(self, x):
            return self.dense(x)
""")
POOL_LIST_LINE = 7
NAMED = TRAIN.replace("    net = Net(", "    name = '_'.join(['Net', 'Pool', config.mode])\n    net = Net(", 1)


@pytest.mark.parametrize("switch, lines", [("False", []), ("True", [POOL_LIST_LINE])])
def test_a_cell_built_only_in_a_branch_no_run_takes_is_never_built(tmp_path, switch, lines):
    """``Pool`` is built by ``Wrapper``, built by ``make_pool``, called only where ``self.non_local`` holds, which
    every construction of ``Net`` sets from the configuration: off, nothing in ``Pool`` runs."""
    model = application(tmp_path / "app", {"a.yaml": OFF.replace("non_local: False", f"non_local: {switch}")}, NAMED)
    model.write_text(BUILT)
    assert sorted(finding.line for finding in check_file(str(model), Settings(), ["MS201"])) == lines


def test_a_cell_also_built_where_runs_reach_stays(tmp_path):
    model = application(tmp_path / "app", train=TRAIN + "\n\ndef tool():\n    from model import make_pool\n"
                                                        "    return make_pool(3)\n\n\ntool()\n")
    model.write_text(BUILT)
    assert sorted(finding.line for finding in check_file(str(model), Settings(), ["MS201"])) == [POOL_LIST_LINE]


@pytest.mark.parametrize("switch, lines", [("False", []), ("True", [POOL_LIST_LINE])])
def test_a_factory_an_entry_calls_only_under_a_switch_builds_nothing(tmp_path, switch, lines):
    train = TRAIN.replace("from model import Net", "from model import Net, make_pool").replace(
        "    optimizer =", "    if config.temporal_pool and net:\n        make_pool(3)\n    optimizer =")
    model = application(tmp_path / "app", {"a.yaml": OFF.replace("temporal_pool: False", f"temporal_pool: {switch}")},
                        train)
    model.write_text(BUILT.replace("            if self.non_local:", "            if self.non_local and False:"))
    assert sorted(finding.line for finding in check_file(str(model), Settings(), ["MS201"])) == lines


def test_a_result_cache_checks_the_module_again_when_a_configuration_changes(tmp_path):
    model = application(tmp_path / "app")
    before = configuration_key(str(model))
    assert before and configuration_key(str(model)) == before
    (tmp_path / "app" / "config" / "a.yaml").write_text(OFF.replace("non_local: False", "non_local: True"))
    forget_projects()
    assert configuration_key(str(model)) != before
    assert value(model, "config.non_local") is True


RUN_SCRIPT = {"scripts/run.sh": "python train.py --model_type=$2\n"}


@pytest.mark.parametrize("choices, lines", [
    ("['DBPNS', 'DDBPN', 'DBPN']", [NON_LOCAL_LINE]),
    ("['DBPNS', 'DDBPN', 'conv']", [NON_LOCAL_LINE, MODE_LINE]),
])
def test_a_branch_none_of_an_option_s_choices_takes_never_runs(tmp_path, choices, lines):
    """``Net(3, mode=args.model_type)`` where a script passes ``--model_type``: ``mode`` holds one of the choices,
    and ``if mode == "conv":`` is false for each, unless ``"conv"`` is one."""
    train = CHOICES.replace("mode=config.mode", "mode=args.model_type").replace(
        "['DBPNS', 'DDBPN', 'DBPN']", choices)
    model = application(tmp_path / "app", {"a.yaml": OFF.replace("non_local: False", "non_local: True")}, train,
                        RUN_SCRIPT)
    assert found(model) == lines


@pytest.mark.parametrize("other", ["Net(3, mode='conv')", "Net(3, mode=config.unset)", "Net(3, mode=choice)"])
def test_several_values_with_one_that_takes_the_branch_or_is_unknown_keep_it(tmp_path, other):
    train = CHOICES.replace("mode=config.mode", "mode=args.model_type").replace(
        "    optimizer =", f"    choice = input()\n    other = {other}\n    optimizer =")
    model = application(tmp_path / "app", None, train, RUN_SCRIPT)
    assert MODE_LINE in found(model)


def test_several_literal_values_decide_a_branch_alike(tmp_path):
    train = TRAIN.replace("mode=config.mode", "mode='fc'").replace(
        "    optimizer =", "    other = Net(3, non_local=False, mode='dense')\n    optimizer =")
    assert found(application(tmp_path / "app", None, train)) == []
    forget_projects()
    train = train.replace("mode='dense'", "mode='conv'")
    assert found(application(tmp_path / "conv", None, train)) == [MODE_LINE]
