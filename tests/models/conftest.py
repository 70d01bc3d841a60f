"""Shared set-up of the whole-model tests: Keras on the torch backend with a private KERAS_HOME."""

from __future__ import annotations

import os
import tempfile

os.environ.setdefault("KERAS_BACKEND", "torch")
os.environ.setdefault("KERAS_HOME", tempfile.mkdtemp(prefix="keras-home-"))
