"""Every write to a match: it created or imported, a hand added, changed or undone, moved to
another night, deleted. Each is a function of the match (`add_hand(match, …)`) that takes the
group's turn and the match's lock, checks the version its page was drawn from, and writes the
engine's verdict with the hands."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import TYPE_CHECKING, NamedTuple

from django.db import transaction
from django.db.models import Exists, Q
from django.utils import timezone

from games import matchfile, rules
from games.models.groups import Group, groups_turn
from games.models.hands import Change, Hand, hand_verdict, verdict, write_hand_verdicts
from games.models.matches import (
    GONE,
    HISTORY_SHOWN,
    MAX_HANDS,
    Match,
    Replay,
    Seat,
    check_money,
    check_room,
)
from games.models.nights import Night
from games.models.players import seat_players
from games.models.results import TALLY_FIELDS, Result, summed
from games.models.sql import execute, moved_on, statement
from games.models.sums import add_to_sums, move_sums, recount_sums, summed_results

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User


@dataclass
class Earlier:
    """The save a hand's save repeats (`add_hand`): hand `number` as `change` stored it
    (who, with its `name`; None where the log has nobody), and what became of it since:
    "stored" (it stands as saved), "changed" (edited since) or "undone"."""

    number: int
    change: Change | None
    now: str = "stored"
    same_key: bool = False  # sent again with the very key it was saved with: the same phone


class Saved(NamedTuple):
    """What `add_hand` did: the match as it is now, its replay, and the earlier save
    of the same hand it found instead of storing it again (None where it stored it)."""

    match: Match
    replayed: Replay
    earlier: Earlier | None = None


class Stale(Exception):
    """A write from a page drawn before the match's hands last changed (another phone's save)."""

    def __init__(self, match: Match, hands: int, checked: rules.MatchState | None = None) -> None:
        super().__init__(f"match {match.pk} is at version {match.version}")
        self.match = match
        self.hands = hands  # how many hands the match has now
        self.checked = checked  # the match the hand was checked on, if it was (`add_hand`)


def _seated(hand: rules.Hand, was: Sequence[str], now: Sequence[str]) -> rules.Hand:
    """`hand` as entered at the table `was` (names in seat order), for the same seats named
    `now`: a rename or a merge between the page's reading and the save changed a name, never
    who sat where."""
    if tuple(was) == tuple(now) or len(was) != len(now):
        return hand
    return rules.respell(hand, dict(zip(was, now, strict=True)))


def _check_fits(names: Iterable[str], stakes: rules.Stakes) -> None:
    """What the rules allow but the columns can't hold, refused in words rather than a crash."""
    for name in names:
        if len(name) > rules.NAME_LENGTH:
            raise rules.RuleError(
                "bad_table",
                f"{name[:20]}… is too long a name; keep it to {rules.NAME_LENGTH} letters.",
                "players",
            )
    if len(stakes.currency) > rules.CURRENCY_LENGTH:
        raise rules.RuleError(
            "bad_file", "The currency should be a short label such as USD or $.", "currency"
        )
    if max(getattr(stakes, name) for name in rules.STAKE_NAMES) > rules.MAX_STAKE_CENTS:
        raise rules.RuleError("bad_file", rules.STAKE_TOO_BIG, "per_game")


def move_match(match: Match, night: Night | None) -> Night:
    """Settle the match with another night of its group's, or alone on a new one (None).

    Only the night changes: the hands and their version stay as they are, so no phone at
    the table is told its page is out of date.
    """
    with transaction.atomic():
        groups_turn(match.group_id)
        stored = Match.objects.get(pk=match.pk)
        old = stored.night_id
        if night is None:
            night = Night.objects.create(group_id=match.group_id)
        Match.objects.filter(pk=match.pk).update(night=night)
        results = summed_results(match.pk)
        finished = stored.finished is not None
        move_sums(stored, old, results, finished, night.pk, results)
        Night.objects.filter(pk=old, matches__isnull=True).delete()
    match.night = night
    return night


@transaction.atomic
def delete_match(match: Match) -> None:
    """Delete the match whole, and its night if no other match is left on it; its results
    leave their players' sums. Match.DoesNotExist (`GONE`) if it was deleted already, or
    its group with it."""
    try:
        groups_turn(match.group_id)
    except Group.DoesNotExist:
        raise Match.DoesNotExist(GONE) from None
    stored = Match.objects.filter(pk=match.pk).first()
    if stored is None:
        raise Match.DoesNotExist(GONE)
    results = summed_results(match.pk)
    match.delete()
    night = stored.night_id
    move_sums(stored, night, results, stored.finished is not None, night, [])
    Night.objects.filter(pk=night, matches__isnull=True).delete()


class _Locked(NamedTuple):
    """A match as a write reads it under its lock (`_locked`)."""

    match: Match
    seats: list[Seat]  # in seat order, each with its player
    resent: bool  # a save of one of its hands was stored under the key asked about


def _locked(match: Match | int, key: str | None = None) -> _Locked:
    """The match row locked until the transaction ends, read with its seats and their
    players in one statement, and whether a save was stored under the phone's `key`.

    Every write to a match's hands starts here, so writes to one match take turns (on
    SQLite the IMMEDIATE transaction is the lock) and each sees what the last one stored.
    It takes the group's turn first (`groups_turn`), as every other write to the group
    does before it locks a match, so that no two writes wait for each other: a save adds
    to its players' sums and moves the group's version on. (The lock order: group, then
    match, then players; see `groups_turn`.)

    Match.DoesNotExist, in words (`GONE`), where the match, or its whole group, was
    deleted on another phone before its turn came.
    """
    pk = match if isinstance(match, int) else match.pk
    try:
        groups_turn(of_match=pk)
    except Group.DoesNotExist:
        raise Match.DoesNotExist(GONE) from None
    seats = Seat.objects.filter(match=pk).select_related("match", "player")
    if key:
        saves = Change.objects.filter(match=pk, kind=Change.Kind.SAVED, key=key)
        seats = seats.annotate(resent=Exists(saves))
    found = list(seats.order_by("position").select_for_update())
    if not found:
        raise Match.DoesNotExist(GONE)
    locked = found[0].match
    for seat in found:
        seat.match = locked
    locked.__dict__["names"] = tuple(seat.player.name for seat in found)  # `Match.names`, read
    return _Locked(locked, found, bool(key) and getattr(found[0], "resent", False))


@transaction.atomic
def record_hands(match: Match, hands: list[rules.Hand]) -> rules.MatchState:
    """Store the match's hands as `hands`, after the engine accepts all of them.

    Raises RuleError (with `.hand`) and stores nothing if any hand breaks a rule.
    """
    locked, seats, _ = _locked(match)
    state, _ = _store_rescored(locked, seats, locked.game_hands(), hands)
    match.version, match.finished = locked.version, locked.finished
    match.hands_played, match.next_dealer = locked.hands_played, locked.next_dealer
    return state


# What a phone entered, read as a hand of the match as it stands under the lock (the hand
# form's check, in the view): None where it is not one, and nothing is stored.
Entry = Callable[[rules.MatchState], rules.Hand | None]


@transaction.atomic
def add_hand(
    match: Match | int,
    number: int | None,
    hand: rules.Hand | Entry,
    version: int | None,
    by: User | AnonymousUser | None = None,
    key: str | None = None,
    allowed: Callable[[Match], object] | None = None,
) -> Saved | None:
    """Save hand `number` of `match` (or of the match of this id) from a page drawn at
    `version`, sent with the phone's `key` for it, if any: `hand`, or what `hand` reads from
    the phone's entry against the match as it stands (None, and nothing stored, where the
    entry is not a hand). `allowed` checks who may save on the match as the lock finds it
    (raising rolls everything back): a view reads nothing of the match before.

    The match is read once, under the lock, and the hand checked and stored there: a new
    hand from the verdict stored with the hands before it, its row and its players' results
    and sums moved on by it alone (`_store_next`). The same hand arriving twice (a double
    tap, a resent request, two phones entering it) is stored once, and so is every hand
    sent under a key already stored, whatever its version (`Saved.earlier` says which save
    it repeats); anything else from an out-of-date page raises `Stale`.
    """
    locked, seats, resent = _locked(match, key)
    if allowed is not None:
        allowed(locked)
    if resent and key:  # before the version: a resend
        earlier = saved_under(locked, key)
        return Saved(locked, locked.replay_latest(HISTORY_SHOWN), earlier)
    if number is None:
        raise Stale(locked, locked.hands_played)
    stored: list[rules.Hand] | None = None  # every hand, where the verdicts will not do
    latest = locked.replay_stored(HISTORY_SHOWN) if number == locked.hands_played + 1 else None
    if latest is not None:
        before, theirs, count = latest[0], None, locked.hands_played
    else:
        stored = locked.game_hands()
        count = len(stored)
        if not 1 <= number <= count + 1:
            raise Stale(locked, count)  # no such hand to save: undone meanwhile
        before = rules.replay(locked.start(), stored[: number - 1])[0]
        theirs = stored[number - 1] if number <= count else None
    if isinstance(hand, rules.Hand):
        named = locked.names if isinstance(match, int) else match.names  # as the page named them
        entry: rules.Hand | None = _seated(hand, named, locked.names)
    else:
        entry = hand(before)
    if entry is None:
        transaction.set_rollback(True)  # the group's turn taken for nothing: no version moves
        return None
    if theirs is not None and theirs == entry:
        assert stored is not None
        change = Change.authors(locked, [number]).get(number)
        earlier = Earlier(number, change)
        return Saved(locked, rules.replay(locked.start(), stored), earlier)
    if version != locked.version or number != count + 1:
        raise Stale(locked, count, before)
    keys = {number: key} if key else None
    replayed = _store_next(locked, seats, latest, entry, keys) if latest else None
    if replayed is None:
        stored = locked.game_hands() if stored is None else stored
        replayed = _store(locked, seats, stored, [*stored, entry], keys)
    Change.note(locked, by, Change.Kind.SAVED, number, after=entry, key=key)
    return Saved(locked, replayed)


def saved_under(match: Match, key: str) -> Earlier | None:
    """The save of this match's hand that a phone sent with `key`, and what became of
    it, or None if no hand was stored under it. The log is read before the hand: a save
    writes both at once, and an undo only ever takes the hand away."""
    saved = match.changes.filter(kind=Change.Kind.SAVED, key=key).order_by("-pk").first()
    if saved is None:
        return None
    Change.named(match, [saved])
    now = "stored"
    if not match.hands.filter(key=key).exists():
        now = "undone"
    elif match.changes.filter(
        number=saved.number, kind=Change.Kind.EDITED, pk__gt=saved.pk
    ).exists():
        now = "changed"
    return Earlier(saved.number, saved, now, same_key=True)


@transaction.atomic
def change_hand(
    match: Match,
    number: int,
    hand: rules.Hand,
    version: int | None,
    by: User | AnonymousUser | None = None,
) -> bool:
    """Replace hand `number` of `match` with `hand`; every later hand is checked and scored
    again."""
    locked, seats, _ = _locked(match)
    stored = locked.game_hands()
    hand = _seated(hand, match.names, locked.names)
    if 1 <= number <= len(stored) and stored[number - 1] == hand:
        return False
    if version != locked.version or not 1 <= number <= len(stored):
        raise Stale(locked, len(stored))
    _store(locked, seats, stored, [*stored[: number - 1], hand, *stored[number:]])
    Change.note(locked, by, Change.Kind.EDITED, number, stored[number - 1], hand)
    return True


@transaction.atomic
def undo_hand(
    match: Match, number: int, version: int | None, by: User | AnonymousUser | None = None
) -> bool:
    """Take back the last hand of `match`, `number`; False if it is gone already."""
    locked, seats, _ = _locked(match)
    stored = locked.game_hands()
    if len(stored) < number:
        return False
    if version != locked.version or number != len(stored):
        raise Stale(locked, len(stored))
    _store(locked, seats, stored, stored[:-1])
    Change.note(locked, by, Change.Kind.UNDONE, number, before=stored[-1])
    return True


def _store_next(
    locked: Match,
    seats: list[Seat],
    latest: Replay,
    hand: rules.Hand,
    keys: Mapping[int, str | None] | None,
) -> Replay | None:
    """A new hand at the end of a match that it does not end, from the match as its stored
    verdict has it and the results of its latest hands (`latest`, `Match.replay_stored`):
    the hand's row with its verdict, the match's, and its players' results and sums moved
    on by what the hand alone did (the engine's `tallies` and `moons` add up hand by hand).
    Returns the replay of the latest hands; None, with nothing written, where the hand ends
    the match (then its verdict is the whole match's: `_store`)."""
    before, results = latest
    number = before.hands + 1
    if number > MAX_HANDS:
        raise rules.RuleError(
            "bad_file", f"A match can hold at most {MAX_HANDS:,} hands.", hand=MAX_HANDS + 1
        )
    state, result = rules.play(before, hand)
    if state.finished:
        return None
    players = {seat.player.name: seat.player_id for seat in seats}
    Hand.store_all(locked, [(number, hand, hand_verdict(state.players, result))], players, keys)
    locked.version += 1
    locked.hands_played = state.hands
    locked.next_dealer = state.players.index(state.dealer)
    locked.save(update_fields=["hands_played", "next_dealer", "version", "updated"])
    tallies, moons = rules.tallies(before, [result]), rules.moons(before, [result])
    parts, by_seat = {}, {}
    for seat, name in zip(seats, state.players, strict=True):
        moons_of = {"moons_declared": moons[name].declared, "moons_made": moons[name].made}
        parts[seat.player_id] = part = {**asdict(tallies[name]), **moons_of}
        by_seat[seat.position] = {"score": state.scores[name], "short": state.sets[name], **part}
    counts, params = moved_on("seat", by_seat, ("score", "short"), TALLY_FIELDS)
    moved = execute(statement("RESULTS_MOVED_ON").format(counts=counts), *params, locked.pk)
    if moved != len(seats):  # results not as the app writes them: the whole verdict anew
        stored = locked.game_hands()
        start, full, every = _replay_to_store(locked, stored)
        _write_verdict(locked, seats, start, full, every, [], recount=True)
    else:
        add_to_sums(locked, parts)
    return state, [*results, result]


def _store(
    match: Match,
    seats: list[Seat],
    stored: list[rules.Hand],
    hands: list[rules.Hand],
    keys: Mapping[int, str | None] | None = None,
) -> Replay:
    """A write from a phone (a hand saved, changed or undone) to `match`, its row locked:
    write the hand rows that differ between `stored` and `hands` (a new hand with its
    phone's key, in `keys`), and the engine's verdict on the hands from the first that
    differs on. Returns the replay of `hands`."""
    start, state, results = _replay_to_store(match, hands)
    if stored == hands:
        return state, results
    changed = _write_hands(match, seats, stored, hands, state, results, keys)
    first = changed[0] if changed else len(hands)  # an undo writes no hand
    later = match.hands.filter(number__gt=first).exclude(number__in=changed)
    _write_verdict(match, seats, start, state, results, later if first < len(hands) else [])
    return state, results


def _store_rescored(
    match: Match, seats: list[Seat], stored: list[rules.Hand], hands: list[rules.Hand]
) -> Replay:
    """`_store`, but the verdict on every hand is written anew, even where the hands are
    as stored: after the admin changed the rows themselves. Returns the replay."""
    start, state, results = _replay_to_store(match, hands)
    changed = _write_hands(match, seats, stored, hands, state, results) if stored != hands else []
    others = match.hands.exclude(number__in=changed)
    _write_verdict(match, seats, start, state, results, others, recount=True)
    return state, results


def _replay_to_store(
    match: Match, hands: list[rules.Hand]
) -> tuple[rules.MatchState, rules.MatchState, list[rules.HandResult]]:
    """(start, state, results) of `hands`, as long as the match may hold that many."""
    if len(hands) > MAX_HANDS:
        raise rules.RuleError(
            "bad_file", f"A match can hold at most {MAX_HANDS:,} hands.", hand=MAX_HANDS + 1
        )
    start = match.start()
    return (start, *rules.replay(start, hands))


def _write_hands(
    match: Match,
    seats: list[Seat],
    stored: list[rules.Hand],
    hands: list[rules.Hand],
    state: rules.MatchState,
    results: list[rules.HandResult],
    keys: Mapping[int, str | None] | None = None,
) -> list[int]:
    """Write the hands of `hands` that differ from `stored` (each with its verdict, and
    its key: as it had, or from `keys`), drop those past the end, and move the version
    on. Returns the numbers written."""
    players = {seat.player.name: seat.player_id for seat in seats}
    changed = [n for n, hand in enumerate(hands, 1) if n > len(stored) or stored[n - 1] != hand]
    kept: dict[int, str | None] = {}  # an edited hand keeps its key
    if any(n <= len(stored) for n in changed) or len(hands) < len(stored):
        rewritten = match.hands.filter(number__in=changed, key__isnull=False)
        kept = dict(rewritten.values_list("number", "key"))
        match.hands.filter(Q(number__in=changed) | Q(number__gt=len(hands))).delete()
    rows = [(n, hands[n - 1], hand_verdict(state.players, results[n - 1])) for n in changed]
    Hand.store_all(match, rows, players, {**kept, **(keys or {})})
    match.version += 1
    return changed


def _write_verdict(
    match: Match,
    seats: list[Seat],
    start: rules.MatchState,
    state: rules.MatchState,
    results: list[rules.HandResult],
    rows: Iterable[Hand],
    recount: bool = False,
) -> None:
    """Write the engine's verdict: on each hand of `rows` (the others have theirs), on
    the match, and each seat's `Result`, updated in place; and move the players' sums from
    the results as they were to the new ones (`move_sums`), or with `recount` (the admin may
    have changed the match's rules, stakes, seats or night) sum their results anew."""
    write_hand_verdicts(list(rows), state.players, results)
    stored = {row.seat: row for row in Result.objects.filter(match=match)}
    before = [{"player_id": row.player_id, **summed(row)} for row in stored.values()]
    was_finished = match.finished is not None
    match.finished = (match.finished or timezone.now()) if state.finished else None
    match.hands_played = state.hands
    match.next_dealer = state.players.index(state.dealer)
    match.save(update_fields=["finished", "hands_played", "next_dealer", "version", "updated"])
    fields = verdict(start, state, results, match.stakes())
    kept, new = [], []
    for seat, mine in zip(seats, fields, strict=True):
        row = stored.get(mine["seat"])
        if row is not None and row.player_id == seat.player_id:  # as it was: updated in place
            del stored[mine["seat"]]
            for name, value in mine.items():
                setattr(row, name, value)
            kept.append(row)
        else:  # a seat the admin changed: its old row goes, a new one comes
            new.append(Result(match=match, player_id=seat.player_id, **mine))
    if stored:
        Result.objects.filter(pk__in=[row.pk for row in stored.values()]).delete()
    Result.objects.bulk_update(kept, [name for name in fields[0] if name != "seat"])
    Result.objects.bulk_create(new)
    after = [
        {"player_id": seat.player_id, **mine} for seat, mine in zip(seats, fields, strict=True)
    ]
    if recount and before:
        recount_sums({row["player_id"] for row in before + after})
    else:
        move_sums(match, match.night_id, before, was_finished, match.night_id, after)


@transaction.atomic
def create_match(
    group: Group | User,
    preset: str,
    ruleset: rules.Ruleset,
    stakes: rules.Stakes,
    names: Sequence[str],
    first_dealer: str,
    hands: Iterable[rules.Hand] = (),
    played_at: datetime | None = None,
    by: User | AnonymousUser | None = None,
    night_of_its_own: bool = False,
) -> Match:
    """A new match of `group` (or of an account's own group) from the engine's terms;
    raises RuleError and stores nothing if bad. `by` is the account that began it. A name
    saved before in other capitals or spaces is that player, spelled as saved. It joins
    the night it was begun in, or with `night_of_its_own` makes a night alone."""
    group = Group.of(group)
    rules.new_match(ruleset, names, first_dealer)
    rules.check_people(names)
    _check_fits(names, stakes)
    check_money(ruleset, stakes)
    groups_turn(group.pk)
    check_room(group.matches.all())
    players = seat_players(group, names)
    spelling = {name: p.name for name, p in zip(names, players, strict=True)}
    names, first_dealer = [p.name for p in players], spelling[first_dealer]
    hands = [rules.respell(hand, spelling) for hand in hands]
    played_at = played_at or timezone.now()
    match = Match.objects.create(
        group=group,
        night=Night.objects.create(group=group)
        if night_of_its_own
        else Night.around(group, played_at),
        preset=preset,
        options=ruleset.options(),
        per_game_cents=stakes.per_game,
        per_point_cents=stakes.per_point,
        per_set_cents=stakes.per_set,
        currency=stakes.currency,
        first_dealer=list(names).index(first_dealer),
        played_at=played_at,
    )
    for position, player in enumerate(players):
        match.seats.create(player=player, position=position)
    record_hands(match, hands)
    Change.note(match, by, Change.Kind.STARTED, len(hands))
    return match


def match_from_file(
    group: Group | User, m: matchfile.Match, by: User | AnonymousUser | None = None
) -> Match:
    """The match of a match file. One that doesn't say when it was played (an old file
    restored) is dated by its import, but settled on a night of its own: a restore of many
    such files is never one night of all of them, nor joins tonight's."""
    return create_match(
        group,
        m.preset,
        m.ruleset,
        m.stakes,
        m.players,
        m.first_dealer,
        m.hands,
        m.played_at,
        by=by,
        night_of_its_own=m.played_at is None,
    )


@transaction.atomic
def import_match(
    group: Group | User, m: matchfile.Match, by: User | AnonymousUser | None = None
) -> tuple[Match, bool]:
    """Store a match file's match unless the group has it already: (match, stored)."""
    group = Group.of(group)
    groups_turn(group.pk)
    same = group.matches.same_as(m)
    if same is not None:
        return same, False
    return match_from_file(group, m, by), True
