// The Pitch scorekeeper: a table playing 10 Point Pitch with real cards. One page
// shows the two teams' scores, the hand-by-hand sheet and the log; opened from the
// host URL (/#host=KEY) it also has the host's forms: name the players, then enter
// each hand (dealer, pitcher, bid, the points each team took, as two numbers or by
// the point cards), undo the last one. The server checks every entry and says why it
// refuses one; this page only gathers what the host said.
import { fill, h } from "./common.js";
import { HostPage } from "./host_page.js";

const $ = (id) => document.getElementById(id);
const TEAM_CLASS = ["a", "b"];
let view = null;
let lastHand = null; // the hand number the form was last reset for
let bidsKey = "";
let cardsKey = "";
let playersKey = "";

const page = new HostPage({ onView: render });
const host = (cmd, extra) => page.send(cmd, extra);

/** A number input's value: a number, or what was typed (the server says what is wrong). */
function numberOf(input) {
  const text = input.value.trim();
  return text !== "" && Number.isInteger(Number(text)) ? Number(text) : text || null;
}

// -- the host's forms --
$("start-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const players = [0, 1, 2, 3].map((n) => $(`p${n}`).value.trim());
  const rules = [];
  for (const box of document.querySelectorAll(".house input[data-rule]")) {
    if (!box.checked) continue;
    rules.push(box.dataset.on === "on" ? box.dataset.rule : `${box.dataset.rule}=${box.dataset.on}`);
  }
  host("start", {
    players,
    target: numberOf($("target-input")),
    dealer: Number($("first-dealer").value),
    house_rules: rules.join(",") || "-",
  });
});

for (const n of [0, 1, 2, 3]) $(`p${n}`).addEventListener("input", () => dealerChoices());

$("hand-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const chosen = document.querySelector("#bids input:checked");
  const pitcher = $("pitcher").value;
  const entry = {
    dealer: Number($("dealer").value),
    pitcher: pitcher === "" ? null : Number(pitcher),
    bid: chosen ? (chosen.value === "moon" ? "moon" : Number(chosen.value)) : null,
  };
  if (mode() === "cards") {
    const cards = {};
    for (const card of view.point_cards) {
      const picked = document.querySelector(`input[name="card-${card.key}"]:checked`);
      if (picked) cards[card.key] = picked.value === "burned" ? null : Number(picked.value);
    }
    entry.cards = cards;
  } else {
    entry.taken = [numberOf($("took-0")), numberOf($("took-1"))];
  }
  host("hand", entry);
});

function mode() {
  const checked = document.querySelector('input[name="mode"]:checked');
  return checked ? checked.value : "numbers";
}

for (const radio of document.querySelectorAll('input[name="mode"]')) {
  radio.addEventListener("change", () => showMode());
}

function showMode() {
  $("numbers").hidden = mode() !== "numbers";
  $("cards-box").hidden = mode() !== "cards";
  cardsTotal();
}

$("undo").addEventListener("click", () => host("undo"));
$("retry").addEventListener("click", () => host("retry"));
page.armEnd($("end"));

// -- drawing --
function render(next) {
  view = next;
  $("room").textContent = view.code || "";
  $("paused-box").hidden = !view.paused;
  $("paused").textContent = view.paused ? `Paused: ${view.paused}` : "";
  $("retry").hidden = !(page.isHost && view.cannot_save);
  renderScores();
  renderSheet();
  renderLog();
  renderForms();
}

function teamName(team) {
  const found = (view.teams || [])[team];
  return found ? found.name : `Team ${"AB"[team]}`;
}

function renderScores() {
  const lobby = view.phase === "lobby";
  $("target").textContent = lobby ? "" : `(to ${view.target})`;
  $("lobby-note").hidden = !lobby;
  const winner = view.winner;
  const over = winner !== null && winner !== undefined;
  $("champion").hidden = !over;
  const said = over ? `${teamName(winner)} win the match!` : "";
  if (said && $("champion").textContent !== said) $("announce").textContent = view.result || said;
  $("champion").textContent = said;
  fill($("teams"), (view.teams || []).map((team) => h(
    "div",
    { class: `team ${TEAM_CLASS[team.team]}${over && team.team === winner ? " champion" : ""}`,
      "data-team": team.team },
    h("div", { class: "team-name" }, h("span", { class: `team-tag ${TEAM_CLASS[team.team]}`,
      text: "AB"[team.team] }), ` ${team.name}`),
    h("div", { class: "team-score", text: String(team.score).replace("-", "−") }),
    h("div", { class: "to-go", text: over ? "" : `${team.to_go} to go` }),
  )));
  const dealer = view.dealer;
  $("next-hand").textContent = view.phase === "playing"
    ? `Hand ${view.hand}: ${view.players[dealer]} deals`
    : (over ? view.result || "" : "");
  $("next-hand").classList.toggle("result-line", over);
  const rules = view.rules || {};
  const house = [];
  if (rules.low === "holder") house.push("the 2 counts for the team that played it");
  if (rules.made === "bid") house.push("a bid made adds only the bid");
  if (rules.ten_bid) house.push("a plain 10 bid");
  if (rules.moon_score === "after") house.push("the Moon counts the score after the hand");
  if (rules.moon_zero === "resets") house.push("the Moon at 0 does not win");
  if (rules.both_out === "higher") house.push("both out: the higher score wins");
  fill($("house"), lobby ? [] : house.map((text) => h("li", { text })));
}

function signed(n) {
  return n > 0 ? `+${n}` : (n < 0 ? `−${-n}` : "0");
}

function renderSheet() {
  const hands = view.hands || [];
  $("sheet-empty").hidden = hands.length > 0;
  fill($("sheet-head"), view.phase === "lobby" ? [] : h("tr", {},
    h("th", { scope: "col", text: "#" }),
    h("th", { scope: "col", text: "Contract" }),
    [0, 1].map((team) => h("th", { scope: "col", class: `score-col ${TEAM_CLASS[team]}` },
      h("span", { class: `team-tag ${TEAM_CLASS[team]}`, text: "AB"[team] }),
      h("span", { class: "long", text: ` ${teamName(team)}` }))),
  ));
  fill($("sheet"), hands.map((row) => {
    const took = row.taken[row.team];
    const result = row.moon
      ? (row.made ? "made" : `failed with ${took}`)
      : (row.made ? `made with ${took}` : `set with ${took}`);
    return h("tr", { "data-hand": row.number, class: row.made ? "made" : "set" },
      h("td", { class: "num", text: String(row.number) }),
      h("td", { class: "contract" },
        h("span", { class: `team-tag ${TEAM_CLASS[row.team]}`, text: "AB"[row.team] }),
        ` ${view.players[row.pitcher]} ${row.moon ? "Moon" : row.bid} `,
        h("span", { class: `result ${row.made ? "ok" : "bad"}`, text: result }),
        h("span", { class: "dealt", text: `${view.players[row.dealer]} dealt` })),
      [0, 1].map((team) => h("td", { class: `score-col ${TEAM_CLASS[team]}` },
        h("span", { class: "change", text: signed(row.change[team]) }),
        h("span", { class: "after", text: String(row.scores[team]).replace("-", "−") }))),
    );
  }));
}

function renderLog() {
  const items = (view.log || []).map((text) => /^-{3,}$/.test(text)
    ? h("li", { class: "round-line", role: "separator", "aria-label": "new hand" })
    : h("li", { text }));
  fill($("log"), items);
}

function options(select, names, chosen, placeholder) {
  const list = names.map((name, seat) => h("option", { value: String(seat), text: name }));
  if (placeholder) list.unshift(h("option", { value: "", text: placeholder }));
  fill(select, list);
  select.value = chosen === null || chosen === undefined ? "" : String(chosen);
}

function dealerChoices() {
  const names = [0, 1, 2, 3].map((n) => $(`p${n}`).value.trim() || `Player ${n + 1}`);
  const keep = $("first-dealer").value;
  options($("first-dealer"), names, keep === "" ? 0 : keep);
}

function renderForms() {
  const phase = view.phase;
  const playing = phase === "playing";
  $("start-form").hidden = playing;
  $("start").textContent = phase === "match_over" ? "Start a new match" : "Start the match";
  const players = view.players || [];
  if (players.length === 4 && [0, 1, 2, 3].every((n) => !$(`p${n}`).value.trim())) {
    players.forEach((name, n) => { $(`p${n}`).value = name; });
  }
  if (!$("first-dealer").options.length) dealerChoices();
  $("hand-form").hidden = !playing;
  $("end").hidden = phase === "lobby";
  $("undo").disabled = !view.undo || !!view.paused;
  $("undo").textContent = view.undo ? `Undo ${view.undo}` : "Undo";
  if (!playing) return;
  const key = players.join("\n");
  if (key !== playersKey) {
    playersKey = key;
    options($("pitcher"), players, null, "— who won the bid —");
    options($("dealer"), players, view.dealer);
    $("took-0-label").textContent = `${teamName(0)} took`;
    $("took-1-label").textContent = `${teamName(1)} took`;
    cardsKey = "";
  }
  renderBids();
  renderPointCards();
  if (view.hand !== lastHand) resetHand();
  $("hand-h").textContent = `Hand ${view.hand}`;
  $("score-hand").textContent = `Score hand ${view.hand}`;
  $("score-hand").disabled = !!view.paused;
}

/** A new hand (or one undone): the form starts empty, the next dealer chosen. */
function resetHand() {
  lastHand = view.hand;
  $("dealer").value = String(view.dealer);
  $("pitcher").value = "";
  for (const input of document.querySelectorAll("#bids input, #point-cards input")) input.checked = false;
  $("took-0").value = "";
  $("took-1").value = "";
  cardsTotal();
}

function pill(name, value, text, attrs = {}, inputAttrs = {}) {
  return h("label", { class: "pill", ...attrs },
    h("input", { type: "radio", name, value, ...inputAttrs }),
    h("span", { text }));
}

function renderBids() {
  const key = JSON.stringify(view.bids);
  if (key === bidsKey) return;
  bidsKey = key;
  const legend = $("bids").querySelector("legend");
  fill($("bids"), legend, view.bids.map((bid) => pill("bid", String(bid.value), bid.text,
    { "data-bid": bid.value })));
}

function renderPointCards() {
  const key = JSON.stringify([view.point_cards, view.teams.map((t) => t.name)]);
  if (key === cardsKey) return;
  cardsKey = key;
  fill($("point-cards-head"), h("tr", {},
    h("th", { scope: "col", text: "Point card" }),
    [0, 1].map((team) => h("th", { scope: "col", class: `team-col ${TEAM_CLASS[team]}` },
      h("span", { class: `team-tag ${TEAM_CLASS[team]}`, text: "AB"[team] }),
      h("span", { class: "team-col-name", text: ` ${teamName(team)}` }))),
    h("th", { scope: "col", text: "burned" })));
  fill($("point-cards"), view.point_cards.map((card) => h("tr", { "data-card": card.key },
    h("th", { scope: "row", title: card.label },
      h("span", { class: "card-name", text: card.name }),
      h("span", { class: "card-note", text: ` ${card.note}` })),
    [0, 1].map((team) => h("td", {}, pill(`card-${card.key}`, String(team), "AB"[team],
      { class: `pill ${TEAM_CLASS[team]}`, "data-team": team },
      { "aria-label": `${card.label}: ${teamName(team)}` }))),
    h("td", {}, pill(`card-${card.key}`, "burned", "–", { "data-team": "burned" },
      { "aria-label": `${card.label}: burned` })),
  )));
  for (const input of $("point-cards").querySelectorAll("input")) {
    input.addEventListener("change", () => cardsTotal());
  }
}

/** The points the ticked cards make, as the host goes (the server counts them again). */
function cardsTotal() {
  if (!view || !view.point_cards) return;
  const sums = [0, 0, 0];
  let said = 0;
  for (const card of view.point_cards) {
    const picked = document.querySelector(`input[name="card-${card.key}"]:checked`);
    if (!picked) continue;
    said += 1;
    sums[picked.value === "burned" ? 2 : Number(picked.value)] += card.worth;
  }
  const left = view.point_cards.length - said;
  $("cards-total").textContent = `${teamName(0)} ${sums[0]} · ${teamName(1)} ${sums[1]} · burned ${sums[2]}`
    + (left ? ` · ${left} card${left === 1 ? "" : "s"} still to say` : "");
}
