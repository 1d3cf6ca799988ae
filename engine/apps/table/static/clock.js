// A phone's estimate of the server's clock, NTP-style (pure functions: node or a browser).
//
// Each ping notes when it left and when its pong came back (performance.now(),
// ms) and the server's clock in the pong (server_ms). The server read its clock
// somewhere in that round trip; assuming the middle errs by at most half the
// round trip, so the samples with the shortest round trips are kept and the best
// one gives the offset (server = local + offset) and the uncertainty (half its
// round trip, plus what the two clocks may have drifted since).

/** How many of the best samples are kept (the rest are dropped as they age). */
export const KEEP = 8;
/** The drift allowed between the phone's clock and the server's, parts per million. */
export const DRIFT_PPM = 100;

/** One ping's sample: {rtt, offset, at} from send/receive (local ms) and the server's ms. */
export function sample(sentMs, receivedMs, serverMs) {
  const rtt = Math.max(0, receivedMs - sentMs);
  return { rtt, offset: serverMs - (sentMs + receivedMs) / 2, at: receivedMs };
}

/** The samples worth keeping after `next`: the `keep` with the shortest round trips
 * once each is charged for its age (an old short one gives way to fresh ones). */
export function keepBest(samples, next, nowMs, keep = KEEP, driftPpm = DRIFT_PPM) {
  const all = [...samples, next];
  all.sort((a, b) => cost(a, nowMs, driftPpm) - cost(b, nowMs, driftPpm));
  return all.slice(0, keep);
}

function cost(s, nowMs, driftPpm) {
  return s.rtt / 2 + ((nowMs - s.at) * driftPpm) / 1e6;
}

/** The estimate at `nowMs`: {offset, uncertainty} in ms, or null with no sample. */
export function estimate(samples, nowMs, driftPpm = DRIFT_PPM) {
  if (!samples.length) return null;
  let best = samples[0];
  for (const s of samples) if (cost(s, nowMs, driftPpm) < cost(best, nowMs, driftPpm)) best = s;
  return { offset: best.offset, uncertainty: cost(best, nowMs, driftPpm) };
}

/** A local time (ms) as the server's, and back. */
export function toServer(localMs, est) {
  return localMs + est.offset;
}
export function toLocal(serverMs, est) {
  return serverMs - est.offset;
}

/** The uncertainty for people: "±1.2 ms", or "clock not set". */
export function uncertaintyText(est) {
  return est ? `±${est.uncertainty.toFixed(1)} ms` : "clock not set";
}
