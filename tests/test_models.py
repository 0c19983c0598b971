"""The stored match: an adapter over the rules engine, with database constraints as a backstop."""

import io
import json

import pytest
from django.core.management import call_command
from django.db import IntegrityError, transaction

from games import matchfile, rules
from games.models import Hand, Match, Play, Player
from games.rules import Hand as GameHand

from .conftest import make_match
from .test_matchfile import EXAMPLE

pytestmark = pytest.mark.django_db

ORDERED = GameHand("hearts", "hearts", "Bob", None, ("Cat",), {"Ann": 0, "Bob": 3, "Dan": 2})
CLUB = GameHand("clubs", tricks={"Ann": 2, "Bob": 1, "Cat": 1, "Dan": 1})
SWEEP = GameHand("diamonds", "spades", "Cat", None, ("Ann", "Bob", "Dan"), {"Cat": 5})


def reload(match):
    return Match.objects.with_hands().get(pk=match.pk)


def test_a_match_stores_what_happened_and_the_engine_scores_it(user):
    match = make_match(user, hands=[ORDERED, CLUB])
    match = reload(match)
    assert match.names == ("Ann", "Bob", "Cat", "Dan")
    assert match.game_hands() == [ORDERED, CLUB]
    state, _ = match.replay()
    assert state.scores == {"Ann": 28, "Bob": 21, "Cat": 24, "Dan": 22}
    assert state.dealer == "Bob" and match.finished is None


def test_the_ruleset_is_stored_whole_so_a_preset_change_never_rewrites_it(user):
    match = make_match(user, ties="share")
    assert match.options == rules.make_ruleset("standard", ties="share").options()
    assert rules.ruleset_overrides(match.preset, match.ruleset()) == {"ties": "share"}


def test_a_bad_hand_is_refused_and_nothing_is_stored(user):
    match = make_match(user, hands=[ORDERED])
    bad = GameHand("hearts", "hearts", "Bob", None, ("Bob",), {"Ann": 2, "Cat": 2, "Dan": 1})
    with pytest.raises(rules.RuleError) as e:
        reload(match).record([ORDERED, bad])
    assert (e.value.hand, e.value.code) == (2, "must_play")
    assert Hand.objects.filter(match=match).count() == 1


def test_the_winning_hand_marks_the_match_finished_and_undo_reopens_it(user):
    match = make_match(user, hands=[ORDERED, SWEEP])
    assert match.finished is not None
    reload(match).record([ORDERED])
    assert Match.objects.get(pk=match.pk).finished is None
    assert Match.objects.in_progress().count() == 1


@pytest.mark.parametrize(
    "fields",
    [{"dropped": False, "tricks": 6}, {"dropped": True, "tricks": 2}, {"dropped": False}],
)
def test_the_database_refuses_an_impossible_play(user, fields):
    match = make_match(user, hands=[CLUB])
    hand = Hand.objects.get(match=match)
    player = Player.objects.create(owner=user, name="Zed")
    with pytest.raises(IntegrityError), transaction.atomic():
        Play.objects.create(hand=hand, player=player, **fields)


def test_the_database_refuses_a_second_hand_with_the_same_number(user):
    match = make_match(user, hands=[CLUB])
    with pytest.raises(IntegrityError), transaction.atomic():
        Hand.objects.create(match=match, number=1, upcard="hearts")


def test_a_player_keeps_one_name_per_owner(user):
    Player.objects.create(owner=user, name="Ann")
    with pytest.raises(IntegrityError), transaction.atomic():
        Player.objects.create(owner=user, name="Ann")


def test_a_too_long_name_is_refused_in_words(user):
    with pytest.raises(rules.RuleError, match="too long a name"):
        make_match(user, names=("A" * 41, "Bob", "Cat", "Dan"), dealer="Bob")
    assert not Match.objects.exists()


def test_import_then_export_gives_back_the_same_match(user, tmp_path):
    path = tmp_path / "match.json"
    path.write_text(json.dumps(EXAMPLE))
    out = io.StringIO()
    call_command("import_match", str(path), stdout=out)
    pk = int(out.getvalue())
    out = io.StringIO()
    call_command("export_match", str(pk), stdout=out)
    assert matchfile.parse(out.getvalue()) == matchfile.parse(json.dumps(EXAMPLE))


def test_import_of_a_bad_file_stores_nothing_and_exits_1(user, tmp_path):
    doc = json.loads(json.dumps(EXAMPLE))
    doc["hands"][1]["tricks"]["Ann"] = 3
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    out = io.StringIO()
    with pytest.raises(SystemExit) as e:
        call_command("import_match", str(path), "--json", stdout=out)
    assert e.value.code == 1
    assert json.loads(out.getvalue())["error"] == {
        "hand": 2,
        "code": "tricks_total",
        "message": "The tricks add up to 6; a hand always has 5.",
    }
    assert not Match.objects.exists() and not Player.objects.exists()


def test_import_on_an_empty_database_creates_an_owner(db, tmp_path):
    path = tmp_path / "match.json"
    path.write_text(json.dumps(EXAMPLE))
    out, err = io.StringIO(), io.StringIO()
    call_command("import_match", str(path), stdout=out, stderr=err)
    assert Match.objects.get(pk=int(out.getvalue())).owner.username == "scorekeeper"


def test_import_of_a_preset_with_its_own_stakes_and_house_rules_round_trips(user):
    doc = {**EXAMPLE, "rules": {"preset": "spades-21", "ties": "play_on"}}
    del doc["stakes"]
    doc["hands"] = [{"upcard": "spades", "tricks": {"Ann": 1, "Bob": 1, "Cat": 1, "Dan": 2}}]
    match = Match.from_file(user, matchfile.parse(json.dumps(doc)))
    exported = matchfile.dump(reload(match).to_file())
    assert exported["rules"] == {"preset": "spades-21", "ties": "play_on"}
    assert exported["stakes"] == {
        "per_game": "1.00",
        "per_point": "0.10",
        "per_set": "0.00",
        "currency": "USD",
    }
    assert matchfile.parse(json.dumps(exported)) == matchfile.parse(json.dumps(doc))


def test_export_of_a_missing_match_fails(db):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError):
        call_command("export_match", "999")
