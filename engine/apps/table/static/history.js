// The history page: for each player, reaction times showdown by showdown (an SVG line
// with a point per showdown) and their distribution (an SVG histogram), wins, losses,
// false starts, the median; bots apart from people. Reads /history.json; drawn by hand,
// no library. Each chart has a text summary and a table of its figures.
import { fill, h } from "/static/common.js";

const SVG = "http://www.w3.org/2000/svg";
const OUTCOME_WORDS = {
  won: "won",
  lost: "lost",
  false_start: "false start (lost)",
  undecided: "no loser",
};
const LEGEND = [
  ["won", "●", "won"],
  ["lost", "○", "lost"],
  ["false_start", "✕", "false start"],
  ["undecided", "◆", "no loser"],
];

let data = null;
let uid = 0;

/** An SVG element with attributes and children. */
function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined) continue;
    if (key === "text") el.textContent = value;
    else el.setAttribute(key, String(value));
  }
  el.append(...children.flat().filter((c) => c !== null && c !== undefined));
  return el;
}

const msText = (us) => (us === null || us === undefined ? "—" : `${(us / 1000).toFixed(1)} ms`);
const msShort = (value) => `${Math.round(value)}`;

function when(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

/** A round step for about `count` ticks over `span` (1, 2, 2.5, 5 x 10^k). */
function niceStep(span, count) {
  const raw = Math.max(span, 1e-9) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  for (const factor of [1, 2, 2.5, 5, 10]) {
    if (raw <= factor * power) return factor * power;
  }
  return 10 * power;
}

function pointTitle(name, point) {
  const reaction = point.reaction_us === null ? "no time" : msText(point.reaction_us);
  const bot = point.against_bot ? " (bot)" : "";
  return (
    `${name}, showdown ${point.n} (${point.showdown_id}), ${when(point.recorded_at)}: ` +
    `${reaction}, ${OUTCOME_WORDS[point.outcome] || point.outcome} against ${point.against}${bot}`
  );
}

/** The mark of one showdown: a circle for a timed press, a cross for a false start. */
function mark(point, x, y, title) {
  const attrs = { "data-n": point.n, "data-outcome": point.outcome };
  const titleEl = s("title", { text: title });
  if (point.outcome === "false_start") {
    const d = `M${x - 6} ${y - 6}L${x + 6} ${y + 6}M${x - 6} ${y + 6}L${x + 6} ${y - 6}`;
    return s("path", { ...attrs, class: "pt false_start", d }, titleEl);
  }
  if (point.outcome === "undecided") {
    const d = `M${x} ${y - 7}L${x + 7} ${y}L${x} ${y + 7}L${x - 7} ${y}Z`;
    return s("path", { ...attrs, class: "pt undecided", d }, titleEl);
  }
  return s("circle", { ...attrs, class: `pt ${point.outcome}`, cx: x, cy: y, r: 6 }, titleEl);
}

/** Reaction times showdown by showdown; showdowns with no time sit on the "no time" row. */
function timeline(player, width, labelId) {
  const H = 280;
  const left = 64;
  const right = 14;
  const top = 26;
  const plotBottom = 196;
  const bandY = 222;
  const plotW = width - left - right;
  const points = player.points;
  const timed = points.filter((p) => p.reaction_us !== null).map((p) => p.reaction_us / 1000);
  const svg = s("svg", {
    class: "chart timeline",
    viewBox: `0 0 ${width} ${H}`,
    width,
    height: H,
    role: "img",
    "aria-labelledby": labelId,
  });
  const n = points.length;
  const x = (i) => (n === 1 ? left + plotW / 2 : left + ((i - 1) / (n - 1)) * plotW);
  let low = timed.length ? Math.min(...timed) : 200;
  let high = timed.length ? Math.max(...timed) : 400;
  const step = niceStep(high - low || 50, 4);
  low = Math.floor(low / step) * step;
  high = Math.ceil(high / step) * step;
  if (high === low) high = low + step;
  const y = (valueMs) => plotBottom - ((valueMs - low) / (high - low)) * (plotBottom - top);
  for (let tick = low; tick <= high + step / 2; tick += step) {
    svg.append(
      s("line", { class: "grid", x1: left, x2: width - right, y1: y(tick), y2: y(tick) }),
      s("text", { x: left - 6, y: y(tick) + 4, "text-anchor": "end", text: msShort(tick) }),
    );
  }
  svg.append(
    s("text", { x: left - 6, y: 12, "text-anchor": "end", text: "ms" }),
    s("line", { class: "axis", x1: left, x2: left, y1: top, y2: plotBottom }),
    s("line", { class: "axis", x1: left, x2: width - right, y1: plotBottom, y2: plotBottom }),
    s("text", { x: left - 6, y: bandY + 4, "text-anchor": "end", text: "no time" }),
    s("line", { class: "grid", x1: left, x2: width - right, y1: bandY, y2: bandY }),
  );
  // x labels: the first, the last and a few between
  const labelEvery = Math.max(1, Math.ceil(n / Math.max(2, Math.floor(plotW / 48))));
  for (const point of points) {
    if (point.n === 1 || point.n === n || point.n % labelEvery === 0) {
      if (point.n !== n && n - point.n < labelEvery / 2) continue;
      svg.append(s("text", { x: x(point.n), y: bandY + 30, "text-anchor": "middle", text: point.n }));
    }
  }
  svg.append(
    s("text", {
      x: left + plotW / 2,
      y: H - 4,
      "text-anchor": "middle",
      text: "showdown, oldest first",
    }),
  );
  const path = points
    .filter((p) => p.reaction_us !== null)
    .map((p, i) => `${i ? "L" : "M"}${x(p.n).toFixed(1)} ${y(p.reaction_us / 1000).toFixed(1)}`)
    .join("");
  if (path) svg.append(s("path", { class: "line", d: path }));
  if (player.median_reaction_us !== null) {
    const my = y(player.median_reaction_us / 1000);
    svg.append(
      s("line", { class: "median", x1: left, x2: width - right, y1: my, y2: my }),
      s("text", {
        class: "median-label",
        x: width - right - 2,
        y: my - 5,
        "text-anchor": "end",
        text: `median ${msText(player.median_reaction_us)}`,
      }),
    );
  }
  const marks = s("g", { class: "points" });
  for (const point of points) {
    const py = point.reaction_us === null ? bandY : y(point.reaction_us / 1000);
    marks.append(mark(point, x(point.n), py, pointTitle(player.name, point)));
  }
  svg.append(marks);
  return svg;
}

/** How many reactions fell in each bin. */
function histogram(player, width, labelId) {
  const H = 220;
  const left = 40;
  const right = 10;
  const top = 18;
  const bottom = 176;
  const bins = player.bins;
  const svg = s("svg", {
    class: "chart histogram",
    viewBox: `0 0 ${width} ${H}`,
    width,
    height: H,
    role: "img",
    "aria-labelledby": labelId,
  });
  const most = Math.max(1, ...bins.map((b) => b.count));
  const plotW = width - left - right;
  const barW = plotW / bins.length;
  const y = (count) => bottom - (count / most) * (bottom - top);
  const step = niceStep(most, 3) < 1 ? 1 : Math.ceil(niceStep(most, 3));
  for (let tick = 0; tick <= most; tick += step) {
    svg.append(
      s("line", { class: "grid", x1: left, x2: width - right, y1: y(tick), y2: y(tick) }),
      s("text", { x: left - 6, y: y(tick) + 4, "text-anchor": "end", text: tick }),
    );
  }
  const labelEvery = Math.max(1, Math.ceil(bins.length / Math.max(1, Math.floor(plotW / 46))));
  bins.forEach((bin, i) => {
    const x0 = left + i * barW;
    const range = `${msShort(bin.from_us / 1000)}–${msShort(bin.to_us / 1000)} ms`;
    const count = `${bin.count} ${bin.count === 1 ? "showdown" : "showdowns"}`;
    svg.append(
      s(
        "rect",
        {
          class: "bar",
          x: x0 + 1,
          y: y(bin.count),
          width: Math.max(1, barW - 2),
          height: bottom - y(bin.count),
          "data-from-us": bin.from_us,
          "data-count": bin.count,
        },
        s("title", { text: `${range}: ${count}` }),
      ),
    );
    if (bin.count) {
      svg.append(
        s("text", {
          class: "count",
          x: x0 + barW / 2,
          y: y(bin.count) - 4,
          "text-anchor": "middle",
          text: bin.count,
        }),
      );
    }
    if (i % labelEvery === 0) {
      svg.append(
        s("text", { x: x0, y: bottom + 16, "text-anchor": "middle", text: msShort(bin.from_us / 1000) }),
      );
    }
  });
  const last = bins[bins.length - 1];
  if (bins.length % labelEvery === 0 || labelEvery === 1) {
    svg.append(
      s("text", {
        x: left + plotW,
        y: bottom + 16,
        "text-anchor": "end",
        text: msShort(last.to_us / 1000),
      }),
    );
  }
  svg.append(
    s("line", { class: "axis", x1: left, x2: width - right, y1: bottom, y2: bottom }),
    s("text", {
      x: left + plotW / 2,
      y: H - 6,
      "text-anchor": "middle",
      text: "reaction time after GO (ms); bar height: showdowns",
    }),
  );
  return svg;
}

function showdownTable(player) {
  const rows = player.points.map((point) =>
    h(
      "tr",
      {},
      h("td", { class: "num", text: point.n }),
      h("td", { text: when(point.recorded_at) }),
      h("td", { text: point.against + (point.against_bot ? " (bot)" : "") }),
      h("td", { class: "num", text: msText(point.reaction_us) }),
      h("td", { text: OUTCOME_WORDS[point.outcome] || point.outcome }),
    ),
  );
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      { class: "rows" },
      h("caption", { class: "visually-hidden", text: `${player.name}: every showdown` }),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          ...["#", "when", "against", "reaction", "outcome"].map((t) => h("th", { scope: "col", text: t })),
        ),
      ),
      h("tbody", {}, rows),
    ),
  );
}

function binTable(player) {
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      { class: "rows" },
      h("caption", { class: "visually-hidden", text: `${player.name}: reaction times in bins` }),
      h("thead", {}, h("tr", {}, h("th", { scope: "col", text: "reaction" }), h("th", { scope: "col", text: "showdowns" }))),
      h(
        "tbody",
        {},
        player.bins.map((bin) =>
          h(
            "tr",
            {},
            h("td", { text: `${msShort(bin.from_us / 1000)} to ${msShort(bin.to_us / 1000)} ms` }),
            h("td", { class: "num", text: bin.count }),
          ),
        ),
      ),
    ),
  );
}

function figure(label, value) {
  return h("div", {}, h("dt", { text: label }), h("dd", { text: value }));
}

function playerCard(player, width) {
  const id = `p${++uid}`;
  const summaryId = `${id}-summary`;
  const lineTitle = `${id}-line`;
  const histTitle = `${id}-hist`;
  const card = h(
    "article",
    { class: "player panel", "data-player": player.name, "data-bot": player.bot ? "true" : "false" },
    h("h3", {}, player.name, player.bot ? h("span", { class: "badge bot", text: " bot" }) : null),
    h(
      "dl",
      { class: "figures" },
      figure("showdowns", player.showdowns),
      figure("wins", player.wins),
      figure("losses", player.losses),
      figure("false starts", player.false_starts),
      figure("median", msText(player.median_reaction_us)),
      figure("best", msText(player.best_reaction_us)),
    ),
    h("p", { class: "summary", id: summaryId, text: player.summary }),
  );
  card.append(
    h("h4", { id: lineTitle, text: "Reaction time, showdown by showdown" }),
    timeline(player, width, `${lineTitle} ${summaryId}`),
    h(
      "ul",
      { class: "legend", "aria-hidden": "true" },
      LEGEND.map(([cls, symbol, words]) => h("li", { class: cls, text: `${symbol} ${words}` })),
      h("li", { class: "median-key", text: "- - median" }),
    ),
  );
  if (player.bins.length) {
    card.append(
      h("h4", { id: histTitle, text: "How the reaction times spread" }),
      histogram(player, width, `${histTitle} ${summaryId}`),
    );
  }
  card.append(
    h("details", {}, h("summary", { text: "Every showdown, as a table" }), showdownTable(player)),
  );
  if (player.bins.length) {
    card.append(
      h("details", {}, h("summary", { text: "The spread, as a table" }), binTable(player)),
    );
  }
  return card;
}

function chartWidth() {
  const main = document.querySelector("main");
  const room = main ? main.clientWidth - 24 : 600;
  const columns = room >= 1160 ? 2 : 1;
  return Math.max(280, Math.min(760, Math.floor((room - 14 * (columns - 1)) / columns) - 40));
}

function render() {
  if (!data) return;
  const width = chartWidth();
  const shown = data.showdowns === 1 ? "1 showdown" : `${data.showdowns} showdowns`;
  const range =
    data.showdowns > 0 ? `, ${when(data.first_at)} to ${when(data.last_at)}` : "";
  const more = data.more ? ` (the latest ${data.limit}; older ones are not shown)` : "";
  document.getElementById("source").textContent = `From ${data.source}: ${shown}${range}${more}.`;
  const notes = document.getElementById("notes");
  fill(notes, (data.notes || []).map((text) => h("li", { text })));
  notes.hidden = !(data.notes || []).length;
  for (const [key, empty] of [
    ["people", "No showdown between people yet."],
    ["bots", "No bot has played a showdown yet."],
  ]) {
    const players = data[key] || [];
    fill(
      document.getElementById(key),
      players.length ? players.map((p) => playerCard(p, width)) : h("p", { class: "empty", text: empty }),
    );
  }
}

async function load() {
  const status = document.getElementById("status");
  const problem = document.getElementById("problem");
  status.textContent = "loading…";
  let body;
  let ok = false;
  try {
    const response = await fetch(`/history.json${location.search}`, { cache: "no-store" });
    ok = response.ok;
    body = await response.json();
  } catch (error) {
    body = { error: `the table server did not answer (${error.message})`, what_to_do: "Check that it runs, then Refresh." };
  }
  if (!ok) {
    problem.textContent = `${body.error}. ${body.what_to_do || ""}`.trim();
    problem.hidden = false;
    status.textContent = "could not read the history";
    return;
  }
  problem.hidden = true;
  data = body;
  render();
  status.textContent = `updated ${new Date().toLocaleTimeString()}`;
}

let resizeTimer = null;
window.addEventListener("resize", () => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(render, 150);
});
document.getElementById("refresh").addEventListener("click", load);
load();
