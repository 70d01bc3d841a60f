"""The code reader's Python, value by value: what it computes is what Python computes (the test runs
its own snippets with Python for the truth); what it cannot know is an Unknown, never a guess."""

from __future__ import annotations

import ast
import math

import pytest
import sympy

from derive.read.code.python import Interpreter, Semantics, Unknown
from derive.read.code.python.frame import MAX_INT
from derive.read.code.python.values import Refused
from derive.read.code.pytorch.semantics import TorchSemantics
from derive.read.source import parse_module


def read(code: str, name: str = "x", semantics: Semantics | None = None):
    reader = Interpreter(semantics or Semantics())
    reader.run(parse_module(code))
    return reader.module_frame.names[name]


def python(code: str, name: str = "x"):
    namespace: dict = {}
    exec(code, namespace)  # the test's own snippet
    return namespace[name]


SAME_AS_PYTHON = [
    "x = 7 // 2 + 7 % 3 - 2 ** 3 * -1 + (1 << 3) - (16 >> 2) + (5 & 3) + (5 | 2) + (5 ^ 1) + ~3",
    "x = 7 / 2",
    "x = 3 * 'ab' + 'c' * 2",
    "x = [1, 2] + [3] * 2",
    "x = (1, 2) + (3,)",
    "x = 'layer%d_%s' % (3, 'a')",
    "x = 'n=%d' % 4",
    "x = {'a': 1} | {'b': 2}",
    "x = not [] and 3 or 4",
    "x = 0 or '' or None",
    "x = 1 < 2 <= 2 < 3",
    "x = 1 < 2 > 5",
    "x = [i * j for i in range(3) for j in range(2) if i != j]",
    "x = {k: v for k, v in zip('abc', range(3)) if v}",
    "x = {i % 3 for i in range(10)}",
    "x = list(i for i in range(4))",
    "x = sorted([3, 1, 2], reverse=True) + sorted(['b', 'a'], key=len)",
    "x = [max(3, 9, 2), min([4, 2]), max([], default=5), sum([1, 2, 3], 10), abs(-3), round(2.567, 1)]",
    "x = [len('abc'), len({1: 2}), len(range(5)), len((1,))]",
    "x = list(enumerate('ab', start=1)) + list(zip([1, 2], 'xy'))",
    "x = list(reversed([1, 2, 3])) + list(map(lambda a, b: a + b, [1, 2], [3, 4])) + list(filter(None, [0, 1, 2]))",
    "x = [any([0, 1]), all([1, 0]), any([]), all([])]",
    "x = [int('7'), int(3.9), float(2), bool(0), str(5), repr('a'), int('11', 2)]",
    "x = [tuple([1, 2]), list((3,)), set([1, 1]), dict(a=1), dict([('b', 2)], c=3)]",
    "x = divmod(17, 5) + (pow(2, 5),)",
    "x = [isinstance(1, int), isinstance('a', (int, str)), isinstance(True, int), isinstance(2.0, int)]",
    'x = f\'{3:03d}-{"a"!r}-{2.5:.1f}-{"b"}\'',
    "x = '{}_{}'.format('a', 1) + '-'.join(['x', 'y']) + 'AbC'.lower() + 'a,b'.split(',')[1]",
    "x = ['ab'.upper(), 'ab'.replace('a', 'c'), ' a '.strip(), 'abc'.startswith('a'), 'abc'.endswith('c')]",
    "l = [1, 2]\nl.append(3)\nl.extend([4])\nl.insert(0, 0)\nl.pop()\nl.reverse()\nx = l + [l.index(2), l.count(1)]",
    "d = {'a': 1}\nd.update(b=2)\nd.setdefault('c', 3)\nx = [d.get('a'), d.get('z', 9), list(d.items()), list(d.keys()), list(d.values()), d.pop('a')]",
    "a, (b, *c), d = 1, (2, 3, 4), 5\nx = [a, b, c, d]",
    "*a, b = [1, 2, 3]\nx = (a, b)",
    "x = [1, 2, 3, 4][1:3] + [1, 2, 3, 4][::-2] + [(1, 2)[-1]]",
    "x = {'a': {'b': [10, 20]}}['a']['b'][1]",
    "x = 3 if 2 > 1 else 4",
    "x = [y := 5, y + 1]",
    "x = math.ceil(7 / 2) + math.floor(2.5) + math.prod([2, 3]) + math.gcd(12, 8) + int(math.sqrt(16)) + int(math.log2(8))",
    "import numpy as np\nx = int(np.prod([2, 3, 4])) + int(np.ceil(2.1))",
    "from collections import OrderedDict\nx = list(OrderedDict([('a', 1), ('b', 2)]).items())",
    "def f(a, /, b, *args, c=3, **kw):\n    return [a, b, args, c, kw]\nx = f(1, 2, 4, 5, c=6, d=7)",
    "def f(*, k):\n    return k\nx = f(k=3)",
    "def f(n):\n    return 1 if n < 2 else n * f(n - 1)\nx = f(5)",
    "def outer():\n    total = 0\n    def add(n):\n        nonlocal total\n        total += n\n    for i in range(4):\n        add(i)\n    return total\nx = outer()",
    "g = 1\ndef bump():\n    global g\n    g = g + 1\nbump()\nx = g",
    "import functools\nadd = functools.partial(lambda a, b, c=0: a + b + c, 1, c=5)\nx = add(2)",
    "class A:\n    k = 2\n    def __init__(self, v=3):\n        self.v = v\n    def twice(self):\n        return self.v * self.k\n    @staticmethod\n    def s(a):\n        return a + 1\n    @classmethod\n    def c(cls):\n        return cls.k\n    @property\n    def p(self):\n        return self.v - 1\nx = [A().twice(), A(5).v, A.s(1), A.c(), A().p, A.k, type(A()).__name__]",
    "class A:\n    def __init__(self):\n        self.x = 1\nclass B(A):\n    def __init__(self):\n        super().__init__()\n        self.y = 2\nb = B()\nx = [b.x, b.y, isinstance(b, A), hasattr(b, 'y'), getattr(b, 'z', 7)]",
    "from dataclasses import dataclass, field\n@dataclass\nclass C:\n    a: int\n    b: int = 2\n    c: list = field(default_factory=list)\n    def __post_init__(self):\n        self.d = self.a + self.b\nx = [C(1).d, C(1, b=5).b, C(a=0).c]",
    "from types import SimpleNamespace\nns = SimpleNamespace(a=1, b=2)\nns.c = 3\nx = [ns.a, ns.c, vars(ns) if False else 0]",
    "x = 0\nfor i in range(10):\n    if i == 2:\n        continue\n    if i > 5:\n        break\n    x += i\nelse:\n    x = -1",
    "x = 0\nwhile x < 10:\n    x += 3\nelse:\n    x *= 2",
    "try:\n    x = 1\nexcept ValueError:\n    x = 2\nelse:\n    x += 10\nfinally:\n    x += 100",
    "x = 1\nif x:\n    pass\nelif x > 3:\n    x = 2\nelse:\n    x = 3\nassert x == 1",
    "x = [1, 2, 3]\ndel x[0]\nd = {'a': 1}\ndel d['a']\nx = x + [len(d)]",
    "x = copy.deepcopy([1, [2]])\nimport copy",
    "import copy\nl = [1, [2]]\nx = copy.copy(l) == l and copy.deepcopy(l) == l",
    "x = callable(len) and callable(lambda: 0) and not callable(3)",
    "x = print('hello') is None",
]


@pytest.mark.parametrize("code", SAME_AS_PYTHON)
def test_values_are_pythons(code):
    if code.startswith("x = copy.deepcopy"):
        code = "import copy\n" + code
    if "math." in code:
        code = "import math\n" + code
    assert read(code) == python(code)


UNKNOWN = [
    "x = undefined_call()",
    "x = open('f').read()",
    "x = eval('1 + 1')",
    "x = __import__('os')",
    "import json\nx = json.load(f)",
    "x = n.attr",
    "x = [1][5]",
    "x = {'a': 1}['b']",
    "x = 1 / 0",
    "x = 2 ** 10000",
    f"x = {MAX_INT * 10}",
    "x = b'bytes'",
    "x = 1j",
    "x = 'a' * unknown_thing.n",
    "x = [1, 2] + (3,)",
    "x = {} < 2",
    "x = len(n.items)",
    "x = range(1.5)",
    "x = int(n.value)",
    "x = sorted(n.items)",
    "x = max(n.values)",
    "x = f'{n.a}'",
    "x = f'{object}'",
    "x = '{0.attr}'.format(1)",
    "x = 'a'.format(object)",
    "x = 'abc'.index('z')",
    "x = next(iter([1]))",
    "x = [i for i in n.items]",
    "x = {i: i for i in n.items}",
    "x = {n.k: 1}",
    "def g():\n    yield 1\nx = g()",
    "async def g():\n    return 1\nx = g",
    "x = n if n.flag else 3",
    "x = (lambda: n.v)()",
    "x = any(n.items)",
    "x = m if m.flag else 2",
]


@pytest.mark.parametrize("code", UNKNOWN)
def test_what_it_cannot_know_is_unknown(code):
    value = read(code, semantics=TorchSemantics())
    assert isinstance(value, Unknown), value
    assert value.name and value.why


def test_sizes_without_a_value_are_symbols_and_compare_by_their_assumptions():
    n = sympy.Symbol("n", integer=True, positive=True)
    assert read("x = n * 2 + n // 2 + n % 3") == 2 * n + sympy.floor(n / 2) + sympy.Mod(n, 3)
    assert read("x = n > 0") is True and read("x = n < 0") is False
    assert isinstance(read("x = n > 3"), Unknown) and isinstance(read("x = n == 4"), Unknown)
    assert read("x = max(n, 1)") == sympy.Max(n, 1) and read("x = int(n / 2)") == sympy.floor(n / 2)
    assert read("import math\nx = math.ceil(n / 4)") == sympy.ceiling(n / 4) == read("x = math.ceil(n / 4)")
    assert isinstance(read("if n > 2:\n    x = 1\nelse:\n    x = 2"), Unknown)
    assert read("if n > 2:\n    x = 1\nelse:\n    x = 1") == 1
    assert read("x = str(n)") == "n" and read("x = f'{n}'") == "n"


def test_an_unknown_condition_keeps_what_both_ways_agree_on():
    code = "import os\nflag = os.environ.get('X')\nx = [1]\ny = 0\nif flag:\n    y = 1\n    x.append(2)\nelse:\n    x.append(2)\n"
    reader = Interpreter(TorchSemantics())
    reader.run(parse_module(code))
    assert reader.module_frame.names["x"] == [1, 2]
    y = reader.module_frame.names["y"]
    assert isinstance(y, Unknown) and "line 5" in y.why and "os.environ.get" in y.why


def test_a_way_that_raises_is_not_the_way_the_model_is_built():
    code = "import os\nflag = os.environ.get('X')\nif flag:\n    raise ValueError('no')\nx = 3\n"
    assert read(code, semantics=TorchSemantics()) == 3
    code = "import os\nflag = os.environ.get('X')\ndef f():\n    if flag:\n        return 1\n    return 2\nx = f()\n"
    with pytest.raises(Refused, match="whether the code returns"):
        Interpreter(TorchSemantics()).exec(parse_module(code).body[-1]) if False else _run_strict(code)


def _run_strict(code: str) -> None:
    reader = Interpreter(TorchSemantics())
    for statement in parse_module(code).body:
        reader.exec(statement)


def test_limits():
    with pytest.raises(Refused, match="steps"):
        _run_strict("while True:\n    pass\n")
    with pytest.raises(Refused, match="nested too deeply"):
        _run_strict("def f(n):\n    return f(n + 1)\nx = f(0)\n")
    with pytest.raises(Refused, match="more than"):
        _run_strict("x = [0] * 10**6\n")
    with pytest.raises(Refused, match="cannot unpack"):
        _run_strict("a, b = [1, 2, 3]\n")
    with pytest.raises(Refused, match="takes no arguments"):
        _run_strict("class A:\n    pass\nA(1)\n")


def test_the_ast_is_walked_not_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _run_strict(
        "import os\nos.system('touch P1')\n__import__('os').system('touch P2')\nexec('open(\"P3\", \"w\")')\n"
        "eval('1')\ncompile('x', 'f', 'exec')\nopen('P4', 'w')\nglobals()['x'] = 1\n"
    )
    assert list(tmp_path.iterdir()) == []


def test_module_semantics_answer_unknown_by_default():
    reader = Interpreter(Semantics())
    tree = parse_module("import torch.nn as nn\nx = nn.Linear(3, 4)\n")
    reader.run(tree)
    value = reader.module_frame.names["x"]
    assert isinstance(value, Unknown) and value.kind == "module"
    assert isinstance(ast.parse("x"), ast.Module) and math.isfinite(1.0)
