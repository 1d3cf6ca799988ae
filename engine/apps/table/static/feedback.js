// Moments a player should feel, not read (issue 22): their turn lights the phone (a
// highlight, a buzz where the browser allows it, a short Web Audio chime, with a mute
// switch the phone remembers); a winner banner at the end of a round and of the match,
// over the last showdown; "+N" beside a player who drew. Nothing is fetched.
import { h, fill, seatName } from "./common.js";

const MUTE_KEY = "uno-showdown.mute";
const PLUS_SHOWN_MS = 3000; // a "+N" worked out from the counts stays this long

export function muted() {
  try {
    return localStorage.getItem(MUTE_KEY) === "1";
  } catch {
    return false; // storage refused (private mode): never muted by surprise
  }
}

/** A mute switch for the turn chime and buzz, put first in `where`; remembered. */
export function installMuteSwitch(where) {
  const button = h("button", { id: "mute-turn", type: "button", class: "mute-turn" });
  const show = () => {
    button.setAttribute("aria-pressed", String(muted()));
    // plain symbols every font has (an emoji may draw as a box without an emoji font)
    button.textContent = muted() ? "♪ Muted" : "♪ Sound on";
    button.setAttribute("aria-label", muted() ? "Turn sound and buzz: off" : "Turn sound and buzz: on");
  };
  button.addEventListener("click", () => {
    try {
      localStorage.setItem(MUTE_KEY, muted() ? "0" : "1");
    } catch { /* not remembered: the switch still shows the old state */ }
    if (!muted()) unlockAudio(); // a tap: the one moment a browser lets audio start
    show();
  });
  show();
  where.prepend(button);
  return button;
}

let audio = null;
function unlockAudio() {
  const Ctx = window.AudioContext || window.webkitAudioContext;
  if (!Ctx) return null;
  try {
    audio = audio || new Ctx();
    if (audio.state === "suspended") audio.resume();
  } catch {
    audio = null;
  }
  return audio;
}

/** Two short rising notes (880 Hz, then 1175 Hz). */
function chime() {
  const ctx = unlockAudio();
  if (!ctx) return false;
  [880, 1175].forEach((freq, i) => {
    const t = ctx.currentTime + i * 0.12;
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.frequency.value = freq;
    gain.gain.setValueAtTime(0.15, t);
    gain.gain.exponentialRampToValueAtTime(0.0001, t + 0.1);
    osc.connect(gain).connect(ctx.destination);
    osc.start(t);
    osc.stop(t + 0.12);
  });
  return true;
}

let wasMine = false;
/** The phone's turn: highlight while it lasts; buzz and chime once as it begins (unless muted). */
export function yourTurn(mine) {
  document.body.classList.toggle("your-turn", mine);
  if (mine && !wasMine && !muted()) {
    if (typeof navigator.vibrate === "function") navigator.vibrate([120, 60, 120]);
    chime();
  }
  wasMine = mine;
}

/** Who won: the engine's word in the view (the round's winner, or the match's). */
function winnerOf(view) {
  const winner = view.winner;
  return winner ? { seat: winner.seat, match: winner.match } : { seat: null, match: false };
}

/**
 * The winner banner at the top of `main`, shown while a round or the match is over and
 * cleared when the next round starts; `me` is the phone's seat ("You win"), or null.
 */
export function winnerBanner(view, me = null) {
  const main = document.querySelector("main");
  let banner = document.getElementById("winner");
  // The engine's `winner` (null while a round is played); a family whose pages
  // draw their own end of hand (Pitch's banner) sends none.
  const over = Boolean(view.winner);
  document.body.classList.toggle("round-won", over);
  if (!over) {
    if (banner) banner.hidden = true;
    return;
  }
  if (!banner) {
    banner = h("section", { id: "winner", class: "winner", role: "status", "aria-live": "polite" });
    main.prepend(banner);
  }
  const { seat, match } = winnerOf(view);
  const who = seat === null ? "Nobody" : seat === me ? "You" : seatName(view, seat);
  const wins = who === "You" ? "win" : "wins";
  const title = match ? `${who} ${wins} the match!` : `${who} ${wins} round ${view.round ?? ""}`.trim();
  const scores = (view.scores || []).map((score, n) => ({ n, score })).sort((a, b) => b.score - a.score);
  banner.hidden = false;
  fill(banner,
    h("p", { class: "winner-title", text: title }),
    h("ol", { class: "winner-scores", "aria-label": "Scores" }, scores.map(({ n, score }) =>
      h("li", { class: n === seat ? "won" : "" },
        h("span", { class: "name", text: seatName(view, n), title: seatName(view, n) }),
        h("span", { class: "points", text: String(score) })))));
}

const plus = new Map(); // seat -> { n, until }
let plusCounts = new Map();
let plusRound = null;
/** The "+N" each seat's latest draw brought (the server's `drew`, else the count's rise). */
export function drawBadges(view) {
  const now = Date.now();
  const newRound = view.round !== plusRound;
  plusRound = view.round;
  const counts = new Map();
  for (const s of view.seats || []) {
    counts.set(s.seat, s.cards);
    const before = newRound ? undefined : plusCounts.get(s.seat);
    if (typeof s.drew === "number") {
      if (s.drew > 0) plus.set(s.seat, { n: s.drew, until: Infinity });
      else plus.delete(s.seat);
    } else if (typeof before === "number" && typeof s.cards === "number" && s.cards > before) {
      plus.set(s.seat, { n: s.cards - before, until: now + PLUS_SHOWN_MS });
    }
  }
  plusCounts = counts;
  return (n) => {
    const badge = plus.get(n);
    return badge && badge.until > now ? h("span", { class: "badge plus", text: `+${badge.n}` }) : null;
  };
}
