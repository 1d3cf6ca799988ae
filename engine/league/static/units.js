// The units page: /units.json and /figures.json, fetched again whenever the
// server says a unit, a result or the broker link changed.
import { el, getJson, live, refresher, when } from "/static/live.js";

const FIGURES = [["results", "Results"], ["units", "Units"], ["venues", "Venues"],
  ["players", "Players"], ["refusals", "Refused"]];

function figure(label, value) {
  const box = el("div");
  box.append(el("dt", "", label), el("dd", "", value));
  return box;
}

function cell(label, text, className = "") {
  const td = el("td", className, text);
  td.dataset.label = label;
  return td;
}

function row(unit) {
  const tr = el("tr");
  tr.dataset.unit = `${unit.venue}/${unit.unit}`;
  const name = el("td", "name", `${unit.unit} · ${unit.venue}`);
  name.title = name.textContent;
  const state = unit.state || "unknown";
  const stateCell = cell("State", "");
  stateCell.append(el("span", `state ${state}`, unit.state || "no status yet"));
  if (unit.fault) stateCell.append(el("span", "why", unit.fault));
  const last = cell("Last result", unit.last_result_id ? `${when(unit.last_result_at)}` : "none yet");
  if (unit.last_result_id) last.append(el("span", "why", unit.last_result_id));
  const refused = cell("Refused", unit.refusals ?? 0, "num");
  if (unit.last_refusal) refused.append(el("span", "why", unit.last_refusal));
  tr.append(name, stateCell, last, cell("Results", unit.results ?? 0, "num"), refused,
    cell("Version", unit.version || "—"), cell("Host", unit.host || "—"),
    cell("Last status", when(unit.status_at)));
  return tr;
}

async function load() {
  const [units, figures] = await Promise.all([getJson("/units.json"), getJson("/figures.json")]);
  const boxes = FIGURES.filter(([key]) => figures[key] !== undefined)
    .map(([key, label]) => figure(label, typeof figures[key] === "object" ?
      Object.values(figures[key]).reduce((a, b) => a + b, 0) : figures[key]));
  boxes.push(figure("Broker", figures.broker || "—"));
  document.getElementById("figures").replaceChildren(...boxes);
  const rows = units.units.map(row);
  document.querySelector("#units tbody").replaceChildren(...rows);
  document.getElementById("empty").hidden = rows.length > 0;
  const topics = units.refused_topics || [];
  document.getElementById("topics-panel").hidden = topics.length === 0;
  document.getElementById("topics").replaceChildren(...topics.map((topic) => {
    const li = el("li");
    li.append(el("span", "when", when(topic.last_refusal_at)),
      el("span", "what", `${topic.refusals} × ${topic.topic}`),
      el("span", "why", topic.last_refusal));
    return li;
  }));
}

const refresh = refresher(load);
live(() => refresh());
