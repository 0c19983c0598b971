"""How fast the rules engine scores hands, and how fast `replay` runs a whole file.

Builds long valid matches of every preset (starting scores raised and sweeps turned off so a
match lasts), then prints hands scored per second by the engine alone and by the `replay`
command end to end, process start included. Run with `make bench`.
"""

import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from games import matchfile, rules  # noqa: E402
from tests.matches import random_match  # noqa: E402

LONG = {"starting_score": 10**6, "sweep_wins": False}


def long_matches(total: int, rnd: random.Random) -> list[matchfile.Match]:
    per_preset = total // len(rules.PRESETS)
    return [random_match(rnd, p, max_hands=per_preset, **LONG) for p in sorted(rules.PRESETS)]


def engine_rate(matches) -> tuple[int, float]:
    hands = sum(len(m.hands) for m in matches)
    best = float("inf")
    for _ in range(5):
        t = time.perf_counter()
        for m in matches:
            rules.replay(m.start(), m.hands)
        best = min(best, time.perf_counter() - t)
    return hands, best


def command_time(match: matchfile.Match) -> float:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(matchfile.dump(match), f)
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        subprocess.run(
            [sys.executable, "manage.py", "replay", f.name, "--json"],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        best = min(best, time.perf_counter() - t)
    Path(f.name).unlink()
    return best


def main():
    rnd = random.Random(2026)
    matches = long_matches(10_000, rnd)
    hands, seconds = engine_rate(matches)
    print(f"engine: {hands} hands of {len(matches)} presets in {seconds * 1000:.1f} ms")
    print(f"engine: {hands / seconds:,.0f} hands/s, {seconds / hands * 1e6:.1f} µs a hand")

    thousand = random_match(rnd, "standard", max_hands=1000, **LONG)
    empty = random_match(rnd, "standard", max_hands=0)
    full, bare = command_time(thousand), command_time(empty)
    print(f"replay command, 1,000-hand file, process start included: {full * 1000:.0f} ms")
    print(f"replay command, empty match (process start alone): {bare * 1000:.0f} ms")
    print(
        f"replay command: {len(thousand.hands) / full:,.0f} hands/s end to end;"
        f" the hands cost {(full - bare) / full:.0%} of the run"
    )


if __name__ == "__main__":
    main()
