"""The examples in the package's docstrings run and print what they claim."""

import doctest

import pytest

import derive
import derive.torch
from docs_src.calculator import blocks as calculator_blocks


@pytest.mark.parametrize("module", [derive, derive.torch, calculator_blocks], ids=lambda m: m.__name__)
def test_docstring_examples(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0
    assert result.failed == 0
