import json
import sys
from typing import Any, NoReturn

from django.core.management.base import BaseCommand, CommandParser

from games import matchfile, rules, words
from games.rules import RuleError


def read_file(path: str) -> str:
    """The text of a match file, `-` being standard input; an unreadable file is `bad_file`."""
    try:
        if path == "-":
            return sys.stdin.read()
        with open(path, encoding="utf-8-sig") as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise RuleError(
            "bad_file", f"Can't read {path}: {getattr(e, 'strerror', None) or e}."
        ) from None


def fail(command: BaseCommand, error: RuleError, as_json: bool) -> NoReturn:
    """Report a bad file the way docs/format.md says, then exit with status 1."""
    if as_json:
        command.stdout.write(json.dumps(matchfile.error_document(error)))
    else:
        command.stderr.write(f"{error.located()} ({error.code})")
    raise SystemExit(1)


def _signed(n: int) -> str:
    return f"{n:+d}" if n else "0"


def table(match: matchfile.Match, doc: dict[str, Any]) -> str:
    """The replay as a table for people: each hand's changes and running scores."""
    players = doc["players"]
    width = max(8, *(len(p) + 1 for p in players))
    house = rules.ruleset_overrides(match.preset, match.ruleset)
    lines = [
        f"Rules: {match.preset}"
        + "".join(f", {name} = {words.option_text(name, v)}" for name, v in house.items()),
        "",
        f"{'Hand':>4}  {'Dealer':<{width}}" + "".join(f"{p:>{width}}" for p in players),
        f"{'':>4}  {'start':<{width}}"
        + "".join(f"{match.ruleset.starting_score:>{width}}" for _ in players),
    ]
    for hand in doc["hands"]:
        cells = (f"{_signed(hand['changes'][p])} {hand['scores'][p]:>3}" for p in players)
        lines.append(
            f"{hand['number']:>4}  {hand['dealer']:<{width}}"
            + "".join(f"{c:>{width}}" for c in cells)
        )
    lines.append("")
    if doc["finished"]:
        lines.append(f"{words.winners(doc['winners'])} ({words.won_by(doc['won_by'])}).")
        currency = match.stakes.currency
        for p in doc["payouts"]:
            lines.append(f"{p['from']} pays {p['to']} {p['amount']} {currency}")
        if doc["net"]:
            lines.append("Net: " + ", ".join(f"{p} {n}" for p, n in doc["net"].items()))
    else:
        lines.append("The match goes on.")
    return "\n".join(lines)


class Command(BaseCommand):
    help = "Check a buck-euchre/1 match file with the rules engine and print the match."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="the match file, or - for standard input")
        parser.add_argument("--json", action="store_true", help="print one JSON document")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            match, state, results = matchfile.load(read_file(options["file"]))
        except RuleError as e:
            fail(self, e, options["json"])
        doc = matchfile.report(match, state, results)
        if options["json"]:
            self.stdout.write(json.dumps(doc))
        else:
            self.stdout.write(table(match, doc))
