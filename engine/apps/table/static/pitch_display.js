// 10 Point Pitch on the display (chosen by the view's "family"): partners opposite in
// their team's colour, the bidding as it goes, the trump with its off-jack, the refill
// counts, the stock, the burns (face up, or a back when face down), the trick with who
// is out, the points taken against the contract, the scores to the target, the Moon.
import { fill, h, seatName } from "./common.js";
import {
  SUIT_SYMBOLS, TEAM_CLASSES, bidOf, outcomeText, pitchCard, stockText,
} from "./pitch_cards.js";

const $ = (id) => document.getElementById(id);
// Seat 0 at the bottom, clockwise: 1 on the left, 2 (0's partner) on top, 3 on the right.
const PLACES = ["south", "west", "north", "east"];

/** What the table waits for, in words. */
function turnText(view, p) {
  const name = (s) => seatName(view, s);
  if (p.match_winner !== null && p.match_winner !== undefined) return "Match over";
  if (p.outcome) return p.outcome.moon ? "Shoot the Moon!" : "Hand over";
  const who = name(p.to_act);
  return {
    bid: `${who} to bid`,
    trump: `${who} names the trump`,
    stock: `${who}: keep or give the stock`,
    burn: `${who} burns down to 6`,
    play: `${who} to play`,
  }[p.phase] || "";
}

function seatBox(view, p, seat) {
  const entry = (view.seats || [])[seat] || {};
  const n = seat;
  const badges = [];
  if (p.dealer === n) badges.push(h("span", { class: "pbadge", text: "dealer" }));
  if (p.pitcher === n) badges.push(h("span", { class: "pbadge pitcher", text: `pitcher ${p.contract_label === "Shoot the Moon" ? "Moon" : p.contract_label}` }));
  const bid = bidOf(p, n);
  if (p.phase === "bid" || (bid && p.pitcher !== n && p.tricks === 0 && p.trick.length === 0)) {
    if (bid) badges.push(h("span", { class: `pbadge bid${bid === "pass" ? " pass" : ""}`, text: bid === "pass" ? "pass" : `bid ${bid}` }));
  }
  const refill = p.refills[n];
  if (refill !== null && refill !== undefined && p.phase !== "bid" && p.phase !== "trump") {
    badges.push(h("span", { class: "pbadge refill", text: `drew ${refill}` }));
  }
  if (p.out[n]) badges.push(h("span", { class: "pbadge out", text: "out" }));
  if (entry.kind === "bot") badges.push(h("span", { class: "pbadge bot", text: "bot" }));
  return h("div", {
    class: `pseat ${PLACES[n]} ${TEAM_CLASSES[n % 2]}${p.to_act === n ? " now" : ""}${p.out[n] ? " is-out" : ""}`,
    "data-seat": n,
  },
  h("div", { class: "pname", text: seatName(view, n) }),
  h("div", { class: "pbadges" }, badges),
  h("div", { class: "pcount", text: typeof entry.cards === "number" ? `${entry.cards} card${entry.cards === 1 ? "" : "s"}` : "" }));
}

function trickArea(view, p) {
  const shown = p.trick.length ? p.trick : (p.last_trick ? p.last_trick.cards : []);
  const last = !p.trick.length && p.last_trick;
  const spots = PLACES.map((place, n) => {
    const play = shown.find((c) => c.seat === n);
    return h("div", { class: `spot ${place}` },
      play ? pitchCard(play.card) : (p.out[n] && p.phase === "play" ? h("span", { class: "outmark", text: "out" }) : null));
  });
  const caption = last
    ? `${seatName(view, p.last_trick.winner)} took the trick (${p.last_trick.points} point${p.last_trick.points === 1 ? "" : "s"})`
    : (p.phase === "play" ? `Trick ${p.tricks + 1}` : "");
  return h("div", { class: `trick${last ? " last" : ""}`, "aria-label": "The trick" },
    spots, h("div", { class: "caption", text: caption }));
}

function scoreBoard(p) {
  return p.team_names.map((name, t) => {
    const score = p.team_scores[t];
    const width = Math.max(0, Math.min(100, (100 * score) / p.target));
    const fillBar = h("span");
    fillBar.style.width = `${width}%`; // the CSSOM: the policy forbids inline style attributes
    return h("div", { class: `pscore ${TEAM_CLASSES[t]}`, "data-team": t },
      h("span", { class: "team", text: name }),
      h("span", { class: "num", text: `${score} / ${p.target}` }),
      h("span", { class: "bar" }, fillBar));
  });
}

/** The corners of the table: the trump (top left), the contract and the points taken
 * (top right), the stock and the burns (bottom left), the bids (bottom right). */
function corners(view, p) {
  const name = (s) => seatName(view, s);
  const trump = p.trump
    ? [h("div", { class: "pfact trump", text: `Trump ${SUIT_SYMBOLS[p.trump]} ${p.trump_name}` }),
      h("div", { class: "pfact", text: `off-jack J${SUIT_SYMBOLS[p.off_jack_suit]}` })]
    : [];
  const contract = [];
  if (p.contract !== null && p.contract !== undefined) {
    const team = p.pitcher % 2;
    contract.push(h("div", { class: `pfact contract ${TEAM_CLASSES[team]}`,
      text: `${name(p.pitcher)} bid ${p.contract_label}: has taken ${p.taken[team]} of ${p.needed}` }));
    contract.push(h("div", { class: "pfact taken", text: `Points taken: ${p.taken[0]} to ${p.taken[1]}` }));
  }
  const stock = p.phase !== "bid" ? [h("div", { class: "pfact stock", text: stockText(p, name) })] : [];
  if (p.burned.length) {
    stock.push(h("div", { class: "pfact burns" }, h("span", { text: "Burned: " }),
      p.burned.map((b) => h("span", { class: "burn", title: name(b.seat) }, pitchCard(b.card)))));
  }
  const bids = p.bids.length
    ? [h("div", { class: "pfact bids", text: `Bids: ${p.bids.map((b) =>
      `${name(b.seat)} ${b.label === "Shoot the Moon" ? "Moon" : b.label}`).join(" · ")}` })]
    : [];
  return [["nw", trump], ["ne", contract], ["sw", stock], ["se", bids]].map(([corner, items]) =>
    h("div", { class: `pcorner ${corner}` }, items));
}

/** Draw the Pitch table into the #pitch panel. */
export function renderPitch(view) {
  const p = view.pitch;
  const box = $("pitch");
  if (!p) {
    fill(box, h("h2", { text: "10 Point Pitch" }),
      h("p", { class: "pturn", text: view.phase === "lobby" ? "Waiting for players" : "" }));
    return "Waiting for players";
  }
  const turn = turnText(view, p);
  const banner = [];
  if (p.outcome) {
    banner.push(h("div", { class: `pbanner${p.outcome.moon ? " moon" : ""} ${TEAM_CLASSES[p.outcome.team]}`,
      text: outcomeText(p, (s) => seatName(view, s)) }));
  }
  if (p.match_winner !== null && p.match_winner !== undefined) {
    banner.push(h("div", { class: `pbanner winner ${TEAM_CLASSES[p.match_winner]}`, text: `${p.winner_names} win the match!` }));
  }
  fill(box,
    h("h2", { id: "pitch-h", text: `10 Point Pitch · hand ${view.round}` }),
    h("p", { id: "pitch-turn", class: "pturn", text: turn }),
    h("div", { class: "pscores" }, scoreBoard(p)),
    banner,
    h("div", { class: "ptable" }, [0, 1, 2, 3].map((s) => seatBox(view, p, s)), trickArea(view, p),
      corners(view, p)));
  return turn;
}
