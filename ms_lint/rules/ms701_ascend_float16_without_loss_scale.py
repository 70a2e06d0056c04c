"""MS701: training a network whose Ascend operators compute in float16, with no loss scaling (off by default)."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from ms_lint import mindspore_api as api
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.model import TENSOR, ModuleFacts
from ms_lint.model.syntax import FunctionNode
from ms_lint.rules.base import Rule
from ms_lint.target import device_names

# Each operator family: the names that build or call it, and what the documentation says of its dtype on Ascend.
_FAMILIES = {
    "Conv": (frozenset({
        "Conv1d", "Conv2d", "Conv1dTranspose", "Conv2dTranspose", "Conv2dBnAct", "ConvTranspose1d", "ConvTranspose2d",
        "conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d", "Conv2D", "Conv2DTranspose",
        "Conv2DBackpropInput", "DepthwiseConv2dNative",
    }), "CANN 8.0.0 operator specification: float16 inputs on Atlas training-series products"),
    "Conv3d": (frozenset({"Conv3d", "Conv3dTranspose", "ConvTranspose3d", "conv3d", "conv_transpose3d", "Conv3D",
                          "Conv3DTranspose"}),
               "MindSpore 2.10 nn.Conv3d page: float16 only on Ascend"),
    "Sort": (frozenset({"sort", "Sort", "argsort"}),
             "MindSpore 2.10 ops.sort page: float32 may lose accuracy"),
}
_OPERATOR_NAMES = frozenset().union(*(names for names, _ in _FAMILIES.values()))
# What shows the module scales the loss: MindSpore's loss-scale classes and functions, and the project's own
# helpers, trusted by name (``create_loss_scaler``, ``self.loss_scaler``, ``scale_sense=``).
_LOSS_SCALE_NAMES = frozenset({
    "FixedLossScaleManager", "DynamicLossScaleManager", "LossScaleManager", "TrainOneStepWithLossScaleCell",
    "DynamicLossScaler", "StaticLossScaler", "LossScaler", "all_finite", "DynamicLossScaleUpdateCell",
    "FixedLossScaleUpdateCell",
})
_LOSS_SCALE_WORDS = ("loss_scale", "lossscale", "loss_scaler", "scale_sense")
# Training set-ups: the callee's own name -> (keyword of the network, its position).
_SETUPS = {
    "Model": ("network", 0),
    "TrainOneStepCell": ("network", 0),
    "build_train_network": ("network", 0),
    "value_and_grad": ("fn", 0),
    "grad": ("fn", 0),
}
_AMP_LEVEL = {"Model": "amp_level", "build_train_network": "level"}
_EXAMPLE_NETWORK = """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(3, 8, 3)

            def construct(self, x):
                return self.conv(x)

        net = Net()"""
_CHAIN_METHODS = frozenset({"set_train", "set_grad", "to_float", "add_flags_recursive", "set_boost"})


@dataclass(frozen=True, kw_only=True)
class LossUnscaled(FindingData):
    """A training setup with no loss scaling whose network uses an operator documented for float16 on Ascend:
    the operator, its family (a key of ``_FAMILIES``), the dtype, the target's devices it concerns, the setup
    (``Model``, ``TrainOneStepCell``) and the network as written."""

    operator: str
    family: str
    dtype: str = fact(for_users=True)
    devices: list[str]
    setup: str
    network: str

    def message(self) -> str:
        return (f"{self.setup} trains {self.network}, which uses {self.operator}, with no loss scaling in this "
                f"module: on {device_names(self.devices)}, {self.family} is documented for float16 "
                f"({_FAMILIES[self.family][1]}; the migration guide says to add loss scale), so gradients can "
                "underflow or overflow silently; add a loss-scale manager")


class AscendFloat16WithoutLossScale(Rule):
    code = "MS701"
    name = "ascend-float16-without-loss-scale"
    summary = ("training (Model, TrainOneStepCell, value_and_grad) of a network with Conv or Sort, on Ascend, with "
               "no loss scaling in the module")
    fix_summary = ("scale the loss: `Model(..., loss_scale_manager=DynamicLossScaleManager())`, "
                   "`TrainOneStepWithLossScaleCell`, or `amp.DynamicLossScaler` with `amp.all_finite`")
    enabled_by_default = False
    level = "warning"
    what = """
        Reports, on an Ascend target (`device = "ascend"`, or `"any"`, where the message says "on Ascend"; silent for
        `cpu` and `gpu`), a training set-up (`Model(network, loss, optimizer)`, `nn.TrainOneStepCell(network, ...)`,
        `amp.build_train_network(network, ...)`, `value_and_grad(fn, ...)`/`grad`) whose network uses a
        convolution (`nn.Conv1d/2d/3d`, their Transpose variants, `mint.nn.Conv2d`, `ops.conv2d`, `ops.Conv2D`...)
        or a sort (`ops.sort`, `mint.sort`, `Tensor.sort`, `argsort`), when nothing in the module scales the loss.

        What is resolved, within the one module: the network argument through the names it is bound to, through
        wrapping Cells (`nn.WithLossCell(net, loss)`, `nn.SequentialCell([...])`), through factory functions of the
        module that return it, and, for `value_and_grad(forward_fn)`, through the Cells the forward function calls;
        a Cell class of the module uses an operator when its methods build or call it (also through a helper
        function of the module that builds the layer: `self.conv1 = conv(1, 6, 5)`), or build a Cell class of the
        module that does (also through base classes). A network built by another module (`create_model(...)`) is
        not followed: no finding, nor in a test module (`test_*.py`, `*_test.py`: a few steps that check what a
        step computes). Loss scaling is anything of MindSpore's (`FixedLossScaleManager`,
        `DynamicLossScaleManager`, `TrainOneStepWithLossScaleCell`, `amp.DynamicLossScaler`/`StaticLossScaler`,
        `amp.all_finite`), a `loss_scale_manager=` other than `None`, `amp_level="O2"` given to `Model` or
        `build_train_network` (its default loss-scale manager is dynamic), or a name of the project that speaks of
        it (`create_loss_scaler`, `self.loss_scaler`, `scale_sense=`). `TopK` is not reported: MindSpore's ops.TopK
        page (2.10) lists int8, uint8, int32, int64, float16 and float32 as supported on Ascend. Off by default: the
        float16-only statement is the migration guide's and CANN's for Atlas training-series products; newer
        products take float32 convolutions.
    """
    why = """
        MindSpore's migration guide lists among the problem areas of network authoring: "In Ascend environment,
        Conv, Sort and TopK can only be float16, and add loss scale to avoid overflow" (Constructing MindSpore
        Network, "Considerations for MindSpore Network Authoring",
        https://www.mindspore.cn/docs/en/master/migration_guide/model_development/model_development.html). What the
        operator pages say today: CANN's operator specification (8.0.0, General Restrictions,
        https://www.hiascend.com/document/detail/en/canncommercial/800/apiref/aolapi/operatorlist_00094.html) lists
        Conv2D on Atlas training-series products with float16 `x` and `filter` (the output may be float32);
        MindSpore's nn.Conv3d page (2.10): "input data type support float16 and float32 in CPU and GPU, and only
        float16 in Ascend"; ops.sort (2.10): "the data types of float16, uint8, int8, int16, int32, int64 are well
        supported. If using float32, it may cause loss of accuracy"; ops.TopK (2.10) lists float32 for Ascend, so
        TopK is no longer float16-only. A float32 network then runs these operators in float16 on the device:
        gradients that underflow or overflow float16 silently turn to zero or inf, which loss scaling prevents.
        None of this shows on CPU or GPU, where the same code trains in float32.
    """
    example = _EXAMPLE_NETWORK + """
        model = Model(net, loss_fn, optimizer)
    """
    use_instead = _EXAMPLE_NETWORK + """
        model = Model(net, loss_fn, optimizer, loss_scale_manager=ms.amp.DynamicLossScaleManager())
    """

    records = (LossUnscaled,)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        devices = module.target.affected(("ascend",))
        if not devices or not module.written_call_names().keys() & _SETUPS.keys() or module.is_test:
            return  # (a test's few steps check what a step computes: loss-scale advice is for training runs)
        setups = [site for site in module.calls_to(*_SETUPS) if _is_setup(site)]
        if not setups or _scales_loss(module):
            return
        resolver = _NetworkOperators(module)
        for site in setups:
            keyword, position = _SETUPS[api.last_name(site.qualname)]
            network = _argument(site.node, keyword, position)
            if network is None:
                continue
            found = resolver.of_expression(network, site.function, 0)
            if not found:
                continue
            family, operator, network_name = found
            setup = api.last_name(site.qualname)
            yield self.report(module, site.node, LossUnscaled(
                operator=operator, family=family, dtype="float16", devices=list(devices), setup=setup,
                network=network_name))


def _is_setup(site) -> bool:
    name = api.last_name(site.qualname or "")
    if name == "Model":
        call = site.node
        if len(call.args) < 3 and not any(k.arg == "optimizer" for k in call.keywords):
            return False  # evaluation or inference only
    if name in _AMP_LEVEL:
        level = _argument(site.node, _AMP_LEVEL[name], None)
        manager = _argument(site.node, "loss_scale_manager", None)
        if isinstance(level, ast.Constant) and level.value == "O2" and not (
                isinstance(manager, ast.Constant) and manager.value is None):
            return False  # O2 brings a DynamicLossScaleManager
    return True


def _scales_loss(module: ModuleFacts) -> bool:
    source = module.source
    if source and source.isascii():
        # Each name looked for below is written in the text as it is (an identifier that is not ASCII may stand
        # for another once Python normalises it): a module that holds none of them scales no loss.
        lowered = source.lower()
        if not any(word in lowered for word in _LOSS_SCALE_WORDS) and not any(
                name in source for name in _LOSS_SCALE_NAMES):
            return False
    for site in module.calls:
        if api.is_mindspore_name(site.qualname, *_LOSS_SCALE_NAMES):
            return True
        for keyword in site.node.keywords:
            if keyword.arg == "loss_scale_manager" and not (
                    isinstance(keyword.value, ast.Constant) and keyword.value.value is None):
                return True
    for node in ast.walk(module.tree):
        text = None
        if isinstance(node, ast.Name):
            text = node.id
        elif isinstance(node, ast.Attribute):
            text = node.attr
        elif isinstance(node, ast.keyword) and not (isinstance(node.value, ast.Constant) and node.value.value is None):
            text = node.arg
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.alias)):
            text = getattr(node, "name", None)
        if text and (text in _LOSS_SCALE_NAMES or any(word in text.lower() for word in _LOSS_SCALE_WORDS)):
            return True
    return False


def _argument(call: ast.Call, keyword: str, position: int | None) -> ast.AST | None:
    for item in call.keywords:
        if item.arg == keyword:
            return item.value
    if position is not None and len(call.args) > position and not isinstance(call.args[position], ast.Starred):
        return call.args[position]
    return None


def _family(name: str) -> str | None:
    return next((family for family, (names, _) in _FAMILIES.items() if name in names), None)


class _NetworkOperators:
    """Which float16-on-Ascend operator a network expression of the module uses: (family, operator, network)."""

    def __init__(self, module: ModuleFacts):
        self.module = module
        self._classes: dict[str, tuple[str, str] | None] = {}

    def of_class(self, info, depth: int = 0) -> tuple[str, str] | None:
        """(family, operator) a Cell class of the module uses in its own methods, its local bases' or the local
        Cell classes it builds."""
        if info.key in self._classes:
            return self._classes[info.key]
        self._classes[info.key] = None  # a guard against classes that build each other
        found = None
        module = self.module
        for member in info.lineage():
            for site in module.calls:
                if site.owner is not member:
                    continue
                found = self._operator_of_call(site.node, site.function) or self._of_factory(site.node)
                if found is None and depth < 8:
                    built = module.class_of_constructor(site.node)
                    if built is not None and built[1] is not None and built[1] is not info and built[2] is module:
                        found = self.of_class(built[1], depth + 1)
                if found:
                    break
            if found:
                break
        self._classes[info.key] = found
        return found

    def _of_factory(self, call: ast.Call) -> tuple[str, str] | None:
        """A layer a helper function of the module builds for the caller (``self.conv1 = conv(1, 6, 5)`` where
        ``conv`` returns ``nn.Conv2d(...)``)."""
        factory = self.module.local_function(call.func)
        if factory is None:
            return None
        return next(filter(None, (self._operator_of_call(inner, factory)
                                  for inner in self.module.index.body_nodes_of(factory, (ast.Call,)))), None)

    def _operator_of_call(self, call: ast.Call, function: FunctionNode | None) -> tuple[str, str] | None:
        qualname = self.module.qualname(call.func)
        if api.is_mindspore(qualname):
            name = api.last_name(qualname)
            family = _family(name)
            if family:
                return family, name
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr in ("sort", "argsort") and function is not None:
            graph = next((g for g in self.module.graph_functions if g.node is function), None)
            if graph is not None and graph.kind(func.value) == TENSOR:
                return "Sort", f"Tensor.{func.attr}"
        return None

    def of_expression(self, expr: ast.AST, function: FunctionNode | None, depth: int) -> tuple[str, str, str] | None:
        if expr is None or depth > 6:
            return None
        module = self.module
        if isinstance(expr, ast.Name):
            local = module.local_function(expr)
            if local is not None:
                return self._of_forward_function(local, function, depth)
            value = module.value_bound_to(expr, function, None)
            found = self.of_expression(value, function, depth + 1) if value is not None else None
            return (found[0], found[1], expr.id if found[2] == "" else found[2]) if found else None
        if isinstance(expr, (ast.List, ast.Tuple)):
            return next(filter(None, (self.of_expression(e, function, depth + 1) for e in expr.elts)), None)
        if not isinstance(expr, ast.Call):
            return None
        func = expr.func
        if isinstance(func, ast.Attribute) and func.attr in _CHAIN_METHODS:
            return self.of_expression(func.value, function, depth + 1)
        direct = self._operator_of_call(expr, function)
        if direct:
            return direct[0], direct[1], direct[1]
        built = module.class_of_constructor(expr)
        if built is not None and built[1] is not None and built[2] is module:
            found = self.of_class(built[1])
            if found:
                return found[0], found[1], built[1].name
            return None
        if built is not None and api.is_mindspore(built[0]):  # WithLossCell(net, loss), SequentialCell([...])
            parts = [*expr.args, *(k.value for k in expr.keywords)]
            found = next(filter(None, (self.of_expression(p, function, depth + 1) for p in parts)), None)
            if found and found[1] == found[2]:  # SequentialCell([nn.Conv1d(...)]): name the wrapper
                return found[0], found[1], api.last_name(built[0])
            return found
        factory = module.local_function(func)
        if factory is not None:
            for node in module.index.body_nodes_of(factory, (ast.Return,)):
                found = self.of_expression(node.value, factory, depth + 1)
                if found:
                    return found
        return None

    def _of_forward_function(self, forward: FunctionNode, caller: FunctionNode | None, depth: int):
        """The Cells a forward function (given to value_and_grad) calls by name."""
        for call in self.module.index.body_nodes_of(forward, (ast.Call,)):
            if isinstance(call.func, ast.Name) and self.module.local_function(call.func) is None:
                value = self.module.value_bound_to(call.func, forward, None)
                scope = forward
                if value is None and caller is not None:
                    value, scope = self.module.value_bound_to(call.func, caller, None), caller
                found = self.of_expression(value, scope, depth + 1) if value is not None else None
                if found:
                    return found
        return None
