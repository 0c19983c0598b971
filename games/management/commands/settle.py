import json
from typing import Any, NoReturn

from django.core.management.base import BaseCommand, CommandParser

from games import matchfile, rules
from games.management.commands.replay import read_file
from games.rules import EXACT_SEARCH_MOST, RuleError
from games.words import NOT_FEWEST


def fail(command: BaseCommand, path: str, error: RuleError, as_json: bool) -> NoReturn:
    """Report the first fault of a night, naming its file, then exit with status 1."""
    if as_json:
        command.stdout.write(
            json.dumps({"error": {"file": path, **matchfile.error_document(error)["error"]}})
        )
    else:
        command.stderr.write(f"{path}: {error.located()} ({error.code})")
    raise SystemExit(1)


def table(doc: dict[str, Any]) -> str:
    """The night for people: each match, each player's net and who pays whom."""
    currency = doc["currency"]
    width = max(len(m["file"]) for m in doc["matches"])
    lines = []
    for m in doc["matches"]:
        if not m["finished"]:
            result = "not finished: settles nothing"
        elif not m["net"]:
            result = "finished, no stakes"
        else:
            result = ", ".join(f"{p} {n}" for p, n in m["net"].items())
        lines.append(f"{m['file']:<{width}}  {result}")
    lines.append("")
    lines.append(f"Net ({currency}): " + ", ".join(f"{p} {n}" for p, n in doc["net"].items()))
    for t in doc["transfers"]:
        lines.append(f"{t['from']} pays {t['to']} {t['amount']} {currency}")
    if not doc["transfers"]:
        lines.append("Nobody owes anybody anything.")
    elif sum(rules.parse_money(n.lstrip("-")) > 0 for n in doc["net"].values()) > EXACT_SEARCH_MOST:
        lines.append(NOT_FEWEST)
    return "\n".join(lines)


class Command(BaseCommand):
    help = "Settle a night: each player's net over several match files and the fewest payments."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="+", metavar="FILE", help="match files, - for stdin")
        parser.add_argument("--json", action="store_true", help="print one JSON document")

    def handle(self, *args: Any, **options: Any) -> None:
        loaded: list[tuple[str, matchfile.Match, rules.MatchState]] = []
        for path in options["files"]:
            try:
                match, state, _ = matchfile.load(read_file(path))
            except RuleError as e:
                fail(self, path, e, options["json"])
            if loaded and match.stakes.currency != (currency := loaded[0][1].stakes.currency):
                error = RuleError(
                    "mixed_currency",
                    f"This match is played in {match.stakes.currency}, but {loaded[0][0]} in "
                    f"{currency}; settle each currency on its own.",
                )
                fail(self, path, error, options["json"])
            loaded.append((path, match, state))
        doc = matchfile.night_report(loaded)
        self.stdout.write(json.dumps(doc) if options["json"] else table(doc))
