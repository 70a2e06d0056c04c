"""The model of a module's graph code: what every rule asks, computed once per file.

Layers, each asking only those above it in this list (and never the engine or a rule):

- ``syntax``: one pre-order pass over the tree, shared by every question; ``source``: reading files as Python does;
- ``scopes``: every name resolved by Python's scoping rules to the binding in force where it is used, imports to
  qualified names (``np`` -> ``numpy``, ``Base`` -> ``mindspore.nn.Cell``);
- ``values``: which expressions are tensor data, host values (numpy arrays, library objects) or constants; constant
  conditions;
- ``flow``: which names a function reads where some path leaves them unbound, joined as MindSpore's parser joins
  branches and loops (syntactic: asks no other layer);
- ``project``: classes and functions of the project's other modules, kept as summaries;
- ``configuration``: what an attribute of an application's configuration holds in every run (its configuration
  files, argparse defaults and shell scripts agree);
- ``construction``: the switches every place an application builds one of its Cells (or calls a function of the
  module) passes, read from the application's files;
- ``handover``: which of its application's classes an entry point hands to MindSpore to compile in GRAPH_MODE;
- ``classes``: Cell lineage, jit classes, user classes, what a Cell's attributes hold;
- ``containers``: the plain lists, tuples and dicts of Cells or Parameters a Cell keeps unregistered;
- ``layers``: which MindSpore layer an attribute read is made on (``self.fc.<name>``, ``m.<name>`` under an
  ``isinstance`` test);
- ``ranks``: the least number of dimensions a tensor value evidently has, from the calls that shaped it;
- ``kinds``: what each expression of a function holds (tensor data, host array, constant), as its tensor-value
  environment says; the constants it folds and the branches they drop;
- ``graph``: which functions MindSpore compiles and why, what their callers pass them, and the eager functions of
  a PyNative Cell;
- ``module``: ``ModuleFacts``, the one object a rule is given.
"""
from ms_lint.model.classes import ClassInfo
from ms_lint.model.containers import PlainContainer
from ms_lint.model.graph import EagerFunction, GraphFunction
from ms_lint.model.module import CallSite, ModuleFacts
from ms_lint.model.syntax import FunctionNode
from ms_lint.model.values import HOST, TENSOR, join

__all__ = ["CallSite", "ClassInfo", "EagerFunction", "FunctionNode", "GraphFunction", "HOST", "ModuleFacts",
           "PlainContainer", "TENSOR", "join"]
