/* kraken-view: the browser board.  Plain JavaScript, no library, nothing from the network.
 *
 * Served by `kraken-view`, it asks the server's JSON API (kraken_solver/viewer.py) for the
 * state of a position and the values of its legal cards.  In a page written by
 * `kraken-view --export`, window.KRAKEN_EXPORT holds the positions of one line a deal and
 * their values, and no request is made at all.
 *
 * Contract for tests and embedding: every card is an element with data-card="HK"; the cards
 * of a hand sit inside [data-seat="N"] (E, S, W); each legal card of the player to move has
 * data-value (the number shown on it) once its value is known.  #board carries data-values
 * ("none", "solving", "ready"), data-view ("double-dummy" or "player": what the values are),
 * data-deal (the deal shown, PBN from N) and data-played (the cards played, space-separated).
 *
 * With the double-dummy view (the default) data-value is the card's double-dummy value, a
 * whole number of points (score or points, as the toggle says).  With the player's view
 * (data-view="player") data-value is the hint's mean rounded to a whole point (the number on
 * the card), and each legal card also carries data-hint-mean (the exact mean, as the server
 * sent it), data-hint-se (its standard error, 0 when exact) and data-hint-p-made (P(made),
 * 0 to 1); #board then carries data-hint-exact ("true"/"false"), data-hint-layouts (layouts
 * solved) and data-hint-seat (the player whose view it is).
 */
(function () {
  "use strict";

  const SEATS = ["N", "E", "S", "W"];
  const SUITS = ["S", "H", "D", "C"];
  const SYM = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
  const SUIT_WORD = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
  const RED = { H: true, D: true };
  const RANK_SHOWN = { T: "10" };
  const SEAT_WORD = { N: "North", E: "East", S: "South", W: "West" };
  const EXPORT = window.KRAKEN_EXPORT || null;

  const $ = (sel, root) => (root || document).querySelector(sel);
  const $$ = (sel, root) => Array.from((root || document).querySelectorAll(sel));
  const el = (tag, attrs, ...kids) => {
    const e = document.createElement(tag);
    if (attrs) {
      for (const [k, v] of Object.entries(attrs)) {
        if (v === null || v === undefined || v === false) continue;
        if (k === "class") e.className = v;
        else if (k === "text") e.textContent = v;
        else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
        else if (k === "dataset") Object.assign(e.dataset, v);
        else e.setAttribute(k, v === true ? "" : v);
      }
    }
    for (const kid of kids) {
      if (kid === null || kid === undefined || kid === false) continue;
      e.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
    }
    return e;
  };
  const signed = (v) => (v > 0 ? "+" + v : String(v));
  const teamOf = (seat) => (SEATS.indexOf(seat) % 2 === 0 ? "N-S" : "E-W");
  const pip = (suit) => el("span", { class: "pip " + (RED[suit] ? "red" : "black"), text: SYM[suit] });
  const cardLabel = (c) => SYM[c[0]] + (RANK_SHOWN[c[1]] || c[1]);

  class ApiError extends Error {
    constructor(message, field, cancelled) { super(message); this.field = field || null; this.cancelled = !!cancelled; }
  }
  // this page's name for the server, new at each load: a new hint of this page supersedes
  // its older ones, and only this page sees or cancels its hints
  const CLIENT = "p" + Math.random().toString(36).slice(2, 10) + Date.now().toString(36);

  /* ------------------------------------------------------------------ backends */
  const Server = {
    exported: false,
    async get(path, params, signal) {
      const r = await fetch(path + "?" + new URLSearchParams(params), { cache: "no-store", signal });
      let body;
      try { body = await r.json(); } catch (e) { throw new ApiError(`the server answered ${r.status} without JSON`); }
      if (!r.ok) throw new ApiError(body.error || `the server answered ${r.status}`, body.field, body.cancelled);
      return body;
    },
    info() { return this.get("/api/info", {}); },
    state(p) { return this.get("/api/state", p); },
    values(p, objective) { return this.get("/api/values", Object.assign({}, p, { objective })); },
    hint(p, objective, extra, signal) { return this.get("/api/hint", Object.assign({}, p, { objective }, extra), signal); },
    hintProgress(job) { return this.get("/api/hint/progress", { job, client: CLIENT }); },
    cancelHint(job) {
      return fetch("/api/hint/cancel", { method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ job, client: CLIENT }), keepalive: true }).catch(() => null);
    },
    trumps(p) { return this.get("/api/trumps", p); },
    line(p, objective) { return this.get("/api/line", Object.assign({}, p, { objective })); },
    async parse(text) {
      const r = await fetch("/api/parse", {
        method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ text }),
      });
      let body;
      try { body = await r.json(); } catch (e) { throw new ApiError(`the server answered ${r.status} without JSON`); }
      if (!r.ok) throw new ApiError(body.error, body.field);
      return body;
    },
  };

  /* An exported page: the positions along one line a deal, their states and values. */
  const Exported = {
    exported: true,
    find(p) {
      const played = p.play ? p.play.split(/\s+/) : [];
      for (const d of EXPORT.deals) {
        const q = d.entry.params;
        if (q.deal !== p.deal || (q.first || "") !== (p.first || "") || (q.rules || "") !== (p.rules || "")
            || (q.double || "1") !== (p.double || "1")) continue;
        if (p.trump && q.trump !== p.trump) {
          throw new ApiError("This page holds the play with " + SYM[q.trump] + " as trump; " +
            "kraken-view explores the other trumps.");
        }
        for (let i = 0; i < played.length; i++) {
          if (played[i] !== d.line[i]) {
            throw new ApiError("This page holds the values along one line; kraken-view explores the others.");
          }
        }
        return { d, k: played.length };
      }
      throw new ApiError("This deal is not on this page.");
    },
    async info() {
      return { exported: true, source: EXPORT.source, version: EXPORT.version, hint: false,
               deals: EXPORT.deals.map((d) => d.entry), presets: [] };
    },
    async state(p) { const { d, k } = this.find(p); return d.states[k]; },
    async values(p, objective) {
      const { d, k } = this.find(p);
      const v = d.values[objective][k];
      if (!v) throw new ApiError("the deal is over: no card left to play");
      return v;
    },
    async trumps(p) { const { d } = this.find(Object.assign({}, p, { trump: "", play: "" })); return { rows: d.trumps }; },
    async line(p) { const { d } = this.find(p); return { pv: d.line.slice(p.play ? p.play.split(/\s+/).length : 0) }; },
    async hint() { throw new ApiError("the player's view needs kraken-view"); },
    async hintProgress() { return null; },
    async cancelHint() { return null; },
    async parse() { throw new ApiError("entering a deal needs kraken-view"); },
  };
  const api = EXPORT ? Exported : Server;

  /* ------------------------------------------------------------------ state */
  const S = {
    info: null, entries: [],
    deal: null, trump: null, first: "N", rules: "kraken", double: 1,
    line: [], at: 0,                        // the line of cards and how many of it are played
    objective: "score", hintView: false, samples: null,   // samples: null (the hint's choice) or N
    hintPending: null,                      // the hint asked for: {key, job, ctl, progress}
    state: null, stateKey: null,
    values: null, valuesKey: null, valuesPending: null,
    trumps: null, trumpsKey: null, trumpsPending: null,
    autoTrump: false, token: 0, error: null, ddSlow: false, lineBusy: false,
  };

  function params(opts) {
    const p = { deal: S.deal, first: S.first, rules: S.rules };
    if (S.trump) p.trump = S.trump;
    if (String(S.double) !== "1") p.double = String(S.double);
    const played = S.line.slice(0, S.at);
    if (played.length && !(opts && opts.fresh)) p.play = played.join(" ");
    return p;
  }
  const keyOf = (p, extra) => JSON.stringify([p.deal, p.trump || "", p.first, p.rules, p.double || "1", p.play || "", extra || ""]);
  const valuesKind = () => (S.hintView ? "hint:" + (S.samples || "") + ":" : "dd:") + S.objective;

  function readAddress() {
    let text = location.search.slice(1);
    if (!text && location.hash.length > 1) text = location.hash.slice(1);
    if (!text) return null;
    const q = new URLSearchParams(text);
    if (!q.get("deal")) return null;
    return {
      deal: q.get("deal"), trump: q.get("trump") || null, first: q.get("first") || null,
      rules: q.get("rules") || "kraken", double: q.get("double") || "1",
      play: (q.get("play") || "").split(/[\s,]+/).filter(Boolean),
      objective: q.get("objective") === "points" ? "points" : "score",
      hintView: q.get("view") === "player",
      samples: /^[0-9]{1,4}$/.test(q.get("samples") || "") ? Number(q.get("samples")) : null,
    };
  }

  function writeAddress() {
    if (!S.deal) return;
    const p = params();
    if (S.objective !== "score") p.objective = S.objective;
    if (S.hintView) {
      p.view = "player";
      if (S.samples) p.samples = String(S.samples);
    }
    const text = new URLSearchParams(p).toString();
    try {
      if (location.protocol === "file:") history.replaceState(null, "", "#" + text);
      else history.replaceState(null, "", "?" + text);
    } catch (e) { /* an address that cannot change: the page still works */ }
  }

  /* ------------------------------------------------------------------ messages */
  let messageTimer = null;
  function say(text, kind) {
    const m = $("#message");
    m.textContent = text;
    m.className = "message" + (kind === "info" ? " info" : "");
    m.hidden = false;
    clearTimeout(messageTimer);
    messageTimer = setTimeout(() => { m.hidden = true; }, kind === "info" ? 4000 : 9000);
  }

  /* ------------------------------------------------------------------ loading positions */
  function setPosition(pos) {
    S.deal = pos.deal;
    S.trump = pos.trump || null;
    S.first = pos.first || pos.deal[0];
    S.rules = pos.rules || "kraken";
    S.double = pos.double || "1";
    S.line = (pos.play || []).slice();
    S.at = S.line.length;
    S.autoTrump = !pos.trump;
    S.values = null; S.valuesKey = null;
    S.samples = null;
  }

  function loadEntry(entry) {
    const q = entry.params;
    setPosition({ deal: q.deal, trump: q.trump, first: q.first, rules: q.rules, double: q.double,
                  play: q.play ? q.play.split(" ") : [] });
    if (EXPORT) {
      const d = EXPORT.deals.find((x) => x.entry === entry) || EXPORT.deals[entry.index];
      if (d) { S.line = d.line.slice(); S.at = d.played_given; }
    }
    // a deal played to the end opens at its start, the play ready to step through (redo)
    if (S.at && S.at === cardsInDeal(S.deal)) S.at = 0;
    refresh();
  }
  function cardsInDeal(deal) {
    const hand = deal.slice(2).trim().split(/\s+/)[0] || "";
    return 4 * hand.replace(/\./g, "").replace(/10/g, "T").length;
  }

  async function refresh() {
    render();
    if (!S.deal) return;
    writeAddress();
    // a hint asked for another position (or view) is of no use now: stop it at once
    if (S.hintPending && S.hintPending.key !== keyOf(params(), valuesKind())) abandonHint();
    const p = params();
    const key = keyOf(p);
    const token = ++S.token;
    if (S.stateKey !== key) {
      let st;
      try {
        st = await api.state(p);
      } catch (e) {
        if (token !== S.token) return;
        say(e.message);
        if (e.field === "play" && S.at > 0) {   // a link with a bad card: keep what is legal
          S.line = []; S.at = 0; return refresh();
        }
        return;
      }
      if (token !== S.token) return;
      S.state = st; S.stateKey = key;
      S.deal = st.deal;                     // the canonical text (from N)
    }
    render();
    if (!S.trump) { ensureTrumps(); return; }   // the trump table picks one
    // the values first: the trump table (four solves of the fresh deal) can wait for them
    ensureValues().then(ensureTrumps);
  }

  async function ensureTrumps() {
    const p = params({ fresh: true });
    delete p.trump;
    const key = keyOf(p);
    if (S.trumpsKey === key || S.trumpsPending === key) return;
    S.trumpsPending = key;
    S.trumps = null;
    render();
    try {
      const t = await api.trumps(p);
      if (S.trumpsPending !== key) return;
      S.trumps = t.rows; S.trumpsKey = key;
      if (!S.trump) {                        // no trump given: play the best of the table
        const best = t.rows.reduce((a, b) => (b.score > a.score || (b.score === a.score && b.points > a.points) ? b : a));
        S.trump = best.trump; S.autoTrump = true;
        S.trumpsPending = null;
        return refresh();
      }
    } catch (e) {
      if (S.trumpsPending === key) say(e.message);
    } finally {
      if (S.trumpsPending === key) S.trumpsPending = null;
      render();
    }
  }

  /* One request for double-dummy values at a time: when it comes back and the position has
   * changed meanwhile, the values of the new position are asked for (never a queue of old
   * ones).  The player's view goes its own way (ensureHint). */
  async function ensureValues() {
    if (!S.state || S.state.over || !S.trump) { abandonHint(); render(); return; }
    if (S.hintView) { ensureHint(); return; }
    abandonHint();
    const p = params();
    const kind = valuesKind();
    const key = keyOf(p, kind);
    if (S.valuesKey === key || S.valuesPending) { render(); return; }
    S.valuesPending = key;
    render();
    const slow = setTimeout(() => { S.ddSlow = true; renderBusy(); }, 250);
    try {
      const v = await api.values(p, S.objective);
      if (key === keyOf(params(), valuesKind())) { S.values = v; S.valuesKey = key; }
    } catch (e) {
      if (key === keyOf(params(), valuesKind())) {
        say(e.message);
        S.values = null; S.valuesKey = key;
      }
    } finally {
      clearTimeout(slow);
      S.valuesPending = null; S.ddSlow = false;
      render();
      if (S.state && S.valuesKey !== keyOf(params(), valuesKind())) ensureValues();
    }
  }

  /* The player's-view hint of the position shown.  A hint can take seconds (the first lead:
   * 200 layouts, each solved double dummy), so it shows its progress (polled from the
   * server), and a later click, a move or the toggle abandons it: the request is aborted and
   * the server told to stop its workers (abandonHint), and only a hint of the position and
   * view still shown is ever drawn. */
  let hintCount = 0;
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  async function ensureHint() {
    const p = params();
    const key = keyOf(p, valuesKind());
    if (S.valuesKey === key) { render(); return; }
    if (S.hintPending && S.hintPending.key === key) return;     // asked already
    abandonHint();
    const job = CLIENT + "-" + (++hintCount);
    const h = S.hintPending = { key, job, ctl: new AbortController(), progress: null, t0: Date.now(),
                                seat: S.state.to_move };
    const extra = { job, client: CLIENT };
    if (S.samples) extra.samples = String(S.samples);
    render();
    (async () => {                          // progress, until the answer comes or it is abandoned
      await sleep(150);
      while (S.hintPending === h) {
        try {
          const pr = await api.hintProgress(job);
          if (S.hintPending === h && pr) { h.progress = pr; renderBusy(); }
        } catch (e) { /* not started yet, or finished and forgotten */ }
        await sleep(300);
      }
    })();
    try {
      const v = await api.hint(p, S.objective, extra, h.ctl.signal);
      if (S.hintPending === h && key === keyOf(params(), valuesKind())) { S.values = v; S.valuesKey = key; }
    } catch (e) {
      if (S.hintPending === h && e.name !== "AbortError") {
        say(e.message);
        S.hintView = false;                 // back to the double-dummy values
        writeAddress();
      }
    } finally {
      if (S.hintPending === h) {
        S.hintPending = null;
        render();
        if (S.state) ensureValues();
      }
    }
  }
  // a page reloaded or closed gives up its hint (the server would also notice the polls stop)
  window.addEventListener("pagehide", () => abandonHint());
  function abandonHint() {
    const h = S.hintPending;
    if (!h) return;
    S.hintPending = null;
    h.ctl.abort();
    api.cancelHint(h.job);
    renderBusy();
  }

  /* ------------------------------------------------------------------ moves */
  function play(card) {
    if (!S.state || S.state.over || !S.state.legal.includes(card)) return;
    if (EXPORT && S.line[S.at] !== card) {
      say("This page holds the values along one line; kraken-view explores the others.", "info");
      return;
    }
    if (S.line[S.at] === card) S.at += 1;
    else { S.line = S.line.slice(0, S.at).concat([card]); S.at = S.line.length; }
    S.samples = null;
    refresh();
  }
  function go(at) {
    at = Math.max(0, Math.min(S.line.length, at));
    if (at === S.at) return;
    S.at = at;
    S.samples = null;
    refresh();
  }
  async function bestLine() {
    if (!S.state || S.state.over) return;
    const p = params();
    S.lineBusy = true; renderBusy();
    try {
      const r = await api.line(p, S.objective);
      if (keyOf(p) !== keyOf(params())) return;
      S.line = S.line.slice(0, S.at).concat(r.pv);
      S.at = S.line.length;
      refresh();
    } catch (e) {
      say(e.message);
    } finally {
      S.lineBusy = false; renderBusy();
    }
  }
  function chooseTrump(trump) {
    if (EXPORT && EXPORT.deals.length) {
      const d = currentExport();
      if (d && d.entry.params.trump !== trump) {
        say("This page holds the play with " + SYM[d.entry.params.trump] + " as trump; kraken-view explores the other trumps.", "info");
        return;
      }
    }
    S.trump = trump; S.autoTrump = false; S.line = []; S.at = 0;
    S.values = null; S.valuesKey = null; S.samples = null;
    refresh();
  }
  function currentExport() {
    if (!EXPORT) return null;
    return EXPORT.deals.find((d) => d.entry.params.deal === S.deal && d.entry.params.first === S.first) || null;
  }

  /* ------------------------------------------------------------------ drawing */
  function render() {
    const st = S.state && S.stateKey === keyOf(params()) ? S.state : S.state;
    renderContract(st);
    renderBoard(st);
    renderVerdict(st);
    renderBusy();
    renderControls(st);
    renderHint(st);
    renderSheet(st);
    renderLine(st);
    renderTrumps(st);
    renderDeals();
    renderRules(st);
  }

  function currentValues() {
    if (!S.values || S.valuesKey !== keyOf(params(), valuesKind())) return null;
    return S.values;
  }

  function renderContract(st) {
    const c = $("#contract");
    c.textContent = "";
    if (!st) { c.textContent = S.deal ? "…" : "No deal yet: enter one."; return; }
    if (st.trump) {
      c.append("Trump ", pip(st.trump), " " + SUIT_WORD[st.trump]);
      if (S.autoTrump) c.append(" (best of the trump table)");
    } else {
      c.append("Trump: choosing…");
    }
    c.append(` · ${st.first} first: ${st.playing_team} play, ${st.defenders} defend · ${st.rules}`);
    if (String(st.double) !== "1") c.append(` ×${st.double}`);
  }

  function cardButton(card, opts) {
    const suit = card[0];
    const b = el("button", {
      type: "button", class: "card " + (RED[suit] ? "red" : "black") + (opts.cls ? " " + opts.cls : ""),
      dataset: { card }, title: opts.title || null, disabled: opts.disabled ? true : null,
      "aria-label": opts.label || null,
    },
    el("span", { class: "rank", text: RANK_SHOWN[card[1]] || card[1] }),
    el("span", { class: "pip", text: SYM[suit] }));
    if (opts.value !== undefined && opts.value !== null) {
      const v = opts.value;
      b.dataset.value = String(v.number);
      b.append(el("span", { class: "val " + v.cls, text: v.text }));
      if (v.hint) {
        b.dataset.hintMean = String(v.hint.mean);
        b.dataset.hintSe = String(v.hint.se);
        b.dataset.hintPMade = String(v.hint.p_made);
        b.append(el("span", { class: "val-sub", text: percent(v.hint.p_made) }));
      }
    }
    if (opts.onclick) b.addEventListener("click", opts.onclick);
    return b;
  }

  /* P(made) as a club player reads it: 0% and 100% only when no layout, or every one,
   * makes it (1% to 99% otherwise) */
  function percent(p) {
    if (p === null || p === undefined) return "";
    if (p <= 0) return "0%";
    if (p >= 1) return "100%";
    return Math.min(99, Math.max(1, Math.round(100 * p))) + "%";
  }
  const oneDecimal = (x) => (Math.abs(x) < 0.05 ? "0.0" : x.toFixed(1));
  const signedDecimal = (x) => (x >= 0.05 ? "+" : "") + oneDecimal(x);
  const unit = () => (S.objective === "score" ? "score" : "points");

  function valueOf(card, values) {
    if (!values) return null;
    if (S.hintView) {
      if (values.forced) {                   // the only legal card: nothing was solved
        if (!(values.best || []).includes(card)) return null;
        return { number: "forced", text: "forced", cls: "hint", best: true,
                 title: `${cardLabel(card)}: forced (the only legal card)` };
      }
      const e = values.cards && values.cards[card];
      if (!e) return null;
      const n = Math.round(e.mean);          // a whole point, halves up (the number shown)
      const se = values.exact ? "" : ` ± ${oneDecimal(e.se)}`;
      return { number: n, text: S.objective === "score" ? signed(n) : String(n), cls: "hint", hint: e,
               title: `${cardLabel(card)}: mean ${unit()} ${S.objective === "score" ? signedDecimal(e.mean) : oneDecimal(e.mean)}${se}` +
                      `, P(made) ${percent(e.p_made)} over ${values.layouts} layouts (${values.exact ? "exact" : "sampled"})`,
               best: (values.best || []).includes(card) };
    }
    const v = values.card_values[card];
    if (v === undefined) return null;
    if (values.objective === "score") {
      return { number: v, text: signed(v), cls: v > 0 ? "made" : "nat",
               title: `${cardLabel(card)}: ${signed(v)} ${v > 0 ? "made" : "nat"}`, best: values.best_cards.includes(card) };
    }
    return { number: v, text: String(v), cls: "plain", title: `${cardLabel(card)}: ${v} points`,
             best: values.best_cards.includes(card) };
  }

  function renderBoard(st) {
    const board = $("#board");
    const values = currentValues();
    board.dataset.values = !st || !S.trump || st.over ? "none" : values ? "ready" : "solving";
    board.dataset.view = S.hintView ? "player" : "double-dummy";
    if (S.hintView && values) {
      board.dataset.hintExact = String(values.exact);
      board.dataset.hintLayouts = String(values.layouts);
      board.dataset.hintSeat = values.seat;
    } else {
      delete board.dataset.hintExact; delete board.dataset.hintLayouts; delete board.dataset.hintSeat;
    }
    const observer = S.hintView && st && st.trump && !st.over ? st.to_move : null;
    board.dataset.played = st ? st.played.join(" ") : "";
    board.dataset.deal = st ? st.deal : "";
    for (const seat of SEATS) {
      const box = $(`.seat[data-seat="${seat}"]`, board);
      const label = $(".seat-label", box);
      const hand = $(".hand", box);
      label.textContent = ""; hand.textContent = "";
      const toMove = st && st.to_move === seat && !st.over && st.trump;
      box.classList.toggle("to-move", !!toMove);
      box.classList.toggle("unseen", !!observer && observer !== seat);
      label.append(el("span", { class: "name", text: seat }),
        el("span", { class: "team", text: SEAT_WORD[seat] }));
      if (st && st.first === seat) label.append(el("span", { class: "tag first", title: "first player: chose trump, leads the first trick", text: "first" }));
      if (toMove) label.append(el("span", { class: "tag move", text: "to play" }));
      if (observer && observer !== seat) label.append(el("span", { class: "tag unseen", title: `${observer} cannot see this hand: the player's view averages over every way its cards may lie`, text: "unseen by " + observer }));
      if (st && st.sheet) {
        const n = st.tricks.filter((t) => t.winner === seat).length;
        if (n) label.append(el("span", { class: "tag won", title: "tricks won", text: n + (n === 1 ? " trick" : " tricks") }));
      }
      if (!st) continue;
      const cards = st.hands[seat];
      for (const suit of SUITS) {
        const row = el("div", { class: "suit-row" + (st.trump === suit ? " trump" : ""), dataset: { suit } },
          el("span", { class: "sym " + (RED[suit] ? "red" : "black"), text: SYM[suit], title: st.trump === suit ? "trump" : SUIT_WORD[suit] }));
        const inSuit = cards.filter((c) => c[0] === suit);
        if (!inSuit.length) row.append(el("span", { class: "void", text: "—" }));
        for (const c of inSuit) {
          const legal = toMove && st.legal.includes(c);
          const v = legal ? valueOf(c, values) : null;
          let cls = toMove ? (legal ? "legal" : "not-legal") : "idle";
          if (v && v.best) cls += " best";
          if (legal && S.line[S.at] === c && S.at < S.line.length) cls += " next-on-line";
          row.append(cardButton(c, {
            cls, value: v, disabled: !legal, title: v ? v.title : (legal ? cardLabel(c) + ": solving…" : null),
            label: cardLabel(c) + (v ? " " + v.text : ""),
            onclick: legal ? () => play(c) : null,
          }));
        }
        hand.append(row);
      }
    }
    renderFelt(st);
  }

  function renderFelt(st) {
    const felt = $("#felt");
    for (const slot of $$(".slot", felt)) slot.textContent = "";
    const centre = $("#felt-centre");
    centre.textContent = "";
    $$(".caption", felt).forEach((c) => c.remove());
    felt.classList.remove("done");
    if (!st) return;
    let cards = st.trick.cards, leader = st.trick.leader, winner = null;
    if (!cards.length && st.tricks.length) {           // show the last trick until the next lead
      const t = st.tricks[st.tricks.length - 1];
      cards = t.cards; leader = t.leader; winner = t.winner;
      felt.classList.add("done");
      felt.append(el("div", { class: "caption", text: `trick ${t.number} to ${t.winner}: ${t.points} points` + (t.roem ? ` + ${t.roem} roem` : "") }));
    }
    const li = SEATS.indexOf(leader);
    cards.forEach((c, i) => {
      const seat = SEATS[(li + i) % 4];
      $(`.slot[data-slot="${seat}"]`, felt).append(cardButton(c, {
        cls: "on-table" + (winner === seat ? " winning" : ""), disabled: true,
        title: `${seat} played ${cardLabel(c)}` + (i === 0 ? " (lead)" : ""),
      }));
    });
    if (st.trump) centre.append(el("span", { class: "trump-pip " + (RED[st.trump] ? "red" : "black"), text: SYM[st.trump], title: "trump" }));
    if (st.over) centre.append(el("span", { text: "end of the deal" }));
    else if (st.trump) {
      const arrows = { N: "\u2191", E: "\u2192", S: "\u2193", W: "\u2190" };
      centre.append(el("span", { class: "arrow", text: arrows[st.to_move] + " " }), el("span", { text: `${st.to_move} to play` }));
      centre.append(el("br"), el("span", { text: `trick ${st.tricks.length + 1} of ${st.cards_a_hand}` }));
    }
  }

  function renderVerdict(st) {
    const box = $("#verdict");
    box.textContent = "";
    if (!st) return;
    if (st.over && st.sheet && st.sheet.final) {
      const f = st.sheet.final;
      box.append(el("span", { class: "big " + (f.score > 0 ? "made" : "nat"), text: signed(f.score) }),
        " " + (f.made ? (f.pit ? "made with pit" : "made") : "nat"),
        el("span", { class: "who", text: `end of the deal · score ${st.playing_team} ${f.playing_team}, ${st.defenders} ${f.defenders}` }));
      return;
    }
    const v = currentValues();
    if (!st.trump) { box.append("Trump table first…"); return; }
    if (!v) {
      box.append(el("span", { class: "who", text: S.hintView ? `${st.to_move} to play · working out ${st.to_move}'s view…` : `${st.to_move} to play · values coming…` }));
      return;
    }
    if (S.hintView && v.forced) {
      box.append(el("span", { class: "big hint", text: "forced" }),
        ` ${cardLabel(v.best[0])} (the only legal card)`,
        el("span", { class: "who", text: `${v.seat}'s view (${v.side}) · nothing to choose, no layout solved` }));
      return;
    }
    if (S.hintView) {
      const best = v.best[0], e = v.cards[best];
      box.append(el("span", { class: "big hint", text: S.objective === "score" ? signedDecimal(e.mean) : oneDecimal(e.mean) }),
        ` mean ${unit()}, best ${v.best.map(cardLabel).join(" ")} · P(made) ${percent(e.p_made)}`,
        el("span", { class: "who", text: `${v.seat}'s view (${v.side}) · ` +
          (v.exact ? `exact: all ${v.layouts.toLocaleString("en")} layouts` : `sampled: ${v.layouts.toLocaleString("en")} layouts`) }));
      return;
    }
    if (v.objective === "score") {
      box.append(el("span", { class: "big " + (v.value > 0 ? "made" : "nat"), text: signed(v.value) }),
        " " + (v.value > 0 ? "made" : "nat"),
        el("span", { class: "who", text: `double dummy, score for ${st.playing_team} · ${st.to_move} to play` }));
    } else {
      box.append(el("span", { class: "big", text: String(v.value) }), " points",
        el("span", { class: "who", text: `double dummy, card points + trick roem of ${st.playing_team} · ${st.to_move} to play` }));
    }
  }

  /* What is being worked on: the double-dummy values after a quarter second, a line, or a
   * hint with its progress (layouts solved of how many, seconds so far) and a way out. */
  function renderBusy() {
    const b = $("#busy");
    b.textContent = "";
    const h = S.hintPending;
    if (h) {
      const pr = h.progress;
      const secs = ((Date.now() - h.t0) / 1000).toFixed(1);
      let what = "asking…";
      if (pr && pr.state === "queued") what = "waiting for the hint before it…";
      else if (pr && pr.state === "choosing") what = "choosing the layouts…";
      else if (pr && pr.total !== null) what = `${pr.done.toLocaleString("en")} of ${pr.total.toLocaleString("en")} layouts`;
      const bar = el("progress", { max: pr && pr.total ? String(pr.total) : null, value: pr && pr.total ? String(pr.done) : null,
                                   "aria-label": "layouts solved" });
      b.append(el("span", { class: "busy-line" }, el("span", { class: "spinner", "aria-hidden": "true" }),
          ` ${h.seat}'s view: ${what} · ${secs} s `,
          el("button", { type: "button", class: "link", id: "hint-stop", title: "Stop the hint and show the double-dummy values",
                         onclick: () => { S.hintView = false; refresh(); }, text: "stop" })),
        bar);
      b.classList.add("hinting");
      b.hidden = false;
      return;
    }
    b.classList.remove("hinting");
    if (S.ddSlow || S.lineBusy) {
      b.append(el("span", { class: "spinner", "aria-hidden": "true" }), S.lineBusy ? " the best line…" : " solving…");
      b.hidden = false;
    } else {
      b.hidden = true;
    }
  }

  /* The player's view box: what the player to move can see, how the layouts were chosen,
   * and every legal card's mean, standard error, P(made) and loss against the best. */
  function renderHint(st) {
    const box = $("#hint");
    $("#hint-box").hidden = !S.hintView;
    box.textContent = "";
    $("#hint-sub").textContent = "";
    if (!S.hintView || !st || !st.trump) return;
    if (st.over) { box.append(el("p", { class: "empty-note", text: "The deal is over: no card left to play." })); return; }
    const seat = st.to_move;
    const v = currentValues();
    const side = teamOf(seat) === st.playing_team ? "playing team" : "defender";
    $("#hint-sub").textContent = `${seat} to play (${side})`;
    // what the player to move can see
    const dealt = st.dealt[seat];
    const hand = el("span", { class: "hand-text" });
    for (const suit of SUITS) {
      const inSuit = dealt.filter((c) => c[0] === suit);
      if (!inSuit.length) continue;
      hand.append(pip(suit), " " + inSuit.map((c) => RANK_SHOWN[c[1]] || c[1]).join(" ") + "  ");
    }
    const nPlayed = st.played.length;
    let unseen = 0;
    for (const s2 of SEATS) if (s2 !== seat) unseen += st.hands[s2].length;
    const declared = v && v.declared ? v.declared : (st.rules_options.hand_roem && st.sheet ?
      { playing_team: st.sheet.playing_team.hand_roem, defenders: st.sheet.defenders.hand_roem } : null);
    const sees = el("ul", { class: "sees" },
      el("li", null, `${seat}'s own hand as dealt: `, hand),
      el("li", { text: nPlayed ? `the ${nPlayed} card${nPlayed === 1 ? "" : "s"} played so far, and who played each` : "no card played yet" }),
      el("li", { text: declared ? `the hand roem declared: ${st.playing_team} ${declared.playing_team}, ${st.defenders} ${declared.defenders}` : "no hand roem in these rules" }));
    box.append(el("p", { class: "hint-head", text: `${seat} sees:` }), sees);
    if (!v) {
      box.append(el("p", { class: "empty-note", text: `Not the other ${unseen} cards: the hint goes over the ways they may lie…` }));
      return;
    }
    if (v.forced) {
      box.append(el("p", { class: "hint-how", text: `Forced: ${cardLabel(v.best[0])} is the only legal card; nothing to choose, no layout solved.` }));
      return;
    }
    const n = v.layouts.toLocaleString("en");
    let how;
    if (v.exact) {
      how = `Exact: all ${n} layouts that fit what ${seat} saw (ways the ${unseen} unseen cards may lie, given the play and the roem), each solved double dummy and weighted equally.`;
    } else {
      const of = v.consistent !== null ? "the " + v.consistent.toLocaleString("en")
        : "about " + Number(v.consistent_estimate.toPrecision(2)).toLocaleString("en");
      how = `Sampled: ${n} layouts drawn at random (seed ${v.seed}) of ${of} that fit what ${seat} saw (ways the ${unseen} unseen cards may lie, given the play and the roem), each solved double dummy. ± is one standard error.`;
    }
    box.append(el("p", { class: "hint-how", text: how }));
    const rows = Object.entries(v.cards).sort((a, b) => a[1].loss - b[1].loss);
    const tbody = el("tbody");
    for (const [card, e] of rows) {
      const best = v.best.includes(card);
      tbody.append(el("tr", { class: best ? "best" : null, dataset: { hintCard: card } },
        el("td", { class: "card-cell" }, el("span", { class: RED[card[0]] ? "red" : "black", text: cardLabel(card) }), best ? el("span", { class: "best-mark", text: " ★" }) : null),
        el("td", { text: S.objective === "score" ? signedDecimal(e.mean) : oneDecimal(e.mean) }),
        v.exact ? null : el("td", { class: "se", text: "± " + oneDecimal(e.se) }),
        el("td", { text: percent(e.p_made) }),
        el("td", { class: "loss" }, best ? "best" : "-" + oneDecimal(e.loss),
          best || v.exact ? null : el("span", { class: "pm", title: "standard error of the difference (the same layouts)", text: " ± " + oneDecimal(e.loss_se) }))));
    }
    box.append(el("div", { class: "table-wrap" }, el("table", { class: "hint-table" },
      el("thead", null, el("tr", null, el("th", { text: "card" }), el("th", { text: "mean " + unit() }),
        v.exact ? null : el("th", { text: "± se" }), el("th", { text: "P(made)" }), el("th", { text: "vs best" }))), tbody)));
    const wants = teamOf(seat) === st.playing_team ? "high" : "low";
    box.append(el("p", { class: "hint-note", text:
      `Values from the side of ${st.playing_team}, the playing team: ${seat} wants them ${wants}. P(made): the share of the layouts in which the card's score is made. ` +
      `After the card every hand is played double dummy, as if open.` }));
    const foot = el("p", { class: "hint-foot" },
      v.cached ? "Worked out before." : `Took ${(v.ms / 1000).toFixed(1)} s (${v.workers} worker${v.workers === 1 ? "" : "s"}).`);
    const max = (S.info && S.info.limits && S.info.limits.hint_samples) || 0;
    if (!v.exact && max && v.layouts < max) {
      const wait = v.cached ? "" : ` (about ${Math.max(1, Math.round(v.ms * max / v.layouts / 1000))} s)`;
      foot.append(" ", el("button", { type: "button", class: "link", id: "hint-more", title: "More layouts: a smaller standard error, a longer wait",
        onclick: () => { S.samples = max; refresh(); }, text: `Sample ${max.toLocaleString("en")} layouts${wait}` }));
    } else if (S.samples) {
      foot.append(" ", el("button", { type: "button", class: "link", id: "hint-fewer",
        onclick: () => { S.samples = null; refresh(); }, text: "Back to the usual sample" }));
    }
    box.append(foot);
  }

  function renderControls(st) {
    $("#btn-start").disabled = S.at === 0;
    $("#btn-undo").disabled = S.at === 0;
    $("#btn-redo").disabled = S.at >= S.line.length;
    $("#btn-end").disabled = S.at >= S.line.length;
    $("#btn-best").disabled = !st || st.over || !S.trump;
    $("#btn-best").hidden = !!EXPORT;
    $("#btn-edit").hidden = !!EXPORT;
    $("#btn-play").hidden = !!EXPORT;
    $("#show-score").setAttribute("aria-pressed", String(S.objective === "score"));
    $("#show-points").setAttribute("aria-pressed", String(S.objective === "points"));
    $("#view-group").hidden = !(S.info && S.info.hint);
    $("#show-dd").setAttribute("aria-pressed", String(!S.hintView));
    $("#show-hint").setAttribute("aria-pressed", String(S.hintView));
    const legend = $("#legend");
    legend.textContent = "";
    if (S.hintView) legend.append(`Player's view: each legal card's mean ${unit()} over the layouts the player to move cannot tell apart, and P(made); `, el("span", { class: "bestkey", text: "best" }), " for that player highlighted.");
    else if (S.objective === "score") legend.append("Each legal card: its score, ", el("span", { class: "made", text: "made" }), " or ", el("span", { class: "nat", text: "nat" }), " (playing team's side); ", el("span", { class: "bestkey", text: "best" }), " highlighted.");
    else legend.append("Each legal card: the playing team's card points + trick roem; ", el("span", { class: "bestkey", text: "best" }), " for the player to move.");
  }

  function renderSheet(st) {
    const box = $("#sheet");
    box.textContent = "";
    if (!st) return;
    if (!st.sheet) { box.append(el("p", { class: "empty-note", text: "The score sheet starts once the trump is known." })); return; }
    const sh = st.sheet, pt = sh.playing_team, df = sh.defenders;
    const D = st.playing_team, O = st.defenders;
    const row = (name, a, b, cls, title) => el("tr", { class: cls || null, title: title || null }, el("td", { text: name }), el("td", { text: String(a) }), el("td", { text: String(b) }));
    const body = el("tbody", null,
      row("Tricks", pt.tricks, df.tricks),
      row("Card points", pt.card_points, df.card_points),
      row("Last trick", pt.last_trick, df.last_trick, null, `the last trick's ${sh.last_bonus}`),
      row("Trick roem", pt.trick_roem, df.trick_roem),
      row("Hand roem", pt.hand_roem, df.hand_roem, null, "declared before the first trick (rules 12-17)"));
    if (sh.final) body.append(row("Pit", sh.final.pit ? "+" + sh.pit_bonus : "–", "–", null, "all tricks to the playing team"));
    body.append(row("Total", pt.total, df.total, "total"));
    if (sh.final) {
      const f = sh.final;
      body.append(row(f.made ? "Score" + (f.multiplier > 1 ? ` (×${f.multiplier})` : "") : "Score (nat)" + (f.multiplier > 1 ? ` (×${f.multiplier})` : ""), f.playing_team, f.defenders, "final"));
    }
    box.append(el("table", { class: "sheet" },
      el("thead", null, el("tr", null, el("th", { text: "" }), el("th", { text: D + " (playing)" }), el("th", { text: O }))), body));
    if (sh.final) {
      const f = sh.final;
      box.append(el("p", { class: "sheet-note " + (f.made ? "made" : "nat"),
        text: f.made ? `${D} made it${f.pit ? " with the pit" : ""}: score ${signed(f.score)}.`
                     : `${D} went nat: ${O} score all ${f.defenders}; score ${signed(f.score)}.` }));
    } else if (st.played.length) {
      box.append(el("p", { class: "sheet-note", text: `${D} make it with a higher total than ${O} at the end` +
        (sh.pit_possible ? "; the pit is still possible" : "; no pit now") + "." }));
    }
    if (st.melds.length) {
      const ul = el("ul", { class: "melds" });
      for (const m of st.melds) {
        ul.append(el("li", { class: m.counts ? "yes" : "no", title: m.counts ? "counts" : "does not count (rule 15: the other team holds the best meld)" },
          `${m.seat} (${teamOf(m.seat)}): ${m.text} = ${m.value}` + (m.counts ? "" : " (does not count)")));
      }
      box.append(el("p", { class: "melds-head", text: "Hand roem declared" }), ul);
    } else if (st.rules_options && st.rules_options.hand_roem) {
      box.append(el("p", { class: "empty-note", text: "No hand roem declared." }));
    }
  }

  function renderLine(st) {
    const box = $("#line");
    box.textContent = "";
    if (!st || !S.line.length) { box.append(el("p", { class: "empty-note", text: "No card played yet: click a card of the player to move." })); return; }
    const tbody = el("tbody");
    const nTricks = Math.ceil(S.line.length / 4);
    let dTot = 0, oTot = 0;
    for (let t = 0; t < nTricks; t++) {
      const done = st.tricks[t];
      const cells = el("td", { class: "cards" });
      for (let i = 4 * t; i < Math.min(4 * t + 4, S.line.length); i++) {
        const c = S.line[i];
        cells.append(el("button", { type: "button", class: (RED[c[0]] ? "red" : "black") + (i === S.at - 1 ? " now" : ""),
          "data-line-card": c, title: `go to after card ${i + 1}`, onclick: () => go(i + 1), text: cardLabel(c) }));
      }
      const future = 4 * t >= S.at;
      let lead = "", won = "", pts = "", roem = "", d = "", o = "";
      if (done) {
        lead = done.leader; won = done.winner; pts = done.points; roem = done.roem || "";
        if (teamOf(done.winner) === st.playing_team) dTot += done.points + done.roem; else oTot += done.points + done.roem;
        d = dTot; o = oTot;
      } else if (t === st.tricks.length && !future) {
        lead = st.trick.leader;
      }
      cells.prepend(el("span", { class: "lead", title: lead ? `${lead} led` : null, text: lead || "\u00a0" }));
      tbody.append(el("tr", { class: future ? "future" : null },
        el("td", { class: "num" }, el("button", { type: "button", title: "go to the start of this trick", onclick: () => go(4 * t), text: String(t + 1) })),
        cells, el("td", { text: won }), el("td", { text: String(pts) }), el("td", { text: String(roem) }),
        el("td", { text: String(d) }), el("td", { text: String(o) })));
    }
    box.append(el("table", { class: "line-table" }, el("thead", null, el("tr", null,
      el("th", { text: "#" }), el("th", { class: "cards", text: "lead, cards" }), el("th", { text: "won" }),
      el("th", { text: "pts" }), el("th", { text: "roem" }), el("th", { text: st.playing_team }), el("th", { text: st.defenders }))), tbody));
  }

  function renderTrumps(st) {
    const box = $("#trumps");
    box.textContent = "";
    $("#trumps-sub").textContent = st ? `${st.first} chooses; click to play it` : "";
    if (!st) return;
    if (!S.trumps) { box.append(el("p", { class: "empty-note" }, el("span", { class: "spinner" }), " solving the four trumps…")); return; }
    box.append(el("div", { class: "trump-head" }, el("span"), el("span", { text: "score" }), el("span", { text: "points" }), el("span")));
    for (const r of S.trumps) {
      box.append(el("div", { class: "trump-row" + (r.trump === S.trump ? " current" : ""), dataset: { trump: r.trump } },
        el("span", { class: "pip " + (RED[r.trump] ? "red" : "black"), text: SYM[r.trump] }),
        el("span", null, el("b", { class: r.made ? "made" : "nat", text: signed(r.score) }), " " + (r.made ? "made" : "nat"),
          r.best ? el("span", { class: "best-mark", text: " ★ best" }) : null),
        el("span", { text: String(r.points) }),
        el("button", { type: "button", onclick: () => chooseTrump(r.trump), disabled: r.trump === S.trump && S.at === 0 ? true : null,
          text: r.trump === S.trump ? (S.at === 0 ? "playing" : "restart") : "play " + SYM[r.trump] })));
    }
  }

  function renderDeals() {
    const box = $("#deals-box");
    const list = S.entries;
    box.hidden = list.length < 2;
    if (box.hidden) return;
    $("#deals-sub").textContent = S.info && S.info.source ? S.info.source : "";
    const ol = $("#deals");
    ol.textContent = "";
    for (const e of list) {
      const current = e.params.deal === S.deal && (e.params.first || "") === S.first;
      ol.append(el("li", null, el("button", { type: "button", class: current ? "current" : null, onclick: () => loadEntry(e), text: e.label })));
    }
  }

  function renderRules(st) {
    const box = $("#rules");
    box.textContent = "";
    if (!st) return;
    const o = st.rules_options;
    const yes = (b) => (b ? "yes" : "no");
    const items = [
      ["Rules", st.rules_name],
      ["Trump rule", o.trump_rule === "amsterdam" ? "Amsterdam (no need to trump over a partner who wins)" : "Rotterdam (always trump, overtrump)"],
      ["Undertrump", o.undertrump === "forced" ? "forced (a lower trump when you cannot overtrump)" : "forbidden unless nothing else"],
      ["Trick roem", yes(o.trick_roem)], ["Hand roem", yes(o.hand_roem) + (o.long_runs_100 ? " (5+ run 100)" : "")],
      ["Pit bonus", String(o.pit_bonus)], ["Double spades", yes(o.double_spades)],
      ["Multiplier", "×" + o.multiplier],
    ];
    const dl = el("dl");
    for (const [k, v] of items) dl.append(el("dt", { text: k }), el("dd", { text: v }));
    box.append(dl);
  }

  /* ------------------------------------------------------------------ the editor */
  const dealer = { give: "N", holder: {} };          // card -> seat

  function openEditor(tab) {
    if (EXPORT) return;
    const d = $("#editor");
    $("#paste-error").hidden = true; $("#click-error").hidden = true;
    if (S.deal && !$("#paste").value) $("#paste").value = oneLine();
    if (S.deal && !Object.keys(dealer.holder).length && S.state) {
      for (const seat of SEATS) for (const c of S.state.dealt[seat]) dealer.holder[c] = seat;
    }
    $("#deal-first").value = S.first || "N";
    $("#deal-rules").value = S.rules || "kraken";
    $("#deal-double").value = String(S.double || "1");
    $("#deal-trump").value = S.autoTrump ? "" : (S.trump || "");
    showTab(tab || "paste");
    renderDealer();
    if (!d.open) d.showModal();
  }
  function oneLine() {
    let t = S.deal;
    if (S.trump && !S.autoTrump) t += " trump=" + S.trump;
    t += " first=" + S.first + " rules=" + S.rules;
    if (String(S.double) !== "1") t += " double=" + S.double;
    return t;
  }
  function showTab(which) {
    $("#tab-paste").setAttribute("aria-selected", String(which === "paste"));
    $("#tab-click").setAttribute("aria-selected", String(which === "click"));
    $("#page-paste").hidden = which !== "paste";
    $("#page-click").hidden = which !== "click";
  }
  function counts() {
    const n = { N: 0, E: 0, S: 0, W: 0 };
    for (const s of Object.values(dealer.holder)) n[s] += 1;
    return n;
  }
  function renderDealer() {
    const grid = $("#dealer-grid");
    grid.textContent = "";
    const n = counts();
    for (const b of $$("[data-give]")) {
      b.setAttribute("aria-pressed", String(b.dataset.give === dealer.give));
      $(".count", b).textContent = `(${n[b.dataset.give]})`;
    }
    for (const suit of SUITS) {
      const row = el("div", { class: "row" }, el("span", { class: "sym " + (RED[suit] ? "red" : "black"), text: SYM[suit] }));
      for (const r of "AKQJT987") {
        const c = suit + r;
        const holder = dealer.holder[c] || "";
        const b = cardButton(c, { cls: "deal-card", title: holder ? `${cardLabel(c)}: ${holder}` : cardLabel(c) + ": not dealt" });
        delete b.dataset.card;                       // the board's cards alone carry data-card
        b.dataset.dealCard = c;
        if (holder) b.dataset.holder = holder;
        b.append(el("span", { class: "holder", text: holder || "\u00a0" }));
        b.addEventListener("click", () => {
          if (dealer.holder[c] === dealer.give) delete dealer.holder[c];
          else if (counts()[dealer.give] < 8) dealer.holder[c] = dealer.give;
          else { $("#click-error").textContent = `${dealer.give} holds 8 cards already.`; $("#click-error").hidden = false; return; }
          $("#click-error").hidden = true;
          const m = counts();
          if (m[dealer.give] === 8) {                // on to the next seat with room
            const next = SEATS.find((s) => m[s] < 8);
            if (next) dealer.give = next;
          }
          renderDealer();
        });
        row.append(b);
      }
      grid.append(row);
    }
  }
  function dealerPbn() {
    const hands = SEATS.map((seat) => SUITS.map((suit) => "AKQJT987".split("").filter((r) => dealer.holder[suit + r] === seat).join("")).join("."));
    return "N:" + hands.join(" ");
  }
  async function loadText(text, errBox) {
    errBox.hidden = true;
    try {
      const r = await api.parse(text);
      S.entries = r.deals.length > 1 ? r.deals : S.entries;
      $("#editor").close();
      loadEntry(r.deals[0]);
      if (r.deals.length > 1) say(`${r.deals.length} deals read: pick one in the list.`, "info");
    } catch (e) {
      errBox.textContent = e.message;
      errBox.hidden = false;
    }
  }

  /* ------------------------------------------------------------------ wiring */
  function wire() {
    $("#btn-start").addEventListener("click", () => go(0));
    $("#btn-undo").addEventListener("click", () => go(S.at - 1));
    $("#btn-redo").addEventListener("click", () => go(S.at + 1));
    $("#btn-end").addEventListener("click", () => go(S.line.length));
    $("#btn-best").addEventListener("click", bestLine);
    $("#show-score").addEventListener("click", () => { S.objective = "score"; refresh(); });
    $("#show-points").addEventListener("click", () => { S.objective = "points"; refresh(); });
    $("#show-dd").addEventListener("click", () => { S.hintView = false; refresh(); });
    $("#show-hint").addEventListener("click", () => { S.hintView = true; refresh(); });
    $("#btn-edit").addEventListener("click", () => openEditor(S.deal ? "paste" : "click"));
    // the game against the computer (play.js), at the deal shown
    $("#btn-play").addEventListener("click", () => {
      location.href = "/play" + (S.deal ? "?" + new URLSearchParams({ deal: S.deal, first: S.first, rules: S.rules }) : "");
    });
    $("#editor-close").addEventListener("click", () => $("#editor").close());
    $("#tab-paste").addEventListener("click", () => showTab("paste"));
    $("#tab-click").addEventListener("click", () => showTab("click"));
    $("#paste-load").addEventListener("click", () => loadText($("#paste").value, $("#paste-error")));
    for (const b of $$("[data-give]")) b.addEventListener("click", () => { dealer.give = b.dataset.give; renderDealer(); });
    $("#deal-clear").addEventListener("click", () => { dealer.holder = {}; dealer.give = "N"; renderDealer(); });
    $("#deal-random").addEventListener("click", () => {
      const free = [];
      for (const suit of SUITS) for (const r of "AKQJT987") if (!dealer.holder[suit + r]) free.push(suit + r);
      for (let i = free.length - 1; i > 0; i--) { const j = Math.floor(Math.random() * (i + 1)); [free[i], free[j]] = [free[j], free[i]]; }
      const n = counts();
      for (const seat of SEATS) while (n[seat] < 8 && free.length) { dealer.holder[free.pop()] = seat; n[seat] += 1; }
      renderDealer();
    });
    $("#deal-use").addEventListener("click", () => {
      let text = dealerPbn() + " first=" + $("#deal-first").value + " rules=" + ($("#deal-rules").value.trim() || "kraken");
      if ($("#deal-trump").value) text += " trump=" + $("#deal-trump").value;
      if ($("#deal-double").value !== "1") text += " double=" + $("#deal-double").value;
      loadText(text, $("#click-error"));
    });
    document.addEventListener("keydown", (e) => {
      if ($("#editor").open || e.altKey || e.ctrlKey || e.metaKey) return;
      if (e.target && /^(INPUT|TEXTAREA|SELECT)$/.test(e.target.tagName)) return;
      if (e.key === "ArrowLeft") { go(S.at - 1); e.preventDefault(); }
      else if (e.key === "ArrowRight") { go(S.at + 1); e.preventDefault(); }
      else if (e.key === "Home") { go(0); e.preventDefault(); }
      else if (e.key === "End") { go(S.line.length); e.preventDefault(); }
    });
  }

  async function start() {
    wire();
    try {
      S.info = await api.info();
    } catch (e) {
      say("kraken-view does not answer: " + e.message);
      return;
    }
    S.entries = S.info.deals || [];
    const presets = $("#presets");
    for (const p of S.info.presets || []) presets.append(el("option", { value: p }));
    const addr = readAddress();
    if (addr) {
      setPosition(addr);
      S.objective = addr.objective;
      S.hintView = addr.hintView && !!S.info.hint;
      S.samples = S.hintView ? addr.samples : null;
      if (EXPORT) {
        const d = currentExport();
        if (d) { const k = addr.play.length; S.line = d.line.slice(); S.at = Math.min(k, d.line.length); }
      }
      refresh();
    } else if (S.entries.length) {
      loadEntry(S.entries[0]);
    } else {
      render();
      openEditor("click");
    }
  }

  start();
})();
