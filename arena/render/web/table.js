// The play table's page: one person's seat against the bots. It shows what the
// seat knows (the view the referee sends), lets the person choose cards or an
// option and sends the action's text; the referee checks it against the rules
// and says why when it refuses.
"use strict";

let snap = null;
let selected = [];        // indexes into the shown hand

function order() { return snap && snap.order ? snap.order : null; }

function seatName(i) { return `${i} \u00b7 ${snap.names[i]}`; }

async function post(action) {
  const msg = document.getElementById("message");
  msg.textContent = "";
  try {
    const r = await fetch("/api/action", { method: "POST", headers: { "Content-Type": "application/json" },
                                           body: JSON.stringify({ action }) });
    const body = await r.json();
    if (!body.ok) msg.textContent = body.error;
    else selected = [];
  } catch (e) {
    msg.textContent = "the table is not answering (was pengyou stopped?)";
  }
}

function handCards() { return sortHand(words(snap.view.hand), order()); }

function renderMe() {
  const v = snap.view;
  const mine = snap.waiting;
  const hand = document.getElementById("hand");
  const cards = handCards();
  hand.replaceChildren();
  cards.forEach((c, k) => {
    const e = cardEl(c, order());
    e.dataset.index = String(k);
    if (selected.includes(k)) e.classList.add("selected");
    e.addEventListener("click", () => {
      selected = selected.includes(k) ? selected.filter((x) => x !== k) : selected.concat([k]);
      renderMe();
    });
    hand.appendChild(e);
  });
  const prompt = document.getElementById("prompt");
  const choices = document.getElementById("choices");
  choices.replaceChildren();
  if (snap.done) {
    prompt.textContent = `The deal is over. Its record: ${snap.record}`;
    return;
  }
  if (!mine) {
    prompt.textContent = `You are seat ${snap.seat}. Waiting for the others...`;
    return;
  }
  const chosen = selected.map((k) => cards[k]).filter(Boolean);
  if (v.phase === "draw" || v.phase === "call") {
    prompt.textContent = v.phase === "draw" ? "Your turn: expose or pass." : "Your turn: call a friend.";
    if (v.options.length <= 12) {
      for (const o of v.options) {
        const b = el("button", "option", o);
        b.dataset.action = o;
        b.addEventListener("click", () => post(o));
        choices.appendChild(b);
      }
    } else {
      const sel = el("select");
      sel.id = "option-list";
      for (const o of v.options) sel.appendChild(new Option(o, o));
      const b = el("button", "", "send");
      b.id = "send-option";
      b.addEventListener("click", () => post(sel.value));
      choices.append(sel, b);
    }
  } else if (v.phase === "bury") {
    prompt.textContent = "Your turn: choose a card to bury.";
    const b = el("button", "", chosen.length ? `bury ${chosen.join(" ")}` : "bury");
    b.id = "bury";
    b.addEventListener("click", () => post("bury " + chosen.join(" ")));
    choices.appendChild(b);
  } else {
    const [leader, plays] = v.current_trick;
    const n = plays.length ? words(plays[0]).length : 0;
    prompt.textContent = plays.length ? `Your turn: follow with ${n} ${n === 1 ? "card" : "cards"}.` :
      "Your turn: lead.";
    const b = el("button", "", chosen.length ? `play ${chosen.join(" ")}` : "play");
    b.id = "play";
    b.addEventListener("click", () => post("play " + chosen.join(" ")));
    choices.appendChild(b);
    void leader;
  }
}

function render() {
  const v = snap.view;
  const n = v.players;
  document.getElementById("status").textContent = snap.done ? "the deal is over" :
    snap.waiting ? "your turn" : "the bots are playing";
  const seats = document.getElementById("seats");
  seats.replaceChildren();
  const [leader, plays] = v.current_trick;
  for (let i = 0; i < n; i++) {
    const row = el("div", "seat");
    row.dataset.seat = String(i);
    if (i === snap.seat) row.classList.add("you");
    if (v.current_player === i || (snap.waiting && i === snap.seat)) row.classList.add("to-act");
    const who = el("div", "who", seatName(i) + " ");
    const tags = [];
    if (v.maker === i) tags.push("maker");
    if ((v.calls_filled || []).includes(i) && v.maker !== i) tags.push("friend");
    tags.push(`${v.hand_sizes[i]} cards`);
    who.appendChild(el("small", "", tags.join(" \u00b7 ")));
    row.appendChild(who);
    const cell = el("div", "played");
    const j = leader < 0 ? -1 : (i - leader + n) % n;
    if (j >= 0 && j < plays.length) cell.appendChild(cardsEl(plays[j], order(), "cards"));
    row.appendChild(cell);
    row.appendChild(el("div", "pts", `${(v.points || [])[i] || 0} pts`));
    seats.appendChild(row);
  }
  const tr = document.getElementById("trick");
  tr.replaceChildren();
  if (!plays.length && v.tricks.length) {
    const [ld, ps] = v.tricks[v.tricks.length - 1];
    tr.appendChild(el("h2", "", `last trick (${v.tricks.length})`));
    ps.forEach((p, k) => {
      const line = el("div", "", `${seatName((ld + k) % n)}: `);
      line.appendChild(cardsEl(p, order(), "cards"));
      tr.appendChild(line);
    });
  }
  const info = document.getElementById("info");
  info.replaceChildren();
  const t = infoTable();
  const row = t.row;
  row("you", `seat ${snap.seat}`);
  row("phase", v.phase);
  row("trump", trumpText(v.trump));
  row("maker", v.maker === null ? "not yet" : seatName(v.maker));
  if (v.calls.length) {
    row("calls", callsText(v.calls, v.calls_filled));
  }
  if (v.kitty) row("your kitty", cardsEl(v.kitty, order(), "cards"));
  info.appendChild(t);
  const res = document.getElementById("result");
  res.replaceChildren();
  if (snap.done && snap.result) {
    const r = snap.result;
    res.appendChild(el("h2", "", "result"));
    res.appendChild(el("div", "", `opponents' points: ${r.opponents_points} of ${r.total_points}`));
    res.appendChild(el("div", "", r.winner === null ? "no side scores" :
      `${r.winner === "maker" ? "the maker side" : "the opponents"} win ${r.game_points} ` +
      `(seats ${r.winners.join(" ")}); you ${r.winners.includes(snap.seat) ? "win" : "lose"}`));
  }
  const events = document.getElementById("events");
  events.replaceChildren();
  for (const e of snap.events.slice(-40)) {
    events.appendChild(el("li", "", `${seatName(e.seat)}: ${e.action === null ? "(hidden)" : e.action}`));
  }
  events.scrollTop = events.scrollHeight;
  document.getElementById("message").textContent = snap.error || document.getElementById("message").textContent;
  renderMe();
}

const CLIENT = Math.random().toString(36).slice(2, 12);

async function poll() {
  let version = -1;
  for (;;) {
    try {
      const r = await fetch(`/api/state?since=${version}&client=${CLIENT}`);
      const next = await r.json();
      if (next.version !== version) {
        const turnStarted = !snap || (next.waiting && !snap.waiting);
        snap = next;
        if (turnStarted) { selected = []; document.getElementById("message").textContent = ""; }
        version = next.version;
        render();
      }
      if (snap.done) return;
    } catch (e) {
      document.getElementById("status").textContent = "the table is not answering";
      await new Promise((ok) => setTimeout(ok, 1000));
    }
  }
}

poll();
