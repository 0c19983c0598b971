"""The stored match: an adapter over the rules engine, with database constraints as a backstop."""

import json

import pytest
from django.core.management import call_command
from django.db import IntegrityError, transaction
from django.utils import timezone

from games import matchfile, rules
from games.models import Hand, Match, Play, Player
from games.rules import Hand as GameHand

from .conftest import command, make_match
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


PLAYED = {**EXAMPLE, "played_at": "2026-11-28T19:30:00-06:00"}


def test_import_then_export_gives_back_the_same_match(user, files):
    [path] = files(PLAYED)
    code, out, _ = command("import_match", path)
    pk = Match.objects.get().pk
    assert code == 0 and out == f"{path}: {pk}\n"
    code, out, _ = command("export_match", str(pk))
    exported = json.loads(out)
    assert exported["played_at"] == "2026-11-28T19:30:00-06:00"
    assert matchfile.parse(out) == matchfile.parse(json.dumps(PLAYED))


def test_import_without_played_at_takes_the_time_of_the_import(user, files):
    before = timezone.now()
    command("import_match", *files(EXAMPLE))
    match = Match.objects.get()
    assert before <= match.played_at <= timezone.now()
    written = matchfile.parse(matchfile.dumps(reload(match).to_file())).played_at
    assert written == match.played_at and written.utcoffset() is not None


def test_import_of_several_files_stores_each_match_once(user, files):
    other = dict(PLAYED, players=["Ann", "Bob", "Eve", "Dan"], hands=[])
    respelled = dict(PLAYED, players=["Ann ", " Bob", "Cat", "Dan"])
    dealers = ["Dan", "Ann", "Bob", "Cat"]
    respelled["hands"] = [{**h, "dealer": d} for h, d in zip(PLAYED["hands"], dealers, strict=True)]
    paths = files(PLAYED, other, PLAYED, respelled)
    code, out, err = command("import_match", *paths, "--user", "ann")
    first, second = Match.objects.order_by("pk")
    assert code == 0 and err == ""
    assert out.splitlines() == [
        f"{paths[0]}: {first.pk}",
        f"{paths[1]}: {second.pk}",
        f"{paths[2]}: {first.pk} (already imported)",
        f"{paths[3]}: {first.pk} (already imported)",
    ]
    assert Match.objects.count() == 2 and first.owner == user


def test_a_match_is_another_users_own_and_a_match_without_played_at_is_always_new(
    user, other_user, files
):
    [played, bare] = files(PLAYED, EXAMPLE)
    command("import_match", played, bare, "--user", "ann")
    code, out, _ = command("import_match", played, bare, "--user", "eve")
    assert code == 0 and "already" not in out
    code, out, _ = command("import_match", played, bare, "--user", "ann")
    assert out.splitlines()[0].endswith("(already imported)")
    assert not out.splitlines()[1].endswith("(already imported)")
    assert Match.objects.filter(owner=user).count() == 3
    assert Match.objects.filter(owner=other_user).count() == 2


def test_a_refused_file_stores_nothing_says_why_on_stderr_and_exits_1(user, files):
    bad = json.loads(json.dumps(PLAYED))
    bad["hands"][1]["tricks"]["Ann"] = 3
    bad["players"][3] = "Zed"
    paths = files(PLAYED, bad, "{")
    code, out, err = command("import_match", *paths)
    assert code == 1
    assert out == f"{paths[0]}: {Match.objects.get().pk}\n"
    assert f"{paths[1]}: nothing imported." in err and f"{paths[2]}: nothing imported." in err
    assert not Player.objects.filter(name="Zed").exists()


def test_import_errors_as_json_name_the_file_and_the_hand(user, files):
    bad = json.loads(json.dumps(EXAMPLE))
    bad["hands"][1]["tricks"]["Ann"] = 3
    [path] = files(bad)
    code, out, err = command("import_match", path, "--json")
    assert code == 1 and out == ""
    assert json.loads(err)["error"] == {
        "file": path,
        "hand": 2,
        "code": "tricks_total",
        "message": "The tricks add up to 6; a hand always has 5.",
    }
    assert not Match.objects.exists() and not Player.objects.exists()


def test_import_for_a_user_who_does_not_exist_fails(user, files):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="no user 'zed'"):
        call_command("import_match", *files(EXAMPLE), "--user", "zed")


def test_import_on_an_empty_database_creates_an_owner(db, files):
    code, out, err = command("import_match", *files(EXAMPLE))
    pk = int(out.split(": ")[1])
    assert Match.objects.get(pk=pk).owner.username == "scorekeeper"
    assert "scorekeeper" in err


def test_export_all_writes_every_match_of_the_user_and_they_import_back_as_the_same(
    user, other_user, tmp_path
):
    mine = [make_match(user, hands=[ORDERED]), make_match(user, "short-15", set_penalty=None)]
    make_match(other_user)
    code, out, _ = command("export_match", "--all", "--user", "ann", str(tmp_path / "backup"))
    written = sorted((tmp_path / "backup").iterdir())
    assert code == 0 and len(written) == 2 and len(out.splitlines()) == 2
    for match, path in zip(mine, written, strict=True):
        assert path.name == match.file_name()
        assert matchfile.parse(path.read_text()).same_as(reload(match).to_file())
    code, out, _ = command("import_match", *map(str, written), "--user", "ann")
    assert out.count("(already imported)") == 2 and Match.objects.count() == 3


def test_export_all_needs_a_user_that_exists(user, tmp_path):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="--user"):
        call_command("export_match", "--all", str(tmp_path))
    with pytest.raises(CommandError, match="no user 'zed'"):
        call_command("export_match", "--all", "--user", "zed", str(tmp_path))


def test_import_of_a_preset_with_its_own_stakes_and_house_rules_round_trips(user):
    doc = {**PLAYED, "rules": {"preset": "spades-21", "ties": "play_on"}}
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
