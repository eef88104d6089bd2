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
    prompt.textContent = plays.length ? `Your turn: follow with ${plural(n, "card")}.` :
      "Your turn: lead.";
    const b = el("button", "", chosen.length ? `play ${chosen.join(" ")}` : "play");
    b.id = "play";
    b.addEventListener("click", () => post("play " + chosen.join(" ")));
    choices.appendChild(b);
    void leader;
  }
}

// The seats show no hand here (the person's own is below the table): small boxes.
const SEAT_SIZE = { maxW: 230, maxH: 74, minW: 110, minH: 58, least: 300 };
let showLast = false;

// Trick `number` (1-based) of the view's completed tricks, with the winner and
// points the table told (null when there is no such trick); `label` follows
// its number in the title.
function doneTrick(v, number, label) {
  if (number < 1 || number > v.tricks.length) return null;
  const [leader, plays] = v.tricks[number - 1];
  const w = (snap.trick_wins || [])[number - 1];
  return { leader, plays, winner: w ? w[0] : -1, done: true,
           title: `trick ${number}${label}` + (w ? `: seat ${w[0]} won ${plural(w[1], "point")}` : "") };
}

function render() {
  const v = snap.view;
  const n = v.players;
  const status = document.getElementById("status");
  status.textContent = snap.done ? "the deal is over" : snap.waiting ? "your turn" : "the bots are playing";
  status.dataset.version = String(snap.version);   // which state the page now draws
  const felt = document.getElementById("seats");
  for (const old of felt.querySelectorAll(":scope > .seat")) old.remove();
  const [leader, plays] = v.current_trick;
  const filled = v.calls_filled || [];
  const mates = v.maker === null || v.maker === undefined ? [] : (snap.first_sides || [])[v.maker] || [];
  for (let i = 0; i < n; i++) {
    const tags = [];
    if (v.maker === i) tags.push("maker");
    else if (mates.includes(i)) tags.push("partner");
    else if (filled.includes(i)) tags.push("friend");
    if (i === snap.seat) tags.push("you");
    tags.push(plural((v.points || [])[i] || 0, "pt"));
    const box = seatBox(i, snap.names[i], tags, handEl(null, null, v.hand_sizes[i]));
    if (i === snap.seat) box.classList.add("you");
    if (v.maker === i) box.classList.add("maker");
    else if (filled.includes(i) || mates.includes(i)) box.classList.add("friend");
    if (!snap.done && (v.current_player === i || (snap.waiting && i === snap.seat))) box.classList.add("to-act");
    felt.appendChild(box);
  }
  // the trick under way in the middle; between tricks, the one just won
  const tr = document.getElementById("trick");
  let number = v.tricks.length + 1;
  if (plays.length) {
    drawTrick(tr, n, snap.seat, snap.names, { leader, plays, winner: -1, title: `trick ${number}` }, order());
  } else if (v.tricks.length) {
    number = v.tricks.length;
    drawTrick(tr, n, snap.seat, snap.names, doneTrick(v, number, ""), order());
  } else {
    drawTrick(tr, n, snap.seat, snap.names, { leader: 0, plays: [], winner: -1, title: v.phase }, order());
  }
  // the trick before the one in the middle, on demand, over it (the middle's own text hidden under it)
  tr.classList.toggle("covered", showLast);
  const lt = document.getElementById("last-trick");
  lt.hidden = !showLast;
  lt.dataset.number = String(number - 1);
  drawTrick(lt, n, snap.seat, snap.names, doneTrick(v, number - 1, ", the one before") ||
            { leader: 0, plays: [], winner: -1, title: "no trick before this one" }, order());
  const btn = document.getElementById("last-trick-btn");
  btn.classList.toggle("on", showLast);
  btn.setAttribute("aria-pressed", String(showLast));
  drawScore(document.getElementById("score"), v, snap.first_sides);
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
      `${r.winner === "maker" ? "the maker side" : "the opponents"} win ${plural(r.game_points, "game point")} ` +
      `(${plural(r.winners, "seat")}); you ${r.winners.includes(snap.seat) ? "win" : "lose"}`));
  }
  const events = document.getElementById("events");
  events.replaceChildren();
  for (const e of snap.events.slice(-40)) {
    events.appendChild(el("li", "", `${seatName(e.seat)}: ${e.action === null ? "(hidden)" : e.action}`));
  }
  events.scrollTop = events.scrollHeight;
  document.getElementById("message").textContent = snap.error || document.getElementById("message").textContent;
  renderMe();
  layout();
}

// The table fills the window above the person's own box.
function layout() {
  if (!snap) return;
  const me = document.getElementById("me");
  layoutFelt(document.getElementById("seats"), snap.view.players, snap.seat,
             Object.assign({ below: me.offsetHeight + 16 }, SEAT_SIZE));
}

function toggleLast() { showLast = !showLast; if (snap) render(); }

document.getElementById("last-trick-btn").addEventListener("click", toggleLast);
document.addEventListener("keydown", (e) => {
  if (!pageKey(e) || (e.key !== "l" && e.key !== "L")) return;
  e.preventDefault();
  toggleLast();
});
window.addEventListener("resize", layout);

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
