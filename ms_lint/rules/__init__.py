"""The registry: every rule, by code. The README table, ``ms-lint rules``, SARIF metadata and the checks run
all come from ``ALL_RULES``."""
from __future__ import annotations

from typing import Iterable

from ms_lint.findings import Finding, FindingData
from ms_lint.rules.base import Rule
from ms_lint.rules.ms101_host_library_call import HostLibraryCall
from ms_lint.rules.ms102_tensor_to_host import TensorToHost
from ms_lint.rules.ms103_user_type_in_graph import UserTypeInGraph
from ms_lint.rules.ms104_host_randomness import HostRandomness
from ms_lint.rules.ms105_host_concurrency import HostConcurrency
from ms_lint.rules.ms106_cell_or_parameter_in_graph import CellOrParameterInGraph
from ms_lint.rules.ms107_set_data_in_graph import SetDataInGraph
from ms_lint.rules.ms108_state_written_in_graph import StateWrittenInGraph
from ms_lint.rules.ms109_unsupported_syntax import UnsupportedSyntax
from ms_lint.rules.ms110_dynamic_shape import DynamicShape
from ms_lint.rules.ms111_jit_forbidden_api import JitForbiddenApi
from ms_lint.rules.ms112_gradient_cut_by_host_copy import GradientCutByHostCopy
from ms_lint.rules.ms113_grad_after_call_without_set_grad import GradAfterCallWithoutSetGrad
from ms_lint.rules.ms114_builtin_min_max_on_tensor import BuiltinMinMaxOnTensor
from ms_lint.rules.ms115_tensor_formatting_in_graph import TensorFormattingInGraph
from ms_lint.rules.ms116_name_bound_on_one_path import NameBoundOnOnePath
from ms_lint.rules.ms117_dict_output_indexed_by_key import DictOutputIndexedByKey
from ms_lint.rules.ms118_host_written_graph_state import HostWrittenGraphState
from ms_lint.rules.ms119_instance_parameter_not_self import InstanceParameterNotSelf
from ms_lint.rules.ms120_logging_in_graph import LoggingInGraph
from ms_lint.rules.ms121_branches_join_different_types import BranchesJoinDifferentTypes
from ms_lint.rules.ms122_dict_output_read_by_caller import DictOutputReadByCaller
from ms_lint.rules.ms123_attribute_never_set import AttributeNeverSet
from ms_lint.rules.ms124_augmented_assignment_writes_in_place import AugmentedAssignmentWritesInPlace
from ms_lint.rules.ms130_nested_tensor_control_flow import NestedTensorControlFlow
from ms_lint.rules.ms131_variable_slice_bound import VariableSliceBound
from ms_lint.rules.ms132_float_size_from_true_division import FloatSizeFromTrueDivision
from ms_lint.rules.ms133_xor_of_python_bools import XorOfPythonBools
from ms_lint.rules.ms201_plain_container_of_cells import PlainContainerOfCells
from ms_lint.rules.ms202_plain_container_of_parameters import PlainContainerOfParameters
from ms_lint.rules.ms203_forward_without_construct import ForwardWithoutConstruct
from ms_lint.rules.ms204_init_without_super import InitWithoutSuper
from ms_lint.rules.ms205_conv_padding_without_pad_mode import ConvPaddingWithoutPadMode
from ms_lint.rules.ms301_to_float_with_amp_level import ToFloatWithAmpLevel
from ms_lint.rules.ms401_distributed_without_seed import DistributedWithoutSeed
from ms_lint.rules.ms402_training_without_seed import TrainingWithoutSeed
from ms_lint.rules.ms501_operator_in_data_pipeline import OperatorInDataPipeline
from ms_lint.rules.ms601_two_axis_transpose import TwoAxisTranspose
from ms_lint.rules.ms602_tensor_method_missing import TensorMethodMissing
from ms_lint.rules.ms603_tensor_expand import TensorExpand
from ms_lint.rules.ms604_layer_keyword_not_accepted import LayerKeywordNotAccepted
from ms_lint.rules.ms605_separate_sizes import SeparateSizes
from ms_lint.rules.ms606_layer_positional_argument import LayerPositionalArgument
from ms_lint.rules.ms607_missing_mindspore_api import MissingMindSporeApi
from ms_lint.rules.ms608_pytorch_meaning_keyword import PytorchMeaningKeyword
from ms_lint.rules.ms609_pytorch_default_differs import PytorchDefaultDiffers
from ms_lint.rules.ms610_call_rejected_by_version import CallRejectedByVersion
from ms_lint.rules.ms611_call_meaning_changed import CallMeaningChanged
from ms_lint.rules.ms612_deprecated_api import DeprecatedApi
from ms_lint.rules.ms613_removed_numpy_name import RemovedNumpyName
from ms_lint.rules.ms614_pytorch_layer_attribute import PytorchLayerAttribute
from ms_lint.rules.ms615_parameter_called import ParameterCalledAsFunction
from ms_lint.rules.ms616_pytorch_device_or_optimizer_call import PytorchDeviceOrOptimizerCall
from ms_lint.rules.ms701_ascend_float16_without_loss_scale import AscendFloat16WithoutLossScale
from ms_lint.rules.ms702_ascend_stride_limits import AscendStrideLimits
from ms_lint.rules.ms900_internal_error import InternalError

ALL_RULES: tuple[type[Rule], ...] = (
    HostLibraryCall,
    TensorToHost,
    UserTypeInGraph,
    HostRandomness,
    HostConcurrency,
    CellOrParameterInGraph,
    SetDataInGraph,
    StateWrittenInGraph,
    UnsupportedSyntax,
    DynamicShape,
    JitForbiddenApi,
    GradientCutByHostCopy,
    GradAfterCallWithoutSetGrad,
    BuiltinMinMaxOnTensor,
    TensorFormattingInGraph,
    NameBoundOnOnePath,
    DictOutputIndexedByKey,
    HostWrittenGraphState,
    InstanceParameterNotSelf,
    LoggingInGraph,
    BranchesJoinDifferentTypes,
    DictOutputReadByCaller,
    AttributeNeverSet,
    AugmentedAssignmentWritesInPlace,
    NestedTensorControlFlow,
    VariableSliceBound,
    FloatSizeFromTrueDivision,
    XorOfPythonBools,
    PlainContainerOfCells,
    PlainContainerOfParameters,
    ForwardWithoutConstruct,
    InitWithoutSuper,
    ConvPaddingWithoutPadMode,
    ToFloatWithAmpLevel,
    DistributedWithoutSeed,
    TrainingWithoutSeed,
    OperatorInDataPipeline,
    TwoAxisTranspose,
    TensorMethodMissing,
    TensorExpand,
    LayerKeywordNotAccepted,
    SeparateSizes,
    LayerPositionalArgument,
    MissingMindSporeApi,
    PytorchMeaningKeyword,
    PytorchDefaultDiffers,
    CallRejectedByVersion,
    CallMeaningChanged,
    DeprecatedApi,
    RemovedNumpyName,
    PytorchLayerAttribute,
    ParameterCalledAsFunction,
    PytorchDeviceOrOptimizerCall,
    AscendFloat16WithoutLossScale,
    AscendStrideLimits,
    InternalError,
)

RULES_BY_CODE: dict[str, type[Rule]] = {rule.code: rule for rule in ALL_RULES}
DEFAULT_CODES: frozenset[str] = frozenset(rule.code for rule in ALL_RULES if rule.enabled_by_default)


def data_of(finding: Finding) -> FindingData | None:
    """The record of ``finding``'s data, as its rule declares it; None for a code of no rule, or data of none of
    the rule's shapes (a finding built by hand)."""
    rule = RULES_BY_CODE.get(finding.code)
    return rule.data_of(finding) if rule is not None else None


_instances: dict[str, Rule] = {}
_selections: dict[frozenset[str], tuple[Rule, ...]] = {}  # asked once per file, for the same codes run after run


def rules_for(codes: Iterable[str] | None = None) -> tuple[Rule, ...]:
    """Rule instances for ``codes`` (exact codes), in registry order; ``None`` means the default set."""
    wanted = DEFAULT_CODES if codes is None else frozenset(codes)
    selected = _selections.get(wanted)
    if selected is None:
        for rule_class in ALL_RULES:
            if rule_class.code in wanted and rule_class.code not in _instances:
                _instances[rule_class.code] = rule_class()
        selected = _selections[wanted] = tuple(
            _instances[rule_class.code] for rule_class in ALL_RULES if rule_class.code in wanted)
    return selected
