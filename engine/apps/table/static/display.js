// The table display: the public view only (it says hello as "display"), drawn big
// enough to read from the chairs, with the showdown mirrored live and a few beeps.
import {
  Link, STATUS_WORDS, cardElement, colourLetter, COLOUR_NAMES, directionText, fill, h, seatName,
} from "./common.js";

const $ = (id) => document.getElementById(id);
let view = null;
let lastCounts = new Map();
let lastTurnText = "";
let lastShowdownKey = "";

// -- sounds: Web Audio beeps, off until someone switches them on (a user gesture) --
const sound = {
  ctx: null,
  on: false,
  beep(freq, ms, when = 0) {
    if (!this.on || !this.ctx) return;
    const t = this.ctx.currentTime + when;
    const osc = this.ctx.createOscillator();
    const gain = this.ctx.createGain();
    osc.frequency.value = freq;
    osc.type = "square";
    gain.gain.setValueAtTime(0.08, t);
    gain.gain.exponentialRampToValueAtTime(0.0001, t + ms / 1000);
    osc.connect(gain).connect(this.ctx.destination);
    osc.start(t);
    osc.stop(t + ms / 1000 + 0.02);
  },
};

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
  const sd = view.showdown;
  const body = $("showdown-body");
  if (!sd) {
    fill(body, h("p", { class: "status", text: "No showdown right now." }));
    lastShowdownKey = "";
    return;
  }
  const cards = Array.isArray(sd.cards) ? sd.cards.length : sd.cards;
  const a = seatName(view, sd.challenger);
  const b = seatName(view, sd.opponent);
  const parts = [
    h("p", { class: "showdown-face", text: `${a} ⚔ ${b}` }),
    h("p", { class: "fact", text: `${cards} card${cards === 1 ? "" : "s"} loaded` }),
    sd.message && sd.stage !== "decided" ? h("p", { text: sd.message }) : null,
  ];
  if (sd.rerun) {
    const n = typeof sd.rerun === "number" ? ` (${sd.rerun})` : "";
    parts.push(h("p", { class: "fact", text: `Too close: re-run${n}` }));
  }
  const steps = sd.steps || 0;
  if (sd.stage === "countdown" || sd.stage === "armed") {
    const dots = [];
    for (let i = 0; i < steps; i++) dots.push(h("span", { class: i < (sd.step || 0) ? "lit" : "" }));
    parts.push(h("div", { class: "steps", role: "img", "aria-label": `countdown ${sd.step || 0} of ${steps}` }, dots));
    if (sd.stage === "armed") parts.push(h("p", { class: "fact", text: "Armed: get ready" }));
  }
  if (sd.stage === "go") parts.push(h("p", { class: "go", text: "GO!" }));
  if (sd.false_start_by !== null && sd.false_start_by !== undefined) {
    const who = seatName(view, sd.false_start_by);
    const arrow = sd.false_start_by === sd.challenger ? "◀" : "▶";
    parts.push(h("p", { class: "false-start", text: `${arrow} False start: ${who}` }));
  }
  if (sd.stage === "decided") {
    parts.push(h("p", { class: "verdict", text: sd.verdict || "Decided" }));
    const reactions = reactionText(sd);
    // the server's verdict may give the times already; say them once
    if (reactions && !/\d\s*ms/.test(sd.verdict || "")) {
      parts.push(h("p", { class: "reactions", text: reactions }));
    }
  }
  fill(body, parts);
  // sounds and announcements on each change of stage or step
  const key = `${sd.challenger}/${sd.opponent}/${sd.stage}/${sd.step}/${sd.rerun}`;
  if (key !== lastShowdownKey) {
    lastShowdownKey = key;
    if (sd.stage === "armed") $("announce").textContent = `Showdown: ${a} against ${b}, ${cards} cards`;
    if (sd.stage === "countdown") sound.beep(440, 120);
    if (sd.stage === "go") sound.beep(880, 400);
    if (sd.stage === "decided") {
      sound.beep(660, 150);
      sound.beep(330, 300, 0.18);
      $("announce-verdict").textContent = sd.verdict || reactionText(sd);
    }
  }
}

function reactionText(sd) {
  const r = sd.reactions;
  if (!r) return "";
  const get = (seat) => {
    const side = seat === sd.challenger ? "challenger" : "opponent";
    if (Array.isArray(r)) return r[side === "challenger" ? 0 : 1];
    return side in r ? r[side] : r[seat] ?? r[String(seat)];
  };
  const fmt = (ms) => (ms === null || ms === undefined ? "no press" : `${Math.round(ms)} ms`);
  let text = `${seatName(view, sd.challenger)} ${fmt(get(sd.challenger))} · ${seatName(view, sd.opponent)} ${fmt(get(sd.opponent))}`;
  if (sd.margin_ms !== null && sd.margin_ms !== undefined) text += ` · margin ${Math.round(sd.margin_ms)} ms`;
  return text;
}
