"""One reading of ``key=value``: rule overrides and bot parameters type values alike."""

from __future__ import annotations

import pytest

from arena.commands.common import UsageError, parse_settings
from bots.base import BotError, parse_spec
from core.options import NotAssignmentError, parse_assignments, parse_value

VALUES = [
    ("true", True), ("YES", True), ("on", True), ("False", False), ("no", False), ("OFF", False),
    ("0", 0), ("12", 12), ("-3", -3), ("0.5", 0.5), ("-2.25", -2.25), ("1e3", 1000.0),
    ("double", "double"), ("by_cards", "by_cards"), ("", ""), ("1.2.3", "1.2.3"),
]


@pytest.mark.parametrize("text,value", VALUES)
def test_value(text, value):
    got = parse_value(text)
    assert got == value and type(got) is type(value)


@pytest.mark.parametrize("text,value", [v for v in VALUES if v[0] and "," not in v[0]])
def test_rule_overrides_and_bot_parameters_agree(text, value):
    rules = parse_settings([f"k={text}"])["k"]
    bot = dict(parse_spec(f"somebot:k={text}").params)["k"]
    assert rules == bot == value and type(rules) is type(bot) is type(value)


@pytest.mark.parametrize("item", ["k", "=3", " =x", ""])
def test_not_an_assignment(item):
    with pytest.raises(NotAssignmentError) as err:
        parse_assignments([item])
    assert err.value.item == item
    with pytest.raises(UsageError, match=r"^--set: .* is not key=value$"):
        parse_settings([item])


def test_bot_spec_names_the_bad_parameter():
    with pytest.raises(BotError, match=r"^bot spec 'ismcts:c': parameter 'c' is not key=value$"):
        parse_spec("ismcts:c")


def test_later_items_win_and_spaces_are_stripped():
    assert parse_assignments([" a = 1 ", "a=2", "b= x "]) == {"a": 2, "b": "x"}
