/* The phone's twin of the rules' arithmetic: games/games.rules, for a page that must answer a tap
 * and show the scores while the server can't be reached. The server still judges every hand:
 * nothing here checks or refuses (a hand games.rules would refuse is scored as it stands) and
 * nothing here is worded (the sentences are the server's). tests/test_twin.py runs generated
 * matches of every preset and every option through both and compares every number; an option
 * added to games.rules without its twin here fails it.
 *
 * A classic script (a <script src> or mini-racer's eval): it sets globalThis.BuckRules and
 * nothing else. Everything in and out is plain JSON-friendly data, named as games.rules names it.
 *
 * Shapes
 *   ruleset  {starting_score, players: [3, 4, 5, 6], auto_trump, auto_trump_dealer_needs,
 *             bidding, maker_needs, min_bid, all_pass, no_drop_at_or_below, set_penalty,
 *             zero_trick_penalty, sweep_wins, lone_maker_sweeps, ties, cap_at_start, moon,
 *             count_up}: Ruleset.options(), every option given. BuckRules.OPTIONS are those
 *             this twin knows, with Ruleset's defaults (BuckRules.DEFAULTS): the twin test
 *             holds both equal to games.rules', so that an option added there alone fails it.
 *   state    {ruleset, players: [names in seat order], scores: {name: n}, dealer: name (who
 *             deals next), hands: n played, sets: {name: n fallen short}, winners: [names],
 *             won_by: "moon" | "sweep" | "zero" | null}: MatchState.data(), as the board
 *             gives it (#twin-data); the phone never starts a match.
 *   hand     {upcard: suit, trump: suit | "none" | null, maker: name | null, bid: n | null,
 *             moon: bool, dropped: [names], tricks: {name: n}, passed: bool}: Hand (missing
 *             fields as there).
 *   shape    {upcard, automatic, trump, default_trump, maker, needs, asks_bid, bids: [n],
 *             all_pass, must_play: {name: "maker" | "turned" | "no_trump" | "low_score"},
 *             passed, asks: ["maker", "trump", "bid", "moon", "dropped", "tricks"] (those
 *             asked, in order), tricks: 5, trick_counts: [0..5], redeal: bool, moon: bool (the
 *             maker may shoot the moon)}: HandShape.
 *   result   {number, dealer, hand, changes: {name: n}, scores: {name: n}, shape, sweep: name |
 *             null, set: [names], euchred: [names], short: [names], sets: {name: n}, moon:
 *             name | null (who declared it), moon_made: bool}: HandResult.
 *   stakes   {per_game, per_point, per_set} in whole cents: Stakes; the board gives null
 *             where the match is not played for money.
 *
 * Functions
 *   shape(state, upcard, maker = null, passed = false) -> shape     MatchState.shape
 *   needed(shape, hand) -> n | null      the tricks the maker needed  HandShape.needed
 *   fillIn(shape, tricks) -> tricks      {name: n | null} with the rows the others fix
 *                                                                    HandShape.fill_in
 *   nextQuestion(shape, bid, moon, told) -> null | [kind, ...what it is worded with]: the
 *       first question of the hand not yet answered                  HandShape.next_question
 *   whyMustPlay(state, shape, player) -> null | {code, p, turned, score, limit, up}: the key
 *       of MUST_PLAY_WORDS (LOW_SCORE_UP_WORDS where `up`) and what its sentence is formatted
 *       with, the score and limit as the table sees them             rules.why_must_play
 *   onBoard(state, player) -> bool       played an earlier hand (may shoot the moon)
 *                                                                    MatchState.on_board
 *   shown(ruleset, score) -> n           a score as the table sees it (count_up)
 *                                                                    rules.shown_score
 *   mustPlay(state) -> [names]           who may not drop out of the next hand for their score
 *                                                                    MatchState.must_play
 *   leftOf(state, name) -> name          the next dealer              MatchState.left_of
 *   finished(state) -> bool                                          MatchState.finished
 *   play(state, hand) -> {state, result} the match after the hand    rules.play
 *   replay(state, hands) -> {state, results}                         rules.replay
 *   owes(stakes, score, sets) -> cents   what one loser pays         rules.owes
 *   settle(state, stakes) -> {payments: [{payer, payee, cents}], net: {name: cents}}; both
 *       empty until the match is over or when it is not for money   rules.settle
 * and, with the words the page gives (the sentences stay words.py's):
 *   joinNames(names) -> text             "Ann, Bob and Cat"          rules.join_names
 *   fill(text, values) -> text           its {names} put in          str.format
 *   inWords(result, words) -> text       a hand in a few words       words.hand_in_words
 *   money(cents, currency) -> text       "$1.70", "−$0.40", "1.70 CHF" words.money
 *   signedMoney(cents, currency) -> text "+$1.70"                    words.signed_money
 *       (`currency`: [before, after] the amount, words.money_parts)
 * Cents are exact while every amount stays under 2^53 (Number.MAX_SAFE_INTEGER), some 90
 * trillion dollars; Python's are exact at any size.
 *
 * Name maps are built without a prototype, so a player called "__proto__" or "constructor" is
 * a name like any other; a state read from JSON.parse is safe too (own keys only are read).
 */
(function () {
  "use strict";

  // games.rules's constants.
  const SUITS = ["clubs", "diamonds", "hearts", "spades"];
  const NO_TRUMP = "none";
  const TRICKS = 5; // every hand has five tricks (§1)
  const ORDER_UP = "order_up";
  const TRICK_BIDDING = "tricks";
  const NO_TRUMP_HAND = "no_trump";
  const REDEAL = "redeal";
  const TIES = ["lowest", "share", "play_on"];
  const MOON = "moon";
  const SWEEP = "sweep";
  const ZERO = "zero";
  // Why a player may not drop out (§3): the keys of MUST_PLAY_WORDS.
  const MAKER = "maker";
  const TURNED = "turned";
  const NO_TRUMP_PLAYED = "no_trump";
  const LOW_SCORE = "low_score";
  // The questions a hand asks once its upcard is known, in the order a table answers them.
  const ASK_MAKER = "maker";
  const ASK_TRUMP = "trump";
  const ASK_BID = "bid";
  const ASK_MOON = "moon";
  const ASK_DROPPED = "dropped";
  const ASK_TRICKS = "tricks";

  // games.rules: Ruleset, every option with its default (§7, §8). OPTIONS is their names.
  const DEFAULTS = Object.freeze({
    starting_score: 25,
    players: Object.freeze([4]),
    auto_trump: "clubs",
    auto_trump_dealer_needs: null,
    bidding: ORDER_UP,
    maker_needs: 3,
    min_bid: 2,
    all_pass: NO_TRUMP_HAND,
    no_drop_at_or_below: null,
    set_penalty: 5, // null: no set, the maker just counts tricks (§4)
    zero_trick_penalty: 5,
    sweep_wins: true,
    lone_maker_sweeps: true,
    ties: "lowest",
    cap_at_start: false, // a penalty stops at the starting score (§4)
    moon: false, // a maker on the board may shoot the moon (§4, §5)
    count_up: false, // shown counted up to the target; the engine counts down (§7)
  });
  const OPTIONS = Object.keys(DEFAULTS);

  function dict() {
    return Object.create(null);
  }

  function has(map, key) {
    return map != null && Object.prototype.hasOwnProperty.call(map, key);
  }

  // Python's dict.get: null where the key is missing (or its value null).
  function get(map, key) {
    const value = has(map, key) ? map[key] : null;
    return value === undefined ? null : value;
  }

  function fromKeys(keys, value) {
    const map = dict();
    for (const key of keys) map[key] = value;
    return map;
  }

  function range(low, high) {
    const out = [];
    for (let n = low; n < high; n++) out.push(n);
    return out;
  }

  function hand(h) {
    return {
      upcard: h.upcard,
      trump: get(h, "trump"),
      maker: get(h, "maker"),
      bid: get(h, "bid"),
      dropped: get(h, "dropped") || [],
      tricks: get(h, "tricks") || {},
      passed: Boolean(get(h, "passed")),
      dealer: get(h, "dealer"),
      moon: Boolean(get(h, "moon")),
    };
  }

  // MatchState.finished
  function finished(state) {
    return state.winners.length > 0;
  }

  // MatchState.left_of
  function leftOf(state, name) {
    const seats = state.players;
    return seats[(seats.indexOf(name) + 1) % seats.length];
  }

  // MatchState.on_board: played an earlier hand, took a trick or fell short (§4). A score
  // moves down only by tricks and up only by a penalty, which is falling short.
  function onBoard(state, player) {
    const fellShort = (get(state.sets, player) || 0) > 0;
    return fellShort || state.scores[player] !== state.ruleset.starting_score;
  }

  // games.rules: shown_score, a score as the table sees it: counted up with count_up (§7).
  function shown(r, score) {
    return r.count_up ? r.starting_score - score : score;
  }

  // MatchState.must_play: who may not drop out of the next hand because of their score (§3).
  function mustPlay(state) {
    const limit = state.ruleset.no_drop_at_or_below;
    if (limit == null) return [];
    return state.players.filter((p) => state.scores[p] <= limit);
  }

  // MatchState.shape: what the next hand asks, given its upcard and, once known, who made
  // trump (or that everybody passed); both are ignored where the rules decide them (§2, §3).
  function shape(state, upcard, maker, passed) {
    const r = state.ruleset;
    maker = maker == null ? null : maker;
    const automatic = upcard === r.auto_trump;
    const bidding = !automatic && r.bidding === TRICK_BIDDING;
    passed = Boolean(passed) && !automatic;
    let needs, trump, asks, must;
    if (automatic) maker = r.auto_trump_dealer_needs != null ? state.dealer : null;
    else if (passed) maker = null;
    // A moon needs a maker, and one on the board (§4).
    const moon = Boolean(r.moon) && maker !== null && onBoard(state, maker);
    if (automatic) {
      needs = maker ? r.auto_trump_dealer_needs : null;
      trump = upcard;
      asks = moon ? [ASK_MOON, ASK_TRICKS] : [ASK_TRICKS];
      must = fromKeys(state.players, TURNED);
    } else if (passed) {
      needs = null;
      trump = NO_TRUMP;
      const redeal = r.all_pass === REDEAL;
      asks = redeal ? [ASK_MAKER] : [ASK_MAKER, ASK_TRICKS];
      must = redeal ? dict() : fromKeys(state.players, NO_TRUMP_PLAYED);
    } else {
      needs = bidding ? null : r.maker_needs;
      trump = null;
      asks = [ASK_MAKER];
      if (maker !== null) {
        asks.push(ASK_TRUMP);
        if (bidding) asks.push(ASK_BID);
        if (moon) asks.push(ASK_MOON);
        asks.push(ASK_DROPPED, ASK_TRICKS);
      }
      must = fromKeys(mustPlay(state), LOW_SCORE);
    }
    if (maker !== null) must[maker] = MAKER;
    const mustPlayers = dict();
    for (const p of state.players) if (has(must, p)) mustPlayers[p] = must[p];
    const allPass = automatic ? null : r.all_pass;
    return {
      upcard: upcard,
      automatic: automatic,
      trump: trump,
      default_trump: upcard,
      maker: maker,
      needs: needs,
      asks_bid: bidding,
      bids: bidding ? range(r.min_bid, TRICKS + 1) : [],
      all_pass: allPass,
      must_play: mustPlayers,
      passed: passed,
      asks: asks,
      tricks: TRICKS,
      trick_counts: range(0, TRICKS + 1), // HandShape.trick_counts
      redeal: passed && allPass === REDEAL, // HandShape.redeal
      moon: moon,
    };
  }

  // HandShape.needed: the maker's bid where tricks are bid, else what the rules say.
  function needed(sh, h) {
    if (sh.maker === null) return null;
    if (get(h, "moon")) return sh.tricks;
    return sh.asks_bid ? get(h, "bid") : sh.needs;
  }

  // games.rules: join_names, "Ann", "Ann and Bob", "Ann, Bob and Cat".
  function joinNames(names) {
    return names.length === 1 ? names[0] : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
  }

  // HandShape.next_question: the first question of the hand not yet answered, in the order the
  // engine asks them: ["maker"], ["bid", maker], ["moon_bid", maker, bid], ["blank", ...names]
  // or ["over", n], ["total", n]; null when nothing is missing. `told`: [player, tricks] of
  // the players who played, in seat order (tricks null: not yet).
  function nextQuestion(sh, bid, moon, told) {
    const asks = sh.asks;
    if (sh.redeal) return null;
    if (asks.includes("maker") && sh.maker === null && !sh.passed) return ["maker"];
    if (asks.includes("bid") && (bid === null || bid === undefined)) return ["bid", String(sh.maker)];
    if (moon && asks.includes("bid") && bid !== sh.tricks) return ["moon_bid", String(sh.maker), String(bid)];
    if (!asks.includes("tricks")) return null;
    const given = told.reduce((sum, [, n]) => sum + (n === null ? 0 : n), 0);
    const blank = told.filter(([, n]) => n === null).map(([p]) => p);
    if (blank.length) return given > sh.tricks ? ["over", String(given)] : ["blank", ...blank];
    if (given !== sh.tricks) return ["total", String(given)];
    return null;
  }

  // HandShape.fill_in: the last player unknown takes what is left, once every trick is told
  // the rest took none, and a maker everyone else left alone takes every trick (§3).
  function fillIn(sh, tricks) {
    const names = Object.keys(tricks);
    if (names.length === 1) return fromKeys(names, sh.tricks);
    const out = dict();
    const unknown = [];
    let left = sh.tricks;
    for (const p of names) {
      const n = tricks[p] == null ? null : tricks[p];
      out[p] = n;
      if (n === null) unknown.push(p);
      else left -= n;
    }
    if (unknown.length === 1 && left >= 0) out[unknown[0]] = left;
    else if (unknown.length && left === 0) for (const p of unknown) out[p] = 0;
    return out;
  }

  // games.rules: why_must_play, as the key of MUST_PLAY_WORDS and what it is formatted with.
  function whyMustPlay(state, sh, player) {
    const code = get(sh.must_play, player);
    if (code === null) return null;
    const r = state.ruleset;
    const up = code === LOW_SCORE && Boolean(r.count_up);
    const limit = r.no_drop_at_or_below;
    return {
      code: code,
      p: player,
      turned: sh.upcard.slice(0, -1),
      score: shown(r, get(state.scores, player)),
      limit: up ? shown(r, limit) : limit,
      up: up,
    };
  }

  // games.rules: _penalty, stopped at the starting score with cap_at_start (§4).
  function penalty(r, score, points) {
    if (r.cap_at_start) return Math.max(0, Math.min(points, r.starting_score - score));
    return points;
  }

  // games.rules: _outcome, the changes of score, who was set and who was euchred (§4, §12).
  function outcome(state, h, sh) {
    const r = state.ruleset;
    const changes = fromKeys(state.players, 0);
    const needs = needed(sh, h);
    const set = [];
    const euchred = [];
    for (const p of state.players) {
      const took = get(h.tricks, p);
      if (took === null) continue; // dropped, or nobody played
      // With no set penalty the maker is scored like everyone else who played (§4).
      if (p === sh.maker && r.set_penalty != null && took < needs) {
        changes[p] = penalty(r, state.scores[p], r.set_penalty);
        set.push(p);
      } else if (took === 0) {
        changes[p] = penalty(r, state.scores[p], r.zero_trick_penalty);
      } else {
        changes[p] = -took;
      }
      if (took === 0) euchred.push(p);
    }
    return { changes: changes, set: set, euchred: euchred };
  }

  // games.rules: play, the match after one hand and what the hand did; the end (§5).
  function play(state, handIn) {
    const h = hand(handIn);
    const r = state.ruleset;
    const sh = shape(state, h.upcard, h.maker, h.passed || h.trump === NO_TRUMP);
    const { changes, set, euchred } = outcome(state, h, sh);
    const scores = dict();
    for (const p of state.players) scores[p] = state.scores[p] + changes[p];
    const moon = h.moon ? sh.maker : null;
    const moonMade = moon !== null && get(h.tricks, moon) === sh.tricks;
    const missed = moon !== null && !moonMade ? moon : null;
    const short = set.concat(euchred, missed === null ? [] : [missed]);
    const sets = dict();
    // A missed moon counts as two hands fallen short, whatever set_penalty says (§6).
    for (const p of Object.keys(state.sets)) {
      sets[p] = state.sets[p] + (p === missed ? 2 : short.includes(p) ? 1 : 0);
    }
    let sweep = null;
    if (r.sweep_wins && !h.passed) {
      const lone = Object.keys(h.tricks).length === 1;
      for (const p of Object.keys(h.tricks)) {
        if (h.tricks[p] === sh.tricks && (!lone || r.lone_maker_sweeps)) sweep = p;
      }
    }
    let winners = [];
    let wonBy = null;
    if (moonMade) {
      winners = [moon];
      wonBy = MOON;
    } else if (sweep) {
      winners = [sweep];
      wonBy = SWEEP;
    } else if (!h.passed) {
      const low = Math.min(...state.players.map((p) => scores[p]));
      if (low <= 0) {
        const leaders = state.players.filter((p) => scores[p] === low);
        if (r.ties === "lowest") winners = leaders;
        else if (r.ties === "share") winners = state.players.filter((p) => scores[p] <= 0);
        else if (leaders.length === 1) winners = leaders; // play_on: only a lone leader wins
        wonBy = winners.length ? ZERO : null;
      }
    }
    const number = state.hands + 1;
    const after = {
      ruleset: r,
      players: state.players,
      scores: scores,
      dealer: leftOf(state, state.dealer),
      hands: number,
      sets: sets,
      winners: winners,
      won_by: wonBy,
    };
    const result = {
      number: number,
      dealer: state.dealer,
      hand: h,
      changes: changes,
      scores: scores,
      shape: sh,
      sweep: sweep,
      set: set,
      euchred: euchred,
      short: short.filter((p, i) => short.indexOf(p) === i), // HandResult.short
      sets: sets,
      moon: moon,
      moon_made: moonMade, // HandResult.moon_made
    };
    return { state: after, result: result };
  }

  // games.rules: replay, a match as a fold over its hands.
  function replay(state, hands) {
    const results = [];
    for (const h of hands) {
      const step = play(state, h);
      state = step.state;
      results.push(step.result);
    }
    return { state: state, results: results };
  }

  function cents(stakes, name) {
    return get(stakes, name) || 0;
  }

  // games.rules: owes, what a loser pays in cents, split between the winners: a game, their
  // points above zero, and each hand they fell short (§6).
  function owes(stakes, score, sets) {
    return (
      cents(stakes, "per_game") +
      cents(stakes, "per_point") * Math.max(0, score) +
      cents(stakes, "per_set") * sets
    );
  }

  // games.rules: settle, who pays whom and each player's net once the match is over (§6). A
  // loser's debt is split evenly; the leftover cents go one each to the first winners in
  // seat order (divmod, as Python floors it).
  function settle(state, stakes) {
    const money = ["per_game", "per_point", "per_set"].some((name) => cents(stakes, name));
    if (!finished(state) || !money) return { payments: [], net: dict() };
    const winners = state.winners;
    const payments = [];
    const net = fromKeys(state.players, 0);
    for (const loser of state.players) {
      if (winners.includes(loser)) continue;
      const owed = owes(stakes, state.scores[loser], state.sets[loser]);
      const share = Math.floor(owed / winners.length);
      const leftover = owed - share * winners.length;
      winners.forEach((winner, i) => {
        const paid = share + (i < leftover ? 1 : 0);
        if (paid) {
          payments.push({ payer: loser, payee: winner, cents: paid });
          net[loser] -= paid;
          net[winner] += paid;
        }
      });
    }
    return { payments: payments, net: net };
  }

  // words.py: hand_in_words, a hand in a few words ("♥ turned · Bob ordered up · Cat out"),
  // from its pieces (words.HAND_WORDS) and the suits' symbols, as `words` gives them.
  // A sentence of words.py with its {names} put in, as str.format puts them.
  function fill(text, values) {
    return text.replace(/\{(\w+)\}/g, (_, key) => String(values[key]));
  }

  function inWords(result, words) {
    const w = words.hand;
    const h = result.hand;
    const sh = result.shape;
    const turned = fill(w.turned, { suit: words.symbols[h.upcard] });
    if (h.passed) return fill(w.redeal, { turned: turned });
    if (h.trump === NO_TRUMP) return fill(w.no_trump, { turned: turned });
    const moon = result.moon ? fill(result.moon_made ? w.moon_made : w.moon_missed, { maker: result.moon }) : "";
    if (sh.automatic) {
      const made = sh.maker ? fill(w.dealer_must, { maker: sh.maker, needs: sh.needs }) : w.all_play;
      return fill(w.automatic, { turned: turned, made: made, moon: moon });
    }
    const trump = words.symbols[h.trump];
    let made;
    if (h.bid !== null && h.bid !== undefined) made = fill(w.bid, { maker: h.maker, bid: h.bid, trump: trump });
    else if (h.trump === h.upcard) made = fill(w.ordered_up, { maker: h.maker });
    else made = fill(w.named, { maker: h.maker, trump: trump });
    const out = h.dropped.length ? fill(w.out, { names: h.dropped.join(", ") }) : "";
    return fill(w.made, { turned: turned, made: made, moon: moon, out: out });
  }

  // words.py: money, cents as players say them ("$1.70", "−$0.40", "1.70 CHF"), the amount
  // between what the page gives as `currency` (words.money_parts); and signed_money, money
  // won or lost ("+$1.70", "−$0.40", "$0.00").
  function money(cents, currency) {
    const n = Math.abs(cents);
    const amount = `${(n - (n % 100)) / 100}.${String(n % 100).padStart(2, "0")}`; // exact below 2^53
    return `${cents < 0 ? "−" : ""}${currency[0]}${amount}${currency[1]}`;
  }

  function signedMoney(cents, currency) {
    return (cents > 0 ? "+" : "") + money(cents, currency);
  }

  globalThis.BuckRules = Object.freeze({
    OPTIONS: OPTIONS,
    DEFAULTS: DEFAULTS,
    SUITS: SUITS,
    NO_TRUMP: NO_TRUMP,
    TRICKS: TRICKS,
    TIES: TIES,
    shape: shape,
    needed: needed,
    fillIn: fillIn,
    nextQuestion: nextQuestion,
    joinNames: joinNames,
    whyMustPlay: whyMustPlay,
    onBoard: onBoard,
    shown: shown,
    mustPlay: mustPlay,
    leftOf: leftOf,
    finished: finished,
    play: play,
    replay: replay,
    owes: owes,
    settle: settle,
    inWords: inWords,
    fill: fill,
    money: money,
    signedMoney: signedMoney,
  });
})();
