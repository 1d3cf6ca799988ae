// The table display: the public view only (it says hello as "display"), drawn big
// enough to read from the chairs, with the showdown mirrored live and a few beeps.
// Opened from the host URL (/#host=KEY) it is the host's: the host controls, the room
// code and the join QR, and the host URL as a QR to take to another device. Opened
// without the key it is a spectator's: no host controls are drawn.
import {
  Link, STATUS_WORDS, cardElement, colourLetter, COLOUR_NAMES, directionText, fill, h, keepFocus,
  lagText, seatName,
} from "./common.js";
import { withCards } from "./cards.js";
import { renderPitch } from "./pitch_display.js";
import { showShowdown, soundSwitch } from "./showdown.js";
import { Paddles } from "./paddle.js";
import { winnerBanner } from "./feedback.js";

const $ = (id) => document.getElementById(id);
let view = null;
let lastCounts = new Map();
let lastTurnText = "";
let linkStatus = "connecting";
let lagMs = null; // this page's latest round trip to the server
let endArmed = false; // "End match" asks for a second press
let seatsOpen = false; // the host's fold of the seats' bot buttons (many people), opened
const FOLD_SEATS_OVER = 4; // more people than this at the table and their bot buttons are folded
let clearArmed = false; // "Clear the lobby" too

// The host's key, from the host URL's fragment: a browser never sends a fragment in
// a request line or a Referer; the page says it in its hello only.
let hostKey = new URLSearchParams(location.hash.slice(1)).get("host");
let access = null; // the host's welcome: host URL, room code, join URL, their QR codes

soundSwitch($("mute"));

// -- host controls --
// The setup as the server takes it; the server checks every value (the engine's
// own checks) and refuses a bad one with a message shown below the form.
function partyRules() {
  const on = (id) => $(id).checked;
  return {
    first_action: $("p-first").value,
    draw_closes_speed: on("p-draw-closes"),
    speed_out: on("p-speed-out"),
    pointer_points: on("p-pointer"),
    pile_wilds: on("p-pile-wilds"),
    pile_refuse: on("p-pile-refuse"),
    pile_out: $("p-pile-out").value,
    pile_is_draw: on("p-pile-draw"),
    link_self: on("p-link-self"),
    relink: $("p-relink").value,
    cap_linked: on("p-cap-linked"),
    wd4_all_wilds: on("p-wd4"),
    draw_until_playable: on("p-until"),
    uno_penalty: Number($("p-uno").value),
  };
}

// The forms the server describes (its welcome to the host: "forms", by variant):
// Pitch's bots and one switch per house rule, ticked for the rule's alternative.
let forms = {};
let formsAsked = false;
const unoBotOptions = $("bot-kind").innerHTML;

function buildForms(given) {
  forms = given || {};
  const pitch = forms.pitch;
  if (!pitch) return;
  fill($("pitch-rule-list"), pitch.house_rules.map((rule) => h("label", {},
    h("input", { type: "checkbox", id: `pr-${rule.name}`, "data-rule": rule.name }),
    ` ${rule.label}${typeof rule.on === "boolean" ? "" : `: ${String(rule.on).replace(/_/g, " ")}`}`)));
}

function pitchRules() {
  const rules = {};
  for (const rule of forms.pitch ? forms.pitch.house_rules : []) {
    rules[rule.name] = $(`pr-${rule.name}`).checked ? rule.on : rule.off;
  }
  return rules;
}

let formVariant = null;
function showRuleFields() {
  const variant = $("variant").value;
  const party = variant === "party";
  const own = forms[variant]; // a form the server described (Pitch's)
  $("party-rules").hidden = !party;
  $("pitch-rules").hidden = variant !== "pitch";
  $("classic-rules").hidden = party || !!own;
  $("bots").max = own ? String(own.seats - 1) : party ? "15" : "9";
  if (variant === formVariant) return;
  const before = forms[formVariant];
  formVariant = variant;
  const target = $("target-input");
  target.min = own ? "1" : "50";
  target.step = own ? "1" : "50";
  if (own && (target.value === "500" || !before)) target.value = String(own.target);
  else if (!own && before && target.value === String(before.target)) target.value = "500";
  if (own) {
    fill($("bot-kind"), own.bots.map((b, i) => h("option", { value: b.value, text: b.label, selected: i === 0 })));
  } else if (before) {
    $("bot-kind").innerHTML = unoBotOptions;
  }
}
let variantShown = false; // the lobby's variant (--variant) shown once, then the host's
$("variant").addEventListener("change", () => {
  variantShown = true; // the host's choice: a view arriving after it never takes it back
  showRuleFields();
});

$("host-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const number = (id) => Number($(id).value);
  const message = {
    type: "host",
    cmd: "start",
    bots: number("bots"),
    variant: $("variant").value,
    target: number("target-input"),
    bot: $("bot-kind").value,
    reaction_ms: number("reaction"),
    house_rules: {
      stacking: $("stacking").checked,
      draw_until_playable: $("until").checked,
      uno_penalty: number("uno-penalty"),
      first_card: $("first-card").value || null,
      showdown_cards: [number("ws-low"), number("ws-high")],
    },
  };
  if (message.variant === "party") message.house_rules = partyRules();
  if (message.variant === "pitch") message.house_rules = pitchRules();
  $("host-message").textContent = link.send(message) ? "Starting…" : "Not connected.";
});

function showStatus() {
  const lag = linkStatus === "connected" && lagMs !== null ? ` · ${lagText(lagMs)}` : "";
  $("status").textContent = (STATUS_WORDS[linkStatus] || linkStatus) + lag;
  $("status").classList.toggle("down", linkStatus !== "connected");
}

function hello() {
  return hostKey ? { type: "hello", role: "display", host_key: hostKey } : { type: "hello", role: "display" };
}

/** The welcome says whether this page is the host; a spectator draws no host controls. */
function welcomed(welcome) {
  const host = welcome.host === true;
  access = host ? welcome : null;
  if (!host && hostKey) {
    // A wrong or replaced key: forget it, so that reconnecting does not try it again.
    hostKey = null;
    history.replaceState(null, "", location.pathname + location.search);
  }
  $("host").hidden = !host;
  $("spectator").hidden = host;
  $("unit-words").hidden = !welcome.unit; // the unit is chosen at start: say which
  $("unit-words").textContent = welcome.unit || "";
  if (host && !formsAsked) {
    formsAsked = true;
    fetch("/forms.json").then((r) => r.json()).then((given) => {
      buildForms(given);
      formVariant = null;
      showRuleFields();
    }).catch(() => { formsAsked = false; }); // asked again at the next welcome
  }
  $("spectator-message").textContent = welcome.message || "";
  if (host) {
    $("host-qr").src = welcome.host_qr;
    $("host-url").textContent = welcome.host_url;
    $("join-qr").src = welcome.join_qr;
    $("panel-link").href = `/panel#host=${encodeURIComponent(hostKey)}`;
  } else {
    $("host-qr").removeAttribute("src");
    $("host-url").textContent = "";
    $("host-link").open = false;
    $("join-qr").src = "/qr.svg";
    $("panel-link").href = "/panel";
  }
  if (view) render(view);
}

const link = new Link({
  onOpen: (l) => l.send(hello()),
  onStatus: (status) => {
    linkStatus = status;
    showStatus();
  },
  onLag: (ms) => {
    lagMs = ms;
    showStatus();
  },
  onMessage: (message) => {
    if (paddles.handle(message)) return; // a showdown on the phones (--unit phones)
    if (message.type === "welcome") welcomed(message);
    else if (message.type === "view") {
      if (view && view.phase !== message.view.phase) $("host-message").textContent = "";
      render(message.view);
    }
    else if (message.type === "refused") {
      $((access ? "host" : "spectator") + "-message").textContent = message.message;
    }
  },
});
window.tableLink = link; // for tests and the curious: the page's only socket
// the display shows the countdown and GO, and its showdown panel follows them
const paddles = new Paddles(link, () => null, (round, stage, step) => {
  drawnPaddle = { id: round.showdown_id, round: round.round, stage, step };
  if (view) renderShowdown();
});
let drawnPaddle = null; // the phones' round's stage as this page drew it, at the synced instant

function render(next) {
  view = next;
  document.body.dataset.phase = view.phase || "lobby"; // the layout: the host's panel moves up in play
  winnerBanner(view);
  const paused = view.paused;
  $("paused").hidden = !paused;
  $("paused").textContent = paused ? `Paused: ${paused}` : "";
  $("host-paused").hidden = !view.host_paused;
  // The room code and the join URL that carries it are the host's (its welcome).
  $("room").textContent = access ? access.code : "";
  $("room-line").hidden = !access;
  $("room-note").hidden = !!access;
  $("join-url").textContent = access ? access.join_url : view.join_url || "";
  const pitch = view.family === "pitch";
  document.body.classList.toggle("pitch-mode", pitch);
  $("pitch").hidden = !pitch;
  $("play").hidden = pitch;
  if (!pitch) renderPlay();
  else {
    const text = renderPitch(view);
    $("turn").textContent = text;
    if (text !== lastTurnText) {
      lastTurnText = text;
      $("announce").textContent = text;
    }
  }
  renderSeats();
  renderScores();
  fill($("rules"), (view.rules || []).map((text) => h("li", { text })));
  $("rules").classList.toggle("many", (view.rules || []).length > 8);
  renderLog();
  renderShowdown();
  renderParty();
  if (!variantShown && view.variant) {
    variantShown = true;
    $("variant").value = view.variant;
    showRuleFields();
  }
  if (access) keepFocus(renderHostExtra);
}

// -- UNO Party! --
let countTimer = null;
let countFor = null; // the pointing the 3-2-1 count was shown for
let revealShown = null;

function renderParty() {
  const party = view.party;
  $("party").hidden = !party;
  $("showdown").hidden = !!party || view.family === "pitch";
  if (!party) return;
  const top = view.top;
  $("party-speed").hidden = !party.speed_window;
  $("party-speed-card").textContent = top ? `${top.text} (${top.label})` : "";
  const link = party.link;
  $("party-link").hidden = !link;
  if (link) $("party-link").textContent = `Linked: ${seatName(view, link[0])} and ${seatName(view, link[1])} draw together.`;
  const pile = party.pile;
  $("party-pile").hidden = !pile;
  if (pile) {
    const turn = pile.turn === null || pile.turn === undefined ? "" : ` ${seatName(view, pile.turn)} adds or takes.`;
    fill($("party-pile"),
      h("div", { class: "party-line", text: `Pile up: ${pile.cards.length} ${pile.cards.length === 1 ? "card" : "cards"}, ${pile.colour_name || "no colour"}.${turn}` }),
      h("div", { class: "pile-cards", "aria-label": "The mini pile" }, pile.cards.map((c) => cardElement(c))));
  }
  renderPointing(party.point);
  renderReveal(party.reveal);
}

function renderPointing(point) {
  const box = $("party-point");
  box.hidden = !point;
  if (!point) {
    clearInterval(countTimer);
    countTimer = null;
    countFor = null;
    return;
  }
  const key = `${view.round}:${point.by}:${view.log.length}`;
  if (countFor === null) {
    countFor = key;
    let n = 3;
    const tick = () => {
      $("party-count").textContent = n > 0 ? String(n) : "Point!";
      $("party-count").classList.toggle("go", n <= 0);
      $("announce").textContent = n > 0 ? String(n) : "Point!";
      if (n <= 0) { clearInterval(countTimer); countTimer = null; }
      n -= 1;
    };
    fill(box,
      h("div", { class: "party-line", text: `Point Taken by ${seatName(view, point.by)}: everyone points at a player!` }),
      h("div", { id: "party-count", class: "party-count", "aria-hidden": "true" }),
      h("div", { id: "party-waiting", class: "party-line" }));
    tick();
    countTimer = setInterval(tick, 1000);
  }
  const waiting = point.waiting.map((s) => seatName(view, s));
  $("party-waiting").textContent = waiting.length
    ? `Waiting for ${waiting.join(", ")} (${point.pointed.length} pointed)`
    : "Everyone has pointed.";
}

function renderReveal(reveal) {
  const box = $("party-reveal");
  box.hidden = !reveal;
  if (!reveal) { revealShown = null; return; }
  const key = JSON.stringify(reveal);
  if (key === revealShown) return;
  revealShown = key;
  const draws = new Map((reveal.draws || []).map((d) => [d.seat, d.cards]));
  fill(box,
    h("div", { class: "party-line", text: "Everyone pointed:" }),
    h("ul", { class: "pointing" }, (reveal.choices || []).map((c) =>
      h("li", { "data-seat": c.seat },
        h("span", { text: seatName(view, c.seat) }), h("span", { class: "arrow", text: " → ", "aria-label": "points at" }),
        h("span", { text: seatName(view, c.target) })))),
    h("ul", { class: "pointing-draws" }, [...draws].map(([seat, n]) =>
      h("li", { text: `${seatName(view, seat)} draws ${n}` }))));
  $("announce").textContent = (reveal.choices || []).map((c) =>
    `${seatName(view, c.seat)} points at ${seatName(view, c.target)}`).join(". ");
}

function host(cmd, extra = {}) {
  $("host-message").textContent = link.send({ type: "host", cmd, ...extra }) ? "Sent." : "Not connected.";
}

function button(key, text, onclick, attrs = {}) {
  return h("button", { type: "button", "data-key": key, text, onclick, ...attrs });
}

function renderHostExtra() {
  const playing = view.phase && view.phase !== "lobby" && view.phase !== "match_over";
  $("start").disabled = !!playing;
  $("start").textContent = view.phase === "match_over" ? "New match" : "Start";
  $("host-form").hidden = !!playing; // the rules chosen are listed under the scores
  const buttons = [];
  if (playing) {
    // one toggle, so the keyboard stays on it: Pause, then Resume
    buttons.push(button("pause", view.host_paused ? "Resume" : "Pause",
      () => host(view.host_paused ? "resume" : "pause"), { "aria-pressed": String(!!view.host_paused) }));
  }
  if (view.phase === "over" && !view.host_paused) buttons.push(button("next_round", "Next round", () => host("next_round")));
  const sd = view.showdown;
  if (view.paused) {
    const missing = view.phone_missing || []; // --unit phones: whose phone did not answer
    buttons.push(button("retry", missing.length ? "Fight again" : "Retry", () => host("retry")));
    for (const seat of missing) {
      buttons.push(button(`stand_in-${seat}`, `A bot presses for ${seatName(view, seat)}`,
        () => host("stand_in", { seat })));
    }
    if (sd && !view.cannot_save) {
      for (const seat of [sd.challenger, sd.opponent]) {
        buttons.push(button(`decide-${seat}`, `${seatName(view, seat)} loses`,
          () => host("decide", { loser: seat })));
      }
    }
  }
  const seatButtons = playing ? botSeatButtons() : [];
  // A few people: their buttons in line. Many: folded under one line, after
  // "End match", so that the host's own buttons stay in view on a TV.
  const fold = seatButtons.length > FOLD_SEATS_OVER;
  if (!fold) buttons.push(...seatButtons);
  if (view.phase && view.phase !== "lobby") {
    buttons.push(button("end", endArmed ? "Really end the match?" : "End match", () => {
      if (!endArmed) {
        endArmed = true;
        return keepFocus(renderHostExtra);
      }
      endArmed = false;
      host("end");
    }, { class: endArmed ? "danger" : null }));
  } else {
    endArmed = false;
  }
  if (fold) {
    const away = (view.seats || []).filter((seat) => seat.kind === "person" && seat.bot_playing);
    const summary = away.length ? `Seats: a bot plays for ${away.length}` : "Seats: a bot plays for…";
    buttons.push(h("details", {
      class: "seat-fold", "data-key": "seat-fold", open: seatsOpen,
      ontoggle: (event) => { seatsOpen = event.target.open; },
    }, h("summary", { text: summary }), h("div", { class: "host-extra" }, seatButtons)));
  }
  fill($("host-extra"), buttons);
  renderSeatControls();
}

/** Each person's seat: "A bot plays for X", or "X plays again" while one does
 * (done, after the showdown's verdict, when the seat was taken back during it;
 * handed to a bot during it, "X keeps playing" undoes that before the verdict). */
function botSeatButtons() {
  return (view.seats || []).filter((seat) => seat.kind === "person").map((seat) => {
    if (seat.back_after_showdown) {
      return button(`seat-${seat.seat}`, `${seat.name} plays again after the showdown`,
        null, { disabled: true });
    }
    if (seat.bot_after_showdown) {
      return button(`seat-${seat.seat}`, `${seat.name} keeps playing (a bot after the showdown)`,
        () => host("hand_back", { seat: seat.seat }));
    }
    return seat.bot_playing
      ? button(`seat-${seat.seat}`, `${seat.name} plays again`,
        () => host("hand_back", { seat: seat.seat }))
      : button(`seat-${seat.seat}`, `A bot plays for ${seat.name}`,
        () => host("hand_to_bot", { seat: seat.seat }));
  });
}

// -- the host's seat controls: in the lobby (and after a match: free only) --
function renderSeatControls() {
  const lobby = !view.phase || view.phase === "lobby";
  const shown = lobby || view.phase === "match_over";
  const people = (view.seats || []).filter((seat) => seat.kind === "person");
  $("seat-controls").hidden = !shown || !people.length;
  if (!shown) {
    clearArmed = false;
    return;
  }
  const last = (view.seats || []).length - 1;
  fill($("seat-list"), people.map((seat) => {
    const n = seat.seat;
    const where = `seat ${n + 1} (${seat.name})`;
    return h("li", { "data-seat": n },
      h("span", { class: "seat-name", text: `${n + 1}. ${seat.name}` }),
      lobby ? button(`up-${seat.name}`, "↑", () => host("move_seat", { seat: n, to: n - 1 }),
        { "aria-label": `Move ${seat.name} up to seat ${n}`, disabled: n === 0 }) : null,
      lobby ? button(`down-${seat.name}`, "↓", () => host("move_seat", { seat: n, to: n + 1 }),
        { "aria-label": `Move ${seat.name} down to seat ${n + 2}`, disabled: n === last }) : null,
      button(`free-${seat.name}`, "Free", () => host("free_seat", { seat: n }),
        { "aria-label": `Free ${where}` }));
  }));
  fill($("lobby-extra"), button("clear", clearArmed ? "Really free every seat?" : "Clear the lobby", () => {
    if (!clearArmed) {
      clearArmed = true;
      return keepFocus(renderSeatControls);
    }
    clearArmed = false;
    host("clear_lobby");
  }, { class: clearArmed ? "danger" : null }));
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
  const words = {
    over: "Round over", round_over: "Round over", match_over: "Match over", showdown: "Showdown!",
    point: "Everyone points!",
  };
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
    const away = seat.connected === false && seat.kind === "person" && !seat.bot_playing;
    return h(
      "li",
      {
        class: [seat.seat === view.turn ? "turn-now" : "", away ? "away" : ""].join(" ").trim(),
        "data-seat": seat.seat,
      },
      h("span", { class: "name", text: seatLabel(seat), title: seatLabel(seat) }),
      seat.kind === "bot" ? h("span", { class: "badge bot", text: "bot" }) : null,
      seat.bot_playing
        ? h("span", { class: "badge bot", text: "bot", title: `a bot plays for ${seat.name}` })
        : null,
      away ? h("span", { class: "badge bot", text: "away" }) : null,
      typeof seat.lag_ms === "number" && !seat.bot_playing // its phone's lag decides nothing now
        ? h("span", { class: "lag", text: lagText(seat.lag_ms), "aria-label": `lag ${lagText(seat.lag_ms)}` })
        : null,
      seat.uno ? h("span", { class: "badge uno", text: "UNO" }) : null,
      partyBadge(seat.seat),
      badge && badge.until > now ? h("span", { class: "badge plus", text: `+${badge.n}` }) : null,
      h("span", {
        class: "count",
        text: typeof seat.cards === "number" ? `${seat.cards} card${seat.cards === 1 ? "" : "s"}` : "",
        "aria-label": typeof seat.cards === "number" ? `${seat.cards} card${seat.cards === 1 ? "" : "s"}` : null,
      }),
    );
  });
  lastCounts = counts;
  $("seats").classList.toggle("many", items.length > 8);
  fill($("seats"), items);
}

/** UNO Party!: who has pointed (never at whom), who is linked. */
function partyBadge(n) {
  const party = view.party;
  if (!party) return null;
  if (party.point && party.point.pointed.includes(n)) return h("span", { class: "badge bot", text: "pointed ✓" });
  if (party.point && party.point.waiting.includes(n)) return h("span", { class: "badge bot", text: "pointing…" });
  if (party.link && party.link.includes(n)) return h("span", { class: "badge bot", text: "linked" });
  return null;
}

/** "Ann", "Seat 3 (free)" (a bot playing for Ann is a "bot" badge: the name stays whole). */
function seatLabel(seat) {
  return seat.name || `Seat ${seat.seat + 1} (free)`;
}

function renderScores() {
  const scores = view.scores || [];
  $("target").textContent = view.target ? `(to ${view.target})` : "";
  const rows = (view.seats || []).map((seat) =>
    h("tr", {}, h("td", { text: seat.name || `Seat ${seat.seat + 1}`, title: seat.name || null }),
      h("td", { text: String(scores[seat.seat] ?? 0) })),
  );
  fill($("scores"), rows);
}

function renderLog() {
  // Newest first; the server puts a "---" line between two rounds.
  const items = (view.log || []).map((entry, n) => {
    const text = typeof entry === "string" ? entry : entry.text;
    return /^-{3,}$/.test(text)
      ? h("li", { class: "round-line", role: "separator", "aria-label": "new round" })
      : h("li", {}, withCards(text, (view.log_cards || [])[n]));
  });
  fill($("log"), items);
}

function renderShowdown() {
  let shown = view;
  const sd = view.showdown, d = drawnPaddle;
  if (sd && sd.paddle && d && sd.paddle.showdown_id === d.id && sd.paddle.round === d.round) {
    shown = { ...view, showdown: { ...sd, stage: d.stage, step: d.step ?? sd.steps } };
  }
  showShowdown($("showdown-body"), shown, { announce: $("announce"), verdict: $("announce-verdict") });
}
