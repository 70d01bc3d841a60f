"""The code reader's edges: each refusal and each unknown where it belongs, and torch's rules at their
corners (containers, registration, tensors, both ways of an unknown condition), against torch."""

from __future__ import annotations

import pytest
import sympy

torch = pytest.importorskip("torch")

from torch_code import HEADER, same  # noqa: E402

from derive.read.code.python import Interpreter, Semantics, Unknown  # noqa: E402
from derive.read.code.python.values import Refused, UserRaise  # noqa: E402
from derive.read.code.pytorch.semantics import TorchSemantics  # noqa: E402
from derive.read.source import parse_module  # noqa: E402

n = sympy.Symbol("n", integer=True, positive=True)


def read(code: str, name: str = "x"):
    reader = Interpreter(TorchSemantics())
    reader.run(parse_module(HEADER + code))
    return reader.module_frame.names.get(name)


def strict(code: str) -> None:
    reader = Interpreter(TorchSemantics())
    for statement in parse_module(HEADER + code).body:
        reader.exec(statement)


UNKNOWN = [
    "x = len(3)",
    "x = max([u.a, 1])",
    "x = max(['a', 'b'])",
    "x = max([1], key=abs)",
    "x = sum(u.items)",
    "x = int(3, base=2)",
    "x = list(5)",
    "x = float(n)",
    "x = int([1])",
    "x = int('abc')",
    "x = set([[1]])",
    "x = dict(5)",
    "x = dict([1, 2])",
    "x = list(zip(u.items))",
    "x = sorted([u.a])",
    "x = sorted([1, 'a'])",
    "x = any([u.a])",
    "x = list(map(str, u.items))",
    "x = list(filter(None, u.items))",
    "x = list(filter(lambda v: v.q, [u]))",
    "x = isinstance(u.a, int)",
    "import numpy as np\nx = isinstance(1, np.ndarray)",
    "x = isinstance(n, int)",
    "x = isinstance(1, 3)",
    "x = hasattr(1, u.a)",
    "x = getattr(1, u.a)",
    "x = round(u.a)",
    "x = abs(u.a)",
    "x = abs('a')",
    "x = pow(0, -1)",
    "x = repr([1])",
    "x = callable(u.a)",
    "x = type(3.5j if False else object)",
    "x = n & 1",
    "x = 1 << 5000",
    "x = 10.0 ** 400",
    "x = 10**29 * 10**5",
    "x = [1] % 2",
    "x = '%s' % [1]",
    "x = '%d' % 'a'",
    "x = [1] * 2.5",
    "x = [1] + (2,)",
    "x = u.a is None",
    "x = n in [1, 2]",
    "x = 'a' in u.b",
    "x = not u.a",
    "x = +u.a",
    "x = -'a'",
    "x = u.a and 1",
    "x = [1, 2][u.i]",
    "x = u[1]",
    "x = 3[1]",
    "x = [1, 2][n:]",
    "x = [1, 2][u.a:]",
    "x = [*u.items]",
    "x = {**u.d}",
    "x = {**[1]}",
    "x = {u.k: 1}",
    "x = {[1]: 2}",
    "x = f'{u.a}'",
    "x = f'{1:{u.w}}'",
    "x = f'{[1]}'",
    "x = f'{1:zz}'",
    "x = (yield)",
    "x = [v for v in [1, 2] if u.a]",
    "x = {v for v in u.items}",
    "x = {v: 1 for v in u.items}",
    "x = {k: 1 for k in [u.a]}",
    "x = {[v]: 1 for v in [1]}",
    "x = {[v] for v in [1]}",
    "x = str.upper",
    "x = (1).real",
    "x = 'a'.join([1, 2])",
    "x = '{}'.format(u.a)",
    "x = torch.zeros(u.n)",
    "x = torch.ones(3) @ torch.ones(3)",
    "x = torch.ones(3) + torch.ones(4)",
    "x = torch.ones(3, 4).view(5, -1)",
    "x = torch.ones(3, 4).foo()",
    "x = torch.ones(3)[u.a]",
    "x = torch.ones(3)[0, 0]",
    "x = torch.ones(3).dtype",
    "x = torch.ones(3).size(7)",
    "x = torch.randint(0, 5, u.s)",
    "x = torch.eye(u.n)",
    "x = torch.arange(n)",
    "x = torch.linspace(0, 1, u.s)",
    "x = torch.tensor([[1], [1, 2]])",
    "x = torch.zeros_like(u.t)",
    "x = torch.cuda.is_available()",
    "x = nn.Linear(2, 2).no_such_thing",
    "x = nn.LSTM(2, 2)(u.x)",
    "x = nn.Linear(2, 2) < nn.Linear(2, 2)",
    "x = nn.Linear(2, 2) + 1",
    "x = nn.ModuleDict()['missing']",
    "x = nn.ModuleList()[3]",
    "x = undefined_helper(3).attr",
]


@pytest.mark.parametrize("code", UNKNOWN)
def test_unknown_values(code):
    code = code.replace("u.", "unknown_cfg.").replace("u[", "unknown_cfg[")
    value = read("import json\nunknown_cfg = json.load(open('c'))\n" + code)
    assert isinstance(value, Unknown), (code, value)


KNOWN = {
    "x = int(n)": n,
    "x = n == 'a'": False,
    "x = n != 'a'": True,
    "x = 'a' in 'abc'": True,
    "a = nn.Linear(1, 1)\nx = a == a": True,
    "x = dict({'a': 1}, b=2)": {"a": 1, "b": 2},
    "class A:\n    pass\nx = hasattr(A(), 'q')": False,
    "def f():\n    pass\nx = type(f) == type(f)": True,
    "import functools\np = functools.partial(max, 1)\nx = [p.func is max, p.args, p.keywords]": [True, (1,), {}],
    "x = (lambda: 1).__name__": "<lambda>",
    "x = nn.Linear.__name__": "Linear",
    "x = torch.ones(3, 4).size(-1) + torch.ones(3, 4).dim() + torch.ones(2, 3).numel() + torch.ones(2).ndim": 13,
    "x = torch.ones(2, 3).T.shape": (3, 2),
    "x = torch.ones(1, 3, 1).squeeze().shape + torch.ones(1, 3).squeeze(0).shape": (3, 3),
    "x = torch.ones(3)[None, :].shape": (1, 3),
    "x = torch.ones(n, 4).view(-1).shape": (4 * n,),
    "x = torch.ones(2, 3).reshape(3, -1).shape": (3, 2),
    "x = torch.randint(0, 5, (2, 3)).shape + torch.randperm(4).shape + torch.eye(2, 3).shape": (2, 3, 4, 2, 3),
    "x = torch.full((2,), 1.0).shape + torch.arange(5).shape + torch.tensor([]).shape": (2, 5, 0),
    "x = torch.zeros_like(torch.ones(2, 2)).shape + torch.log(torch.ones(3)).shape": (2, 2, 3),
    "x = (torch.ones(3, 1) * torch.ones(4)).shape": (3, 4),
    "x = torch.ones(2).requires_grad": False,
    "x = nn.Parameter(torch.ones(2)).requires_grad": True,
    "x = nn.LSTM(3, 4, num_layers=n).hidden_size": 4,
    "x = len(nn.ModuleDict({'a': nn.ReLU()})) + len(list(nn.ModuleDict({'a': nn.ReLU()})))": 2,
    "x = nn.Linear(2, 2).training": True,
    "x = isinstance(nn.Linear(2, 2), nn.Module) and isinstance(nn.Parameter(torch.ones(1)), torch.Tensor)": True,
    "x = isinstance(torch.ones(1), nn.Parameter)": False,
    "x = [isinstance(torch.ones(1), torch.Tensor), isinstance(nn.ReLU(), nn.Linear)]": [True, False],
    "import numpy as np\nx = torch.from_numpy(np.zeros((2, 3))).shape": (2, 3),
}


@pytest.mark.parametrize("code", sorted(KNOWN))
def test_known_values(code):
    assert read(code) == KNOWN[code]


def test_both_ways_keep_containers_and_objects():
    code = (
        "import os\nfrom types import SimpleNamespace\nflag = os.environ.get('X')\n"
        "ns = SimpleNamespace(a=1, b=[1])\nt = (1, [2])\nd = {'a': [1], 'b': 2}\ns = {1}\n"
        "def twice():\n    if flag:\n        return 1\n    else:\n        return 1\n"
        "for i in range(2):\n    if flag:\n        continue\n    else:\n        continue\n"
        "for i in range(2):\n    if flag:\n        break\n    else:\n        break\n"
        "if flag:\n    ns.a = 2\n    t = (1, [3])\n    d['a'][0] = 5\n    only = 1\nelse:\n    ns.a = 3\n    t = (1, [4])\n"
        "x = [ns, t, d, s, twice()]\n"
    )
    ns, t, d, s, one = read(code)
    assert isinstance(ns.attrs["a"], Unknown) and ns.attrs["b"] == [1]
    assert t[0] == 1 and isinstance(t[1][0], Unknown)
    assert isinstance(d["a"][0], Unknown) and d["b"] == 2 and s == {1} and one == 1
    assert isinstance(read(code, "only"), Unknown)


@pytest.mark.parametrize(
    "code,words",
    [
        ("for i in range(3):\n    if flag:\n        break\n", "whether the code returns, breaks or continues"),
        ("if flag:\n    m = nn.Linear(1, 1)\n", "'m'"),
        ("if flag:\n    m = [nn.Linear(1, 1)]\nelse:\n    m = [nn.Linear(2, 2)]\n", "'Linear.weight'"),
        ("if flag:\n    m = nn.Linear(1, 1)\nelse:\n    m = 3\n", "'m'"),
        ("if flag:\n    p = nn.Parameter(torch.ones(2))\nelse:\n    p = nn.Parameter(torch.ones(3))\n", "'p'"),
        ("m = nn.Sequential(nn.Linear(2, 2))\nif flag:\n    m.append(nn.ReLU())\n", "'m'"),
        ("m = nn.Linear(2, 2)\nif flag:\n    m.bias = None\n", "'m'"),
        ("m = nn.BatchNorm1d(2)\nif flag:\n    m.weight = None\nelse:\n    m.bias = None\n", "'m'"),
        ("while flag.more:\n    m = nn.Linear(1, 1)\n", "'m'"),
        ("for q in flag:\n    m = nn.Linear(1, 1)\n", "'m'"),
    ],
)
def test_modules_that_differ_between_the_ways_are_refused(code, words):
    with pytest.raises(Refused) as error:
        strict("import os\nflag = os.environ.get('X')\n" + code)
    assert "depend on" in str(error.value) and words in str(error.value), str(error.value)


def test_ways_that_raise():
    assert read("import os\nflag = os.environ.get('X')\nif flag:\n    x = 1\nelse:\n    raise ValueError\n") == 1
    with pytest.raises(UserRaise):
        strict("import os\nflag = os.environ.get('X')\nif flag:\n    raise KeyError\nelse:\n    raise ValueError\n")
    with pytest.raises(UserRaise, match="line 6"):
        strict("assert 1 == 2, 'no'\n")
    m = read(
        "import os\nflag = os.environ.get('X')\nm = nn.BatchNorm1d(3)\nif flag:\n    m.register_buffer('extra', torch.zeros(1))\nx = m\n"
    )
    assert "extra" not in m.buffers


def test_statements():
    code = (
        "x: int\ny: int = 3\nd = {'a': 1}\nd['a'] += 2\nl = []\nl += unknown_thing.items\n"
        "class A:\n    pass\nA.k = 3\nz = A.k\nw = [1, 2]\nw[1] = 5\nw[9] = 1\ndel w[0]\n"
        "obj = A()\nobj.v = 1\ndel obj.v\ndel z\ndd = {'k': 1}\ndel dd['k']\n"
        "with open('f') as fh:\n    q = 1\n"
        "while unknown_thing.more:\n    r = 1\n"
        "i = 0\nwhile True:\n    i += 1\n    if i < 3:\n        continue\n    break\n"
        "try:\n    import foo\nexcept ImportError as e:\n    t = 1\nexcept Exception:\n    t = 2\n"
        "@torch.no_grad()\ndef f():\n    return 4\n"
        "@unknown_thing.decorate\ndef g():\n    return 1\n"
        "class B:\n    @staticmethod\n    def s():\n        return super\n"
        "x = [y, d, l, z if False else A.k, w, dd, q, r, i, f(), g, t]\n"
    )
    got = read(code)
    assert got[:2] == [3, {"a": 3}] and isinstance(got[2], Unknown)
    assert got[3:7] == [3, [5], {}, 1] and isinstance(got[7], Unknown)
    assert got[8:10] == [3, 4] and isinstance(got[10], Unknown) and isinstance(got[11], Unknown)


@pytest.mark.parametrize(
    "code,words",
    [
        ("match 1:\n    case 1:\n        pass\n", "match statements are not read"),
        ("x = [v for v in range(200000)]\n", "a comprehension over more than"),
        ("d = {}\nd[unknown_thing.k] = nn.Linear(1, 1)\n", "a module stored under a key derive does not know"),
        ("d = {}\nd[[1]] = 2\n", "a dict key that is not hashable"),
        ("x = super()\n", "super() outside a method"),
        ("setattr(nn.Module(), unknown_thing.n, 1)\n", "setattr() with a name derive does not know"),
        ("m = nn.Module()\nm.add_module(unknown_thing.n, nn.ReLU())\n", "add_module with a name derive does not know"),
        ("m = nn.Module()\nm.register_buffer(unknown_thing.n, None)\n", "register_buffer with a name"),
        ("m = nn.Module()\nm.register_parameter(unknown_thing.n, None)\n", "register_parameter with a name"),
        (
            "m = nn.Module()\nm.register_parameter('w', torch.ones(2))\n",
            "cannot assign 'torch.FloatTensor' object to parameter 'w'",
        ),
        (
            "m = nn.Module()\nm.register_parameter('w', nn.Parameter(unknown_thing.t))\n",
            "the shape of parameter 'w' is not known",
        ),
        ("m = nn.Module()\nm.w = nn.Parameter(unknown_thing.t)\n", "the shape of parameter 'w' is not known"),
        (
            "m = nn.Linear(2, 2)\nm.weight = torch.ones(2, 2)\n",
            "cannot assign 'torch.FloatTensor' as parameter 'weight'",
        ),
        ("m = nn.Sequential(nn.ReLU())\nm.add_module('0', 3)\n", "int is not a Module subclass"),
        ("m = nn.Module()\nm.c = nn.ReLU()\nm.c = 3\n", "cannot assign 'int' as child module 'c'"),
        ("m = nn.ModuleList(nn.ReLU())\n", "nn.ModuleList takes a list of modules"),
        ("m = nn.ModuleList(unknown_thing.mods)\n", "nn.ModuleList takes a list of modules"),
        ("m = nn.ModuleDict()\nm.update(unknown_thing.mods)\n", "nn.ModuleDict.update of"),
        ("m = nn.ParameterList([3])\n", "nn.ParameterList holds tensors; got int"),
        ("m = nn.ParameterList([nn.Parameter(unknown_thing.t)])\n", "the shape of parameter '0' is not known"),
        ("m = nn.ModuleList()\nm[3] = nn.ReLU()\n", "index 3 of ModuleList is not known"),
        ("m = nn.Linear(2, 2)\nm[0] = nn.ReLU()\n", "derive does not read assignments to m[0]"),
        ("m = nn.Linear(2, 2)\nm += [nn.ReLU()]\n", "`+=` on Linear is not read"),
        ("t = torch.ones(2)\nt += 1\n", ""),
        ("m = nn.utils.weight_norm(nn.ReLU())\n", "of a module derive cannot read"),
        (
            "m = nn.utils.weight_norm(nn.Linear(2, 2), dim=unknown_thing.d)\n",
            "weight_norm with a dim derive does not know",
        ),
        ("m = nn.Linear(2, 2)\ndel m[0]\n", ""),
        ("m = nn.Linear(unknown_thing.a, 2)\n", "in_features"),
        ("m = nn.Sequential(nn.Linear(2, 2), nn.Foo())\n", "unknown name 'nn.Foo'"),
        ("m = nn.Sequential(unknown_thing.make())\n", "may be a module"),
    ],
)
def test_refusals(code, words):
    try:
        strict("import json\nunknown_thing = json.load(open('c'))\n" + code)
    except Refused as error:
        assert str(error).startswith("line ") and words in str(error), str(error)
    else:
        assert words == "", "not refused"


def test_torch_corners_against_torch():
    same(
        """
        class Custom(nn.Module):
            def __init__(self):
                super().__init__()
                self.seq = nn.Sequential()
                self.seq.append(nn.Linear(2, 3))
                self.seq.insert(0, nn.ReLU())
                self.seq.extend([nn.Linear(3, 3)])
                self.seq.pop(0)
                self.dict = nn.ModuleDict([("a", nn.Linear(1, 1))])
                self.dict.update(nn.ModuleDict({"b": nn.Linear(2, 2)}))
                self.dict.pop("a")
                self.keys = list(self.dict.keys()) + [k for k, v in self.dict.items()] + [len(self.dict.values())]
                self.plist = nn.ParameterList()
                self.plist.append(torch.ones(3))
                self.plist.extend([nn.Parameter(torch.zeros(1))])
                self.pdict = nn.ParameterDict(OrderedDict([("z", nn.Parameter(torch.ones(1))), ("a", nn.Parameter(torch.ones(2)))]))
                self.pdict["m"] = nn.Parameter(torch.ones(4))
                self.mods = nn.ModuleList([nn.Linear(1, 1), nn.Linear(2, 2)])
                del self.mods[0]
                self.lin = nn.Linear(4, 4)
                self.lin.bias = None
                self.lin.extra = nn.Parameter(torch.ones(2))
                self.norm = nn.BatchNorm1d(4)
                self.norm.running_mean = torch.zeros(4)
                self.norm.running_var = None
                self.gone = nn.Linear(2, 2)
                del self.gone
                self.child = nn.Linear(1, 1)
                self.child = None
                self.child = nn.ReLU()
                self.register_buffer("b", torch.ones(2))
                self.register_buffer("b2", None)
                self.add_module("none", None)
                self.named = dict(self.named_children())
                self.bufs = [b for b in self.buffers()] + list(self.named_buffers())
                self.kids = list(self.modules())

        from collections import OrderedDict
        model = Custom()
        """
    )


def test_frozen_modules_of_a_symbolic_number_of_layers():
    report = same(
        "model = nn.Sequential(nn.LSTM(3, 4, 2), nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2))"
    )
    assert report.rows[0].formula is not None
    text = HEADER + "def make(layers):\n    return nn.Sequential(nn.LSTM(3, 4, layers), nn.Linear(4, 2))\n"
    reader = Interpreter(TorchSemantics())
    reader.run(parse_module(text + "x = make(L).get_submodule if False else make(L)[0].hidden_size\n"))
    assert reader.module_frame.names["x"] == 4


def test_the_default_semantics_know_no_framework():
    s = Semantics()
    node = parse_module("x").body[0]
    reader = Interpreter(s)
    assert isinstance(s.call_object(reader, 1, [], {}, node), Unknown)
    assert isinstance(s.getattr(reader, 1, "a", node), Unknown) and isinstance(s.subscript(reader, 1, 0, node), Unknown)
    assert s.iterate(reader, 1, node) is None and s.length(1) is None and s.isinstance_of(1, int) is None
    assert isinstance(s.binop(None, 1, 2, node), Unknown) and s.new_object(reader, None, node) is None
    assert s.init_base(reader, None, None, [], {}, node) is None and not s.has_modules(1, set())
    assert s.merge(None, 1, 1) == 1 and s.merge(None, 1, 2) is None and s.transplant(1, 2, None) is None
    for hook in (s.setattr, s.delattr):
        with pytest.raises(Refused):
            hook(reader, 1, "a", *([2] if hook == s.setattr else []), node)
    with pytest.raises(Refused):
        s.setitem(reader, 1, 0, 2, node)
    with pytest.raises(Refused):
        s.extend(reader, 1, [], node)
    with pytest.raises(Refused):
        s.delitem(reader, 1, 0, node)
    with pytest.raises(Refused):
        s.unknown_module(reader, Unknown("a", "b"), node)
