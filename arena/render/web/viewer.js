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

// Seat boxes the size of a seat with a whole hand shown, fitted to the table.
const SEAT_SIZE = { maxW: 300, maxH: 120, minW: 120, minH: 60, least: 440 };

// The steps at which each trick ends, from the data: { number: step }.
function trickEnds() {
  const ends = {};
  deal().steps.forEach((s, k) => { if (s.trick && s.trick.done) ends[s.trick.number] = k; });
  return ends;
}

// Trick `number` (1-based) as the view's completed tricks tell it, with the
// winner and points the step that ended it recorded; its title names it as
// the trick before the one in the middle (which L shows).
function doneTrick(view, number) {
  if (number < 1 || number > view.tricks.length) return null;
  const [leader, plays] = view.tricks[number - 1];
  const end = deal().steps[trickEnds()[number]];
  const t = end && end.trick;
  return { leader, plays, winner: t ? t.winner : -1, done: true,
           title: `trick ${number}, the one before` +
             (t ? `: seat ${t.winner} won ${plural(t.points, "point")}` : "") };
}

let showLast = false;

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
  const mates = view.maker === null || view.maker === undefined ? [] : (d.first_sides || [])[view.maker] || [];
  const next = step + 1 < d.steps.length ? d.steps[step + 1].actor : -1;

  document.getElementById("step-count").textContent = `step ${step} / ${d.steps.length - 1}`;
  const jump = document.getElementById("jump");
  jump.value = st.trick && st.trick.done ? String(st.trick.number) : "";

  // the seats, round the table
  const felt = document.getElementById("seats");
  for (const old of felt.querySelectorAll(":scope > .seat")) old.remove();
  for (let i = 0; i < n; i++) {
    const tags = [];
    if (view.maker === i) tags.push("maker");
    else if (mates.includes(i)) tags.push("partner");
    else if (filled.includes(i)) tags.push("friend");
    if (!all && i === seat) tags.push("you");
    tags.push(plural(view.hand_sizes[i], "card"));
    tags.push(plural((view.points || [])[i] || 0, "pt"));
    const cards = all ? st.hands[i] : i === seat ? view.hand : null;
    const box = seatBox(i, d.names[i], tags, handEl(cards, order(trumpKnown), view.hand_sizes[i]));
    if (i === st.actor) box.classList.add("actor");
    if (all ? i === next : view.current_player === i) box.classList.add("to-act");
    if (view.maker === i) box.classList.add("maker");
    else if (filled.includes(i) || mates.includes(i)) box.classList.add("friend");
    if (!all && i === seat) box.classList.add("you");
    if (all && final && d.result.maker_side.includes(i)) box.classList.add("maker-side");
    felt.appendChild(box);
  }

  // the trick in the middle, each play toward its seat
  const tr = document.getElementById("trick");
  delete tr.dataset.number; delete tr.dataset.winner; delete tr.dataset.points; delete tr.dataset.done;
  let shown = null;
  if (st.trick) {
    const t = st.trick;
    tr.dataset.number = String(t.number);
    tr.dataset.winner = String(t.winner);
    tr.dataset.points = String(t.points);
    tr.dataset.done = String(t.done);
    shown = { leader: t.leader, plays: t.plays, winner: t.winner, done: t.done,
              title: `trick ${t.number}` + (t.done ? `: seat ${t.winner} wins ${plural(t.points, "point")}` :
                ` \u00b7 ${plural(t.points, "point")} so far`) };
  }
  drawTrick(tr, n, seat, d.names, shown || { leader: 0, plays: [], winner: -1, title: st.phase }, order(true));

  // the trick before the one in the middle, on demand, over it (the middle's own text hidden under it)
  tr.classList.toggle("covered", showLast);
  const before = st.trick ? st.trick.number - 1 : view.tricks.length;
  const last = doneTrick(view, before);
  const lt = document.getElementById("last-trick");
  lt.hidden = !showLast;
  lt.dataset.number = last ? String(before) : "";
  drawTrick(lt, n, seat, d.names, last || { leader: 0, plays: [], winner: -1, title: "no trick before this one" },
            order(true));
  const btn = document.getElementById("last-trick-btn");
  btn.classList.toggle("on", showLast);
  btn.setAttribute("aria-pressed", String(showLast));

  const most = Math.max(...[...felt.querySelectorAll(".seat .fan")].map((f) => f.children.length), 0);
  layoutFelt(felt, n, seat, Object.assign({ cards: most }, SEAT_SIZE));
  drawScore(document.getElementById("score"), view, d.first_sides);

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
    const r = d.result;
    let mk = 0, op = 0;
    st.points.forEach((p, i) => { if (r.maker_side.includes(i)) mk += p; else op += p; });
    const sides = `maker side (${plural(r.maker_side, "seat")}) ${mk} in tricks`;
    if (!final) row("sides at the end", `${sides} so far, opponents ${op}`);
    else {
      row("sides at the end", `${sides}, opponents ${op}; the kitty's ${plural(r.kitty_points, "point")} ` +
        (r.kitty_to_opponents ? `count \u00d7${r.kitty_multiplier} for the opponents` : "stay with the maker side"));
    }
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
      const line = el("div", "", `kitty to the opponents: ${plural(r.kitty_points, "point")} \u00d7${r.kitty_multiplier} `);
      line.appendChild(cardsEl(r.kitty, order(true), "cards"));
      res.appendChild(line);
    } else {
      res.appendChild(el("div", "", "the maker side keeps the kitty"));
    }
    res.appendChild(el("div", "", `opponents' points: ${r.opponents_points} of ${r.total_points}`));
    const who = r.winner === null ? "no side scores" :
      `${r.winner === "maker" ? "the maker side" : "the opponents"} win ${plural(r.game_points, "game point")}` +
      ` (${plural(r.winners, "seat")})`;
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

// The end of the trick before this step (or the first step), or of the next one (or the last step).
function goTrick(dir) {
  const ends = Object.values(trickEnds()).sort((a, b) => a - b);
  if (dir < 0) go(ends.filter((k) => k < step).pop() ?? 0);
  else go(ends.find((k) => k > step) ?? deal().steps.length - 1);
}

function toggleLast() { showLast = !showLast; render(); }

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
  // a choice made, the select gives the focus back to the page, so that the keys step again
  for (const sel of document.querySelectorAll("select")) sel.addEventListener("change", () => sel.blur());
  document.getElementById("viewer").addEventListener("change", (e) => { mode = e.target.value; render(); });
  document.getElementById("jump").addEventListener("change", (e) => {
    const ends = JSON.parse(e.target.dataset.ends);
    if (ends[e.target.value] !== undefined) go(ends[e.target.value]);
  });
  document.getElementById("first").addEventListener("click", () => go(0));
  document.getElementById("prev").addEventListener("click", () => go(step - 1));
  document.getElementById("next").addEventListener("click", () => go(step + 1));
  document.getElementById("last").addEventListener("click", () => go(deal().steps.length - 1));
  document.getElementById("prev-trick").addEventListener("click", () => goTrick(-1));
  document.getElementById("next-trick").addEventListener("click", () => goTrick(1));
  document.getElementById("last-trick-btn").addEventListener("click", toggleLast);
  document.addEventListener("keydown", (e) => {
    if (!pageKey(e)) return;
    if (e.key === "ArrowRight") go(step + 1);
    else if (e.key === "ArrowLeft") go(step - 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(deal().steps.length - 1);
    else if (e.key === "PageUp" || e.key === "[") goTrick(-1);
    else if (e.key === "PageDown" || e.key === "]") goTrick(1);
    else if (e.key === "l" || e.key === "L") toggleLast();
    else return;
    e.preventDefault();
  });
  window.addEventListener("resize", () => render());
  setup();
}

init();
