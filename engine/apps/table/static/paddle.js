// A showdown fought on the phones (--unit phones): the countdown and GO at the
// server's GO instant, shown by this page's clock offset (clock.js), and, on the
// phone of a player in the showdown, a big paddle. A tap is stamped on this
// phone (event.timeStamp) and its reaction measured from the moment this phone
// showed GO, on its own clock: the offset's error moves only when GO is shown.
// The server decides (engine/units/phone_paddles.py).
import { estimate, keepBest, sample, toLocal, uncertaintyText } from "./clock.js";

const BURST = 8; // pings when the clock is first set, BURST_GAP_MS apart
const BURST_GAP_MS = 60;
const RESAMPLE_MS = 2000; // then one ping every RESAMPLE_MS

export class Paddles {
  /** `link`: the page's Link; `seat()`: this phone's seat (null on a display);
   * `onStage(round, stage, step)`: told of each countdown step and of GO as drawn. */
  constructor(link, seat, onStage = () => {}) {
    this.link = link;
    this.seat = seat;
    this.onStage = onStage;
    this.samples = [];
    this.sent = new Map(); // ping id -> performance.now() when sent
    this.nextId = 1;
    this.round = null;
    this.timers = [];
    this.sampling = false;
    this.el = document.createElement("div");
    this.el.className = "paddle";
    this.el.hidden = true;
    this.el.innerHTML =
      '<div class="paddle-who"></div><div class="paddle-word"></div><div class="paddle-note"></div>';
    this.who = this.el.querySelector(".paddle-who");
    this.word = this.el.querySelector(".paddle-word");
    this.note = this.el.querySelector(".paddle-note");
    this.clockEl = document.createElement("div");
    this.clockEl.className = "paddle-clock";
    this.clockEl.hidden = true;
    document.body.append(this.el, this.clockEl);
    this.el.addEventListener("pointerdown", (event) => this.tap(event));
  }

  /** The clock's estimate now, or null. */
  estimate() {
    return estimate(this.samples, performance.now());
  }

  /** Start (or restart, after a reconnect) setting the clock. */
  startClock() {
    this.sampling = true;
    this.clockEl.hidden = false;
    clearTimeout(this.pingTimer);
    for (let i = 0; i < BURST; i++) setTimeout(() => this.ping(), i * BURST_GAP_MS);
    this.pingTimer = setTimeout(() => this.resample(), BURST * BURST_GAP_MS + RESAMPLE_MS);
  }

  resample() {
    this.ping();
    this.pingTimer = setTimeout(() => this.resample(), RESAMPLE_MS);
  }

  ping() {
    const id = `clock-${this.nextId++}`;
    const at = performance.now();
    if (this.link.send({ type: "ping", id, clock: true })) this.sent.set(id, at);
  }

  /** Takes the messages that are the paddles'; true when it took `message`. */
  handle(message) {
    if (message.type === "welcome" && message.paddles && !this.sampling) this.startClock();
    if (message.type === "pong" && this.sent.has(message.id)) {
      const received = performance.now();
      const s = sample(this.sent.get(message.id), received, message.server_ms);
      this.sent.delete(message.id);
      this.samples = keepBest(this.samples, s, received);
      this.clockEl.textContent = `clock ${uncertaintyText(this.estimate())}`;
      return true;
    }
    if (message.type === "paddle_round") {
      this.begin(message);
      return true;
    }
    if (message.type === "paddle_result") {
      this.end(message);
      return true;
    }
    return false;
  }

  begin(round) {
    this.clear();
    if (!this.sampling) this.startClock();
    const est = this.estimate() || { offset: 0, uncertainty: Infinity };
    const me = this.seat();
    const mine = me !== null && round.players.includes(me) && !round.bots.includes(me);
    this.round = { ...round, mine, goLocal: toLocal(round.go_ms, est), shownGo: null,
      tapped: false, uncertainty: est.uncertainty };
    this.el.hidden = false;
    this.el.classList.toggle("mine", mine);
    this.el.dataset.state = "wait";
    // who faces whom, and for how many cards: the GO screen covers the rest of the page
    const names = (round.names || []).map((name, n) => (round.players[n] === me ? "You" : name));
    const cards = round.cards ? ` for ${round.cards} card${round.cards === 1 ? "" : "s"}` : "";
    this.who.textContent = names.length === 2 ? `${names[0]} ⚔ ${names[1]}${cards}` : "";
    this.word.textContent = mine ? "Get ready" : "Showdown";
    this.note.textContent = mine ? "Tap anywhere here at GO, not before." : "";
    const startLocal = toLocal(round.start_ms, est);
    const step = (round.go_ms - round.start_ms) / (round.steps + 1);
    for (let i = 0; i < round.steps; i++) {
      this.at(startLocal + i * Math.min(step, 1000), () => {
        this.el.dataset.state = "countdown";
        this.word.textContent = String(round.steps - i);
        this.onStage(this.round, "countdown", i + 1);
      });
    }
    this.at(this.round.goLocal, () => this.go());
    if (mine) this.at(this.round.goLocal + round.timeout_ms, () => this.answer(null));
  }

  /** Run `fn` at local time `when` (ms, performance.now()): a timer close to it,
   * then the frame that draws it; GO is noted when that frame's callback runs. */
  at(when, fn) {
    const wait = Math.max(0, when - performance.now() - 20);
    this.timers.push(setTimeout(() => {
      const frame = () => (performance.now() >= when - 8 ? fn() : requestAnimationFrame(frame));
      requestAnimationFrame(frame);
    }, wait));
  }

  go() {
    const r = this.round;
    if (!r) return;
    r.shownGo = performance.now();
    this.el.dataset.state = "go";
    this.word.textContent = "GO!";
    this.onStage(r, "go", null);
  }

  tap(event) {
    const r = this.round;
    if (!r || !r.mine || r.tapped) return;
    event.preventDefault();
    const stamp = event.timeStamp || performance.now();
    // before this phone showed GO: a false start, measured against when GO was due
    const reaction = r.shownGo === null ? Math.min(-0.001, stamp - r.goLocal) : stamp - r.shownGo;
    this.answer(reaction);
  }

  answer(reaction) {
    const r = this.round;
    if (!r || !r.mine || r.tapped) return;
    r.tapped = true;
    const est = this.estimate();
    this.link.send({
      type: "paddle_tap", showdown_id: r.showdown_id, round: r.round,
      reaction_ms: reaction, uncertainty_ms: est ? est.uncertainty : 1000,
    });
    this.note.textContent = reaction === null ? "No tap." : `Tapped: ${reaction.toFixed(1)} ms`;
  }

  end(result) {
    if (this.round && this.round.showdown_id === result.showdown_id && this.round.round !== result.round) return;
    this.clear();
    const words = { tie: "Too close: again!", timeout: "Nobody tapped: again!" };
    // decided, or a phone missing (the game pauses: the banner and the host's
    // choices must be in reach, and "X loses" brings no next round to clear it)
    if (result.kind === "decided" || result.kind === "missing") {
      this.el.hidden = true;
      this.round = null;
      return;
    }
    this.el.dataset.state = result.kind;
    this.word.textContent = words[result.kind] || result.kind;
    this.note.textContent = "";
  }

  clear() {
    for (const t of this.timers) clearTimeout(t);
    this.timers = [];
  }
}
