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
    said = dict(words.rules_in_words(p.ruleset, p.stakes, preset))
    assert list(said) == [
        "The table",
        "The deal",
        "The first dealer",
        *(["A turned " + p.ruleset.auto_trump[:-1]] if p.ruleset.auto_trump else ["Trump"]),
        "Making trump",
        *(["The card swap"] if p.ruleset.bidding == rules.TRICK_BIDDING else []),
        "When everybody passes",
        "Dropping out",
        "Scoring",
        "The end",
        "Stakes",
    ]
    start = p.ruleset.starting_score
    assert (f"count up to {start}" if p.ruleset.count_up else f"start at {start}") in said[
        "The table"
    ]
    assert all(sentence.endswith(".") for sentence in said.values())


def _said(preset="standard", stakes=None, **overrides) -> dict:
    r = rules.make_ruleset(preset, **overrides)
    return dict(words.rules_in_words(r, stakes or rules.Stakes(), preset))


def test_a_redeal_is_mentioned_only_where_somebody_redeals():
    assert "redeal" not in _said("standard")["The table"]
    assert "a redeal included" in _said("standard", all_pass=rules.REDEAL)["The table"]
    assert "a redeal included" in _said("dirty-clubs")["The table"]


def test_falling_short_is_mentioned_only_where_a_stake_counts_it():
    game_and_point = rules.Stakes(per_game=100, per_point=10)
    assert "fell short" not in _said("spades-21", game_and_point)["Stakes"]
    assert _said("spades-21", game_and_point)["Stakes"].endswith(
        "a loser left at 7 pays $1.00 + 7 × $0.10 = $1.70."
    )
    assert "who fell short 2 times" in _said("standard", rules.Stakes(per_set=25))["Stakes"]


def test_the_first_dealer_is_a_cut_the_first_jack_or_chosen():
    said = _said()["The first dealer"]
    assert "cut" in said and "lowest card deals" in said and "first Jack" in said
    assert "choosing" in said


def test_the_card_swap_is_told_only_where_trump_is_bid_for():
    assert "throw away cards" in _said("dirty-clubs")["The card swap"]
    assert "The card swap" not in _said("standard")


def test_the_deal_says_what_the_widow_is_and_the_deck_for_three_players():
    three = _said("three-15")["The deal"]
    assert "24-card Euchre deck" in three and "with three players too" in three
    assert "widow" in three and "take no trick" not in three and "nobody plays them" in three
    assert "three players" not in _said("standard")["The deal"]


def test_a_set_penalty_the_written_rules_leave_open_is_the_houses_choice():
    for preset in ("spades-21", "three-15"):
        assert "+5 is the house's choice" in _said(preset)["Scoring"]
    assert "no set is the house's choice" in _said("three-15", set_penalty=None)["Scoring"]
    for preset in ("standard", "dirty-clubs", "three-widow"):
        assert "house's choice" not in _said(preset)["Scoring"]


def test_a_cut_for_the_deal_gives_the_low_card_the_deal_and_a_tie_cuts_again():
    import random

    ties = 0
    for seed in range(300):
        names = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay"][: 3 + seed % 4]
        cut, dealer = rules.cut_for_deal(names, random.Random(seed))
        first = [rules.RANKS.index(rank) for _, _, rank, _ in cut[: len(names)]]
        lowest = [names[i] for i, rank in enumerate(first) if rank == min(first)]
        if len(lowest) == 1:
            assert len(cut) == len(names) and dealer == lowest[0]
        else:  # tied for the low card: only they cut again
            ties += 1
            assert dealer in lowest and {c[1] for c in cut[len(names) :]} <= set(lowest)
    assert ties


def test_counted_up_every_score_is_said_as_the_board_shows_it():
    p = rules.PRESETS["dirty-clubs-up"]
    said = dict(words.rules_in_words(p.ruleset, rules.Stakes(per_point=10), p.name))
    assert "start at 0 and count up to 15" in said["The table"]
    assert "A player at 13 or above must play" in said["Dropping out"]  # 2 or below, down
    assert "adds their tricks to their score" in said["Scoring"]
    assert "set: −5 points" in said["Scoring"] and "never takes a score below 0" in said["Scoring"]
    assert "once a score is at 15 or above: the highest score wins" in said["The end"]
    assert "for each point they are short of 15" in said["Stakes"]
    assert "a loser at 8 (7 short of 15) pays $0.70" in said["Stakes"]
