// The live event stream, held by the worker (EventSource works in dedicated workers). Each
// event is handed at once to the sink (the live job: a change applied to the core's live job as
// it arrives, a fresh full state replacing it), so nothing waits in a buffer here; the page is
// told that changes wait ({ pending }) and how the connection is ({ status }), and asks for a
// frame when it is ready. Reconnects itself from the last event received (?since=S-L).
//
// The first state is fetched as bytes from `snapshot` beside the stream (`/api/snapshot`, with
// its revisions in `x-spate-revisions`), and the stream opened from those revisions: a 60 MB
// event's data string costs the browser about 0.3 s to make, the bytes nothing. When that
// fetch fails, the stream's own first `snapshot` event is the first state.
//
// A start that fails (the server refuses the stream: busy, the job not there yet; or cannot be
// reached) is tried again after a growing delay until it succeeds, the page told each time why
// and when (status `error` or `reconnecting`); only close() ends it.
//
// The server sends a `heartbeat` event (its data { interval_ms }) whenever the stream was idle
// for that long. Once one came, a stream silent for twice the interval (a proxy holding the
// events back, a connection dead without an error) is called so (status `silent`: the page no
// longer says "Live") and opened again from the last event received.

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
  /**
   * url: the event stream's absolute URL; post(message): to the page; sink: takes the events
   * after the first state — change(data) (false: it could not be applied) and snapshot(text).
   */
  constructor(url, post, sink) {
    this.url = url;
    this.post = post;
    this.sink = sink;
    /** Events received since the last take (each asks for a frame). */
    this.received = 0;
    /**
     * Of those, the ones that are news (the core's word: a membership or leadership change, a
     * claim, a completion, a quarantine, a publish, a full state; not a lease renewal): the
     * page's "n changes waiting" while paused.
     */
    this.news = 0;
    /** The id of the last event received: the revisions to resume from. */
    this.lastId = null;
    this.lastChangeMs = 0;
    this.status = { status: 'connecting', message: '' };
    this.notified = false;
    this.timer = 0;
    this.retry = 0;
    this.retryTimer = 0;
    this.closed = false;
    /** The server's heartbeat interval (0 until its first heartbeat), and the silence timer. */
    this.heartbeatMs = 0;
    this.watchdog = 0;
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
    es.addEventListener('heartbeat', (e) => this.onHeartbeat(e));
    es.onerror = () => this.onError(es);
    this.heard(); // a stream that opens but never speaks is silent too
  }

  /** Something came on the stream: the silence timer starts again (once heartbeats are known). */
  heard() {
    clearTimeout(this.watchdog);
    if (this.heartbeatMs > 0) this.watchdog = setTimeout(() => this.onSilent(), 2 * this.heartbeatMs);
  }

  onHeartbeat(e) {
    let ms = 0;
    try {
      ms = Number(JSON.parse(e.data).interval_ms);
    } catch { /* a heartbeat that cannot be read still shows the stream is alive */ }
    if (Number.isFinite(ms) && ms > 0) this.heartbeatMs = ms;
    this.heard();
  }

  /** Nothing came for twice the heartbeat's interval: said, and the stream opened again. */
  onSilent() {
    if (this.closed || !this.source) return;
    const s = (2 * this.heartbeatMs) / 1000;
    this.source.close();
    this.source = null;
    this.setStatus({ status: 'silent', message: `nothing came from the server for ${s} s (it sends a heartbeat every ${this.heartbeatMs / 1000} s); connecting again` });
    this.open();
  }

  onSnapshot(e) {
    this.heard();
    this.retry = 0;
    this.lastId = e.lastEventId || this.lastId;
    this.lastChangeMs = Date.now();
    if (this.firstDone) {
      this.firstDone.resolve({ text: e.data });
      this.firstDone = null;
      return;
    }
    this.sink.snapshot(e.data);
    this.received++;
    this.news++;
    this.wake();
  }

  onChange(e) {
    this.heard();
    if (this.firstDone) return; // no first state yet: the stream's first event (a snapshot) holds it
    this.retry = 0;
    this.lastId = e.lastEventId || this.lastId;
    this.lastChangeMs = Date.now();
    const applied = this.sink.change(e.data);
    if (!applied) {
      this.resync('a change could not be applied');
      return;
    }
    this.received++;
    if (applied.news) this.news++;
    this.wake();
  }

  onStatus(e) {
    this.heard();
    let s;
    try {
      s = JSON.parse(e.data);
    } catch {
      s = { status: 'error', message: 'the server sent a status that could not be read' };
    }
    const status = { status: String(s.status || 'error'), message: String(s.message || '') };
    // why the job's recording stopped (serve --record), told with every status from then on
    if (s.recording) status.recording = String(s.recording);
    this.setStatus(status);
  }

  setStatus(s) {
    this.status = s;
    this.post({ status: s });
  }

  /**
   * The stream broke (the server went away, or refused it): tried again after a growing delay,
   * for ever, the page told why. Before the first state, the start is tried again whole (the
   * snapshot fetched, then the stream), so a refused start is not the end of the feed.
   */
  async onError(es) {
    if (this.closed || es !== this.source) return;
    clearTimeout(this.watchdog);
    const refused = es.readyState === EventSource.CLOSED;
    es.close();
    this.source = null;
    const why = refused ? await refusal(this.urlNow()) : null;
    if (this.closed) return;
    const message = why ? `the live stream was refused: ${why}` : "the connection to the dashboard's server was lost";
    const delay = RETRY_MS[Math.min(this.retry++, RETRY_MS.length - 1)];
    this.setStatus({ status: why ? 'error' : 'reconnecting', message: `${message}; trying again in ${delay / 1000} s` });
    this.retryTimer = setTimeout(() => {
      if (this.closed) return;
      if (this.firstDone) this.start();
      else this.open();
    }, delay);
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
    this.setStatus({ status: 'reconnecting', message: `${reason}; reading the whole state again` });
    this.open();
  }

  /** Tells the page that changes wait: at once the first time after a take, then at most every NOTICE_MS. */
  wake() {
    if (!this.notified) {
      this.notified = true;
      this.notice();
    } else if (!this.timer) {
      this.timer = setTimeout(() => { this.timer = 0; if (this.received) this.notice(); }, NOTICE_MS);
    }
  }

  notice() {
    this.post({ pending: this.received, news: this.news, lastChangeMs: this.lastChangeMs });
  }

  /** How many events arrived since the last take, and when the last one did. */
  take() {
    this.notified = false;
    const received = this.received;
    this.received = 0;
    this.news = 0;
    return { received, lastChangeMs: this.lastChangeMs };
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    clearTimeout(this.retryTimer);
    clearTimeout(this.watchdog);
    this.source?.close();
    this.firstDone?.reject(liveError('the live stream was closed', 'superseded'));
  }
}
