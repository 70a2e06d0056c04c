"""What the container rules (MS201, MS202) share: the fix that hands a plain container to a registering one."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from ms_lint.edits import Edit, FixContext

if TYPE_CHECKING:
    from ms_lint.findings import Finding


def wrap_container(context: FixContext, finding: "Finding", registering_qualname: str,
                   appendable: bool = True) -> list[Edit]:
    """Edits that hand the plain container holding ``finding``'s element to ``registering_qualname``
    (``nn.CellList``, ``nn.CellDict``, ``ParameterTuple``): where it is built on ``self``, or where a local
    container is stored on ``self``."""
    container = next((c for c in context.module.plain_containers()
                      if any(site is finding.node for site, _ in c.element_sites)), None)
    if container is None:
        return []
    grows = [site for site, _ in container.element_sites if site is not container.created_by]
    if grows and (not appendable or any(isinstance(site, ast.AugAssign) for site in grows)):
        return []  # an immutable container, or `+=`, which the registering container does not support
    callee = context.reference(registering_qualname)
    if "." in container.target and container.created_by is not None:  # built as an attribute, not a local
        value = container.created_by.value
    elif container.stored_by is not None and isinstance(container.stored_by.value, ast.Name):
        value = container.stored_by.value
    else:
        return []
    built = container.created_by.value if container.created_by is not None else value
    if registering_qualname.endswith("CellList") and isinstance(built, (ast.Tuple, ast.GeneratorExp)):
        # CellList takes only a list.
        return [context.replace(value, f"{callee}(list({context.text(value)}))")]
    return [context.wrap(value, callee)]
