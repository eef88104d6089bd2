// The card table both pages draw (the viewer and the play table share it):
// the seat boxes round an oval, the trick in the middle with each seat's
// play placed toward that seat, the last trick on demand, the points each
// side has taken. Only geometry and display: every card, tag and number
// shown comes from the data the page was given.
"use strict";

const RING_P = 3;          // how square the oval is (2 would be an ellipse)
const GAP = 6;             // the least room between two boxes, in px
const NARROW = 620;        // a table area narrower than this shows its seats as a list

// The centres of n boxes w x h round a W x H area: `bottom` at the bottom
// middle, the seats after it going round counter-clockwise (to its right,
// then up). Null when two boxes would overlap, or one would overlap an
// obstacle ([x, y, w, h] boxes).
function ringCentres(n, bottom, W, H, w, h, obstacles) {
  const a = (W - w) / 2, b = (H - h) / 2;
  if (a < 0 || b < 0) return null;
  const pts = [];
  for (let i = 0; i < n; i++) {
    const t = Math.PI / 2 - 2 * Math.PI * (((i - bottom) % n + n) % n) / n;
    const c = Math.cos(t), s = Math.sin(t);
    const r = 1 / Math.pow(Math.pow(Math.abs(c), RING_P) + Math.pow(Math.abs(s), RING_P), 1 / RING_P);
    pts.push([W / 2 + a * r * c, H / 2 + b * r * s]);
  }
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      if (Math.abs(pts[i][0] - pts[j][0]) < w + GAP && Math.abs(pts[i][1] - pts[j][1]) < h + GAP) return null;
    }
    for (const [x, y, ow, oh] of obstacles || []) {
      if (Math.abs(pts[i][0] - x - ow / 2) < (w + ow) / 2 + GAP &&
          Math.abs(pts[i][1] - y - oh / 2) < (h + oh) / 2 + GAP) return null;
    }
  }
  return pts;
}

// The boxes (at most maxW x maxH, at least minW x minH) that fit n round a
// W x H area and best show `lim.cards` cards each (the most of each card,
// then the most room): { w, h, pts } or null.
function ringBoxes(n, bottom, W, H, lim, obstacles) {
  let best = null;
  for (let h = lim.maxH; h >= lim.minH; h -= 4) {
    for (let w = lim.maxW; w >= lim.minW; w -= 4) {
      const pts = ringCentres(n, bottom, W, H, w, h, obstacles);
      if (!pts) continue;
      const f = lim.cards ? fanStep(lim.cards, w - SEAT_PAD[0], h - SEAT_PAD[1]) : null;
      const score = lim.cards ? fanScore(f) : 0;
      if (!best || score > best.score || (score === best.score && w * h > best.w * best.h)) {
        best = { w, h, pts, score };
      }
      break;
    }
  }
  return best;
}

// The largest box of the area's shape centred in it that meets no seat box.
function centreBox(W, H, boxes) {
  let lo = 0.05, hi = 1;
  const clear = (s) => boxes.every(([x, y, w, h]) => {
    const cw = W * s, ch = H * s, cx = (W - cw) / 2, cy = (H - ch) / 2;
    return x >= cx + cw + GAP || x + w <= cx - GAP || y >= cy + ch + GAP || y + h <= cy - GAP;
  });
  for (let k = 0; k < 20; k++) { const m = (lo + hi) / 2; if (clear(m)) lo = m; else hi = m; }
  return [W * (1 - lo) / 2, H * (1 - lo) / 2, W * lo, H * lo];
}

function place(e, x, y, w, h) {
  e.style.left = `${Math.round(x)}px`; e.style.top = `${Math.round(y)}px`;
  e.style.width = `${Math.floor(w)}px`; e.style.height = `${Math.floor(h)}px`;
}

function unplace(e) { for (const p of ["left", "top", "width", "height"]) e.style[p] = ""; }

// What a seat box's name, tags, padding and border take from its width and height.
const SEAT_PAD = [16, 42];

// The cards' sizes in a fan: class, width, height, the least step that shows
// a card's corner, the step that shows it whole (as base.css draws them).
const FAN_SIZES = [["", 24, 32, 14, 19], ["small", 19, 26, 11, 15], ["tiny", 16, 22, 10, 12]];

// How c cards fan over a W x H box: [size (an index into FAN_SIZES), the step
// from one card to the next]: the biggest cards that fit, over the fewest rows
// that show each card's corner whole, else over the rows that show the most of
// each; null when they cannot be shown.
function fanStep(c, W, H) {
  for (let z = 0; z < FAN_SIZES.length; z++) {
    const [, cw, ch, least, enough] = FAN_SIZES[z];
    const rows = Math.max(1, Math.floor((H + 2) / (ch + 2)));
    let best = null;
    for (let r = 1; r <= rows; r++) {
      const k = Math.ceil(c / r);
      // overlapping cards need (k - 1) steps and a card; spaced ones k steps (the last one's gap too)
      let step = k > 1 ? (W - cw - 1) / (k - 1) : cw + 2;
      if (step > cw) step = Math.max(cw, Math.min(cw + 2, (W - 1) / k));
      if (step >= least && (!best || step > best[1])) best = [z, step];
      if (step >= enough) break;
    }
    if (best) return best;
  }
  return null;
}

// How well a fan shows its cards (bigger is better).
function fanScore(f) { return !f ? -100 : f[0] === 0 ? Math.min(f[1], 20) : f[1] - 10 * f[0]; }

// Fan the cards of `fan` (its .card children) so that they fit its box:
// each card covers the part of the one before it that its corner does not need.
function fitFan(fan) {
  const c = fan.querySelectorAll(".card").length;
  for (const [cls] of FAN_SIZES) if (cls) fan.classList.remove(cls);
  fan.style.removeProperty("--step");
  if (!c) return;
  const f = fanStep(c, fan.clientWidth, fan.clientHeight) || [FAN_SIZES.length - 1, 10];
  if (FAN_SIZES[f[0]][0]) fan.classList.add(FAN_SIZES[f[0]][0]);
  fan.style.setProperty("--step", `${Math.floor(f[1] * 10) / 10}px`);
}

// A trick's plays drawn in `box` (#trick or #last-trick), each toward its
// seat: `trick` is { leader, plays, winner (or -1), title, done } from the data.
function drawTrick(box, n, bottom, names, trick, order) {
  box.replaceChildren();
  const head = el("div", "trick-title", trick ? trick.title : "");
  box.appendChild(head);
  if (!trick) return;
  trick.plays.forEach((p, j) => {
    const who = (trick.leader + j) % n;
    const line = el("div", "play");
    line.dataset.seat = String(who);
    if (who === trick.winner) line.classList.add("best");
    const by = el("span", "by", String(who));
    by.title = `${who} \u00b7 ${names[who]}`;
    line.appendChild(by);
    line.appendChild(cardsEl(p, order, "cards fan"));
    box.appendChild(line);
  });
}

// Place a drawn trick's plays in its box (after the box is placed).
function placePlays(box, n, bottom) {
  const plays = [...box.querySelectorAll(".play")];
  const head = box.querySelector(".trick-title");
  const W = box.clientWidth, H = box.clientHeight;
  const narrow = box.closest(".narrow") !== null;
  for (const p of plays) unplace(p);
  unplace(head);
  if (narrow) { for (const p of plays) fitFan(p.querySelector(".fan")); return; }
  // the title in the middle with the plays round it; if they do not fit so, the title on top
  head.style.width = "max-content";
  const one = head.scrollWidth;            // the title's width on one line
  const tw = Math.min(W - 12, 240, one + 16), th = 36;
  head.style.width = "";
  let title = [(W - tw) / 2, (H - th) / 2, tw, th], dy = 0;
  const lim = { maxW: 230, maxH: 40, minW: 60, minH: 36 };
  let fit = ringBoxes(n, bottom, W - 8, H - 8, lim, [[title[0] - 4, title[1] - 4, tw, th]]);
  if (!fit) {
    // on top: as wide as the box's rounded corners leave, as high as its lines
    const ww = Math.max(Math.min(tw, 120), Math.min(W - 48, one + 16));
    head.style.width = `${ww}px`;
    dy = Math.max(20, head.scrollHeight + 4);
    head.style.width = "";
    title = [(W - ww) / 2, 2, ww, dy - 2];
    fit = ringBoxes(n, bottom, W - 8, H - 8 - dy, Object.assign({}, lim, { minW: 44, minH: 34 }), []);
  }
  place(head, ...title);
  if (!fit) return;
  for (const p of plays) {
    const [x, y] = fit.pts[Number(p.dataset.seat)];
    place(p, x - fit.w / 2 + 4, y - fit.h / 2 + 4 + dy, fit.w, fit.h);
    fitFan(p.querySelector(".fan"));
  }
}

// Lay the table out: the seats (.seat[data-seat]) of `felt` round it with
// `bottom` at the bottom, #trick and #last-trick in the middle, and every
// hand fanned to fit its seat. `lim`: the seat boxes' largest and least size.
function layoutFelt(felt, n, bottom, lim) {
  const seats = [...felt.querySelectorAll(":scope > .seat")];
  const middle = [...felt.querySelectorAll(":scope > .middle")];
  const top = felt.getBoundingClientRect().top + window.scrollY;
  const H = Math.max(lim.least || 380, window.innerHeight - top - (lim.below || 0) - 8);
  const W = felt.clientWidth;
  const IN = 6;            // the seats keep this far inside the table's edge
  const fit = W >= NARROW ? ringBoxes(n, bottom, W - 2 * IN, H - 2 * IN, lim) : null;
  felt.classList.toggle("narrow", !fit);
  const aside = felt.parentElement.querySelector(":scope > aside");
  if (aside) aside.style.maxHeight = fit ? `${Math.floor(H)}px` : "";
  if (!fit) {
    felt.style.height = "";
    for (const e of seats.concat(middle)) unplace(e);
  } else {
    felt.style.height = `${Math.floor(H)}px`;
    const boxes = [];
    for (const s of seats) {
      const [x, y] = fit.pts[Number(s.dataset.seat)];
      boxes.push([x - fit.w / 2 + IN, y - fit.h / 2 + IN, fit.w, fit.h]);
      place(s, ...boxes[boxes.length - 1]);
    }
    const c = centreBox(W, H, boxes);
    for (const m of middle) place(m, ...c);
  }
  for (const f of felt.querySelectorAll(".seat .fan")) fitFan(f);
  for (const m of middle) placePlays(m, n, bottom);
}

// What the view says each side has taken: the maker, its fixed partners
// (`firstSides[maker]`, from the page's data) and the friends revealed so far
// against every other seat (null before there is a maker).
function sidePoints(view, firstSides) {
  if (view.maker === null || view.maker === undefined) return null;
  const side = new Set((firstSides && firstSides[view.maker]) || [view.maker]);
  for (const s of view.calls_filled || []) if (s !== null && s !== undefined) side.add(s);
  let maker = 0, others = 0;
  (view.points || []).forEach((p, i) => { if (side.has(i)) maker += p; else others += p; });
  const hidden = (view.calls_filled || []).filter((s) => s === null || s === undefined).length;
  return { side: [...side].sort((a, b) => a - b), maker, others, hidden };
}

function drawScore(box, view, firstSides) {
  box.replaceChildren();
  box.appendChild(el("h2", "", "points taken"));
  const p = sidePoints(view, firstSides);
  delete box.dataset.maker; delete box.dataset.others;
  if (!p) { box.appendChild(el("div", "", "no maker yet")); return; }
  box.dataset.maker = String(p.maker);
  box.dataset.others = String(p.others);
  const line = (cls, label, pts) => {
    const d = el("div", `side ${cls}`);
    d.appendChild(el("span", "label", label));
    d.appendChild(el("b", "", String(pts)));
    box.appendChild(d);
  };
  line("maker", `maker's side (${plural(p.side, "seat")})`, p.maker);
  line("others", "the others", p.others);
  if (p.hidden) box.appendChild(el("div", "note", `${plural(p.hidden, "called friend")} not revealed yet`));
}

// A seat's box: its name, its tags, then `hand` (an element) below.
function seatBox(i, name, tags, hand) {
  const box = el("div", "seat");
  box.dataset.seat = String(i);
  const who = el("div", "who");
  who.appendChild(el("span", "name", `${i} \u00b7 ${name}`));
  who.appendChild(el("span", "tags", tags.join(" \u00b7 ")));
  box.appendChild(who);
  hand.classList.add("hand");
  box.appendChild(hand);
  return box;
}

// The hand shown on a seat: its cards (fanned) or, hidden, a back with the count.
function handEl(cards, order, count) {
  if (cards === null) {
    const h = el("div");
    h.appendChild(el("span", "back", plural(count, "card")));
    return h;
  }
  const h = cardsEl(cards, order, "cards fan");
  return h;
}

// Keys a page takes only when no form field has them.
function pageKey(e) {
  const t = e.target;
  if (e.ctrlKey || e.altKey || e.metaKey) return false;
  return !(t && (t.tagName === "SELECT" || t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.isContentEditable));
}
