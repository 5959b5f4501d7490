/* kraken-view: play against the computer (play.html).
 *
 * The game lives in the page's address: the position (deal, first, rules, trump, play) and
 * the table (seat: yours; bots: the other seats' bot specs; seed).  The server answers the
 * position (/api/state), one bot card at a time (/api/play/move), a bot's trump
 * (/api/play/trump) and your hint (/api/hint); it plays every bot card through the bots' one
 * loop, each bot seeing only its own seat's view.  Your own hand is drawn face up, the bots'
 * as card backs.  At the end: the score sheet and links to review the deal on the board. */
(function () {
  "use strict";

  const SEATS = ["N", "E", "S", "W"];
  const SUITS = ["S", "H", "D", "C"];
  const SYM = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
  const SUIT_WORD = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
  const RED = { H: true, D: true };
  const RANKS = "AKQJT987";
  const RANK_SHOWN = { T: "10" };
  const SEAT_WORD = { N: "North", E: "East", S: "South", W: "West" };
  const BOT_PAUSE_MS = 250;            // a bot's card stays in sight before the next one

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
  const CLIENT = "g" + Math.random().toString(36).slice(2, 10) + Date.now().toString(36);

  async function get(path, params) {
    const r = await fetch(path + "?" + new URLSearchParams(params), { cache: "no-store" });
    let body;
    try { body = await r.json(); } catch (e) { throw new Error(`the server answered ${r.status} without JSON`); }
    if (!r.ok) throw new Error(body.error || `the server answered ${r.status}`);
    return body;
  }

  /* ------------------------------------------------------------------ the game */
  const G = { deal: null, first: "N", rules: "kraken", trump: null, play: [], seat: "S",
              bots: {}, seed: "0", state: null, token: 0, hint: null, busy: "" };

  function position() {
    const p = { deal: G.deal, first: G.first, rules: G.rules };
    if (G.trump) p.trump = G.trump;
    if (G.play.length) p.play = G.play.join(" ");
    return p;
  }
  function table() {
    return { seat: G.seat, seed: G.seed,
             bots: SEATS.filter((s) => s !== G.seat).map((s) => s + "=" + G.bots[s]).join(",") };
  }
  function writeAddress() {
    const text = new URLSearchParams(Object.assign(position(), table())).toString();
    try { history.replaceState(null, "", "?" + text); } catch (e) { /* the page still works */ }
  }
  function readAddress() {
    const q = new URLSearchParams(location.search.slice(1));
    if (!q.get("deal") || !q.get("bots")) return false;
    G.deal = q.get("deal"); G.first = q.get("first") || G.deal[0]; G.rules = q.get("rules") || "kraken";
    G.trump = q.get("trump") || null;
    G.play = (q.get("play") || "").split(/[\s,]+/).filter(Boolean);
    G.seat = q.get("seat") || "S"; G.seed = q.get("seed") || "0";
    G.bots = {};
    for (const item of q.get("bots").split(",")) {
      const i = item.indexOf("=");
      if (i > 0) G.bots[item.slice(0, i).trim()] = item.slice(i + 1).trim();
    }
    return true;
  }

  let messageTimer = null;
  function say(text) {
    const m = $("#message");
    m.textContent = text; m.className = "message"; m.hidden = false;
    clearTimeout(messageTimer);
    messageTimer = setTimeout(() => { m.hidden = true; }, 9000);
  }

  /* A random deal (the browser's crypto random numbers): 8 cards a hand, as PBN from N. */
  function randomDeal() {
    const cards = [];
    for (const s of SUITS) for (const r of RANKS) cards.push(s + r);
    const rnd = new Uint32Array(cards.length);
    crypto.getRandomValues(rnd);
    for (let i = cards.length - 1; i > 0; i--) {
      const j = rnd[i] % (i + 1);
      [cards[i], cards[j]] = [cards[j], cards[i]];
    }
    const hands = [0, 1, 2, 3].map((h) => cards.slice(8 * h, 8 * h + 8));
    return "N:" + hands.map((hand) => SUITS.map((s) => RANKS.split("").filter((r) => hand.includes(s + r)).join("")).join(".")).join(" ");
  }

  /* The loop of the page: the state of the position, then whoever is to act acts (a bot
   * through the server, you through a click), until the deal is over.  A newer step (a
   * click, a new game) makes an older one stop (token). */
  async function step() {
    const token = ++G.token;
    writeAddress();
    let st;
    try {
      st = await get("/api/state", position());
    } catch (e) {
      if (token === G.token) { say(e.message); G.busy = ""; phase("setup"); render(); }
      return;
    }
    if (token !== G.token) return;
    G.state = st; G.deal = st.deal;
    if (!st.trump) {
      if (st.first === G.seat) { G.busy = ""; phase("trump"); render(); return; }
      G.busy = `${st.first} (${G.bots[st.first]}) is naming trump…`;
      phase("bots"); render();
      try {
        const t = await get("/api/play/trump", Object.assign(position(), table()));
        if (token !== G.token) return;
        G.trump = t.trump;
      } catch (e) {
        if (token === G.token) { say(e.message); G.busy = ""; phase("stopped"); render(); }
        return;
      }
      return step();
    }
    if (st.over) { G.busy = ""; phase("over"); render(); return; }
    if (st.to_move === G.seat) { G.busy = ""; phase("your-turn"); render(); return; }
    G.busy = `${st.to_move} (${G.bots[st.to_move]}) is thinking…`;
    phase("bots"); render();
    let m;
    try {
      m = await get("/api/play/move", Object.assign(position(), table()));
    } catch (e) {
      if (token === G.token) { say(e.message); G.busy = ""; phase("stopped"); render(); }
      return;
    }
    if (token !== G.token) return;
    G.play.push(m.card);
    await sleep(BOT_PAUSE_MS);
    if (token === G.token) step();
  }

  function phase(name) { $("#board").dataset.phase = name; }

  function playCard(card) {
    const st = G.state;
    if (!st || st.over || st.to_move !== G.seat || !st.legal.includes(card)) return;
    G.play.push(card); G.hint = null;
    step();
  }
  function nameTrump(suit) {
    if (!G.state || G.state.trump || G.state.first !== G.seat) return;
    G.trump = suit;
    step();
  }
  async function showHint() {
    const st = G.state;
    if (!st || st.over || st.to_move !== G.seat) return;
    const key = G.play.join(" ");
    G.hint = { key, pending: true };
    render();
    try {
      const h = await get("/api/hint", Object.assign(position(), { job: CLIENT + "-" + G.play.length, client: CLIENT }));
      if (G.hint && G.hint.key === key) { G.hint = { key, value: h }; render(); }
    } catch (e) {
      if (G.hint && G.hint.key === key) { G.hint = null; say(e.message); render(); }
    }
  }

  function startFromForm(ev) {
    if (ev) ev.preventDefault();
    G.seat = $("#set-seat").value;
    G.first = $("#set-first").value;
    G.rules = $("#set-rules").value.trim() || "kraken";
    G.seed = $("#set-seed").value.trim() || "0";
    G.bots = {};
    for (const s of SEATS) if (s !== G.seat) G.bots[s] = $("#bot-" + s).value.trim();
    G.deal = $("#set-deal").value.trim() || randomDeal();
    G.trump = null; G.play = []; G.hint = null; G.state = null;
    step();
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
    board.dataset.played = G.play.join(" ");
    board.dataset.seat = G.seat;
    $("#setup-box").hidden = board.dataset.phase !== "setup" && board.dataset.phase !== "over" && board.dataset.phase !== "stopped";
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
    else c.append("Trump: " + st.first + " chooses");
    c.append(` · ${st.first} first: ${st.playing_team} play, ${st.defenders} defend · you are ${G.seat} · ${st.rules}`);
  }

  function renderSeats(st) {
    for (const seat of SEATS) {
      const box = $(`.seat[data-seat="${seat}"]`);
      const label = $(".seat-label", box), hand = $(".hand", box);
      label.textContent = ""; hand.textContent = "";
      const toMove = st && st.trump && !st.over && st.to_move === seat;
      box.classList.toggle("to-move", !!toMove);
      label.append(el("span", { class: "name", text: seat }), el("span", { class: "team", text: SEAT_WORD[seat] }));
      if (seat === G.seat) label.append(el("span", { class: "tag you", text: "you" }));
      else if (G.bots[seat]) label.append(el("span", { class: "tag bot", text: G.bots[seat] === "dd" ? "dd (cheats: sees every hand)" : G.bots[seat] }));
      if (st && st.first === seat) label.append(el("span", { class: "tag first", text: "first" }));
      if (toMove) label.append(el("span", { class: "tag move", text: seat === G.seat ? "your turn" : "to play" }));
      if (!st) continue;
      const cards = st.hands[seat];
      if (seat !== G.seat && !st.over) {
        hand.append(el("div", { class: "backs", dataset: { backs: String(cards.length) } },
          ...cards.map(() => el("span", { class: "back", "aria-hidden": "true" }))));
        continue;
      }
      const shown = st.over ? st.dealt[seat] : cards;     // at the end: every hand as dealt
      for (const suit of SUITS) {
        const row = el("div", { class: "suit-row" + (st.trump === suit ? " trump" : ""), dataset: { suit } },
          el("span", { class: "sym " + (RED[suit] ? "red" : "black"), text: SYM[suit] }));
        const inSuit = shown.filter((c) => c[0] === suit);
        if (!inSuit.length) row.append(el("span", { class: "void", text: "—" }));
        for (const c of inSuit) {
          const legal = seat === G.seat && toMove && st.legal.includes(c);
          row.append(cardButton(c, { cls: legal ? "legal" : "idle", disabled: !legal,
                                     onclick: legal ? () => playCard(c) : null }));
        }
        hand.append(row);
      }
    }
  }

  function renderFelt(st) {
    for (const slot of $$(".slot")) slot.textContent = "";
    const centre = $("#felt-centre");
    centre.textContent = "";
    $$(".caption", $("#felt")).forEach((c) => c.remove());
    if (!st) return;
    let cards = st.trick.cards, leader = st.trick.leader, winner = null;
    if (!cards.length && st.tricks.length) {
      const t = st.tricks[st.tricks.length - 1];
      cards = t.cards; leader = t.leader; winner = t.winner;
      $("#felt").append(el("div", { class: "caption", text: `trick ${t.number} to ${t.winner}: ${t.points} points` + (t.roem ? ` + ${t.roem} roem` : "") }));
    }
    const li = SEATS.indexOf(leader);
    cards.forEach((c, i) => {
      const seat = SEATS[(li + i) % 4];
      $(`.slot[data-slot="${seat}"]`).append(cardButton(c, { cls: "on-table" + (winner === seat ? " winning" : ""), disabled: true,
                                                             title: `${seat} played ${cardLabel(c)}` }));
    });
    if (st.trump) centre.append(el("span", { class: "trump-pip " + (RED[st.trump] ? "red" : "black"), text: SYM[st.trump] }));
    if (st.over) centre.append(el("span", { text: "end of the deal" }));
    else if (st.trump) centre.append(el("span", { text: st.to_move === G.seat ? "your turn" : `${st.to_move} to play` }));
  }

  function renderTrump(st) {
    const box = $("#trump-box"), buttons = $("#trump-buttons");
    box.hidden = !(st && !st.trump && st.first === G.seat);
    buttons.textContent = "";
    if (box.hidden) return;
    for (const s of SUITS) {
      buttons.append(el("button", { type: "button", class: RED[s] ? "red" : "black", dataset: { trump: s },
                                    onclick: () => nameTrump(s) }, SYM[s] + " " + SUIT_WORD[s]));
    }
  }

  function renderHint(st) {
    const box = $("#hint-box"), out = $("#hint");
    const mine = st && st.trump && !st.over && st.to_move === G.seat;
    box.hidden = !mine;
    out.textContent = "";
    $("#btn-hint").disabled = !!(G.hint && G.hint.pending);
    if (!mine || !G.hint || G.hint.key !== G.play.join(" ")) { $("#hint-sub").textContent = ""; return; }
    if (G.hint.pending) { out.append(el("p", { class: "empty-note", text: "working out your view…" })); return; }
    const h = G.hint.value;
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
    if (!st) return;
    if (st.over && st.sheet && st.sheet.final) {
      const f = st.sheet.final;
      const mine = SEATS.indexOf(G.seat) % 2 === SEATS.indexOf(st.first) % 2;
      box.append(el("span", { class: "big " + (f.score > 0 ? "made" : "nat"), text: signed(f.score) }),
        " " + (f.made ? (f.pit ? "made with pit" : "made") : "nat"),
        el("span", { class: "who", text: `end of the deal · ${st.playing_team} ${f.playing_team}, ${st.defenders} ${f.defenders} · your team ${mine ? "played" : "defended"}` }));
    } else if (!st.trump) {
      box.append(st.first === G.seat ? "Name trump: you are the first player." : `${st.first} names trump…`);
    } else if (st.to_move === G.seat) {
      box.append("Your turn: click a card.");
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
    if (st.over) {
      const p = new URLSearchParams({ deal: st.deal, first: st.first, rules: G.rules, trump: st.trump, play: G.play.join(" ") });
      review.hidden = false;
      review.append(el("a", { href: "/?" + p.toString(), id: "review-link", title: "The deal on the board: every card's double-dummy value, step through the play" }, "Review the deal (double dummy)"),
        el("a", { href: "/?" + p.toString() + "&view=player", id: "review-player", title: "The same, each card as its player could see it" }, "Review from each player's view"));
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
  if (readAddress()) {
    $("#set-seat").value = G.seat;
    if (SEATS.includes(G.first)) $("#set-first").value = G.first;
    $("#set-seed").value = G.seed; $("#set-rules").value = G.rules; $("#set-deal").value = G.deal;
    for (const s of SEATS) if (G.bots[s]) $("#bot-" + s).value = G.bots[s];
    step();
  } else {
    const q = new URLSearchParams(location.search.slice(1));
    if (q.get("deal")) $("#set-deal").value = q.get("deal");
    if (/^[NESW]$/.test(q.get("first") || "")) $("#set-first").value = q.get("first");
    if (q.get("rules")) $("#set-rules").value = q.get("rules");
    render();
  }
})();
