// A phone: one seat's private hand. Every choice offered comes from the view's
// "you.legal" list (an action text to send back and a label); the server decides.
// It joins with the room code: the join URL (/phone?code=ABCD) carries it, or the
// person types it from the display.
import {
  Link, STATUS_WORDS, cardElement, cardWords, colourLetter, COLOUR_NAMES, fill, h, keepFocus,
  lagText, seatName,
} from "./common.js";
import { withCards } from "./cards.js";
import { renderPitchPhone } from "./pitch_phone.js";
import { Paddles } from "./paddle.js";
import { drawBadges, installMuteSwitch, winnerBanner, yourTurn } from "./feedback.js";

const $ = (id) => document.getElementById(id);
installMuteSwitch(document.querySelector("main > .topline"));
const SECRET_KEY = "uno-showdown.secret";
const NAME_KEY = "uno-showdown.name";
let view = null;
let seat = null;
let chosenSeat = null;
let unoArmed = false;
let chooserFor = null; // the card text whose colour is being chosen
let refusedTimer = null;
let helloSent = false; // the next welcome answers our hello
let linkStatus = "connecting";
let lagMs = null; // this page's latest round trip to the server

// -- keep the screen awake where the browser allows it --
let wakeLock = null;
async function keepAwake() {
  if (!("wakeLock" in navigator) || document.visibilityState !== "visible" || wakeLock) return;
  try {
    wakeLock = await navigator.wakeLock.request("screen");
    wakeLock.addEventListener("release", () => { wakeLock = null; });
  } catch {
    wakeLock = null; // refused (battery saver, not allowed): nothing more to do
  }
}
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible") keepAwake();
});
document.addEventListener("pointerdown", keepAwake, { once: true });
$("insecure").hidden = window.isSecureContext && "wakeLock" in navigator;
keepAwake();

function showStatus() {
  const lag = linkStatus === "connected" && lagMs !== null ? ` · ${lagText(lagMs)}` : "";
  $("status").textContent = (STATUS_WORDS[linkStatus] || linkStatus) + lag;
  $("status").classList.toggle("down", linkStatus !== "connected");
}

const link = new Link({
  onOpen: (l) => {
    helloSent = l.send({ type: "hello", role: "phone", secret: localStorage.getItem(SECRET_KEY) });
  },
  onStatus: (status) => {
    linkStatus = status;
    showStatus();
  },
  // the display shows each seat's lag; the server only shows it, never uses it
  onLag: (ms) => {
    lagMs = ms;
    showStatus();
    link.send({ type: "lag", ms: Math.round(ms) });
  },
  onMessage,
});
window.tableLink = link; // for tests and the curious: the page's only socket
const paddles = new Paddles(link, () => seat); // this phone is a paddle in its showdowns
window.tablePaddles = paddles; // for tests: the clock's estimate

function onMessage(message) {
  if (paddles.handle(message)) return; // a showdown on the phones (--unit phones)
  onTableMessage(message);
}

function onTableMessage(message) {
  if (message.type === "welcome") {
    const answersHello = helloSent;
    helloSent = false;
    if (message.secret) localStorage.setItem(SECRET_KEY, message.secret);
    else if (answersHello) localStorage.removeItem(SECRET_KEY); // the server forgot it
    else if (message.message) { // the seat is gone (the host freed it): its secret too
      localStorage.removeItem(SECRET_KEY);
      showRefused(message.message);
    } else if (seat !== null) showRefused("Your seat was opened on another screen.");
    seat = message.seat ?? null;
    if (view) keepFocus(render);
  } else if (message.type === "view") {
    view = message.view;
    if (view.you && typeof view.you.seat === "number") seat = view.you.seat;
    keepFocus(render); // a keyboard user keeps their place in the hand
  } else if (message.type === "refused") {
    showRefused(message.message || "Refused.", message.cards);
    if (/room code/.test(message.message || "") && !$("join").hidden) $("code").focus();
  }
}

function showRefused(text, cards = []) {
  fill($("refused"), withCards(text, cards));
  $("refused").hidden = false;
  clearTimeout(refusedTimer);
  refusedTimer = setTimeout(() => { $("refused").hidden = true; }, 8000);
}

function send(action) {
  $("refused").hidden = true;
  if (link.act(action) === null) showRefused("Not connected: wait for the connection to come back.");
}

// -- joining --
$("name").value = localStorage.getItem(NAME_KEY) || "";
$("code").value = (new URLSearchParams(location.search).get("code") || "").trim().toUpperCase();
$("join-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const name = $("name").value.trim();
  const code = $("code").value.trim().toUpperCase();
  if (chosenSeat === null) return showRefused("Pick a free seat first.");
  if (!code) {
    $("code").focus();
    return showRefused("Type the room code: it is on the display.");
  }
  if (!name) return showRefused("Type your name.");
  localStorage.setItem(NAME_KEY, name);
  if (!link.send({ type: "join", seat: chosenSeat, name, code })) showRefused("Not connected yet.");
});

function freeSeats() {
  return (view.seats || []).filter((s) => s.free === true || (!s.name && s.kind !== "bot"));
}

function renderJoin() {
  const free = freeSeats();
  if (chosenSeat !== null && !free.some((s) => s.seat === chosenSeat)) chosenSeat = null;
  if (chosenSeat === null && free.length) chosenSeat = free[0].seat;
  fill(
    $("free-seats"),
    free.length
      ? free.map((s) =>
          h("button", {
            type: "button",
            "aria-pressed": String(s.seat === chosenSeat),
            "data-seat": s.seat,
            "data-key": `seat-${s.seat}`,
            text: `Seat ${s.seat + 1}`,
            onclick: () => { chosenSeat = s.seat; renderJoin(); },
          }))
      : h("span", { class: "status", text: "No free seat right now." }),
  );
}

$("take-back").addEventListener("click", () => {
  if (!link.send({ type: "take_back" })) showRefused("Not connected: wait for the connection to come back.");
});

// -- the game --
function botPlays() {
  return !!(view && view.you && view.you.bot_playing);
}

function render() {
  $("paused").hidden = !view.paused;
  $("paused").textContent = view.paused ? `Paused: ${view.paused}` : "";
  $("host-paused").hidden = !view.host_paused;
  // handed to a bot while a showdown was out: still this phone's until the verdict
  const handing = !!(view && view.you && view.you.bot_after_showdown);
  $("bot-playing").hidden = !botPlays() && !handing;
  // taken back while a showdown was out: the seat is this phone's after the verdict
  const back = botPlays() && !!view.you.back_after_showdown;
  $("bot-playing-words").textContent = back
    ? "A bot plays for you until this showdown's verdict."
    : handing ? "A bot plays for you after this showdown." : "A bot plays for you.";
  $("take-back").textContent = handing ? "Keep my seat" : "Take my seat back";
  $("take-back").hidden = back;
  const you = view.you;
  const seated = !!you || seat !== null;
  $("join").hidden = seated;
  $("game").hidden = !seated;
  if (!seated) return renderJoin();
  $("me").textContent = seatName(view, seat);
  winnerBanner(view, seat);
  renderTable();
  renderShowdown();
  if (!you || view.phase === "lobby") {
    fill($("hand"));
    fill($("actions"));
    $("prompt").textContent = "Waiting for the host to start.";
    return;
  }
  const pitch = view.family === "pitch";
  $("uno-row").hidden = pitch;
  if (!pitch) $("pitch-phone").hidden = true;
  if (pitch) {
    renderPitchPhone(view, seat, { send, say: showRefused });
    announceTurn();
    return;
  }
  const legal = you.legal || [];
  const byCard = cardActions(legal, you.hand || []);
  renderHand(you.hand || [], byCard);
  renderActions(legal, byCard);
  renderParty(you);
  $("prompt").textContent = you.prompt || "";
}

// -- UNO Party! --
function renderParty(you) {
  const party = view.party;
  const info = [];
  if (party) {
    if (party.link) info.push(`Linked: ${seatName(view, party.link[0])} + ${seatName(view, party.link[1])}.`);
    if (party.pile) {
      const turn = party.pile.turn === null ? "" : `, ${party.pile.turn === seat ? "you" : seatName(view, party.pile.turn)} to add`;
      info.push(`Pile: ${party.pile.cards.length} cards, ${party.pile.colour_name || "no colour"}${turn}.`);
    }
    if (party.point) {
      const left = party.point.waiting.length;
      info.push(`Pointing: ${left ? `${left} still to choose` : "all in"}.`);
    }
    if (party.reveal) {
      const mine = party.reveal.choices.filter((c) => c.target === seat).map((c) => seatName(view, c.seat));
      info.push(mine.length ? `Pointed at you: ${mine.join(", ")}.` : "Nobody pointed at you.");
    }
  }
  $("party-info").hidden = !info.length;
  $("party-info").textContent = info.join(" ");
  // the speed-play button: lit while this phone holds the identical card
  const speed = (you.speed || []);
  $("speed").hidden = !speed.length;
  if (speed.length) {
    const withUno = speed.find((a) => a.endsWith(" uno"));
    const plain = speed.find((a) => !a.endsWith(" uno")) || withUno;
    const card = plain.split(" ")[1];
    fill($("speed"), h("button", {
      type: "button", class: "big speed", "data-action": plain, "data-key": "speed",
      text: `SPEED! Play ${card} now`, "aria-label": `speed play ${cardWords(card)} now`,
      onclick: () => { const pick = unoArmed && withUno ? withUno : plain; unoArmed = false; send(pick); },
    }));
    if (renderParty.lit !== plain) $("announce").textContent = `Speed play: you hold ${cardWords(card)}`;
  } else {
    fill($("speed"));
  }
  renderParty.lit = speed.length ? speed[0] : null;
  // the pointing: one button per player; the choice shown to this phone only
  const point = you.point;
  $("pointing").hidden = !point;
  if (point) {
    const chosen = point.chosen;
    fill($("pointing"),
      chosen !== null && chosen !== undefined
        ? h("span", { class: "party-note", "data-key": "pointed", text: `You point at ${point.chosen_name}.` })
        : point.choices.map((c) => h("button", {
          type: "button", class: "big point", "data-action": c.action, "data-key": c.action,
          text: `Point at ${c.name}`, onclick: () => send(c.action),
        })));
  } else {
    fill($("pointing"));
  }
}

/** Wild Drawn Together: a colour and the two players it links, then play. */
function renderLinkChooser(play) {
  const players = play.players.map((p) => h("option", { value: String(p), text: p === seat ? `${seatName(view, p)} (you)` : seatName(view, p) }));
  const first = h("select", { id: "link-a", "aria-label": "first player to link" }, players);
  const second = h("select", { id: "link-b", "aria-label": "second player to link" }, players.map((o) => o.cloneNode(true)));
  if (second.options.length > 1) second.selectedIndex = 1;
  const colours = play.colours.map((c) => h("button", {
    type: "button", class: `big ${c}`, text: `${c} ${COLOUR_NAMES[c]}`, "data-key": `link-${c}`,
    onclick: () => {
      const a = Number(first.value);
      const b = Number(second.value);
      if (a === b) return showRefused("Link two different players.");
      const uno = unoArmed && play.uno.includes(true) ? " uno" : "";
      hideChooser();
      unoArmed = false;
      send(`WT=${c} ${Math.min(a, b)}+${Math.max(a, b)}${uno}`);
    },
  }));
  fill($("chooser"),
    h("span", { text: "Wild Drawn Together: link" }), first, h("span", { text: "and" }), second,
    h("span", { text: ", then name a colour:" }), colours,
    h("button", { type: "button", text: "Cancel", onclick: hideChooser }));
  chooserFor = "WT";
  $("chooser").hidden = false;
  first.focus();
}

function renderShowdown() {
  const sd = view.showdown;
  const el = $("showdown");
  el.hidden = !sd;
  if (!sd) return;
  const mine = sd.challenger === seat || sd.opponent === seat;
  const who = `${seatName(view, sd.challenger)} vs ${seatName(view, sd.opponent)}, ${sd.cards} card${sd.cards === 1 ? "" : "s"}`;
  let text = `Showdown: ${who}.`;
  if (sd.stage === "decided" && sd.verdict) text = sd.verdict;
  else if (sd.stage === "go") text = "GO!";
  else if (mine) text += " Hands on your paddle!";
  el.textContent = text;
}

function renderTable() {
  fill($("top"), view.top ? cardElement(view.top) : null);
  const letter = colourLetter(view.colour);
  $("colour").textContent = letter ? `colour ${COLOUR_NAMES[letter]}` : "";
  const turn = view.turn;
  const mine = turn === seat ? (botPlays() ? "Your turn (a bot plays it)" : "Your turn") : null;
  $("turn").textContent =
    turn === null || turn === undefined ? "" : mine || `${seatName(view, turn)}'s turn`;
  $("turn").classList.toggle("my-turn", turn === seat);
  const plusBadge = drawBadges(view);
  fill(
    $("others"),
    (view.seats || []).filter((s) => s.seat !== seat).map((s) =>
      h("li", {}, `${s.name || `Seat ${s.seat + 1}`}${s.bot_playing ? " (bot playing)" : ""}: ${s.cards ?? "–"}`,
        s.uno ? " UNO" : "", plusBadge(s.seat))),
  );
}

/** Actions that play a card, keyed by the card's text ("W" -> ["W=R", ..., "W=B uno"]). */
function cardActions(legal, hand) {
  const texts = new Set(hand.map((c) => c.text));
  const map = new Map();
  for (const item of legal) {
    const words = item.action.split(" ");
    const card = words[0].split("=")[0];
    if (!texts.has(card) || words.length > 2 || (words.length === 2 && words[1] !== "uno")) continue;
    if (!map.has(card)) map.set(card, []);
    map.get(card).push(item);
  }
  return map;
}

function renderHand(hand, byCard) {
  const items = hand.map((card) => { // in the server's order (sorted there)
    const link = card.text === "WT" && view.you && view.you.link_play;
    const legal = card.legal === true || byCard.has(card.text) || !!link;
    const button = cardElement(card, "button");
    button.type = "button";
    button.classList.toggle("legal", legal);
    button.setAttribute("aria-label", `${card.label || cardWords(card.text)}${legal ? ", playable" : ""}`);
    button.addEventListener("click", () => (link && !byCard.has(card.text)
      ? renderLinkChooser(view.you.link_play)
      : tapCard(card.text, byCard.get(card.text) || [])));
    return h("li", {}, button);
  });
  fill($("hand"), items);
}

function tapCard(text, options) {
  if (!options.length) return send(text); // not playable: the server says why
  const withUno = options.filter((o) => o.action.endsWith(" uno"));
  const plain = options.filter((o) => !o.action.endsWith(" uno"));
  const pick = unoArmed && withUno.length ? withUno : plain.length ? plain : withUno;
  if (pick.length === 1) {
    unoArmed = false;
    return send(pick[0].action);
  }
  chooserFor = text;
  renderChooser(pick);
}

function renderChooser(options) {
  const buttons = options.map((o) => {
    const colour = o.action.split(" ")[0].split("=")[1] || "";
    return h("button", {
      type: "button",
      class: `big ${colour}`,
      text: colour ? `${colour} ${COLOUR_NAMES[colour]}` : o.label || o.action,
      "aria-label": o.label || o.action,
      onclick: () => { hideChooser(); unoArmed = false; send(o.action); },
    });
  });
  fill(
    $("chooser"),
    h("span", { text: `${chooserFor}: choose a colour` }),
    buttons,
    h("button", { type: "button", text: "Cancel", onclick: hideChooser }),
  );
  $("chooser").hidden = false;
  $("chooser").querySelector("button").focus();
}

function hideChooser() {
  chooserFor = null;
  $("chooser").hidden = true;
  fill($("chooser"));
}

function renderActions(legal, byCard) {
  const played = new Set([...byCard.values()].flat().map((o) => o.action));
  const rest = legal.filter((o) => !played.has(o.action));
  const buttons = [];
  const catches = [];
  const faces = new Map();
  for (const o of rest) {
    const words = o.action.split(" ");
    if (words[0] === "speed" || words[0] === "point") {
      continue; // drawn by renderParty: the speed button, the pointing buttons
    } else if (words[0] === "catch") {
      const who = seatName(view, Number(words[1]));
      catches.push(h("button", { type: "button", class: "big catch", "data-action": o.action,
        text: `Catch ${who}!`, "aria-label": o.label || `catch ${who}`, onclick: () => send(o.action) }));
    } else if (words[0] === "face") {
      const opponent = Number(words[1]);
      if (!faces.has(opponent)) faces.set(opponent, []);
      faces.get(opponent).push(o);
    } else if (words[0] === "colour") {
      const c = words[1];
      buttons.push(h("button", { type: "button", class: `big ${c}`, "data-action": o.action,
        text: `${c} ${COLOUR_NAMES[c] || ""}`, "aria-label": o.label || o.action, onclick: () => send(o.action) }));
    } else if (o.action !== "uno") {
      buttons.push(h("button", { type: "button", class: "big", "data-action": o.action,
        text: o.label || o.action, onclick: () => send(o.action) }));
    }
  }
  for (const [opponent, options] of faces) {
    buttons.push(h("div", { class: "chooser", role: "group", "aria-label": `face ${seatName(view, opponent)}` },
      h("span", { text: `Face ${seatName(view, opponent)}:` }),
      options.map((o) => h("button", { type: "button", class: "big", "data-action": o.action,
        text: `×${o.action.split(" x")[1]}`, "aria-label": o.label || o.action, onclick: () => send(o.action) }))));
  }
  const linking = chooserFor === "WT" && view.you && view.you.link_play;
  if (chooserFor && !byCard.has(chooserFor) && !linking) hideChooser();
  fill($("actions"), buttons);
  fill($("catches"), catches);
  // UNO: a claim of its own ("uno") or said with the second-to-last card ("R5 uno")
  const claim = legal.find((o) => o.action === "uno");
  const withCard = legal.some((o) => o.action.endsWith(" uno"))
    || !!(view.you && view.you.link_play && view.you.link_play.uno.includes(true));
  if (!withCard) unoArmed = false;
  const uno = $("uno");
  uno.disabled = !claim && !withCard;
  uno.setAttribute("aria-pressed", String(unoArmed));
  uno.textContent = unoArmed ? "UNO! (now play your card)" : "UNO!";
  uno.onclick = () => {
    if (claim) return send("uno");
    unoArmed = !unoArmed;
    uno.setAttribute("aria-pressed", String(unoArmed));
    uno.textContent = unoArmed ? "UNO! (now play your card)" : "UNO!";
  };
  announceTurn();
}

function announceTurn() {
  const turnNow = view.turn === seat && !botPlays();
  yourTurn(turnNow && view.phase !== "over" && view.phase !== "match_over");
  if (turnNow !== announceTurn.turnNow) {
    announceTurn.turnNow = turnNow;
    if (turnNow) $("announce").textContent = "Your turn";
  }
}
