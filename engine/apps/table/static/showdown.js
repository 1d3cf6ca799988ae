// The showdown panel, drawn the same on the display and the companion page: who
// faces whom, the cards loaded, each countdown step, GO, the verdict with both
// reaction times and the margin, the false-start arrow, the re-runs; with beeps.
import { fill, h, seatName } from "./common.js";

let lastShowdownKey = "";
let lastVerdict = "";

// -- sounds: Web Audio beeps, off until someone switches them on (a user gesture) --
export const sound = {
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

/** The sound switch: off until pressed (browsers allow audio only after a gesture). */
export function soundSwitch(button) {
  button.addEventListener("click", () => {
    sound.on = !sound.on;
    if (sound.on && !sound.ctx) {
      const Ctx = window.AudioContext || window.webkitAudioContext;
      if (Ctx) sound.ctx = new Ctx();
    }
    if (sound.ctx && sound.on) sound.ctx.resume();
    button.setAttribute("aria-pressed", String(sound.on));
    button.textContent = sound.on ? "Sound: on" : "Sound: off";
    sound.beep(660, 80);
  });
}

/**
 * Draw `view.showdown` into `body`; on each change of stage or step, beep and
 * tell screen readers (`announce.announce` politely, `announce.verdict` at once).
 */
export function showShowdown(body, view, announce) {
  const sd = view.showdown;
  if (!sd) {
    fill(body, h("p", { class: "status", text: "No showdown right now." }));
    lastShowdownKey = "";
    lastVerdict = "";
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
    const reactions = reactionText(view, sd);
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
    if (sd.stage === "armed") announce.announce.textContent = `Showdown: ${a} against ${b}, ${cards} cards`;
    if (sd.stage === "countdown") sound.beep(440, 120);
    if (sd.stage === "go") sound.beep(880, 400);
    if (sd.stage === "decided") {
      sound.beep(660, 150);
      sound.beep(330, 300, 0.18);
    }
  }
  // the verdict's words may come after the unit's result event: said when they change
  const said = sd.stage === "decided" ? sd.verdict || reactionText(view, sd) : "";
  if (said && said !== lastVerdict) {
    lastVerdict = said;
    announce.verdict.textContent = said;
  }
}

function reactionText(view, sd) {
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
