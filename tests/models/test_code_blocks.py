"""Model code that imports the blocks' packages, read by derive and held against the real libraries.

Each file under ``block_files/`` is a model definition as its author writes it, importing
transformers, mamba_ssm, flash-linear-attention or the state-spaces/s4 repository. Here the files
and snippets that need only transformers (in this environment, on ``torch.device("meta")``) and
the s4 repository (not a package: its S4D transcribed from ``models/s4/s4d.py``, cited in
``tests/support/ssm_reference.py``, stands in for the import) are run, and every tensor name and
shape of ``named_parameters()``, every buffer and the total must be derive's. mamba_ssm and fla run
in their own environment: ``test_code_blocks_ssm.py``. What derive cannot know is refused with the
line and the reason — never a wrong total.
"""

from __future__ import annotations

import sys
import types
import unittest.mock
import warnings
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

import ssm_reference  # noqa: E402

from derive.read.code.python.imported import config_class, model_class, registered  # noqa: E402
from derive.read.code.pytorch.reader import explain_torch  # noqa: E402
from derive.read.source import SourceError  # noqa: E402
from derive.tree import named_buffers  # noqa: E402

FILES = Path(__file__).parent / "block_files"


def _s4_modules() -> dict[str, types.ModuleType]:
    """``models.s4.s4d`` (and the older ``src.models.s4.s4d``) as packages holding the reference S4D."""
    found = {}
    for dotted in ("models", "models.s4", "models.s4.s4d", "src", "src.models", "src.models.s4", "src.models.s4.s4d"):
        found[dotted] = types.ModuleType(dotted)
    found["models.s4.s4d"].S4D = ssm_reference.S4D
    found["src.models.s4.s4d"].S4D = ssm_reference.S4D
    return found


def run(text: str, expression: str = "model", filename: str = "<model>"):
    """Run trusted model code with torch on the meta device; the object ``expression`` names."""
    module = types.ModuleType("model_file")
    patched = {"model_file": module, **_s4_modules()}
    saved = {name: sys.modules.get(name) for name in patched}
    sys.modules.update(patched)  # (patch.dict would also drop what transformers imports meanwhile)
    try:
        with (
            torch.device("meta"),
            warnings.catch_warnings(),
            unittest.mock.patch("builtins.print"),
            unittest.mock.patch.object(sys, "argv", [filename]),  # argparse reads no argument
        ):
            warnings.simplefilter("ignore")
            exec(compile(text, filename, "exec"), module.__dict__)  # our own test code
            return eval(expression, module.__dict__)
    finally:
        for name, before in saved.items():
            if before is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = before


def check(text: str, expression: str = "model", filename: str = "<model>"):
    """derive's reading of ``text`` against the object the code builds: names, shapes, buffers, total."""
    model = run(text, expression, filename)
    report = explain_torch(text)
    assert [(t["name"], tuple(t["shape"])) for t in report.tensors] == [
        (n, tuple(p.shape)) for n, p in model.named_parameters()
    ]
    assert [(n, tuple(p.shape)) for n, p in named_buffers(report.module)] == [
        (n, tuple(b.shape)) for n, b in model.named_buffers()
    ]
    assert report.total == sum(p.numel() for p in model.parameters())
    assert not report.partial
    return report


#: files run here -> the title derive gives the model
ANSWERED = {
    "hf_mamba_default.py": "MambaForCausalLM",
    "hf_mamba_classifier.py": "MambaClassifier (nn.Module)",
    "hf_hybrid_lm.py": "RwkvForCausalLM",
    "s4d_classifier.py": "S4Model (nn.Module)",
}


@pytest.mark.parametrize("name", sorted(ANSWERED))
def test_files_are_answered_exactly(name):
    text = (FILES / name).read_text()
    report = check(text, filename=str(FILES / name))
    assert report.title == ANSWERED[name]


def test_hf_mamba_default_counts_the_tied_head_once():
    text = (FILES / "hf_mamba_default.py").read_text()
    report = explain_torch(text)
    assert "lm_head.weight" not in [t["name"] for t in report.tensors]
    lm_head = run(text).lm_head.weight
    assert lm_head is run(text, "model.backbone.embeddings.weight") or lm_head.shape == (50280, 768)
    assert [r["tied_to"] for r in report.to_dict()["tensors"] if r.get("tied_to")] in (
        [],
        ["backbone.embeddings.weight"],
    )


def test_the_s4_example_as_it_stands_is_refused_at_the_s4d_line():
    text = (FILES / "s4d_argparse.py").read_text()
    assert sum(p.numel() for p in run(text, filename="s4d_argparse.py").parameters()) > 0  # torch builds it
    with pytest.raises(SourceError) as refused:
        explain_torch(text)
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "S4D(d_model" in t)
    assert str(refused.value).startswith(f"line {line}: S4D: its tensors depend on 'min(0.001, args.lr)'")
    assert "argparse" in str(refused.value)


HEAD = "import torch.nn as nn\n"
#: transformers' construction forms: each snippet is run by transformers and read by derive
TRANSFORMERS = {
    "model class": "from transformers import MambaConfig, MambaForCausalLM\n"
    "model = MambaForCausalLM(MambaConfig(hidden_size=64, num_hidden_layers=2, vocab_size=300))",
    "keyword config": "from transformers import MambaConfig, MambaModel\n"
    "model = MambaModel(config=MambaConfig(hidden_size=32, num_hidden_layers=2, vocab_size=50, expand=3))",
    "module path": "from transformers.models.mamba.modeling_mamba import MambaForCausalLM\n"
    "from transformers.models.mamba.configuration_mamba import MambaConfig\n"
    "model = MambaForCausalLM(MambaConfig(hidden_size=48, num_hidden_layers=1, vocab_size=99, tie_word_embeddings=False))",
    "package import": "import transformers\n"
    "cfg = transformers.Mamba2Config(hidden_size=64, num_heads=4, head_dim=32, n_groups=2, num_hidden_layers=2, vocab_size=128)\n"
    "model = transformers.Mamba2ForCausalLM(cfg)",
    "auto causal lm": "from transformers import AutoModelForCausalLM, FalconMambaConfig\n"
    "config = FalconMambaConfig(hidden_size=64, num_hidden_layers=2, vocab_size=256)\n"
    "model = AutoModelForCausalLM.from_config(config, torch_dtype=None)",
    "auto config": "from transformers import AutoConfig, AutoModel\n"
    "config = AutoConfig.for_model('rwkv', hidden_size=32, num_hidden_layers=2, vocab_size=77)\n"
    "model = AutoModel.from_config(config)",
    "recurrent gemma": "from transformers import RecurrentGemmaConfig, RecurrentGemmaForCausalLM\n"
    "model = RecurrentGemmaForCausalLM(RecurrentGemmaConfig(hidden_size=64, intermediate_size=96, num_hidden_layers=3,"
    " num_attention_heads=4, lru_width=64, vocab_size=100))",
    "inert change": "from transformers import MambaConfig, MambaForCausalLM\n"
    "config = MambaConfig(hidden_size=32, num_hidden_layers=2, vocab_size=64)\n"
    "config.use_cache = False\nconfig.layer_norm_epsilon = 1e-6\nmodel = MambaForCausalLM(config)",
    "sizes read from the config": HEAD + "from transformers import MambaConfig, MambaModel\n"
    "class Tagger(nn.Module):\n"
    "    def __init__(self, config, tags=9):\n"
    "        super().__init__()\n"
    "        self.mamba = MambaModel(config)\n"
    "        self.proj = nn.Linear(config.hidden_size * config.expand, tags)\n"
    "        self.embed_tags = nn.Embedding(tags, config.state_size)\n"
    "model = Tagger(MambaConfig(hidden_size=40, num_hidden_layers=2, vocab_size=30))",
    "one model shared": HEAD + "from transformers import MambaConfig, MambaForCausalLM\n"
    "class Pair(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.a = MambaForCausalLM(MambaConfig(hidden_size=16, num_hidden_layers=1, vocab_size=20))\n"
    "        self.b = self.a\n"
    "model = Pair()",
}


@pytest.mark.parametrize("case", sorted(TRANSFORMERS))
def test_transformers_construction_forms(case):
    check(TRANSFORMERS[case])


#: code derive refuses -> (words of the refusal, line)
REFUSED = {
    "a size changed after the config is made": (
        "from transformers import MambaConfig, MambaForCausalLM\n"
        "config = MambaConfig(hidden_size=32, num_hidden_layers=2)\n"
        "config.hidden_size = 64\n"
        "model = MambaForCausalLM(config)",
        "hidden_size was set on the MambaConfig after it was made",
        4,
    ),
    "a config from the hub": (
        "from transformers import AutoConfig, MambaForCausalLM\n"
        "config = AutoConfig.from_pretrained('state-spaces/mamba-130m-hf')\n"
        "model = MambaForCausalLM(config)",
        "from_pretrained loads a checkpoint",
        3,
    ),
    "weights from the hub": (
        "from transformers import MambaForCausalLM\nmodel = MambaForCausalLM.from_pretrained('state-spaces/mamba-130m-hf')",
        "from_pretrained loads a checkpoint",
        2,
    ),
    "another model type's config": (
        "from transformers import Mamba2Config, MambaForCausalLM\nmodel = MambaForCausalLM(Mamba2Config())",
        "builds a MambaForCausalLM, not from a Mamba2Config",
        2,
    ),
    "a key transformers ignores": (
        "from transformers import MambaConfig, MambaForCausalLM\nmodel = MambaForCausalLM(MambaConfig(d_model=64))",
        "config key 'd_model'",
        2,
    ),
    "an unknown size": (
        "import json\nfrom transformers import MambaConfig, MambaForCausalLM\n"
        "cfg = json.load(open('config.json'))\n"
        "model = MambaForCausalLM(MambaConfig(hidden_size=cfg['d'], num_hidden_layers=2))",
        "cfg['d']",
        4,
    ),
    "an unknown flag of a block": (
        "import os\nfrom mamba_ssm import Mamba\nmodel = Mamba(d_model=16, conv_bias=os.environ.get('BIAS'))",
        "conv_bias",
        3,
    ),
    "a package derive does not know": (
        "from mamba_ssm import Mamba\nfrom zeta.nn import MambaBlock\nmodel = MambaBlock(dim=64, depth=2)",
        "imported from zeta.nn, which is not installed here",
        3,
    ),
    "fla's own Mamba (not registered)": (
        "from fla.layers import Mamba\nmodel = Mamba(hidden_size=64)",
        "imported from fla.layers, which is not installed here",
        2,
    ),
    "a local module named like fla's": (
        "from layers import GatedLinearAttention\nmodel = GatedLinearAttention(hidden_size=64)",
        "imported from layers, which is not installed here",
        2,
    ),
    "a relative import": (
        "from .s4d import S4D\nmodel = S4D(64)",
        "imported from .s4d, a relative import derive resolves only in a file of a package",
        2,
    ),
    "a Flax class in torch code": (
        "from lru.model import LRU\nmodel = LRU(d_hidden=16, d_model=8)",
        "is not a PyTorch module",
        2,
    ),
    "Auto from a mamba_ssm config": (
        "from transformers import AutoModelForCausalLM\nfrom mamba_ssm.models.config_mamba import MambaConfig\n"
        "model = AutoModelForCausalLM.from_config(MambaConfig(d_model=64, n_layer=2))",
        "does not build from a MambaConfig",
        3,
    ),
    "other arguments of a model class": (
        "from transformers import MambaConfig, MambaForCausalLM\nmodel = MambaForCausalLM(MambaConfig(), 3)",
        "does not read the arguments 3",
        2,
    ),
    "a model class without a config": (
        "from transformers import MambaForCausalLM\nmodel = MambaForCausalLM()",
        "no config given",
        2,
    ),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_refusals_name_the_line_and_the_reason(case):
    text, words, line = REFUSED[case]
    with pytest.raises(SourceError) as refused:
        explain_torch(text)
    assert str(refused.value).startswith(f"line {line}:") and words in str(refused.value), str(refused.value)


def test_partial_counts_the_rest_around_an_unknown_package():
    text = HEAD + (
        "from transformers import MambaConfig, MambaModel\nfrom zeta.nn import MambaBlock\n"
        "class Net(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.known = MambaModel(MambaConfig(hidden_size=16, num_hidden_layers=1, vocab_size=10))\n"
        "        self.unknown = MambaBlock(dim=16)\n"
        "model = Net()"
    )
    report = explain_torch(text, partial=True)
    known = run(
        "from transformers import MambaConfig, MambaModel\n"
        "model = MambaModel(MambaConfig(hidden_size=16, num_hidden_layers=1, vocab_size=10))"
    )
    assert report.partial and report.total == sum(p.numel() for p in known.parameters())


def test_arguments_no_tensor_depends_on_may_be_unknown():
    """``device=device``, ``dtype=...`` reach the constructor unread; the tensors are those without them."""
    with_device = explain_torch(
        "import torch\nfrom mamba_ssm import Mamba\ndevice = torch.device('cuda')\n"
        "model = Mamba(d_model=24, device=device, dtype=torch.bfloat16)"
    )
    plain = explain_torch("from mamba_ssm import Mamba\nmodel = Mamba(d_model=24)")
    assert with_device.tensors == plain.tensors and with_device.total == plain.total


def test_the_registry_paths():
    assert [c.framework for c in registered("mamba_ssm.Mamba")] == ["mamba_ssm"]
    assert [c.name for c in registered("mamba_ssm.modules.mamba2.Mamba2")] == ["Mamba2"]
    assert [c.name for c in registered("fla.layers.gla.GatedLinearAttention")] == ["GatedLinearAttention"]
    assert [c.name for c in registered("fla.RWKV7Attention")] == ["RWKV7Attention"]
    assert [c.name for c in registered("models.s4.s4d.S4D")] == [c.name for c in registered("src.models.s4.s4d.S4D")]
    assert [c.name for c in registered("recurrentgemma.torch.layers.RGLRU")] == ["RGLRU"]
    assert [c.name for c in registered("recurrentgemma.torch.modules.RecurrentBlock")] == ["RecurrentBlock"]
    assert registered("recurrentgemma.torch.RGLRU") == [] and registered("layers.RGLRU") == []
    assert registered("torch.nn.LSTM") == [] and registered("Mamba") == []
    assert config_class("transformers.models.rwkv.configuration_rwkv.RwkvConfig").model.model_type == "rwkv"
    assert config_class("fla.models.RWKV7Config").model.model_type == "rwkv7"
    assert config_class("mamba_ssm.models.config_mamba.MambaConfig").model.model_type == "mamba_ssm"
    assert model_class("fla.models.rwkv7.modeling_rwkv7.RWKV7Model")[1] == "base"
    assert model_class("mamba_ssm.MambaLMHeadModel")[1] == "model"
    assert model_class("somewhere.MambaForCausalLM") is None


def test_the_real_packages_define_the_registered_paths():
    """Every registered module path of transformers' classes is where transformers defines them."""
    import transformers

    for path in ("transformers.MambaConfig", "transformers.RwkvConfig", "transformers.Mamba2Config"):
        config = config_class(path)
        cls = getattr(transformers, config.constructor.name)
        assert cls.__module__ in config.constructor.module_types
        model = getattr(transformers, config.model.architecture)
        assert model_class(f"{model.__module__}.{model.__name__}")[0] is config.model


TRANSFORMERS_MORE = {
    "private from_config": "from transformers import RwkvConfig, RwkvForCausalLM\n"
    "model = RwkvForCausalLM._from_config(RwkvConfig(hidden_size=32, num_hidden_layers=2, vocab_size=40))",
    "a copied config": "import copy\nfrom transformers import MambaConfig, MambaForCausalLM\n"
    "base = MambaConfig(hidden_size=32, num_hidden_layers=2, vocab_size=64)\n"
    "config = copy.deepcopy(base)\nconfig.use_cache = False\nmodel = MambaForCausalLM(config)",
    "the same value set again": "from transformers import MambaConfig, MambaForCausalLM\n"
    "config = MambaConfig(hidden_size=32, num_hidden_layers=2, vocab_size=64)\n"
    "config.hidden_size = 32\nmodel = MambaForCausalLM(config)",
    "isinstance of a registered class": HEAD + "from transformers import MambaConfig, MambaModel\n"
    "class Net(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.body = MambaModel(MambaConfig(hidden_size=16, num_hidden_layers=1, vocab_size=10))\n"
    "        self.head = nn.Linear(16, 2) if isinstance(self.body, nn.Module) else None\n"
    "        self.tail = nn.Linear(16, 3) if isinstance(self.body, MambaModel) else nn.Linear(16, 4)\n"
    "        self.end = nn.Linear(16, 5) if isinstance(self.body, MambaConfig) else None\n"
    "model = Net()",
}


@pytest.mark.parametrize("case", sorted(TRANSFORMERS_MORE))
def test_more_transformers_forms(case):
    check(TRANSFORMERS_MORE[case])


def test_a_symbolic_number_of_layers_is_a_closed_form():
    """An uninstantiated class: its config's sizes are symbols, the total a formula right at every size."""
    import sympy

    text = HEAD + (
        "from transformers import MambaConfig, MambaForCausalLM\n"
        "class LM(nn.Module):\n"
        "    def __init__(self, n_layers, hidden=32):\n"
        "        super().__init__()\n"
        "        config = MambaConfig(hidden_size=hidden, num_hidden_layers=n_layers, vocab_size=100)\n"
        "        config.use_cache = False\n"
        "        self.lm = MambaForCausalLM(config)\n"
    )
    total = explain_torch(text).total
    assert isinstance(total, sympy.Expr) and {s.name for s in total.free_symbols} == {"n_layers"}
    for n in (1, 3):
        model = run(text + f"model = LM({n})")
        assert total.subs(dict.fromkeys(total.free_symbols, n)) == sum(p.numel() for p in model.parameters())


def test_auto_config_of_a_model_type_derive_does_not_build_is_refused():
    for model_type, words in (
        ("opt", "model type 'opt' is not one derive builds"),
        ("NAME", "its type is not known"),
    ):
        text = (
            "import os\nfrom transformers import AutoConfig, AutoModelForCausalLM\nNAME = os.environ['MODEL']\n"
            f"config = AutoConfig.for_model({model_type if model_type == 'NAME' else repr(model_type)})\n"
            "model = AutoModelForCausalLM.from_config(config)"
        )
        with pytest.raises(SourceError) as refused:
            explain_torch(text)
        assert str(refused.value).startswith("line 5:") and words in str(refused.value), str(refused.value)


def test_a_config_changed_to_an_unknown_or_refused_value():
    head = (
        "import os\nfrom transformers import MambaConfig, MambaForCausalLM\nconfig = MambaConfig(num_hidden_layers=2)\n"
    )
    for change, words in (
        (
            "config.vocab_size = int(os.environ['V'])",
            "vocab_size was set on the MambaConfig after it was made, to a value",
        ),
        (
            "config.d_model = 64",
            "d_model was set on the MambaConfig after it was made: MambaConfig: config key 'd_model'",
        ),
    ):
        with pytest.raises(SourceError) as refused:
            explain_torch(head + change + "\nmodel = MambaForCausalLM(config)")
        assert str(refused.value).startswith("line 5:") and words in str(refused.value), str(refused.value)


@pytest.fixture
def fake_package(monkeypatch):
    """A package ``fakepkg`` with registered classes, to see what their constructors receive."""
    from derive import blocks
    from derive.engine.constructors import CONSTRUCTORS, Constructor
    from derive.tree import Module, Param

    received = []

    def layer(width, *rest, **options):
        received.append((width, rest, options))
        inner = options.get("inner")
        children = (inner.replace(name="inner"),) if isinstance(inner, Module) else ()
        return Module("", "Layer", (Param("w", (width, 2)),), children, repeat=options.get("repeat", 1))

    def broken_config(**kwargs):
        raise TypeError("FakeConfig needs a size")

    entries = {
        ("fakefw", "Layer"): Constructor("fakefw", "Layer", layer, module_types=("fakepkg.layers", "fakepkg.shared")),
        ("otherfw", "Layer"): Constructor("otherfw", "Layer", layer, module_types=("fakepkg.shared",)),
        ("fakefw", "FakeConfig"): Constructor("fakefw", "FakeConfig", broken_config, module_types=("fakepkg.configs",)),
    }

    def fake_lm(config):
        return Module("", "FakeForCausalLM", children=(Module("body", "FakeBody", (Param("w", (2, 2)),)),))

    entries[("transformers", "FakeLMConfig")] = Constructor(
        "transformers",
        "FakeLMConfig",
        lambda **kw: fake_lm(kw),
        module_types=("transformers.models.fake.configuration_fake",),
    )
    monkeypatch.setitem(blocks.CONFIG_MODELS, "fake", blocks.ConfigModel("fake", fake_lm, "FakeForCausalLM", ""))
    for key, value in entries.items():
        monkeypatch.setitem(CONSTRUCTORS, key, value)
    return received


def test_a_model_without_a_base_model_is_refused(fake_package):
    text = (
        "import transformers\nfrom transformers.models.fake.configuration_fake import FakeLMConfig\n"
        "model = transformers.AutoModel.from_config(FakeLMConfig())"
    )
    with pytest.raises(SourceError, match="line 3: transformers.AutoModel.from_config.*does not build a base model of"):
        explain_torch(text)
    assert explain_torch(text.replace("AutoModel", "AutoModelForCausalLM")).total == 4


def test_what_a_registered_constructor_receives(fake_package):
    text = HEAD + (
        "import torch\nfrom fakepkg.layers import Layer\nfrom transformers import MambaConfig\n"
        "config = MambaConfig(hidden_size=8, num_hidden_layers=1)\n"
        "model = Layer(3, [1, 2], (3, 4), {'a': 5}, config, device=torch.device('cuda'), inner=nn.Linear(2, 2))"
    )
    report = explain_torch(text)
    (width, rest, options), *_ = fake_package
    assert width == 3 and rest[:3] == ([1, 2], (3, 4), {"a": 5})
    assert rest[3]["hidden_size"] == 8 and rest[3]["num_hidden_layers"] == 1  # a config object: its keys
    assert repr(options["device"]) == "torch.device"  # unread, and not used
    assert [t["name"] for t in report.tensors] == ["w", "inner.weight", "inner.bias"]


def test_a_size_taken_as_is_without_a_value_is_refused(fake_package):
    for call, words in (("Layer(os.environ['W'])", "os.environ['W']"), ("Layer(2, repeat=os.getpid())", "os.getpid")):
        with pytest.raises(SourceError) as refused:
            explain_torch(f"import os\nfrom fakepkg.layers import Layer\nmodel = {call}")
        message = str(refused.value)
        assert message.startswith("line 3: Layer: its tensors depend on") and words in message, message


def test_a_path_two_packages_register_is_refused(fake_package):
    with pytest.raises(SourceError, match="registered by fakefw's and otherfw's Layer: derive cannot tell which"):
        explain_torch("import fakepkg.shared\nmodel = fakepkg.shared.Layer(2)")
    with pytest.raises(SourceError, match="Layer: its tensors depend on"):
        explain_torch(
            "import os\nimport fakepkg.layers\nclass L(fakepkg.layers.Layer):\n    pass\nmodel = L(os.getpid())"
        )


def test_a_huge_number_of_layers_is_counted_not_expanded():
    """10**12 layers: the total is exact (a line through transformers' totals at 1 and 2 layers), in a moment."""
    import time

    text = (
        "from transformers import MambaConfig, MambaForCausalLM\n"
        "model = MambaForCausalLM(MambaConfig(hidden_size=16, vocab_size=30, num_hidden_layers={}))"
    )
    one, two = (sum(p.numel() for p in run(text.format(n)).parameters()) for n in (1, 2))
    start = time.perf_counter()
    total = explain_torch(text.format(10**12)).total
    assert total == one + (two - one) * (10**12 - 1) and time.perf_counter() - start < 10


def test_a_config_dict_changed_in_place_is_seen():
    """mamba_ssm's MambaConfig keeps the ssm_cfg dict it is given: a change to it reaches the model."""
    text = (
        "from mamba_ssm.models.config_mamba import MambaConfig\nfrom mamba_ssm import MambaLMHeadModel\n"
        "ssm = {'d_state': 8}\nconfig = MambaConfig(d_model=32, n_layer=1, vocab_size=16, ssm_cfg=ssm)\n"
        "ssm['d_state'] = 4\nmodel = MambaLMHeadModel(config)"
    )
    with pytest.raises(SourceError, match="line 6: ssm_cfg was set on the MambaConfig after it was made"):
        explain_torch(text)
    assert explain_torch(text.replace("ssm['d_state'] = 4", "ssm['d_state'] = 8")).total > 0


def test_ties_inside_repeated_layers_are_placed():
    from derive.read.code.pytorch.registered import adopt_tied
    from derive.read.code.pytorch.tree import to_tree
    from derive.tree import Module, Param, count, named_parameters

    layer = Module("layers.{k}", "Layer", (Param("w", (3, 3)),), repeat=2)
    tied = Module("", "Net", (Param("v", (3, 3), tied_to="layers.1.w"),), (layer,))
    tree = to_tree(adopt_tied(tied))
    # one tensor under two names: listed first where torch's named_parameters() meets it first
    assert [(n, p.tied_to) for n, p in named_parameters(tree, ties=True)] == [
        ("v", None),
        ("layers.0.w", None),
        ("layers.1.w", "v"),
    ]
    assert count(tree) == 18
    lost = Module("", "Net", (Param("v", (3, 3), tied_to="nowhere.w"),), (layer,))
    assert count(to_tree(adopt_tied(lost))) == count(lost) == 18


def test_a_subclass_with_a_symbolic_number_of_layers_is_refused_not_empty():
    """(It was counted as 0 parameters: the base's layers were dropped.)"""
    text = (
        HEAD
        + "class MyLSTM(nn.LSTM):\n    def __init__(self, layers):\n        super().__init__(8, 16, num_layers=layers)\n"
    )
    with pytest.raises(SourceError, match="line 4: MyLSTM subclasses LSTM with layers derive cannot list one by one"):
        explain_torch(text)
    assert explain_torch(text + "model = MyLSTM(2)").total == sum(
        p.numel() for p in run(text + "model = MyLSTM(2)").parameters()
    )


def test_every_file_is_listed():
    """Each file is held against the libraries here or in test_code_blocks_ssm.py (mamba_ssm, fla)."""
    ssm = {"mamba_lm.py", "hybrid_stack.py", "mamba2_config_dict.py", "mamba_lm_head_model.py", "fla_stack.py"}
    on_disk = {p.name for p in FILES.glob("*.py")} - {"conftest.py"}
    assert on_disk == {*ANSWERED, *ssm, "s4d_argparse.py"}
    assert ssm <= set((Path(__file__).parent / "test_code_blocks_ssm.py").read_text().split('"'))
