// The table display: the public view only (it says hello as "display"), drawn big
// enough to read from the chairs, with the showdown mirrored live and a few beeps.
import {
  Link, STATUS_WORDS, cardElement, colourLetter, COLOUR_NAMES, directionText, fill, h, seatName,
} from "./common.js";
import { showShowdown, sound } from "./showdown.js";

const $ = (id) => document.getElementById(id);
let view = null;
let lastCounts = new Map();
let lastTurnText = "";

$("mute").addEventListener("click", () => {
  sound.on = !sound.on;
  if (sound.on && !sound.ctx) {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (Ctx) sound.ctx = new Ctx();
  }
  if (sound.ctx && sound.on) sound.ctx.resume();
  $("mute").setAttribute("aria-pressed", String(sound.on));
  $("mute").textContent = sound.on ? "Sound: on" : "Sound: off";
  sound.beep(660, 80);
});

// -- host controls --
$("host-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const message = {
    type: "host",
    cmd: "start",
    bots: Number($("bots").value),
    variant: $("variant").value,
    target: Number($("target-input").value),
  };
  $("host-message").textContent = link.send(message) ? "Starting…" : "Not connected.";
});

const link = new Link({
  onOpen: (l) => l.send({ type: "hello", role: "display" }),
  onStatus: (status) => {
    $("status").textContent = STATUS_WORDS[status] || status;
    $("status").classList.toggle("down", status !== "connected");
  },
  onMessage: (message) => {
    if (message.type === "view") {
      if (view && view.phase !== message.view.phase) $("host-message").textContent = "";
      render(message.view);
    }
    else if (message.type === "refused") $("host-message").textContent = message.message;
  },
});
window.tableLink = link; // for tests and the curious: the page's only socket

function render(next) {
  view = next;
  const paused = view.paused;
  $("paused").hidden = !paused;
  $("paused").textContent = paused ? `Paused: ${paused}` : "";
  $("room").textContent = view.code || view.room || "";
  $("join-url").textContent = view.join_url || "";
  renderPlay();
  renderSeats();
  renderScores();
  renderLog();
  renderShowdown();
  renderHostExtra();
}

function host(cmd, extra = {}) {
  $("host-message").textContent = link.send({ type: "host", cmd, ...extra }) ? "Sent." : "Not connected.";
}

function renderHostExtra() {
  const playing = view.phase && view.phase !== "lobby" && view.phase !== "match_over";
  $("start").disabled = !!playing;
  $("start").textContent = view.phase === "match_over" ? "New match" : "Start";
  const buttons = [];
  if (view.phase === "over") {
    buttons.push(h("button", { type: "button", text: "Next round", onclick: () => host("next_round") }));
  }
  const sd = view.showdown;
  if (view.paused) {
    buttons.push(h("button", { type: "button", text: "Retry", onclick: () => host("retry") }));
    if (sd) {
      for (const seat of [sd.challenger, sd.opponent]) {
        buttons.push(h("button", { type: "button", text: `${seatName(view, seat)} loses`,
          onclick: () => host("decide", { loser: seat }) }));
      }
    }
  }
  fill($("host-extra"), buttons);
}

function renderPlay() {
  const turn = view.turn;
  let text;
  if (turn === null || turn === undefined) {
    text = view.phase === "lobby" || !view.phase ? "Waiting for players" : phaseText(view.phase);
  } else {
    text = `${seatName(view, turn)} to play`;
  }
  $("turn").textContent = text;
  if (text !== lastTurnText) {
    lastTurnText = text;
    $("announce").textContent = text;
  }
  const top = view.top;
  fill($("top"), top ? cardElement(top) : null);
  const letter = colourLetter(view.colour);
  fill(
    $("colour"),
    letter
      ? h("span", { class: `colour-chip ${letter}`, text: `${letter} ${COLOUR_NAMES[letter] || ""}` })
      : "—",
  );
  $("direction").textContent = directionText(view.direction);
  $("round").textContent = view.round ? `Round ${view.round}` : "";
}

function phaseText(phase) {
  const words = { over: "Round over", round_over: "Round over", match_over: "Match over", showdown: "Showdown!" };
  return words[phase] || String(phase).replace(/_/g, " ");
}

const plus = new Map(); // seat -> {n, until}: a "+N" badge shown for a few seconds
let seatsRound = null;

function renderSeats() {
  const now = Date.now();
  const newRound = view.round !== seatsRound;
  seatsRound = view.round;
  const counts = new Map();
  const items = (view.seats || []).map((seat) => {
    counts.set(seat.seat, seat.cards);
    const before = newRound ? undefined : lastCounts.get(seat.seat);
    if (typeof seat.drew === "number") {
      // the server says how many the latest draw brought (0 once that seat acts again)
      if (seat.drew > 0) plus.set(seat.seat, { n: seat.drew, until: Infinity });
      else plus.delete(seat.seat);
    } else if (typeof before === "number" && typeof seat.cards === "number" && seat.cards > before) {
      plus.set(seat.seat, { n: seat.cards - before, until: now + 3000 });
    }
    const badge = plus.get(seat.seat);
    const away = seat.connected === false && seat.kind !== "bot";
    return h(
      "li",
      {
        class: [seat.seat === view.turn ? "turn-now" : "", away ? "away" : ""].join(" ").trim(),
        "data-seat": seat.seat,
      },
      h("span", { text: seat.name || `Seat ${seat.seat + 1} (free)` }),
      seat.kind === "bot" ? h("span", { class: "badge bot", text: "bot" }) : null,
      away ? h("span", { class: "badge bot", text: "away" }) : null,
      seat.uno ? h("span", { class: "badge uno", text: "UNO" }) : null,
      badge && badge.until > now ? h("span", { class: "badge plus", text: `+${badge.n}` }) : null,
      h("span", {
        class: "count",
        text: typeof seat.cards === "number" ? `${seat.cards} cards` : "",
        "aria-label": typeof seat.cards === "number" ? `${seat.cards} cards` : null,
      }),
    );
  });
  lastCounts = counts;
  fill($("seats"), items);
}

function renderScores() {
  const scores = view.scores || [];
  $("target").textContent = view.target ? `(to ${view.target})` : "";
  const rows = (view.seats || []).map((seat) =>
    h("tr", {}, h("td", { text: seat.name || `Seat ${seat.seat + 1}` }),
      h("td", { text: String(scores[seat.seat] ?? 0) })),
  );
  fill($("scores"), rows);
}

function renderLog() {
  // Newest first; the server puts a "---" line between two rounds.
  const items = (view.log || []).map((entry) => {
    const text = typeof entry === "string" ? entry : entry.text;
    return /^-{3,}$/.test(text)
      ? h("li", { class: "round-line", role: "separator", "aria-label": "new round" })
      : h("li", { text });
  });
  fill($("log"), items);
}

function renderShowdown() {
  showShowdown($("showdown-body"), view, { announce: $("announce"), verdict: $("announce-verdict") });
}
