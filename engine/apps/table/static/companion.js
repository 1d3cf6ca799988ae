// Companion mode: a table playing with real cards. One page is the display and the
// host's controls: the scoreboard, the showdown mirrored live from the unit, the
// log; forms to name the players, start a showdown, score a round, undo. Opened from
// the host URL (/#host=KEY) it is the host's page; without the key a spectator's,
// which shows the score and draws no host controls.
import { fill, h, seatName } from "./common.js";
import { HostPage } from "./host_page.js";
import { showShowdown, soundSwitch } from "./showdown.js";

const $ = (id) => document.getElementById(id);
let view = null;
let playersKey = "";
let handsKey = "";
let lastRound = null;
let lastVerdict = null;
const handValues = new Map(); // seat -> what the host typed for that hand

const page = new HostPage({
  onView: render,
  onWelcome: ({ isHost, hostKey }) => {
    $("panel-link").href = isHost ? `/panel#host=${encodeURIComponent(hostKey)}` : "/panel";
  },
});
const host = (cmd, extra) => page.send(cmd, extra);

// -- the host's forms --
$("start-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const players = $("players").value.split("\n").map((n) => n.trim()).filter((n) => n);
  host("start", { players, target: Number($("target-input").value) });
});

$("showdown-form").addEventListener("submit", (event) => {
  event.preventDefault();
  host("showdown", {
    challenger: Number($("challenger").value),
    opponent: Number($("opponent").value),
    cards: Number($("cards").value),
  });
});

$("round-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const winner = Number($("winner").value);
  const total = $("total").value.trim();
  if (total) {
    host("round", { winner, points: total });
    return;
  }
  const hands = {};
  for (const input of $("hands").querySelectorAll("input[data-seat]")) {
    hands[input.dataset.seat] = input.value.trim();
  }
  host("round", { winner, hands });
});

$("winner").addEventListener("change", () => renderHands());

$("undo").addEventListener("click", () => host("undo"));
page.armEnd($("end"));

soundSwitch($("mute"));

// -- drawing --
function render(next) {
  view = next;
  $("room").textContent = view.code || "";
  renderPaused();
  renderBoard();
  renderShowdown();
  renderLog();
  renderForms();
}

function renderPaused() {
  const paused = view.paused;
  $("paused-box").hidden = !paused;
  $("paused").textContent = paused ? `Paused: ${paused}` : "";
  const buttons = [];
  const sd = view.showdown;
  if (paused && page.isHost) {
    buttons.push(h("button", { type: "button", id: "retry", text: view.cannot_save ? "Retry" : "Retry the showdown",
      onclick: () => host("retry") }));
    if (view.busy && sd && !view.cannot_save) {
      for (const seat of [sd.challenger, sd.opponent]) {
        buttons.push(h("button", { type: "button", "data-loser": seat,
          text: `${seatName(view, seat)} took the cards`, onclick: () => host("decide", { loser: seat }) }));
      }
    }
    if (view.busy && !view.cannot_save) {
      buttons.push(h("button", { type: "button", id: "cancel", text: "Drop the showdown",
        onclick: () => host("cancel") }));
    }
  }
  fill($("pause-actions"), buttons);
}

function renderBoard() {
  const seats = view.seats || [];
  const best = Math.max(0, ...seats.map((s) => s.score));
  $("target").textContent = view.target ? `(to ${view.target})` : "";
  $("round").textContent = view.phase === "playing" ? `· round ${view.round}` : "";
  $("lobby-note").hidden = view.phase !== "lobby";
  const champion = view.winner;
  const hasChampion = champion !== null && champion !== undefined;
  $("champion").hidden = !hasChampion;
  const said = hasChampion ? `${seatName(view, champion)} wins the match!` : "";
  if (said && $("champion").textContent !== said) $("announce").textContent = said;
  $("champion").textContent = said;
  const rows = view.phase === "lobby" ? [] : seats.map((seat) => h(
    "tr",
    { class: [seat.seat === champion ? "champion" : "", best > 0 && seat.score === best ? "leader" : ""].join(" ").trim(),
      "data-seat": seat.seat },
    h("td", { text: seat.name, title: seat.name }),
    h("td", { class: "points", text: String(seat.score) }),
    h("td", { class: "took", text: seat.taken ? `+${seat.taken} cards` : "" }),
  ));
  fill($("board"), rows);
}

function renderShowdown() {
  showShowdown($("showdown-body"), view, { announce: $("announce"), verdict: $("announce-verdict") });
  const sd = view.showdown;
  const decided = sd && sd.stage === "decided" && sd.loser !== null && sd.loser !== undefined;
  // A real unit's result event reaches "decided" before the verdict's words do:
  // say the verdict when its words arrive.
  if (decided && sd.verdict && sd.verdict !== lastVerdict) {
    $("announce-verdict").textContent = `${sd.verdict}. ${seatName(view, sd.loser)} took the cards.`;
  }
  lastVerdict = decided ? sd.verdict : null;
  $("took").hidden = !decided;
  $("took").textContent = decided ? `${seatName(view, sd.loser)} took ${sd.cards} card${sd.cards === 1 ? "" : "s"}` : "";
}

function renderLog() {
  const items = (view.log || []).map((text) => /^-{3,}$/.test(text)
    ? h("li", { class: "round-line", role: "separator", "aria-label": "new round" })
    : h("li", { text }));
  fill($("log"), items);
}

function options(select, players, fallback) {
  const keep = select.value;
  fill(select, players.map((name, seat) => h("option", { value: String(seat), text: name })));
  select.value = keep !== "" && Number(keep) < players.length ? keep : String(fallback);
}

function renderForms() {
  const phase = view.phase;
  const playing = phase === "playing";
  const players = view.players || [];
  $("start-form").hidden = playing;
  $("start").textContent = phase === "match_over" ? "Start a new match" : "Start the match";
  if (!$("players").value.trim() && players.length) $("players").value = players.join("\n");
  $("showdown-form").hidden = !playing;
  $("round-form").hidden = !playing;
  $("end").hidden = phase === "lobby";
  const key = players.join("\n");
  if (key !== playersKey) {
    playersKey = key;
    handValues.clear();
    options($("challenger"), players, 0);
    options($("opponent"), players, 1);
    options($("winner"), players, 0);
  }
  $("cards").max = String(view.max_cards || 10);
  const busy = !!view.busy || !!view.paused;
  $("fight").disabled = busy;
  $("end-round").disabled = busy;
  $("undo").disabled = !view.undo || busy;
  $("undo").textContent = view.undo ? `Undo: ${view.undo}` : "Undo";
  if (playing && view.round !== lastRound) {
    // a new round (or an undone one): the hands start empty
    lastRound = view.round;
    handValues.clear();
    $("total").value = "";
    handsKey = "";
  }
  renderHands();
}

function renderHands() {
  const players = (view && view.players) || [];
  const winner = Number($("winner").value);
  const key = `${players.join("\n")}|${winner}`;
  if (key === handsKey) return;
  for (const input of $("hands").querySelectorAll("input[data-seat]")) {
    handValues.set(input.dataset.seat, input.value);
  }
  handsKey = key;
  const legend = $("hands").querySelector("legend");
  const fields = [];
  players.forEach((name, seat) => {
    if (seat === winner) return;
    const id = `hand-${seat}`;
    fields.push(h("label", { for: id, text: name }));
    const input = h("input", { id, "data-seat": seat, autocomplete: "off", spellcheck: "false",
      placeholder: "points or cards" });
    input.value = handValues.get(String(seat)) || "";
    fields.push(input);
  });
  fill($("hands"), legend, fields);
}
