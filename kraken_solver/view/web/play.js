/* kraken-view: play against the computer (play.html).
 *
 * The game lives on the server: the page holds its id (in the address, with the table's
 * options for a new game: seat, bots, seed, first, rules) and only ever receives what your seat
 * may know: your hand, the cards played and who played them, trump, the first player, the
 * number of cards in each other hand, the score sheet so far; the whole deal once the last card
 * is played.  It asks /api/play/new (a new game: the deal of the form, which is your own, or
 * deal 0 of the seed), /api/play/state, one bot action at a time (/api/play/bot), your trump
 * (/api/play/trump), your card (/api/play/card) and your hint (/api/play/hint); the page's id
 * (client) stays in the tab's sessionStorage, so a reload goes on with the game.  Your own hand
 * is drawn face up, the bots' as card backs.  At the end: the score sheet, every hand as dealt
 * and the links to review the deal on the board. */
(function () {
  "use strict";

  const SEATS = ["N", "E", "S", "W"];
  const SUITS = ["S", "H", "D", "C"];
  const SYM = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
  const SUIT_WORD = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
  const RED = { H: true, D: true };
  const RANK_SHOWN = { T: "10" };
  const SEAT_WORD = { N: "North", E: "East", S: "South", W: "West" };
  const BOT_PAUSE_MS = 250;            // a bot's card stays in sight before the next one
  const HINT_POLL_MS = 500;            // how often a running hint's progress is asked

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
  const cardLabel = (c) => SYM[c[0]] + (RANK_SHOWN[c[1]] || c[1]);
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  class ServerError extends Error {
    constructor(message, status, body) { super(message); this.status = status; this.body = body || {}; }
  }
  async function answer(r) {
    let body;
    try { body = await r.json(); } catch (e) { throw new ServerError(`the server answered ${r.status} without JSON`, r.status); }
    if (!r.ok) {
      const e = new ServerError(body.error || `the server answered ${r.status}`, r.status, body);
      e.retryAfter = Math.min(30, Math.max(1, Number(r.headers.get("Retry-After")) || 2));
      throw e;
    }
    return body;
  }
  async function get(path, params) {
    return answer(await fetch(path + "?" + new URLSearchParams(params), { cache: "no-store" }));
  }
  async function post(path, body) {
    return answer(await fetch(path, { method: "POST", cache: "no-store", headers: { "Content-Type": "application/json" },
                                      body: JSON.stringify(body) }));
  }

  /* The page's id: one a tab, kept over a reload (the server ties each game to it). */
  function clientId() {
    const key = "kraken-play-client";
    let id = null;
    try { id = sessionStorage.getItem(key); } catch (e) { /* storage off: one id a load */ }
    if (!id || !/^[A-Za-z0-9_-]{1,64}$/.test(id)) {
      const rnd = new Uint32Array(4);
      crypto.getRandomValues(rnd);
      id = "p" + Array.from(rnd, (x) => x.toString(36)).join("");
      try { sessionStorage.setItem(key, id); } catch (e) { /* as above */ }
    }
    return id;
  }
  const CLIENT = clientId();
  const LOAD = Date.now().toString(36);   // the hint jobs' names: new ones after a reload

  /* ------------------------------------------------------------------ the game */
  const G = { game: null, state: null, token: 0, hint: null, busy: "", jobs: 0 };
  const OPTION_WORDS = ["seat", "bots", "seed", "first", "rules"];

  function writeAddress() {
    const st = G.state, words = { game: G.game };
    if (st) for (const w of OPTION_WORDS) words[w] = st.options[w];
    if (st && st.options.double !== "1") words.double = st.options.double;
    try { history.replaceState(null, "", "?" + new URLSearchParams(words).toString()); } catch (e) { /* the page still works */ }
  }
  /* The form from the address's words (a game's options, or the board's deal, first, rules). */
  function fillForm(q) {
    if (/^[NESW]$/.test(q.get("seat") || "")) $("#set-seat").value = q.get("seat");
    if (/^[NESW]$/.test(q.get("first") || "")) $("#set-first").value = q.get("first");
    if (q.get("seed")) $("#set-seed").value = q.get("seed");
    if (q.get("rules")) $("#set-rules").value = q.get("rules");
    if (q.get("deal")) $("#set-deal").value = q.get("deal");
    if (/^[1248]$/.test(q.get("double") || "")) $("#set-double").value = q.get("double");
    for (const item of (q.get("bots") || "").split(",")) {
      const i = item.indexOf("="), seat = item.slice(0, i).trim();
      if (i > 0 && SEATS.includes(seat)) $("#bot-" + seat).value = item.slice(i + 1).trim();
    }
  }
  function formBots(seat) {
    return SEATS.filter((s) => s !== seat).map((s) => s + "=" + $("#bot-" + s).value.trim()).join(",");
  }

  let messageTimer = null;
  function say(text) {
    const m = $("#message");
    m.textContent = text; m.className = "message"; m.hidden = false;
    clearTimeout(messageTimer);
    messageTimer = setTimeout(() => { m.hidden = true; }, 9000);
  }

  /* A failed request: a game the server no longer has (or another page's) offers a new game;
   * anything else stops the loop with its one line. */
  function failed(e, token) {
    if (token !== G.token) return;
    G.busy = "";
    if (e.status === 404 && e.body.gone || e.status === 403) {
      G.game = null; G.state = null; G.gone = e.message;
      phase("setup");
    } else {
      say(e.message);
      phase(G.state && G.state.phase === "over" ? "over" : "stopped");
    }
    render();
  }

  /* The loop of the page: whoever is to act acts (a bot through the server, you through a
   * click) until the deal is over.  A newer step (a click, a new game) makes an older one stop
   * (token). */
  async function step() {
    const token = ++G.token;
    const st = G.state;
    writeAddress();
    if (st.phase === "over") { G.busy = ""; phase("over"); bumpSeed(st); render(); return; }
    if (st.your_turn) { G.busy = ""; phase(st.phase === "trump" ? "trump" : "your-turn"); render(); return; }
    G.busy = st.phase === "trump" ? `${st.to_move} (${st.bots[st.to_move]}) is naming trump…`
      : `${st.to_move} (${st.bots[st.to_move]}) is thinking…`;
    phase("bots"); render();
    let next;
    try {
      next = await post("/api/play/bot", { game: G.game, client: CLIENT });
    } catch (e) {
      if (e.status === 503 && token === G.token) {      // the server is busy: ask again
        G.busy = `${e.message} (asking again in ${e.retryAfter} s)`; render();
        setTimeout(() => { if (token === G.token) step(); }, 1000 * e.retryAfter);
        return;
      }
      failed(e, token); return;
    }
    if (token !== G.token) return;
    G.state = next;
    render();
    await sleep(BOT_PAUSE_MS);
    if (token === G.token) step();
  }

  /* After a deal dealt from the seed, the form offers the next seed (another deal). */
  function bumpSeed(st) {
    if (st.dealt !== "seed" || $("#set-seed").value.trim() !== st.options.seed) return;
    try { $("#set-seed").value = (BigInt(st.options.seed) + 1n).toString(); } catch (e) { /* keep it */ }
  }

  function phase(name) { $("#board").dataset.phase = name; }

  async function act(path, body) {
    const token = ++G.token;
    try {
      G.state = await post(path, Object.assign({ game: G.game, client: CLIENT }, body));
    } catch (e) { failed(e, token); return; }
    if (token === G.token) step();
  }
  function playCard(card) {
    const st = G.state;
    if (!st || !st.your_turn || st.phase !== "play" || !st.legal.includes(card)) return;
    dropHint();
    act("/api/play/card", { card });
  }
  function nameTrump(suit) {
    const st = G.state;
    if (!st || !st.your_turn || st.phase !== "trump") return;
    act("/api/play/trump", { trump: suit });
  }
  /* Your hint: a job of the board's hints, its progress polled while it runs (a page that
   * stops polling has gone: the server cancels it), cancelled when you play a card. */
  async function showHint() {
    const st = G.state;
    if (!st || !st.your_turn || st.phase !== "play") return;
    const key = G.game + ":" + st.played.length;
    const job = "hint-" + LOAD + "-" + (++G.jobs);
    G.hint = { key, job, pending: true };
    render();
    const poll = setInterval(async () => {
      let p;
      try { p = await get("/api/hint/progress", { job, client: CLIENT }); } catch (e) { return; }
      if (G.hint && G.hint.job === job && G.hint.pending) { G.hint.progress = p; render(); }
    }, HINT_POLL_MS);
    try {
      const h = await get("/api/play/hint", { game: G.game, client: CLIENT, job });
      if (G.hint && G.hint.job === job) { G.hint = { key, job, value: h }; render(); }
    } catch (e) {
      if (G.hint && G.hint.job === job) { G.hint = null; say(e.message); render(); }
    } finally {
      clearInterval(poll);
    }
  }
  function dropHint() {
    const h = G.hint;
    G.hint = null;
    if (h && h.pending) post("/api/hint/cancel", { job: h.job, client: CLIENT }).catch(() => {});
  }

  async function startFromForm(ev) {
    if (ev) ev.preventDefault();
    const token = ++G.token;
    const seat = $("#set-seat").value;
    const body = { client: CLIENT, seat, bots: formBots(seat), seed: $("#set-seed").value.trim() || "0",
                   first: $("#set-first").value, rules: $("#set-rules").value.trim() || "kraken" };
    const deal = $("#set-deal").value.trim();
    if (deal) body.deal = deal;
    if ($("#set-double").value !== "1") body.double = $("#set-double").value;
    dropHint(); G.gone = null;
    let st;
    try {
      st = await post("/api/play/new", body);
    } catch (e) {
      if (token === G.token) { say(e.message); render(); }
      return;
    }
    if (token !== G.token) return;
    G.game = st.game; G.state = st;
    step();
  }

  async function resume(game) {
    const token = ++G.token;
    G.game = game;
    try {
      G.state = await get("/api/play/state", { game, client: CLIENT });
    } catch (e) { failed(e, token); return; }
    if (token === G.token) step();
  }

  /* ------------------------------------------------------------------ drawing */
  function cardButton(card, opts) {
    return el("button", {
      type: "button", class: "card " + (RED[card[0]] ? "red" : "black") + (opts.cls ? " " + opts.cls : ""),
      dataset: { card }, disabled: opts.disabled ? true : null, title: opts.title || null,
      onclick: opts.onclick || null,
    }, el("span", { class: "rank", text: RANK_SHOWN[card[1]] || card[1] }), el("span", { class: "pip", text: SYM[card[0]] }));
  }

  function render() {
    const st = G.state;
    const board = $("#board");
    board.dataset.played = st ? st.played.map((p) => p.card).join(" ") : "";
    board.dataset.seat = st ? st.seat : $("#set-seat").value;
    board.dataset.game = G.game || "";
    $("#setup-box").hidden = !["setup", "over", "stopped"].includes(board.dataset.phase);
    for (const s of SEATS) $(`[data-bot-for="${s}"]`).hidden = s === $("#set-seat").value;
    renderContract(st);
    renderSeats(st);
    renderFelt(st);
    renderTrump(st);
    renderHint(st);
    renderVerdict(st);
    renderSheet(st);
    renderTricks(st);
  }

  function renderContract(st) {
    const c = $("#contract");
    c.textContent = "";
    if (!st) { c.textContent = "Choose your seat, the bots and a deal."; return; }
    if (st.trump) c.append("Trump ", el("span", { class: "pip " + (RED[st.trump] ? "red" : "black"), text: SYM[st.trump] }), " " + SUIT_WORD[st.trump]);
    else c.append("Trump: " + st.chooser + " chooses");
    c.append(` · ${st.first} first: ${st.playing_team} play, ${st.defenders} defend · you are ${st.seat} · ${st.rules}`);
    if (st.double && st.double !== "1") c.append(` · doubled ×${st.double}`);
  }

  function handRows(cards, st, clickable) {
    const rows = [];
    for (const suit of SUITS) {
      const row = el("div", { class: "suit-row" + (st.trump === suit ? " trump" : ""), dataset: { suit } },
        el("span", { class: "sym " + (RED[suit] ? "red" : "black"), text: SYM[suit] }));
      const inSuit = cards.filter((c) => c[0] === suit);
      if (!inSuit.length) row.append(el("span", { class: "void", text: "—" }));
      for (const c of inSuit) {
        const legal = clickable && st.legal.includes(c);
        row.append(cardButton(c, { cls: legal ? "legal" : "idle", disabled: !legal,
                                   onclick: legal ? () => playCard(c) : null }));
      }
      rows.push(row);
    }
    return rows;
  }

  function renderSeats(st) {
    const you = st ? st.seat : $("#set-seat").value;
    for (const seat of SEATS) {
      const box = $(`.seat[data-seat="${seat}"]`);
      const label = $(".seat-label", box), hand = $(".hand", box);
      label.textContent = ""; hand.textContent = "";
      const toMove = st && st.phase === "play" && st.to_move === seat;
      box.classList.toggle("to-move", !!toMove);
      label.append(el("span", { class: "name", text: seat }), el("span", { class: "team", text: SEAT_WORD[seat] }));
      if (seat === you) label.append(el("span", { class: "tag you", text: "you" }));
      else if (st) label.append(el("span", { class: "tag bot", text: st.labels[seat] }));
      if (st && st.first === seat) label.append(el("span", { class: "tag first", text: "first" }));
      if (toMove) label.append(el("span", { class: "tag move", text: seat === you ? "your turn" : "to play" }));
      if (!st) continue;
      if (st.phase === "over") { hand.append(...handRows(st.hands[seat], st, false)); continue; }   // every hand as dealt
      if (seat === you) { hand.append(...handRows(st.hand, st, st.your_turn && st.phase === "play")); continue; }
      const n = st.counts[seat];
      hand.append(el("div", { class: "backs", dataset: { backs: String(n) } },
        ...Array.from({ length: n }, () => el("span", { class: "back", "aria-hidden": "true" }))));
    }
  }

  function renderFelt(st) {
    for (const slot of $$(".slot")) slot.textContent = "";
    const centre = $("#felt-centre");
    centre.textContent = "";
    $$(".caption", $("#felt")).forEach((c) => c.remove());
    if (!st) return;
    let shown = st.trick.cards, winner = null;
    if (!shown.length && st.tricks.length) {
      const t = st.tricks[st.tricks.length - 1], li = SEATS.indexOf(t.leader);
      shown = t.cards.map((card, i) => ({ seat: SEATS[(li + i) % 4], card }));
      winner = t.winner;
      $("#felt").append(el("div", { class: "caption", text: `trick ${t.number} to ${t.winner}: ${t.points} points` + (t.roem ? ` + ${t.roem} roem` : "") }));
    }
    for (const { seat, card } of shown) {
      $(`.slot[data-slot="${seat}"]`).append(cardButton(card, { cls: "on-table" + (winner === seat ? " winning" : ""), disabled: true,
                                                                title: `${seat} played ${cardLabel(card)}` }));
    }
    if (st.trump) centre.append(el("span", { class: "trump-pip " + (RED[st.trump] ? "red" : "black"), text: SYM[st.trump] }));
    if (st.phase === "over") centre.append(el("span", { text: "end of the deal" }));
    else if (st.trump) centre.append(el("span", { text: st.your_turn ? "your turn" : `${st.to_move} to play` }));
  }

  function renderTrump(st) {
    const box = $("#trump-box"), buttons = $("#trump-buttons");
    box.hidden = !(st && st.phase === "trump" && st.your_turn);
    buttons.textContent = "";
    if (box.hidden) return;
    for (const s of SUITS) {
      buttons.append(el("button", { type: "button", class: RED[s] ? "red" : "black", dataset: { trump: s },
                                    onclick: () => nameTrump(s) }, SYM[s] + " " + SUIT_WORD[s]));
    }
  }

  function renderHint(st) {
    const box = $("#hint-box"), out = $("#hint");
    const mine = st && st.phase === "play" && st.your_turn;
    box.hidden = !mine;
    out.textContent = "";
    $("#btn-hint").disabled = !!(G.hint && G.hint.pending);
    if (!mine || !G.hint || G.hint.key !== G.game + ":" + st.played.length) { $("#hint-sub").textContent = ""; return; }
    if (G.hint.pending) {
      const p = G.hint.progress;
      const done = p && p.total ? ` ${p.done.toLocaleString("en")} of ${p.total.toLocaleString("en")} layouts` : "";
      out.append(el("p", { class: "empty-note", id: "hint-progress", text: "working out your view…" + done }));
      return;
    }
    const h = G.hint.value;
    if (h.forced) {
      $("#hint-sub").textContent = "forced";
      out.append(el("ul", { class: "hint-list" }, el("li", { class: "best", dataset: { card: h.best[0] } },
        `${cardLabel(h.best[0])}: your only legal card`)));
      return;
    }
    $("#hint-sub").textContent = `${h.exact ? "exact" : "sampled"}: ${h.layouts.toLocaleString("en")} layouts`;
    const ul = el("ul", { class: "hint-list" });
    const order = Object.keys(h.cards).sort((a, b) => h.cards[b].mean - h.cards[a].mean);
    for (const c of order) {
      const e = h.cards[c];
      ul.append(el("li", { class: h.best.includes(c) ? "best" : null, dataset: { card: c, mean: String(e.mean) } },
        `${cardLabel(c)}: mean ${e.mean >= 0 ? "+" : ""}${e.mean.toFixed(1)}` + (h.exact ? "" : ` ± ${e.se.toFixed(1)}`) +
        `, P(made) ${Math.round(100 * e.p_made)}%`));
    }
    out.append(ul);
  }

  function renderVerdict(st) {
    const box = $("#verdict"), busy = $("#busy");
    box.textContent = "";
    busy.hidden = !G.busy; busy.textContent = G.busy;
    if (G.gone) {
      box.append(el("span", { id: "gone", text: G.gone }));
      return;
    }
    if (!st) return;
    if (st.phase === "over" && st.sheet && st.sheet.final) {
      const f = st.sheet.final;
      const mine = SEATS.indexOf(st.seat) % 2 === SEATS.indexOf(st.first) % 2;
      box.append(el("span", { class: "big " + (f.score > 0 ? "made" : "nat"), text: signed(f.score) }),
        " " + (f.made ? (f.pit ? "made with pit" : "made") : "nat"),
        el("span", { class: "who", text: `end of the deal · ${st.playing_team} ${f.playing_team}, ${st.defenders} ${f.defenders} · your team ${mine ? "played" : "defended"}` }));
    } else if (st.phase === "trump") {
      box.append(st.your_turn ? "Name trump: you are the first player." : `${st.chooser} names trump…`);
    } else if (st.your_turn) {
      box.append("Your turn: click a card.");
    }
    if (st.phase !== "over" && st.your_melds.length) {
      box.append(el("span", { class: "who", text: "your roem: " + st.your_melds.map((m) => `${m.text} (${m.value})`).join(", ") }));
    }
  }

  function renderSheet(st) {
    const box = $("#sheet"), review = $("#review");
    box.textContent = ""; review.textContent = "";
    review.hidden = true;
    if (!st || !st.sheet) { box.append(el("p", { class: "empty-note", text: "The score sheet starts once the trump is known." })); return; }
    const sh = st.sheet, pt = sh.playing_team, df = sh.defenders;
    const row = (name, a, b, cls) => el("tr", { class: cls || null }, el("td", { text: name }), el("td", { text: String(a) }), el("td", { text: String(b) }));
    const body = el("tbody", null, row("Tricks", pt.tricks, df.tricks), row("Card points", pt.card_points, df.card_points),
      row("Last trick", pt.last_trick, df.last_trick), row("Trick roem", pt.trick_roem, df.trick_roem),
      row("Hand roem", pt.hand_roem, df.hand_roem), row("Total", pt.total, df.total, "total"));
    if (sh.final) body.append(row(sh.final.made ? "Score" : "Score (nat)", sh.final.playing_team, sh.final.defenders, "final"));
    box.append(el("table", { class: "sheet", id: "sheet-table" },
      el("thead", null, el("tr", null, el("th", { text: "" }), el("th", { text: st.playing_team + " (playing)" }), el("th", { text: st.defenders }))), body));
    if (st.review) {
      review.hidden = false;
      review.append(el("a", { href: st.review.board, id: "review-link", title: "The deal on the board: every card's double-dummy value, step through the play" }, "Review the deal (double dummy)"),
        el("a", { href: st.review.player, id: "review-player", title: "The same, each card as its player could see it" }, "Review from each player's view"));
    }
  }

  function renderTricks(st) {
    const ol = $("#tricks");
    ol.textContent = "";
    if (!st) return;
    for (const t of st.tricks) {
      const li = SEATS.indexOf(t.leader);
      ol.append(el("li", null, ...t.cards.map((c, i) => el("span", { class: SEATS[(li + i) % 4] === t.winner ? "winner" : null,
        text: `${SEATS[(li + i) % 4]} ${cardLabel(c)} ` })), `→ ${t.winner}, ${t.points}` + (t.roem ? ` + ${t.roem} roem` : "")));
    }
  }

  /* ------------------------------------------------------------------ start */
  function wire() {
    $("#setup").addEventListener("submit", startFromForm);
    $("#set-seat").addEventListener("change", () => render());
    $("#btn-new").addEventListener("click", () => { G.token++; G.busy = ""; phase("setup"); render(); });
    $("#btn-hint").addEventListener("click", showHint);
  }

  wire();
  const words = new URLSearchParams(location.search.slice(1));
  fillForm(words);
  if (/^[A-Za-z0-9_-]{1,64}$/.test(words.get("game") || "")) resume(words.get("game"));
  else render();
})();
