"""The stored sums of the results (`ResultSum`, `NightSum`) and the group's version: whatever
is written, the sums are what adding up every stored result gives, and the version moves."""

import random
from dataclasses import replace
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core.management.base import CommandError
from django.db.models import Count, F, Min, Sum
from django.utils import timezone

from games import rules
from games.models import (
    STAKED,
    Group,
    Match,
    Night,
    NightSum,
    Player,
    Result,
    ResultSum,
    add_hand,
    change_hand,
    create_match,
    delete_match,
    group_balances,
    import_match,
    move_match,
    record_hands,
    recount_sums,
    run_totals,
    stat_sums,
    undo_hand,
)

from .conftest import command, make_match
from .matches import CLUB_HAND as CLUB
from .matches import nets_by_night, random_hand, random_match

pytestmark = pytest.mark.django_db

SWEEP = rules.Hand("diamonds", "spades", "Cat", None, ("Ann", "Bob", "Dan"), {"Cat": 5})
STAKES = (rules.Stakes(), rules.Stakes(per_game=100, per_point=10), rules.Stakes(per_set=25))


def stored(group) -> tuple[list, list]:
    """The group's sums as stored, row by row."""
    sums = ResultSum.objects.filter(player__group=group).order_by("player", "preset", "currency")
    nights = NightSum.objects.filter(player__group=group).order_by("night", "player", "currency")
    fields = [f.attname for f in ResultSum._meta.fields if f.name != "id"]
    night_fields = [f.attname for f in NightSum._meta.fields if f.name != "id"]
    return list(sums.values_list(*fields)), list(nights.values_list(*night_fields))


def added_up(group) -> dict[int, dict]:
    """What every player of the group's stored results add up to, from the results alone:
    the statistics (§12) overall and by preset (most played first), the money overall and by
    preset, how many finished matches were played for money and when the first began, and
    the net of each night. One
    query of the results for each, grouped by player."""
    results = Result.objects.filter(match__group=group)
    staked = results.filter(match__finished__isnull=False).filter(STAKED)
    zero = dict(results.none().aggregate(**stat_sums()))
    out = {
        pk: {"stats": zero, "by_preset": {}, "money": {}, "money_by_preset": {}}
        | {"staked": {}, "first": {}, "nights": {}}
        for pk in Player.objects.filter(group=group).values_list("pk", flat=True)
    }
    for row in results.values("player").annotate(**stat_sums()).order_by():
        out[row.pop("player")]["stats"] = row
    rows = results.values("player", "match__preset").annotate(**stat_sums())
    for row in rows.order_by("player", "-played", "match__preset"):
        out[row.pop("player")]["by_preset"][row.pop("match__preset")] = row
    rows = staked.values_list("player", "match__preset", "match__currency")
    rows = rows.annotate(n=Count("pk"), net=Sum("net_cents"), first=Min("match__played_at"))
    for player, preset, currency, n, net, first in rows.order_by(
        "player", "match__preset", "match__currency"
    ):
        mine = out[player]
        mine["money"][currency] = mine["money"].get(currency, 0) + net
        mine["money_by_preset"].setdefault(preset, {})[currency] = net
        mine["staked"][currency] = mine["staked"].get(currency, 0) + n
        mine["first"][currency] = min(mine["first"].get(currency, first), first)
    rows = staked.values_list("player", "match__night", "match__currency")
    rows = rows.annotate(net=Sum("net_cents"), started=Min("match__played_at")).order_by()
    for player, night, currency, net, started in rows:
        out[player]["nights"][night, currency] = (net, started)
    return out


def result_nets(results):
    """(currency, name, net, first) of each player with a finished match played for money
    among `results`, from the results alone: by currency, then first, then name."""
    return (
        results.finished()
        .filter(STAKED)
        .values_list("match__currency", "player__name")
        .annotate(net=Sum("net_cents"), first=Min("match__played_at"))
        .order_by("match__currency", "first", "player__name")
    )


def assert_sums_are_the_results_added_up(group):
    """Each player's sums say what their stored results add up to (`added_up`), night by
    night too, and summing every result anew (`recount_sums`) stores the same rows."""
    for pk, expected in added_up(group).items():
        summed = ResultSum.objects.filter(player=pk).summed()
        assert summed.stats == expected["stats"]
        assert summed.by_preset == expected["by_preset"]
        assert list(summed.by_preset) == list(expected["by_preset"])
        assert summed.money == dict(sorted(expected["money"].items()))
        assert list(summed.money) == sorted(expected["money"])
        assert summed.money_by_preset == expected["money_by_preset"]
        assert summed.staked == expected["staked"]
        assert summed.first == expected["first"]
        rows = NightSum.objects.filter(player=pk)
        rows = rows.values_list("night", "currency", "net_cents", "started")
        assert {(n, c): (net, at) for n, c, net, at in rows} == expected["nights"]
    nets = {
        (c, name): (net, first)
        for c, name, net, first in result_nets(Result.objects.filter(match__group=group))
    }
    for night in Night.objects.filter(group=group):  # its settle-up reads its stored sums
        rows = result_nets(Result.objects.filter(match__night=night))
        expected = [(c, name, net) for c, name, net, _ in rows]
        settle_up = night.settle_up()
        assert [(s.currency, name, net) for s in settle_up for name, net in s.net.items()] == (
            expected
        )
        assert all(sum(s.net.values()) == 0 for s in settle_up)
    summed_nets = ResultSum.objects.filter(player__group=group).nets()
    assert {(c, name): (net, first) for c, name, net, first in summed_nets} == nets
    assert [row[:2] for row in summed_nets] == list(nets)
    assert running_totals(group) == running_added_up(group)
    before = stored(group), running_totals(group)
    recount_sums(Player.objects.filter(group=group).values_list("pk", flat=True))
    assert (stored(group), running_totals(group)) == before


def running_totals(group) -> dict[int, tuple]:
    """Each result's running total as stored: (place, net so far), or None."""
    rows = Result.objects.filter(match__group=group)
    return {
        pk: None if place is None else (place, cents)
        for pk, place, cents in rows.values_list("pk", "running_place", "running_cents")
    }


def running_added_up(group) -> dict[int, tuple]:
    """Each result's running total from the results alone, in Python: its place among its
    player's finished matches played for money in its currency, in the order they began,
    and their net up to it; None for a result of a match that does not count."""
    out: dict[int, tuple | None] = {}
    totals: dict[tuple, tuple[int, int]] = {}
    rows = Result.objects.filter(match__group=group).select_related("match")
    for r in sorted(rows, key=lambda r: (r.match.played_at, r.match_id)):
        if r.match.finished is None or not r.match.stakes():
            out[r.pk] = None
            continue
        place, net = totals.get((r.player_id, r.match.currency), (0, 0))
        totals[r.player_id, r.match.currency] = out[r.pk] = (place + 1, net + r.net_cents)
    return out


def version(group) -> int:
    return Group.objects.get(pk=group.pk).version


def test_a_match_stored_hand_by_hand_is_summed_as_its_results(user):
    group = Group.home(user)
    match = make_match(user, stakes=STAKES[1])
    assert_sums_are_the_results_added_up(group)
    for number, hand in enumerate([CLUB, CLUB, SWEEP], 1):
        seen = version(group)
        match = Match.objects.get(pk=match.pk)
        add_hand(match, number, hand, match.version)
        assert version(group) > seen
        assert_sums_are_the_results_added_up(group)
    match = Match.objects.get(pk=match.pk)
    assert match.finished is not None
    undo_hand(match, 3, match.version)  # no longer finished: its money no longer counts
    assert_sums_are_the_results_added_up(group)
    assert not ResultSum.objects.filter(staked__gt=0).exists()
    assert not NightSum.objects.exists()


def test_a_match_begun_earlier_but_finished_later_moves_the_first_back(user):
    group = Group.home(user)
    now = timezone.now()
    make_match(user, stakes=STAKES[1], played_at=now, hands=[SWEEP])
    earlier = make_match(user, stakes=STAKES[1], played_at=now - timedelta(hours=2))
    add_hand(earlier, 1, SWEEP, earlier.version)
    assert_sums_are_the_results_added_up(group)
    cat = Player.objects.get(group=group, name="Cat")
    assert cat.result_sums.summed().first == {"USD": earlier.played_at}


@pytest.mark.parametrize("seed", range(6))
def test_whatever_is_written_the_sums_are_the_results_added_up(user, seed):
    """Matches begun, played, changed, undone, moved, deleted and imported, and players
    renamed and merged, at random: after every write the sums are a recount, and the group's
    version has moved on."""
    rnd = random.Random(seed)
    group = Group.home(user)
    start = timezone.now() - timedelta(days=30)
    for step in range(45):
        matches = list(Match.objects.filter(group=group).with_seats())
        seen = version(group)
        what = rnd.choice(
            ["begin", "begin", "play", "play", "play", "play", "change", "undo", "move"]
            + ["remove", "import", "rename", "merge", "admin"]
        )
        if what == "begin" or not matches:
            m = random_match(rnd, rnd.choice(sorted(rules.PRESETS)), max_hands=rnd.choice([0, 3]))
            names = (
                m.players if rnd.random() < 0.8 else ("Ann", "Bob", "Eve", "Fay")[: len(m.players)]
            )
            played_at = start + timedelta(days=rnd.randrange(20), hours=rnd.randrange(5))
            stakes = rnd.choice(STAKES)
            if rnd.random() < 0.3:
                stakes = rules.Stakes(stakes.per_game, stakes.per_point, stakes.per_set, "EUR")
            try:
                create_match(
                    group,
                    m.preset,
                    m.ruleset,
                    stakes,
                    names,
                    names[m.players.index(m.first_dealer)],
                    played_at=played_at,
                )
            except rules.RuleError:
                continue
        elif what == "play":
            match = rnd.choice(matches)
            state, _ = match.replay()
            if state.finished:
                continue
            for _ in range(rnd.randrange(1, 30)):
                if state.finished:
                    break
                match = Match.objects.with_seats().get(pk=match.pk)
                hand = random_hand(state, rnd)
                match, (state, _), _ = add_hand(match, state.hands + 1, hand, match.version)
        elif what == "change":
            match = rnd.choice(matches)
            if not match.hands_played:
                continue
            number = rnd.randrange(1, match.hands_played + 1)
            before, _ = match.state_before(number)
            try:
                change_hand(match, number, random_hand(before, rnd), match.version)
            except rules.RuleError:
                continue  # a later hand no longer fits: nothing stored
        elif what == "undo":
            match = rnd.choice(matches)
            if not match.hands_played:
                continue
            undo_hand(match, match.hands_played, match.version)
        elif what == "move":
            match = rnd.choice(matches)
            nights = list(Night.objects.filter(group=group).exclude(pk=match.night_id))
            move_match(match, rnd.choice(nights) if nights and rnd.random() < 0.7 else None)
        elif what == "remove":
            delete_match(rnd.choice(matches))
        elif what == "import":
            match = rnd.choice(matches)
            copy = match.to_file()
            later = copy.played_at + timedelta(hours=rnd.choice([0, 1, 30]))
            import_match(group, replace(copy, played_at=later))
        elif what == "rename":
            player = rnd.choice(list(Player.objects.filter(group=group)))
            try:
                player.rename(player.name + "x" if len(player.name) < 6 else player.name[:3])
            except rules.RuleError:
                continue  # another player's name
        elif what == "merge":
            players = list(Player.objects.filter(group=group))
            a, b = rnd.sample(players, 2)
            try:
                a.merge(b)
            except rules.RuleError:
                continue
        elif what == "admin":
            # What the admin does: the match's rows changed (here its currency and stakes),
            # then its verdict stored anew.
            match = rnd.choice(matches)
            Match.objects.filter(pk=match.pk).update(
                currency=rnd.choice(["USD", "EUR"]), per_game_cents=rnd.choice([0, 50])
            )
            match = Match.objects.with_seats().get(pk=match.pk)
            record_hands(match, match.game_hands())
        assert version(group) > seen, (step, what)
        assert_sums_are_the_results_added_up(group)


def test_a_running_total_is_forgotten_where_its_match_no_longer_counts(user):
    group = Group.home(user)
    first, second, third = (
        make_match(user, hands=[CLUB, CLUB, SWEEP], stakes=STAKES[1]) for _ in "abc"
    )
    assert all(m.finished for m in Match.objects.all())
    Match.objects.filter(pk=second.pk).update(per_game_cents=0, per_point_cents=0)  # behind it
    run_totals(Player.objects.filter(group=group).values_list("pk", flat=True))
    places = dict(Result.objects.filter(player__name="Cat").values_list("match", "running_place"))
    assert places == {first.pk: 1, second.pk: None, third.pk: 2}


def test_recount_sums_mends_sums_that_results_changed_behind(user, other_user):
    group = Group.home(user)
    for _ in range(3):
        make_match(user, hands=[CLUB, CLUB, SWEEP], stakes=STAKES[1])
    make_match(other_user, hands=[CLUB, CLUB, SWEEP], stakes=STAKES[1])
    good = stored(group), running_totals(group)
    cat = Result.objects.filter(match__group=group, player__name="Cat")
    Result.objects.filter(pk=cat.first().pk).update(net_cents=F("net_cents") + 700)  # behind
    Result.objects.filter(pk=cat.last().pk).update(net_cents=F("net_cents") - 700)
    NightSum.objects.filter(player__group=group).update(net_cents=0)
    assert stored(group) != good[0]
    code, out, _ = command("recount_sums", "--group", str(group.pk))
    assert code == 0 and "4 players summed anew" in out
    assert_sums_are_the_results_added_up(group)
    with pytest.raises(CommandError, match="There is no group 0."):
        command("recount_sums", "--group", "0")
    assert command("recount_sums")[1].count("players summed anew") == 2


def test_a_group_deleted_takes_its_sums_with_it(user):
    make_match(user, hands=[SWEEP], stakes=STAKES[1])
    assert ResultSum.objects.exists() and NightSum.objects.exists()
    Group.home(user).delete()
    assert not ResultSum.objects.exists() and not NightSum.objects.exists()


def test_the_most_a_loser_may_owe_is_summed_exactly(user):
    # Standard rules: 25.00 a game and 199.00 a point come to the most a loser may owe.
    big = rules.Stakes(per_game=2_500, per_point=19_900)
    for _ in range(3):
        make_match(user, stakes=big, hands=[SWEEP])
    assert_sums_are_the_results_added_up(Group.home(user))
    cat = Player.objects.get(name="Cat")
    assert cat.totals()["money"]["USD"] == sum(
        r.net_cents for r in Result.objects.filter(player=cat)
    )


def test_the_version_moves_with_every_write_to_the_group(user, client):
    group = Group.home(user)
    other = Group.home(get_user_model().objects.create_user("eve"))
    seen = version(group), version(other)
    match = make_match(user, hands=[CLUB], stakes=STAKES[1])
    assert version(group) > seen[0] and version(other) == seen[1]
    client.force_login(user)
    for post in (
        (f"/groups/{group.pk}/rename/", {"name": "Tuesdays"}),
        (f"/players/{Player.objects.get(name='Bob').pk}/rename/", {"name": "Rob"}),
        (f"/matches/{match.pk}/night/", {"night": "new"}),
    ):
        seen = version(group)
        client.post(*post)
        assert version(group) > seen, post
    assert version(other) == 0


@pytest.mark.django_db(transaction=True)
def test_the_migration_sums_the_results_stored_before_it():
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    user = get_user_model().objects.create_user("ann")
    rnd = random.Random(3)
    when = timezone.now() - timedelta(days=9)
    for i in range(8):
        m = random_match(rnd, rnd.choice(sorted(rules.PRESETS)))
        stakes = STAKES[i % 3]
        dealer = m.first_dealer
        played_at = when + timedelta(days=i // 3, minutes=50 * i)
        create_match(user, m.preset, m.ruleset, stakes, m.players, dealer, m.hands, played_at)
    group = Group.home(user)
    sums = stored(group)
    assert sums[0] and sums[1]
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes()
    executor.migrate([("games", "0013_removal")])
    executor = MigrationExecutor(connection)
    executor.migrate(latest)
    assert stored(group) == sums
    assert any(running_totals(group).values())  # 0016 numbered the matches that count
    assert_sums_are_the_results_added_up(group)


def test_a_balance_s_workings_read_only_what_they_show_and_sum_up_the_rest(user):
    """The workings of every balance, as reading every night and every payment of the group
    would list them: the latest WORKINGS_SHOWN of each, newest first, the rest summed."""
    from games.models import Payment
    from games.views import ledger

    rnd = random.Random(5)
    group = Group.home(user)
    monday = timezone.now() - timedelta(days=200)
    euros = rules.Stakes(per_game=100, currency="EUR")
    for week in range(20):
        hands = rnd.choice([[SWEEP], [CLUB, SWEEP]])
        stakes = euros if week % 5 == 0 else STAKES[1]
        make_match(user, hands=hands, stakes=stakes, played_at=monday + timedelta(7 * week))
    people = list(Player.objects.filter(group=group))
    for i in range(40):
        payer, payee = rnd.sample(people, 2)
        currency = "EUR" if i % 7 == 0 else "USD"
        paid_at = monday + timedelta(days=rnd.randrange(180))
        Payment.objects.create(
            group=group,
            payer=payer,
            payee=payee,
            amount_cents=rnd.randrange(1, 900),
            currency=currency,
            paid_at=paid_at,
        )
    balances = group_balances(group)
    workings = ledger._workings(group, balances, people)
    shown = ledger.WORKINGS_SHOWN
    nights = nets_by_night(Result.objects.filter(match__group=group))
    payments = group.payments.select_related("payer", "payee").order_by("-paid_at", "-pk")
    expected: dict = {}
    for s in balances:
        for name in s.net:
            expected[s.currency, name] = {
                "nights": [],
                "earlier_nights": [0, 0],
                "payments": [],
                "earlier_payments": [0, 0],
            }
    for currency, name, night, net, started in nights:
        mine = expected[currency, name]
        if len(mine["nights"]) < shown:
            mine["nights"].append((night, net, started))
        else:
            mine["earlier_nights"] = [
                mine["earlier_nights"][0] + 1,
                mine["earlier_nights"][1] + net,
            ]
    for p in payments:
        for name, cents in ((p.payer.name, p.amount_cents), (p.payee.name, -p.amount_cents)):
            mine = expected[p.currency, name]
            if len(mine["payments"]) < shown:
                mine["payments"].append((p.pk, cents))
            else:
                earlier = mine["earlier_payments"]
                mine["earlier_payments"] = [earlier[0] + 1, earlier[1] + cents]
    got = {
        key: {
            "nights": [
                (int(w["url"].strip("/").split("/")[-1]), w["cents"], w["started"])
                for w in entry["nights"]
            ],
            "earlier_nights": [entry["earlier_nights"]["count"], entry["earlier_nights"]["cents"]],
            "payments": [(w["payment"].pk, w["cents"]) for w in entry["payments"]],
            "earlier_payments": [
                entry["earlier_payments"]["count"],
                entry["earlier_payments"]["cents"],
            ],
        }
        for key, entry in workings.items()
    }
    assert got == expected
    assert any(e["earlier_nights"][0] for e in expected.values())
    assert any(e["earlier_payments"][0] for e in expected.values())
