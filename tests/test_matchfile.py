"""The buck-euchre/1 match file and the replay command (docs/format.md)."""

import copy
import io
import json
import random
import re
import subprocess
import sys
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from django.core.management import call_command
from hypothesis import given, settings
from hypothesis import strategies as st

from games import matchfile, rules
from games.rules import RuleError

from .conftest import command
from .matches import EXAMPLE, random_match

ROOT = Path(__file__).resolve().parent.parent


def example(**changes):
    doc = copy.deepcopy(EXAMPLE)
    doc.update(changes)
    return doc


def error_of(doc) -> RuleError:
    with pytest.raises(RuleError) as e:
        matchfile.load(doc if isinstance(doc, str) else json.dumps(doc))
    return e.value


def test_the_format_example_replays_to_a_sweep_with_payouts():
    match, state, results = matchfile.load(json.dumps(EXAMPLE))
    doc = matchfile.report(match, state, results)
    assert doc["hands"][0] == {
        "number": 1,
        "dealer": "Dan",
        "changes": {"Ann": 5, "Bob": -3, "Cat": 0, "Dan": -2},
        "scores": {"Ann": 30, "Bob": 22, "Cat": 25, "Dan": 23},
    }
    assert [h["dealer"] for h in doc["hands"]] == ["Dan", "Ann", "Bob", "Cat"]
    assert doc["scores"] == {"Ann": 27, "Bob": 20, "Cat": 17, "Dan": 21}
    assert (doc["finished"], doc["winners"], doc["won_by"]) == (True, ["Cat"], "sweep")
    assert doc["payouts"] == [
        {"from": "Ann", "to": "Cat", "amount": "3.70"},
        {"from": "Bob", "to": "Cat", "amount": "3.00"},
        {"from": "Dan", "to": "Cat", "amount": "3.10"},
    ]
    assert doc["net"] == {"Ann": "-3.70", "Bob": "-3.00", "Cat": "9.80", "Dan": "-3.10"}


def test_an_unfinished_match_has_no_winner_and_no_money():
    doc = matchfile.report(*matchfile.load(example(hands=EXAMPLE["hands"][:1])))
    assert (doc["finished"], doc["winners"], doc["won_by"]) == (False, [], None)
    assert (doc["payouts"], doc["net"]) == ([], {})


def test_left_out_stakes_take_the_presets_own():
    doc = example(rules="spades-21", hands=[])
    del doc["stakes"]
    assert matchfile.parse(json.dumps(doc)).stakes == rules.Stakes(100, 10, 0)


def test_within_stakes_a_missing_amount_is_zero():
    match = matchfile.parse(json.dumps(example(stakes={"per_point": "0.25"})))
    assert match.stakes == rules.Stakes(0, 25, 0, "USD")


def test_a_rules_object_overrides_the_preset():
    match = matchfile.parse(json.dumps(example(rules={"preset": "standard", "ties": "share"})))
    assert match.ruleset.ties == "share" and match.preset == "standard"


@pytest.mark.parametrize(
    "set_penalty, bob, sets",
    [
        (5, 5, {"Ann": 0, "Bob": 1, "Cat": 0, "Dan": 1}),
        (None, -2, {"Ann": 0, "Bob": 0, "Cat": 0, "Dan": 1}),
    ],
)
def test_a_rules_object_may_play_without_sets(set_penalty, bob, sets):
    short = {**HAND, "tricks": {"Ann": 2, "Bob": 2, "Cat": 1, "Dan": 0}}
    doc = example(
        rules={"preset": "standard", "set_penalty": set_penalty},
        stakes={"per_set": "0.25"},
        hands=[short],
    )
    match, state, results = matchfile.load(json.dumps(doc))
    assert results[0].changes == {"Ann": -2, "Bob": bob, "Cat": -1, "Dan": 5}
    assert state.sets == sets
    assert matchfile.parse(json.dumps(matchfile.dump(match))) == match


def test_a_null_set_penalty_is_written_out_as_null():
    doc = example(rules={"preset": "spades-21", "set_penalty": None}, hands=[])
    match = matchfile.parse(json.dumps(doc))
    text = json.dumps(matchfile.dump(match))
    assert '"rules": {"preset": "spades-21", "set_penalty": null}' in text


def test_a_redealt_hand_moves_the_deal_and_scores_nothing():
    doc = example(
        rules="dirty-clubs",
        hands=[
            {"upcard": "hearts", "passed": True},
            {
                "upcard": "clubs",
                "tricks": {"Ann": 2, "Bob": 1, "Cat": 1, "Dan": 1},
                "dealer": "Ann",
            },
        ],
    )
    report = matchfile.report(*matchfile.load(json.dumps(doc)))
    assert report["hands"][0]["changes"] == {"Ann": 0, "Bob": 0, "Cat": 0, "Dan": 0}
    assert [h["dealer"] for h in report["hands"]] == ["Dan", "Ann"]


# --- When it was played, and names with spaces around them --------------------------------------


@pytest.mark.parametrize(
    "text, utc",
    [
        ("2026-11-28T19:30:00-06:00", datetime(2026, 11, 29, 1, 30, tzinfo=UTC)),
        ("2026-11-29T01:30:00Z", datetime(2026, 11, 29, 1, 30, tzinfo=UTC)),
        ("2026-11-29T02:30+01:00", datetime(2026, 11, 29, 1, 30, tzinfo=UTC)),
        ("2026-11-29T01:30:00.250000+00:00", datetime(2026, 11, 29, 1, 30, 0, 250000, UTC)),
    ],
)
def test_played_at_is_read_as_an_instant(text, utc):
    assert matchfile.parse(json.dumps(example(played_at=text))).played_at == utc


@pytest.mark.parametrize(
    "value",
    [
        "2026-11-28T19:30:00",
        "2026-11-28",
        "2026-13-28T19:30:00-06:00",
        "2026-11-28T19:30:00-0600",
        "28/11/2026 19:30 -06:00",
        "yesterday",
        "",
        "0001-01-01T00:00:00+01:00",
        "２０２６-11-28T19:30:00-06:00",
        1764379800,
        ["2026-11-28T19:30:00-06:00"],
    ],
)
def test_played_at_without_an_offset_or_not_a_date_is_a_bad_file(value):
    error = error_of(example(played_at=value))
    assert (error.code, error.hand) == ("bad_file", None) and "played_at" in error.message


def test_played_at_is_written_with_its_offset_and_read_back_as_the_same_instant():
    match = matchfile.parse(json.dumps(example(played_at="2026-11-28T19:30:00-06:00")))
    doc = matchfile.dump(match)
    assert doc["played_at"] == "2026-11-28T19:30:00-06:00"
    assert list(doc).index("played_at") == list(doc).index("first_dealer") + 1
    assert matchfile.parse(json.dumps(doc)) == match
    assert "played_at" not in matchfile.dump(matchfile.parse(json.dumps(EXAMPLE)))


def test_spaces_around_a_name_are_dropped_wherever_a_name_is_read():
    doc = example(players=[" Ann", "Bob ", "Cat", "Dan"], first_dealer=" Dan ")
    doc["hands"][0] = {
        "upcard": "hearts",
        "trump": "hearts",
        "maker": "Bob  ",
        "dropped": [" Cat"],
        "tricks": {"Ann ": 0, " Bob": 3, "Dan": 2},
        "dealer": "Dan ",
    }
    plain = copy.deepcopy(EXAMPLE)
    plain["hands"][0]["dealer"] = "Dan"
    assert matchfile.parse(json.dumps(doc)) == matchfile.parse(json.dumps(plain))


@pytest.mark.parametrize(
    "players, code",
    [(["Ann", "Bob", "Ann ", "Dan"], "bad_table"), (["Ann", "  ", "Cat", "Dan"], "bad_table")],
)
def test_names_equal_after_trimming_are_one_name(players, code):
    error = error_of(example(players=players, hands=[]))
    assert (error.code, error.hand) == (code, None)


def test_a_player_listed_twice_in_tricks_once_trimmed_is_a_seat_count():
    tricks = {"Ann": 1, "Bob": 3, "Cat": 1, "Dan": 0, "Ann ": 0}
    error = error_of(example(hands=[HAND, {**HAND, "tricks": tricks}]))
    assert (error.code, error.hand) == ("seat_count", 2) and "Ann is listed twice" in error.message


def twice(doc: dict, inside: str, key: str, value) -> str:
    """The file's text with `key` given a second time, first, in the object that starts
    with `inside` (JSON written by a program never does this; a person's editor may)."""
    text = json.dumps(doc)
    at = text.index(inside) + len(inside)
    return f"{text[:at]}{json.dumps(key)}: {json.dumps(value)}, {text[at:]}"


@pytest.mark.parametrize(
    "inside, key, value, hand",
    [
        ("{", "first_dealer", "Ann", None),
        ('"stakes": {', "per_game", "5.00", None),
        ('"rules": {', "ties", "share", None),
        ('"hands": [{', "upcard", "clubs", 1),
        ('}, {"upcard": "clubs", ', "upcard", "hearts", 2),
    ],
)
def test_a_key_given_twice_is_refused_by_name_never_the_last_one_silently_kept(
    inside, key, value, hand
):
    doc = example(rules={"preset": "standard", "ties": "lowest"})
    error = error_of(twice(doc, inside, key, value))
    assert (error.code, error.hand) == ("bad_file", hand)
    assert f"has the key '{key}' twice; give each key once." in error.message


def test_a_player_given_twice_in_tricks_is_a_seat_count():
    error = error_of(twice(example(), '"tricks": {', "Ann", 4))
    assert (error.code, error.hand) == ("seat_count", 1) and "Ann is listed twice" in error.message


def test_a_name_is_read_with_the_spaces_around_it_dropped_and_nothing_else():
    """docs/format.md: "Ann " is Ann; "ann" is another name, so a hand that names "bob"
    names someone not at the table, and a table of Ann and ann seats two names."""
    hand = {**HAND, "maker": " Bob", "tricks": {"Ann ": 1, " Bob": 3, "Cat": 1, " Dan ": 0}}
    m = matchfile.parse(json.dumps(example(first_dealer=" Dan", hands=[hand])))
    assert m.first_dealer == "Dan" and m.hands[0].maker == "Bob"
    assert m.hands[0].tricks == {"Ann": 1, "Bob": 3, "Cat": 1, "Dan": 0}
    error = error_of(example(hands=[{**HAND, "maker": "bob"}]))
    assert (error.code, error.hand) == ("unknown_player", 1) and "bob" in error.message
    error = error_of(example(first_dealer="dan", hands=[]))
    assert error.code == "bad_table" and "The first dealer, dan, is not" in error.message
    again = {**HAND, "tricks": {"Ann": 1, "Bob": 3, "Cat": 1, "Dan": 0, "Ann ": 0}}
    error = error_of(example(hands=[again]))
    assert (error.code, error.hand) == ("seat_count", 1) and "Ann is listed twice" in error.message
    m = matchfile.parse(json.dumps(example(players=["Ann", "Bob", "ann", "Dan"], hands=[])))
    assert m.players == ("Ann", "Bob", "ann", "Dan")


def test_the_same_match_in_other_capitals_is_the_same_match():
    """As people, for the app's import: a file's "ann" is stored as the Ann already saved,
    so the same match in other capitals is "already imported", not a second copy."""
    played = example(played_at="2026-11-28T19:30:00-06:00")
    lower = json.loads(json.dumps(played).replace('"Ann"', '"ann"').replace('"Dan"', '"DAN"'))
    assert matchfile.parse(json.dumps(lower)).same_as(matchfile.parse(json.dumps(played)))


SAME = example(played_at="2026-11-28T19:30:00-06:00")


@pytest.mark.parametrize(
    "other",
    [
        SAME,
        {**SAME, "played_at": "2026-11-29T01:30:00Z"},
        {**SAME, "rules": {"preset": "standard"}},
        {
            **SAME,
            "hands": [
                {**h, "dealer": d}
                for h, d in zip(SAME["hands"], ["Dan", "Ann", "Bob", "Cat"], strict=True)
            ],
        },
        {
            **SAME,
            "hands": [SAME["hands"][0], {**SAME["hands"][1], "trump": "clubs"}, *SAME["hands"][2:]],
        },
        {
            **SAME,
            "hands": [*SAME["hands"][:3], {**SAME["hands"][3], "dropped": ["Dan", "Bob", "Ann"]}],
        },
        {**SAME, "players": ["Ann ", "Bob", "Cat", "Dan"]},
    ],
)
def test_the_same_match_written_another_way_is_the_same_match(other):
    assert matchfile.parse(json.dumps(SAME)).same_as(matchfile.parse(json.dumps(other)))


@pytest.mark.parametrize(
    "other, hands",
    [
        ({k: v for k, v in SAME.items() if k != "played_at"}, 4),
        ({**SAME, "played_at": "2026-11-28T19:30:00-05:00"}, 4),
        ({**SAME, "players": ["Ann", "Bob", "Cat", "Dave"], "first_dealer": "Ann", "hands": []}, 0),
        ({**SAME, "players": ["Bob", "Ann", "Cat", "Dan"], "hands": []}, 0),
        ({**SAME, "first_dealer": "Ann", "hands": []}, 0),
        ({**SAME, "rules": {"preset": "standard", "ties": "share"}}, 4),
        ({**SAME, "rules": "no-dirty-clubs", "hands": SAME["hands"][:1]}, 1),
        ({**SAME, "stakes": {**SAME["stakes"], "currency": "EUR"}}, 4),
        ({**SAME, "stakes": {**SAME["stakes"], "per_set": "0.01"}}, 4),
        ({**SAME, "hands": SAME["hands"][:3]}, 4),
        ({**SAME, "hands": [{**SAME["hands"][0], "tricks": {"Ann": 1, "Bob": 3, "Dan": 1}}]}, 1),
    ],
)
def test_another_time_table_rules_stakes_or_hand_is_another_match(other, hands):
    one = matchfile.parse(json.dumps(SAME))
    one = replace(one, hands=one.hands[:hands])
    assert not one.same_as(matchfile.parse(json.dumps(other)))
    assert one.same_as(one)


HAND = {
    "upcard": "hearts",
    "trump": "hearts",
    "maker": "Bob",
    "tricks": {"Ann": 1, "Bob": 3, "Cat": 1, "Dan": 0},
}

BAD_FILES = [
    # (document or text, hand, code)
    ("{not json", None, "bad_file"),
    # NaN and Infinity, which Python's json reads and JSON has not
    (
        json.dumps(example(rules={"preset": "standard", "starting_score": float("inf")})),
        None,
        "bad_file",
    ),
    (json.dumps(example(hands=[{**HAND, "tricks": {"Ann": float("nan")}}])), None, "bad_file"),
    ("[1, 2]", None, "bad_file"),
    ('"standard"', None, "bad_file"),
    (example(format="buck-euchre/2"), None, "bad_file"),
    (example(colour="red"), None, "bad_file"),
    ({k: v for k, v in EXAMPLE.items() if k != "players"}, None, "bad_file"),
    ({k: v for k, v in EXAMPLE.items() if k != "first_dealer"}, None, "bad_file"),
    (example(players="Ann, Bob"), None, "bad_file"),
    (example(players=["Ann", 2, "Cat", "Dan"]), None, "bad_file"),
    (example(rules=4), None, "bad_file"),
    (example(stakes={"per_game": 1.0}), None, "bad_file"),
    (example(stakes={"per_game": "1.005"}), None, "bad_file"),
    (example(stakes={"per_game": "-1"}), None, "bad_file"),
    (example(stakes={"tip": "1.00"}), None, "bad_file"),
    (example(hands={}), None, "bad_file"),
    (example(rules="pinochle"), None, "bad_rules"),
    (example(rules={"preset": "standard", "colour": "red"}), None, "bad_rules"),
    (example(rules={"preset": "standard", "maker_needs": 9}), None, "bad_rules"),
    (example(rules={"preset": "standard", "sweep_wins": "yes"}), None, "bad_rules"),
    (example(rules={"preset": "standard", "set_penalty": "none"}), None, "bad_rules"),
    (example(rules={"ties": "share"}), None, "bad_rules"),
    (example(players=["Ann", "Bob", "Cat"]), None, "bad_table"),
    (example(players=["Ann", "Bob", "Ann", "Dan"]), None, "bad_table"),
    (example(players=["Ann", "Bob", "", "Dan"]), None, "bad_table"),
    (example(first_dealer="Eve"), None, "bad_table"),
    (example(hands=[HAND, {**HAND, "colour": "red"}]), 2, "bad_file"),
    (example(hands=[HAND, {"trump": "hearts"}]), 2, "bad_file"),
    (example(hands=[HAND, {**HAND, "upcard": "stars"}]), 2, "bad_file"),
    (example(hands=[HAND, {**HAND, "tricks": [1, 3, 1, 0]}]), 2, "bad_file"),
    (example(hands=[HAND, {**HAND, "dropped": "Cat"}]), 2, "bad_file"),
    (example(hands=[HAND, {"upcard": "hearts", "passed": True, "tricks": {}}]), 2, "bad_file"),
    (example(hands=[HAND, "hand"]), 2, "bad_file"),
    (example(hands=[HAND, {**HAND, "maker": "Eve"}]), 2, "unknown_player"),
    (example(hands=[HAND, {**HAND, "tricks": {"Ann": 1, "Bob": 4}}]), 2, "seat_count"),
    (
        example(hands=[HAND, {**HAND, "tricks": {"Ann": 1, "Bob": "4", "Cat": 0, "Dan": 0}}]),
        2,
        "bad_tricks",
    ),
    (
        example(hands=[HAND, {**HAND, "tricks": {"Ann": 1, "Bob": 3, "Cat": 0, "Dan": 0}}]),
        2,
        "tricks_total",
    ),
    (
        example(
            hands=[HAND, {**HAND, "dropped": ["Bob"], "tricks": {"Ann": 2, "Cat": 2, "Dan": 1}}]
        ),
        2,
        "must_play",
    ),
    (example(hands=[HAND, {**HAND, "upcard": "clubs"}]), 2, "bad_trump"),
    (example(hands=[HAND, {**HAND, "maker": None}]), 2, "bad_maker"),
    (example(hands=[HAND, {**HAND, "bid": 3}]), 2, "bad_bid"),
    (example(hands=[HAND, {**HAND, "moon": True}]), 2, "bad_moon"),
    (example(hands=[HAND, {**HAND, "moon": "yes"}]), 2, "bad_file"),
    (example(hands=[HAND, {"upcard": "hearts", "passed": True}]), 2, "bad_pass"),
    (example(hands=[HAND, {**HAND, "dealer": "Dan"}]), 2, "bad_dealer"),
    (example(hands=[*EXAMPLE["hands"], HAND]), 5, "match_over"),
]


@pytest.mark.parametrize("doc, hand, code", BAD_FILES)
def test_a_bad_file_names_the_hand_and_the_code(doc, hand, code):
    error = error_of(doc)
    assert (error.hand, error.code) == (hand, code)
    assert error.message.endswith(".") and len(error.message) > 15


def test_the_first_fault_in_file_order_is_reported():
    doc = example(hands=[HAND, {**HAND, "bid": 3}, {**HAND, "colour": "red"}])
    assert (error_of(doc).hand, error_of(doc).code) == (2, "bad_bid")


# --- Properties ------------------------------------------------------------------------------

presets = st.sampled_from(sorted(rules.PRESETS))


@settings(max_examples=100)
@given(presets, st.integers(0, 2**32))
def test_parse_of_dump_is_the_same_match(preset, seed):
    rnd = random.Random(seed)
    overrides = rnd.choice(
        [{}, {"ties": "share"}, {"set_penalty": 3, "players": [3, 4]}, {"set_penalty": None}]
    )
    match = random_match(rnd, preset, **overrides)
    offset = timezone(timedelta(minutes=15 * rnd.randrange(-48, 57)))
    when = datetime(2020, 1, 1, tzinfo=UTC) + timedelta(seconds=rnd.randrange(10**9) / 8)
    match = replace(match, played_at=rnd.choice([None, when.astimezone(offset)]))
    text = json.dumps(matchfile.dump(match))
    assert matchfile.parse(text) == match
    assert matchfile.parse(text).same_as(match) == (match.played_at is not None)


def _break(hand: dict, ruleset: rules.Ruleset, players, dealer: str, rnd: random.Random):
    """One way to break exactly one rule in a valid hand: (broken hand, expected code)."""
    passed = hand.get("passed", False)
    automatic = hand["upcard"] == ruleset.auto_trump
    options = [
        ({**hand, "dealer": next(p for p in players if p != dealer)}, "bad_dealer"),
    ]
    if passed:
        if ruleset.auto_trump:
            options.append(({**hand, "upcard": ruleset.auto_trump}, "bad_trump"))
        return rnd.choice(options)
    tricks = hand["tricks"]
    someone = rnd.choice(sorted(tricks))
    options += [
        ({**hand, "tricks": {**tricks, "Eve": 0}}, "unknown_player"),
        ({**hand, "tricks": {k: v for k, v in tricks.items() if k != someone}}, "seat_count"),
        ({**hand, "tricks": {**tricks, someone: rnd.choice([6, -1, 2.5, "2"])}}, "bad_tricks"),
        ({**hand, "tricks": {**tricks, someone: (tricks[someone] + 1) % 6}}, "tricks_total"),
    ]
    if hand.get("maker"):
        maker = hand["maker"]
        left = {k: v for k, v in tricks.items() if k != maker}
        if left:
            moved = {**left, next(iter(left)): left[next(iter(left))] + tricks[maker]}
            dropped = [*hand.get("dropped", []), maker]
            options.append(({**hand, "dropped": dropped, "tricks": moved}, "must_play"))
    if automatic:
        other = next(s for s in rules.SUITS if s != hand["upcard"])
        options.append(({**hand, "trump": rnd.choice([other, "none"])}, "bad_trump"))
        if ruleset.auto_trump_dealer_needs is None:
            options.append(({**hand, "maker": someone}, "bad_maker"))
        else:
            options.append(
                ({**hand, "maker": next(p for p in players if p != dealer)}, "bad_maker")
            )
    elif hand.get("trump") == "none":
        options.append(({**hand, "maker": someone}, "bad_maker"))
    else:
        options.append(({k: v for k, v in hand.items() if k != "trump"}, "bad_trump"))
        options.append(({k: v for k, v in hand.items() if k != "maker"}, "bad_maker"))
        if ruleset.bidding == "tricks":
            options.append(
                ({**hand, "bid": rnd.choice([None, 0, 6, ruleset.min_bid - 1])}, "bad_bid")
            )
        else:
            options.append(({**hand, "bid": 3}, "bad_bid"))
    return rnd.choice(options)


@settings(max_examples=200)
@given(presets, st.integers(0, 2**32))
def test_breaking_one_rule_in_one_hand_names_that_hand_and_rule(preset, seed):
    rnd = random.Random(seed)
    match = random_match(rnd, preset)
    doc = matchfile.dump(match)
    if not doc["hands"]:
        return
    k = rnd.randrange(len(doc["hands"]))
    state, _ = rules.replay(match.start(), match.hands[:k])
    broken, code = _break(doc["hands"][k], match.ruleset, match.players, state.dealer, rnd)
    if code == "bad_bid" and broken.get("bid") is None:
        broken.pop("bid")
    doc["hands"][k] = broken
    error = error_of(doc)
    assert (error.hand, error.code) == (k + 1, code), error.message


@settings(max_examples=50)
@given(presets, st.integers(0, 2**32))
def test_a_hand_after_the_end_is_refused(preset, seed):
    match = random_match(random.Random(seed), preset, max_hands=400)
    doc = matchfile.dump(match)
    state, _ = rules.replay(match.start(), match.hands)
    if state.finished:
        doc["hands"].append(doc["hands"][-1])
        error = error_of(doc)
        assert (error.hand, error.code) == (len(doc["hands"]), "match_over")


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 8)
    | st.sampled_from(["Ann", "Bob", "clubs", "none", "standard", "1.00"]),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(sorted(matchfile.HAND_KEYS | matchfile.TOP_KEYS)), inner, max_size=5
        )
    ),
    max_leaves=20,
)


@settings(max_examples=300)
@given(st.data())
def test_any_json_at_all_is_a_match_or_a_rule_error_never_a_crash(data):
    doc = copy.deepcopy(EXAMPLE)
    where = data.draw(st.sampled_from(["top", "rules", "stakes", "hand", "tricks"]))
    value = data.draw(JSON)
    if where == "top":
        doc[data.draw(st.sampled_from(sorted(matchfile.TOP_KEYS)))] = value
    elif where == "rules":
        doc["rules"] = {"preset": "standard", data.draw(st.sampled_from(rules.OPTION_NAMES)): value}
    elif where == "stakes":
        doc["stakes"] = {data.draw(st.sampled_from(matchfile.STAKE_KEYS)): value}
    elif where == "hand":
        doc["hands"][0][data.draw(st.sampled_from(sorted(matchfile.HAND_KEYS)))] = value
    else:
        doc["hands"][1]["tricks"][data.draw(st.sampled_from(["Ann", "Bob", "Zed"]))] = value
    try:
        matchfile.load(json.dumps(doc))
    except RuleError as e:
        assert e.code and e.message


# --- The replay command -----------------------------------------------------------------------


@pytest.fixture
def example_file(tmp_path):
    path = tmp_path / "match.json"
    path.write_text(json.dumps(EXAMPLE))
    return path


def replay(*args, stdin=None):
    out, err = io.StringIO(), io.StringIO()
    code = 0
    try:
        call_command("replay", *args, stdout=out, stderr=err)
    except SystemExit as e:
        code = e.code
    return code, out.getvalue(), err.getvalue()


def test_replay_json_prints_the_report(example_file):
    code, out, _ = replay(str(example_file), "--json")
    assert code == 0
    assert json.loads(out) == matchfile.report(*matchfile.load(json.dumps(EXAMPLE)))


def test_replay_prints_a_table_for_people(example_file):
    code, out, _ = replay(str(example_file))
    assert code == 0
    lines = out.splitlines()
    assert any(line.split()[:2] == ["1", "Dan"] and "+5" in line and "30" in line for line in lines)
    assert "Cat wins (took all five tricks)." in out
    assert "Ann pays Cat 3.70 USD" in out


def test_replay_names_the_house_rules_as_the_file_writes_them(tmp_path):
    path = tmp_path / "m.json"
    house = {"preset": "standard", "set_penalty": None, "starting_score": 20}
    path.write_text(json.dumps(example(rules=house, hands=[])))
    code, out, _ = replay(str(path))
    assert code == 0
    assert out.splitlines()[0] == "Rules: standard, starting_score = 20, set_penalty = null"


ONE_PER_CODE = list({code: (doc, hand, code) for doc, hand, code in reversed(BAD_FILES)}.values())


def codes_the_code_raises() -> set[str]:
    """Every error code a match file can meet (the table of docs/format.md): each
    `RuleError("code", …)` in the engine, the format and the models."""
    files = [ROOT / "games" / f for f in FORMAT_MODULES]
    packages = [*sorted((ROOT / "games" / "rules").glob("*.py"))]
    packages += sorted((ROOT / "games" / "models").glob("*.py"))
    source = "".join(f.read_text() for f in [*files, *packages])
    return set(re.findall(r'RuleError\(\s*"(\w+)"', source))


FORMAT_MODULES = ("matchfile.py",)  # and the rules and the models packages


def test_every_error_code_the_code_raises_is_tried_on_the_command():
    codes = {code for _, _, code in ONE_PER_CODE}
    assert codes == codes_the_code_raises()


@pytest.mark.parametrize("doc, hand, code", ONE_PER_CODE, ids=[c for _, _, c in ONE_PER_CODE])
def test_replay_reports_an_error_as_json_with_status_1(tmp_path, doc, hand, code):
    path = tmp_path / "bad.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    status, out, _ = replay(str(path), "--json")
    assert status == 1
    error = json.loads(out)["error"]
    assert (error["hand"], error["code"]) == (hand, code) and error["message"]


def test_replay_without_json_writes_the_error_to_stderr(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(example(hands=[HAND, {**HAND, "dealer": "Dan"}])))
    status, out, err = replay(str(path))
    assert status == 1 and out == ""
    assert "Hand 2: It is Ann's deal, not Dan's." in err


def test_replay_of_a_missing_file_is_a_bad_file(tmp_path):
    status, out, _ = replay(str(tmp_path / "nope.json"), "--json")
    assert status == 1 and json.loads(out)["error"]["code"] == "bad_file"


def test_replay_reads_standard_input_in_a_real_process():
    result = subprocess.run(
        [sys.executable, "manage.py", "replay", "-", "--json"],
        input=json.dumps(EXAMPLE),
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["winners"] == ["Cat"]
    result = subprocess.run(
        [sys.executable, "manage.py", "replay", "-", "--json"],
        input="nonsense",
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert result.returncode == 1
    assert json.loads(result.stdout)["error"]["code"] == "bad_file"


# --- The settle command (a night, docs/rules.md §11) -----------------------------------------

SWEPT_BY_BOB = example(
    players=["Ann", "Bob", "Eve", "Dan"],
    first_dealer="Ann",
    hands=[
        {
            "upcard": "diamonds",
            "trump": "spades",
            "maker": "Bob",
            "dropped": ["Ann", "Eve", "Dan"],
            "tricks": {"Bob": 5},
        }
    ],
)


def settle(*args):
    return command("settle", *args)


def cents(amount: str) -> int:
    return rules.parse_money(amount.lstrip("-")) * (-1 if amount.startswith("-") else 1)


def settles(net: dict, transfers: list) -> bool:
    left = {p: cents(n) for p, n in net.items()}
    for t in transfers:
        left[t["from"]] += cents(t["amount"])
        left[t["to"]] -= cents(t["amount"])
    return not any(left.values())


def test_settle_one_match_pays_its_winner(files):
    code, out, _ = settle(*files(EXAMPLE), "--json")
    doc = json.loads(out)
    assert code == 0 and list(doc) == ["matches", "net", "transfers", "currency"]
    net = {"Ann": "-3.70", "Bob": "-3.00", "Cat": "9.80", "Dan": "-3.10"}
    assert doc["matches"] == [{"file": files(EXAMPLE)[0], "finished": True, "net": net}]
    assert doc["net"] == net and doc["currency"] == "USD"
    assert doc["transfers"] == [
        {"from": "Ann", "to": "Cat", "amount": "3.70"},
        {"from": "Bob", "to": "Cat", "amount": "3.00"},
        {"from": "Dan", "to": "Cat", "amount": "3.10"},
    ]


def test_settle_adds_up_a_night_and_lists_an_unfinished_match_with_no_net(files):
    later = example(players=["Ann", "Bob", "Cat", "Zoe"], first_dealer="Zoe", hands=[])
    paths = files(EXAMPLE, SWEPT_BY_BOB, later)
    code, out, _ = settle(*paths, "--json")
    doc = json.loads(out)
    assert code == 0
    assert [(m["file"], m["finished"]) for m in doc["matches"]] == [
        (paths[0], True),
        (paths[1], True),
        (paths[2], False),
    ]
    assert doc["matches"][1]["net"] == {
        "Ann": "-3.50",
        "Bob": "10.50",
        "Eve": "-3.50",
        "Dan": "-3.50",
    }
    assert doc["matches"][2]["net"] == {}
    assert doc["net"] == {
        "Ann": "-7.20",
        "Bob": "7.50",
        "Cat": "9.80",
        "Dan": "-6.60",
        "Eve": "-3.50",
        "Zoe": "0.00",
    }
    assert len(doc["transfers"]) == 4 and settles(doc["net"], doc["transfers"])
    order = list(doc["net"])
    keys = [(order.index(t["from"]), order.index(t["to"])) for t in doc["transfers"]]
    assert keys == sorted(keys)


def test_settle_counts_one_name_across_files_as_one_person_and_no_other(files):
    """docs/rules.md §11: the same person across matches when the names are equal after
    trimming spaces: "Ann " is Ann, "ann" someone else."""
    spaced = json.loads(json.dumps(SWEPT_BY_BOB).replace('"Ann"', '"Ann "'))
    code, out, _ = settle(*files(EXAMPLE, spaced), "--json")
    doc = json.loads(out)
    assert code == 0 and list(doc["net"]) == ["Ann", "Bob", "Cat", "Dan", "Eve"]
    assert doc["net"]["Ann"] == "-7.20" and settles(doc["net"], doc["transfers"])
    lower = json.loads(json.dumps(SWEPT_BY_BOB).replace('"Ann"', '"ann"'))
    code, out, _ = settle(*files(EXAMPLE, lower), "--json")
    doc = json.loads(out)
    assert code == 0 and list(doc["net"]) == ["Ann", "Bob", "Cat", "Dan", "ann", "Eve"]
    assert settles(doc["net"], doc["transfers"])


def test_settle_names_the_file_and_hand_of_the_first_fault(files):
    bad = example(hands=[HAND, {**HAND, "dealer": "Dan"}])
    paths = files(EXAMPLE, bad, "{not json")
    code, out, _ = settle(*paths, "--json")
    assert code == 1
    assert json.loads(out) == {
        "error": {
            "file": paths[1],
            "hand": 2,
            "code": "bad_dealer",
            "message": "It is Ann's deal, not Dan's.",
        }
    }
    assert list(json.loads(out)["error"]) == ["file", "hand", "code", "message"]


def test_settle_refuses_a_night_in_two_currencies_naming_the_first_that_differs(files):
    no_stakes = {k: v for k, v in EXAMPLE.items() if k != "stakes"}
    euros = example(stakes={"per_game": "1.00", "currency": "EUR"}, hands=[])
    paths = files(EXAMPLE, no_stakes, euros, no_stakes)
    code, out, _ = settle(*paths, "--json")
    error = json.loads(out)["error"]
    assert code == 1 and (error["file"], error["hand"], error["code"]) == (
        paths[2],
        None,
        "mixed_currency",
    )
    assert "EUR" in error["message"] and "USD" in error["message"]
    code, out, _ = settle(*files(euros, no_stakes), "--json")
    assert code == 1 and json.loads(out)["error"]["file"].endswith("m2.json")


def test_settle_in_another_currency_says_which(files):
    doc = dict(EXAMPLE, stakes={"per_game": "1.00", "currency": "EUR"})
    code, out, _ = settle(*files(doc, doc), "--json")
    assert code == 0 and json.loads(out)["currency"] == "EUR"
    assert json.loads(out)["net"]["Cat"] == "6.00"


def test_settle_prints_a_table_for_people(files):
    paths = files(EXAMPLE, example(hands=[]))
    code, out, err = settle(*paths)
    assert code == 0 and err == ""
    assert "Net (USD): Ann -3.70, Bob -3.00, Cat 9.80, Dan -3.10" in out
    assert "Ann pays Cat 3.70 USD" in out
    assert f"{paths[1]}  not finished" in out


def test_settle_without_json_writes_the_error_to_stderr(files):
    code, out, err = settle(*files(EXAMPLE, example(hands=[HAND, {**HAND, "dealer": "Dan"}])))
    assert code == 1 and out == ""
    assert "m2.json: Hand 2: It is Ann's deal, not Dan's. (bad_dealer)" in err


@settings(max_examples=30)
@given(st.lists(st.tuples(presets, st.integers(0, 2**32)), min_size=1, max_size=4))
def test_a_night_of_random_matches_nets_to_zero_and_settles_exactly(matches):
    loaded = []
    for i, (preset, seed) in enumerate(matches):
        match = random_match(random.Random(seed), preset)
        state, _ = rules.replay(match.start(), match.hands)
        loaded.append((f"m{i}.json", match, state))
    doc = matchfile.night_report(loaded)
    assert sum(cents(n) for n in doc["net"].values()) == 0
    for p, n in doc["net"].items():
        assert cents(n) == sum(cents(m["net"].get(p, "0")) for m in doc["matches"])
    assert settles(doc["net"], doc["transfers"])
    assert all(cents(t["amount"]) > 0 for t in doc["transfers"])
