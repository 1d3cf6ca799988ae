// What the pages of a table playing with real cards share (UNO's companion, Pitch's
// scorekeeper): one page and one socket; opened from the host URL (/#host=KEY) it is
// the host's page, without the key a spectator's. The page's own module draws the
// views and the host's forms; this one keeps the link, the host key and the
// host/spectator boxes (#host, #spectator, #spectator-message, #host-qr, #host-url,
// #host-link, #host-message, #status).
import { Link, STATUS_WORDS, lagText } from "./common.js";

const $ = (id) => document.getElementById(id);

export class HostPage {
  /**
   * ``onView(view)`` draws a view; ``onWelcome(page)`` draws what the page adds
   * once it knows whether it is the host (``page.isHost``, ``page.hostKey``).
   */
  constructor({ onView, onWelcome = () => {} }) {
    // The host's key, from the host URL's fragment (never sent in a request).
    this.hostKey = new URLSearchParams(location.hash.slice(1)).get("host");
    this.isHost = false;
    this.view = null;
    this.onView = onView;
    this.onWelcome = onWelcome;
    this.linkStatus = "connecting";
    this.lagMs = null; // this page's latest round trip to the server
    this.link = new Link({
      onOpen: (l) => l.send(this.hostKey
        ? { type: "hello", role: "display", host_key: this.hostKey }
        : { type: "hello", role: "display" }),
      onStatus: (status) => {
        this.linkStatus = status;
        this.showStatus();
      },
      onLag: (ms) => {
        this.lagMs = ms;
        this.showStatus();
      },
      onMessage: (message) => {
        if (message.type === "welcome") this.welcomed(message);
        else if (message.type === "view") this.show(message.view);
        else if (message.type === "refused") {
          if (this.isHost) this.refused(message.message);
          else $("spectator-message").textContent = message.message;
        }
      },
    });
    window.tableLink = this.link; // for tests and the curious: the page's only socket
  }

  /** Sends a host command; says so on the page when there is no connection. */
  send(cmd, extra = {}) {
    const message = $("host-message");
    message.classList.remove("refused");
    const sent = this.link.send({ type: "host", cmd, ...extra });
    message.textContent = sent ? "" : "Not connected: wait for the page to reconnect.";
    return sent;
  }

  refused(text) {
    const message = $("host-message");
    message.textContent = text;
    message.classList.add("refused");
  }

  show(view) {
    this.view = view;
    this.onView(view);
  }

  /** The welcome says whether this page is the host; a spectator draws no host controls. */
  welcomed(welcome) {
    this.isHost = welcome.host === true;
    if (!this.isHost && this.hostKey) { // a wrong or replaced key: not tried again on a reconnect
      this.hostKey = null;
      history.replaceState(null, "", location.pathname + location.search);
    }
    $("host").hidden = !this.isHost;
    document.body.classList.toggle("spectating", !this.isHost);
    $("spectator").hidden = this.isHost;
    $("spectator-message").textContent = welcome.message || "";
    if (this.isHost) {
      $("host-qr").src = welcome.host_qr;
      $("host-url").textContent = welcome.host_url;
    } else {
      $("host-qr").removeAttribute("src");
      $("host-url").textContent = "";
      $("host-link").open = false;
    }
    this.onWelcome(this);
    if (this.view) this.onView(this.view);
  }

  showStatus() {
    const connected = this.linkStatus === "connected";
    const lag = connected && this.lagMs !== null ? ` · ${lagText(this.lagMs)}` : "";
    $("status").textContent = (STATUS_WORDS[this.linkStatus] || this.linkStatus) + lag;
    $("status").classList.toggle("down", !connected);
  }

  /** ``button`` ends the match in two presses: ending a match cannot be undone. */
  armEnd(button) {
    const words = button.textContent;
    let armed = null;
    button.addEventListener("click", () => {
      if (armed) {
        clearTimeout(armed);
        armed = null;
        button.textContent = words;
        this.send("end");
        return;
      }
      button.textContent = "Press again to end the match";
      armed = setTimeout(() => {
        armed = null;
        button.textContent = words;
      }, 5000);
    });
  }
}
