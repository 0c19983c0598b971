"""A match as a fold over its hands (§3–§5, §9): its state, the checks of a hand, its play."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from games.rules.hand import MOON_BID, TRICKS_TOTAL, Hand, HandResult, HandShape, join_names
from games.rules.options import (
    ASK_BID,
    ASK_DROPPED,
    ASK_MAKER,
    ASK_MOON,
    ASK_TRICKS,
    ASK_TRUMP,
    LOW_SCORE,
    MAKER,
    MOON,
    NO_TRUMP,
    NO_TRUMP_PLAYED,
    REDEAL,
    SUITS,
    SWEEP,
    TRICK_BIDDING,
    TRICKS,
    TURNED,
    ZERO,
    RuleError,
    Ruleset,
    check_table,
)


def _is(names: Sequence[str]) -> str:
    return "is" if len(names) == 1 else "are"


@dataclass(frozen=True)
class MatchState:
    """A match after some hands: everything is folded from the hands, nothing stored twice."""

    ruleset: Ruleset
    players: tuple[str, ...]
    scores: dict[str, int]
    dealer: str  # who deals the next hand
    hands: int = 0
    sets: dict[str, int] = field(default_factory=dict)  # hands each player fell short (§6)
    winners: tuple[str, ...] = ()
    won_by: str | None = None

    @property
    def finished(self) -> bool:
        return bool(self.winners)

    def left_of(self, name: str) -> str:
        return self.players[(self.players.index(name) + 1) % len(self.players)]

    def on_board(self, player: str) -> bool:
        """Whether `player` played (did not drop out of) an earlier hand: took a trick or fell
        short (§4). A score moves down only by tricks taken and up only by a penalty, which is
        falling short, so the scores and `sets` tell it without another fold."""
        return self.sets.get(player, 0) > 0 or self.scores[player] != self.ruleset.starting_score

    def shown(self, player: str) -> int:
        """A score as the table sees it (§7 `count_up`)."""
        return shown_score(self.ruleset, self.scores[player])

    def data(self) -> dict[str, object]:
        """The match as plain data (JSON's types), as the phone's twin of the rules reads it:
        static/js/rules.js's `state`, which the board gives the phone (#twin-data)."""
        return {
            "ruleset": self.ruleset.options(),
            "players": list(self.players),
            "scores": self.scores,
            "dealer": self.dealer,
            "hands": self.hands,
            "sets": self.sets,
            "winners": list(self.winners),
            "won_by": self.won_by,
        }

    def must_play(self) -> tuple[str, ...]:
        """Who may not drop out of the next hand because of their score (§3)."""
        limit = self.ruleset.no_drop_at_or_below
        if limit is None:
            return ()
        return tuple(p for p in self.players if self.scores[p] <= limit)

    def shape(self, upcard: str, maker: str | None = None, passed: bool = False) -> HandShape:
        """What the next hand asks, given its upcard and, once known, who made trump (or that
        everybody passed). Both are ignored where the rules decide them."""
        r = self.ruleset
        if upcard not in SUITS:
            raise RuleError("bad_file", f"{upcard!r} is not a suit.", "upcard")
        automatic = upcard == r.auto_trump
        bidding = not automatic and r.bidding == TRICK_BIDDING
        passed = passed and not automatic
        asks: tuple[str, ...]
        if automatic:
            maker = self.dealer if r.auto_trump_dealer_needs is not None else None
        elif passed:
            maker = None
        # A moon needs a maker, and one on the board (§4).
        moon = r.moon and maker is not None and self.on_board(maker)
        ask_moon = (ASK_MOON,) if moon else ()
        if automatic:
            needs = r.auto_trump_dealer_needs if maker else None
            trump, asks = upcard, ask_moon + (ASK_TRICKS,)
            must_play = dict.fromkeys(self.players, TURNED)
        elif passed:
            needs, trump = None, NO_TRUMP
            redeal = r.all_pass == REDEAL
            asks = (ASK_MAKER,) if redeal else (ASK_MAKER, ASK_TRICKS)
            must_play = {} if redeal else dict.fromkeys(self.players, NO_TRUMP_PLAYED)
        else:
            needs, trump = (None if bidding else r.maker_needs), None
            asks = (ASK_MAKER,)
            if maker is not None:
                asks += (ASK_TRUMP,) + ((ASK_BID,) if bidding else ()) + ask_moon
                asks += (ASK_DROPPED, ASK_TRICKS)
            must_play = dict.fromkeys(self.must_play(), LOW_SCORE)
        if maker is not None:
            must_play[maker] = MAKER
        return HandShape(
            upcard=upcard,
            automatic=automatic,
            trump=trump,
            default_trump=upcard,
            maker=maker,
            needs=needs,
            asks_bid=bidding,
            bids=tuple(range(r.min_bid, TRICKS + 1)) if bidding else (),
            all_pass=None if automatic else r.all_pass,
            must_play={p: must_play[p] for p in self.players if p in must_play},
            passed=passed,
            asks=asks,
            moon=moon,
        )


def shown_score(ruleset: Ruleset, score: int) -> int:
    """A score as the table sees it: with `count_up`, the points earned towards the target,
    counted up from 0; else as the engine keeps it, counting down (§7). The engine, the match
    file and `replay` always count down."""
    return ruleset.starting_score - score if ruleset.count_up else score


# Why a player can't drop out (`HandShape.must_play`), in words: `p` is the player, `turned`
# the upcard's suit, `score` their score and `limit` the rule's.
MUST_PLAY_WORDS = {
    MAKER: "{p} made trump, so {p} can't drop out.",
    TURNED: "Nobody may drop out when a {turned} is turned, so {p} must play.",
    NO_TRUMP_PLAYED: "Nobody may drop out of a no-trump hand, so {p} must play.",
    LOW_SCORE: "{p} is at {score}, and at {limit} or below a player can't drop out.",
}
# LOW_SCORE where the scores are shown counted up (§7 `count_up`): the same rule, in the
# numbers the table sees.
LOW_SCORE_UP_WORDS = "{p} is at {score}, and at {limit} or above a player can't drop out."


def why_must_play(state: MatchState, shape: HandShape, player: str) -> str | None:
    """Why `player` may not drop out of the hand `shape` describes, in a sentence (§3,
    `MUST_PLAY_WORDS`); None when they may. What a refused drop says, and what a greyed name
    at the table says."""
    why = shape.must_play.get(player)
    if why is None:
        return None
    r = state.ruleset
    words = MUST_PLAY_WORDS[why]
    limit = r.no_drop_at_or_below
    if why == LOW_SCORE and r.count_up:
        assert limit is not None  # a low score is one at or below the limit
        words, limit = LOW_SCORE_UP_WORDS, shown_score(r, limit)
    return words.format(
        p=player,
        turned=shape.upcard[:-1],
        score=state.shown(player),
        limit=limit,
    )


def new_match(ruleset: Ruleset, players: Iterable[str], first_dealer: str) -> MatchState:
    players = tuple(players)
    check_table(ruleset, players, first_dealer)
    return MatchState(
        ruleset=ruleset,
        players=players,
        scores=dict.fromkeys(players, ruleset.starting_score),
        dealer=first_dealer,
        sets=dict.fromkeys(players, 0),
    )


def _is_tricks(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= TRICKS


def check_hand(state: MatchState, hand: Hand) -> None:
    """Raise RuleError for the first rule the hand breaks (§9); return None if it is sound."""
    _check(state, hand)


def _check(state: MatchState, hand: Hand) -> HandShape:
    """check_hand, answering the shape of the sound hand. It asks in the order a table
    answers (§9): the deal and the names, trump and the maker, who dropped out, the tricks."""
    if state.finished:
        raise RuleError("match_over", "The match is already over; no more hands can be played.")
    if hand.dealer is not None and hand.dealer != state.dealer:
        raise RuleError(
            "bad_dealer",
            f"It is {state.dealer}'s deal, not {hand.dealer}'s.",
            "dealer",
        )
    if hand.upcard not in SUITS:
        raise RuleError("bad_file", f"{hand.upcard!r} is not a suit.", "upcard")
    _check_names(state, hand)
    shape = state.shape(hand.upcard, hand.maker, hand.passed or hand.trump == NO_TRUMP)
    if hand.passed:
        _check_redeal(state.ruleset, hand, shape)
        _check_moon(state, hand, shape)
        return shape
    _check_trump_and_maker(state.ruleset, hand, shape)
    _check_moon(state, hand, shape)
    _check_drops(state, hand, shape)
    _check_tricks(state, hand, shape)
    return shape


def _check_names(state: MatchState, hand: Hand) -> None:
    """Everyone the hand names sits at the table, and nobody dropped out twice."""
    named = [hand.maker] if hand.maker is not None else []
    named += list(hand.dropped) + list(hand.tricks)
    strangers = [n for n in dict.fromkeys(named) if n not in state.players]
    if strangers:
        raise RuleError(
            "unknown_player",
            f"{join_names(strangers)} {_is(strangers)} not at this table.",
            "tricks",
        )
    twice = [p for p in state.players if hand.dropped.count(p) > 1]
    if twice:
        raise RuleError(
            "seat_count",
            f"{join_names(twice)} {_is(twice)} listed twice; each player either drops out "
            "or plays.",
            "dropped",
        )


def _check_redeal(r: Ruleset, hand: Hand, shape: HandShape) -> None:
    """A hand everybody passed is redealt where the rules say so, and nothing is played (§2)."""
    if shape.automatic:
        raise RuleError(
            "bad_trump",
            f"A turned {hand.upcard[:-1]} is trump automatically, so the hand can't be passed.",
            "trump",
        )
    if r.all_pass != REDEAL:
        raise RuleError(
            "bad_pass",
            "With these rules a hand where everybody passes is played with no trump, not redealt.",
            "trump",
        )
    if hand.dropped or hand.tricks:
        raise RuleError(
            "bad_pass",
            "Everybody passed and the cards are dealt again, so nobody dropped out or "
            "took a trick.",
            "tricks",
        )


def _check_trump_and_maker(r: Ruleset, hand: Hand, shape: HandShape) -> None:
    """Trump, the maker and the bid, as the upcard and the rules allow them (§2)."""
    if shape.automatic:
        if hand.trump is not None and hand.trump != shape.trump:
            raise RuleError(
                "bad_trump",
                f"A turned {hand.upcard[:-1]} makes {hand.upcard} trump, not "
                f"{'no trump' if hand.trump == NO_TRUMP else hand.trump}.",
                "trump",
            )
        if shape.maker is None and hand.maker is not None:
            raise RuleError(
                "bad_maker",
                f"Nobody makes trump when a {hand.upcard[:-1]} is turned, so {hand.maker} "
                "can't be the maker.",
                "maker",
            )
        if shape.maker is not None and hand.maker not in (None, shape.maker):
            raise RuleError(
                "bad_maker",
                f"On a turned {hand.upcard[:-1]} the dealer, {shape.maker}, is the maker, "
                f"not {hand.maker}.",
                "maker",
            )
        if hand.bid is not None:
            raise RuleError("bad_bid", f"Nobody bids when a {hand.upcard[:-1]} is turned.", "bid")
    elif hand.trump is None:
        raise RuleError(
            "bad_trump", "Say what was trump, or that it was played with no trump.", "trump"
        )
    elif hand.trump == NO_TRUMP:
        if r.all_pass == REDEAL:
            raise RuleError(
                "bad_pass",
                "With these rules, when everybody passes the cards are redealt; "
                "there is no no-trump hand.",
                "trump",
            )
        if hand.maker is not None:
            raise RuleError(
                "bad_maker",
                f"A no-trump hand has no maker, so {hand.maker} can't be the maker.",
                "maker",
            )
        if hand.bid is not None:
            raise RuleError("bad_bid", "A no-trump hand has no bid.", "bid")
    elif hand.trump not in SUITS:
        raise RuleError("bad_file", f"{hand.trump!r} is not a suit.", "trump")
    else:
        if hand.maker is None:
            raise RuleError("bad_maker", f"Say who made {hand.trump} trump.", "maker")
        if r.bidding == TRICK_BIDDING:
            if hand.bid is None:
                raise RuleError("bad_bid", f"Say how many tricks {hand.maker} bid.", "bid")
            if not _is_tricks(hand.bid) or hand.bid < r.min_bid:
                raise RuleError(
                    "bad_bid",
                    f"{hand.maker}'s bid must be from {r.min_bid} to {TRICKS}.",
                    "bid",
                )
        elif hand.bid is not None:
            raise RuleError("bad_bid", "With these rules trump is ordered up, not bid for.", "bid")


def _check_moon(state: MatchState, hand: Hand, shape: HandShape) -> None:
    """A moon only where the rules play it, by a maker on the board, on a bid of 5 (§4)."""
    if not hand.moon:
        return
    maker = shape.maker
    if not state.ruleset.moon:
        who = f", so {maker} can't declare it" if maker else ""
        raise RuleError("bad_moon", f"These rules have no shooting the moon{who}.", "moon")
    if hand.passed:
        raise RuleError("bad_moon", "Everybody passed, so nobody can shoot the moon.", "moon")
    if maker is None:
        why = (
            f"nobody makes trump when a {hand.upcard[:-1]} is turned"
            if shape.automatic
            else "a no-trump hand has no maker"
        )
        raise RuleError("bad_moon", f"Only a maker can shoot the moon, and {why}.", "moon")
    if not state.on_board(maker):
        raise RuleError(
            "bad_moon",
            f"{maker} can't shoot the moon: {maker} hasn't taken a trick or fallen short yet "
            "this match.",
            "moon",
        )
    if shape.asks_bid and hand.bid != TRICKS:
        raise RuleError(
            "bad_moon",
            MOON_BID.format(maker=maker, bid=hand.bid),
            "bid",
        )


def _check_drops(state: MatchState, hand: Hand, shape: HandShape) -> None:
    """Only those the rules let drop out did, and nobody both dropped out and played (§3)."""
    for p in hand.dropped:
        why = why_must_play(state, shape, p)
        if why is not None:
            raise RuleError("must_play", why, "dropped")
    crossed = [p for p in state.players if p in hand.dropped and p in hand.tricks]
    if crossed:
        raise RuleError(
            "seat_count",
            f"{join_names(crossed)} {_is(crossed)} listed twice, as dropped out and with "
            "tricks; each player either drops out or plays.",
            "dropped",
        )


def _check_tricks(state: MatchState, hand: Hand, shape: HandShape) -> None:
    """Every seat once, each a count of tricks, five in all (§1, §4)."""
    missing = [p for p in state.players if p not in hand.dropped and p not in hand.tricks]
    if missing:
        raise RuleError(
            "seat_count",
            f"{join_names(missing)} is missing from the hand: say whether they dropped out or "
            "how many tricks they took."
            if len(missing) == 1
            else f"{join_names(missing)} are missing from the hand: say whether each dropped out "
            "or how many tricks they took.",
            "tricks",
        )
    for p, n in hand.tricks.items():
        if not _is_tricks(n):
            raise RuleError(
                "bad_tricks",
                f"{p}'s tricks must be a whole number from 0 to {TRICKS}, not {n!r}.",
                "tricks",
            )
    total = sum(hand.tricks.values())
    if total != shape.tricks:
        raise RuleError(
            "tricks_total",
            TRICKS_TOTAL.format(n=total, tricks=shape.tricks),
            "tricks",
        )


def _outcome(
    state: MatchState, hand: Hand, shape: HandShape
) -> tuple[dict[str, int], tuple[str, ...], tuple[str, ...]]:
    """The changes of score of a checked hand, who was set and who was euchred (§4, §12)."""
    r = state.ruleset
    changes = dict.fromkeys(state.players, 0)
    needs = shape.needed(hand)
    set_, euchred = [], []
    for p in state.players:
        took = hand.tricks.get(p)
        if took is None:
            continue  # dropped, or nobody played
        # With no set penalty the maker is scored like everyone else who played (§4).
        if p == shape.maker and r.set_penalty is not None and needs is not None and took < needs:
            changes[p] = _penalty(r, state.scores[p], r.set_penalty)
            set_.append(p)
        elif took == 0:
            changes[p] = _penalty(r, state.scores[p], r.zero_trick_penalty)
        else:
            changes[p] = -took
        if took == 0:
            euchred.append(p)
    return changes, tuple(set_), tuple(euchred)


def _penalty(r: Ruleset, score: int, penalty: int) -> int:
    """A penalty, stopped at the starting score with `cap_at_start` (§4)."""
    if r.cap_at_start:
        return max(0, min(penalty, r.starting_score - score))
    return penalty


def play(state: MatchState, hand: Hand) -> tuple[MatchState, HandResult]:
    """Check and score one hand: the match after it, and what the hand did."""
    shape = _check(state, hand)
    r = state.ruleset
    changes, set_, euchred = _outcome(state, hand, shape)
    scores = {p: state.scores[p] + changes[p] for p in state.players}
    moon = shape.maker if hand.moon else None
    moon_made = moon is not None and hand.tricks.get(moon) == shape.tricks
    missed = moon if moon is not None and not moon_made else None
    short = set_ + euchred
    sets = state.sets
    if short or missed:
        # A missed moon counts as two hands fallen short, whatever set_penalty says (§6).
        sets = {p: n + (2 if p == missed else p in short) for p, n in sets.items()}
    sweep = None
    if r.sweep_wins and not hand.passed:
        for p, took in hand.tricks.items():
            lone = len(hand.tricks) == 1
            if took == shape.tricks and (not lone or r.lone_maker_sweeps):
                sweep = p
    winners: tuple[str, ...] = ()
    won_by: str | None = None
    if moon_made:
        assert moon is not None
        winners, won_by = (moon,), MOON
    elif sweep:
        winners, won_by = (sweep,), SWEEP
    elif not hand.passed:
        low = min(scores.values())
        if low <= 0:
            leaders = tuple(p for p in state.players if scores[p] == low)
            if r.ties == "lowest":
                winners = leaders
            elif r.ties == "share":
                winners = tuple(p for p in state.players if scores[p] <= 0)
            elif len(leaders) == 1:
                winners = leaders
            won_by = ZERO if winners else None
    number = state.hands + 1
    after = replace(
        state,
        scores=scores,
        dealer=state.left_of(state.dealer),
        hands=number,
        sets=sets,
        winners=winners,
        won_by=won_by,
    )
    result = HandResult(
        number,
        state.dealer,
        hand,
        changes,
        scores,
        shape,
        sweep=sweep,
        set=set_,
        euchred=euchred,
        sets=sets,
        moon=moon,
    )
    return after, result


def replay(state: MatchState, hands: Iterable[Hand]) -> tuple[MatchState, list[HandResult]]:
    """Fold hands over a match. A RuleError gets `hand`, the 1-based number at fault."""
    results = []
    for hand in hands:
        try:
            state, result = play(state, hand)
        except RuleError as e:
            e.hand = state.hands + 1
            raise
        results.append(result)
    return state, results
