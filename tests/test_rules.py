"""The rules engine: every rule of docs/rules.md, every preset, and properties over random
matches."""

import itertools
import random
import re
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import rules
from games.rules import NO_TRUMP, Hand, RuleError, Stakes

from .matches import random_hand, random_match, score_hand

ANN, BOB, CAT, DAN = "Ann", "Bob", "Cat", "Dan"
FOUR = (ANN, BOB, CAT, DAN)
THREE = (ANN, BOB, CAT)


def start(preset="standard", players=FOUR, dealer=DAN, scores=None, **overrides):
    state = rules.new_match(rules.make_ruleset(preset, **overrides), players, dealer)
    return replace(state, scores={**state.scores, **(scores or {})})


def hand(upcard, tricks, trump=None, maker=None, dropped=(), bid=None, **kw):
    return Hand(upcard, trump, maker, bid, tuple(dropped), tricks, **kw)


def changes(state, h):
    return score_hand(state, h)


def rule_error(state, h) -> RuleError:
    with pytest.raises(RuleError) as e:
        rules.check_hand(state, h)
    return e.value


# --- docs/rules.md §10, the worked examples --------------------------------------------------


def test_example_1_ordered_up_with_a_drop():
    h = hand("hearts", {ANN: 0, BOB: 3, DAN: 2}, "hearts", BOB, [CAT])
    assert changes(start(), h) == {ANN: 5, BOB: -3, CAT: 0, DAN: -2}


def test_example_2_maker_who_falls_short_is_set():
    h = hand("diamonds", {BOB: 2, ANN: 2, DAN: 1}, "hearts", BOB, [CAT])
    assert changes(start(), h) == {ANN: -2, BOB: 5, CAT: 0, DAN: -1}


def test_example_3_turned_club_has_no_maker_and_everyone_plays():
    h = hand("clubs", {ANN: 2, BOB: 2, CAT: 1, DAN: 0})
    assert changes(start(), h) == {ANN: -2, BOB: -2, CAT: -1, DAN: 5}


def test_example_4_lone_maker_sweeps_in_standard():
    h = hand("hearts", {BOB: 5}, "hearts", BOB, [ANN, CAT, DAN])
    state, result = rules.play(start(), h)
    assert result.changes == {ANN: 0, BOB: -5, CAT: 0, DAN: 0}
    assert state.finished and state.winners == (BOB,) and state.won_by == "sweep"


@pytest.mark.parametrize(
    "ties, finished, winners",
    [("lowest", True, (ANN, BOB)), ("share", True, (ANN, BOB)), ("play_on", False, ())],
)
def test_example_5_tied_below_zero(ties, finished, winners):
    state = start(scores={ANN: 2, BOB: 1}, ties=ties)
    h = hand("clubs", {ANN: 3, BOB: 2, CAT: 0, DAN: 0})
    state, _ = rules.play(state, h)
    assert state.scores[ANN] == state.scores[BOB] == -1
    assert (state.finished, state.winners) == (finished, winners)


def test_example_6_spades_21_money():
    state = replace(
        start("spades-21"), scores={ANN: -1, BOB: 7, CAT: 12, DAN: 3}, winners=(ANN,), won_by="zero"
    )
    payments, net = rules.settle(state, rules.PRESETS["spades-21"].stakes)
    assert [(p.payer, p.payee, p.cents) for p in payments] == [
        (BOB, ANN, 170),
        (CAT, ANN, 220),
        (DAN, ANN, 130),
    ]
    assert net == {ANN: 520, BOB: -170, CAT: -220, DAN: -130}


def test_example_7_three_15_dealer_is_maker_on_a_turned_club():
    state = start("three-15", THREE, CAT)
    shape = state.shape("clubs")
    assert (shape.automatic, shape.maker, shape.needs) == (True, CAT, 2)
    assert changes(state, hand("clubs", {CAT: 1, ANN: 2, BOB: 2})) == {ANN: -2, BOB: -2, CAT: 5}


# --- Presets (§8) -----------------------------------------------------------------------------

PRESET_TABLE = {
    # name: (seats, start, auto trump, dealer needs, bidding, all pass, no drop at, sweep)
    "standard": ((4,), 25, "clubs", None, "order_up", "no_trump", None, True),
    "short-15": ((4,), 15, "clubs", None, "order_up", "no_trump", None, True),
    "short-20": ((4,), 20, "clubs", None, "order_up", "no_trump", None, True),
    "dirty-clubs": ((4,), 20, "clubs", None, "tricks", "redeal", None, True),
    "three-widow": ((3,), 15, "clubs", None, "order_up", "no_trump", 5, True),
    "no-dirty-clubs": ((4,), 25, None, None, "order_up", "no_trump", None, True),
    "spades-21": ((3, 4), 21, "spades", 3, "order_up", "no_trump", None, False),
    "three-15": ((3,), 15, "clubs", 2, "order_up", "redeal", 5, False),
}


@pytest.mark.parametrize("name, expected", PRESET_TABLE.items())
def test_each_preset_is_the_written_rule_set(name, expected):
    r = rules.PRESETS[name].ruleset
    assert (
        r.players,
        r.starting_score,
        r.auto_trump,
        r.auto_trump_dealer_needs,
        r.bidding,
        r.all_pass,
        r.no_drop_at_or_below,
        r.sweep_wins,
    ) == expected
    assert (r.maker_needs, r.set_penalty, r.zero_trick_penalty, r.ties) == (3, 5, 5, "lowest")
    assert r.min_bid == 2 and r.lone_maker_sweeps


def test_every_preset_is_described_and_only_spades_21_and_dirty_clubs_up_have_stakes():
    # dirty-clubs-up, the other tables' rules, has tests of its own (tests/test_moon.py).
    assert set(rules.PRESETS) == {*PRESET_TABLE, "dirty-clubs-up"}
    for preset in rules.PRESETS.values():
        assert preset.label and len(preset.description) > 20
    assert {n for n, p in rules.PRESETS.items() if p.stakes} == {"spades-21", "dirty-clubs-up"}
    assert rules.PRESETS["spades-21"].stakes == Stakes(per_game=100, per_point=10)
    assert rules.PRESETS["three-widow"].label == "3 players (widow)"


@pytest.mark.parametrize(
    "option, value",
    [
        ("starting_score", 0),
        ("starting_score", "25"),
        ("starting_score", True),
        ("players", [7]),
        ("players", [2, 3]),
        ("players", []),
        ("players", 4),
        ("auto_trump", "stars"),
        ("auto_trump_dealer_needs", 0),
        ("auto_trump_dealer_needs", 6),
        ("bidding", "auction"),
        ("maker_needs", 6),
        ("min_bid", 0),
        ("all_pass", "misdeal"),
        ("no_drop_at_or_below", 2.5),
        ("set_penalty", -1),
        ("set_penalty", "5"),
        ("set_penalty", True),
        ("zero_trick_penalty", None),
        ("sweep_wins", 1),
        ("lone_maker_sweeps", "yes"),
        ("ties", "coin"),
        ("colour", "red"),
    ],
)
def test_a_bad_option_is_refused(option, value):
    with pytest.raises(RuleError) as e:
        rules.make_ruleset("standard", **{option: value})
    assert e.value.code == "bad_rules" and option in e.value.message


def test_an_unknown_preset_is_refused():
    with pytest.raises(RuleError, match="no rule set called 'pinochle'") as e:
        rules.make_ruleset("pinochle")
    assert e.value.code == "bad_rules"


def test_house_rules_override_a_preset_and_are_reported_as_such():
    r = rules.make_ruleset("standard", ties="share", players=[4, 3])
    assert r.ties == "share" and r.players == (3, 4)
    assert rules.ruleset_overrides("standard", r) == {"ties": "share", "players": [3, 4]}


@pytest.mark.parametrize(
    "players, dealer, message",
    [
        ((ANN, BOB, CAT), ANN, "for 4 players, not 3"),
        ((ANN, BOB, CAT, DAN, "Eve"), ANN, "for 4 players, not 5"),
        ((ANN, BOB, ANN, DAN), ANN, "Ann is seated twice"),
        ((ANN, BOB, " ", DAN), ANN, "needs a name"),
        (FOUR, "Eve", "first dealer, Eve, is not at the table"),
    ],
)
def test_a_bad_table_is_refused(players, dealer, message):
    with pytest.raises(RuleError, match=message) as e:
        rules.new_match(rules.PRESETS["standard"].ruleset, players, dealer)
    assert e.value.code == "bad_table"


@pytest.mark.parametrize(
    "a, b",
    [("Ann", "ann"), ("Ann", " ANN "), ("Ann Lee", "ann  lee"), ("Ann Lee", "Ann\u00a0Lee")],
)
def test_names_differing_only_in_capitals_or_spaces_are_one_person(a, b):
    assert rules.name_key(a) == rules.name_key(b)
    with pytest.raises(RuleError, match=f"{re.escape(a)} and {re.escape(b)} are one name") as e:
        rules.check_people((a, BOB, b, DAN))
    assert e.value.code == "bad_table" and "every player needs their own name" in e.value.message
    # A match file's table is its names as written (docs/format.md): two names there.
    assert rules.new_match(rules.PRESETS["standard"].ruleset, (a, BOB, b, DAN), BOB).players


def test_names_that_differ_in_letters_are_two_people():
    assert rules.name_key("Ann") != rules.name_key("Anne")
    assert rules.name_key("Ann Lee") != rules.name_key("AnnLee")


def test_a_hand_is_respelled_name_by_name():
    h = hand("hearts", {"ann": 1, BOB: 3, DAN: 1}, "hearts", BOB, ["cat"], dealer="dan")
    again = rules.respell(h, {"ann": ANN, "cat": CAT, "dan": DAN})
    assert again == hand("hearts", {ANN: 1, BOB: 3, DAN: 1}, "hearts", BOB, [CAT], dealer=DAN)


def test_spades_21_seats_three_or_four():
    for players in (THREE, FOUR):
        assert rules.new_match(rules.PRESETS["spades-21"].ruleset, players, ANN).players == players


# --- Checking a hand (§9) --------------------------------------------------------------------

ORDERED = {"upcard": "hearts", "trump": "hearts", "maker": BOB}
BAD_HANDS = [
    # (preset, state options, hand, code, message)
    (
        "standard",
        {},
        hand("hearts", {ANN: 1, BOB: 3, CAT: 1, "Eve": 0}, "hearts", BOB),
        "unknown_player",
        "Eve is not at this table",
    ),
    (
        "standard",
        {},
        hand("hearts", {ANN: 1, BOB: 4}, "hearts", BOB, [CAT]),
        "seat_count",
        "Dan is missing from the hand",
    ),
    (
        "standard",
        {},
        hand("hearts", {ANN: 1, BOB: 4, CAT: 0, DAN: 0}, "hearts", BOB, [CAT]),
        "seat_count",
        "Cat is listed twice",
    ),
    (
        "standard",
        {},
        hand("hearts", {ANN: 1, BOB: 4, CAT: 0}, "hearts", BOB, [CAT, DAN]),
        "seat_count",
        "Cat is listed twice, as dropped out and with tricks; each player either drops out",
    ),
    (
        "standard",
        {},
        hand("hearts", {ANN: 1, BOB: 4, CAT: 0}, "hearts", BOB, [ANN, CAT]),
        "seat_count",
        "Ann and Cat are listed twice, as dropped out and with tricks",
    ),
    # What a table answers first is said first: the maker and the drops before the tricks.
    (
        "standard",
        {},
        hand("clubs", {ANN: 2, BOB: 3}, maker=BOB),
        "bad_maker",
        "Nobody makes trump when a club is turned, so Bob can't be the maker.",
    ),
    (
        "standard",
        {},
        hand("hearts", {ANN: 1, BOB: 3, DAN: 1}, "hearts", BOB, [BOB]),
        "must_play",
        "Bob made trump, so Bob can't drop out.",
    ),
    (
        "dirty-clubs",
        {},
        hand("hearts", {ANN: 2}, passed=True),
        "bad_pass",
        "Everybody passed and the cards are dealt again, so nobody dropped out or took a trick.",
    ),
    (
        "dirty-clubs",
        {},
        hand("hearts", {}, dropped=[CAT], passed=True),
        "bad_pass",
        "nobody dropped out",
    ),
    (
        "standard",
        {},
        hand("hearts", {ANN: 1, BOB: 6, CAT: 0, DAN: 0}, "hearts", BOB),
        "bad_tricks",
        "Bob's tricks must be a whole number from 0 to 5, not 6.",
    ),
    (
        "standard",
        {},
        hand("hearts", {ANN: -1, BOB: 6, CAT: 0, DAN: 0}, "hearts", BOB),
        "bad_tricks",
        "Ann's tricks must be a whole number from 0 to 5, not -1.",
    ),
    (
        "standard",
        {},
        hand("hearts", {ANN: 1.5, BOB: 3.5, CAT: 0, DAN: 0}, "hearts", BOB),
        "bad_tricks",
        "Ann's tricks must be a whole number from 0 to 5, not 1.5.",
    ),
    (
        "standard",
        {},
        hand("hearts", {ANN: 1, BOB: 2, CAT: 0, DAN: 1}, "hearts", BOB),
        "tricks_total",
        "The tricks add up to 4; a hand always has 5.",
    ),
    (
        "standard",
        {},
        hand("hearts", {ANN: 2, CAT: 2, DAN: 1}, "hearts", BOB, [BOB]),
        "must_play",
        "Bob made trump, so Bob can't drop out.",
    ),
    (
        "standard",
        {},
        hand("clubs", {ANN: 2, BOB: 2, DAN: 1}, dropped=[CAT]),
        "must_play",
        "Nobody may drop out when a club is turned, so Cat must play.",
    ),
    (
        "standard",
        {},
        hand("hearts", {ANN: 2, BOB: 2, DAN: 1}, NO_TRUMP, dropped=[CAT]),
        "must_play",
        "Nobody may drop out of a no-trump hand, so Cat must play.",
    ),
    (
        "three-widow",
        {"players": THREE, "dealer": CAT, "scores": {CAT: 5}},
        hand("hearts", {ANN: 2, BOB: 3}, "hearts", BOB, [CAT]),
        "must_play",
        "Cat is at 5, and at 5 or below a player can't drop out.",
    ),
    (
        "standard",
        {},
        hand("clubs", {ANN: 2, BOB: 2, CAT: 1, DAN: 0}, "hearts"),
        "bad_trump",
        "A turned club makes clubs trump, not hearts.",
    ),
    (
        "standard",
        {},
        hand("clubs", {ANN: 2, BOB: 2, CAT: 1, DAN: 0}, NO_TRUMP),
        "bad_trump",
        "not no trump",
    ),
    ("standard", {}, hand("clubs", {}, passed=True), "bad_trump", "can't be passed"),
    (
        "standard",
        {},
        hand("hearts", {ANN: 2, BOB: 2, CAT: 1, DAN: 0}, maker=BOB),
        "bad_trump",
        "Say what was trump",
    ),
    (
        "standard",
        {},
        hand("hearts", {ANN: 2, BOB: 2, CAT: 1, DAN: 0}, "hearts"),
        "bad_maker",
        "Say who made hearts trump.",
    ),
    (
        "standard",
        {},
        hand("clubs", {ANN: 2, BOB: 2, CAT: 1, DAN: 0}, maker=BOB),
        "bad_maker",
        "Nobody makes trump when a club is turned, so Bob can't be the maker.",
    ),
    (
        "three-15",
        {"players": THREE, "dealer": CAT},
        hand("clubs", {ANN: 2, BOB: 2, CAT: 1}, maker=BOB),
        "bad_maker",
        "the dealer, Cat, is the maker, not Bob",
    ),
    (
        "standard",
        {},
        hand("hearts", {ANN: 2, BOB: 2, CAT: 1, DAN: 0}, NO_TRUMP, BOB),
        "bad_maker",
        "A no-trump hand has no maker",
    ),
    (
        "standard",
        {},
        hand("hearts", {ANN: 1, BOB: 3, CAT: 1, DAN: 0}, "hearts", BOB, bid=3),
        "bad_bid",
        "ordered up, not bid for",
    ),
    (
        "dirty-clubs",
        {},
        hand("hearts", {ANN: 1, BOB: 3, CAT: 1, DAN: 0}, "spades", BOB),
        "bad_bid",
        "Say how many tricks Bob bid.",
    ),
    (
        "dirty-clubs",
        {},
        hand("hearts", {ANN: 1, BOB: 3, CAT: 1, DAN: 0}, "spades", BOB, bid=1),
        "bad_bid",
        "Bob's bid must be from 2 to 5.",
    ),
    (
        "dirty-clubs",
        {},
        hand("hearts", {ANN: 1, BOB: 3, CAT: 1, DAN: 0}, "spades", BOB, bid=6),
        "bad_bid",
        "Bob's bid must be from 2 to 5.",
    ),
    (
        "dirty-clubs",
        {},
        hand("clubs", {ANN: 1, BOB: 3, CAT: 1, DAN: 0}, bid=3),
        "bad_bid",
        "Nobody bids when a club is turned.",
    ),
    (
        "dirty-clubs",
        {},
        hand("hearts", {ANN: 1, BOB: 3, CAT: 1, DAN: 0}, NO_TRUMP),
        "bad_pass",
        "the cards are redealt",
    ),
    (
        "standard",
        {},
        hand("hearts", {}, passed=True),
        "bad_pass",
        "played with no trump, not redealt",
    ),
    (
        "standard",
        {},
        hand("hearts", {ANN: 1, BOB: 3, CAT: 1, DAN: 0}, "hearts", BOB, dealer=ANN),
        "bad_dealer",
        "It is Dan's deal, not Ann's.",
    ),
]


@pytest.mark.parametrize("preset, options, h, code, message", BAD_HANDS)
def test_a_hand_that_breaks_a_rule_is_refused_in_words(preset, options, h, code, message):
    error = rule_error(start(preset, **options), h)
    assert error.code == code
    assert message in error.message


def test_no_hand_is_accepted_after_the_match_is_over():
    state, _ = rules.play(start(), hand("hearts", {BOB: 5}, "hearts", BOB, [ANN, CAT, DAN]))
    error = rule_error(state, hand("clubs", {ANN: 2, BOB: 2, CAT: 1, DAN: 0}))
    assert error.code == "match_over"


def test_threshold_counts_the_score_before_the_hand():
    state = start("three-widow", THREE, CAT, scores={ANN: 6, BOB: 5})
    assert state.must_play() == (BOB,)
    assert state.shape("hearts").must_play == {BOB: rules.LOW_SCORE}
    rules.check_hand(state, hand("hearts", {BOB: 2, CAT: 3}, "hearts", CAT, [ANN]))


def test_a_round_two_maker_names_another_suit():
    h = hand("hearts", {ANN: 1, BOB: 3, CAT: 1, DAN: 0}, "spades", BOB)
    assert changes(start(), h) == {ANN: -1, BOB: -3, CAT: -1, DAN: 5}


def test_trump_may_be_left_out_or_given_on_a_turned_club():
    for trump in (None, "clubs"):
        assert changes(start(), hand("clubs", {ANN: 5, BOB: 0, CAT: 0, DAN: 0}, trump))[ANN] == -5


def test_spades_21_dealer_maker_named_or_left_out():
    state = start("spades-21")
    for maker in (None, DAN):
        h = hand("spades", {ANN: 1, BOB: 1, CAT: 1, DAN: 2}, maker=maker)
        assert changes(state, h) == {ANN: -1, BOB: -1, CAT: -1, DAN: 5}


# --- Scoring (§4) ------------------------------------------------------------------------------


def test_a_player_who_takes_nothing_pays_the_zero_trick_penalty():
    h = hand("hearts", {ANN: 0, BOB: 4, CAT: 1, DAN: 0}, "hearts", BOB)
    assert changes(start(zero_trick_penalty=3), h) == {ANN: 3, BOB: -4, CAT: -1, DAN: 3}


def test_a_set_maker_pays_the_set_penalty_and_nothing_for_tricks():
    h = hand("hearts", {ANN: 2, BOB: 2, CAT: 1, DAN: 0}, "hearts", BOB)
    assert changes(start(set_penalty=7), h)[BOB] == 7


# With no set penalty (§4): the maker just counts tricks like everyone who played.

NO_SET_HANDS = [
    # (preset, hand, the maker's change)
    ("standard", hand("hearts", {ANN: 2, BOB: 2, CAT: 1, DAN: 0}, "hearts", BOB), -2),
    ("standard", hand("hearts", {ANN: 3, BOB: 0, CAT: 1, DAN: 1}, "hearts", BOB), 4),
    ("standard", hand("hearts", {ANN: 1, BOB: 4}, "spades", BOB, [CAT, DAN]), -4),
    ("dirty-clubs", hand("hearts", {ANN: 1, BOB: 3, CAT: 1, DAN: 0}, "spades", BOB, bid=4), -3),
    ("spades-21", hand("spades", {ANN: 2, BOB: 2, CAT: 0, DAN: 1}), -1),
    ("spades-21", hand("spades", {ANN: 2, BOB: 2, CAT: 1, DAN: 0}), 4),
]


@pytest.mark.parametrize("preset, h, change", NO_SET_HANDS)
def test_with_no_set_penalty_a_maker_who_falls_short_just_counts_tricks(preset, h, change):
    maker = h.maker or DAN
    with_set = changes(start(preset, zero_trick_penalty=4), h)
    without = changes(start(preset, zero_trick_penalty=4, set_penalty=None), h)
    assert without[maker] == change
    assert {p: c for p, c in without.items() if p != maker} == {
        p: c for p, c in with_set.items() if p != maker
    }


def test_with_no_set_penalty_only_a_maker_without_a_trick_falls_short_for_the_money():
    state = start(set_penalty=None)
    state, _ = rules.play(state, hand("hearts", {ANN: 1, BOB: 2, CAT: 2, DAN: 0}, "hearts", BOB))
    state, _ = rules.play(state, hand("hearts", {ANN: 3, BOB: 0, CAT: 1, DAN: 1}, "hearts", BOB))
    assert state.sets == {ANN: 0, BOB: 1, CAT: 0, DAN: 1}
    assert state.scores == {ANN: 21, BOB: 28, CAT: 22, DAN: 29}


@pytest.mark.parametrize("preset", sorted(PRESET_TABLE))
def test_every_preset_keeps_its_set_penalty_and_takes_none_as_a_house_rule(preset):
    assert rules.PRESETS[preset].ruleset.set_penalty == 5
    ruleset = rules.make_ruleset(preset, set_penalty=None)
    assert ruleset.set_penalty is None
    assert rules.ruleset_overrides(preset, ruleset) == {"set_penalty": None}


@settings(max_examples=100)
@given(st.sampled_from(sorted(rules.PRESETS)), st.integers(0, 2**32))
def test_with_no_set_penalty_everyone_who_played_is_scored_by_tricks(preset, seed):
    match = random_match(random.Random(seed), preset, set_penalty=None, zero_trick_penalty=3)
    state, results = rules.replay(match.start(), match.hands)
    short = dict.fromkeys(match.players, 0)
    for result in results:
        for p, took in result.hand.tricks.items():
            before = result.scores[p] - result.changes[p]
            assert result.changes[p] == (-took if took else capped(match.ruleset, before, 3))
            short[p] += took == 0
    assert state.sets == short


def capped(r, before, penalty):
    """A penalty as `cap_at_start` stops it at the starting score (§4)."""
    return max(0, min(penalty, r.starting_score - before)) if r.cap_at_start else penalty


def test_a_bidder_goes_down_by_tricks_taken_not_by_the_bid():
    state = start("dirty-clubs")
    made = hand("hearts", {ANN: 0, BOB: 4, CAT: 1, DAN: 0}, "spades", BOB, bid=3)
    short = hand("hearts", {ANN: 1, BOB: 3, CAT: 1, DAN: 0}, "spades", BOB, bid=4)
    assert changes(state, made)[BOB] == -4
    assert changes(state, short)[BOB] == 5


def test_maker_needs_is_an_option():
    h = hand("hearts", {ANN: 1, BOB: 2, CAT: 1, DAN: 1}, "hearts", BOB)
    assert changes(start(maker_needs=2), h)[BOB] == -2
    assert changes(start(maker_needs=3), h)[BOB] == 5


def test_a_no_trump_hand_has_no_maker_and_everybody_plays():
    h = hand("hearts", {ANN: 2, BOB: 1, CAT: 2, DAN: 0}, NO_TRUMP)
    assert changes(start(), h) == {ANN: -2, BOB: -1, CAT: -2, DAN: 5}


def test_a_redeal_moves_the_deal_and_changes_nothing():
    state = start("dirty-clubs")
    after, result = rules.play(state, hand("hearts", {}, passed=True))
    assert result.changes == dict.fromkeys(FOUR, 0)
    assert after.scores == state.scores and (state.dealer, after.dealer) == (DAN, ANN)


def test_scores_may_go_above_the_start_and_the_loser_still_pays_for_every_point():
    state = start("spades-21", scores={ANN: 6})
    state, _ = rules.play(state, hand("hearts", {ANN: 5, BOB: 0, CAT: 0, DAN: 0}, "hearts", ANN))
    assert not state.finished  # no sweeps in spades-21
    state, _ = rules.play(state, hand("hearts", {ANN: 1, BOB: 0, CAT: 4, DAN: 0}, "hearts", BOB))
    assert state.scores == {ANN: 0, BOB: 31, CAT: 22, DAN: 31} and state.winners == (ANN,)
    _, net = rules.settle(state, rules.PRESETS["spades-21"].stakes)
    assert net == {ANN: 1140, BOB: -410, CAT: -320, DAN: -410}


# --- End of the match (§5) -------------------------------------------------------------------


@pytest.mark.parametrize("preset", sorted(PRESET_TABLE))
def test_taking_all_five_sweeps_where_the_preset_says_so(preset):
    seats = THREE if preset.startswith("three") else FOUR
    state = start(preset, seats, ANN)
    h = hand("hearts", {p: (5 if p == CAT else 0) for p in seats}, NO_TRUMP)
    if rules.PRESETS[preset].ruleset.all_pass == "redeal":
        h = replace(h, trump="hearts", maker=BOB, bid=2 if preset == "dirty-clubs" else None)
    after, result = rules.play(state, h)
    if PRESET_TABLE[preset][7]:
        assert (after.winners, after.won_by, result.sweep) == ((CAT,), "sweep", CAT)
    else:
        assert not after.finished and result.sweep is None


def test_a_sweep_wins_whatever_the_scores():
    state = start(scores={ANN: 1})
    state, _ = rules.play(state, hand("clubs", {ANN: 0, BOB: 5, CAT: 0, DAN: 0}))
    assert state.scores[ANN] == 6 and state.winners == (BOB,)


def test_a_sweep_wins_alone_even_when_someone_reaches_zero():
    state = start(scores={ANN: 1, BOB: 3})
    state, _ = rules.play(state, hand("hearts", {ANN: 0, BOB: 5, CAT: 0, DAN: 0}, "hearts", BOB))
    assert state.scores[BOB] == -2 and state.winners == (BOB,) and state.won_by == "sweep"


def test_a_lone_maker_sweeps_only_with_lone_maker_sweeps():
    h = hand("hearts", {BOB: 5}, "hearts", BOB, [ANN, CAT, DAN])
    assert not rules.play(start(lone_maker_sweeps=False), h)[0].finished
    assert rules.play(start(lone_maker_sweeps=True), h)[0].winners == (BOB,)


def test_a_maker_who_takes_all_five_with_others_playing_is_a_sweep_even_without_lone_sweeps():
    h = hand("hearts", {BOB: 5, ANN: 0}, "hearts", BOB, [CAT, DAN])
    assert rules.play(start(lone_maker_sweeps=False), h)[0].winners == (BOB,)


def test_reaching_zero_alone_wins():
    state = start(scores={CAT: 2})
    state, _ = rules.play(state, hand("hearts", {ANN: 0, BOB: 3, CAT: 2, DAN: 0}, "hearts", BOB))
    assert state.winners == (CAT,) and state.won_by == "zero"


def test_share_mode_shares_with_everyone_at_or_below_zero():
    state = start(scores={ANN: 1, CAT: 2}, ties="share")
    state, _ = rules.play(state, hand("clubs", {ANN: 1, BOB: 1, CAT: 3, DAN: 0}))
    assert state.scores[ANN] == 0 and state.scores[CAT] == -1
    assert state.winners == (ANN, CAT) and state.won_by == "zero"


def test_lowest_mode_gives_the_win_to_the_lowest_alone():
    state = start(scores={ANN: 1, CAT: 2})
    state, _ = rules.play(state, hand("clubs", {ANN: 1, BOB: 1, CAT: 3, DAN: 0}))
    assert state.winners == (CAT,)


def test_play_on_goes_on_until_one_player_alone_is_lowest():
    state = start(scores={ANN: 2, BOB: 1}, ties="play_on")
    state, _ = rules.play(state, hand("clubs", {ANN: 3, BOB: 2, CAT: 0, DAN: 0}))
    assert not state.finished
    state, _ = rules.play(state, hand("clubs", {ANN: 2, BOB: 1, CAT: 1, DAN: 1}))
    assert state.scores[ANN] == -3 and state.winners == (ANN,)


# --- Money (§6) --------------------------------------------------------------------------------


def test_split_payouts_give_leftover_cents_to_winners_in_seat_order():
    state = replace(start(), scores={ANN: 10, BOB: 0, CAT: 3, DAN: 0}, winners=(BOB, DAN))
    payments, net = rules.settle(state, Stakes(per_game=101))
    assert [(p.payer, p.payee, p.cents) for p in payments] == [
        (ANN, BOB, 51),
        (ANN, DAN, 50),
        (CAT, BOB, 51),
        (CAT, DAN, 50),
    ]
    assert sum(net.values()) == 0


def test_per_set_counts_sets_and_zero_trick_hands():
    state = start()
    state, _ = rules.play(state, hand("hearts", {ANN: 0, BOB: 2, CAT: 2, DAN: 1}, "hearts", BOB))
    state, _ = rules.play(state, hand("clubs", {ANN: 0, BOB: 0, CAT: 5, DAN: 0}))
    assert state.sets == {ANN: 2, BOB: 2, CAT: 0, DAN: 1}
    _, net = rules.settle(state, Stakes(per_set=25))
    assert net == {ANN: -50, BOB: -50, CAT: 125, DAN: -25}


def test_no_money_changes_hands_before_the_end_or_without_stakes():
    assert rules.settle(start(), Stakes(per_game=100)) == ([], {})
    state = replace(start(), winners=(ANN,))
    assert rules.settle(state, Stakes()) == ([], {})


@pytest.mark.parametrize(
    "text, cents", [("1.70", 170), ("0", 0), ("12", 1200), ("0.1", 10), ("3.05", 305)]
)
def test_money_reads_exact_cents(text, cents):
    assert rules.parse_money(text) == cents
    assert rules.parse_money(rules.format_money(cents)) == cents


@pytest.mark.parametrize(
    "text", ["-1.00", "1.234", "abc", "", "NaN", "Infinity", 1.5, "1e2", " 1.00", "1.", ".5", "١"]
)
def test_money_refuses_anything_but_a_plain_amount(text):
    with pytest.raises(ValueError):
        rules.parse_money(text)


# --- What a hand asks (HandShape) and what it did (HandResult) ------------------------------

SEATS = {name: THREE if 3 in p.ruleset.players else FOUR for name, p in rules.PRESETS.items()}


@pytest.mark.parametrize("preset", sorted(rules.PRESETS))
@pytest.mark.parametrize("upcard", rules.SUITS)
def test_every_hand_has_five_tricks_and_a_player_takes_from_none_to_all(preset, upcard):
    shape = start(preset, SEATS[preset], ANN).shape(upcard)
    assert shape.tricks == 5 and list(shape.trick_counts) == [0, 1, 2, 3, 4, 5]


@pytest.mark.parametrize("preset", sorted(rules.PRESETS))
def test_the_bids_allowed_run_from_the_lowest_bid_to_five_and_only_when_bidding(preset):
    state = start(preset, SEATS[preset], ANN)
    r = state.ruleset
    for upcard in rules.SUITS:
        shape = state.shape(upcard)
        if r.bidding == rules.TRICK_BIDDING and upcard != r.auto_trump:
            assert shape.asks_bid and shape.bids == tuple(range(r.min_bid, 6))
            assert shape.needs is None  # the bid says what the maker needs
        else:
            assert not shape.asks_bid and shape.bids == ()


def test_a_house_rule_lowest_bid_changes_the_bids_allowed():
    assert start("dirty-clubs", min_bid=4).shape("hearts").bids == (4, 5)


@pytest.mark.parametrize("preset", sorted(rules.PRESETS))
def test_a_maker_takes_the_upcards_suit_unless_they_name_another(preset):
    state = start(preset, SEATS[preset], ANN)
    for upcard in rules.SUITS:
        shape = state.shape(upcard, BOB)
        assert shape.default_trump == upcard
        assert shape.trump == (upcard if upcard == state.ruleset.auto_trump else None)


@pytest.mark.parametrize("preset", sorted(rules.PRESETS))
def test_an_order_up_maker_needs_what_the_rules_say(preset):
    state = start(preset, SEATS[preset], ANN)
    r = state.ruleset
    shape = state.shape(next(s for s in rules.SUITS if s != r.auto_trump), BOB)
    assert shape.maker == BOB and shape.must_play[BOB] == rules.MAKER
    assert shape.needs == (None if r.bidding == rules.TRICK_BIDDING else r.maker_needs)


@pytest.mark.parametrize("preset", sorted(rules.PRESETS))
def test_on_a_turned_automatic_suit_everyone_plays_and_the_dealer_may_be_the_maker(preset):
    seats = SEATS[preset]
    state = start(preset, seats, CAT)
    r = state.ruleset
    if r.auto_trump is None:
        assert not any(state.shape(s).automatic for s in rules.SUITS)
        return
    shape = state.shape(r.auto_trump, BOB)  # a maker named anyway is not taken
    assert shape.automatic and shape.asks == (rules.ASK_TRICKS,) and shape.all_pass is None
    if r.auto_trump_dealer_needs is None:
        assert (shape.maker, shape.needs) == (None, None)
        assert shape.must_play == dict.fromkeys(seats, rules.TURNED)
    else:
        assert (shape.maker, shape.needs) == (CAT, r.auto_trump_dealer_needs)
        assert shape.must_play == {p: rules.MAKER if p == CAT else rules.TURNED for p in seats}


@pytest.mark.parametrize("preset", sorted(rules.PRESETS))
def test_the_questions_follow_the_hand_as_it_is_told(preset):
    seats = SEATS[preset]
    state = start(preset, seats, ANN)
    r = state.ruleset
    upcard = next(s for s in rules.SUITS if s != r.auto_trump)
    assert state.shape(upcard).asks == ("maker",)
    bid = ("bid",) if r.bidding == rules.TRICK_BIDDING else ()
    assert state.shape(upcard, BOB).asks == ("maker", "trump", *bid, "dropped", "tricks")
    passed = state.shape(upcard, BOB, passed=True)
    assert passed.passed and passed.maker is None and passed.trump == NO_TRUMP
    if r.all_pass == rules.REDEAL:
        assert passed.redeal and passed.asks == ("maker",) and passed.must_play == {}
    else:
        assert not passed.redeal and passed.asks == ("maker", "tricks")
        assert passed.must_play == dict.fromkeys(seats, rules.NO_TRUMP_PLAYED)


def test_low_scores_must_play_and_a_low_maker_must_play_as_the_maker():
    state = start("three-widow", THREE, CAT, scores={ANN: 5, BOB: 4, CAT: 6})
    assert state.shape("hearts").must_play == {ANN: rules.LOW_SCORE, BOB: rules.LOW_SCORE}
    assert state.shape("hearts", BOB).must_play == {ANN: rules.LOW_SCORE, BOB: rules.MAKER}
    assert state.shape("hearts", CAT).must_play == {
        ANN: rules.LOW_SCORE,
        BOB: rules.LOW_SCORE,
        CAT: rules.MAKER,
    }


@pytest.mark.parametrize(
    "upcard, maker, passed",
    [
        ("hearts", BOB, False),
        ("hearts", CAT, False),
        ("clubs", None, False),
        ("hearts", None, True),
    ],
)
def test_why_a_player_must_play_is_what_dropping_them_is_refused_with(upcard, maker, passed):
    state = start("three-widow", THREE, CAT, scores={ANN: 5, BOB: 9, CAT: 9})
    shape = state.shape(upcard, maker, passed)
    for p in THREE:
        why = rules.why_must_play(state, shape, p)
        assert (why is None) == (p not in shape.must_play)
        if why is None:
            continue
        trump = NO_TRUMP if passed else None if shape.automatic else upcard
        dropped = Hand(upcard, trump, shape.maker, dropped=(p,), tricks={})
        with pytest.raises(RuleError) as refused:
            rules.check_hand(state, dropped)
        assert (refused.value.code, refused.value.message) == ("must_play", why)
    if maker == CAT:
        assert rules.why_must_play(state, shape, ANN) == (
            "Ann is at 5, and at 5 or below a player can't drop out."
        )


def test_the_last_player_takes_what_the_others_leave():
    shape = start().shape("hearts", BOB)
    assert shape.fill_in({ANN: 0, BOB: 3, DAN: None}) == {ANN: 0, BOB: 3, DAN: 2}
    assert shape.fill_in({BOB: None}) == {BOB: 5}  # a lone maker takes every trick
    assert shape.fill_in({BOB: 3}) == {BOB: 5}
    assert shape.fill_in({ANN: 1, BOB: None, DAN: None}) == {ANN: 1, BOB: None, DAN: None}
    assert shape.fill_in({ANN: 4, BOB: 3, DAN: None}) == {ANN: 4, BOB: 3, DAN: None}
    assert shape.fill_in({ANN: 4, BOB: 1, DAN: 0}) == {ANN: 4, BOB: 1, DAN: 0}

    # Once every trick is told, the players left took none.
    assert shape.fill_in({ANN: None, BOB: 5, DAN: None}) == {ANN: 0, BOB: 5, DAN: 0}
    four = start().shape("clubs")
    assert four.fill_in({ANN: 3, BOB: 2, CAT: None, DAN: None}) == {ANN: 3, BOB: 2, CAT: 0, DAN: 0}
    assert four.fill_in({ANN: 3, BOB: 1, CAT: None, DAN: None})[CAT] is None


@given(st.integers(1, 4), st.lists(st.integers(0, 3), min_size=5, max_size=5), st.data())
def test_filling_in_the_one_player_left_always_gives_a_whole_hand(players, takers, data):
    playing = FOUR[:players]
    tricks = {p: sum(playing[t % players] == p for t in takers) for p in playing}
    hidden = data.draw(st.sampled_from(playing))
    filled = start().shape("clubs").fill_in({**tricks, hidden: None})
    assert filled == tricks and sum(filled.values()) == 5


@given(st.lists(st.integers(0, 3), min_size=5, max_size=5), st.sets(st.sampled_from(FOUR)))
def test_filling_in_never_gives_a_wrong_count_and_fills_what_the_others_fix(takers, hidden):
    tricks = {p: sum(FOUR[t] == p for t in takers) for p in FOUR}
    filled = start().shape("clubs").fill_in({p: None if p in hidden else tricks[p] for p in FOUR})
    told = {p: n for p, n in filled.items() if n is not None}
    assert all(told[p] == tricks[p] for p in told)  # never a guess
    fixed = len(hidden) <= 1 or all(tricks[p] == 0 for p in hidden)
    assert (len(told) == 4) == fixed


@pytest.mark.parametrize(
    "preset, h, was_set, euchred",
    [
        ("standard", hand("hearts", {ANN: 0, BOB: 3, DAN: 2}, "hearts", BOB, [CAT]), (), (ANN,)),
        ("standard", hand("diamonds", {BOB: 2, ANN: 2, DAN: 1}, "hearts", BOB, [CAT]), (BOB,), ()),
        ("standard", hand("hearts", {ANN: 5, BOB: 0}, "hearts", BOB, [CAT, DAN]), (BOB,), (BOB,)),
        ("standard", hand("clubs", {ANN: 2, BOB: 2, CAT: 1, DAN: 0}), (), (DAN,)),
        ("standard", hand("hearts", {ANN: 2, BOB: 1, CAT: 2, DAN: 0}, NO_TRUMP), (), (DAN,)),
        ("spades-21", hand("spades", {ANN: 1, BOB: 1, CAT: 1, DAN: 2}), (DAN,), ()),
        (
            "dirty-clubs",
            hand("hearts", {ANN: 1, BOB: 3, CAT: 1, DAN: 0}, "spades", BOB, bid=4),
            (BOB,),
            (DAN,),
        ),
        ("dirty-clubs", hand("hearts", {}, passed=True), (), ()),
    ],
)
def test_a_hand_says_who_was_set_and_who_was_euchred(preset, h, was_set, euchred):
    _, result = rules.play(start(preset), h)
    assert (result.set, result.euchred) == (was_set, euchred)
    assert result.short == tuple(dict.fromkeys(was_set + euchred))


def test_a_hand_says_who_made_it_and_what_they_needed():
    _, result = rules.play(start("spades-21"), hand("spades", {ANN: 1, BOB: 1, CAT: 1, DAN: 2}))
    assert (result.shape.maker, result.shape.needs, result.shape.automatic) == (DAN, 3, True)


def test_dealing_for_the_first_jack_stops_at_the_first_jack_going_round_the_table():
    for seed in range(50):
        dealt, first = rules.deal_for_jack(FOUR, random.Random(seed))
        ranks = [rank for _, _, rank, _ in dealt]
        assert ranks.count("J") == 1 and ranks[-1] == "J"
        assert [seat for seat, *_ in dealt] == [i % 4 for i in range(len(dealt))]
        assert all(name == FOUR[seat] for seat, name, *_ in dealt)
        assert dealt[-1][1] == first and len(dealt) <= len(rules.DECK) - 3
    assert rules.deal_for_jack(THREE, random.Random(7)) == rules.deal_for_jack(
        THREE, random.Random(7)
    )


# --- Properties over random matches ---------------------------------------------------------

presets = st.sampled_from(sorted(rules.PRESETS))
seeds = st.integers(0, 2**32)


@settings(max_examples=150)
@given(presets, seeds)
def test_every_generated_match_replays_and_adds_up(preset, seed):
    match = random_match(random.Random(seed), preset)
    state, results = rules.replay(match.start(), match.hands)
    n = len(match.players)
    first = match.players.index(match.first_dealer)
    for i, result in enumerate(results):
        assert result.dealer == match.players[(first + i) % n]
    for p in match.players:
        total = sum(r.changes[p] for r in results)
        assert state.scores[p] == match.ruleset.starting_score + total
    payments, net = rules.settle(state, match.stakes)
    assert sum(net.values()) == 0
    assert all(p.cents > 0 for p in payments)
    if state.finished:
        with pytest.raises(RuleError) as e:
            rules.check_hand(state, random_hand(replace(state, winners=()), random.Random(seed)))
        assert e.value.code == "match_over"


@settings(max_examples=150)
@given(presets, seeds, st.integers(0, 10**6))
def test_the_later_hands_play_alike_from_a_hands_scores_and_sets(preset, seed, k):
    """What a page's replay of the latest hands rests on: the scores and sets after a hand,
    with the dealer of the next, are all that the later hands are played on."""
    match = random_match(random.Random(seed), preset)
    state, results = rules.replay(match.start(), match.hands)
    k = k % max(len(results), 1)  # at least one hand is played again
    before = match.start()
    if k:
        last = results[k - 1]
        before = replace(
            before, scores=last.scores, sets=last.sets, dealer=results[k].dealer, hands=k
        )
    assert rules.replay(before, match.hands[k:]) == (state, results[k:])


# --- A night: the fewest transfers (§11) ----------------------------------------------------


def settled(net, payments):
    left = dict(net)
    for p in payments:
        left[p.payer] += p.cents
        left[p.payee] -= p.cents
    return all(cents == 0 for cents in left.values())


def most_zero_groups(values) -> int:
    """The most disjoint zero-sum groups that cover `values`, by trying every partition."""
    if not values:
        return 0
    first, rest = values[0], values[1:]
    best = 0
    for k in range(len(rest) + 1):
        for chosen in itertools.combinations(range(len(rest)), k):
            if first + sum(rest[i] for i in chosen) == 0:
                others = [v for i, v in enumerate(rest) if i not in chosen]
                best = max(best, 1 + most_zero_groups(others))
    return best


def test_greedy_pairing_is_beaten_a_night_of_five_takes_three_payments():
    net = {ANN: 600, BOB: 400, CAT: -400, DAN: -300, "Eve": -300}
    payments = rules.fewest_transfers(net)
    assert [(p.payer, p.payee, p.cents) for p in payments] == [
        (CAT, BOB, 400),
        (DAN, ANN, 300),
        ("Eve", ANN, 300),
    ]


def test_transfers_come_by_payer_then_payee_in_the_order_players_appear():
    net = {"Zed": -500, ANN: 300, "Moe": -100, BOB: 300}
    payments = rules.fewest_transfers(net)
    assert [(p.payer, p.payee) for p in payments] == [("Zed", ANN), ("Zed", BOB), ("Moe", BOB)]
    assert settled(net, payments)


@pytest.mark.parametrize(
    "net, count",
    [
        ({}, 0),
        ({ANN: 0, BOB: 0}, 0),
        ({ANN: 170, BOB: -170, CAT: 0}, 1),
        ({ANN: 520, BOB: -170, CAT: -220, DAN: -130}, 3),
        ({ANN: 100, BOB: -100, CAT: 250, DAN: -250}, 2),
    ],
)
def test_a_night_needs_one_payment_fewer_than_each_group_that_evens_out(net, count):
    payments = rules.fewest_transfers(net)
    assert len(payments) == count and settled(net, payments)


def test_nets_that_do_not_sum_to_zero_are_not_a_night():
    with pytest.raises(ValueError):
        rules.fewest_transfers({ANN: 100, BOB: -99})


def test_a_dozen_players_in_four_groups_of_three_take_eight_payments():
    # Each group is 4ᵏ, 2·4ᵏ and −3·4ᵏ: in binary no other subset can even out.
    net = {}
    for k in range(4):
        net |= {f"A{k}": 4**k, f"B{k}": 2 * 4**k, f"C{k}": -3 * 4**k}
    payments = rules.fewest_transfers(net)
    assert len(payments) == 8 and settled(net, payments)


@settings(max_examples=300)
@given(st.lists(st.integers(-6, 6), min_size=1, max_size=7), st.randoms(use_true_random=False))
def test_the_transfers_settle_every_net_exactly_in_the_fewest_payments(values, rnd):
    values.append(-sum(values))
    names = [f"P{i}" for i in range(len(values))]
    rnd.shuffle(names)
    net = dict(zip(names, values, strict=True))
    payments = rules.fewest_transfers(net)
    assert settled(net, payments)
    assert all(p.cents > 0 and net[p.payer] < 0 and net[p.payee] > 0 for p in payments)
    owed = [v for v in values if v]
    assert len(payments) == len(owed) - most_zero_groups(owed)
    order = list(net)
    keys = [(order.index(p.payer), order.index(p.payee)) for p in payments]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)


# --- Statistics: each player's tally of a match (§12) ----------------------------------------


def tally_of(state, hands):
    _, results = rules.replay(state, hands)
    return rules.tallies(state, results)


def test_a_match_of_four_hands_is_tallied_for_each_player():
    hands = [
        hand("hearts", {ANN: 0, BOB: 3, DAN: 2}, "hearts", BOB, [CAT]),
        hand("diamonds", {BOB: 2, ANN: 2, DAN: 1}, "hearts", BOB, [CAT]),
        hand("clubs", {ANN: 2, BOB: 2, CAT: 1, DAN: 0}),
        hand("hearts", {ANN: 1, BOB: 1, CAT: 3, DAN: 0}, NO_TRUMP),
    ]
    t = tally_of(start(), hands)
    # Dropping is allowed to a non-maker in hands 1 and 2 only (a turned club, no trump).
    assert t[ANN] == rules.Tally(4, 4, 2, 2, 0, 0, 0, 1, 0, 5 - 2 - 2 - 1)
    assert t[BOB] == rules.Tally(4, 4, 0, 0, 2, 1, 1, 0, 0, -3 + 5 - 2 - 1)
    assert t[CAT] == rules.Tally(4, 2, 2, 0, 0, 0, 0, 0, 0, -1 - 3)
    assert t[DAN] == rules.Tally(4, 4, 2, 2, 0, 0, 0, 2, 0, -2 - 1 + 5 + 5)


def test_a_redealt_hand_is_not_dealt_in():
    state = start("dirty-clubs")
    hands = [hand("hearts", {}, passed=True), hand("clubs", {ANN: 5, BOB: 0, CAT: 0, DAN: 0})]
    t = tally_of(state, hands)
    assert t[ANN] == rules.Tally(dealt_in=1, stayed_in=1, sweeps=1, points=-5)
    assert t[BOB] == rules.Tally(dealt_in=1, stayed_in=1, euchred=1, points=5)


def test_a_low_score_that_may_not_drop_is_not_a_choice_to_stay():
    state = start("three-widow", THREE, CAT, scores={ANN: 5})
    t = tally_of(state, [hand("hearts", {ANN: 2, CAT: 3}, "hearts", CAT, [BOB])])
    assert (t[ANN].could_drop, t[ANN].stayed_in, t[BOB].could_drop, t[BOB].stayed_in) == (
        0,
        1,
        1,
        0,
    )


def test_the_dealer_who_must_take_a_turned_spade_made_trump():
    t = tally_of(start("spades-21"), [hand("spades", {ANN: 1, BOB: 1, CAT: 1, DAN: 2})])
    assert (t[DAN].made_trump, t[DAN].made, t[DAN].was_set, t[DAN].could_drop) == (1, 0, 1, 0)


@pytest.mark.parametrize("set_penalty, was_set", [(5, 1), (None, 0)])
def test_a_maker_short_of_tricks_is_set_only_where_sets_count(set_penalty, was_set):
    h = hand("hearts", {ANN: 2, BOB: 1, CAT: 1, DAN: 1}, "hearts", BOB)
    t = tally_of(start(set_penalty=set_penalty), [h])
    assert (t[BOB].made_trump, t[BOB].made, t[BOB].was_set) == (1, 0, was_set)


def test_a_lone_maker_who_takes_all_five_sweeps():
    t = tally_of(start(), [hand("hearts", {BOB: 5}, "hearts", BOB, [ANN, CAT, DAN])])
    assert (t[BOB].sweeps, t[BOB].made, t[ANN].stayed_in, t[ANN].could_drop) == (1, 1, 0, 1)


def test_tallies_add_up_over_matches():
    one = rules.Tally(dealt_in=3, stayed_in=2, euchred=1, points=4)
    two = rules.Tally(dealt_in=1, stayed_in=1, made_trump=1, made=1, points=-3)
    assert one + two == rules.Tally(
        dealt_in=4, stayed_in=3, made_trump=1, made=1, euchred=1, points=1
    )


@settings(max_examples=150)
@given(presets, seeds, st.sampled_from([5, None]))
def test_every_generated_match_tallies_consistently(preset, seed, set_penalty):
    match = random_match(random.Random(seed), preset, set_penalty=set_penalty)
    state, results = rules.replay(match.start(), match.hands)
    t = rules.tallies(match.start(), results)
    played = [r for r in results if not r.hand.passed]
    makers = [r.shape.maker is not None for r in played]
    assert sum(x.made_trump for x in t.values()) == sum(makers)
    for p, x in t.items():
        assert x.points == state.scores[p] - match.ruleset.starting_score
        assert x.dealt_in == len(played)
        assert x.stayed_in == sum(p in r.hand.tricks for r in played)
        assert x.stayed_by_choice <= x.could_drop <= x.dealt_in
        assert x.dealt_in - x.stayed_in <= x.could_drop  # only a choice can drop you out
        assert x.made + x.was_set <= x.made_trump
        assert x.euchred == sum(r.hand.tricks.get(p) == 0 for r in played)
        if set_penalty is None:
            assert x.was_set == 0
        else:
            assert x.made + x.was_set == x.made_trump


@settings(max_examples=150)
@given(presets, seeds, st.booleans())
def test_every_hand_says_who_was_set_and_euchred_as_its_score_says(preset, seed, no_sets):
    match = random_match(random.Random(seed), preset, **({"set_penalty": None} if no_sets else {}))
    state, results = rules.replay(match.start(), match.hands)
    r = match.ruleset
    for result in results:
        played = result.hand.tricks
        shape = result.shape
        assert result.euchred == tuple(p for p in match.players if played.get(p) == 0)
        needs = result.hand.bid if shape.asks_bid else shape.needs
        maker_short = shape.maker in played and played[shape.maker] < needs and not no_sets
        assert result.set == ((shape.maker,) if maker_short else ())
        for p in match.players:
            before = result.scores[p] - result.changes[p]
            if p in result.set:
                assert result.changes[p] == capped(r, before, r.set_penalty)
            elif p in result.euchred:
                assert result.changes[p] == capped(r, before, r.zero_trick_penalty)
            else:
                assert result.changes[p] == -played.get(p, 0)
    for p in match.players:
        assert state.sets[p] == sum(p in result.short for result in results)


def test_a_match_played_for_money_would_pay_its_leader_were_it_to_end_now():
    state = rules.new_match(
        rules.make_ruleset("standard", players=(3,)), ["Ann", "Bob", "Cat"], "Cat"
    )
    stakes = rules.Stakes(per_game=100, per_point=10)
    assert rules.payout_if_ended(state, stakes) == []  # nobody leads before a hand
    state = replace(state, scores={"Ann": 21, "Bob": 12, "Cat": 24}, hands=3)
    assert rules.payout_if_ended(state, stakes) == [
        rules.Payment("Ann", "Bob", 310),
        rules.Payment("Cat", "Bob", 340),
    ]
    assert rules.payout_if_ended(state, rules.Stakes()) == []  # played for nothing
    over = replace(state, winners=("Bob",))
    assert rules.payout_if_ended(over, stakes) == []  # its own payout says it


def test_a_tie_for_the_lead_would_share_or_play_on_as_the_ties_option_says():
    state = rules.new_match(
        rules.make_ruleset("standard", players=(3,)), ["Ann", "Bob", "Cat"], "Cat"
    )
    state = replace(state, scores={"Ann": 10, "Bob": 10, "Cat": 20}, hands=4)
    stakes = rules.Stakes(per_game=101)
    assert rules.payout_if_ended(state, stakes) == [
        rules.Payment("Cat", "Ann", 51),
        rules.Payment("Cat", "Bob", 50),
    ]
    play_on = replace(state, ruleset=replace(state.ruleset, ties="play_on"))
    assert rules.payout_if_ended(play_on, stakes) == []
