// Cards as the pages draw them (the viewer and the play table share this).
// `order` maps a card's name to [effective suit, order level] once trump is
// made (the kernel's, sent with the data); effective suit 4 is trumps.
"use strict";

const SUITS = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function cmpLists(a, b) {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

// A count and its noun, singular for exactly one: plural(1, "card") is "1 card",
// plural(2, "card") "2 cards" (`many`: a plural not made with an "s"). A list
// is named after the noun: plural([3], "seat") is "seat 3", plural([0, 2], "seat") "seats 0 2".
function plural(n, word, many) {
  const k = Array.isArray(n) ? n.length : n;
  const noun = k === 1 ? word : many || `${word}s`;
  return Array.isArray(n) ? `${noun} ${n.join(" ")}` : `${k} ${noun}`;
}

function words(text) { return text ? text.split(" ").filter(Boolean) : []; }

function cardEl(name, order) {
  const e = el("span", "card");
  e.dataset.card = name;
  if (name === "BJ" || name === "RJ") {
    e.classList.add("joker");
    if (name === "RJ") e.classList.add("red");
    e.appendChild(el("span", "rank", name));
    e.appendChild(el("small", "", "\u2605"));
  } else {
    const suit = name.slice(-1);
    e.appendChild(el("span", "rank", name.slice(0, -1)));
    e.appendChild(el("small", "", SUITS[suit] || suit));
    if (suit === "H" || suit === "D") e.classList.add("red");
  }
  const o = order ? order[name] : undefined;
  if (o !== undefined && o[0] === 4) e.classList.add("trump");
  return e;
}

function sortHand(cards, order) {
  if (!order || !Object.keys(order).length) return cards;
  return cards.slice().sort((a, b) => cmpLists(order[a], order[b]));
}

function cardsEl(text, order, cls) {
  const box = el("span", cls || "cards");
  for (const c of sortHand(words(text), order)) box.appendChild(cardEl(c, order));
  return box;
}

function trumpText(trump) {
  if (!trump) return "not made yet";
  const [rank, suit] = trump;
  const r = rank === null ? "no trump rank (a Joker level)" :
    ({ 11: "J", 12: "Q", 13: "K", 14: "A" }[rank] || String(rank)) + "s";
  const s = suit === null ? "no trump suit" : ["clubs", "diamonds", "hearts", "spades"][suit];
  return `${r}, ${s}`;
}

function callsText(calls, filled) {
  return calls.map(([c, o], j) => `${c} ${o === 0 ? "other" : "#" + o}` +
    (filled[j] !== null && filled[j] !== undefined ? ` (seat ${filled[j]})` : "")).join(", ");
}

// A two-column table: `row(label, text or element)` adds a line.
function infoTable() {
  const t = el("table");
  t.row = (k, v) => {
    const r = el("tr");
    r.appendChild(el("td", "", k));
    const td = el("td");
    if (typeof v === "string") td.textContent = v; else td.appendChild(v);
    r.appendChild(td);
    t.appendChild(r);
  };
  return t;
}
