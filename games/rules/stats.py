"""Statistics (§12): a player's tally over a match's hands, and the moons."""

from __future__ import annotations

from dataclasses import astuple, dataclass, fields

from games.rules.hand import HandResult
from games.rules.match import MatchState
from games.rules.options import TRICKS

# --- Statistics (§12) ----------------------------------------------------------------------


@dataclass(frozen=True)
class Tally:
    """One player's counts over some played hands (passed hands don't count); they add up."""

    dealt_in: int = 0  # hands played at their table
    stayed_in: int = 0  # of those, hands they played rather than dropped
    could_drop: int = 0  # hands in which the rules let them drop (§3)
    stayed_by_choice: int = 0  # of those, hands they stayed in: the stayed-in rate's top
    made_trump: int = 0  # hands they were the maker
    made: int = 0  # of those, hands they took what they needed
    was_set: int = 0  # of those, hands they were set (never with set_penalty null)
    euchred: int = 0  # hands they played and took no trick, maker or not
    sweeps: int = 0  # hands they took all five tricks
    points: int = 0  # the sum of their score changes; over dealt_in, points per hand

    def __add__(self, other: Tally) -> Tally:
        return Tally(*(a + b for a, b in zip(astuple(self), astuple(other), strict=True)))


def tallies(start: MatchState, results: list[HandResult]) -> dict[str, Tally]:
    """Each player's Tally over a match, from its start and the results `replay` gives."""
    counts = {p: dict.fromkeys((f.name for f in fields(Tally)), 0) for p in start.players}
    for result in results:
        hand, shape = result.hand, result.shape
        if hand.passed:
            continue
        for p, c in counts.items():
            took = hand.tricks.get(p)
            played = took is not None
            may_drop = p not in shape.must_play  # the maker, a turned suit, no trump, a low score
            c["dealt_in"] += 1
            c["stayed_in"] += played
            c["could_drop"] += may_drop
            c["stayed_by_choice"] += may_drop and played
            if p == shape.maker:
                needed = shape.needed(hand)
                assert took is not None and needed is not None  # a maker plays, for a number
                c["made_trump"] += 1
                c["made"] += took >= needed
                c["was_set"] += p in result.set
            c["euchred"] += p in result.euchred
            c["sweeps"] += took == TRICKS
            c["points"] += result.changes[p]
    return {p: Tally(**c) for p, c in counts.items()}


@dataclass(frozen=True)
class Moons:
    """One player's moons over some played hands (§12); they add up. Kept apart from Tally,
    each of whose counts is a column of the stored results."""

    declared: int = 0  # hands they declared the moon
    made: int = 0  # of those, hands they took all five tricks

    def __add__(self, other: Moons) -> Moons:
        return Moons(self.declared + other.declared, self.made + other.made)


def moons(start: MatchState, results: list[HandResult]) -> dict[str, Moons]:
    """Each player's Moons over a match, from its start and the results `replay` gives."""
    counts = dict.fromkeys(start.players, Moons())
    for result in results:
        if result.moon is not None:
            counts[result.moon] += Moons(1, int(result.moon_made))
    return counts
