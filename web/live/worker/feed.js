// The live event stream, held by the worker (EventSource works in dedicated workers). Events go
// into a ChangeBuffer; the page is told that changes wait ({ pending }) and how the connection
// is ({ status }), and takes them when it is ready for a frame. Reconnects itself from the last
// event received (?since=S-L); a fresh `snapshot` event replaces everything before it.
//
// The first state is fetched as bytes from `snapshot` beside the stream (`/api/snapshot`, with
// its revisions in `x-spate-revisions`), and the stream opened from those revisions: a 60 MB
// event's data string costs the browser about 0.3 s to make, the bytes nothing. When that
// fetch fails, the stream's own first `snapshot` event is the first state.
import { ChangeBuffer } from './buffer.js';

/** Delays before reconnecting, in ms (then the last, for ever). */
const RETRY_MS = [250, 1000, 2000, 5000, 10000];
/** At most one "changes wait" notice per this many ms after the first (while the page is busy or paused). */
const NOTICE_MS = 400;

function liveError(message, code = 'live_failed') {
  return Object.assign(new Error(message), { code });
}

/** The answer's error text of a refused request ({"error": "..."} or the status). */
async function refusal(url) {
  try {
    const r = await fetch(url, { headers: { accept: 'application/json' } });
    if (r.ok) {
      r.body?.cancel();
      return null;
    }
    const body = await r.json().catch(() => null);
    return `${body?.error || `HTTP ${r.status}`}`;
  } catch (e) {
    return `the dashboard's server cannot be reached (${e.message})`;
  }
}

export class LiveFeed {
  /** url: the event stream's absolute URL; post(message): to the page. */
  constructor(url, post) {
    this.url = url;
    this.post = post;
    this.buffer = new ChangeBuffer();
    /** The id of the last event received: the revisions to resume from. */
    this.lastId = null;
    this.lastChangeMs = 0;
    this.status = { status: 'connecting', message: '' };
    this.notified = false;
    this.timer = 0;
    this.retry = 0;
    this.retryTimer = 0;
    this.closed = false;
    /** Resolves to the first full state: { bytes } (fetched) or { text } (the stream's event). */
    this.first = new Promise((resolve, reject) => { this.firstDone = { resolve, reject }; });
    this.start();
  }

  /** Fetches the first state, then opens the stream from its revisions (or from nothing). */
  async start() {
    const first = await this.fetchFirst();
    if (this.closed) return;
    if (first && this.firstDone) {
      this.lastId = first.revisions;
      this.lastChangeMs = Date.now();
      this.firstDone.resolve({ bytes: first.bytes });
      this.firstDone = null;
    }
    this.open();
  }

  /** { bytes, revisions } of `snapshot` beside the stream, or null (the stream's event is read instead). */
  async fetchFirst() {
    try {
      const u = new URL('snapshot', this.url);
      u.search = new URL(this.url).search;
      u.searchParams.delete('since');
      const r = await fetch(u.href, { headers: { accept: 'application/json' } });
      const revisions = r.headers.get('x-spate-revisions');
      if (!r.ok || !revisions) {
        r.body?.cancel();
        return null;
      }
      return { bytes: new Uint8Array(await r.arrayBuffer()), revisions };
    } catch {
      return null;
    }
  }

  /** Opens the stream, from the last event received when there is one. */
  open() {
    const u = new URL(this.url);
    if (this.lastId) u.searchParams.set('since', this.lastId);
    const es = new EventSource(u.href);
    this.source = es;
    es.addEventListener('snapshot', (e) => this.onSnapshot(e));
    es.addEventListener('change', (e) => this.onChange(e));
    es.addEventListener('status', (e) => this.onStatus(e));
    es.onerror = () => this.onError(es);
  }

  onSnapshot(e) {
    this.retry = 0;
    this.lastId = e.lastEventId || this.lastId;
    this.lastChangeMs = Date.now();
    if (this.firstDone) {
      this.firstDone.resolve({ text: e.data });
      this.firstDone = null;
      return;
    }
    this.buffer.putSnapshot(e.data, this.lastId);
    this.wake();
  }

  onChange(e) {
    this.retry = 0;
    this.lastId = e.lastEventId || this.lastId;
    this.lastChangeMs = Date.now();
    if (!this.buffer.putChange(e.data)) {
      this.resync('a change event could not be read');
      return;
    }
    if (!this.firstDone) this.wake();
  }

  onStatus(e) {
    let s;
    try {
      s = JSON.parse(e.data);
    } catch {
      s = { status: 'error', message: 'the server sent a status that could not be read' };
    }
    this.setStatus({ status: String(s.status || 'error'), message: String(s.message || '') });
  }

  setStatus(s) {
    this.status = s;
    this.post({ status: s });
  }

  /** The stream broke (the server went away, or refused it): reconnect after a growing delay. */
  async onError(es) {
    if (this.closed || es !== this.source) return;
    const refused = es.readyState === EventSource.CLOSED;
    es.close();
    this.source = null;
    const why = refused ? await refusal(this.urlNow()) : null;
    if (this.closed) return;
    const message = why ? `the live stream was refused: ${why}` : "the connection to the dashboard's server was lost";
    if (this.firstDone && why) {
      this.firstDone.reject(liveError(message, 'live_refused'));
      this.firstDone = null;
    }
    const delay = RETRY_MS[Math.min(this.retry++, RETRY_MS.length - 1)];
    this.setStatus({ status: why ? 'error' : 'reconnecting', message: `${message}; trying again in ${delay / 1000} s` });
    this.retryTimer = setTimeout(() => { if (!this.closed) this.open(); }, delay);
  }

  urlNow() {
    const u = new URL(this.url);
    if (this.lastId) u.searchParams.set('since', this.lastId);
    return u.href;
  }

  /** Reads the whole state again (a change could not be read or applied). */
  resync(reason) {
    this.source?.close();
    this.lastId = null;
    this.buffer.reset();
    this.setStatus({ status: 'reconnecting', message: `${reason}; reading the whole state again` });
    this.open();
  }

  /** Tells the page that changes wait: at once the first time after a take, then at most every NOTICE_MS. */
  wake() {
    if (!this.notified) {
      this.notified = true;
      this.notice();
    } else if (!this.timer) {
      this.timer = setTimeout(() => { this.timer = 0; if (!this.buffer.empty) this.notice(); }, NOTICE_MS);
    }
  }

  notice() {
    this.post({ pending: this.buffer.received, lastChangeMs: this.lastChangeMs });
  }

  /** What arrived since the last take (see ChangeBuffer.take). */
  take() {
    this.notified = false;
    return { ...this.buffer.take(), lastChangeMs: this.lastChangeMs };
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    clearTimeout(this.retryTimer);
    this.source?.close();
    this.firstDone?.reject(liveError('the live stream was closed', 'superseded'));
  }
}
