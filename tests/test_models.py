"""The stored match: an adapter over the rules engine, with database constraints as a backstop."""

import json
import random
import zipfile
from dataclasses import asdict, replace
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import IntegrityError, transaction
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import matchfile, rules, words
from games.models import (
    STAKED,
    Group,
    Hand,
    Match,
    Night,
    Payment,
    Play,
    Player,
    Result,
    add_hand,
    change_hand,
    create_match,
    mark_transfer,
    match_from_file,
    move_match,
    record_hands,
    recount_sums,
    undo_hand,
)
from games.rules import Hand as GameHand

from .conftest import command, fresh_database, make_match
from .matches import CLUB_HAND as CLUB
from .matches import EXAMPLE, TABLE, random_hand
from .stored import (
    RESULT_FIELDS,
    assert_results_are_a_replay,
    assert_the_state_before_each_hand_is_a_replay,
    reload,
)

pytestmark = pytest.mark.django_db

ORDERED = GameHand("hearts", "hearts", "Bob", None, ("Cat",), {"Ann": 0, "Bob": 3, "Dan": 2})
SWEEP = GameHand("diamonds", "spades", "Cat", None, ("Ann", "Bob", "Dan"), {"Cat": 5})


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
        record_hands(reload(match), [ORDERED, bad])
    assert (e.value.hand, e.value.code) == (2, "must_play")
    assert Hand.objects.filter(match=match).count() == 1


def test_the_winning_hand_marks_the_match_finished_and_undo_reopens_it(user):
    match = make_match(user, hands=[ORDERED, SWEEP])
    assert match.finished is not None
    record_hands(reload(match), [ORDERED])
    assert Match.objects.get(pk=match.pk).finished is None
    assert Match.objects.in_progress().count() == 1


@pytest.mark.parametrize(
    "fields",
    [{"dropped": False, "tricks": 6}, {"dropped": True, "tricks": 2}, {"dropped": False}],
)
def test_the_database_refuses_an_impossible_play(user, fields):
    match = make_match(user, hands=[CLUB])
    hand = Hand.objects.get(match=match)
    player = Player.objects.create(group=Group.home(user), name="Zed")
    with pytest.raises(IntegrityError), transaction.atomic():
        Play.objects.create(hand=hand, player=player, **fields)


def test_the_database_refuses_a_second_hand_with_the_same_number(user):
    match = make_match(user, hands=[CLUB])
    with pytest.raises(IntegrityError), transaction.atomic():
        Hand.objects.create(match=match, number=1, upcard="hearts")


def test_a_player_keeps_one_name_per_owner(user):
    Player.objects.create(group=Group.home(user), name="Ann")
    with pytest.raises(IntegrityError), transaction.atomic():
        Player.objects.create(group=Group.home(user), name="Ann")


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
    assert Match.objects.count() == 2 and first.group == Group.home(user)


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
    assert Match.objects.filter(group__home_of=user).count() == 3
    assert Match.objects.filter(group__home_of=other_user).count() == 2


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


def test_import_takes_the_backup_zip_back_file_by_file(user, other_user, tmp_path):
    first, second = make_match(user, hands=[CLUB]), make_match(user, "spades-21")
    backup = tmp_path / "backup.zip"
    command("export_match", "--all", "--user", "ann", str(tmp_path / "files"))
    with zipfile.ZipFile(backup, "w") as archive:
        for match in (first, second):
            archive.write(tmp_path / "files" / match.file_name(), match.file_name())
    code, out, err = command("import_match", str(backup), "--user", "eve")
    theirs = Match.objects.filter(group__home_of=other_user).order_by("pk")
    assert code == 0 and err == ""
    assert out.splitlines() == [
        f"{backup}/{first.file_name()}: {theirs[0].pk}",
        f"{backup}/{second.file_name()}: {theirs[1].pk}",
    ]
    code, out, _ = command("import_match", str(backup), "--user", "ann")
    assert code == 0 and out.splitlines() == [
        f"{backup}/{first.file_name()}: {first.pk} (already imported)",
        f"{backup}/{second.file_name()}: {second.pk} (already imported)",
    ]


def test_import_refuses_a_zip_bomb_before_unpacking_it(user, tmp_path, monkeypatch):
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("a.json", json.dumps(PLAYED))
        archive.writestr("huge.json", b" " * 50_000_000)
    assert bomb.stat().st_size < 100_000
    monkeypatch.setattr(zipfile.ZipFile, "open", lambda *a, **k: pytest.fail("unpacked"))
    code, out, err = command("import_match", str(bomb))
    assert code == 1 and out == ""
    assert f"{bomb}: nothing imported. huge.json in that zip is too large" in err
    assert not Match.objects.exists()


def test_import_for_a_user_not_yet_here_makes_their_account(user, files, tmp_path):
    code, out, err = command("import_match", *files(EXAMPLE), "--user", "zed")
    pk = int(out.split(": ")[1])
    assert code == 0 and Match.objects.get(pk=pk).group.home_of.username == "zed"
    assert "Stored under a new account, zed (no password yet)." in err
    code, out, _ = command("export_match", "--all", "--user", "zed", str(tmp_path / "zed"))
    assert code == 0 and len(list((tmp_path / "zed").iterdir())) == 1
    # Nothing stored, no account made; a name no account can have is refused before anything.
    twice = json.loads(json.dumps(EXAMPLE).replace('"Cat"', '"ann"'))  # refused on import
    for bad in ("{not json", twice):
        code, _, err = command("import_match", *files(bad), "--user", "yan")
        assert code == 1 and not get_user_model().objects.filter(username="yan").exists()
        assert "new account" not in err
    # A --user in other capitals than an account's is that account, as the sign-up finds it.
    code, out, err = command("import_match", *files(EXAMPLE), "--user", "ZED")
    assert code == 0 and "new account" not in err
    assert Match.objects.get(pk=int(out.split(": ")[1])).group.home_of.username == "zed"
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="--user: Enter a valid username"):
        call_command("import_match", *files(EXAMPLE), "--user", "two words")


def test_import_on_an_empty_database_creates_an_owner(db, files):
    code, out, err = command("import_match", *files(EXAMPLE))
    pk = int(out.split(": ")[1])
    assert Match.objects.get(pk=pk).group.home_of.username == "scorekeeper"
    assert "scorekeeper" in err


def test_export_all_writes_every_match_of_the_user_and_they_import_back_as_the_same(
    user, other_user, tmp_path
):
    mine = [make_match(user, hands=[ORDERED]), make_match(user, "short-15", set_penalty=None)]
    make_match(other_user)
    code, out, _ = command("export_match", "--all", "--user", "ann", str(tmp_path / "backup"))
    written = {path.name: path for path in (tmp_path / "backup").iterdir()}
    assert code == 0 and len(out.splitlines()) == 2
    assert sorted(written) == sorted(match.file_name() for match in mine)
    for match in mine:
        text = written[match.file_name()].read_text()
        assert matchfile.parse(text).same_as(reload(match).to_file())
    code, out, _ = command("import_match", *map(str, written.values()), "--user", "ann")
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
    match = match_from_file(user, matchfile.parse(json.dumps(doc)))
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


# --- The stored verdict: each seat's result, true to a replay ------------------------------


def test_a_match_without_stored_results_is_folded_from_its_hands(user):
    match = make_match(user, hands=[ORDERED, CLUB])
    Result.objects.filter(match=match).delete()
    state, _ = rules.replay(match.start(), match.game_hands())
    assert reload(match).stored_state() == state
    assert Match.objects.with_results().get(pk=match.pk).stored_state() == state


def test_the_latest_hands_replay_from_the_verdict_stored_before_them(user):
    hands = [ORDERED, CLUB, ORDERED, CLUB, CLUB, ORDERED, CLUB]
    match = reload(make_match(user, hands=hands))
    state, results = match.replay()
    latest_state, latest = match.replay_latest(3)
    assert (latest_state, latest) == (state, results[-3:])
    # The page read the match before another phone saved a hand or undid two: still true.
    match.hands_played = 6
    assert match.replay_latest(3) == (state, results[-4:])
    for stale in (9, 20):
        match.hands_played = stale
        assert match.replay_latest(3) == (state, results)
    # A verdict not stored (rows written outside the app): the whole match is folded.
    Hand.objects.filter(match=match, number=5).update(dealer=None)
    assert reload(match).replay_latest(3) == (state, results)
    Hand.objects.filter(match=match, number=4).update(scores=None)
    assert reload(match).replay_latest(3) == (state, results)
    Hand.objects.filter(match=match).update(dealer=0, scores=[0] * 4, sets=[0] * 4)
    Hand.objects.filter(match=match, number=6).update(number=60)  # a gap in the numbers
    assert reload(match).replay_latest(3) == reload(match).replay()


def test_the_state_before_a_hand_is_read_from_the_verdict_stored_before_it(
    user, django_assert_num_queries
):
    hands = [ORDERED, CLUB, ORDERED, CLUB, SWEEP]
    match = reload(make_match(user, hands=hands))
    with django_assert_num_queries(1):  # the names are read already: one statement
        state, hand = match.state_before(5)
    assert hand == SWEEP and state == rules.replay(match.start(), hands[:4])[0]
    over, hand = match.state_before(6)
    assert hand is None and over.finished and over.winners == ("Cat",) and over.won_by == "sweep"
    # Rows not as the app writes them: the hands are folded instead, to the same answer.
    Hand.objects.filter(match=match, number=3).update(scores=None)
    Hand.objects.filter(match=match, number=4).update(dealer=None)
    assert_the_state_before_each_hand_is_a_replay(match)
    Hand.objects.filter(match=match, number=2).update(sets=[0, 0])  # seats changed meanwhile
    assert_the_state_before_each_hand_is_a_replay(match)


def test_a_new_match_has_a_result_for_every_seat_before_any_hand(user):
    match = make_match(user, "three-15", names=("Ann", "Bob", "Cat"), dealer="Cat")
    assert list(match.results.values_list("player__name", "score", "won")) == [
        ("Ann", 15, False),
        ("Bob", 15, False),
        ("Cat", 15, False),
    ]
    assert match.version == 0 and reload(match).next_dealer == 2


def test_the_results_of_a_finished_match_hold_the_money_and_the_counts(user):
    match = make_match(user, hands=[ORDERED, CLUB, SWEEP], stakes=rules.Stakes(100, 10, 25))
    rows = {r.player.name: r for r in match.results.select_related("player")}
    assert [name for name, r in rows.items() if r.won] == ["Cat"]
    # Each loser pays $1.00 + 10¢ a point + 25¢ a hand fallen short (§6).
    assert rows["Ann"].net_cents == -(100 + 10 * 28 + 25 * 1)  # no trick in hand 1
    assert rows["Bob"].net_cents == -(100 + 10 * 21)
    assert rows["Cat"].net_cents == sum(-r.net_cents for n, r in rows.items() if n != "Cat")
    bob = {f: getattr(rows["Bob"], f) for f in rules.Tally.__dataclass_fields__}
    assert bob == asdict(
        rules.Tally(dealt_in=3, stayed_in=2, could_drop=1, made_trump=1, made=1, points=-4)
    )
    assert_results_are_a_replay(match)


def test_undo_of_the_winning_hand_takes_back_the_win_and_the_money(user):
    match = make_match(user, hands=[ORDERED, SWEEP], stakes=rules.Stakes(100))
    assert reload(match).results.filter(won=True).count() == 1
    undo_hand(reload(match), 2, reload(match).version)
    assert not Result.objects.filter(match=match, won=True).exists()
    assert set(Result.objects.filter(match=match).values_list("net_cents", flat=True)) == {0}
    assert_results_are_a_replay(match)


def test_a_refused_change_leaves_the_results_as_they_were(user):
    match = make_match(user, hands=[ORDERED, CLUB])
    before = list(Result.objects.filter(match=match).values(*RESULT_FIELDS))
    bad = GameHand("hearts", "hearts", "Bob", None, ("Bob",), {"Ann": 2, "Cat": 2, "Dan": 1})
    with pytest.raises(rules.RuleError):
        change_hand(reload(match), 1, bad, reload(match).version)
    assert list(Result.objects.filter(match=match).values(*RESULT_FIELDS)) == before


def test_the_admins_change_of_the_rows_is_followed_by_the_results(user):
    match = make_match(user, hands=[CLUB])
    Play.objects.filter(hand__match=match, player__name="Ann").update(tricks=1)
    Play.objects.filter(hand__match=match, player__name="Bob").update(tricks=2)
    record_hands(reload(match), reload(match).game_hands())  # what the admin does after an edit
    assert Result.objects.get(match=match, player__name="Bob").score == 23
    assert reload(match).version == 1  # only changes made through the app move it
    assert_results_are_a_replay(match)


PRESETS_TRIED = ["standard", "spades-21", "three-15", "dirty-clubs", "short-15"]


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    preset=st.sampled_from(PRESETS_TRIED),
    seed=st.integers(0, 10**6),
    steps=st.lists(
        st.tuples(
            st.sampled_from(["add", "add", "add", "change", "undo", "record"]), st.integers()
        ),
        max_size=25,
    ),
)
def test_every_write_keeps_the_results_true_to_a_replay(user, preset, seed, steps):
    with fresh_database():  # no example meets another's matches, players or night
        write_and_check(user, preset, seed, steps)


def write_and_check(user, preset, seed, steps):
    rnd = random.Random(seed)
    ruleset = rules.make_ruleset(preset, starting_score=8 if preset != "spades-21" else 6)
    names = TABLE[: rnd.choice(ruleset.players)]
    stakes = rules.Stakes(rnd.choice([0, 100]), rnd.choice([0, 10]), rnd.choice([0, 25]))
    match = create_match(user, preset, ruleset, stakes, names, names[-1])
    for kind, n in steps:
        match = reload(match)
        hands = match.game_hands()
        try:
            if kind == "add":
                state, _ = match.replay(hands)
                add_hand(match, len(hands) + 1, random_hand(state, rnd), match.version)
            elif kind == "change" and hands:
                number = n % len(hands) + 1
                state, _ = match.replay(hands[: number - 1])
                change_hand(match, number, random_hand(state, rnd), match.version)
            elif kind == "undo" and hands:
                undo_hand(match, len(hands), match.version)
            elif kind == "record":
                record_hands(match, hands[: n % (len(hands) + 1)])
        except rules.RuleError:
            pass  # a hand after the end, or a change that breaks a later hand: nothing stored
        assert_results_are_a_replay(match)


@pytest.mark.django_db(transaction=True)
def test_matches_stored_before_results_get_stakes_in_cents_results_and_nights():
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    before = [("games", "0003_match_share_token")]
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes()
    executor.migrate(before)
    try:
        old = executor.loader.project_state(before).apps
        owner = old.get_model("auth", "User").objects.create(username="ann")
        players = {
            name: old.get_model("games", "Player").objects.create(owner_id=owner.pk, name=name)
            for name in TABLE
        }

        def old_match(played_at, hands, **fields):
            match = old.get_model("games", "Match").objects.create(
                owner_id=owner.pk,
                preset="standard",
                options=rules.make_ruleset("standard").options(),
                first_dealer=3,
                played_at=played_at,
                **fields,
            )
            for position, name in enumerate(TABLE):
                old.get_model("games", "Seat").objects.create(
                    match=match, player=players[name], position=position
                )
            for number, hand in enumerate(hands, 1):
                row = old.get_model("games", "Hand").objects.create(
                    match=match,
                    number=number,
                    upcard=hand.upcard,
                    trump=hand.trump or "",
                    maker=players.get(hand.maker),
                )
                for name in hand.dropped:
                    old.get_model("games", "Play").objects.create(
                        hand=row, player=players[name], dropped=True
                    )
                for name, tricks in hand.tricks.items():
                    old.get_model("games", "Play").objects.create(
                        hand=row, player=players[name], tricks=tricks
                    )
            return match.pk

        evening = datetime(2026, 11, 28, 19, 30, tzinfo=ZoneInfo("America/Chicago"))
        first = old_match(
            evening,
            [ORDERED, CLUB, SWEEP],
            per_game="1.00",
            per_point="0.10",
            finished=timezone.now(),
        )
        late = old_match(evening + timedelta(hours=5), [CLUB])
        next_week = old_match(evening + timedelta(days=7), [])
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(latest)
    match = Match.objects.with_seats().get(pk=first)
    assert match.stakes() == rules.Stakes(per_game=100, per_point=10)
    assert match.hands_played == 3 and match.finished is not None
    assert Result.objects.get(match=match, won=True).player.name == "Cat"
    for pk in (first, late, next_week):
        assert_results_are_a_replay(Match.objects.get(pk=pk))
    nights = [Match.objects.get(pk=pk).night_id for pk in (first, late, next_week)]
    assert nights[0] == nights[1] != nights[2]


# --- Nights ---------------------------------------------------------------------------------

EVENING = datetime(2026, 11, 28, 19, 30, tzinfo=ZoneInfo("America/Chicago"))
BOB_SWEEPS = GameHand("hearts", "hearts", "Bob", None, ("Ann", "Cat", "Dan"), {"Bob": 5})
CAT_SWEEPS = SWEEP


def played(user, at, hands=(), names=TABLE, stakes=None):
    """A standard match begun `at`, by default for $1.00 a game and 10¢ a point."""
    stakes = rules.Stakes(100, 10) if stakes is None else stakes
    return create_match(
        user, "standard", rules.make_ruleset("standard"), stakes, names, names[-1], hands, at
    )


def test_a_night_is_titled_with_its_hour_only_where_another_began_the_same_day(user):
    evening = played(user, EVENING)  # Saturday 7:30 p.m.
    past_midnight = played(user, EVENING + timedelta(hours=5))  # Sunday 0:30, the same night
    assert evening.night_id == past_midnight.night_id
    sunday = played(user, EVENING + timedelta(hours=20))  # Sunday 3:30 p.m.: a night of its own
    assert sunday.night_id != evening.night_id
    # Saturday's night has a match on Sunday too, but began on Saturday: Sunday's is alone.
    assert str(reload(sunday).night) == "The night of Sunday 29 November 2026"
    move_match(past_midnight, None)  # now a night begun on Sunday, as Sunday's
    assert str(reload(sunday).night) == "The night of Sunday 29 November 2026, from 3:30 p.m."
    assert str(reload(past_midnight).night).endswith(", from 12:30 a.m.")
    assert str(reload(evening).night) == "The night of Saturday 28 November 2026"


def test_matches_begun_the_same_evening_share_a_night_past_midnight_too(user):
    first = played(user, EVENING)
    late = played(user, EVENING + timedelta(hours=4, minutes=50))  # 00:20
    later = played(user, EVENING + timedelta(hours=8))  # 03:30, 3 h 10 after the last
    next_day = played(user, EVENING + timedelta(hours=22))
    assert first.night == late.night == later.night != next_day.night
    assert first.night.started() == EVENING.date()
    assert str(first.night) == "The night of Saturday 28 November 2026"


def test_an_import_out_of_order_groups_by_when_each_match_began(user, files):
    docs = [
        dict(PLAYED, played_at=f"2026-11-{day}T{hour}:00:00-06:00", hands=[])
        for day, hour in [("29", "00"), ("28", "19"), ("28", "13"), ("28", "22"), ("30", "19")]
    ]
    code, out, _ = command("import_match", *files(*docs))
    assert code == 0 and len(out.splitlines()) == 5
    nights = [Match.objects.get(pk=int(line.split(": ")[1])).night_id for line in out.splitlines()]
    # 13:00, 19:00, 22:00 and 00:00 follow one another within 6 hours; the 30th is apart.
    assert nights[0] == nights[1] == nights[2] == nights[3] != nights[4]


def test_a_match_moves_to_another_night_or_a_new_one_and_keeps_its_version(user):
    a = played(user, EVENING, hands=[CLUB])
    b = played(user, EVENING + timedelta(hours=1))
    other = played(user, EVENING + timedelta(days=7))
    move_match(b, other.night)
    assert reload(b).night == other.night and reload(b).version == 0
    alone = move_match(a, None)
    assert reload(a).night == alone and reload(a).version == 1
    assert Night.objects.filter(group__home_of=user).count() == 2  # a's old night was left empty


def test_a_nights_settle_up_sums_each_players_net_and_pays_in_the_fewest_transfers(user):
    played(user, EVENING, hands=[BOB_SWEEPS])  # Ann, Cat and Dan pay Bob $1.00 + 25 × 10¢
    played(user, EVENING + timedelta(hours=1), hands=[CAT_SWEEPS])  # and then Cat
    played(user, EVENING + timedelta(hours=2), hands=[CLUB])  # not finished: settles nothing
    played(user, EVENING + timedelta(hours=3), hands=[BOB_SWEEPS], stakes=rules.Stakes())
    [usd] = Match.objects.first().night.settle_up()
    assert usd.currency == "USD"
    assert usd.net == {"Ann": -700, "Bob": 700, "Cat": 700, "Dan": -700}
    assert [(t.payer, t.payee, t.cents) for t in usd.transfers] == [
        ("Ann", "Bob", 700),
        ("Dan", "Cat", 700),
    ]


def test_each_currency_of_a_night_is_settled_on_its_own(user):
    played(user, EVENING, hands=[BOB_SWEEPS])
    played(
        user,
        EVENING + timedelta(hours=1),
        hands=[CAT_SWEEPS],
        stakes=rules.Stakes(200, 0, 0, "EUR"),
    )
    eur, usd = Match.objects.first().night.settle_up()
    assert (eur.currency, usd.currency) == ("EUR", "USD")
    assert eur.net == {"Ann": -200, "Bob": -200, "Cat": 600, "Dan": -200}
    assert usd.net["Bob"] == 3 * 350 and len(usd.transfers) == 3
    assert usd.net["Cat"] == -350 and "Cat:Ann" not in [usd.key(t) for t in usd.transfers]


def test_a_transfer_marked_paid_is_a_payment_that_stays_when_the_transfers_change(user):
    match = played(user, EVENING, hands=[BOB_SWEEPS])
    night = match.night
    settle_up = night.settle_up()
    seen = Night.fingerprint(settle_up)
    usd = settle_up[0]
    ann_pays = usd.key(usd.transfers[0])
    assert mark_transfer(night, ann_pays, True, seen, by=user)
    assert mark_transfer(night, ann_pays, True, seen)  # a second tap records nothing more
    assert reload(match).version == 1  # the hands' version never moves for money
    payment = Payment.objects.get()
    assert (payment.payer.name, payment.payee.name, payment.amount_cents) == ("Ann", "Bob", 350)
    assert (payment.currency, payment.night, payment.recorded_by) == ("USD", night, user)
    assert usd.covered(usd.transfers[0], night.paid_cents())
    assert not mark_transfer(night, "USD:Bob:Ann", True, seen)  # no such payment
    played(user, EVENING + timedelta(hours=1), hands=[CAT_SWEEPS])
    assert Payment.objects.get() == payment  # the money moved: the payment stays as it was
    usd = night.settle_up()[0]
    assert usd.transfers[0] == rules.Payment("Ann", "Bob", 700)  # half of it paid now
    assert night.paid_cents() == {ann_pays: 350} and not usd.covered(usd.transfers[0], {})
    assert not usd.covered(usd.transfers[0], night.paid_cents())
    assert not mark_transfer(night, ann_pays, False, seen)  # from a page drawn before the change
    assert Payment.objects.count() == 1
    now = Night.fingerprint([usd])
    assert mark_transfer(night, ann_pays, True, now)  # the rest of it
    assert sorted(night.payments.values_list("amount_cents", flat=True)) == [350, 350]
    assert usd.covered(usd.transfers[0], night.paid_cents())
    assert mark_transfer(night, ann_pays, False, now)  # not paid after all: both go
    assert not Payment.objects.exists()


def test_import_rename_and_merge_keep_the_results_true_to_a_replay(user):
    imported = match_from_file(user, matchfile.parse(json.dumps(PLAYED)))
    rob_made = GameHand("hearts", "spades", "Rob", None, ("Cat",), {"Ann": 1, "Rob": 3, "Dan": 1})
    rob_club = GameHand("clubs", tricks={"Ann": 1, "Rob": 2, "Cat": 1, "Dan": 1})
    other = make_match(user, names=("Ann", "Rob", "Cat", "Dan"), hands=[rob_made, rob_club])
    assert_results_are_a_replay(imported)
    bob, rob = Player.objects.get(name="Bob"), Player.objects.get(name="Rob")
    bob.rename("Robert")
    bob.merge(rob)
    for match in (imported, other):
        assert_results_are_a_replay(match)
        assert reload(match).names[1] == "Robert"
    assert Result.objects.filter(player=bob).count() == 2
    assert reload(other).version == 1  # neither moves a version: the hands are the same


def named(hand: GameHand, **new) -> GameHand:
    """`hand` with players called by other names."""
    return replace(
        hand,
        maker=new.get(hand.maker, hand.maker),
        dropped=tuple(new.get(n, n) for n in hand.dropped),
        tricks={new.get(n, n): t for n, t in hand.tricks.items()},
    )


def test_a_hand_entered_before_a_rename_is_saved_for_the_same_seats(user):
    match = make_match(user, hands=[CLUB])
    page = reload(match)
    assert page.names == ("Ann", "Bob", "Cat", "Dan")  # the table as the page showed it
    Player.objects.get(name="Bob").rename("Robert")
    add_hand(page, 2, ORDERED, page.version)  # entered as Bob's
    assert reload(match).game_hands() == [named(CLUB, Bob="Robert"), named(ORDERED, Bob="Robert")]
    assert_results_are_a_replay(match)


def test_a_hand_changed_before_a_merge_is_saved_for_the_same_seats(user):
    make_match(user)
    bo_club = named(CLUB, Bob="Bo")
    match = make_match(user, names=("Ann", "Bo", "Cat", "Dan"), hands=[bo_club, bo_club])
    page = reload(match)
    bob, bo = Player.objects.get(name="Bob"), Player.objects.get(name="Bo")
    stale = Player.objects.get(name="Bo")  # as another page read it
    assert bob.merge(bo) == 1
    change_hand(page, 1, named(ORDERED, Bob="Bo"), page.version)  # entered as Bo's
    assert reload(match).game_hands() == [ORDERED, CLUB]
    assert_results_are_a_replay(match)
    with pytest.raises(rules.RuleError, match="Bo was just merged into another player"):
        bob.merge(stale)  # sent again from the same page
    with pytest.raises(rules.RuleError, match="Bo was just merged into another player"):
        stale.rename("Bobby")


def test_two_players_of_one_match_are_refused_in_words_and_nothing_changes(user):
    match = make_match(user, hands=[CLUB])
    bob, cat = Player.objects.get(name="Bob"), Player.objects.get(name="Cat")
    with pytest.raises(rules.RuleError, match="both played in the match of .* two people"):
        bob.merge(cat)
    assert reload(match).names == ("Ann", "Bob", "Cat", "Dan")
    with pytest.raises(rules.RuleError, match="There is already a player called Cat"):
        bob.rename(" Cat ")
    assert_results_are_a_replay(match)


def test_a_name_in_other_capitals_or_spaces_seats_the_player_already_saved(user):
    first = make_match(user, hands=[CLUB])
    low = GameHand("clubs", tricks={"ann": 2, "BOB": 1, " cat ": 1, "Dan": 1})
    again = make_match(user, names=("ann", "BOB", " cat ", "Dan"), dealer="ann", hands=[low])
    assert reload(again).names == ("Ann", "Bob", "Cat", "Dan")  # the spelling first saved
    assert Player.objects.filter(group__home_of=user).count() == 4
    assert_results_are_a_replay(again)
    assert reload(again).first_dealer == 0 and reload(first).names == reload(again).names


def test_one_person_in_two_spellings_is_never_seated_twice(user):
    with pytest.raises(rules.RuleError, match="Ann and ann are one name"):
        make_match(user, names=("Ann", "Bob", "ann", "Dan"))
    assert not Match.objects.exists() and not Player.objects.exists()


def test_a_file_seating_one_person_in_two_spellings_replays_but_does_not_import(files, user):
    """A file's table is its names as written (docs/format.md): "Ann" and "ann" are two
    names, so replay plays it; a group's players are people, so the import refuses it."""
    doc = json.loads(json.dumps(EXAMPLE).replace('"Cat"', '"ann"'))
    [path] = files(doc)
    code, out, _ = command("replay", path)
    assert code == 0 and "ann" in out
    code, out, err = command("import_match", path, "--user", user.username)
    assert code == 1 and out == ""
    assert "Ann and ann are one name" in err and "(bad_table)" in err
    assert not Match.objects.exists() and not Player.objects.exists()


def test_a_rename_to_another_players_name_in_other_capitals_is_refused(user):
    make_match(user, hands=[CLUB])
    bob = Player.objects.get(name="Bob")
    with pytest.raises(rules.RuleError, match="There is already a player called Cat"):
        bob.rename("  CAT ")
    bob.rename("BOB")  # their own name in new capitals is a new spelling of it
    assert Player.objects.get(pk=bob.pk).name == "BOB"


def test_the_largest_stakes_and_scores_fit_their_columns(user):
    from games.models import Result

    # Near what a loser may owe at most (settings.MAX_LOSS_CENTS), a game, from five losers.
    big = rules.Stakes(per_game=rules.MAX_STAKE_CENTS)
    names = ("Ann", "Bob", "Cat", "Dan", "Eve", "Fay")
    dropped = ("Ann", "Cat", "Dan", "Eve", "Fay")
    sweep = GameHand("hearts", "hearts", "Bob", None, dropped, {"Bob": 5})
    match = make_match(user, names=names, dealer="Fay", stakes=big, hands=[sweep], players=(6,))
    state, _ = match.replay()
    _, net = rules.settle(state, big)
    stored = {r.player.name: r.net_cents for r in Result.objects.filter(match=match)}
    assert stored == net and net["Bob"] == 5 * rules.MAX_STAKE_CENTS


@pytest.mark.parametrize(
    "amounts",
    [
        [3 * 10**8, 3 * 10**8, 3 * 10**8 - 1, 7],  # the most a match of four can win
        [-(10**8), -(10**8), -(10**8), -5],  # the most a loser may owe (MAX_LOSS_CENTS)
        [3 * 10**8, -(10**8) + 3, -(2**26), 2**26 - 1, -1, 0],
    ],
)
def test_money_adds_up_exactly_whatever_the_signs(user, amounts):
    stakes = rules.Stakes(per_game=100)
    matches = [make_match(user, stakes=stakes, hands=[SWEEP]) for _ in amounts]
    ann, bob = Player.objects.get(name="Ann"), Player.objects.get(name="Bob")
    for match, cents in zip(matches, amounts, strict=True):
        Result.objects.filter(match=match).update(net_cents=0)
        Result.objects.filter(match=match, player=ann).update(net_cents=cents)
        Result.objects.filter(match=match, player=bob).update(net_cents=-cents)
    assert ann.results.money() == {"USD": sum(amounts)}
    assert bob.results.money_by_preset() == {"standard": {"USD": -sum(amounts)}}
    # The night's settle-up reads its stored sums: the results were edited behind them.
    recount_sums(Player.objects.values_list("pk", flat=True))
    [settle_up] = Night.objects.get(group__home_of=user).settle_up()
    assert settle_up.net == {"Ann": sum(amounts), "Bob": -sum(amounts), "Cat": 0, "Dan": 0}


def test_the_suits_a_hand_and_the_forms_offer_are_the_rules_suits():
    from games.forms import HandForm
    from games.words import CHOICE_WORDS

    named = [(s, words.suit_label(s)) for s in rules.SUITS]
    assert Hand._meta.get_field("upcard").choices == named
    assert Hand._meta.get_field("trump").choices == [*named, (rules.NO_TRUMP, "No trump")]
    form = HandForm(rules.new_match(rules.Ruleset(), TABLE, "Dan"))
    assert form.fields["upcard"].choices == form.fields["trump"].choices == named
    assert CHOICE_WORDS["auto_trump"] == [*named, ("null", "None")]


def test_a_match_is_played_for_money_in_the_database_as_the_engine_says(user):
    every = [rules.Stakes(*cents) for cents in ((0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1))]
    matches = {make_match(user, hands=[SWEEP], stakes=stakes).pk: stakes for stakes in every}
    staked = set(Result.objects.filter(STAKED).values_list("match", flat=True))
    assert staked == {pk for pk, stakes in matches.items() if stakes}
    assert [bool(stakes) for stakes in every] == [False, True, True, True]


@settings(max_examples=5, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(PRESETS_TRIED))
def test_each_example_of_a_property_starts_from_the_fixtures_database(user, preset):
    with fresh_database():
        assert not Match.objects.exists()  # the match an earlier example made is gone
        make_match(user)
        assert Match.objects.count() == 1
