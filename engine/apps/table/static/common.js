// What the display and the phone share: the socket (with reconnects), cards (drawn
// by cards.js), names of seats and colours. Plain ES modules, nothing from elsewhere.

import { COLOUR_NAMES, cardWords, drawUnoFace } from "./cards.js";

export { COLOUR_NAMES, cardWords };
const LETTER_BY_NAME = { red: "R", yellow: "Y", green: "G", blue: "B", wild: "W" };

/** "R", "red", "RED" -> "R"; a wild or nothing -> "W" or "". */
export function colourLetter(colour) {
  if (!colour) return "";
  const text = String(colour);
  if (text.length === 1) return text.toUpperCase();
  return LETTER_BY_NAME[text.toLowerCase()] || "";
}

/** The colour of a card given as {text, colour} or as its text ("G+2", "W+4"). */
export function cardColour(card) {
  const text = typeof card === "string" ? card : card.text;
  const given = typeof card === "string" ? "" : colourLetter(card.colour);
  if (text && text[0] === "W") return "W";
  return given || (text ? text[0] : "");
}

/** A card as an element drawn as a card face (cards.js): its colour as a class, data-card. */
export function cardElement(card, tag = "span") {
  const text = typeof card === "string" ? card : card.text;
  const el = document.createElement(tag);
  el.className = `card ${cardColour(card)}`;
  drawUnoFace(el, text, typeof card === "object" ? colourLetter(card.colour) : "");
  el.dataset.card = text;
  el.setAttribute("aria-label", (typeof card === "object" && card.label) || cardWords(text));
  return el;
}

/** The name shown for a seat index. */
export function seatName(view, seat) {
  if (seat === null || seat === undefined) return "";
  const found = (view.seats || []).find((s) => s.seat === seat);
  return (found && found.name) || `Seat ${seat + 1}`;
}

export function directionText(direction) {
  if (direction === undefined || direction === null) return "";
  const forward = direction === 1 || direction === "clockwise" || direction === "forward";
  return forward ? "↻ clockwise" : "↺ anticlockwise";
}

/** Replace an element's children. */
export function fill(el, ...children) {
  el.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined));
}

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") el.className = value;
    else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "text") el.textContent = value;
    else el.setAttribute(key, value === true ? "" : value);
  }
  el.append(...children.flat().filter((c) => c !== null && c !== undefined));
  return el;
}

/**
 * Redraw with `draw()` and keep the keyboard where it was: if the focused element
 * is replaced, focus goes to its successor, found by the same id, data-card,
 * data-action or data-key (the first of them it has).
 */
export function keepFocus(draw) {
  const active = document.activeElement;
  const keys = ["id", "data-card", "data-action", "data-key"];
  const key = active && active !== document.body
    ? keys.map((name) => [name, active.getAttribute(name)]).find(([, value]) => value)
    : null;
  draw();
  if (!key || active.isConnected) return;
  const [name, value] = key;
  const next = name === "id"
    ? document.getElementById(value)
    : document.querySelector(`[${name}="${CSS.escape(value)}"]`);
  if (next && !next.disabled) next.focus();
}

/** A round trip in words: "12 ms", "1.2 s". */
export function lagText(ms) {
  if (ms === null || ms === undefined) return "";
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** How often a page measures its round trip to the server, in ms. */
export const PING_EVERY_MS = 5000;

/**
 * The one WebSocket to /ws, reopened with backoff (0.5 s doubling to 8 s) whenever it
 * drops. `onOpen(link)` runs on every (re)connect: that is where hello is sent.
 * With `onLag(ms)` the link pings the server on every (re)connect and every
 * PING_EVERY_MS ({"type":"ping","id":N}, answered by {"type":"pong","id":N}) and
 * reports each round trip; pongs are not passed to `onMessage`.
 */
export class Link {
  constructor({ onOpen, onMessage, onStatus, onLag }) {
    this.onOpen = onOpen;
    this.onMessage = onMessage;
    this.onStatus = onStatus || (() => {});
    this.onLag = onLag || null;
    this.pings = new Map(); // id -> performance.now() when sent
    this.nextPing = 1;
    this.lag = null;
    this.delay = 500;
    this.socket = null;
    this.closed = false;
    // Action ids are unique across reloads (the server refuses an id it has seen
    // from the seat as a replay): a random prefix per page load, then a counter.
    const bytes = crypto.getRandomValues(new Uint8Array(6));
    this.idPrefix = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    this.nextId = 1;
    this.connect();
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    return `${scheme}//${location.host}/ws`;
  }

  connect() {
    this.onStatus("connecting");
    const socket = new WebSocket(this.url());
    this.socket = socket;
    socket.addEventListener("open", () => {
      this.delay = 500;
      this.onStatus("connected");
      this.onOpen(this);
      if (this.onLag) this.ping();
    });
    socket.addEventListener("message", (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (message.type === "pong" && this.pings.has(message.id)) {
        this.lag = performance.now() - this.pings.get(message.id);
        this.pings.delete(message.id);
        this.onLag(this.lag);
        return;
      }
      this.onMessage(message);
    });
    socket.addEventListener("close", () => {
      this.pings.clear();
      if (this.socket !== socket || this.closed) return;
      this.onStatus("reconnecting");
      setTimeout(() => this.connect(), this.delay);
      this.delay = Math.min(this.delay * 2, 8000);
    });
  }

  /** Measure the round trip now, and again every PING_EVERY_MS. */
  ping() {
    clearTimeout(this.pingTimer);
    const id = this.nextPing++;
    if (this.send({ type: "ping", id })) this.pings.set(id, performance.now());
    this.pingTimer = setTimeout(() => this.ping(), PING_EVERY_MS);
  }

  /** Send a message; false when the socket is not open (the caller may say so). */
  send(message) {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN) return false;
    this.socket.send(JSON.stringify(message));
    return true;
  }

  /** Send an action with a fresh id; returns the id. */
  act(action) {
    const id = `${this.idPrefix}-${this.nextId++}`;
    return this.send({ type: "act", action, id }) ? id : null;
  }
}

export const STATUS_WORDS = {
  connecting: "connecting…",
  connected: "connected",
  reconnecting: "connection lost: reconnecting…",
};
