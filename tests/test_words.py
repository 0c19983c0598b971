"""The app's wording: plain functions, no database."""

import pytest

from games import rules, words


def test_money_has_its_symbol_and_a_real_minus_sign():
    assert words.money(170) == "$1.70"
    assert words.money(-40, "EUR") == "−€0.40"
    assert words.money(5, "CHF") == "0.05 CHF"


@pytest.mark.parametrize(
    "left, blank, said",
    [
        (5, True, "5 of 5 left to give"),
        (1, True, "1 of 5 left to give"),
        (0, True, "0 of 5 left to give"),  # a row still empty, though every trick is given
        (0, False, "all 5 given"),
        (-1, False, "1 trick too many"),
        (-2, True, "2 tricks too many"),
    ],
)
def test_how_far_the_tricks_are_given_reads_as_words(left, blank, said):
    assert words.tricks_given(left, 5, blank) == said


@pytest.mark.parametrize("preset", list(rules.PRESETS))
def test_every_preset_says_each_of_its_rules_in_a_sentence(preset):
    p = rules.PRESETS[preset]
    said = dict(words.rules_in_words(p.ruleset, p.stakes))
    assert list(said) == [
        "The table",
        *(["A turned " + p.ruleset.auto_trump[:-1]] if p.ruleset.auto_trump else ["Trump"]),
        "Making trump",
        "When everybody passes",
        "Dropping out",
        "Scoring",
        "The end",
        "Stakes",
    ]
    assert f"start at {p.ruleset.starting_score}" in said["The table"]
    assert all(sentence.endswith(".") for sentence in said.values())


def test_a_set_maker_in_a_three_player_game_pays_what_the_rules_say():
    r = rules.make_ruleset("three-widow")
    assert "is set: +5 points" in dict(words.rules_in_words(r, rules.Stakes()))["Scoring"]
    no_set = rules.make_ruleset("three-widow", set_penalty=None)
    assert "There is no set" in dict(words.rules_in_words(no_set, rules.Stakes()))["Scoring"]


def test_the_stakes_example_is_what_the_engine_charges():
    stakes = rules.Stakes(per_game=100, per_point=10, per_set=25)
    sentence = words.stakes_in_words(stakes, rules.make_ruleset("standard"))
    owed = words.money(rules.owes(stakes, words.EXAMPLE_SCORE, words.EXAMPLE_SHORT))
    assert sentence.endswith(f"$1.00 + 7 × $0.10 + 2 × $0.25 = {owed}.") and owed == "$2.20"
    assert words.stakes_in_words(rules.Stakes(), rules.make_ruleset("standard")) == (
        "Played for no money."
    )


def test_the_ties_rule_is_worded_for_each_choice():
    for ties, phrase in (
        ("lowest", "tied on it share"),
        ("share", "at or below zero shares"),
        ("play_on", "play goes on"),
    ):
        r = rules.make_ruleset("standard", ties=ties)
        assert phrase in dict(words.rules_in_words(r, rules.Stakes()))["The end"]


def test_each_suit_of_the_rules_is_named_with_its_symbol():
    assert list(words.SUIT_SYMBOLS) == list(rules.SUITS)
    assert [words.suit_label(s) for s in rules.SUITS] == [
        "♣ Clubs",
        "♦ Diamonds",
        "♥ Hearts",
        "♠ Spades",
    ]
    assert words.suit("spades") == "♠ spade"


def test_the_winners_are_said_as_the_board_and_replay_say_them():
    assert words.winners(("Cat",)) == "Cat wins"
    assert words.winners(("Ann", "Bob", "Dan")) == "Ann, Bob and Dan share the win"
    assert words.won_by(rules.SWEEP) == "took all five tricks"
    assert words.won_by(rules.ZERO) == "reached zero"


def test_scores_and_changes_have_a_real_minus_sign():
    assert words.number(-5) == "−5" and words.number(7) == "7"
    assert words.signed(5) == "+5" and words.signed(-3) == "−3" and words.signed(0) == "0"


def test_the_stakes_and_what_a_loser_owes_are_said_term_by_term():
    stakes = rules.Stakes(per_game=100, per_point=10, per_set=25)
    assert words.stakes_text(stakes) == "$1.00 a game, $0.10 a point, $0.25 a set"
    assert words.stakes_text(rules.Stakes()) == "no stakes"
    assert words.owes_words(stakes, 33, 1) == (
        "$1.00 a game + 33 points × $0.10 + 1 hand short × $0.25"
    )


def test_house_rules_are_said_as_the_form_words_them():
    ruleset = rules.make_ruleset("three-widow", ties="share", set_penalty=None)
    assert words.house_rules_words("three-widow", ruleset) == [
        "A maker who falls short: Just counts tricks",
        "Several at or below 0: All at or below 0 share",
    ]


def test_a_hand_is_said_in_a_few_words():
    start = rules.new_match(rules.make_ruleset("standard"), ("Ann", "Bob", "Cat", "Dan"), "Dan")
    ordered = rules.Hand("hearts", "hearts", "Bob", None, ("Cat",), {"Ann": 0, "Bob": 3, "Dan": 2})
    _, result = rules.play(start, ordered)
    assert words.hand_in_words(result) == "♥ turned · Bob ordered up · Cat out"
    _, club = rules.play(
        start, rules.Hand("clubs", tricks={"Ann": 2, "Bob": 1, "Cat": 1, "Dan": 1})
    )
    assert words.hand_in_words(club) == "♣ turned · all play"


def test_a_match_card_says_who_won_or_who_deals_next():
    assert words.card_meta(12, winners=["Ann", "Bob"]) == "Ann & Bob won · 12 hands"
    assert words.card_meta(1, dealer="Cat") == "1 hand · Cat deals next"


@pytest.mark.parametrize("hour, minute", [(0, 5), (9, 0), (12, 0), (12, 30), (20, 40), (23, 59)])
def test_times_read_as_django_writes_them(hour, minute):
    from datetime import datetime

    from django.utils.dateformat import format

    t = datetime(2026, 11, 3, hour, minute)
    assert words.clock(t) == format(t, "g:i a")
    assert words.day_and_clock(t) == format(t, "M j, g:i a")
    assert words.date_and_clock(t) == format(t, "M j Y, g:i a")
