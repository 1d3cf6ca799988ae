// 10 Point Pitch's cards and words, shared by the display and the phone: a card drawn
// by cards.js as its rank and suit symbol (red or black on a white face), never by colour alone.
import { h } from "./common.js";
import { SUIT_NAMES, SUIT_SYMBOLS, drawPitchFace, pitchWords } from "./cards.js";

export { SUIT_NAMES, SUIT_SYMBOLS };
export const TEAM_CLASSES = ["team-a", "team-b"];

/** "AH" -> "A♥", "TD" -> "10♦", "HJ" -> "Joker ★", "LJ" -> "Joker ☆". */
export function cardFace(text) {
  if (text === "HJ") return "Joker ★";
  if (text === "LJ") return "Joker ☆";
  const rank = text[0] === "T" ? "10" : text[0];
  return `${rank}${SUIT_SYMBOLS[text[1]] || text[1]}`;
}

/** A Pitch card ({text, suit, label, points}) as an element; null: a card face down. */
export function pitchCard(card, tag = "span") {
  if (!card) {
    return h(tag, { class: "pcard down", "aria-label": "a card face down", text: "▮" });
  }
  const suit = card.suit || "J";
  const el = h(tag, { class: `pcard s-${suit}`, "data-card": card.text,
    "aria-label": card.label || pitchWords(card.text) });
  drawPitchFace(el, card.text);
  if (card.points) el.append(h("span", { class: "pts", text: `${card.points}`, "aria-hidden": "true" }));
  return el;
}

/** The trump in words and symbols, with its off-jack: "♥ hearts · off-jack J♦". */
export function trumpText(pitch) {
  if (!pitch || !pitch.trump) return "";
  const off = pitch.off_jack_suit;
  return `${SUIT_SYMBOLS[pitch.trump]} ${pitch.trump_name} · off-jack J${SUIT_SYMBOLS[off] || off}`;
}

/** A seat's latest bid this hand: "5", "pass", "Moon", or "". */
export function bidOf(pitch, seat) {
  const bids = (pitch.bids || []).filter((b) => b.seat === seat);
  if (!bids.length) return "";
  const label = bids[bids.length - 1].label;
  return label === "Shoot the Moon" ? "Moon" : label;
}

/** What the stock became: "Stock: 12", "Ann kept 5", "4 given to Cy unseen". */
export function stockText(pitch, name) {
  const stock = pitch.stock || {};
  if (stock.kept === true) return `${name(pitch.pitcher)} kept the stock (${stock.received})`;
  if (stock.kept === false) return `Stock: ${stock.received} given to ${name(stock.receiver)} unseen`;
  return `Stock: ${pitch.stock_size} cards`;
}

/** The hand's result in words (the points taken against the contract). */
export function outcomeText(pitch, name) {
  const o = pitch.outcome;
  if (!o) return "";
  const team = pitch.team_names[o.team];
  const took = o.taken[o.team];
  if (o.moon) {
    return o.made ? `${team} shot the Moon and took all 10!` : `${team} shot the Moon and missed (took ${took}).`;
  }
  const how = o.made ? `made it: +${o.points}` : `went set: −${o.contract}`;
  return `${team} bid ${o.contract_label}, took ${took}: ${how}.`;
}
