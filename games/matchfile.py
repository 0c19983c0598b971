"""The `buck-euchre/1` match file (docs/format.md): parse, dump and the replay report.

Parsing checks every hand with the rules engine as it reads it, so the first fault found is
the first fault in the file, whether it is a typo or a broken rule.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import IO, Any, NoReturn, overload

from games import rules
from games.rules import Hand, MatchState, RuleError, Ruleset, Stakes

FORMAT = "buck-euchre/1"
TOP_KEYS = {"format", "rules", "stakes", "players", "first_dealer", "played_at", "hands"}
REQUIRED_KEYS = TOP_KEYS - {"stakes", "played_at"}
STAKE_KEYS = rules.STAKE_NAMES
HAND_KEYS = {"upcard", "trump", "maker", "bid", "moon", "dropped", "tricks", "passed", "dealer"}
# A redealt hand says no more than this; "moon" is let through for the engine to say that a
# passed hand has no moon (bad_moon), "moon": false being allowed anywhere.
PASSED_KEYS = {"upcard", "passed", "dealer", "moon"}
# ISO 8601 (extended format) with a UTC offset: "2026-11-28T19:30:00-06:00", "…T01:30Z".
INSTANT = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,6})?)?(Z|[+-][0-9]{2}:[0-9]{2})"
)


@dataclass(frozen=True)
class Match:
    preset: str
    ruleset: Ruleset
    stakes: Stakes
    players: tuple[str, ...]
    first_dealer: str
    hands: tuple[Hand, ...] = ()
    played_at: datetime | None = None  # when the match began; None: not said

    def start(self) -> MatchState:
        return rules.new_match(self.ruleset, self.players, self.first_dealer)

    def same_as(self, other: Match) -> bool:
        """Whether two matches are one: the same instant, table, rules, stakes and hands.

        Hands are compared as played, not as written: a `dealer` given or not, a turned
        automatic trump written out or not, the order of `dropped`; names as people, so
        "ann" is Ann (rules.name_key).
        """
        if self.played_at is None or other.played_at is None:
            return False
        return self._plain() == other._plain()

    def _plain(self) -> Match:
        players = self.players

        def plain(hand: Hand) -> Hand:
            automatic = hand.upcard == self.ruleset.auto_trump
            return replace(
                hand,
                dealer=None,
                trump=None if automatic else hand.trump,
                maker=None if automatic else hand.maker,
                dropped=tuple(sorted(hand.dropped, key=players.index)),
            )

        key = {p: rules.name_key(p) for p in players}
        return replace(
            self,
            players=tuple(key[p] for p in players),
            first_dealer=key.get(self.first_dealer, self.first_dealer),
            hands=tuple(rules.respell(plain(h), key) for h in self.hands),
        )


def _bad(message: str, hand: int | None = None) -> RuleError:
    return RuleError("bad_file", message, hand=hand)


class _Object(dict[str, Any]):
    """A JSON object as the file has it, with the first key it gives twice, if any (JSON
    itself would silently keep the last one)."""

    twice: str | None = None


def _object(pairs: Iterable[tuple[str, Any]]) -> _Object:
    obj = _Object()
    for key, value in pairs:
        if key in obj and obj.twice is None:
            obj.twice = key
        obj[key] = value
    return obj


def _once(obj: object, what: str, hand: int | None = None) -> None:
    twice = getattr(obj, "twice", None)
    if twice is not None:
        raise _bad(f"{what} has the key {twice!r} twice; give each key once.", hand)


def _keys(
    obj: Mapping[str, object],
    allowed: set[str],
    required: set[str],
    what: str,
    hand: int | None = None,
) -> None:
    _once(obj, what, hand)
    unknown = sorted(set(obj) - allowed)
    if unknown:
        raise _bad(f"{what} has an unknown key {unknown[0]!r}.", hand)
    missing = sorted(k for k in required if k not in obj)
    if missing:
        raise _bad(f"{what} is missing the key {missing[0]!r}.", hand)


def _rules(value: object) -> tuple[str, Ruleset]:
    if isinstance(value, str):
        return value, rules.make_ruleset(value)
    if not isinstance(value, dict):
        raise _bad('"rules" must be a preset name or an object.')
    _once(value, "The rules")
    options = dict(value)
    if "preset" not in options:
        raise RuleError("bad_rules", 'The rules need a "preset" to start from.', "preset")
    preset = options.pop("preset")
    return preset, rules.make_ruleset(preset, **options)


def _stakes(value: object, preset: str) -> Stakes:
    if value is None:
        return rules.PRESETS[preset].stakes
    if not isinstance(value, dict):
        raise _bad('"stakes" must be an object.')
    _keys(value, {*STAKE_KEYS, "currency"}, set(), "The stakes")
    amounts: dict[str, int] = {}
    for key in STAKE_KEYS:
        try:
            amounts[key] = rules.parse_money(value.get(key, "0"))
        except ValueError:
            raise _bad(
                f'The stake {key} must be an amount written as a string, like "1.00".'
            ) from None
    currency = value.get("currency", "USD")
    if not isinstance(currency, str) or not rules.plain_text(currency):
        raise _bad("The currency must be a short label such as USD or $.")
    return Stakes(**amounts, currency=currency)


def _names(value: object, what: str, hand: int | None = None) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(n, str) for n in value):
        raise _bad(f"{what} must be a list of names.", hand)
    return [name.strip() for name in value]


@overload
def _name(value: str) -> str: ...
@overload
def _name(value: None) -> None: ...
def _name(value: str | None) -> str | None:
    """A name as the table means it: spaces around it are dropped wherever it is read (and
    nothing else: "ann" is not Ann in a file, docs/format.md)."""
    return value.strip() if isinstance(value, str) else value


def _tricks(value: dict[str, Any], number: int) -> dict[str, Any]:
    # The counts as the file gives them: rules.play checks that each is a number of tricks.
    def twice(name: str) -> RuleError:
        message = f"{name} is listed twice; each player either drops out or plays."
        return RuleError("seat_count", message, "tricks", hand=number)

    if isinstance(value, _Object) and value.twice is not None:
        raise twice(_name(value.twice))
    tricks: dict[str, Any] = {}
    for name, n in value.items():
        name = _name(name)
        if name in tricks:
            raise twice(name)
        tricks[name] = n
    return tricks


def _played_at(value: object) -> datetime | None:
    if value is None:
        return None
    wrong = _bad(
        '"played_at" must be a date and time with its UTC offset, like "2026-11-28T19:30:00-06:00".'
    )
    if not isinstance(value, str) or not INSTANT.fullmatch(value):
        raise wrong
    try:
        when = datetime.fromisoformat(value)
        when.astimezone(UTC)  # a year 1 or 9999 instant may not exist in UTC
    except (ValueError, OverflowError):
        raise wrong from None
    return when


def _hand(value: object, number: int) -> Hand:
    # Each message is located by its hand (RuleError.located: "Hand 2: …"), so it does not
    # name the hand itself.
    if not isinstance(value, dict):
        raise _bad("A hand must be an object.", number)
    passed = value.get("passed", False)
    if not isinstance(passed, bool):
        raise _bad("passed must be true or false.", number)
    if passed and set(value) - PASSED_KEYS:
        extra = sorted(set(value) - PASSED_KEYS)[0]
        raise _bad(f"It was passed and redealt, so it can't have {extra!r}.", number)
    _keys(value, HAND_KEYS, {"upcard"}, "The hand", number)
    if not passed and "tricks" not in value:
        raise _bad("The hand is missing the key 'tricks'.", number)
    upcard = value["upcard"]
    if upcard not in rules.SUITS:
        raise _bad(f"The upcard must be one of {', '.join(rules.SUITS)}.", number)
    trump = value.get("trump")
    if trump is not None and trump not in (*rules.SUITS, rules.NO_TRUMP):
        raise _bad('trump must be a suit or "none".', number)
    for key in ("maker", "dealer"):
        if value.get(key) is not None and not isinstance(value[key], str):
            raise _bad(f"{key} must be a name.", number)
    moon = value.get("moon", False)
    if not isinstance(moon, bool):
        raise _bad("moon must be true or false.", number)
    tricks = value.get("tricks", {})
    if not isinstance(tricks, dict):
        raise _bad("tricks must map each player who played to their tricks.", number)
    return Hand(
        upcard=upcard,
        trump=trump,
        maker=_name(value.get("maker")),
        bid=value.get("bid"),
        dropped=tuple(_names(value.get("dropped", []), "dropped", number)),
        tricks=_tricks(tricks, number),
        passed=passed,
        dealer=_name(value.get("dealer")),
        moon=moon,
    )


def _not_json(constant: str) -> NoReturn:
    """NaN, Infinity and -Infinity, which Python's reader takes and JSON has not."""
    raise ValueError(f"{constant} is not JSON")


def load(data: object) -> tuple[Match, MatchState, list[rules.HandResult]]:
    """Read a match file (text or parsed JSON) and replay it; raise RuleError on the first fault."""
    if isinstance(data, (str, bytes)):
        try:
            data = json.loads(data, object_pairs_hook=_object, parse_constant=_not_json)
        except (ValueError, RecursionError):
            raise _bad("This is not a JSON file.") from None
    if not isinstance(data, dict):
        raise _bad("A match file is a JSON object.")
    if data.get("format") != FORMAT:
        raise _bad(f'This is not a match file: "format" must be "{FORMAT}".')
    _keys(data, TOP_KEYS, REQUIRED_KEYS, "The match file")
    preset, ruleset = _rules(data["rules"])
    stakes = _stakes(data.get("stakes"), preset)
    players = _names(data["players"], '"players"')
    first_dealer = data["first_dealer"]
    if not isinstance(first_dealer, str):
        raise _bad('"first_dealer" must be a name.')
    first_dealer = _name(first_dealer)
    played_at = _played_at(data.get("played_at"))
    if not isinstance(data["hands"], list):
        raise _bad('"hands" must be a list.')
    state = rules.new_match(ruleset, players, first_dealer)
    hands: list[Hand] = []
    results: list[rules.HandResult] = []
    for number, value in enumerate(data["hands"], 1):
        hand = _hand(value, number)
        try:
            state, result = rules.play(state, hand)
        except RuleError as e:
            e.hand = number
            raise
        hands.append(hand)
        results.append(result)
    match = Match(preset, ruleset, stakes, tuple(players), first_dealer, tuple(hands), played_at)
    return match, state, results


def parse(data: object) -> Match:
    return load(data)[0]


def read(data: bytes, limit: int) -> Match:
    """The match of a match file's bytes, at most `limit` of them; RuleError if it is not one."""
    if len(data) > limit:
        raise _bad(f"That file is too large: a match file is at most {_mb(limit)}.")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise _bad("That is not a match file (it is not text).") from None
    return parse(text)


def _mb(size: int) -> str:
    return f"{size / 1_000_000:.3g} MB"


def is_zip(head: bytes) -> bool:
    """Whether a file beginning with `head` (its first four bytes) is a zip."""
    return head[:4] in (b"PK\x03\x04", b"PK\x05\x06")


def unzip(
    archive: IO[bytes], file_limit: int, most_files: int, most_bytes: int
) -> list[tuple[str, bytes]]:
    """Each file of a zip of match files (a backup), as (name, bytes), in the zip's order.

    `archive` is a binary file. The zip is at most `most_bytes`, and its own list of its files
    is checked before anything is unpacked: at most `most_files` of them, side by side (no
    folders), each at most `file_limit` bytes unpacked and all of them at most `most_bytes`,
    so that a small zip can't unpack to a huge one.
    RuleError (bad_file) in words for the zip as a whole otherwise.
    """
    size = archive.seek(0, io.SEEK_END)
    if size > most_bytes:
        raise _bad(f"That zip is too large: a zip to import is at most {_mb(most_bytes)}.")
    try:
        with zipfile.ZipFile(archive) as z:
            members = z.infolist()
            _check_members(members, file_limit, most_files, most_bytes)
            out = []
            for info in members:
                with z.open(info) as f:
                    data = f.read(file_limit + 1)  # never more than declared, whatever it holds
                if len(data) > file_limit:
                    raise _bad(f"{info.filename} in that zip is larger than it says.")
                out.append((info.filename, data))
            return out
    except RuleError:
        raise
    except (zipfile.BadZipFile, NotImplementedError, RuntimeError, EOFError, zlib.error):
        # A damaged zip, a bad checksum, a password, or a packing zipfile does not read.
        raise _bad(
            "That zip can't be unpacked: it is damaged, locked with a password, or packed "
            'in a way the score keeper can\'t read. "Download all your matches" makes one '
            "that imports."
        ) from None


def _check_members(
    members: list[zipfile.ZipInfo], file_limit: int, most_files: int, most_bytes: int
) -> None:
    if len(members) > most_files:
        raise _bad(
            f"That zip holds {len(members):,} files; a zip to import holds at most "
            f"{most_files:,} match files."
        )
    for info in members:
        if "/" in info.filename or "\\" in info.filename:
            raise _bad(
                f"That zip keeps {info.filename} in a folder: import a zip of match files side "
                'by side, as "Download all your matches" makes it.'
            )
        if info.file_size > file_limit:
            raise _bad(
                f"{info.filename} in that zip is too large: a match file is at most "
                f"{_mb(file_limit)}."
            )
    total = sum(info.file_size for info in members)
    if total > most_bytes:
        raise _bad(
            f"That zip unpacks to {_mb(total)}; a zip to import unpacks to at most "
            f"{_mb(most_bytes)}."
        )


def dump_hand(hand: Hand) -> dict[str, object]:
    out: dict[str, object] = {"upcard": hand.upcard}
    if hand.passed:
        out["passed"] = True
    else:
        for key in ("trump", "maker", "bid"):
            if getattr(hand, key) is not None:
                out[key] = getattr(hand, key)
        if hand.moon:
            out["moon"] = True
        if hand.dropped:
            out["dropped"] = list(hand.dropped)
        out["tricks"] = dict(hand.tricks)
    if hand.dealer is not None:
        out["dealer"] = hand.dealer
    return out


def dump(match: Match) -> dict[str, Any]:
    overrides = rules.ruleset_overrides(match.preset, match.ruleset)
    return {
        "format": FORMAT,
        "rules": {"preset": match.preset, **overrides} if overrides else match.preset,
        "stakes": {
            **{k: rules.format_money(getattr(match.stakes, k)) for k in STAKE_KEYS},
            "currency": match.stakes.currency,
        },
        "players": list(match.players),
        "first_dealer": match.first_dealer,
        **({"played_at": match.played_at.isoformat()} if match.played_at else {}),
        "hands": [dump_hand(h) for h in match.hands],
    }


def dumps(match: Match) -> str:
    """The match file's text, as export writes it."""
    return json.dumps(dump(match), indent=2, ensure_ascii=False) + "\n"


def report(match: Match, state: MatchState, results: list[rules.HandResult]) -> dict[str, Any]:
    """The document `replay --json` prints."""
    payments, net = rules.settle(state, match.stakes)
    return {
        "players": list(match.players),
        "hands": [
            {"number": r.number, "dealer": r.dealer, "changes": r.changes, "scores": r.scores}
            for r in results
        ],
        "scores": state.scores,
        "finished": state.finished,
        "winners": list(state.winners),
        "won_by": state.won_by,
        "payouts": [
            {"from": p.payer, "to": p.payee, "amount": rules.format_money(p.cents)}
            for p in payments
        ],
        "net": {p: rules.format_money(c) for p, c in net.items()},
    }


def error_document(error: RuleError) -> dict[str, Any]:
    return {"error": {"hand": error.hand, "code": error.code, "message": error.message}}


def night_report(matches: list[tuple[str, Match, MatchState]]) -> dict[str, Any]:
    """The document `settle --json` prints for (file, match, state) of one currency (§11)."""
    entries: list[dict[str, object]] = []
    net: dict[str, int] = {}
    for name, match, state in matches:
        _, match_net = rules.settle(state, match.stakes)
        entries.append(
            {
                "file": name,
                "finished": state.finished,
                "net": {p: rules.format_money(c) for p, c in match_net.items()},
            }
        )
        for p in match.players:  # one person across files: one name (docs/rules.md §11)
            net[p] = net.get(p, 0) + match_net.get(p, 0)
    return {
        "matches": entries,
        "net": {p: rules.format_money(c) for p, c in net.items()},
        "transfers": [
            {"from": t.payer, "to": t.payee, "amount": rules.format_money(t.cents)}
            for t in rules.settle_nets(net)[0]
        ],
        "currency": matches[0][1].stakes.currency if matches else "USD",
    }
