"""Money (§6) and a night's settle-up (§11): what a loser owes, who pays whom."""

from __future__ import annotations

import heapq
from collections.abc import Mapping
from dataclasses import dataclass, replace

from games.rules.match import MatchState
from games.rules.options import Ruleset, Stakes

# --- Money (§6) ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Payment:
    payer: str
    payee: str
    cents: int


def owes(stakes: Stakes, score: int, sets: int) -> int:
    """What a loser pays, in cents, split between the winners: a game, their points above
    zero, and each hand they fell short (§6)."""
    return stakes.per_game + stakes.per_point * max(0, score) + stakes.per_set * sets


def most_owed(ruleset: Ruleset, stakes: Stakes, hands: int) -> tuple[int, int, int]:
    """The most one loser can owe in a match of at most `hands` hands under these rules and
    stakes (§6): (cents, points, hands fallen short). A score goes up by at most a penalty
    a hand (§4: a set, a hand without a trick, a missed moon) and never past the starting
    score with `cap_at_start`; a hand counts as fallen short at most once, a missed moon
    twice."""
    penalty = max(ruleset.set_penalty or 0, ruleset.zero_trick_penalty)
    points = ruleset.starting_score + (0 if ruleset.cap_at_start else penalty * hands)
    short = hands * (2 if ruleset.moon else 1)
    return owes(stakes, points, short), points, short


def settle(state: MatchState, stakes: Stakes) -> tuple[list[Payment], dict[str, int]]:
    """Who pays whom, and each player's net, once the match is over; empty otherwise."""
    if not state.finished or not stakes:
        return [], {}
    winners = state.winners
    payments = []
    net = dict.fromkeys(state.players, 0)
    for loser in state.players:
        if loser in winners:
            continue
        owed = owes(stakes, state.scores[loser], state.sets[loser])
        share, leftover = divmod(owed, len(winners))
        for i, winner in enumerate(winners):  # winners are in seat order
            cents = share + (1 if i < leftover else 0)
            if cents:
                payments.append(Payment(loser, winner, cents))
                net[loser] -= cents
                net[winner] += cents
    return payments, net


def payout_if_ended(state: MatchState, stakes: Stakes) -> list[Payment]:
    """Who would pay whom were a match still being played to end now, its leaders (the
    lowest scores) winning as the ties option has them win (§5, §6): none where it is over,
    not played for money, or where a tie would play on."""
    if state.finished or not stakes or not state.hands:
        return []
    low = min(state.scores.values())
    leaders = tuple(p for p in state.players if state.scores[p] == low)
    if state.ruleset.ties == "play_on" and len(leaders) > 1:
        return []
    payments, _ = settle(replace(state, winners=leaders), stakes)
    return payments


# --- A night (§11) -------------------------------------------------------------------------


def fewest_transfers(net: dict[str, int]) -> list[Payment]:
    """The fewest payments that settle every net (cents, summing to zero) exactly (§11).

    With n players owed or owing, the fewest is n − g, g being the most disjoint groups of
    them whose nets each sum to zero; greedy pairing can miss it (+6 +4 −4 −3 −3 takes 3, not
    4). So: the most groups for every subset, by a search over bitmasks (2ⁿ·n steps, instant
    for a dozen players), then each group settled in one payment fewer than its size.
    Payments come by payer, then payee, in the order the players appear in `net`.
    """
    if sum(net.values()) != 0:
        raise ValueError("the nets of a night must sum to zero")
    order = {p: i for i, p in enumerate(net)}
    names = [p for p, cents in net.items() if cents]
    full = (1 << len(names)) - 1
    total = [0] * (full + 1)
    groups = [0] * (full + 1)  # the most zero-sum groups a subset splits into
    for mask in range(1, full + 1):
        low = mask & -mask
        total[mask] = total[mask ^ low] + net[names[low.bit_length() - 1]]
        best = max(groups[mask ^ (1 << i)] for i in range(len(names)) if mask >> i & 1)
        groups[mask] = best + (total[mask] == 0)
    # Walk down from everybody, one player at a time, keeping the most groups: each time
    # what is left sums to zero again, the players taken since form one group.
    payments, group, mask = [], {}, full
    while mask:
        gain = total[mask] == 0
        i = next(
            i
            for i in range(len(names))
            if mask >> i & 1 and groups[mask ^ (1 << i)] + gain == groups[mask]
        )
        group[names[i]] = net[names[i]]
        mask ^= 1 << i
        if total[mask] == 0:
            payments += _settle_group(group, order)
            group = {}
    return sorted(payments, key=lambda t: (order[t.payer], order[t.payee]))


def _settle_group(net: dict[str, int], order: dict[str, int]) -> list[Payment]:
    """A group whose nets sum to zero, settled in one payment fewer than its size.

    Each payment clears the first payer or the first payee left (or both, the last time).
    """
    owing = sorted((p for p in net if net[p] < 0), key=lambda p: order[p])
    owed = sorted((p for p in net if net[p] > 0), key=lambda p: order[p])
    left = dict(net)
    payments = []
    while owing:
        payer, payee = owing[0], owed[0]
        cents = min(-left[payer], left[payee])
        payments.append(Payment(payer, payee, cents))
        left[payer] += cents
        left[payee] -= cents
        if not left[payer]:
            owing.pop(0)
        if not left[payee]:
            owed.pop(0)
    return payments


# The exact search's 2ⁿ·n steps take a tenth of a second at 16 players, and four times as
# long with each two more: past 16 every page, CSV and command takes the same fallback (§11).
EXACT_SEARCH_MOST = 16
# One answer (a night's settle-up, the balances) searches at most this many steps in all,
# whatever number of currencies it settles: two and a half searches of 16 players (two of
# them and the small ones beside them), a quarter of a second here. A night of 16 currencies
# × 16 players would otherwise search 16 times (3.7–4.0 s for its page under load, #43 §1).
SEARCH_BUDGET = 5 * (EXACT_SEARCH_MOST << EXACT_SEARCH_MOST) // 2


def search_cost(net: Mapping[str, int]) -> int:
    """The steps of the exact search over these nets: n·2ⁿ, n players owed or owing."""
    n = sum(1 for cents in net.values() if cents)
    return n << n


def settle_nets(net: dict[str, int]) -> tuple[list[Payment], bool]:
    """Payments that settle every net (cents, summing to zero) exactly: (payments, whether
    they are the fewest), as `settle_currencies` settles one currency alone (`settle`)."""
    return settle_currencies({"": net})[""]


def settle_currencies(
    nets: Mapping[str, dict[str, int]],
) -> dict[str, tuple[list[Payment], bool]]:
    """Each currency's payments that settle its nets (cents, summing to zero) exactly:
    (payments, whether they are the fewest), the one answer for a night, a night's card, its
    CSV, the balances and `settle` (§11), in the order of `nets`.

    The fewest (`fewest_transfers`) where the search is small enough: up to EXACT_SEARCH_MOST
    players owed or owing, and within one budget of SEARCH_BUDGET steps shared by all the
    currencies of the answer, spent on the smallest searches first (then by currency), so
    that the same nets always give the same answer. Past either, the largest debt is paid
    to the largest credit, repeated (ties to the player who appears first): one payment
    fewer than their number at most, though perhaps not the fewest, in n log n steps
    whatever a group stores.
    """
    for net in nets.values():
        if sum(net.values()) != 0:
            raise ValueError("the nets must sum to zero")
    spent, found = 0, {}
    for currency in sorted(nets, key=lambda c: (search_cost(nets[c]), c)):
        net, cost = nets[currency], search_cost(nets[currency])
        small = sum(1 for cents in net.values() if cents) <= EXACT_SEARCH_MOST
        if small and spent + cost <= SEARCH_BUDGET:
            spent += cost
            found[currency] = fewest_transfers(net), True
        else:
            found[currency] = _largest_first(net), False
    return {currency: found[currency] for currency in nets}


def _largest_first(net: dict[str, int]) -> list[Payment]:
    """The largest debt paid to the largest credit, again and again (ties to the player who
    appears first in `net`), in n log n steps."""
    order = {p: i for i, p in enumerate(net)}
    owing = [(cents, order[p], p) for p, cents in net.items() if cents < 0]
    owed = [(-cents, order[p], p) for p, cents in net.items() if cents > 0]
    heapq.heapify(owing)
    heapq.heapify(owed)
    payments = []
    while owing:
        debt, i, payer = heapq.heappop(owing)
        credit, j, payee = heapq.heappop(owed)
        cents = min(-debt, -credit)
        payments.append(Payment(payer, payee, cents))
        if debt + cents:
            heapq.heappush(owing, (debt + cents, i, payer))
        if credit + cents:
            heapq.heappush(owed, (credit + cents, j, payee))
    return sorted(payments, key=lambda t: (order[t.payer], order[t.payee]))
