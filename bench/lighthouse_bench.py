"""Lighthouse's four scores (mobile) on the pages a table uses most, and what a board's first
load sends.

Serves the app as a server would (gunicorn, DEBUG=False, a strong SECRET_KEY, collected static
files served compressed by WhiteNoise) on a SQLite file of its own, plain HTTP on 127.0.0.1.
Signs a player up, imports an evening of four match files through the app (a 20-hand match
still going and three that make a night with it), then runs Lighthouse 12 on the log-in page,
home, the 20-hand board, the night, a player's page and the shared board, signed in by the
session's cookies where the page needs them. Prints the performance, accessibility,
best-practices and SEO scores of each page, then each request of the board's first load (the
page, its styles, scripts, icon and manifest, as Lighthouse's network records list them): its
body as the server sends it (gzip or Brotli), and its bytes on the wire with the headers of
plain HTTP/1.1, which HTTP/2 behind a real proxy mostly compresses away.

Needs Node and Lighthouse 12 (`npm install lighthouse@12` in a folder outside the repository,
then LIGHTHOUSE=that/folder, or run from it) and Chromium (CHROME_PATH, default
/usr/bin/chromium). Without them it says so and stops. Run with
`.venv/bin/python bench/lighthouse_bench.py [--runs N] [--keep DIR]`: each page is scored N
times (3), each time in a fresh browser, and the median shown, as Lighthouse advises on a
machine whose load varies; DIR keeps every JSON report.
"""

import argparse
import itertools
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from games import matchfile  # noqa: E402
from tests.liveserver import Phone, serve  # noqa: E402
from tests.matches import CAT_WINS, CLUB, SWEEP, twenty_hands  # noqa: E402

CHROME = os.environ.get("CHROME_PATH", "/usr/bin/chromium")
CHROME_FLAGS = (
    "--headless=new --no-sandbox --disable-gpu --disable-quic --no-first-run "
    "--disable-background-networking --disable-component-update --disable-sync"
)
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
FIRST_LOAD_LIMIT = 30_000  # bytes a board's first load may transfer, compressed
TABLE = {
    "format": "buck-euchre/1",
    "rules": "standard",
    "stakes": {"per_game": "1.00", "per_point": "0.10", "currency": "USD"},
    "players": ["Ann", "Bob", "Cat", "Dan"],
    "first_dealer": "Dan",
}


def lighthouse_package() -> Path | None:
    """The folder of the installed Lighthouse package, or None when there is none: the one
    LIGHTHOUSE names (the package, the folder it was installed in, or its `lighthouse`
    command), else the `lighthouse` command on PATH, else the one Node finds from here."""
    candidates = []
    if os.environ.get("LIGHTHOUSE"):
        given = Path(os.environ["LIGHTHOUSE"]).resolve()
        candidates += [given, given / "node_modules" / "lighthouse"]
    elif shutil.which("lighthouse"):
        candidates.append(Path(shutil.which("lighthouse")).resolve())
    elif shutil.which("node"):
        found = subprocess.run(
            ["node", "-p", "require.resolve('lighthouse/package.json')"],
            capture_output=True,
            text=True,
        )
        if found.returncode == 0:
            candidates.append(Path(found.stdout.strip()))
    for candidate in candidates:
        for folder in (candidate, *candidate.parents):
            if (folder / "package.json").exists() and (folder / "core" / "index.js").exists():
                return folder
    return None


# Lighthouse through its Node API, in a fresh browser a page, as its command line runs it (a
# phone's screen, throttled network and processor), but signed in the way a browser is: the
# session's cookies in the browser's own cookie jar. A Cookie header (`--extra-headers`)
# would sign in the page itself only: every page with a form sets the CSRF cookie, and from
# then on the browser sends its jar's cookies in place of the header, so the board's first
# poll would come back signed out and send the page to the log-in form.
RUNNER = """
import fs from "node:fs";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const [lighthouseFolder, chrome, flags, jobsFile] = process.argv.slice(2);
const { default: lighthouse } = await import(pathToFileURL(`${lighthouseFolder}/core/index.js`));
const puppeteer = createRequire(`${lighthouseFolder}/package.json`)("puppeteer-core");

async function score(job) {
  const options = { executablePath: chrome, headless: true, args: flags.split(" ") };
  const browser = await puppeteer.launch(options);
  try {
    if (job.cookies.length) await browser.setCookie(...job.cookies);
    const page = await browser.newPage();
    const flagsLh = { output: "json", logLevel: "error", onlyCategories: job.categories };
    return await lighthouse(job.url, flagsLh, undefined, page);
  } finally {
    await browser.close();
  }
}

for (const job of JSON.parse(fs.readFileSync(jobsFile, "utf8"))) {
  // A run whose trace failed (NO_NAVSTART and the like, on a busy machine) is run again.
  let result = await score(job);
  for (let retry = 0; retry < 2 && result.lhr.runtimeError; retry++) result = await score(job);
  fs.writeFileSync(job.out, result.report);
}
"""


def evening() -> list[tuple[str, str]]:
    """Four match files begun this evening: a 20-hand match still going, and three earlier
    ones that make a night with it."""
    now = datetime.now(ZoneInfo("America/Chicago")).replace(microsecond=0)
    long = twenty_hands()
    long_file = {**matchfile.dump(long), "stakes": TABLE["stakes"]}
    long_file["played_at"] = (now - timedelta(minutes=30)).isoformat()
    files = [("long.json", json.dumps(long_file))]
    for hours, hands in ((3, CAT_WINS), (2, SWEEP), (1, [CLUB])):
        played_at = (now - timedelta(hours=hours)).isoformat()
        files.append(
            (f"match-{hours}.json", json.dumps({**TABLE, "played_at": played_at, "hands": hands}))
        )
    return files


def pages(phone: Phone) -> dict[str, tuple[str, bool]]:
    """Each page to score: its URL, and whether it needs the session."""
    base = phone.base
    files = [("file", (name, text, "application/json")) for name, text in evening()]
    matches = phone.http.get(base + "/matches/").text
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', matches).group(1)
    answer = phone.http.post(base + "/matches/import/", {"csrfmiddlewaretoken": token}, files=files)
    assert "4 matches imported." in answer.text, answer.text[:2000]
    cards = re.findall(r'href="/matches/(\d+)/".*?class="card-meta">([^<]*)<', answer.text, re.S)
    board = next(pk for pk, meta in cards if meta.startswith("20 hands"))
    home = phone.http.get(base + "/").text
    board_page = phone.page(int(board))
    shared = re.search(r'href="(?:http://[^/"]+)?(/s/[^/"]+/)"', board_page).group(1)
    night = re.search(r'href="(/nights/\d+/)"', home).group(1)
    night_page = phone.http.get(base + night).text
    player = re.search(r'href="(/players/\d+/)"', night_page).group(1)
    return {
        "log-in": (base + "/accounts/login/", False),
        "home": (base + "/", True),
        "board (20 hands)": (f"{base}/matches/{board}/", True),
        "night": (base + night, True),
        "player": (base + player, True),
        "shared board": (base + shared, False),
    }


def run_lighthouse(package: Path, jobs: list[dict], folder: Path) -> None:
    runner = folder / "run-lighthouse.mjs"
    runner.write_text(RUNNER)
    (folder / "jobs.json").write_text(json.dumps(jobs))
    command = ["node", str(runner), str(package), CHROME, CHROME_FLAGS, str(folder / "jobs.json")]
    subprocess.run(command, check=True, timeout=300 * len(jobs))


def failed_audits(report: dict) -> list[str]:
    """The audits that cost a category points, by name."""
    names = []
    for category in report["categories"].values():
        for ref in category["auditRefs"]:
            audit = report["audits"][ref["id"]]
            if ref["weight"] and audit["score"] is not None and audit["score"] < 1:
                names.append(f"{ref['id']} ({audit['score']:.2f})")
    return sorted(set(names))


def first_load(report: dict) -> list[tuple[str, int]]:
    """What the page's load fetched, by URL, and the bytes each took on the wire (headers and
    compressed body), from Lighthouse's network records; a poll sent after the load is not
    part of it, nor a second look-up of a URL already fetched."""
    items = report["audits"]["network-requests"]["details"]["items"]
    loaded = {}
    for item in items:
        if item.get("resourceType") not in ("XHR", "Fetch"):
            loaded.setdefault(item["url"], int(item.get("transferSize") or 0))
    return list(loaded.items())


def body_bytes(http, url: str) -> tuple[int, str]:
    """The bytes of a response's body as sent, compressed where the server compresses it."""
    response = http.get(url, headers={"Accept-Encoding": "br, gzip"}, stream=True)
    assert response.status_code == 200, url
    return len(response.raw.read(decode_content=False)), response.headers.get(
        "Content-Encoding", "-"
    )


def slug(name: str) -> str:
    return re.sub(r"\W+", "-", name).strip("-")


def median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="runs a page (the median is shown)")
    parser.add_argument("--keep", type=Path, help="a folder to keep each run's JSON report in")
    parser.add_argument("--page", action="append", help="only this page (log-in, home, board …)")
    args = parser.parse_args()
    package = lighthouse_package() if shutil.which("node") else None
    if package is None:
        print(
            "Lighthouse is not installed, nothing was measured: `npm install lighthouse@12` "
            "in a folder outside the repository, and run this from that folder or with "
            "LIGHTHOUSE=that/folder."
        )
        return
    if not Path(CHROME).exists():
        print(f"No Chromium at {CHROME} (apt-get install chromium, or set CHROME_PATH).")
        return
    server = {
        "DEBUG": "False",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "HTTPS": "false",
        "ALLOWED_HOSTS": "127.0.0.1",
    }
    folder = Path(tempfile.mkdtemp())
    reports = args.keep or folder
    reports.mkdir(parents=True, exist_ok=True)
    database = f"sqlite:///{folder}/lighthouse.sqlite3"
    env = {**os.environ, "DATABASE_URL": database, **server}
    collect = [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"]
    subprocess.run(collect, cwd=ROOT, env=env, check=True)
    with serve(workers=2, database=database, **server) as (base, _):
        phone = Phone(base, "lighthouse", signup=True)
        cookies = [
            {"name": c.name, "value": c.value, "domain": "127.0.0.1", "path": "/"}
            for c in phone.http.cookies
        ]
        jobs = [
            {
                "name": name,
                "url": url,
                "cookies": cookies if signed_in else [],
                "categories": list(CATEGORIES),
                "out": str(reports / f"{slug(name)}-{run}.json"),
            }
            for name, (url, signed_in) in pages(phone).items()
            if not args.page or any(name.startswith(page) for page in args.page)
            for run in range(1, args.runs + 1)
        ]
        run_lighthouse(package, jobs, folder)
        version = json.loads((package / "package.json").read_text())["version"]
        print(f"Lighthouse {version}, mobile, the median of {args.runs} runs a page")
        print("page                  perf  a11y  best   seo   (perf of each run)")
        board = None
        for name, runs in itertools.groupby(jobs, key=lambda job: job["name"]):
            reports = [json.loads(Path(job["out"]).read_text()) for job in runs]
            runs = [r for r in reports if not r.get("runtimeError")]
            failed = [r["runtimeError"]["code"] for r in reports if r.get("runtimeError")]
            if not runs:
                print(f"{name:20s}  Lighthouse failed: {', '.join(failed)}")
                continue
            scores = [[r["categories"][c]["score"] or 0 for r in runs] for c in CATEGORIES]
            shown = "  ".join(f"{round(median(s) * 100):4d}" for s in scores)
            each = " ".join(str(round(score * 100)) for score in scores[0])
            also = f", {len(failed)} failed: {', '.join(failed)}" if failed else ""
            print(f"{name:20s}  {shown}   ({each}{also})")
            middle = sorted(runs, key=lambda r: r["categories"]["performance"]["score"] or 0)
            for audit in failed_audits(middle[len(runs) // 2]):
                print(f"{'':22s}{audit}")
            if name.startswith("board"):
                board = runs[0]
        if board is not None:
            loaded = first_load(board)
            print("\nthe board's first load, by request: body as sent, on the wire with headers")
            bodies = 0
            for url, wire in loaded:
                size, encoding = body_bytes(phone.http, url)
                bodies += size
                print(f"  {size:7,d} {encoding:4s} {wire:7,d}  {url.removeprefix(base)}")
            wire = sum(size for _, size in loaded)
            print(
                f"  {bodies:7,d}      {wire:7,d}  in all: the bodies are "
                f"{bodies / FIRST_LOAD_LIMIT:.2f}× the {FIRST_LOAD_LIMIT // 1000} KB aim"
            )
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
