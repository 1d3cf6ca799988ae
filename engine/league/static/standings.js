// The standings page: /standings.json with the page's filters, fetched again
// whenever the server says results changed.
import { el, getJson, live, ms, refresher, when } from "/static/live.js";

const FILTERS = ["venue", "day", "players"];
const COLUMNS = [
  ["wins", "Wins"], ["losses", "Losses"], ["showdowns", "Showdowns"],
  ["false_starts", "False starts"], ["median_us", "Median", ms], ["best_us", "Best", ms],
  ["matches", "Matches"], ["match_wins", "Match wins"],
];
const params = new URLSearchParams(location.search);
let seen = new Map(); // player key -> wins, to light the rows that changed

function options(select, values, empty) {
  const chosen = params.get(select.id) || "";
  const wanted = ["", ...values];
  if (chosen && !wanted.includes(chosen)) wanted.push(chosen);
  select.replaceChildren(...wanted.map((value) => {
    const option = el("option", "", value || empty);
    option.value = value;
    option.selected = value === chosen;
    return option;
  }));
}

function row(player, rank) {
  const tr = el("tr");
  tr.dataset.player = player.player;
  tr.append(el("td", "num rank", rank));
  const name = el("td", "name");
  const who = el("span", "who", player.player);
  who.title = player.player;
  name.append(who);
  if (player.bot) name.append(el("span", "badge bot", "bot"));
  tr.append(name);
  for (const [key, label, format] of COLUMNS) {
    const td = el("td", "num", format ? format(player[key]) : player[key]);
    td.dataset.label = label;
    tr.append(td);
  }
  const key = `${player.bot ? "bot" : "person"}:${player.player}`;
  if (seen.has(key) && seen.get(key) !== player.wins) tr.classList.add("new");
  return [tr, key];
}

function outcomeWords(result) {
  const outcomes = result.outcomes || [];
  const name = (o) => (o.bot ? `${o.player} (bot)` : o.player);
  const won = outcomes.filter((o) => o.outcome === "win").map(name);
  const lost = outcomes.filter((o) => o.outcome === "loss").map(name);
  let words = won.length && lost.length ? `${won.join(", ")} beat ${lost.join(", ")}`
    : outcomes.map(name).join(" v ") + ": no winner";
  if (result.kind === "match") words = `match: ${words}`;
  const reactions = outcomes.filter((o) => o.reaction_us !== null && o.reaction_us !== undefined)
    .map((o) => `${o.player} ${ms(o.reaction_us)}`);
  const fouls = outcomes.filter((o) => o.false_start).map((o) => `${o.player} false start`);
  const extra = [...reactions, ...fouls];
  return extra.length ? `${words} (${extra.join(", ")})` : words;
}

async function load() {
  const query = new URLSearchParams();
  for (const name of FILTERS) if (params.get(name)) query.set(name, params.get(name));
  const data = await getJson(`/standings.json?${query}`);
  options(document.getElementById("venue"), data.venues, "every venue");
  options(document.getElementById("day"), data.days, "every day");
  document.getElementById("players").value = data.players;
  const who = { people: "people", bots: "bots", all: "people and bots" }[data.players];
  const where = [data.venue, data.day].filter(Boolean).join(", ");
  document.getElementById("standings-h").textContent =
    `Standings — ${who}${where ? ` — ${where}` : ""}`;
  const next = new Map();
  const rows = data.standings.map((player, index) => {
    const [tr, key] = row(player, index + 1);
    next.set(key, player.wins);
    return tr;
  });
  seen = next;
  document.querySelector("#standings tbody").replaceChildren(...rows);
  document.getElementById("empty").hidden = rows.length > 0;
  document.getElementById("recent").replaceChildren(...data.recent.map((result) => {
    const li = el("li");
    li.append(el("span", "when", when(result.at)), el("span", "what", outcomeWords(result)),
      el("span", "where", `${result.unit} · ${result.venue}`));
    return li;
  }));
}

const refresh = refresher(load);
for (const name of FILTERS) {
  document.getElementById(name).addEventListener("change", (event) => {
    if (event.target.value && !(name === "players" && event.target.value === "people")) {
      params.set(name, event.target.value);
    } else {
      params.delete(name);
    }
    history.replaceState(null, "", `${location.pathname}${params.size ? `?${params}` : ""}`);
    refresh();
  });
}
live((what) => { if (what.includes("results")) refresh(); });
