"""Messages of bounded length: an exception that echoes what the user gave (here a 2 MB option
value) carries at most 4,096 characters, its head and its tail (include/openge/bounded_text.h)."""
import pytest

import openge
from conftest import DEMO_MODEL


def test_two_megabyte_option_value_gives_a_bounded_message():
    with pytest.raises(openge.OptionError) as raised:
        openge.Session(DEMO_MODEL, options={"precision_mode": "x" * 2_000_000})
    message = str(raised.value)
    assert len(message) <= 4096
    assert "precision_mode" in message
    assert "characters left out" in message
