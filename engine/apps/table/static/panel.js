// The unit panel: the unit drawn live from its outputs (docs/protocol.md, "Watching the
// outputs"), as the server's /panel/ws sends them. On a unit on mock pins a paddle is
// pressed by holding it down (mouse, touch, or Enter/Space on the focused paddle) and
// the timer button by a click; the unit's own outputs then show the paddle down.
// Pressing is a host control: the panel opened from the host's display carries the
// host's key on in its URL fragment (#host=KEY) and says it in its hello; without it
// the panel only watches, and a press is refused in words.
import { Link, fill, h } from "./common.js";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const STATES = {
  idle: "idle",
  armed: "armed: waiting for the timer button",
  countdown: "countdown",
  hold: "hold: wait for GO",
  go: "GO",
  false_start: "false start",
  resolved: "decided",
  launching: "launching the cards",
  timeout: "nobody pressed in time",
  selftest: "self-test",
  fault: "fault",
};

let view = null;
let lastState = "";
// The host's key, carried on from the host's display (the fragment: never sent in a request).
let hostKey = new URLSearchParams(location.hash.slice(1)).get("host");
const holding = new Set(); // the sides this page holds down

class PanelLink extends Link {
  url() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    return `${scheme}//${location.host}/panel/ws`;
  }
}

const link = new PanelLink({
  onOpen(l) {
    l.send({ type: "hello", host_key: hostKey });
  },
  onMessage(message) {
    if (message.type === "panel") draw(message);
    else if (message.type === "welcome") welcomed(message);
    else if (message.type === "refused") refused(message.message);
  },
  onStatus(status) {
    $("status").textContent = { connecting: "connecting…", connected: "connected", reconnecting: "reconnecting…" }[status] || status;
    $("status").classList.toggle("down", status !== "connected");
  },
});

function welcomed(welcome) {
  $("watch-note").hidden = welcome.host === true;
  if (welcome.host !== true && hostKey) { // a wrong or replaced key: not tried again
    hostKey = null;
    history.replaceState(null, "", location.pathname + location.search);
  }
  if (welcome.message) refused(welcome.message);
}

function refused(text) {
  const box = $("refused");
  box.textContent = text;
  box.hidden = false;
  clearTimeout(refused.timer);
  refused.timer = setTimeout(() => (box.hidden = true), 8000);
}

function lit(el, on) {
  el.classList.toggle("lit", Boolean(on));
  el.dataset.lit = on ? "true" : "false";
}

function onOff(on) {
  return on ? "on" : "off";
}

function leds(count) {
  const group = $("leds");
  if (group.childElementCount === count) return;
  const nodes = [];
  const gap = 120;
  const first = 450 - ((count - 1) * gap) / 2;
  for (let i = 0; i < count; i++) {
    const circle = document.createElementNS(SVG, "circle");
    circle.setAttribute("id", `led-${i}`);
    circle.setAttribute("class", "led");
    circle.setAttribute("cx", String(first + i * gap));
    circle.setAttribute("cy", "100");
    circle.setAttribute("r", "32");
    const label = document.createElementNS(SVG, "text");
    label.setAttribute("x", String(first + i * gap));
    label.setAttribute("y", "108");
    label.setAttribute("text-anchor", "middle");
    label.textContent = String(i + 1);
    nodes.push(circle, label);
  }
  group.replaceChildren(...nodes);
}

function draw(next) {
  view = next;
  const out = view.outputs;
  $("where").textContent = view.simulated
    ? "The simulated unit: its people press for themselves."
    : `The unit at ${view.unit}`;
  $("help").textContent = view.bench
    ? "A unit on mock pins: hold a paddle down to press it (mouse, touch, or Enter/Space), click the timer button to start."
    : view.simulated
      ? ""
      : "A unit with real pins: its paddles are pressed by hand.";
  const problem = $("problem");
  problem.hidden = !view.problem;
  problem.textContent = view.problem || "";
  const names = view.players || {};
  for (const side of ["a", "b"]) {
    const name = names[side];
    $(`paddle-${side}-name`).textContent = name ? name : `paddle ${side.toUpperCase()}`;
  }
  if (!out) {
    fill($("facts"), h("div", {}, h("dt", { text: "Outputs" }), h("dd", { text: "cannot be read" })));
    return;
  }
  leds(out.leds.length);
  const on = out.leds.filter(Boolean).length;
  out.leds.forEach((value, i) => lit($(`led-${i}`), value));
  $("countdown").setAttribute("aria-label", `countdown bar: ${on} of ${out.leds.length} lit`);
  lit($("go"), out.go);
  lit($("go-text"), out.go);
  $("go-light").setAttribute("aria-label", `GO light: ${onOff(out.go)}`);
  for (const side of ["a", "b"]) {
    lit($(`arrow-${side}`), out.arrows[side]);
    $(`arrow-${side}-light`).setAttribute("aria-label", `false-start arrow ${side.toUpperCase()}: ${onOff(out.arrows[side])}`);
    const paddle = $(`paddle-${side}`);
    const down = Boolean(out.paddles[side]);
    paddle.classList.toggle("pressed", down);
    paddle.dataset.pressed = down ? "true" : "false";
    paddle.setAttribute("aria-pressed", down ? "true" : "false");
    const who = names[side] ? ` (${names[side]})` : "";
    paddle.setAttribute("aria-label", `Paddle ${side.toUpperCase()}${who}: ${down ? "down" : "up"}`);
  }
  const buzzer = out.buzzer;
  lit($("buzzer"), buzzer);
  $("buzzer-group").classList.toggle("buzzer-on", Boolean(buzzer));
  $("buzzer-label").textContent = buzzer === null ? "no buzzer" : "buzzer";
  $("buzzer-group").setAttribute("aria-label", buzzer === null ? "no buzzer" : `buzzer: ${onOff(buzzer)}`);
  const motor = out.motor;
  const dir = motor.direction;
  const speed = Math.round(motor.speed * 100);
  lit($("motor-a"), dir === "a");
  lit($("motor-b"), dir === "b");
  $("motor-bar").setAttribute("width", String(Math.round(168 * motor.speed)));
  const motorText = dir ? `toward ${dir.toUpperCase()} at ${speed}%` : "stopped";
  $("motor-text").textContent = dir ? `${dir === "a" ? "◀ " : ""}${speed}%${dir === "b" ? " ▶" : ""}` : "stopped";
  $("motor").dataset.direction = dir || "";
  $("motor").dataset.speed = String(motor.speed);
  $("motor").setAttribute("aria-label", `launcher motor: ${motorText}`);
  const state = STATES[view.state] || view.state || "";
  const fact = (term, value) => h("div", {}, h("dt", { text: term }), h("dd", { text: value }));
  fill(
    $("facts"),
    fact("Unit", state),
    fact("Countdown", `${on} of ${out.leds.length} lit`),
    fact("GO", onOff(out.go)),
    fact("Arrows", out.arrows.a ? "toward A" : out.arrows.b ? "toward B" : "off"),
    fact("Buzzer", buzzer === null ? "none" : onOff(buzzer)),
    fact("Motor", motorText),
    fact("Paddles", `A ${out.paddles.a ? "down" : "up"}, B ${out.paddles.b ? "down" : "up"}`),
  );
  if (view.state !== lastState) {
    lastState = view.state;
    if (view.state === "go") $("announce").textContent = "GO!";
    else if (view.state === "false_start") $("announce").textContent = "False start!";
    else if (view.state === "countdown") $("announce").textContent = "Countdown";
  }
  $("verdict").textContent = view.verdict || "";
}

// -- pressing a paddle (held down) and the timer button of a unit on mock pins --

function press(side) {
  if (holding.has(side)) return;
  holding.add(side);
  $(`paddle-${side}`).classList.add("holding");
  if (!link.send({ type: "press", side })) refused("Not connected to the server.");
}

function release(side) {
  if (!holding.has(side)) return;
  holding.delete(side);
  $(`paddle-${side}`).classList.remove("holding");
  link.send({ type: "release", side });
}

for (const side of ["a", "b"]) {
  const paddle = $(`paddle-${side}`);
  paddle.addEventListener("pointerdown", (event) => {
    event.preventDefault();
    paddle.focus();
    if (paddle.setPointerCapture) paddle.setPointerCapture(event.pointerId);
    press(side);
  });
  for (const kind of ["pointerup", "pointercancel", "lostpointercapture"]) {
    paddle.addEventListener(kind, () => release(side));
  }
  paddle.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" && event.key !== " ") return;
    event.preventDefault();
    if (!event.repeat) press(side);
  });
  paddle.addEventListener("keyup", (event) => {
    if (event.key !== "Enter" && event.key !== " ") return;
    event.preventDefault();
    release(side);
  });
  paddle.addEventListener("blur", () => release(side));
}

const timer = $("timer");
function pressTimer() {
  if (!link.send({ type: "timer" })) refused("Not connected to the server.");
}
timer.addEventListener("click", pressTimer);
timer.addEventListener("keydown", (event) => {
  if (event.key !== "Enter" && event.key !== " ") return;
  event.preventDefault();
  if (!event.repeat) pressTimer();
});

leds(3);
