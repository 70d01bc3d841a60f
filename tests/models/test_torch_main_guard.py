"""A torch file whose model is made inside the function its ``if __name__ == "__main__":`` block calls
(pytorch/pytorch#16025's test file, issue 26): read as that function's body, checked against torch
(the same class built on the meta device); the near misses still refused."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from derive.read import SourceError, explain  # noqa: E402

FILE = """
import torch
import torch.nn as nn

HIDDEN = 3

def make_model():
    class SimpleLSTM(nn.Module):
        def __init__(self):
            super(SimpleLSTM, self).__init__()
            self.lstm = nn.LSTM(input_size=3, hidden_size=HIDDEN)
            self.head = nn.Linear(HIDDEN, 2)

        def forward(self, x, hidden):
            output, hidden = self.lstm(x, hidden)
            return self.head(output)

    model = SimpleLSTM().eval().cpu()
    out = model(torch.randn(1, 1, 3), (torch.randn(1, 1, 3), torch.randn(1, 1, 3)))

if __name__ == '__main__':
    make_model()
"""


def test_the_model_a_function_under_the_main_guard_makes():
    class SimpleLSTM(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(input_size=3, hidden_size=3)
            self.head = nn.Linear(3, 2)

    with torch.device("meta"):
        real = SimpleLSTM()
    report = explain(FILE)
    assert report.total == sum(p.numel() for p in real.parameters())
    assert [(t["name"], tuple(t["shape"])) for t in report.tensors] == [
        (n, tuple(p.shape)) for n, p in real.named_parameters()
    ]
    assert report.notes[0] == 'line 22: the model make_model() makes, which the if __name__ == "__main__": block calls'


@pytest.mark.parametrize(
    "change",
    [
        ("def make_model():", "def make_model(width):"),  # it takes an argument: which, derive cannot know
        ("    make_model()", "    print('no model')"),  # the guard calls no function
        ("if __name__ == '__main__':", "if DEBUG:"),  # no main guard
    ],
)
def test_near_misses_are_still_refused(change):
    text = FILE.replace(*change)
    if change[0] == "def make_model():":
        text = text.replace("    make_model()", "    make_model(3)")
    with pytest.raises(SourceError, match="no PyTorch model found"):
        explain(text)
