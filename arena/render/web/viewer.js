// The replay viewer's page: draws one step of a recorded deal from the data the
// referee's replay wrote into this file (arena/viewer.py). It applies the
// protocol's view messages (a whole view, then "set" / "add" changes) to show
// one seat's knowledge, and knows no rule of the game: trumps and the order of
// a hand come with the data.
"use strict";

const DATA = JSON.parse(document.getElementById("data").textContent);
const SORTED = new Set(["voids", "no_sets"]);

let dealIndex = 0;
let step = 0;
let mode = "all";          // "all" or a seat number as text
const cache = {};          // seat -> { k, view } of the last view rebuilt

function deal() { return DATA.deals[dealIndex]; }

// One seat's view after step k: the narrator's messages applied in order (protocol 7.3).
function viewAt(seat, k) {
  const msgs = deal().views[seat];
  let c = cache[seat];
  if (!c || c.deal !== dealIndex || c.k > k) c = { deal: dealIndex, k: -1, view: null };
  for (let i = c.k + 1; i <= k; i++) {
    const m = msgs[i];
    if (m.view) { c.view = JSON.parse(JSON.stringify(m.view)); continue; }
    for (const [f, v] of Object.entries(m.set || {})) c.view[f] = JSON.parse(JSON.stringify(v));
    for (const [f, items] of Object.entries(m.add || {})) {
      c.view[f] = (c.view[f] || []).concat(JSON.parse(JSON.stringify(items)));
      if (SORTED.has(f)) c.view[f].sort(cmpLists);
    }
  }
  c.k = k;
  cache[seat] = c;
  return c.view;
}

function order(trumpKnown) { return trumpKnown ? deal().order : null; }

function seatName(i) { return `${i} \u00b7 ${deal().names[i]}`; }

function render() {
  const d = deal();
  const st = d.steps[step];
  const n = d.players;
  const all = mode === "all";
  const seat = all ? 0 : Number(mode);
  const view = viewAt(seat, step);
  const trumpKnown = !!view.trump;
  const final = step === d.steps.length - 1;
  const filled = view.calls_filled || [];
  const next = step + 1 < d.steps.length ? d.steps[step + 1].actor : -1;

  document.getElementById("step-count").textContent = `step ${step} / ${d.steps.length - 1}`;
  const jump = document.getElementById("jump");
  jump.value = st.trick && st.trick.done ? String(st.trick.number) : "";

  // the seats
  const seats = document.getElementById("seats");
  seats.replaceChildren();
  for (let i = 0; i < n; i++) {
    const row = el("div", "seat");
    row.dataset.seat = String(i);
    if (i === st.actor) row.classList.add("actor");
    if (all ? i === next : view.current_player === i) row.classList.add("to-act");
    const known = all && final ? d.result.maker_side.includes(i) :
      (i === view.maker || filled.includes(i));
    if (view.maker !== null && known) row.classList.add("maker-side");
    const who = el("div", "who");
    who.appendChild(el("span", "name", seatName(i)));
    const tags = [];
    if (view.maker === i) tags.push("maker");
    else if (filled.includes(i)) tags.push("friend");
    if (!all && i === seat) tags.push("you");
    tags.push(`${view.hand_sizes[i]} cards`);
    who.appendChild(el("span", "tags", tags.join(" \u00b7 ")));
    row.appendChild(who);
    const hand = el("div", "hand");
    if (all) {
      hand.appendChild(cardsEl(st.hands[i], order(trumpKnown), "cards"));
    } else if (i === seat) {
      hand.appendChild(cardsEl(view.hand, order(trumpKnown), "cards"));
    } else {
      hand.appendChild(el("span", "back", `${view.hand_sizes[i]} cards`));
    }
    row.appendChild(hand);
    row.appendChild(el("div", "pts", `${(view.points || [])[i] || 0} pts`));
    seats.appendChild(row);
  }

  // what this step did
  const cap = document.getElementById("caption");
  cap.replaceChildren();
  cap.appendChild(el("h2", "", `${st.phase}`));
  if (st.actor < 0) {
    cap.appendChild(el("div", "action", "the deal begins"));
  } else {
    const seen = all || !st.seen || st.seen[seat];
    cap.appendChild(el("div", "action",
      `${seatName(st.actor)}: ${seen ? st.action : "(an action this seat does not see)"}`));
  }
  for (const note of st.notes) cap.appendChild(el("div", "note", note));

  // the trick
  const tr = document.getElementById("trick");
  tr.replaceChildren();
  delete tr.dataset.number; delete tr.dataset.winner; delete tr.dataset.points;
  if (st.trick) {
    const t = st.trick;
    tr.dataset.number = String(t.number);
    tr.dataset.winner = String(t.winner);
    tr.dataset.points = String(t.points);
    tr.dataset.done = String(t.done);
    tr.appendChild(el("h2", "", `trick ${t.number}` + (t.done ? `: seat ${t.winner} wins ${t.points} points` :
      ` (${t.points} points so far)`)));
    t.plays.forEach((p, j) => {
      const who = (t.leader + j) % n;
      const line = el("div", "play");
      if (who === t.winner) line.classList.add("best");
      line.appendChild(el("span", "by", seatName(who)));
      line.appendChild(cardsEl(p, order(true), "cards"));
      tr.appendChild(line);
    });
  }

  // trump, calls, exposures, points per side
  const info = document.getElementById("info");
  info.replaceChildren();
  const table = infoTable();
  const row = table.row;
  row("trump", trumpText(view.trump));
  row("maker", view.maker === null ? "not yet" : seatName(view.maker));
  if (view.exposures.length) {
    row("exposures", view.exposures.map(([s, kind, c]) => `${s} ${kind} ${c}`).join("; "));
  }
  if (view.calls.length) {
    row("calls", callsText(view.calls, filled));
  }
  if (all && st.buried) row("buried", cardsEl(st.buried, order(trumpKnown), "cards"));
  else if (!all && view.kitty) row("kitty", cardsEl(view.kitty, order(trumpKnown), "cards"));
  if (all && view.phase !== "draw") {
    const side = d.result.maker_side;
    let mk = 0, op = 0;
    st.points.forEach((p, i) => { if (side.includes(i)) mk += p; else op += p; });
    row("trick points", `maker side (seats ${side.join(" ")} at the end) ${mk}, opponents ${op}`);
  }
  info.appendChild(table);

  // the end
  const res = document.getElementById("result");
  res.replaceChildren();
  if (final) {
    const r = d.result;
    res.appendChild(el("h2", "", "result"));
    if (d.forfeit) {            // the score given, then the random finish's own result, marked
      res.appendChild(el("div", "winner forfeit-score", d.forfeit.lines[1]));
      res.appendChild(el("div", "finish", "the referee's random finish (it does not count):"));
    }
    if (r.kitty_to_opponents) {
      const line = el("div", "", `kitty to the opponents: ${r.kitty_points} points \u00d7${r.kitty_multiplier} `);
      line.appendChild(cardsEl(r.kitty, order(true), "cards"));
      res.appendChild(line);
    } else {
      res.appendChild(el("div", "", "the maker side keeps the kitty"));
    }
    res.appendChild(el("div", "", `opponents' points: ${r.opponents_points} of ${r.total_points}`));
    const who = r.winner === null ? "no side scores" :
      `${r.winner === "maker" ? "the maker side" : "the opponents"} win ${r.game_points} game point` +
      (r.game_points === 1 ? "" : "s") + ` (seats ${r.winners.join(" ")})`;
    res.appendChild(el("div", "winner", who));
    const levels = d.account.find((l) => l.startsWith("levels: ") && l.includes("->"));
    if (levels) res.appendChild(el("div", "", levels));
  }
}

function go(k) {
  const d = deal();
  step = Math.max(0, Math.min(d.steps.length - 1, k));
  render();
}

function setup() {
  const d = deal();
  const viewer = document.getElementById("viewer");
  viewer.replaceChildren();
  viewer.appendChild(new Option("all hands", "all"));
  for (let i = 0; i < d.players; i++) viewer.appendChild(new Option(`seat ${seatName(i)}`, String(i)));
  viewer.value = mode === "all" || Number(mode) < d.players ? mode : "all";
  mode = viewer.value;
  const jump = document.getElementById("jump");
  jump.replaceChildren();
  jump.appendChild(new Option("\u2014", ""));
  const ends = {};
  d.steps.forEach((s, k) => { if (s.trick && s.trick.done) ends[s.trick.number] = k; });
  for (const t of Object.keys(ends)) jump.appendChild(new Option(String(t), String(t)));
  jump.dataset.ends = JSON.stringify(ends);
  document.getElementById("account").textContent = d.account.join("\n");
  go(0);
}

function init() {
  const dealSel = document.getElementById("deal");
  DATA.deals.forEach((d, i) => dealSel.appendChild(new Option(`${i + 1} (seed ${d.seed})`, String(i))));
  if (DATA.deals.length < 2) document.getElementById("deal-box").style.display = "none";
  dealSel.addEventListener("change", () => { dealIndex = Number(dealSel.value); setup(); });
  document.getElementById("viewer").addEventListener("change", (e) => { mode = e.target.value; render(); });
  document.getElementById("jump").addEventListener("change", (e) => {
    const ends = JSON.parse(e.target.dataset.ends);
    if (ends[e.target.value] !== undefined) go(ends[e.target.value]);
  });
  document.getElementById("first").addEventListener("click", () => go(0));
  document.getElementById("prev").addEventListener("click", () => go(step - 1));
  document.getElementById("next").addEventListener("click", () => go(step + 1));
  document.getElementById("last").addEventListener("click", () => go(deal().steps.length - 1));
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "SELECT") return;
    if (e.key === "ArrowRight") go(step + 1);
    else if (e.key === "ArrowLeft") go(step - 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(deal().steps.length - 1);
    else return;
    e.preventDefault();
  });
  setup();
}

init();
