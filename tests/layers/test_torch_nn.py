"""Every torch.nn class derive registers, held against real torch 2.13 (modules on the meta device).

For each class and a grid of arguments: the tensor names and shapes of ``named_parameters()``, the
buffers of ``named_buffers()``, the total; the live module read back (``Constructor.read``) and
remade gives the same tensors; the signature is torch's; torch's refusals are derive's.
"""

from __future__ import annotations

import inspect
import re
import warnings

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
nn = torch.nn

import derive  # noqa: E402
import derive.layers.torch_nn  # noqa: E402  (its STATELESS table)
from derive.engine.constructors import CONSTRUCTORS, lookup  # noqa: E402
from derive.tree import count, named_buffers, named_parameters  # noqa: E402


class R:
    """A constructor call written once, made by torch and by derive (arguments may be R's)."""

    def __init__(self, name, *args, **kwargs):
        self.name, self.args, self.kwargs = name, args, kwargs

    def torch(self):
        args = [a.torch() if isinstance(a, R) else a for a in self.args]
        kwargs = {k: v.torch() if isinstance(v, R) else v for k, v in self.kwargs.items()}
        with torch.device("meta"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return getattr(nn, self.name)(*args, **kwargs)

    def derive(self):
        args = [a.derive() if isinstance(a, R) else a for a in self.args]
        kwargs = {k: v.derive() if isinstance(v, R) else v for k, v in self.kwargs.items()}
        return lookup("torch", self.name).make(*args, **kwargs)

    def __repr__(self):
        parts = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs.items()]
        return f"{self.name}({', '.join(parts)})"


def tensors(module):
    return [(n, tuple(p.shape)) for n, p in module.named_parameters()]


def buffers(module):
    return [(n, tuple(p.shape)) for n, p in module.named_buffers()]


def ours(module, which=named_parameters):
    return [(n, tuple(p.shape)) for n, p in which(module)]


CASES = [
    R("Linear", 3, 4),
    R("Linear", 7, 2, bias=False),
    R("Bilinear", 3, 4, 5),
    R("Bilinear", 3, 4, 5, bias=False),
    R("Identity", 3, unused=True),
    R("Embedding", 10, 3),
    R("Embedding", 10, 3, padding_idx=0, max_norm=1.0),
    R("EmbeddingBag", 10, 3, mode="sum"),
    R("PReLU"),
    R("PReLU", 5),
    R("AdaptiveLogSoftmaxWithLoss", 16, 100, [10, 50]),
    R("AdaptiveLogSoftmaxWithLoss", 16, 100, [10, 50], div_value=2.0, head_bias=True),
    R("LinearCrossEntropyLoss", 8, 10),
    R("LinearCrossEntropyLoss", 8, 10, out_features=(2, 3), bias=True),
    *[R(f"Conv{n}d", 4, 6, 3) for n in (1, 2, 3)],
    *[R(f"Conv{n}d", 4, 6, (2,) * n, groups=2, bias=False, stride=2, padding=1) for n in (1, 2, 3)],
    R("Conv2d", 3, 8, (3, 5), padding="same", padding_mode="reflect"),
    R("Conv1d", 6, 6, 4, groups=6),
    *[R(f"ConvTranspose{n}d", 4, 6, 3) for n in (1, 2, 3)],
    *[R(f"ConvTranspose{n}d", 4, 6, 2, groups=2, bias=False, stride=2, output_padding=1) for n in (1, 2, 3)],
    *[R(f"BatchNorm{n}d", 5) for n in (1, 2, 3)],
    R("BatchNorm2d", 5, affine=False),
    R("BatchNorm1d", 5, track_running_stats=False),
    R("BatchNorm3d", 5, bias=False),
    R("SyncBatchNorm", 4),
    *[R(f"InstanceNorm{n}d", 5) for n in (1, 2, 3)],
    R("InstanceNorm2d", 5, affine=True),
    R("InstanceNorm1d", 5, affine=True, track_running_stats=True),
    R("InstanceNorm3d", 5, track_running_stats=True, bias=False, affine=True),
    R("LayerNorm", 6),
    R("LayerNorm", [3, 4], elementwise_affine=False),
    R("LayerNorm", (3, 4), bias=False),
    R("RMSNorm", 6),
    R("RMSNorm", [2, 3], elementwise_affine=False),
    R("GroupNorm", 2, 6),
    R("GroupNorm", 3, 6, affine=False),
    R("GroupNorm", 3, 6, bias=False),
    R("MultiheadAttention", 8, 2),
    R("MultiheadAttention", 8, 2, bias=False, add_bias_kv=True),
    R("MultiheadAttention", 8, 4, kdim=4, vdim=6),
    R("MultiheadAttention", 8, 1, kdim=8, vdim=8, add_bias_kv=True, batch_first=True),
    R("TransformerEncoderLayer", 8, 2, 16),
    R("TransformerEncoderLayer", 8, 2, 16, bias=False, batch_first=True, norm_first=True),
    R("TransformerDecoderLayer", 8, 2, 16),
    R("TransformerDecoderLayer", 8, 4, bias=False),
    R("TransformerEncoder", R("TransformerEncoderLayer", 8, 2, 16), 3),
    R("TransformerEncoder", R("TransformerEncoderLayer", 8, 2, 16), 2, norm=R("LayerNorm", 8)),
    R("TransformerDecoder", R("TransformerDecoderLayer", 8, 2, 16), 2, R("LayerNorm", 8)),
    R("Transformer", 8, 2, 2, 1, 16),
    R("Transformer", 8, 2, 1, 2, 16, bias=False),
    R("Sequential", R("Linear", 3, 4), R("ReLU"), R("Linear", 4, 1)),
    R("ModuleList", [R("Linear", 3, 4), R("GRU", 4, 5)]),
    R("DataParallel", R("Linear", 3, 4)),
    R("RNN", 3, 4),
    R("RNN", 3, 4, 2, "relu", False),
    R("LSTM", 3, 4, 2, bidirectional=True, proj_size=2),
    R("GRU", 3, 4, num_layers=3, bias=False, batch_first=True),
    R("RNNCell", 3, 4, nonlinearity="relu"),
    R("LSTMCell", 3, 4),
    R("GRUCell", 3, 4, bias=False),
]


class _ListArg(R):
    pass


def _fix_lists(case):
    """``ModuleList([R, R])``: the list's items made in each world."""
    if case.name == "ModuleList":
        items = case.args[0]
        case.torch = lambda: nn.ModuleList([i.torch() for i in items])
        case.derive = lambda: lookup("torch", "ModuleList").make([i.derive() for i in items])
    return case


CASES = [_fix_lists(c) for c in CASES]

# Every class without parameters, with the arguments it requires.
REQUIRED = {
    "Threshold": (0.1, 0.0),
    "ChannelShuffle": (2,),
    "PixelShuffle": (2,),
    "PixelUnshuffle": (2,),
    "Unflatten": (1, (2, 3)),
    "Fold": ((4, 5), (2, 2)),
    "Unfold": ((2, 2),),
    "LocalResponseNorm": (2,),
    "CrossMapLRN2d": (2,),
    "FractionalMaxPool2d": (2,),
    "FractionalMaxPool3d": (2,),
}
STATELESS_CASES = []
for _name in sorted(derive.layers.torch_nn.STATELESS):
    if _name in REQUIRED:
        args = REQUIRED[_name]
    elif "Pad" in _name:
        args = (1, 0.5) if _name.startswith("Constant") else (1,)
    elif _name.startswith("LPPool"):
        args = (2, 3)
    elif "Pool" in _name or "Unpool" in _name:
        args = (2,)
    else:
        args = ()
    kwargs = {"output_size": 2} if _name.startswith("FractionalMaxPool") else {}
    STATELESS_CASES.append(R(_name, *args, **kwargs))


@pytest.mark.parametrize("case", CASES + STATELESS_CASES, ids=repr)
def test_tensors_buffers_and_total_are_torchs(case):
    live, made = case.torch(), case.derive()
    assert ours(made) == tensors(live)
    assert ours(made, named_buffers) == buffers(live)
    assert count(made) == sum(p.numel() for p in live.parameters())
    assert made.type == type(live).__name__


@pytest.mark.parametrize("case", [c for c in CASES + STATELESS_CASES if lookup("torch", c.name).read], ids=repr)
def test_a_live_module_read_back_is_remade(case):
    live = case.torch()
    constructor = lookup("torch", case.name)
    assert type(live).__module__ in constructor.module_types
    args, kwargs = constructor.read(live)
    assert ours(constructor.make(*args, **kwargs)) == tensors(live)


def test_every_torch_nn_module_class_is_registered():
    names = {
        n
        for n in dir(nn)
        if inspect.isclass(getattr(nn, n)) and issubclass(getattr(nn, n), nn.Module) and not n.endswith("Base")
    }
    names -= {"Container"}  # deprecated since torch 1.0, no constructor users write
    assert names <= {name for fw, name in CONSTRUCTORS if fw == "torch"}, sorted(
        names - {name for fw, name in CONSTRUCTORS if fw == "torch"}
    )


@pytest.mark.parametrize("name", sorted(name for fw, name in CONSTRUCTORS if fw == "torch"))
def test_signatures_are_torchs(name):
    ours_ = inspect.signature(lookup("torch", name).make).parameters
    theirs = dict(list(inspect.signature(getattr(nn, name).__init__).parameters.items())[1:])
    if name in ("Module", "Identity"):
        return
    assert list(ours_) == list(theirs)
    for key, p in theirs.items():
        assert ours_[key].kind == p.kind, key
        simple = isinstance(p.default, (int, float, str, bool, type(None), tuple)) or p.default is p.empty
        if simple and key not in ("upper",):
            assert ours_[key].default == p.default, key


@pytest.mark.parametrize(
    "case",
    [
        R("Conv2d", 4, 6, 3, groups=4),
        R("Conv2d", 4, 6, 3, groups=0),
        R("Conv1d", 4, 6, 3, padding="full"),
        R("Conv1d", 4, 6, 3, padding="same", stride=2),
        R("Conv1d", 4, 6, 3, padding_mode="mirror"),
        R("ConvTranspose2d", 4, 6, 3, padding_mode="reflect"),
        R("GroupNorm", 4, 6),
        R("Dropout", 1.5),
        R("Dropout2d", -0.1),
        R("MultiheadAttention", 8, 3),
        R("MultiheadAttention", 0, 1),
        R("Embedding", 10, 3, padding_idx=10),
        R("TransformerEncoderLayer", 8, 3),
        R("AdaptiveLogSoftmaxWithLoss", 16, 100, [50, 10]),
        R("AdaptiveLogSoftmaxWithLoss", 16, 100, []),
        R("LSTM", 3, 4, proj_size=4),
        R("Linear", 3, 4, bogus=1),
        R("ReLU", True, True),
    ],
    ids=repr,
)
def test_refused_as_torch_refuses(case):
    with pytest.raises((TypeError, ValueError, AssertionError, RuntimeError)) as theirs:
        case.torch()
    with pytest.raises((TypeError, ValueError)) as refused:
        case.derive()
    words, ours_ = (_sets_sorted(str(e.value).replace(".__init__", "")) for e in (theirs, refused))
    assert words.split(":")[0] in ours_ or ours_ in words


def _sets_sorted(text: str) -> str:
    """A message with each ``{'a', 'b'}`` set written in sorted order (set order varies by process)."""
    return re.sub(r"\{([^{}]*)\}", lambda m: "{" + ", ".join(sorted(m.group(1).split(", "))) + "}", text)


@pytest.mark.parametrize(
    "name,args",
    [
        ("LazyLinear", (8,)),
        ("LazyConv2d", (8, 3)),
        ("LazyConvTranspose1d", (8, 3)),
        ("LazyBatchNorm1d", ()),
        ("LazyInstanceNorm3d", ()),
    ],
)
def test_lazy_modules_are_refused_by_name(name, args):
    R(name, *args).torch()  # torch makes them: their sizes come from the first input
    with pytest.raises(ValueError, match=f"{name} takes .* from its first input.*write nn.{name[4:]}"):
        lookup("torch", name).make(*args)


def test_formulas_in_the_constructors_letters():
    assert str(lookup("torch", "Conv2d").make(3, 64, 3).formula.expr) == "C*F*K**2 + F"
    assert dict(lookup("torch", "Conv2d").make(3, 64, 3).formula.values) == {"C": 3, "F": 64, "K": 3}
    mha = lookup("torch", "MultiheadAttention").make(512, 8).formula
    assert str(mha.expr) == "4*E**2 + 4*E" and dict(mha.values) == {"E": 512}
    layer = lookup("torch", "TransformerEncoderLayer").make(512, 8, 2048).formula
    assert str(layer.expr) == "4*D**2 + 2*D*F + 9*D + F"
    assert lookup("torch", "ReLU").make().formula.expr == 0
    assert str(lookup("torch", "GRU").make(10, 20, 3).formula.expr) == "6*H**2*L - 3*H**2 + 3*H*I + 6*H*L"


def test_symbolic_sizes_and_layers():
    d, n = sympy.symbols("d n", integer=True, positive=True)
    layer = lookup("torch", "TransformerEncoderLayer").make(d, 8, 4 * d)
    stack = lookup("torch", "TransformerEncoder").make(layer, n)
    assert sympy.expand(count(stack) - n * (12 * d**2 + 13 * d)) == 0
    for k in (1, 3):
        live = R("TransformerEncoder", R("TransformerEncoderLayer", 16, 8, 64), k).torch()
        assert count(stack).subs({d: 16, n: k}) == sum(p.numel() for p in live.parameters())
    lstm = lookup("torch", "LSTM").make(d, d, n, bidirectional=True)
    assert count(lstm).subs({d: 5, n: 3}) == sum(
        p.numel() for p in R("LSTM", 5, 5, 3, bidirectional=True).torch().parameters()
    )


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 3),
    st.integers(1, 4),
    st.integers(1, 4),
    st.integers(1, 3),
    st.booleans(),
    st.booleans(),
)
def test_convolutions_of_any_rank(n, c, f, groups, bias, transposed):
    name = f"ConvTranspose{n}d" if transposed else f"Conv{n}d"
    case = R(name, c * groups, f * groups, tuple(range(1, n + 1)), groups=groups, bias=bias)
    assert ours(case.derive()) == tensors(case.torch())


class _Shape:
    def __init__(self, *shape):
        self.shape = shape


def test_container_makes_name_their_children_as_torch():
    make = {name: lookup("torch", name).make for name in ("Sequential", "ModuleDict", "ModuleList", "ParameterList")}
    lin = lookup("torch", "Linear").make(2, 3)
    seq = make["Sequential"]({"enc": lin, "act": lookup("torch", "ReLU").make()})
    assert [c.name for c in seq.children] == ["enc", "act"]
    assert [c.name for c in make["ModuleDict"]([("a", lin), ("b", lin)]).children] == ["a", "b"]
    assert [c.name for c in make["ModuleDict"]({"z": lin}).children] == ["z"]
    assert ours(make["ParameterList"]([_Shape(2, 3), _Shape(4)])) == [("0", (2, 3)), ("1", (4,))]
    assert ours(lookup("torch", "ParameterDict").make({"w": _Shape(5)})) == [("w", (5,))]
    assert lookup("torch", "Module").make().type == "Module"
    assert [c.name for c in lookup("torch", "DataParallel").make(lin).children] == ["module"]
    assert make["ModuleList"]().children == ()
    with pytest.raises(TypeError, match="is not a Module subclass"):
        make["Sequential"](lin, 3)
    with pytest.raises(TypeError, match="ModuleList.extend should be called with an iterable"):
        make["ModuleList"](lin)
    with pytest.raises(ValueError, match="has length 1; 2 is required"):
        make["ModuleDict"]([("a",)])
    with pytest.raises(TypeError, match="a parameter needs a tensor"):
        make["ParameterList"]([3])


def test_spellings():
    from derive.layers import KERAS, spelling

    assert spelling("keras") is KERAS and spelling(KERAS) is KERAS
    with pytest.raises(ValueError, match="framework must be one of"):
        spelling("jax")
    with pytest.raises(ValueError, match="framework must be one of"):
        spelling(["torch"])
