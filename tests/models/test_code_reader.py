"""The code reader, construct by construct, held against torch running the same snippet (meta device).

Also the three wrong answers of issue 21 that were the reader's: modules added by ``add_module``
inside a nested function, a submodule created under ``if``, tied weights.
"""

from __future__ import annotations

import textwrap

import pytest
import sympy

torch = pytest.importorskip("torch")

from torch_code import HEADER, built, refused, same  # noqa: E402

from derive.read import explain  # noqa: E402
from derive.read.code.pytorch.reader import explain_torch  # noqa: E402
from derive.read.source import SourceError  # noqa: E402
from derive.tree import named_parameters  # noqa: E402

# -- issue 21: the wrong answers ---------------------------------------------------------------


def test_add_module_inside_a_nested_function_is_counted():
    report = same(
        """
        class CNN(nn.Module):
            def __init__(self, nc=1, leaky=False):
                super().__init__()
                nm = [16, 32, 64]
                cnn = nn.Sequential()

                def conv(i, bn=False):
                    n_in = nc if i == 0 else nm[i - 1]
                    cnn.add_module(f"conv{i}", nn.Conv2d(n_in, nm[i], 3, 1, 1))
                    if bn:
                        cnn.add_module("batchnorm{0}".format(i), nn.BatchNorm2d(nm[i]))
                    cnn.add_module("relu%d" % i, nn.LeakyReLU(0.2) if leaky else nn.ReLU(True))

                conv(0)
                conv(1, True)
                conv(2, True)
                self.cnn = cnn
                self.rnn = nn.LSTM(64, 32, bidirectional=True)

        model = CNN()
        """
    )
    assert [r.name for r in report.rows if r.type == "Conv2d"] == ["cnn.conv0", "cnn.conv1", "cnn.conv2"]


@pytest.mark.parametrize("attention", [True, False])
def test_a_submodule_under_if_is_counted_when_the_flag_is_known(attention):
    same(
        f"""
        class Attention(nn.Module):
            def __init__(self, dim):
                super().__init__()
                self.score = nn.Linear(dim, 1)

        class Net(nn.Module):
            def __init__(self, dim=16, attention=True):
                super().__init__()
                self.rnn = nn.GRU(8, dim)
                if attention:
                    self.attention = Attention(dim)
                self.out = nn.Linear(dim, 2)

        model = Net(attention={attention})
        """
    )


def test_a_submodule_under_an_unknown_if_is_refused_naming_it():
    refused(
        """
        import sys

        class Net(nn.Module):
            def __init__(self, dim=16):
                super().__init__()
                self.rnn = nn.GRU(8, dim)
                if "--attention" in sys.argv:
                    self.attention = nn.MultiheadAttention(dim, 2)

        model = Net()
        """,
        "`'--attention' in sys.argv`",
        "sys.argv is not read by derive",
        "'self'",
    )


def test_tied_weights_count_once():
    report = same(
        """
        class LM(nn.Module):
            def __init__(self, vocab=1000, dim=64):
                super().__init__()
                self.encoder = nn.Embedding(vocab, dim)
                self.rnn = nn.LSTM(dim, dim, 2)
                self.decoder = nn.Linear(dim, vocab)
                self.decoder.weight = self.encoder.weight

        model = LM()
        """
    )
    ties = [(n, p.tied_to) for n, p in named_parameters(report.module, ties=True) if p.tied_to]
    assert ties == [("decoder.weight", "encoder.weight")]
    row = next(r for r in report.rows if r.name == "decoder")
    assert row.params == 1000 and "tied" in row.note and row.formula is None
    assert [t["name"] for t in report.to_dict()["tensors"]].count("encoder.weight") == 1


def test_a_module_registered_twice_counts_once():
    same(
        """
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                shared = nn.Linear(4, 4)
                self.a = shared
                self.b = shared
                self.stack = nn.ModuleList([nn.Linear(4, 4)] * 3)
                self.copies = nn.ModuleList([copy.deepcopy(shared) for _ in range(2)])

        model = Net()
        """
    )


# -- unknown modules ---------------------------------------------------------------------------


def test_an_unknown_module_is_refused_with_its_line_and_name_or_marked_partial():
    text = """
        from crf_layers_not_installed import CRF

        class Tagger(nn.Module):
            def __init__(self, tags=9):
                super().__init__()
                self.lstm = nn.LSTM(10, 20, bidirectional=True)
                self.fc = nn.Linear(40, tags)
                self.crf = CRF(tags)

        model = Tagger()
        """
    refused(text, "'CRF' may be a module", "imported from crf_layers_not_installed, which is not installed here")
    report = explain_torch(HEADER + textwrap.dedent(text), partial=True)
    assert report.partial and report.to_dict()["partial"] is True
    assert [(r.name, r.params) for r in report.rows][-1] == ("crf", None)
    truth = torch.nn.Module()
    truth.lstm, truth.fc = torch.nn.LSTM(10, 20, bidirectional=True), torch.nn.Linear(40, 9)
    assert report.total == sum(p.numel() for p in truth.parameters())


def test_lazy_modules_are_refused_by_name():
    refused("model = nn.Sequential(nn.LazyLinear(10))", "LazyLinear takes in_features from its first input")


# -- Python as model code uses it -------------------------------------------------------------


def test_loops_comprehensions_aliases_and_names():
    same(
        """
        def make(kind):
            return {"gru": nn.GRU, "lstm": nn.LSTM}[kind]

        class Net(nn.Module):
            def __init__(self, sizes=(8, 16, 32), kind="gru", heads=None):
                super().__init__()
                heads = heads or {"a": 3, "b": 5}
                rnn_cls = nn.GRU if kind == "gru" else nn.LSTM
                self.rnn = rnn_cls(sizes[0], sizes[-1], num_layers=len(sizes) - 1)
                self.other = make("lstm")(4, 4)
                for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
                    setattr(self, f"fc{i}", nn.Linear(a, b))
                self.proj = nn.ModuleList(nn.Linear(max(sizes), n) for n in sorted(heads.values()))
                self.heads = nn.ModuleDict({k: nn.Linear(sizes[-1], v) for k, v in heads.items() if v > 1})
                layers = [nn.Linear(8, 8), nn.ReLU()] * 2
                layers += [nn.Linear(8, int(8 * 1.5))]
                self.mlp = nn.Sequential(*layers[:-1], nn.Dropout(), *layers[-1:])
                self.first = self.mlp[0] if len(self.mlp) > 0 else None
                total = sum(min(a, b) for a, b in zip(sizes, sizes[1:]))
                self.bottleneck = nn.Linear(total, math.ceil(total / 3) + 2 ** 2 + 17 // 5 - 7 % 3)
                self.norms = nn.ModuleList()
                for width in reversed(sizes):
                    if width < 10:
                        continue
                    self.norms.append(nn.LayerNorm(width))
                    if width > 20:
                        break
                n = 0
                while n < 2:
                    self.norms.insert(0, nn.BatchNorm1d(n + 1))
                    n += 1
                self.norms.extend([nn.GroupNorm(2, 4)])
                self.norms += [nn.Identity()]
                del self.norms[-1]

        model = Net()
        """
    )


def test_classes_inheritance_super_dataclasses_and_methods():
    same(
        """
        from dataclasses import dataclass, field
        from types import SimpleNamespace

        @dataclass
        class Config:
            width: int = 32
            depths: list = field(default_factory=lambda: [1, 2])
            bias: bool = False

        class Base(nn.Module):
            expansion = 2

            def __init__(self, cfg):
                super().__init__()
                self.cfg = cfg
                self.stem = self.make_stem(cfg.width)

            def make_stem(self, width):
                return nn.Conv2d(3, width, 3, bias=self.cfg.bias)

            @staticmethod
            def norm(width):
                return nn.BatchNorm2d(width)

            @classmethod
            def out_width(cls, width):
                return width * cls.expansion

            @property
            def width(self):
                return self.cfg.width

        class Net(Base):
            expansion = 4

            def __init__(self, cfg, extra=SimpleNamespace(hidden=7)):
                super(Net, self).__init__(cfg)
                self.bn = self.norm(self.width)
                self.stages = nn.ModuleList(nn.Conv2d(self.width, self.width, 1) for _ in range(sum(cfg.depths)))
                self.head = nn.Linear(self.out_width(self.width), extra.hidden)

        class MyLSTM(nn.LSTM):
            def __init__(self, size):
                super().__init__(size, size * 2, batch_first=True)
                self.extra = nn.Parameter(torch.zeros(size))

        class Stack(nn.Sequential):
            def __init__(self, n):
                super().__init__(*[nn.Linear(4, 4) for _ in range(n)])

        class Wrapper(nn.Module):
            def __init__(self):
                super().__init__()
                self.net = Net(Config(width=16, depths=[2, 3]))
                self.rnn = MyLSTM(5)
                self.stack = Stack(2)
                self.stack.append(nn.ReLU())

        model = Wrapper()
        """
    )


def test_partials_lambdas_closures_and_nonlocal():
    same(
        """
        norm = functools.partial(nn.GroupNorm, 4)
        act = lambda: nn.SiLU()  # noqa: E731
        counter = 0

        def count():
            global counter
            counter += 1
            return counter

        def builder(width):
            made = []

            def add(n):
                nonlocal width
                made.append(nn.Linear(width, n))
                width = n

            for n in (12, 8, 4):
                add(n)
            return nn.Sequential(*made)

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.norm = norm(16, affine=count() > 0)
                self.act = act()
                self.mlp = builder(16)

        model = Net()
        """
    )


def test_parameters_buffers_and_tensors():
    same(
        """
        class Net(nn.Module):
            def __init__(self, d=6, n=3):
                super().__init__()
                self.a = nn.Parameter(torch.zeros(d))
                self.b = nn.Parameter(torch.randn(n, d) * 0.02)
                self.c = nn.Parameter(torch.empty((2, d)), requires_grad=False)
                self.d = nn.Parameter(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
                self.e = nn.Parameter(torch.full((d,), 0.5).unsqueeze(0).expand(n, -1).clone())
                self.f = nn.Parameter(torch.ones(d, n).t().reshape(-1).view(n, d)[0])
                self.g = nn.Parameter(torch.Tensor(d, d).uniform_(-1, 1).transpose(0, 1).permute(1, 0))
                self.h = nn.Parameter(torch.arange(0, 10, 3).float())
                self.i = nn.Parameter(torch.eye(n)[None, :, :].repeat(2, 1, 1).flatten())
                self.j = nn.Parameter(torch.rand(d, dtype=torch.cfloat))
                self.register_parameter("k", nn.Parameter(torch.linspace(0, 1, 5)))
                self.register_parameter("gone", None)
                self.register_buffer("mask", torch.tril(torch.ones(n, n)).view(1, 1, n, n))
                self.register_buffer("scratch", torch.zeros(d), persistent=False)
                self.plain = torch.zeros(4)  # a tensor attribute: neither parameter nor buffer
                self.params = nn.ParameterList([nn.Parameter(torch.ones(2)) for _ in range(n)])
                self.params.append(nn.Parameter(torch.zeros(3, 3)))
                self.table = nn.ParameterDict({"w": nn.Parameter(torch.ones(d)), "v": nn.Parameter(torch.ones(1))})
                self.lin = nn.Linear(self.b.shape[1], self.b.size(0))
                self.lin.bias = None
                self.lin.weight.data.normal_(0, 0.02)
                nn.init.xavier_uniform_(self.b)

        model = Net()
        """
    )


def test_weight_norm_and_spectral_norm():
    same(
        """
        from torch.nn.utils import spectral_norm, weight_norm

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = weight_norm(nn.Conv1d(4, 8, 3))
                self.flat = nn.utils.weight_norm(nn.Linear(3, 5), dim=None)
                self.up = spectral_norm(nn.ConvTranspose2d(4, 6, 2))
                self.lin = torch.nn.utils.spectral_norm(nn.Linear(3, 4))

        model = Net()
        """
    )


def test_containers_indexing_and_slicing():
    same(
        """
        from collections import OrderedDict

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                seq = nn.Sequential(OrderedDict([("conv", nn.Conv2d(3, 8, 3)), ("bn", nn.BatchNorm2d(8)), ("relu", nn.ReLU())]))
                self.first = seq[:2]
                self.last = seq[-1]
                blocks = nn.ModuleList([nn.Linear(i + 1, i + 2) for i in range(4)])
                self.odd = blocks[1::2]
                self.both = blocks[:1] + blocks[-1:]
                blocks[0] = nn.Linear(9, 9)
                self.blocks = blocks
                heads = nn.ModuleDict()
                heads["x"] = nn.Linear(2, 2)
                heads.update({"y": nn.Linear(3, 3)})
                self.heads = heads
                self.keys = [k for k in heads.keys() if k in heads]
                self.dp = nn.DataParallel(nn.Linear(5, 5))

        model = Net()
        """
    )


def test_module_attributes_read_back():
    same(
        """
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.emb = nn.Embedding(100, 12)
                self.rnn = nn.LSTM(self.emb.embedding_dim, 20, num_layers=2, bidirectional=True)
                width = self.rnn.hidden_size * (2 if self.rnn.bidirectional else 1)
                self.conv = nn.Conv1d(width, 16, 3)
                self.fc = nn.Linear(self.conv.out_channels * self.conv.kernel_size[0], self.emb.weight.shape[0])
                self.n = sum(p.numel() for p in self.parameters())
                for name, p in self.named_parameters():
                    if name.endswith("bias"):
                        nn.init.zeros_(p)
                for m in self.modules():
                    if isinstance(m, (nn.Linear, nn.Conv1d)):
                        nn.init.kaiming_normal_(m.weight)
                self.count = len(list(self.children()))
                self.apply(lambda m: None)
                self.rnn.flatten_parameters()

        model = Net().to("cpu").train()
        """
    )


def test_try_except_and_raise_paths():
    same(
        """
        try:
            from apex.normalization import FusedLayerNorm as LayerNorm
        except ImportError:
            LayerNorm = nn.LayerNorm
        try:
            import wandb
        except ImportError:
            wandb = None

        class Net(nn.Module):
            def __init__(self, kind="relu", depth=2):
                super().__init__()
                if depth < 1:
                    raise ValueError("depth must be positive")
                if kind == "relu":
                    self.act = nn.ReLU()
                elif kind == "gelu":
                    self.act = nn.GELU()
                else:
                    raise NotImplementedError(kind)
                self.layers = nn.ModuleList([nn.Linear(8, 8) for _ in range(depth)])
                assert len(self.layers) == depth

        model = Net()
        """
    )


def test_an_unknown_import_used_as_a_module_is_refused():
    refused(
        """
        try:
            from apex.normalization import FusedLayerNorm as LayerNorm
        except ImportError:
            LayerNorm = nn.LayerNorm

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.norm = LayerNorm(8)

        model = Net()
        """,
        "'LayerNorm(8)' may be a module",
        "whether the `try` block raises",
    )


def test_symbolic_sizes_from_an_uninstantiated_class():
    text = """
        class Net(nn.Module):
            def __init__(self, vocab, hidden, layers=2, heads=4):
                super().__init__()
                self.emb = nn.Embedding(vocab, hidden)
                self.blocks = nn.ModuleList([nn.TransformerEncoderLayer(hidden, heads, 4 * hidden) for _ in range(layers)])
                self.out = nn.Linear(hidden, vocab, bias=False)
                self.out.weight = self.emb.weight
        """
    total = explain_torch(HEADER + textwrap.dedent(text)).total
    symbols = {s.name: s for s in total.free_symbols}
    assert set(symbols) == {"vocab", "hidden"}
    for vocab, hidden in ((50, 8), (1000, 64)):
        model = built(textwrap.dedent(text) + f"\nmodel = Net({vocab}, {hidden})")
        assert total.subs({symbols["vocab"]: vocab, symbols["hidden"]: hidden}) == sum(
            p.numel() for p in model.parameters()
        )


def test_what_cannot_be_known_is_refused_naming_it():
    refused(
        """
        class Net(nn.Module):
            def __init__(self, n_layers, dim=8):
                super().__init__()
                for i in range(n_layers):
                    self.add_module(f"l{i}", nn.Linear(dim, dim))
        """,
        "n_layers",
        "a parameter of Net() without a default",
    )
    refused(
        """
        class Seq2Seq(nn.Module):
            def __init__(self, encoder, decoder):
                super().__init__()
                self.encoder = encoder
                self.decoder = decoder

            def forward(self, x):
                return self.decoder(self.encoder(x))
        """,
        "self.encoder(...) is called as a module",
        "'encoder' is a parameter of Seq2Seq()",
    )
    refused(
        "import json\ncfg = json.load(open('c.json'))\nmodel = nn.LSTM(cfg['n'], 8)", "LSTM: input_size", "json.load"
    )
    refused(
        "import random\nlayers = [nn.Linear(2, 2) for _ in range(random.randint(1, 4))]\nmodel = nn.Sequential(*layers)",
        "unpacked arguments hide the sizes",
    )
    refused("model = nn.Sequential(nn.Linear(2, 2), 5)", "nn.Sequential holds modules; got 5")
    refused("while True:\n    pass\nmodel = nn.Linear(2, 2)", "steps")


def test_nothing_is_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    report = explain(
        "import os\n"
        "os.system('touch PWNED')\n"
        "__import__('os').system('touch PWNED2')\n"
        "eval(\"open('PWNED3', 'w')\")\n"
        "exec('import os')\n"
        "open('PWNED4', 'w').write('x')\n"
        "model = nn.Linear(2, 3)\n",
        framework="torch",
    )
    assert report.total == 9 and list(tmp_path.iterdir()) == []


def test_the_model_chosen():
    assert explain_torch("a = nn.Linear(2, 2)\nmodel = nn.Linear(3, 3)\nb = nn.Linear(4, 4)").total == 12
    assert explain_torch("a = nn.Linear(2, 2)\nb = nn.Linear(4, 4)").total == 20
    text = (
        "class A(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.x = nn.Linear(2, 2)\n"
    )
    assert explain_torch(text + "b = nn.Linear(4, 4)").title == "A (nn.Module)"
    assert explain_torch(text + "m = A().to('cpu')").title == "A (nn.Module)"
    with pytest.raises(SourceError, match="no PyTorch model found"):
        explain_torch("x = 3")
    with pytest.raises(SourceError, match="has no __init__"):
        explain_torch("class A(nn.Module):\n    def forward(self, x):\n        return x")


NET = """
class Net(nn.Module):
    def __init__(self, a, b=2, *, need, key=None):
        super().__init__()
        self.fc = nn.Linear(a, b)

"""


@pytest.mark.parametrize(
    "call,words",
    [
        ("Net(1, 2, 3, need=1)", "Net() takes 2 positional arguments but 3 were given"),
        ("Net(1, a=2, need=1)", "Net() got multiple values for argument 'a'"),
        ("Net(1, c=2, need=1)", "Net() got an unexpected keyword argument 'c'"),
        ("Net(need=1)", "Net() missing required argument 'a'"),
        ("Net(1, 2, key=3)", "Net() missing required argument 'need'"),
    ],
)
def test_bad_calls_are_refused_in_pythons_words(call, words):
    refused(NET + f"model = {call}\n", words)
    with pytest.raises(TypeError):
        built(NET + f"model = {call}\n")


def test_sizes_stay_exact_and_symbolic():
    report = explain_torch("h = 3\nmodel = nn.Sequential(nn.Linear(h * 2, h // 2), nn.LSTM(d, d + 1))")
    d = sympy.Symbol("d", integer=True, positive=True)
    assert sympy.expand(report.total - (6 + 1 + 4 * (d + 1) * (2 * d + 1) + 8 * (d + 1))) == 0


def test_a_symbolic_number_of_layers_is_counted_and_not_listed():
    report = explain_torch(
        HEADER
        + "class N(nn.Module):\n    def __init__(self, L):\n        super().__init__()\n        self.rnn = nn.LSTM(3, 4, L)\n"
    )
    layers = sympy.Symbol("L", integer=True, positive=True)
    for value in (1, 3):
        assert report.total.subs(layers, value) == sum(p.numel() for p in torch.nn.LSTM(3, 4, value).parameters())
    data = report.to_dict()
    assert data["tensors"] == [] and data["total"] == "160*L - 16" and "160*L - 16" in report.text()


def test_a_module_handed_to_code_derive_does_not_read_is_refused_or_marked():
    text = """
        from mylib import init_model

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)
                init_model(self)

        model = Net()
        """
    refused(text, "init_model(...) is not read by derive and receives a module (Net)")
    report = explain_torch(HEADER + textwrap.dedent(text), partial=True)
    assert report.partial and report.total == 20 and any("may change Net" in n for n in report.notes)
    refused("fc = nn.Linear(2, 2)\nmodel = eval('fc')\n", "'eval(...)' may be a module")


def test_a_refused_statement_that_makes_no_model_is_not_the_model():
    report = explain_torch(
        HEADER + "import wandb\nmodel = nn.Sequential(nn.Linear(2, 2))\nwandb.watch(model)\nprint(model)\n"
    )
    assert report.total == 6
    refused("a = nn.Sequential(nn.Linear(2, 2))\nb = nn.Linear(unknown_size.n, 2)\n", "in_features")
