"""The one pre-order pass every question reads (``ms_lint.syntax``): same nodes as ``ast.walk``, source order,
definitions' bodies as contiguous runs, and no recursion however deep the code."""
from __future__ import annotations

import ast
import textwrap

from ms_lint.model.syntax import NodeIndex, preorder

SOURCE = textwrap.dedent('''
    import numpy as np

    LIMIT = np.zeros(3)

    @decorate(np.ones(2))
    def helper(x, scale=np.float32(2)):
        y = x * scale

        def inner(z):
            return z + 1

        class Local:
            attribute = np.arange(4)

            def method(self):
                return self.attribute

        total = sum(lambda_value for lambda_value in (lambda q: [q, q])(y))
        for item in range(3):
            while item:
                item -= 1
        return inner(y) + total

    class Net(Base, metaclass=Meta):
        size = 4

        def construct(self, x):
            return helper(x)

    print(helper(LIMIT))
''')

CONTEXTS = (ast.Load, ast.Store, ast.Del)


def ids(nodes) -> list[int]:
    return sorted(id(node) for node in nodes)


def walk_without_contexts(node: ast.AST) -> list[ast.AST]:
    return [n for n in ast.walk(node) if not isinstance(n, CONTEXTS)]


def find(tree: ast.AST, node_type: type, name: str) -> ast.AST:
    return next(n for n in ast.walk(tree) if isinstance(n, node_type) and getattr(n, "name", None) == name)


def test_the_index_holds_the_nodes_ast_walk_finds_but_the_contexts():
    tree = ast.parse(SOURCE)
    index = NodeIndex(tree)
    assert ids(index.nodes) == ids(walk_without_contexts(tree))
    assert not any(isinstance(node, CONTEXTS) for node in index.nodes)


def test_nodes_come_in_source_order_with_a_definitions_header_before_its_body():
    tree = ast.parse(SOURCE)
    index = NodeIndex(tree)
    statements = [node for node in index.nodes if isinstance(node, ast.stmt)]
    helper = find(tree, ast.FunctionDef, "helper")
    net = find(tree, ast.ClassDef, "Net")
    # Statements in order of their lines, except a definition's decorators, which come with its header.
    assert [s.lineno for s in statements] == sorted(s.lineno for s in statements)
    position = {id(node): number for number, node in enumerate(index.nodes)}
    decorator_call = helper.decorator_list[0]
    assert position[id(helper)] < position[id(decorator_call)] < position[id(helper.body[0])]
    assert position[id(net.bases[0])] < position[id(net.keywords[0])] < position[id(net.body[0])]


def test_subtree_of_a_definition_or_loop_is_what_ast_walk_gives():
    tree = ast.parse(SOURCE)
    index = NodeIndex(tree)
    spanned_types = (ast.FunctionDef, ast.ClassDef, ast.For, ast.While, ast.Lambda)
    spanned = [n for n in ast.walk(tree) if isinstance(n, spanned_types)]
    assert len(spanned) == 9  # six definitions, a lambda, a for and a while
    for node in spanned:
        subtree = index.subtree(node)
        assert subtree[0] is node
        assert ids(subtree) == ids(walk_without_contexts(node))


def test_subtree_of_a_node_from_elsewhere_is_walked_on_demand():
    index = NodeIndex(ast.parse(SOURCE))
    other = ast.parse("def f(a):\n    return [a, -a]\n").body[0]
    assert ids(index.subtree(other)) == ids(walk_without_contexts(other))
    assert ids(index.subtree(other.body[0])) == ids(walk_without_contexts(other.body[0]))


def test_calls_written_in_a_subtree_are_those_ast_walk_finds_there():
    tree = ast.parse(SOURCE)
    index = NodeIndex(tree)
    for name in ("helper", "inner", "method", "construct"):
        node = find(tree, ast.FunctionDef, name)
        for written in ("range", "sum", "arange", "helper", "ones"):
            expected = [n for n in ast.walk(node) if isinstance(n, ast.Call) and (
                getattr(n.func, "id", None) == written or getattr(n.func, "attr", None) == written)]
            assert ids(index.calls_written_in(node, written)) == ids(expected), (name, written)
    calls = index.calls_written_in(find(tree, ast.FunctionDef, "helper"), "range")
    assert [ast.unparse(call) for call in calls] == ["range(3)"]


def test_calls_written_in_a_node_the_index_does_not_hold_whole_are_not_known():
    tree = ast.parse(SOURCE)
    helper = find(tree, ast.FunctionDef, "helper")
    assert NodeIndex(tree, outline=True).calls_written_in(helper, "range") is None  # an outline: no body
    assert NodeIndex(tree).calls_written_in(ast.parse("def f(): range(2)").body[0], "range") is None


def test_body_of_a_function_enters_nested_functions_and_lambdas_but_not_classes():
    tree = ast.parse(SOURCE)
    index = NodeIndex(tree)
    helper = find(tree, ast.FunctionDef, "helper")
    local = find(tree, ast.ClassDef, "Local")
    inner = find(tree, ast.FunctionDef, "inner")
    body = index.body(helper)
    expected = [n for statement in helper.body for n in walk_without_contexts(statement)]
    inside_local = {id(n) for n in walk_without_contexts(local)} - {id(local)}
    assert ids(body) == ids(n for n in expected if id(n) not in inside_local)
    assert local in body and inner in body and inner.body[0] in body
    assert not any(isinstance(n, ast.arguments) and n is helper.args for n in body), "arguments are not body"
    assert helper.decorator_list[0] not in body
    assert index.body(helper) is body, "a body is computed once"


def test_body_of_a_function_from_elsewhere_is_walked_on_demand():
    index = NodeIndex(ast.parse(SOURCE))
    other = ast.parse("def f(a):\n    class C:\n        x = 1\n    return a\n").body[0]
    body = index.body(other)
    assert [type(n).__name__ for n in body] == ["ClassDef", "Return", "Name"]


def test_own_code_of_a_module_leaves_out_functions_classes_and_lambdas():
    tree = ast.parse(SOURCE + "key = (lambda k: k * 2)(3)\n")
    index = NodeIndex(tree)
    own = list(index.own_code(tree))
    names = {n.id for n in own if isinstance(n, ast.Name)}
    assert names == {"LIMIT", "np", "print", "helper", "key"}
    lambdas = [n for n in own if isinstance(n, ast.Lambda)]
    assert len(lambdas) == 1 and lambdas[0].body not in own
    assert find(tree, ast.FunctionDef, "helper") in own, "the definitions themselves are part of the module's code"


def test_own_code_of_a_function_is_its_body():
    tree = ast.parse(SOURCE)
    index = NodeIndex(tree)
    helper = find(tree, ast.FunctionDef, "helper")
    assert list(index.own_code(helper)) == index.body(helper)


def test_leaves_that_are_not_nodes_are_skipped():
    tree = ast.parse("def f(*, a=None, b):\n    global g, h\n    return {**a, 'k': b}\n")
    index = NodeIndex(tree)
    assert all(isinstance(node, ast.AST) for node in index.nodes)
    assert ids(index.nodes) == ids(walk_without_contexts(tree))


def test_code_nested_far_deeper_than_the_recursion_limit():
    depth = 20_000
    expression = ast.Name(id="x", ctx=ast.Load())
    for _ in range(depth):
        expression = ast.UnaryOp(op=ast.USub(), operand=expression)
    tree = ast.Module(body=[ast.Expr(value=expression)], type_ignores=[])
    index = NodeIndex(tree)
    assert len([n for n in index.nodes if isinstance(n, ast.UnaryOp)]) == depth
    assert len(preorder(tree.body[0])) == len(index.nodes) - 1


def _loop_and_visitors(tree: ast.AST, outline: bool):
    from ms_lint.model import syntax

    by_loop, by_visitors = syntax._Spans(), syntax._Spans()
    return (syntax._traverse(tree, by_loop, outline), by_loop), (syntax._visit(tree, by_visitors, outline), by_visitors)


def test_the_generated_visitors_list_what_the_loop_lists_with_the_same_spans():
    tree = ast.parse(SOURCE + "match q:\n    case [1, *rest] if rest: pass\n    case {'k': True, **kw}: pass\n"
                     "async def a():\n    async with x as (y, z):\n        global g\n        return {**y, 1: z}\n")
    for outline in (False, True):
        (loop_nodes, loop_spans), (visited, visited_spans) = _loop_and_visitors(tree, outline)
        assert visited is not None and len(visited) == len(loop_nodes)
        assert all(a is b for a, b in zip(loop_nodes, visited))
        for field in ("starts", "ends", "body_starts", "class_starts"):
            assert getattr(loop_spans, field) == getattr(visited_spans, field)


def test_a_tree_holding_an_unknown_node_type_is_listed_by_the_loop():
    class Custom(ast.expr):
        _fields = ("inner",)

    tree = ast.parse("x = 1\n")
    tree.body[0].value = Custom(inner=ast.Name(id="y", ctx=ast.Load()))
    assert _loop_and_visitors(tree, False)[1][0] is None
    index = NodeIndex(tree, recorded_types=frozenset({ast.Name}))
    assert [type(node).__name__ for node in index.nodes] == ["Module", "Assign", "Name", "Custom", "Name"]
    assert index.recorded == [2, 4]


def test_recorded_positions_are_those_of_the_recorded_types_in_order():
    tree = ast.parse(SOURCE)
    recorded_types = frozenset({ast.Call, ast.Name, ast.FunctionDef, ast.ClassDef, ast.For, ast.Global})
    for outline in (False, True):
        index = NodeIndex(tree, outline, recorded_types)
        assert index.recorded == [position for position, node in enumerate(index.nodes)
                                  if node.__class__ in recorded_types]
        assert index.recorded


def test_nodes_of_a_type_in_a_body_are_those_of_the_body_without_a_nested_class():
    tree = ast.parse(SOURCE)
    index = NodeIndex(tree)
    helper = find(tree, ast.FunctionDef, "helper")
    body = index.body(helper)
    for node_types in [(ast.Return,), (ast.Call,), (ast.Call, ast.Attribute), (ast.For, ast.While), (ast.Name,),
                       (ast.Assign, ast.Assign), (ast.ClassDef, ast.FunctionDef, ast.Lambda)]:
        assert index.body_nodes_of(helper, node_types) == [n for n in body if n.__class__ in node_types]
    returns = index.body_nodes_of(helper, (ast.Return,))
    assert [r.lineno for r in returns] == [11, 23]  # not the return of Local.method


def test_nodes_of_a_type_in_a_subtree_include_a_nested_class_and_the_header():
    tree = ast.parse(SOURCE)
    index = NodeIndex(tree)
    helper = find(tree, ast.FunctionDef, "helper")
    for node_types in [(ast.Return,), (ast.Call,), (ast.Call, ast.Assign), (ast.Name,), (ast.For, ast.While)]:
        expected = [n for n in index.subtree(helper) if n.__class__ in node_types]
        assert index.subtree_nodes_of(helper, node_types) == expected
    assert len(index.subtree_nodes_of(helper, (ast.Return,))) == 3  # Local.method's return too
    foreign = ast.parse(SOURCE).body[2]
    assert index.subtree_positions_of(foreign, (ast.Call,)) is None
    assert index.subtree_nodes_of(foreign, (ast.Call,)) == [n for n in preorder(foreign) if isinstance(n, ast.Call)]
