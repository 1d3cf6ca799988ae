// What the league's pages share: the WebSocket that says when to fetch again,
// one fetch at a time (a burst of news is one more fetch), the status line.

export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

export function ms(us) {
  return us === null || us === undefined ? "—" : `${Math.round(us / 1000)} ms`;
}

export function when(at) {
  if (at === null || at === undefined) return "—";
  const date = new Date(at * 1000);
  const today = new Date().toDateString() === date.toDateString();
  const time = { hour: "2-digit", minute: "2-digit", second: "2-digit" };
  return today ? date.toLocaleTimeString([], time)
    : date.toLocaleString([], { month: "short", day: "numeric", ...time });
}

export function problem(text) {
  const banner = document.getElementById("problem");
  banner.hidden = !text;
  banner.textContent = text || "";
}

// fetch(url) as JSON; its error in words on the banner.
export async function getJson(url) {
  const response = await fetch(url, { cache: "no-store" });
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || `${url}: ${response.status}`);
  return body;
}

// refresh() runs load() now, or once more after the load in flight.
export function refresher(load) {
  let running = false, again = false;
  return async function refresh() {
    if (running) { again = true; return; }
    running = true;
    try {
      do {
        again = false;
        try { await load(); problem(""); } catch (error) { problem(`Could not load: ${error.message}`); }
      } while (again);
    } finally { running = false; }
  };
}

// Calls onNews(what) on each "changed" from the server, and on each (re)connect.
export function live(onNews) {
  const status = document.getElementById("status");
  let delay = 500;
  const open = () => {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}/ws`);
    socket.onopen = () => {
      delay = 500;
      status.textContent = "live";
      status.className = "status up";
      onNews(["results", "units", "broker"]);
    };
    socket.onmessage = (event) => {
      const message = JSON.parse(event.data);
      if (message.type === "changed") onNews(message.what);
    };
    socket.onclose = () => {
      status.textContent = "reconnecting…";
      status.className = "status down";
      setTimeout(open, delay);
      delay = Math.min(delay * 2, 10000);
    };
  };
  open();
}
