// 10 Point Pitch on a phone (chosen by the view's "family"): its own hand always shown
// (trumps first, the dead cards greyed), only the legal bids as buttons, a suit picker
// for the trump, keep or give the stock, the burn and the play by tapping a card (only
// the cards the rules allow are marked). Every tap goes to the server, which decides and
// says why in words when it refuses.
import { fill, h, seatName } from "./common.js";
import {
  SUIT_NAMES, SUIT_SYMBOLS, TEAM_CLASSES, bidOf, cardFace, outcomeText, pitchCard, stockText, trumpText,
} from "./pitch_cards.js";

const $ = (id) => document.getElementById(id);

function infoLines(view, seat, p) {
  const name = (s) => (s === seat ? "you" : seatName(view, s));
  const mine = seat % 2;
  const lines = [
    h("div", { class: "scoreline" },
      h("span", { class: TEAM_CLASSES[mine], text: `You: ${p.team_names[mine]} ${p.team_scores[mine]}` }), " · ",
      h("span", { class: TEAM_CLASSES[1 - mine], text: `${p.team_names[1 - mine]} ${p.team_scores[1 - mine]}` }),
      ` (to ${p.target})`),
  ];
  if (p.trump) lines.push(h("div", { class: "trumpline", text: `Trump ${trumpText(p)}` }));
  if (p.contract !== null && p.contract !== undefined) {
    const team = p.pitcher % 2;
    lines.push(h("div", { text: `${seatName(view, p.pitcher)} bid ${p.contract_label}: has taken ${p.taken[team]} of ${p.needed}. ${stockText(p, (s) => seatName(view, s))}.` }));
  } else if (p.bids.length) {
    lines.push(h("div", { text: `Bids: ${[0, 1, 2, 3].filter((s) => bidOf(p, s)).map((s) => `${name(s)} ${bidOf(p, s)}`).join(", ")}` }));
  }
  if (p.trick.length || p.last_trick) {
    const cards = p.trick.length ? p.trick : p.last_trick.cards;
    lines.push(h("div", { class: "ptrick", "aria-label": "The trick" },
      h("span", { text: p.trick.length ? "Trick:" : `${seatName(view, p.last_trick.winner)} took:` }),
      cards.map((c) => h("span", {}, pitchCard(c.card), h("span", { class: "who", text: name(c.seat) })))));
  }
  if (p.outcome) lines.push(h("div", { class: "trumpline", text: outcomeText(p, (s) => seatName(view, s)) }));
  if (p.match_winner !== null && p.match_winner !== undefined) {
    lines.push(h("div", { class: "trumpline", text: p.match_winner === mine ? "Your team wins the match!" : `${p.winner_names} win the match.` }));
  }
  return lines;
}

function actionButtons(legal, send, partner) {
  const bids = legal.filter((a) => a.kind === "bid" || a.kind === "pass" || a.kind === "redeal");
  const suits = legal.filter((a) => a.kind === "trump");
  const stock = legal.filter((a) => a.kind === "keep" || a.kind === "give");
  const out = [];
  if (bids.length) {
    out.push(h("div", { class: "bids", role: "group", "aria-label": "Your bid" }, bids.map((a) => h("button", {
      type: "button", class: a.kind === "pass" ? "pass" : "", "data-action": a.action,
      text: a.kind !== "bid" || a.action === "bid moon" ? a.label : `bid ${a.label}`, onclick: () => send(a.action),
    }))));
  }
  if (suits.length) {
    out.push(h("div", { class: "suits", role: "group", "aria-label": "Name the trump" }, suits.map((a) => h("button", {
      type: "button", class: `s-${a.suit}`, "data-action": a.action,
      text: `${SUIT_SYMBOLS[a.suit]} ${SUIT_NAMES[a.suit]}`, onclick: () => send(a.action),
    }))));
  }
  for (const a of stock) {
    out.push(h("button", { type: "button", class: "big", "data-action": a.action,
      text: a.kind === "keep" ? "Keep the stock" : `Give it to ${partner} unseen`, "aria-label": a.label,
      onclick: () => send(a.action) }));
  }
  return out;
}

/** Draw Pitch on the phone of ``seat``; ``send`` sends an action's text, ``say`` a line. */
export function renderPitchPhone(view, seat, { send, say }) {
  const you = view.you;
  const p = view.pitch;
  $("pitch-phone").hidden = !p;
  fill($("pitch-phone"), p ? infoLines(view, seat, p) : []);
  const legal = you.legal || [];
  const byCard = new Map(legal.filter((a) => a.card).map((a) => [a.card, a]));
  const phase = p ? p.phase : "";
  const tapping = legal.some((a) => a.card); // a burn or a play: the cards not marked dim
  fill($("hand"), (you.hand || []).map((card) => {
    const button = pitchCard(card, "button");
    button.type = "button";
    const action = byCard.get(card.text);
    button.classList.toggle("legal", !!action);
    button.classList.toggle("dead", !!card.dead);
    button.classList.toggle("idle", tapping && !action && !card.dead);
    button.setAttribute("aria-label", `${card.label}${card.dead ? ", dead" : ""}${action ? (action.kind === "burn" ? ", may burn" : ", playable") : ""}`);
    button.addEventListener("click", () => {
      if (action) return send(action.action);
      if (phase === "play" || phase === "burn") return send(`${phase} ${card.text}`); // the server says why not
      return say(`${cardFace(card.text)}: cards are played after the bidding, the trump and the stock.`);
    });
    return h("li", {}, button);
  }));
  fill($("actions"), actionButtons(legal, send, seatName(view, (seat + 2) % 4)));
  $("prompt").textContent = you.prompt || "";
  fill($("others"), (view.seats || []).filter((s) => s.seat !== seat).map((s) =>
    h("li", { class: TEAM_CLASSES[s.seat % 2] },
      `${s.name || `Seat ${s.seat + 1}`}${s.seat === (seat + 2) % 4 ? " (partner)" : ""}: ${s.cards ?? "–"}`,
      p && p.out[s.seat] ? " out" : "")));
}
