// Card faces drawn as cards (CSS in cards.css, nothing fetched), for every family: UNO's
// numbers, actions and wilds, the Showdown cards ("R2!1"), UNO Party!'s cards, and 10 Point
// Pitch's 54. A face has a big central glyph, corner indices, its colour AND a letter or
// suit symbol beside it (never colour alone), a "+N" badge on a draw card, and its words
// for screen readers ("red 2, showdown 1"). Also the small chip used inside log lines.

export const COLOUR_NAMES = { R: "red", Y: "yellow", G: "green", B: "blue", W: "wild" };
export const SUIT_SYMBOLS = { C: "♣", D: "♦", H: "♥", S: "♠" };
export const SUIT_NAMES = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };

// UNO ranks (the text after the colour letter): glyph, corner index, words, +N.
const COLOURED_RANKS = {
  "+2": { glyph: "+2", corner: "+2", words: "draw two", draw: 2 },
  R: { glyph: "⇄", corner: "⇄", words: "reverse" },
  S: { glyph: "⊘", corner: "⊘", words: "skip" },
  P: { glyph: "◎", corner: "PT", words: "point taken" },
};
const WILDS = {
  W: { glyph: "W", corner: "W", words: "wild" },
  "W+4": { glyph: "+4", corner: "+4", words: "wild draw four", draw: 4 },
  WS: { glyph: "VS", corner: "VS", words: "wild showdown" },
  WP: { glyph: "⇈", corner: "PU", words: "wild pile up" },
  WT: { glyph: "⋈", corner: "DT", words: "wild drawn together" },
};

/**
 * What an UNO card's face shows, from its text ("R7", "B+2", "GS", "W+4", "R2!1", "WT"):
 * {colour (R Y G B W), glyph, corner, words, draw (the +N or 0), showdown (0-7)}.
 */
export function unoFace(text) {
  const [face, showdownText] = String(text || "").split("!");
  const showdown = Number(showdownText || 0);
  const wild = WILDS[face];
  let part;
  let colour;
  if (wild) {
    colour = "W";
    part = wild;
  } else {
    colour = face[0] || "";
    const rank = face.slice(1);
    part = COLOURED_RANKS[rank] || { glyph: rank, corner: rank, words: rank };
    part = { ...part, words: `${COLOUR_NAMES[colour] || colour} ${part.words}` };
  }
  const words = showdown ? `${part.words}, showdown ${showdown}` : part.words;
  return { colour, glyph: part.glyph, corner: part.corner, words, draw: part.draw || 0, showdown };
}

/** Words for an UNO card, for screen readers: "red 5", "green draw two", "wild draw four". */
export function cardWords(text) {
  return text ? unoFace(text).words : "";
}

function span(className, text) {
  const el = document.createElement("span");
  el.className = className;
  el.textContent = text;
  el.setAttribute("aria-hidden", "true");
  return el;
}

/**
 * Fill `el` (a .card element, its colour class already set) with an UNO face: corner
 * indices, the central glyph, the colour letter, a +N badge, a showdown badge.
 * `shown` is the colour a played wild was given (its letter is shown beside "W").
 */
export function drawUnoFace(el, text, shown = "") {
  const face = unoFace(text);
  el.classList.add("face");
  const letter = face.colour === "W" && shown && shown !== "W" ? `W→${shown}` : face.colour;
  // a 6 and a 9 are underlined, as on printed cards: the corner turned over reads the same
  const turnable = face.glyph === "6" || face.glyph === "9" ? " turnable" : "";
  const parts = [
    span(`corner tl${turnable}`, face.corner),
    span(`glyph${turnable}`, face.glyph),
    span(`corner br${turnable}`, face.corner),
    span("cletter", letter),
  ];
  if (face.draw) parts.push(span("badge draw", `+${face.draw}`));
  if (face.showdown) parts.push(span("badge showdown", `!${face.showdown}`));
  el.replaceChildren(...parts);
  el.title = face.words;
  return el;
}

/** Words for a Pitch card: "ace of hearts", "10 of diamonds", "high joker". */
const PITCH_RANK_WORDS = { T: "10", J: "jack", Q: "queen", K: "king", A: "ace" };
export function pitchWords(text) {
  if (text === "HJ") return "high joker";
  if (text === "LJ") return "low joker";
  const rank = PITCH_RANK_WORDS[text[0]] || text[0];
  return `${rank} of ${SUIT_NAMES[text[1]] || text[1]}`;
}

/** What a Pitch card's face shows: {suit (C D H S J), rank ("10", "A", "★"), symbol}. */
export function pitchFace(text) {
  if (text === "HJ") return { suit: "J", rank: "JK", symbol: "★", glyph: "★" };
  if (text === "LJ") return { suit: "J", rank: "jk", symbol: "☆", glyph: "☆" };
  const rank = text[0] === "T" ? "10" : text[0];
  const symbol = SUIT_SYMBOLS[text[1]] || text[1];
  return { suit: text[1], rank, symbol, glyph: `${rank}${symbol}` };
}

/** Fill `el` (a .pcard element) with a Pitch face: rank+suit corners, a big rank+suit in the middle. */
export function drawPitchFace(el, text) {
  const face = pitchFace(text);
  el.classList.add("face");
  el.replaceChildren(
    span("corner tl", `${face.rank}${face.symbol}`),
    span("glyph", face.glyph),
    span("corner br", `${face.rank}${face.symbol}`),
  );
  el.title = pitchWords(text);
  return el;
}

/** A small inline card for a line of text (the log, a refusal): UNO or Pitch by `family`. */
export function cardChip(text, family = "uno") {
  const el = document.createElement("span");
  el.dataset.chip = text;
  if (family === "pitch") {
    const face = pitchFace(text);
    el.className = `chip pchip s-${face.suit}`;
    el.textContent = `${face.rank}${face.symbol}`;
    el.setAttribute("aria-label", pitchWords(text));
  } else {
    const face = unoFace(text);
    el.className = `chip uchip ${face.colour}`;
    el.textContent = face.colour === "W" ? face.corner : `${face.colour}${face.glyph}`;
    if (face.showdown) el.append(span("sd", `!${face.showdown}`));
    el.setAttribute("aria-label", face.words);
  }
  el.title = el.getAttribute("aria-label");
  return el;
}

/**
 * A line of text with the cards it names (`cards`: [[family, text]], said by the server
 * beside the line: docs/table.md, "Cards in the log and in refusals") drawn as chips:
 * a list of strings and chips for `el.append`. Only those exact card texts, as whole
 * words, become chips; nothing else in the text is guessed at.
 */
export function withCards(text, cards) {
  const line = String(text);
  const family = new Map((cards || []).map(([fam, card]) => [card, fam]));
  if (!family.size) return [line];
  const out = [];
  let last = 0;
  let at = 0;
  const wordChar = /[A-Za-z0-9!+]/;
  while (at < line.length) {
    const found = [...family.keys()].find((card) => line.startsWith(card, at)
      && !wordChar.test(line[at - 1] || "") && !wordChar.test(line[at + card.length] || ""));
    if (found) {
      if (at > last) out.push(line.slice(last, at));
      out.push(cardChip(found, family.get(found)));
      at += found.length;
      last = at;
    } else {
      at += 1;
    }
  }
  if (last < line.length) out.push(line.slice(last));
  return out;
}
