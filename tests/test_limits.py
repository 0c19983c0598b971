"""The money limits (settings.MAX_LOSS_CENTS, settings.MAX_GROUP_MATCHES): a match, an edit
or an import past them is refused in words, however it comes in."""

import json

import pytest
from django.core.exceptions import ValidationError

from games import rules
from games.models import MAX_HANDS, Group, Match, group_balances, record_hands

from .conftest import command, make_match, url
from .matches import EXAMPLE, NEW_MATCH, nets_by_night

pytestmark = pytest.mark.django_db

# Standard rules: at worst 5,025 points (25 + 5 a hand over 1,000 hands), 1,000 sets.
OVER = (
    "At these stakes one loser could owe up to 1,000,050.25 in a match (a match of 1,000 hands "
    "under these rules can reach 5,025 points and 1,000 hands fallen short); the most one "
    "loser may owe in a match is 1,000,000. Lower the stakes."
)
OVER_FILE = {**EXAMPLE, "stakes": {"per_game": "25.00", "per_point": "199.01"}}
FULL = (
    "A group keeps at most 2 matches, and this one has that many: start another group for the "
    "next ones."
)


def upload(name, doc):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile(name, json.dumps(doc).encode(), content_type="application/json")


def test_the_most_a_loser_can_owe_follows_the_rules():
    standard = rules.make_ruleset("standard")
    stakes = rules.Stakes(per_game=100, per_point=10, per_set=1)
    assert rules.most_owed(standard, stakes, MAX_HANDS) == (100 + 10 * 5_025 + 1_000, 5_025, 1_000)
    # A penalty never passes the start with cap_at_start; a missed moon is two hands short.
    capped = rules.make_ruleset("dirty-clubs-up")
    assert rules.most_owed(capped, stakes, 1_000)[1:] == (15, 2_000)
    # The larger penalty counts, a set's or a hand without a trick's.
    odd = rules.make_ruleset("standard", set_penalty=None, zero_trick_penalty=8)
    assert rules.most_owed(odd, stakes, 10)[1] == 25 + 80


def test_a_match_a_loser_could_owe_too_much_in_is_refused_in_words(user):
    with pytest.raises(rules.RuleError, match=OVER.replace("(", r"\(").replace(")", r"\)")):
        make_match(user, stakes=rules.Stakes(per_game=2_500, per_point=19_901))
    make_match(user, stakes=rules.Stakes(per_game=2_500, per_point=19_900))  # the limit itself
    assert Match.objects.count() == 1


def test_the_new_match_form_refuses_stakes_past_the_limit(client_in):
    data = {**NEW_MATCH, "create": "1", "per_game": "25.00", "per_point": "199.01"}
    page = client_in.post(url("match_create"), data).content.decode()
    assert OVER in page and not Match.objects.exists()


def test_an_import_past_the_limit_is_refused_in_words(client_in, files):
    page = client_in.post(
        url("match_import"), {"file": upload("big.json", OVER_FILE)}, follow=True
    ).content.decode()
    assert f"big.json: Nothing was imported. {OVER}" in page
    [path] = files(OVER_FILE)
    code, out, err = command("import_match", path)
    assert code == 1 and out == "" and f"{path}: nothing imported. {OVER} (bad_file)" in err
    assert not Match.objects.exists()


def test_the_admins_edit_of_stakes_or_rules_past_the_limit_is_refused(user):
    match = make_match(user, stakes=rules.Stakes(per_game=2_500, per_point=19_900))
    match.full_clean()
    match.per_point_cents += 1
    with pytest.raises(ValidationError, match="the most one loser may owe in a match is"):
        match.full_clean()
    match.per_point_cents -= 1
    match.options = {**match.options, "zero_trick_penalty": 6}  # more points to reach
    with pytest.raises(ValidationError, match="can reach 6,025 points"):
        match.full_clean()


def test_a_match_kept_from_before_the_limits_can_still_be_edited_but_not_its_stakes(user):
    match = make_match(user, stakes=rules.Stakes(per_game=2_500, per_point=19_900))
    # Past today's limit, as a match stored before the limits could be.
    Match.objects.filter(pk=match.pk).update(per_point_cents=1_000_000)
    match.refresh_from_db()
    match.played_at = match.played_at.replace(year=2025)
    match.full_clean()  # its own stakes are kept
    match.per_point_cents += 1
    with pytest.raises(ValidationError, match="the most one loser may owe in a match is"):
        match.full_clean()


def test_the_refusal_stands_by_the_stake_that_costs_most(client_in):
    # Dirty Clubs counted up: points are capped at the start, but a moon missed is two hands
    # short: the set's stake is what passes the limit, and the form says so by that field.
    data = {**NEW_MATCH, "create": "1", "preset": "dirty-clubs-up", "per_game": "0.25"}
    errors = (
        client_in.post(url("match_create"), {**data, "per_set": "500.01"}).context["form"].errors
    )
    assert list(errors) == ["per_set"] and "Lower the stakes." in errors["per_set"][0], errors
    assert not Match.objects.exists()


def test_a_group_keeps_at_most_so_many_matches(client_in, user, settings, files):
    settings.MAX_GROUP_MATCHES = 2
    first = make_match(user, stakes=rules.Stakes(per_game=100))
    make_match(user)
    with pytest.raises(rules.RuleError, match=FULL):
        make_match(user)
    page = client_in.post(url("match_create"), {**NEW_MATCH, "create": "1"}).content.decode()
    assert FULL in page
    response = client_in.post(url("match_rematch", first.pk), follow=True)
    assert FULL in response.content.decode()
    page = client_in.post(
        url("match_import"), {"file": upload("m.json", EXAMPLE)}, follow=True
    ).content.decode()
    assert f"m.json: Nothing was imported. {FULL}" in page
    [path] = files(EXAMPLE)
    code, _, err = command("import_match", path, "--user", user.username)
    assert code == 1 and f"{path}: nothing imported. {FULL} (bad_file)" in err
    unsaved = Match(group=Group.home(user), preset="standard", options={}, currency="USD")
    with pytest.raises(ValidationError, match="A group keeps at most 2 matches"):
        unsaved.clean()
    assert Match.objects.count() == 2
    # Another group has room of its own.
    make_match(Group.objects.create(name="Tuesdays"))
    assert Match.objects.count() == 3


NAMES = ("Ann", "Bob", "Cat", "Dan", "Eve", "Fay")


def at_the_limit(user, many):
    """A match of six not yet played (a cent a game), and before it `many` finished matches
    at the most a match can move, stored behind the app (five losers each owing
    MAX_LOSS_CENTS, Ann collecting it all), their players summed anew: (match, players)."""
    from datetime import timedelta

    from django.conf import settings

    from games.models import Result, recount_sums

    most = settings.MAX_LOSS_CENTS
    first = make_match(
        user, names=NAMES, dealer="Fay", stakes=rules.Stakes(per_game=1), players=(6,)
    )
    players = [seat.player for seat in first.seats.all()]
    matches = Match.objects.bulk_create(
        Match(
            group=first.group,
            night=first.night,
            preset="standard",
            options=first.options,
            per_game_cents=most,
            first_dealer=5,
            played_at=first.played_at - timedelta(seconds=many - i),
            finished=first.played_at,
            hands_played=1,
        )
        for i in range(many)
    )
    Result.objects.bulk_create(
        Result(
            match=match,
            player=player,
            seat=seat,
            score=0 if seat == 0 else 25,
            won=seat == 0,
            net_cents=5 * most if seat == 0 else -most,
        )
        for match in matches
        for seat, player in enumerate(players)
    )
    recount_sums(p.pk for p in players)
    return first, players


def test_the_largest_amounts_allowed_over_many_matches_sum_exactly(user, settings):
    """Every match of a group at the most a match can move, then one more played to its end:
    every sum is exact, and so is the arithmetic of the limits against 64 bits."""
    from games.models import Night, NightSum, ResultSum, running_money

    from .test_sums import assert_sums_are_the_results_added_up

    most = settings.MAX_LOSS_CENTS
    # The largest sum a group can hold, with room to spare under 2⁶³ − 1 (settings.py).
    assert 5 * most * settings.MAX_GROUP_MATCHES * 10_000 < 2**63 - 1
    many = 2_000
    first, players = at_the_limit(user, many)
    assert_sums_are_the_results_added_up(first.group)
    sweep = rules.Hand("hearts", "hearts", "Ann", None, NAMES[1:], {"Ann": 5})
    record_hands(first, [sweep])  # the latest, its running totals carried on from the stored ones
    assert_sums_are_the_results_added_up(first.group)

    won = many * 5 * most + 5  # and a cent from each loser of the last
    ann, bob = players[:2]
    assert ann.totals()["money"] == {"USD": won}
    assert bob.totals()["money"] == {"USD": -won // 5}
    assert NightSum.objects.get(player=ann).net_cents == won
    [settle_up] = Night.objects.get(pk=first.night_id).settle_up()
    assert settle_up.net == {"Ann": won, **dict.fromkeys(NAMES[1:], -won // 5)}
    [balance] = group_balances(Group.objects.get(pk=first.group_id))
    assert balance.net == settle_up.net
    assert list(ResultSum.objects.filter(player=ann).nets().values_list("net", flat=True)) == [won]
    # Ints, never a numeric's Decimal (PostgreSQL's SUM of bigints), however they are read.
    read = [
        *ann.results.money().values(),
        *ann.results.money_by_preset()["standard"].values(),
        *(net for *_, net, _ in nets_by_night(ann.results)),
        *(net for _, _, net, _ in ResultSum.objects.filter(player=ann).nets()),
    ]
    assert read == [won] * 4 and all(type(net) is int for net in read)
    last = {"USD": {many}}  # the place of the last match, from 0
    assert running_money([ann.pk], last) == {"USD": [(first.played_at, won)]}
    # Summed by the window over both players' results, numbered together: the last.
    both = running_money([ann.pk, bob.pk], {"USD": {2 * many + 1}})
    assert both == {"USD": [(first.played_at, won - won // 5)]}
    assert type(both["USD"][0][1]) is int


@pytest.mark.django_db(transaction=True)
def test_the_migration_folds_the_halves_into_one_column_and_back(user):
    """0020 folds each pair of halves (high × 2³² + low) into one column, and back."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    from games.models import NightSum, Result, ResultSum

    from .test_sums import assert_sums_are_the_results_added_up

    first, _ = at_the_limit(user, 50)  # Ann: 2.5 × 10¹⁰, the others −5 × 10⁹: past 32 bits
    record_hands(first, [rules.Hand("hearts", "hearts", "Ann", None, NAMES[1:], {"Ann": 5})])

    def kept():
        return (
            sorted(ResultSum.objects.values_list("player", "preset", "net_cents")),
            sorted(NightSum.objects.values_list("player", "night", "net_cents")),
            sorted(Result.objects.values_list("pk", "running_place", "running_cents")),
        )

    before = kept()
    assert max(net for *_, net in before[0]) > 2**32 and min(n for *_, n in before[0]) < -(2**32)
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes()
    executor.migrate([("games", "0019_moon_and_six_seats")])
    sums, results = ResultSum._meta.db_table, Result._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT player_id, preset, net_high, net_low FROM {sums}")
        halves = sorted((p, preset, high * 2**32 + low) for p, preset, high, low in cursor)
        cursor.execute(f"SELECT id, running_place, running_high, running_low FROM {results}")
        running = sorted(
            (pk, place, None if high is None else high * 2**32 + low)
            for pk, place, high, low in cursor
        )
    assert halves == before[0] and running == before[2]
    executor = MigrationExecutor(connection)
    executor.migrate(latest)
    assert kept() == before
    assert_sums_are_the_results_added_up(first.group)
