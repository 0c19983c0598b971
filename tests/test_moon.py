"""Other tables' rules (docs/rules.md): five and six players, cap_at_start, shooting the moon,
count_up and the dirty-clubs-up preset, in the engine and in the match file."""

import json
import random
from dataclasses import replace

import pytest
from django.core.management import call_command
from hypothesis import given, settings
from hypothesis import strategies as st

from games import matchfile, rules
from games.rules import NO_TRUMP, Hand, RuleError, Stakes

from .matches import EXAMPLE_8, SIX, random_hand, random_match, score_hand

ANN, BOB, CAT, DAN, EVE, FAY = SIX
THREE = (ANN, BOB, CAT)


def start(preset="standard", players=(ANN, BOB, CAT, DAN), dealer=None, scores=None, **overrides):
    ruleset = rules.make_ruleset(preset, **overrides)
    state = rules.new_match(ruleset, players, dealer or players[-1])
    return replace(state, scores={**state.scores, **(scores or {})})


def hand(upcard, tricks, trump=None, maker=None, dropped=(), bid=None, **kw):
    return Hand(upcard, trump, maker, bid, tuple(dropped), tricks, **kw)


def rule_error(state, h) -> RuleError:
    with pytest.raises(RuleError) as e:
        rules.check_hand(state, h)
    return e.value


# --- docs/rules.md §10, worked example 8 ------------------------------------------------------


def test_example_8_dirty_clubs_up_a_capped_set_and_a_moon():
    match, state, results = matchfile.load(json.dumps(EXAMPLE_8))
    first, second = results
    assert first.changes == {ANN: 0, BOB: -2, CAT: -2}  # 15 + 5 stops at 15
    assert first.scores == {ANN: 15, BOB: 13, CAT: 13}
    assert first.set == (ANN,) and first.sets == {ANN: 1, BOB: 0, CAT: 0}
    after_first = rules.replay(match.start(), match.hands[:1])[0]
    assert {p: after_first.shown(p) for p in THREE} == {ANN: 0, BOB: 2, CAT: 2}
    assert after_first.on_board(ANN) and after_first.on_board(BOB)  # Ann fell short
    assert second.dealer == ANN and second.moon == BOB and second.moon_made
    assert (state.winners, state.won_by) == ((BOB,), "moon")
    report = matchfile.report(match, state, results)
    assert report["payouts"] == [
        {"from": ANN, "to": BOB, "amount": "0.35"},
        {"from": CAT, "to": BOB, "amount": "0.25"},
    ]
    assert report["net"] == {ANN: "-0.35", BOB: "0.60", CAT: "-0.25"}


def test_replay_prints_example_8_counting_down_and_won_by_the_moon(tmp_path, capsys):
    path = tmp_path / "example8.json"
    path.write_text(json.dumps(EXAMPLE_8))
    call_command("replay", str(path), "--json")
    doc = json.loads(capsys.readouterr().out)
    assert doc["scores"] == {ANN: 15, BOB: 8, CAT: 13}  # the file and replay count down
    assert (doc["won_by"], doc["winners"]) == ("moon", [BOB])
    call_command("replay", str(path))
    assert "Bob wins (shot the moon)." in capsys.readouterr().out


# --- The preset (§8) --------------------------------------------------------------------------


def test_dirty_clubs_up_is_the_other_score_keepers_dirty_clubs():
    p = rules.PRESETS["dirty-clubs-up"]
    r = p.ruleset
    assert r.players == (3, 4, 5, 6) and r.starting_score == 15
    assert (r.bidding, r.min_bid, r.all_pass, r.no_drop_at_or_below) == ("tricks", 2, "redeal", 2)
    assert r.cap_at_start and r.moon and r.count_up
    assert not r.sweep_wins and r.ties == "play_on"
    assert (r.auto_trump, r.auto_trump_dealer_needs) == ("clubs", None)
    assert (r.set_penalty, r.zero_trick_penalty) == (5, 5)
    assert p.stakes == Stakes(per_game=25, per_set=10)


@pytest.mark.parametrize(
    "option, value",
    [("cap_at_start", 1), ("moon", "true"), ("count_up", None), ("players", [3, 7])],
)
def test_a_new_option_of_the_wrong_type_is_refused(option, value):
    with pytest.raises(RuleError) as e:
        rules.make_ruleset("dirty-clubs-up", **{option: value})
    assert e.value.code == "bad_rules" and option in e.value.message


@pytest.mark.parametrize("preset", sorted(rules.PRESETS))
def test_every_new_option_is_a_house_rule_on_any_preset(preset):
    r = rules.make_ruleset(preset, cap_at_start=True, moon=True, count_up=True, players=[6, 5])
    assert r.players == (5, 6)
    overrides = rules.ruleset_overrides(preset, r)
    assert all(overrides.get(name, getattr(r, name)) for name in ("cap_at_start", "moon"))


# --- cap_at_start (§4) ------------------------------------------------------------------------


def test_a_capped_penalty_stops_at_the_starting_score_and_tricks_are_never_capped():
    state = start(cap_at_start=True, scores={ANN: 23, BOB: 25, CAT: 24})
    set_ = hand("hearts", {ANN: 1, BOB: 0, CAT: 2, DAN: 2}, "hearts", ANN)
    assert score_hand(state, set_) == {ANN: 2, BOB: 0, CAT: -2, DAN: -2}
    euchred = hand("hearts", {ANN: 3, BOB: 0, CAT: 0, DAN: 2}, "hearts", ANN)
    assert score_hand(state, euchred) == {ANN: -3, BOB: 0, CAT: 1, DAN: -2}
    state, result = rules.play(state, set_)
    assert state.sets == {ANN: 1, BOB: 1, CAT: 0, DAN: 0}  # a capped penalty still fell short


@settings(max_examples=150)
@given(st.sampled_from(sorted(rules.PRESETS)), st.integers(0, 2**32), st.integers(1, 40))
def test_cap_at_start_never_changes_a_score_no_penalty_touched(preset, seed, hands):
    rnd = random.Random(seed)
    match = random_match(rnd, preset, max_hands=hands, names=SIX, moons=True, cap_at_start=False)
    state, _ = rules.replay(match.start(), match.hands)
    if state.finished:
        return
    capped = replace(state, ruleset=replace(state.ruleset, cap_at_start=True))
    h = random_hand(state, rnd, moons=True)
    _, free = rules.play(state, h)
    _, cap = rules.play(capped, h)
    start_score = state.ruleset.starting_score
    for p in state.players:
        if p in free.short:
            before = state.scores[p]
            if p in free.set or p in free.euchred:
                assert cap.changes[p] == max(0, min(free.changes[p], start_score - before))
            assert before + cap.changes[p] <= max(before, start_score)
        else:
            assert cap.changes[p] == free.changes[p]
    assert cap.sets == free.sets and cap.short == free.short


# --- Shooting the moon (§4, §5, §6) -----------------------------------------------------------


def on_the_board(preset="standard", players=(ANN, BOB, CAT, DAN), **overrides):
    """A match after one hand where everyone but the last seat played (they dropped): Bob
    made it."""
    state = start(preset, players, moon=True, **overrides)
    out = players[-1]
    others = [p for p in players if p not in (BOB, out)]
    bid = 3 if state.ruleset.bidding == "tricks" else None
    tricks = {BOB: 3, **{p: 1 if i < 2 else 0 for i, p in enumerate(others)}}
    tricks[BOB] = 5 - sum(tricks.values()) + 3
    first = hand("hearts", tricks, "hearts", BOB, [out], bid=bid)
    state, _ = rules.play(state, first)
    return state


def test_a_maker_on_the_board_who_takes_all_five_wins_at_once():
    state = on_the_board(sweep_wins=False)
    assert state.shape("spades", BOB).moon
    moon = hand("spades", {ANN: 0, BOB: 5, CAT: 0, DAN: 0}, "spades", BOB, moon=True)
    state, result = rules.play(state, moon)
    assert (state.winners, state.won_by) == ((BOB,), "moon")
    assert result.moon == BOB and result.moon_made and result.changes[BOB] == -5


def test_the_moon_wins_before_a_sweep_or_a_score_at_zero():
    state = on_the_board(scores=None)
    state = replace(state, scores={**state.scores, ANN: 1})
    moon = hand("spades", {BOB: 5}, "spades", BOB, [ANN, CAT, DAN], moon=True)
    state, _ = rules.play(state, moon)
    assert (state.winners, state.won_by) == ((BOB,), "moon")


def test_a_missed_moon_is_a_set_that_counts_twice_for_money():
    state = on_the_board()
    missed = hand("spades", {ANN: 1, BOB: 4, CAT: 0, DAN: 0}, "spades", BOB, moon=True)
    after, result = rules.play(state, missed)
    assert result.set == (BOB,) and result.changes[BOB] == 5  # needed 5, not 3
    assert result.moon_missed == BOB and BOB in result.short
    assert after.sets[BOB] == state.sets[BOB] + 2
    assert after.sets[CAT] == state.sets[CAT] + 1  # everyone else as usual


def test_a_missed_moon_with_no_set_penalty_counts_tricks_but_still_twice_short():
    state = on_the_board(set_penalty=None)
    missed = hand("spades", {ANN: 1, BOB: 4, CAT: 0, DAN: 0}, "spades", BOB, moon=True)
    after, result = rules.play(state, missed)
    assert result.set == () and result.changes[BOB] == -4
    assert after.sets[BOB] == state.sets[BOB] + 2
    over = replace(after, winners=(ANN,))
    payments, _ = rules.settle(over, Stakes(per_set=10))
    assert rules.Payment(BOB, ANN, 20) in payments


def test_without_a_declaration_five_tricks_are_five_tricks():
    state = on_the_board(sweep_wins=False)
    five = hand("spades", {ANN: 0, BOB: 5, CAT: 0, DAN: 0}, "spades", BOB)
    after, result = rules.play(state, five)
    assert not after.finished and result.moon is None


def test_the_dealer_who_makes_a_turned_suit_may_shoot_the_moon():
    state = on_the_board("spades-21", dealer=None)
    dealer = state.dealer
    assert state.shape("spades").maker == dealer
    shape = state.shape("spades")
    assert shape.moon == state.on_board(dealer)
    assert shape.asks == (("moon",) if shape.moon else ()) + ("tricks",)


def test_the_shape_asks_the_moon_only_of_a_maker_on_the_board():
    state = start("dirty-clubs-up", THREE, CAT)
    shape = state.shape("hearts", ANN)
    assert not shape.moon and "moon" not in shape.asks
    state = on_the_board("dirty-clubs-up", THREE)
    shape = state.shape("hearts", BOB)
    assert shape.moon and shape.asks == ("maker", "trump", "bid", "moon", "dropped", "tricks")
    assert not state.shape("hearts").moon  # no maker yet
    assert not state.shape("hearts", passed=True).moon
    without = start(players=(ANN, BOB, CAT, DAN))
    assert not without.shape("hearts", BOB).moon


@pytest.mark.parametrize(
    "setup, h, message",
    [
        (
            lambda: start(),
            hand("hearts", {ANN: 0, BOB: 5, CAT: 0, DAN: 0}, "hearts", BOB, moon=True),
            "These rules have no shooting the moon, so Bob can't declare it.",
        ),
        (
            lambda: on_the_board(),
            hand("clubs", {ANN: 2, BOB: 1, CAT: 1, DAN: 1}, moon=True),
            "Only a maker can shoot the moon, and nobody makes trump when a club is turned.",
        ),
        (
            lambda: on_the_board(),
            hand("hearts", {ANN: 2, BOB: 1, CAT: 1, DAN: 1}, NO_TRUMP, moon=True),
            "Only a maker can shoot the moon, and a no-trump hand has no maker.",
        ),
        (
            lambda: on_the_board(),
            hand("hearts", {ANN: 5, BOB: 0, CAT: 0}, "hearts", ANN, [DAN], moon=True),
            None,  # Ann played the first hand: she may
        ),
        (
            lambda: on_the_board(),
            hand("hearts", {ANN: 0, BOB: 0, CAT: 0, DAN: 5}, "hearts", DAN, moon=True),
            "Dan can't shoot the moon: Dan hasn't taken a trick or fallen short yet this match.",
        ),
        (
            lambda: on_the_board("dirty-clubs-up", (ANN, BOB, CAT, DAN)),
            hand("hearts", {ANN: 0, BOB: 5, CAT: 0, DAN: 0}, "hearts", BOB, bid=4, moon=True),
            "Bob can't shoot the moon on a bid of 4: the moon is a bid of 5.",
        ),
        (
            lambda: on_the_board("dirty-clubs-up", (ANN, BOB, CAT, DAN)),
            Hand("hearts", passed=True, moon=True),
            "Everybody passed, so nobody can shoot the moon.",
        ),
    ],
)
def test_a_moon_the_rules_dont_allow_is_refused_in_words(setup, h, message):
    state = setup()
    if message is None:
        rules.check_hand(state, h)
        return
    error = rule_error(state, h)
    assert (error.code, error.message) == ("bad_moon", message)


def test_a_moon_with_no_option_names_no_one_where_there_is_no_maker():
    error = rule_error(start(), hand("clubs", {ANN: 2, BOB: 1, CAT: 1, DAN: 1}, moon=True))
    assert (error.code, error.message) == ("bad_moon", "These rules have no shooting the moon.")


def test_statistics_count_moons_declared_and_made():
    match, state, results = matchfile.load(json.dumps(EXAMPLE_8))
    assert rules.moons(match.start(), results) == {
        ANN: rules.Moons(),
        BOB: rules.Moons(declared=1, made=1),
        CAT: rules.Moons(),
    }
    missed = on_the_board()
    _, result = rules.play(
        missed, hand("spades", {ANN: 1, BOB: 4, CAT: 0, DAN: 0}, "spades", BOB, moon=True)
    )
    assert rules.moons(missed, [result])[BOB] == rules.Moons(declared=1, made=0)
    tally = rules.tallies(missed, [result])[BOB]
    assert (tally.made_trump, tally.made, tally.was_set) == (1, 0, 1)


# --- Five and six players (§1) ----------------------------------------------------------------


@pytest.mark.parametrize("players", [SIX[:5], SIX])
def test_five_and_six_deal_in_turn_must_play_and_pay(players):
    state = start("dirty-clubs-up", players, players[0], scores={EVE: 2})
    dealers = []
    for _ in range(len(players) + 1):
        dealers.append(state.dealer)
        state, _ = rules.play(state, Hand("hearts", passed=True))
    assert dealers == [*players, players[0]]
    shape = state.shape("hearts", ANN)
    assert shape.must_play == {ANN: "maker", EVE: "low_score"}
    assert rules.why_must_play(state, shape, EVE) == (
        "Eve is at 13, and at 13 or above a player can't drop out."
    )
    error = rule_error(state, hand("hearts", {ANN: 5}, "hearts", ANN, players[1:], bid=2))
    assert error.code == "must_play"
    others = [p for p in players if p not in (ANN, EVE)]
    tricks = {ANN: 2, EVE: 3} | dict.fromkeys(others, 0)
    state, result = rules.play(state, hand("hearts", tricks, "hearts", ANN, bid=2))
    assert state.finished and state.winners == (EVE,)
    payments, net = rules.settle(state, rules.PRESETS["dirty-clubs-up"].stakes)
    # Ann 25¢; each other loser 25¢ and 10¢ for the hand they took no trick.
    assert [(p.payer, p.cents) for p in payments] == [(ANN, 25)] + [(p, 35) for p in others]
    assert sum(net.values()) == 0


def test_a_table_of_seven_is_refused_and_says_the_counts_allowed():
    with pytest.raises(RuleError, match="for 3, 4, 5 or 6 players, not 7") as e:
        rules.new_match(rules.PRESETS["dirty-clubs-up"].ruleset, (*SIX, "Gus"), ANN)
    assert e.value.code == "bad_table"


# --- count_up (§7) ----------------------------------------------------------------------------


def test_count_up_changes_only_what_the_table_is_shown():
    down = random_match(random.Random(8), "dirty-clubs-up", names=SIX, moons=True, count_up=False)
    up = replace(down, ruleset=replace(down.ruleset, count_up=True))
    down_state, down_results = rules.replay(down.start(), down.hands)
    up_state, up_results = rules.replay(up.start(), up.hands)
    assert [r.changes for r in up_results] == [r.changes for r in down_results]
    assert (up_state.scores, up_state.winners) == (down_state.scores, down_state.winners)
    assert {p: up_state.shown(p) for p in up.players} == {
        p: 15 - s for p, s in down_state.scores.items()
    }
    assert {p: down_state.shown(p) for p in up.players} == down_state.scores
    assert rules.shown_score(up.ruleset, 15) == 0


# --- The match file (docs/format.md) ----------------------------------------------------------


def test_a_moon_is_written_only_when_declared_and_false_is_allowed_anywhere():
    doc = json.loads(json.dumps(EXAMPLE_8))
    doc["hands"][0]["moon"] = False
    match = matchfile.parse(doc)
    written = matchfile.dump(match)
    assert "moon" not in written["hands"][0] and written["hands"][1]["moon"] is True
    assert matchfile.parse(written).hands == match.hands
    passed = {**doc, "rules": "standard", "players": [ANN, BOB, CAT, DAN], "first_dealer": DAN}
    passed["hands"] = [{"upcard": "hearts", "trump": "none", "moon": False,
                        "tricks": {ANN: 2, BOB: 1, CAT: 1, DAN: 1}}]  # fmt: skip
    matchfile.parse(passed)


@pytest.mark.parametrize(
    "change, code",
    [
        ({"moon": "yes"}, "bad_file"),
        ({"moon": 1}, "bad_file"),
        ({"bid": 4}, "bad_moon"),
    ],
)
def test_a_bad_moon_in_a_file_is_refused_at_its_hand(change, code):
    doc = json.loads(json.dumps(EXAMPLE_8))
    doc["hands"][1].update(change)
    with pytest.raises(RuleError) as e:
        matchfile.load(json.dumps(doc))
    assert (e.value.hand, e.value.code) == (2, code)


def test_a_passed_hand_with_a_moon_is_bad_moon():
    doc = json.loads(json.dumps(EXAMPLE_8))
    doc["hands"].insert(1, {"upcard": "hearts", "passed": True, "moon": True})
    with pytest.raises(RuleError) as e:
        matchfile.load(json.dumps(doc))
    assert (e.value.hand, e.value.code) == (2, "bad_moon")


@settings(max_examples=60)
@given(st.integers(0, 2**32), st.sampled_from(sorted(rules.PRESETS)))
def test_files_with_the_new_rules_round_trip_and_replay_exactly(seed, preset):
    rnd = random.Random(seed)
    overrides = {
        "players": rnd.choice([[5], [6], [3, 4, 5, 6]]),
        "cap_at_start": rnd.random() < 0.5,
        "moon": rnd.random() < 0.8,
        "count_up": rnd.random() < 0.5,
    }
    match = random_match(rnd, preset, max_hands=60, names=SIX, moons=True, **overrides)
    text = matchfile.dumps(match)
    again, state, results = matchfile.load(text)
    assert again == match
    assert matchfile.dumps(again) == text
    _, expected = rules.replay(match.start(), match.hands)
    assert [r.changes for r in results] == [r.changes for r in expected]
    assert state.won_by in (None, "moon", "sweep", "zero")
