"""A stored match held against the engine: its results, verdicts and states are what
replaying its stored hands says."""

from dataclasses import replace
from datetime import timedelta

from games import rules
from games.models import VERDICT_COLUMNS, Hand, Match, Result, create_match, hand_verdict, verdict
from games.models.results import TALLY_FIELDS


def reload(match):
    return Match.objects.with_seats().get(pk=match.pk)


RESULT_FIELDS = ["seat", "score", "won", "net_cents", "short", *TALLY_FIELDS]


def assert_results_are_a_replay(match):
    """The stored results and verdict fields are what the engine says of the stored hands."""
    match = reload(match)
    start = match.start()
    state, results = rules.replay(start, match.game_hands())
    rows = list(Result.objects.filter(match=match).order_by("seat").values(*RESULT_FIELDS))
    assert rows == verdict(start, state, results, match.stakes())
    assert match.stored_state() == replace(state, won_by=None)
    players = Result.objects.filter(match=match).order_by("seat").values_list("player__name")
    assert tuple(name for (name,) in players) == match.names
    assert match.hands_played == state.hands
    assert match.names[match.next_dealer] == state.dealer
    assert (match.finished is not None) == state.finished
    hands = Hand.objects.filter(match=match).order_by("number").values(*VERDICT_COLUMNS)
    assert list(hands) == [hand_verdict(match.names, result) for result in results]
    for count in (1, 2, 5):
        latest_state, latest = match.replay_latest(count)
        assert latest_state == state
        assert len(latest) >= min(count, state.hands)
        assert latest == results[len(results) - len(latest) :]
        assert match.replay_stored(count) == (latest_state, latest)  # what a save starts from
    assert_the_state_before_each_hand_is_a_replay(match)


def assert_the_state_before_each_hand_is_a_replay(match):
    """`state_before` and the score race say what folding the stored hands says."""
    match = reload(match)
    hands = match.game_hands()
    for number in range(1, len(hands) + 2):
        state, _ = rules.replay(match.start(), hands[: number - 1])
        hand = hands[number - 1] if number <= len(hands) else None
        assert match.state_before(number) == (state, hand)
    assert match.state_before(0) is match.state_before(len(hands) + 2) is None
    state, results = match.replay()
    race = [(r.number, [r.scores[p] for p in match.names]) for r in results]
    assert match.score_race() == (state, race)


def a_night_of_six(user, rnd, start, finished=False):
    """Six dirty-clubs-up matches of six players for money, 40 minutes apart from `start`
    (each played to its end where `finished`): one night, the share's largest."""
    from tests.matches import SIX, random_match

    for i in range(6):
        m = random_match(rnd, "dirty-clubs-up", names=SIX, players=(6,))
        while finished and (not m.hands or not rules.replay(m.start(), m.hands)[0].finished):
            m = random_match(rnd, "dirty-clubs-up", names=SIX, players=(6,))
        stakes = rules.Stakes(per_game=100, per_point=10, per_set=25)
        create_match(
            user,
            m.preset,
            m.ruleset,
            stakes,
            m.players,
            m.first_dealer,
            m.hands,
            start + timedelta(minutes=40 * i),
        )
