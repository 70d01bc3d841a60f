"""DeepSpeech2 (in the style of SeanNaren/deepspeech.pytorch, deepspeech_pytorch/model.py)."""

import math
from collections import OrderedDict

import torch.nn as nn

supported_rnns = {"lstm": nn.LSTM, "rnn": nn.RNN, "gru": nn.GRU}
supported_rnns_inv = dict((v, k) for k, v in supported_rnns.items())


class SequenceWise(nn.Module):
    def __init__(self, module):
        """Collapses input of dim T*N*H to (T*N)*H, and applies to a module."""
        super().__init__()
        self.module = module

    def forward(self, x):
        t, n = x.size(0), x.size(1)
        x = x.view(t * n, -1)
        x = self.module(x)
        return x.view(t, n, -1)


class BatchRNN(nn.Module):
    def __init__(self, input_size, hidden_size, rnn_type=nn.LSTM, bidirectional=False, batch_norm=True):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bidirectional = bidirectional
        self.batch_norm = SequenceWise(nn.BatchNorm1d(input_size)) if batch_norm else None
        self.rnn = rnn_type(input_size=input_size, hidden_size=hidden_size, bidirectional=bidirectional, bias=True)
        self.num_directions = 2 if bidirectional else 1

    def flatten_parameters(self):
        self.rnn.flatten_parameters()

    def forward(self, x, output_lengths):
        if self.batch_norm is not None:
            x = self.batch_norm(x)
        x, h = self.rnn(x)
        return x


class Lookahead(nn.Module):
    def __init__(self, n_features, context):
        super().__init__()
        assert context > 0
        self.context = context
        self.n_features = n_features
        self.pad = (0, self.context - 1)
        self.conv = nn.Conv1d(
            self.n_features,
            self.n_features,
            kernel_size=self.context,
            stride=1,
            groups=self.n_features,
            padding=0,
            bias=False,
        )


class DeepSpeech(nn.Module):
    def __init__(
        self,
        labels,
        rnn_type="lstm",
        hidden_size=1024,
        hidden_layers=5,
        sample_rate=16000,
        window_size=0.02,
        bidirectional=True,
        context=20,
    ):
        super().__init__()
        self.bidirectional = bidirectional
        nb_classes = len(labels)

        self.conv = nn.Sequential(
            nn.Conv2d(1, 32, kernel_size=(41, 11), stride=(2, 2), padding=(20, 5)),
            nn.BatchNorm2d(32),
            nn.Hardtanh(0, 20, inplace=True),
            nn.Conv2d(32, 32, kernel_size=(21, 11), stride=(2, 1), padding=(10, 5)),
            nn.BatchNorm2d(32),
            nn.Hardtanh(0, 20, inplace=True),
        )
        # Based on above convolutions and spectrogram size using conv formula (W - F + 2P)/ S+1
        rnn_input_size = int(math.floor((sample_rate * window_size) / 2) + 1)
        rnn_input_size = int(math.floor(rnn_input_size + 2 * 20 - 41) / 2 + 1)
        rnn_input_size = int(math.floor(rnn_input_size + 2 * 10 - 21) / 2 + 1)
        rnn_input_size *= 32

        rnns = []
        rnn = BatchRNN(
            input_size=rnn_input_size,
            hidden_size=hidden_size,
            rnn_type=supported_rnns[rnn_type],
            bidirectional=bidirectional,
            batch_norm=False,
        )
        rnns.append(("0", rnn))
        for x in range(hidden_layers - 1):
            rnn = BatchRNN(
                input_size=hidden_size * 2 if bidirectional else hidden_size,
                hidden_size=hidden_size,
                rnn_type=supported_rnns[rnn_type],
                bidirectional=bidirectional,
            )
            rnns.append(("%d" % (x + 1), rnn))  # noqa: UP031
        self.rnns = nn.Sequential(OrderedDict(rnns))
        self.lookahead = (
            nn.Sequential(Lookahead(hidden_size, context=context), nn.Hardtanh(0, 20, inplace=True))
            if not bidirectional
            else None
        )

        fully_connected = nn.Sequential(nn.BatchNorm1d(hidden_size), nn.Linear(hidden_size, nb_classes, bias=False))
        self.fc = nn.Sequential(SequenceWise(fully_connected))
        self.inference_softmax = nn.Softmax(dim=-1)


labels = [
    "_",
    "'",
    "A",
    "B",
    "C",
    "D",
    "E",
    "F",
    "G",
    "H",
    "I",
    "J",
    "K",
    "L",
    "M",
    "N",
    "O",
    "P",
    "Q",
    "R",
    "S",
    "T",
    "U",
    "V",
    "W",
    "X",
    "Y",
    "Z",
    " ",
]
model = DeepSpeech(labels, rnn_type="gru", hidden_size=256, hidden_layers=3, bidirectional=False)
