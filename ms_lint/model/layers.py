"""Which MindSpore layer an attribute read is made on (``self.fc.<name>`` where ``self.fc = nn.Dense(...)``,
``m.<name>`` inside ``if isinstance(m, nn.Dense):``): the one answer the rules about PyTorch layer habits ask
(MS614's attribute PyTorch's layer has, MS615's Parameter called as a function). Kept per module, found when first
asked."""
from __future__ import annotations

import ast

from ms_lint.model.classes import ClassInfo
from ms_lint.model.syntax import FunctionNode, first_argument, self_attribute


class LayerReads:
    """The MindSpore layers a module's attribute reads are made on. One per module (``ModuleFacts.layer_read``)."""

    def __init__(self, module) -> None:
        self.module = module
        self._held: dict[tuple[str, str], str | None] = {}  # (class key, attribute) -> the layer it holds
        self._narrowed: dict[int, list[tuple[str, object, int, int]]] = {}  # id(function) -> ``narrowed``
        self._built: set[str] | None = None

    def layer_read(self, node: ast.Attribute, function: FunctionNode | None, owner: ClassInfo | None) -> str | None:
        """The MindSpore layer ``node`` (in ``function`` of ``owner``) reads an attribute of: ``self.fc.<name>``
        where every assignment of ``self.fc`` builds it, ``m.<name>`` inside ``if isinstance(m, nn.Dense):``,
        ``m.proj.<name>`` inside ``if isinstance(m, Block):`` where ``Block`` builds ``self.proj`` so; None
        otherwise."""
        value = node.value
        receiver = first_argument(function) if owner is not None and function is not None else None
        if receiver is not None:
            holder = self_attribute(value, receiver)
            if holder is not None:
                return self.held(owner, holder)
        if function is None:
            return None
        if isinstance(value, ast.Name):
            kind = self._narrowed_at(function, value.id, node)
            return kind if isinstance(kind, str) else None
        if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name):
            kind = self._narrowed_at(function, value.value.id, node)
            return self.held(kind, value.attr) if isinstance(kind, ClassInfo) else None
        return None

    def held(self, info: ClassInfo, attribute: str) -> str | None:
        """The MindSpore layer every assignment of ``self.<attribute>`` in ``info`` and its bases builds; None when
        another value, or nothing this module can read, is assigned."""
        key = (info.key, attribute)
        if key not in self._held:
            self._held[key] = self._find_held(info, attribute)
        return self._held[key]

    def _find_held(self, info: ClassInfo, attribute: str) -> str | None:
        built = set()
        for owner in info.lineage():
            for _method, value in owner.attribute_writes.get(attribute, ()):
                if not isinstance(value, ast.Call):
                    return None
                built.add(self.module.qualname(value.func))
        if len(built) != 1:
            return None
        qualname = built.pop()
        return qualname if qualname and qualname.startswith("mindspore.nn.") else None

    def _narrowed_at(self, function: FunctionNode, name: str, node: ast.AST):
        """What the innermost ``isinstance`` test of ``function`` holding ``node`` narrows ``name`` to, or None."""
        narrowed = self._narrowed.get(id(function))
        if narrowed is None:
            narrowed = self._narrowed[id(function)] = self._find_narrowed(function)
        holding = [(start, kind) for bound, kind, start, end in narrowed
                   if bound == name and start <= node.lineno <= end]
        return max(holding, key=lambda pair: pair[0])[1] if holding else None

    def _find_narrowed(self, function: FunctionNode) -> list[tuple[str, object, int, int]]:
        """(name, what ``isinstance`` narrows it to, first and last line of the body) for each ``if isinstance(name,
        C):`` of ``function``, where ``C`` is one class of this module or one MindSpore layer the module builds (a
        weight-initialising function's branch for a layer the model never holds does not run)."""
        module = self.module
        found = []
        for node in module.index.own_code(function):
            if not isinstance(node, ast.If) or not node.body:
                continue
            test = node.test
            if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance"
                    and len(test.args) == 2 and isinstance(test.args[0], ast.Name)):
                continue
            qualname = module.qualname(test.args[1])
            kind = module.local_class(qualname) or (
                qualname if qualname and qualname.startswith("mindspore.nn.") and qualname in self._layers_built()
                and not self._subclassed(qualname) else None)
            if kind is not None:
                found.append((test.args[0].id, kind, node.body[0].lineno, node.body[-1].end_lineno or node.lineno))
        return found

    def _layers_built(self) -> set[str]:
        """The qualified names of the MindSpore layers the module calls (builds) anywhere."""
        if self._built is None:
            module = self.module
            index = module.index
            calls = (map(index.nodes.__getitem__, index.positions_of(ast.Call)) if not index.outline
                     else (node for node in ast.walk(module.tree) if isinstance(node, ast.Call)))
            self._built = {qualname for node in calls for qualname in (module.qualname(node.func),)
                           if qualname and qualname.startswith("mindspore.nn.")}
        return self._built

    def _subclassed(self, qualname: str) -> bool:
        """Whether a class of this module derives from the MindSpore layer ``qualname`` (its instances pass the
        ``isinstance`` test and may set PyTorch's attributes themselves)."""
        module = self.module
        return any(qualname in (module.qualname(base) for base in info.node.bases)
                   for info in module.classes.values())
