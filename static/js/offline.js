// The board answers on the phone, with a connection or without (issues 35 and 40). Two parts:
//
// 1. A tap in the hand form is answered here, from the rules' twin (static/js/rules.js,
//    globalThis.BuckRules) and the match's state the page carries (#twin-data, drawn by the
//    twin_data template tag with every sentence the form may show): no round trip. The form
//    already holds every question a hand could ask; this shows, hides and greys them, fills in
//    the rows the others fix (HandShape.fill_in) and the preview's numbers.
// 2. A Save puts the hand in the outbox on the phone (static/js/outbox.js) and the board moves
//    on at once with provisional scores; the outbox is sent, in order, and the server still
//    judges each hand and answers as it always has (stored / 409 / words).
//
// Without this file (or without BuckRules) the form asks the server after each tap, and a Save
// is sent as the form is drawn, as without JavaScript.
"use strict";

(function () {
  const R = globalThis.BuckRules;
  if (!R) return;

  // --- The page's data ---------------------------------------------------------------------
  let dataCache = { text: null, value: null };
  function pageData(form) {
    const text = form?.querySelector("#twin-data")?.textContent;
    if (!text) return null;
    // (A board morphed into place keeps its elements and changes their text.)
    if (dataCache.text !== text) dataCache = { text, value: JSON.parse(text) };
    return dataCache.value;
  }
  // The page's data, with the match as it stands after the hands kept on the phone.
  function twinData(form) {
    const data = pageData(form);
    if (!data) return null;
    const record = outbox.get(data.match);
    // While a kept hand's number is in dispute, the form is the server's (its preview of "Mine
    // is the next hand"), not the outbox's.
    if (!record?.hands.length || record.stopped === "conflict") return data;
    return { ...data, state: formState(record) };
  }

  function handForm() {
    return document.getElementById("hand-form");
  }

  function number(n) {
    return n < 0 ? `−${-n}` : String(n); // words.number, a real minus sign
  }

  function signed(n) {
    return n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "0"; // words.signed, a real minus sign
  }

  // A change of score as the table sees it: counted up, a trick is +1 (words.change_shown).
  function changeShown(ruleset, n) {
    return ruleset.count_up ? -n : n;
  }

  const format = R.fill; // a sentence of words.py with its {names} put in

  // --- 1. A tap answered on the phone ----------------------------------------------------------
  // The rows of tricks filled in here (seat -> count): they follow the others until tapped.
  let filled = new Map();
  let filledForm = null;

  function checkedValue(form, name) {
    return form.querySelector(`input[name="${name}"]:checked:not(:disabled)`)?.value ?? null;
  }

  function setChecked(form, name, value) {
    for (const input of form.querySelectorAll(`input[name="${name}"]`)) input.checked = value !== null && input.value === String(value);
  }

  function show(element, shown) {
    if (!element) return;
    element.hidden = !shown;
    if (element instanceof HTMLFieldSetElement) element.disabled = !shown;
  }

  // What the form holds, as the server's HandForm reads it: the shape, the hand, and what is
  // still to be told. Nothing is changed here.
  function read(form, data) {
    const state = data.state;
    const upcard = checkedValue(form, "upcard");
    if (!upcard) return { upcard: null };
    const makerValue = checkedValue(form, "maker");
    const maker = makerValue === null || makerValue === "pass" ? null : state.players[Number(makerValue)] ?? null;
    const shape = R.shape(state, upcard, maker, makerValue === "pass");
    return { upcard, makerValue, shape };
  }

  // Draw the form for the shape of what it holds (HandForm + the hand-form partial, on the
  // phone). Returns the hand, or null while it is not yet complete.
  function answer(form) {
    const data = twinData(form);
    if (!data) return null;
    if (filledForm !== form) {
      // A form the server drew: the rows it filled in are the ones that follow the others.
      filledForm = form;
      filled = new Map();
      for (const input of form.querySelectorAll("input[name$=_filled]")) {
        filled.set(Number(input.name.slice(1, -"_filled".length)), Number(input.value));
      }
    }
    form.querySelectorAll("input[name$=_filled]").forEach((input) => input.remove());
    const state = data.state;
    const words = data.words;
    const { upcard, shape } = read(form, data);
    const fieldset = (name) => form.querySelector(`fieldset.${name}`);
    show(form.querySelector(".prompt"), !upcard);
    show(form.querySelector(".save-bar"), Boolean(upcard));
    form.querySelector("#refused")?.remove();
    show(form.querySelector(".status"), true);
    const asks = new Set(shape ? shape.asks : []);
    // An answer to a question no longer asked is forgotten (HandForm._forget_unasked).
    for (const [name, question] of [["makers", "maker"], ["trump", "trump"], ["bids", "bid"], ["drops", "dropped"]]) {
      show(fieldset(name), asks.has(question));
      if (!asks.has(question)) setChecked(form, question, null);
    }
    show(fieldset("tricks"), asks.has("tricks"));
    show(form.querySelector(".note"), Boolean(shape?.automatic));
    if (!shape) return null;

    // Trump: the upcard's suit unless another is tapped.
    if (asks.has("trump") && !checkedValue(form, "trump")) setChecked(form, "trump", shape.default_trump);
    const defaultTrump = form.querySelector(".default-trump");
    if (defaultTrump) {
      defaultTrump.children[0].textContent = words.symbols[shape.default_trump] || "";
      defaultTrump.children[1].textContent = shape.default_trump;
    }
    const bidMaker = form.querySelector(".bid-maker");
    if (bidMaker) bidMaker.textContent = shape.maker || "";
    // The moon: one tap, where the maker may declare it (HandShape.moon); where the maker bids,
    // once the bid is five (the moon is a bid of all five tricks, §4).
    const moonAsked = asks.has("moon") && (!asks.has("bid") || Number(checkedValue(form, "bid")) === R.TRICKS);
    show(fieldset("moon"), moonAsked);
    if (!asks.has("moon")) setChecked(form, "moon", null);
    const moonMaker = form.querySelector(".moon-maker");
    if (moonMaker) moonMaker.textContent = shape.maker || "";
    const moon = moonAsked && checkedValue(form, "moon") !== null;

    // Who dropped out: a player who must play is greyed, with the reason in words.
    const dropped = [];
    state.players.forEach((player, seat) => {
      const code = shape.must_play[player] || null;
      const box = form.querySelector(`fieldset.drops input[name=dropped][value="${CSS.escape(player)}"]`);
      const ticked = Boolean(box?.checked) && asks.has("dropped");
      const locked = Boolean(code) && !ticked;
      const details = form.querySelector(`fieldset.drops details[data-seat="${seat}"]`);
      const label = form.querySelector(`fieldset.drops label[data-seat="${seat}"]`);
      show(details, locked);
      show(label, !locked);
      if (box) box.disabled = locked;
      if (locked) {
        const values = R.whyMustPlay(state, shape, player);
        values.score = number(values.score);
        const [tag, why] = words.must[code];
        details.querySelector(".tag").textContent = format(tag, values);
        details.querySelector(".why").textContent = format(why, values);
      }
      if (ticked) dropped.push(player);
    });

    // Tricks: a row for each player who plays; the rows the others fix filled in.
    const playing = asks.has("tricks") ? state.players.filter((p) => !dropped.includes(p)) : [];
    const sent = Object.create(null);
    state.players.forEach((player, seat) => {
      const row = form.querySelector(`.trick-row[data-seat="${seat}"]`);
      const plays = playing.includes(player);
      show(row, plays);
      row?.querySelectorAll("input").forEach((input) => (input.disabled = !plays));
      if (!plays) {
        setChecked(form, `t${seat}`, null);
        filled.delete(seat);
        return;
      }
      const value = checkedValue(form, `t${seat}`);
      const count = value === null ? null : Number(value);
      sent[player] = filled.has(seat) && filled.get(seat) === count ? null : count;
    });
    const told = Object.keys(sent).length ? R.fillIn(shape, sent) : Object.create(null);
    state.players.forEach((player, seat) => {
      if (!(player in sent)) return;
      const count = told[player] ?? null;
      if (count !== sent[player]) filled.set(seat, count);
      else filled.delete(seat);
      setChecked(form, `t${seat}`, count);
    });
    const tricks = Object.create(null);
    let given = 0;
    const blank = [];
    for (const player of playing) {
      if (told[player] === null || told[player] === undefined) blank.push(player);
      else {
        tricks[player] = told[player];
        given += told[player];
      }
    }
    const left = shape.tricks - given;
    const leftLine = form.querySelector(".tricks .left");
    if (leftLine) leftLine.textContent = asks.has("tricks") ? (left === 0 && !blank.length ? words.given : words.left[left]) : "";

    // The next question not yet answered, in the order the engine asks them (the engine's
    // HandShape.next_question, twinned in rules.js).
    const makerValue = checkedValue(form, "maker");
    const bidValue = checkedValue(form, "bid");
    const rows = playing.map((p) => [p, told[p] ?? null]);
    const asked = R.nextQuestion(shape, bidValue === null ? null : Number(bidValue), moon, rows);
    let hint = null;
    if (asked) {
      const [kind, ...parts] = asked;
      const names = R.joinNames(parts);
      hint = format(words.questions[kind], { maker: parts[0], bid: parts[1], n: parts[0], names });
    }
    const hintLine = form.querySelector(".status .hint");
    if (hintLine) {
      hintLine.textContent = hint || "";
      hintLine.hidden = !hint;
    }
    let hand = null;
    if (!hint) {
      let trump = null;
      if (shape.passed) trump = R.NO_TRUMP;
      else if (asks.has("trump")) trump = checkedValue(form, "trump") || shape.default_trump;
      hand = {
        upcard,
        trump: shape.redeal ? null : trump,
        maker: makerValue === null || makerValue === "pass" ? null : state.players[Number(makerValue)],
        bid: bidValue === null ? null : Number(bidValue),
        dropped: shape.redeal ? [] : dropped,
        tricks: shape.redeal ? {} : tricks,
        passed: shape.passed,
        moon,
      };
    }
    drawPreview(form, data, hand);
    return hand;
  }

  // The preview: one line a player, drawn by the server; the numbers and notes put in here.
  function drawPreview(form, data, hand) {
    const list = form.querySelector(".status .preview");
    if (!list) return;
    list.hidden = !hand;
    if (!hand) return;
    const { result } = R.play(data.state, hand);
    const notes = data.words.notes;
    data.state.players.forEach((player, seat) => {
      const line = list.querySelector(`li[data-seat="${seat}"]`);
      if (!line) return;
      const [note, change] = line.querySelectorAll("span");
      const out = hand.dropped.includes(player);
      let noteText = "";
      if (out) noteText = notes.dropped;
      else if (!hand.passed && result.set.includes(player)) noteText = `${notes.set} `;
      else if (!hand.passed && result.euchred.includes(player)) noteText = `${notes["no trick"]} `;
      note.textContent = noteText;
      const n = result.changes[player];
      change.textContent = out ? "" : signed(changeShown(data.state.ruleset, n));
      change.className = out || !n ? "" : n > 0 ? "up" : "down";
    });
  }

  // The form answers by itself: the server is not asked after a tap.
  document.addEventListener("htmx:beforeRequest", (event) => {
    const elt = event.detail.elt;
    const asked = event.detail.requestConfig?.triggeringEvent?.detail?.board; // "Show it"
    if (elt.id === "hand-form" && twinData(elt) && !asked) event.preventDefault();
  });
  document.addEventListener("click", (event) => {
    const chip = event.target.closest?.("#hand-form .trick-row");
    if (chip && event.target.matches("input")) filled.delete(Number(chip.dataset.seat));
  });
  document.addEventListener("change", (event) => {
    const form = event.target.closest?.("#hand-form");
    if (form) answer(form);
  });

  // --- 2. The outbox ---------------------------------------------------------------------------
  // Every Save of a new hand goes through here, online or not: the hand is kept on the phone
  // (static/js/outbox.js, under the account signed in), joins the board at once with the
  // scores and the next dealer as the phone's rules see them, marked "sending", and the form is
  // ready for the next hand; the hands kept are then sent, in order, one at a time. Only the
  // server's word that it stored a hand (its key echoed, X-Hand-Key) lets that hand go:
  // anything else keeps it and says why. One state, here:
  const keptOnPhone = globalThis.BuckOutbox;
  const TIMEOUT = 8000; // a send that has no answer by then is tried again later
  const NO_PROXY = [502, 503, 504]; // a proxy's answer: the score keeper was not reached
  // match -> its record as last read or changed: {version, base, hands, stopped}; with no hand
  // left, the version and board the server last sent (kept in the page, not on the phone).
  const outbox = new Map();
  let editing = null; // the index of the kept hand back in the form, or null
  let sending = false;
  let line = null; // the connection's line: "offline", "sending", "saved", "signin", "problem" or null
  let rebase = false; // after a conflict: the outbox goes on from the board the server sends next
  // Whether hands had to wait (no network, a session to sign in again, an answer of another
  // kind): "All hands saved" is said once they are all stored, and only then.
  const waited = () => ["offline", "problem", "signin"].includes(line);
  let away = false;
  let said = ""; // the server's words for the last answer that did not store a hand

  async function load(match) {
    const record = await keptOnPhone.load(match);
    outbox.set(match, record);
    return record;
  }
  // Every change to a match's record is made here, one after another, each from the record as
  // the last one left it: a hand kept while another is on its way is never written over by the
  // send's own change. `change` is given the record and returns the new one.
  let changes = Promise.resolve();
  function update(match, change) {
    const done = changes.then(async () => {
      const record = change(outbox.get(match) ?? null);
      await keptOnPhone.store(match, record); // first on the phone; only then in what the page shows
      outbox.set(match, record);
      return record;
    });
    changes = done.catch(() => {});
    return done;
  }

  function box() {
    return document.querySelector("#board .offline");
  }
  function matchId() {
    // The board's outbox box; or, while two entries of a hand are shown side by side, the
    // conflict or the preview of "Mine is the next hand".
    const conflict = document.querySelector("#board #conflict");
    return Number(box()?.dataset.match || conflict?.dataset.match || pageData(handForm())?.match) || null;
  }

  // The match as the form must see it: after every kept hand, or before the one back in it.
  function formState(record) {
    const hands = record.hands.slice(0, editing === null ? record.hands.length : editing);
    return R.replay(record.base, hands.map((h) => h.hand)).state;
  }

  function clearForm(form) {
    form.querySelectorAll("input[type=radio], input[type=checkbox]").forEach((input) => (input.checked = false));
    filledForm = null;
  }

  // The hand in the form, to keep: what a Save sends, less what the server gives each page.
  function entry(form) {
    const hand = answer(form);
    if (!hand) return null;
    const fields = [...new FormData(form)].filter(([name]) => !["csrfmiddlewaretoken", "refresh", "number", "version", "key"].includes(name));
    return { key: newKey(), fields, hand };
  }
  function newKey() {
    // (crypto.randomUUID exists only on HTTPS: a phone on a plain http address has none.)
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  }

  // Words in the place of the preview, as a refused Save shows them (an alert): what is still
  // missing, or why the hand was not kept. The hand stays in the form.
  function refuse(form, text) {
    form.querySelector("#refused")?.remove();
    const said = document.createElement("div");
    said.id = "refused";
    said.className = "refused";
    said.setAttribute("role", "alert");
    said.tabIndex = -1;
    const p = document.createElement("p");
    p.className = "error";
    p.textContent = text;
    said.append(p);
    const status = form.querySelector(".status");
    status?.before(said);
    show(status, false);
    said.focus({ preventScroll: true });
    said.scrollIntoView({ block: "center" });
  }

  // A Save of a new hand. Whatever goes wrong between the tap and the phone's storage, the
  // hand is kept, or the page says in words that it was not, with the hand still in the form.
  async function save(form) {
    const words = pageData(form)?.words;
    try {
      await loaded; // what the phone kept before this page opened comes first
      const match = matchId();
      const kept = entry(form);
      if (!kept) {
        refuse(form, form.querySelector(".status .hint")?.textContent || words.outbox.incomplete);
        return;
      }
      if (outbox.get(match)?.stopped === "conflict") {
        // "Mine is the next hand", seen in its preview and saved: it takes the place of the
        // kept hand whose number another phone took, and the outbox goes on from the server's
        // board, in order.
        await resume(match, (record) => [kept, ...record.hands.slice(1)]);
        return;
      }
      await keep(form, match, kept);
    } catch (error) {
      console.error(error); // a bug: said to the player below, and to whoever reads the console
      refuse(form, format(words?.outbox.not_kept ?? "This hand was not kept ({why}). It is still here: tap Save again.", { why: error?.message || error }));
    }
  }
  window.addEventListener(
    "click",
    (event) => {
      const button = event.target.closest?.("#hand-form button.save");
      // (A saved hand's edit, "Save changes to hand 5", is saved as it is drawn: online.)
      if (!button || button.getAttribute("hx-target") !== "#board" || !pageData(button.form)) return;
      event.preventDefault();
      event.stopPropagation(); // nothing else sends it
      save(button.form);
    },
    true,
  );

  async function keep(form, match, kept) {
    const at = editing;
    const drawn = { version: Number(form.querySelector("[name=version]").value), base: pageData(form).state };
    // (Throws if the phone can keep nothing: the hand stays in the form.)
    await update(match, (record) => {
      if (record?.hands.length && at !== null) {
        return { ...record, hands: record.hands.map((h, i) => (i === at ? kept : h)), stopped: null };
      }
      if (record?.hands.length) return { ...record, hands: [...record.hands, kept] };
      // The first to wait: after the match as the server last sent it, by the page or by the
      // answer to the hand just sent, whichever is newer.
      const from = record && record.version > drawn.version ? record : drawn;
      return { version: from.version, base: from.base, hands: [kept] };
    });
    editing = null;
    navigator.storage?.persist?.().catch(() => {});
    clearForm(form);
    if (navigator.onLine && line !== "signin" && line !== "problem") line = "sending";
    draw();
    answer(form);
    window.scrollTo(0, 0);
    send();
  }

  // While hands wait, a board's poll waits behind them: the board shows the kept hands.
  window.addEventListener(
    "htmx:beforeRequest",
    (event) => {
      const match = matchId();
      if (match && event.detail.elt.matches?.("[data-poll]") && outbox.get(match)?.hands.length) {
        event.preventDefault();
        event.stopPropagation();
      }
    },
    true,
  );
  // A board's poll that finds no network is the quiet line, not an alert: nothing was tapped.
  document.addEventListener("htmx:sendError", (event) => {
    if (!matchId() || !event.detail.elt.matches?.("[data-poll]")) return;
    const problem = document.getElementById("connection-problem");
    if (problem) problem.hidden = true;
    line = "offline";
    away = true;
    draw();
  });

  function csrf() {
    try {
      return JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRFToken"] || "";
    } catch {
      return "";
    }
  }

  async function post(url, body) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), TIMEOUT);
    try {
      return await fetch(url, {
        method: "POST",
        body,
        credentials: "same-origin",
        headers: { "HX-Request": "true", "HX-Current-URL": location.href, "X-CSRFToken": csrf() },
        signal: controller.signal,
      });
    } finally {
      clearTimeout(timer);
    }
  }

  // The server's board in place of the phone's. A hand being tapped in meanwhile (the next
  // one, begun while the last was on its way) stays as it is, under the finger: the form is
  // kept, told the match's version and state as the server drew them.
  function swapBoard(html, keepEntry = false) {
    const before = handForm();
    const busy = keepEntry && before?.querySelector("input[name=upcard]:checked");
    htmx.swap("#board", html, { swapStyle: "outerHTML" });
    const after = handForm();
    const number = (form) => form?.querySelector("[name=number]")?.value;
    if (!busy || !after || number(after) !== number(before)) return;
    before.querySelector("#twin-data").textContent = after.querySelector("#twin-data").textContent;
    before.querySelector("[name=version]").value = after.querySelector("[name=version]").value;
    after.replaceWith(before);
    answer(before);
  }

  // A send that did not get the server's word (no network while the phone says it is online,
  // a proxy's 502, an answer of another kind) tries again, less and less often.
  let pause = 1000;
  let retrying = null;
  function retry() {
    away = true;
    if (retrying || !navigator.onLine) return;
    retrying = setTimeout(() => {
      retrying = null;
      send();
    }, pause);
    pause = Math.min(pause * 2, 30000);
  }

  // The session is over (a log-out elsewhere, a password changed, it expired): the answer
  // sends the phone to the log-in page.
  function signedOut(response) {
    const to = response.headers.get("HX-Redirect") || (response.redirected ? response.url : "");
    return to.includes("/accounts/login") || response.status === 401;
  }

  // Send the kept hands, in order, one at a time, each as the Save it was, with its key.
  async function send() {
    const match = matchId();
    if (!match || sending || !box()) return;
    const { saveUrl, boardUrl } = box().dataset;
    let record = outbox.get(match);
    if (!record?.hands.length || record.stopped || editing !== null) return;
    sending = true;
    document.documentElement.toggleAttribute("data-sending", true); // a hand on its way
    line = "sending";
    draw();
    let board = null; // the server's board after the last hand it stored
    try {
      // (The record as it stands before each hand: hands kept meanwhile are sent after it.)
      for (; record?.hands.length && !record.stopped; record = outbox.get(match)) {
        const kept = record.hands[0];
        const body = new FormData();
        for (const [name, value] of kept.fields) body.append(name, value);
        body.append("number", String(record.base.hands + 1));
        body.append("version", String(record.version));
        body.append("key", kept.key);
        let response;
        try {
          response = await post(saveUrl, body);
        } catch {
          line = "offline";
          retry();
          break;
        }
        if (NO_PROXY.includes(response.status) && !response.headers.get("X-Problem")) {
          line = "offline";
          retry();
          break;
        }
        if (signedOut(response)) {
          line = "signin";
          break;
        }
        const html = await response.text();
        if (response.ok && response.headers.get("X-Hand-Key") === kept.key) {
          // Stored: the hand leaves the phone.
          pause = 1000;
          const version = Number(response.headers.get("X-Match-Version"));
          const base = R.play(record.base, kept.hand).state;
          const left = await update(match, (now) => ({ ...now, version, base, hands: now.hands.filter((h) => h.key !== kept.key) }));
          board = html;
          if (left.hands.length) draw();
          continue;
        }
        const page = new DOMParser().parseFromString(html, "text/html");
        if (response.status === 409 || (response.ok && page.querySelector("#refused"))) {
          // Another phone saved this hand's number meanwhile, or the server refuses it in
          // words: its answer is shown, the hand back in the form, the later ones waiting.
          pause = 1000;
          const stopped = response.status === 409 ? "conflict" : "refused";
          editing = 0;
          line = null;
          swapBoard(html);
          const data = pageData(handForm());
          const drawn = data ? { base: data.state, version: Number(handForm().querySelector("[name=version]").value) } : {};
          await update(match, (now) => ({ ...now, stopped, ...drawn }));
          break;
        }
        // Any other answer (a refusal of the request itself, an error): the hand stays, and
        // the server's words for it, if it gave any, are shown.
        line = "problem";
        said = decodeURIComponent(response.headers.get("X-Problem") || "");
        retry();
        break;
      }
    } catch {
      line = "problem"; // the phone could not write down what was sent: it is sent again
      retry();
    } finally {
      sending = false;
      document.documentElement.removeAttribute("data-sending");
    }
    away ||= waited();
    if (!outbox.get(match)?.hands.length) {
      line = board && away ? "saved" : null;
      away = false;
      delete document.documentElement.dataset.offline; // the server's board again, to keep
      if (board) {
        swapBoard(board, true);
        htmx.trigger(document.body, "board-changed"); // what follows the board (the score race)
      }
      else htmx.ajax("GET", boardUrl, { target: "#board", swap: "outerHTML" });
    } else {
      draw();
    }
  }

  // A kept hand whose number another phone took (409) stops the outbox on the two entries
  // side by side. "Keep theirs" throws this phone's away (the tap says so); "Mine is the next
  // hand", once saved from its preview, takes its place. Either way the outbox goes on from
  // the server's board (`rebase`): the hands after it are sent after the stored ones.
  async function resume(match, hands) {
    editing = null;
    rebase = true;
    await update(match, (record) => ({ ...record, hands: hands(record), stopped: null }));
    htmx.ajax("GET", box()?.dataset.boardUrl ?? location.pathname, { target: "#board", swap: "outerHTML" });
  }
  document.addEventListener(
    "click",
    (event) => {
      const match = matchId();
      if (outbox.get(match)?.stopped !== "conflict" || !event.target.closest?.("#conflict .keep-theirs")) return;
      event.preventDefault();
      resume(match, (record) => record.hands.slice(1));
    },
    true,
  );

  // The board with the kept hands on it: the list, the scores, the next dealer, the end.
  function draw() {
    const offline = box();
    const form = handForm();
    if (!offline || !form) return;
    const data = pageData(form);
    const record = outbox.get(data.match);
    const hands = record?.hands || [];
    const words = data.words;
    const waiting = Boolean(hands.length);
    document.documentElement.toggleAttribute("data-provisional", waiting);
    const played = waiting ? R.replay(record.base, hands.map((h) => h.hand)) : { state: data.state, results: [] };
    const state = played.state;
    const next = waiting ? formState(record) : data.state;

    const stateLine = offline.querySelector(".connection-state");
    const n = hands.length;
    const many = (one, more) => format(n === 1 ? one : more, { n });
    stateLine.replaceChildren();
    if (line === "signin" && n) {
      const link = document.createElement("a");
      link.href = `${offline.dataset.loginUrl}?next=${encodeURIComponent(location.pathname)}`;
      link.textContent = many(words.outbox.signin_one, words.outbox.signin);
      stateLine.append(link);
    } else if (line === "problem" && n) stateLine.textContent = `${said} ${many(words.outbox.problem_one, words.outbox.problem)}`.trim();
    else if (line === "sending" && n) stateLine.textContent = many(words.outbox.sending_one, words.outbox.sending);
    else if (line === "saved" && !n) stateLine.textContent = words.outbox.saved;
    else if ((line === "offline" || !navigator.onLine) && (n || !navigator.onLine)) stateLine.textContent = words.outbox.offline;
    stateLine.hidden = !stateLine.textContent;
    // (While they are on their way, their rows' mark says so: nothing more to read or tap.)
    const count = offline.querySelector(".outbox");
    count.hidden = !n || line === "sending";
    offline.querySelector(".outbox-count").textContent = n ? many(words.outbox.waiting_one, words.outbox.waiting) : "";

    // The hands kept, newest first, above those saved.
    const list = document.querySelector("#board .outbox-hands");
    if (list) {
      list.replaceChildren();
      list.hidden = !n;
      const row = offline.querySelector("template.outbox-row");
      const mark = line === "sending" ? words.outbox.mark_sending : words.outbox.mark_kept;
      played.results.forEach((result, i) => {
        const item = row.content.firstElementChild.cloneNode(true);
        item.dataset.index = String(i);
        item.querySelector(".number").textContent = `${result.number}.`;
        item.querySelector(".who-dealt").textContent = result.dealer;
        item.querySelector(".text").textContent = R.inWords(result, words);
        item.querySelector(".mark").textContent = mark;
        item.querySelectorAll(".cell").forEach((cell, seat) => {
          const player = data.state.players[seat];
          const change = cell.querySelector(".change");
          change.textContent = signed(changeShown(data.state.ruleset, result.changes[player]));
          change.className = `change ${result.changes[player] > 0 ? "up" : result.changes[player] < 0 ? "down" : ""}`;
          cell.querySelector(".cell-score").textContent = number(R.shown(data.state.ruleset, result.scores[player]));
        });
        list.prepend(item);
      });
      const empty = document.querySelector("#board .hands-list > p.muted");
      if (empty) empty.hidden = Boolean(n);
    }

    // The scores, provisional while hands wait.
    const scores = document.querySelector("#board .scores");
    scores?.classList.toggle("provisional", waiting);
    const must = R.finished(state) ? [] : R.mustPlay(state);
    scores?.querySelectorAll(".score").forEach((tile, seat) => {
      const player = state.players[seat];
      tile.querySelector(".points").textContent = number(R.shown(state.ruleset, state.scores[player]));
      const dealing = player === state.dealer && !R.finished(state);
      tile.classList.toggle("is-dealer", dealing);
      const badge = document.querySelector("#board .dealer-badge");
      if (dealing && badge && badge.parentElement !== tile) tile.querySelector(".points").after(badge);
      tile.querySelector(".badge.warn")?.remove();
      tile.querySelector(".badge.win")?.remove();
      if (must.includes(player)) tile.append(offline.querySelector("template.badge-must").content.firstElementChild.cloneNode(true));
      const wins = state.winners.includes(player);
      tile.classList.toggle("is-winner", wins);
      if (wins) tile.append(offline.querySelector("template.badge-win").content.firstElementChild.cloneNode(true));
    });

    // The hand being entered, and Undo: while hands wait, it throws away the last of them (not
    // a saved hand behind them); while they are on their way, neither.
    const now = document.querySelector("#board .hand-now");
    if (now) now.textContent = format(words.outbox.hand_now, { n: next.hands + 1 });
    const undoSaved = document.querySelector("#board .history-head form");
    if (undoSaved) undoSaved.hidden = waiting;
    const undoKept = document.querySelector("#board .undo-kept");
    if (undoKept) {
      undoKept.hidden = !waiting || line === "sending";
      undoKept.textContent = waiting ? format(words.outbox.undo, { n: record.base.hands + n }) : "";
    }

    // The end, as the phone's rules see it, with who pays whom; or the next hand's form.
    const over = waiting && R.finished(state) && editing === null;
    const result = offline.querySelector(".provisional-result");
    result.hidden = !over;
    result.querySelector("h2").textContent = over ? format(words.outbox.to_confirm, { winners: format(words.winners[state.winners.length === 1 ? "one" : "many"], { names: R.joinNames(state.winners) }) }) : "";
    drawMoney(result.querySelector(".money"), over ? state : null, data);
    form.hidden = over;
    form.querySelector("[name=number]").value = String(next.hands + 1);
    const save = form.querySelector("button.save");
    if (save) save.textContent = save.textContent.replace(/\d+$/, String(next.hands + 1));
    const dealer = form.querySelector("legend .dealer");
    if (dealer) dealer.textContent = next.dealer;
    document.querySelectorAll("#board .outbox-hands .hand-row").forEach((item) => {
      item.classList.toggle("editing", Number(item.dataset.index) === editing);
    });
  }

  // The money at the end (`state`; null before it), as the board's result says it once the
  // hands are saved: only where the match is played for money (the page's stakes).
  function drawMoney(money, state, data) {
    const paying = Boolean(state && data.stakes);
    const { payments, net } = paying ? R.settle(state, data.stakes) : { payments: [] };
    const { result: said, currency } = data.words;
    money.hidden = !paying;
    money.querySelector("h3").textContent = payments.length ? said.payments : "";
    money.querySelector(".payouts").replaceChildren(
      ...payments.map((p) => {
        // The sentence with its {payer}, {payee} and {amount} put in as the board draws them.
        const put = { payer: made("strong", p.payer), payee: made("strong", p.payee), amount: made("span", R.money(p.cents, currency), "amount") };
        return made("li", said.pays.split(/\{(\w+)\}/).map((part, i) => (i % 2 ? put[part] : part)));
      }),
    );
    money.querySelector(".net").replaceChildren(
      ...(payments.length ? state.players : []).map((player) => {
        const cents = net[player];
        return made("li", [`${player} `, made("span", R.signedMoney(cents, currency), cents > 0 ? "gain" : cents < 0 ? "loss" : "")]);
      }),
    );
    money.querySelector(".nobody-owes").textContent = paying && !payments.length ? said.nobody_owes : "";
  }

  // An element with its text (or the text and elements in it) and its class.
  function made(tag, content, className = "") {
    const element = document.createElement(tag);
    element.className = className;
    element.append(...[].concat(content));
    return element;
  }

  // Edit and Throw away, one tap each (Throw away asks first).
  document.addEventListener("click", async (event) => {
    const item = event.target.closest?.(".outbox-hands .hand-row");
    const match = matchId();
    if (event.target.matches?.(".send-now")) {
      editing = null;
      update(match, (record) => record && { ...record, stopped: null }).then(send);
      return;
    }
    if (event.target.matches?.(".undo-kept") && match) {
      const record = outbox.get(match);
      if (record?.hands.length) throwAway(record.hands.length - 1);
      return;
    }
    if (!item || !match) return;
    const index = Number(item.dataset.index);
    const record = outbox.get(match);
    const form = handForm();
    if (event.target.matches(".edit-unsaved")) {
      editing = index;
      clearForm(form);
      for (const [name, value] of record.hands[index].fields) {
        const input = form.querySelector(`input[name="${CSS.escape(name)}"][value="${CSS.escape(value)}"]`);
        if (input) input.checked = true;
      }
      draw();
      answer(form);
      form.scrollIntoView({ block: "start" });
    } else if (event.target.matches(".throw-away")) {
      throwAway(index);
    }
  });

  // A kept hand thrown away, after one question: it was never saved.
  async function throwAway(index) {
    const match = matchId();
    const record = outbox.get(match);
    const form = handForm();
    const question = format(pageData(form).words.outbox.confirm_throw_away, { n: record.base.hands + index + 1 });
    if (!window.confirm(question)) return;
    if (editing === index) {
      editing = null;
      clearForm(form);
    } else if (editing !== null && editing > index) editing -= 1;
    await update(match, (now) => ({ ...now, hands: now.hands.filter((h) => h.key !== record.hands[index].key), stopped: null }));
    draw();
    answer(form);
  }

  async function start() {
    const match = matchId();
    if (!match) return;
    await load(match);
    away = Boolean(outbox.get(match)?.hands.length); // kept before this page was opened
    draw();
    const form = handForm();
    if (form && outbox.get(match)?.hands.length) answer(form);
    if (navigator.onLine) send();
  }
  document.addEventListener("htmx:afterSettle", (event) => {
    if (event.target.id === "board" || event.target.querySelector?.("#board")) {
      const kept = outbox.get(matchId());
      const fresh = handForm();
      if (rebase && kept && fresh) {
        rebase = false;
        const version = Number(fresh.querySelector("[name=version]").value);
        update(matchId(), (now) => ({ ...now, base: pageData(fresh).state, version })).then(send);
      }
      draw();
      const form = handForm();
      if (form && outbox.get(matchId())?.hands.length && !form.querySelector("#refused")) answer(form);
    }
  });
  window.addEventListener("online", () => {
    line = null;
    draw();
    send();
  });
  window.addEventListener("offline", () => {
    line = "offline";
    away = true;
    draw();
  });
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") send();
  });
  // (A Save tapped before the phone has read what it kept waits for it: read later, it would
  // take the place of the hand just kept.)
  const loaded = start().catch((error) => console.error(error));

  // A page restored with taps on it (a reload keeps what was checked): drawn for those taps.
  const first = handForm();
  if (first && !first.querySelector("#refused")) answer(first);
})();
