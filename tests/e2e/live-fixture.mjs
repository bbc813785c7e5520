// The live page's fixture: a real nats-server on 127.0.0.1, a Spate job written into it (the
// demo fleet, loaded by the hidden `restore` command: buckets as Spate creates them, the lease
// bucket with limit markers and a max_age of 10 min, so that nothing expires during a test however
// busy the machine), and a writer (the `nats` npm client) that
// changes the running job as workers would.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtemp, rm, readFile, writeFile } from 'node:fs/promises';
import { createServer, connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'nats';
import { cli, startServer } from './browser.mjs';

const natsBin = process.env.NATS_SERVER
  || join(execFileSync('python3', ['-c', 'import sysconfig; print(sysconfig.get_path("scripts"))']).toString().trim(), 'nats-server');

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
    s.on('error', reject);
  });
}

function listening(port) {
  return new Promise((resolve) => {
    const c = tcpConnect(port, '127.0.0.1', () => { c.destroy(); resolve(true); });
    c.on('error', () => resolve(false));
  });
}

async function until(fn, ms, what) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await fn()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out: ${what}`);
}

/** A JetStream-enabled nats-server with its store in a temporary directory; kill() and restart() keep port and store. */
export async function startNats() {
  const dir = await mkdtemp(join(tmpdir(), 'spate-live-page-'));
  const port = await freePort();
  const nats = {
    port,
    url: `nats://127.0.0.1:${port}`,
    dir,
    child: null,
    async start() {
      this.child = spawn(natsBin, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', join(dir, 'store')], { stdio: 'ignore' });
      await until(() => listening(port), 10000, 'nats-server listening');
    },
    async kill() {
      const c = this.child;
      this.child = null;
      if (!c) return;
      const gone = new Promise((r) => c.once('exit', r));
      c.kill('SIGKILL');
      await gone;
    },
    async restart() {
      await this.start();
    },
    async stop() {
      await this.kill();
      await rm(dir, { recursive: true, force: true });
    },
  };
  await nats.start();
  return nats;
}

/**
 * Writes the demo job (`spate-planner demo`) into the server; returns the snapshot file written.
 * `leaseTtlMs`: the lease TTL (the lease bucket's max_age; Spate's is 30 s, but a presence must not
 * expire during a test on a busy machine unless the test asks for it).
 */
export async function writeDemoJob(nats, job, { splits = 60, members = 4, leaseTtlMs = 600000 } = {}) {
  const file = join(nats.dir, `${job}.json`);
  const demo = await cli(['demo', '--splits', String(splits), '--members', String(members), '--job', job, '-o', file]);
  if (demo.status !== 0) throw new Error(demo.stderr);
  await writeFile(file, (await readFile(file, 'utf8')).replace('"max_age_ms":30000', `"max_age_ms":${leaseTtlMs}`));
  const restore = await cli(['restore', file, '--server', nats.url]);
  if (restore.status !== 0) throw new Error(restore.stderr);
  return file;
}

/** The job's writer: puts and deletes as Spate's workers and leader do; each resolves to the revision written. */
export async function jobWriter(nats, job) {
  const nc = await connect({ servers: `127.0.0.1:${nats.port}`, maxReconnectAttempts: -1, reconnectTimeWait: 250 });
  const js = nc.jetstream();
  const jsm = await nc.jetstreamManager();
  const buckets = {
    state: await js.views.kv(`spate_coordination_${job}_state`, { bindOnly: true }),
    lease: await js.views.kv(`spate_coordination_${job}_lease`, { bindOnly: true }),
  };
  const lastSeq = async (bucket) => (await jsm.streams.info(`KV_spate_coordination_${job}_${bucket}`)).state.last_seq;
  return {
    /** Puts a JSON value (given as text, so that u64 fields stay exact); the revision. */
    put: (bucket, key, text) => buckets[bucket].put(key, text),
    async delete(bucket, key) {
      await buckets[bucket].delete(key);
      return lastSeq(bucket);
    },
    /** A purge marker: how NATS reports a `max_age` expiry on a bucket with limit markers (a crash). */
    async purge(bucket, key) {
      await buckets[bucket].purge(key);
      return lastSeq(bucket);
    },
    /** The values held now ({ key: text }) of keys starting with `prefix`. */
    async values(bucket, prefix) {
      const out = {};
      for await (const key of await buckets[bucket].keys(`${prefix}>`)) {
        const e = await buckets[bucket].get(key);
        if (e && e.operation === 'PUT') out[key] = e.string();
      }
      return out;
    },
    /** Publishes many puts without waiting for each (a flood); resolves to the last revision. */
    async flood(bucket, entries) {
      const acks = entries.map(([key, text]) => js.publish(`$KV.spate_coordination_${job}_${bucket}.${key}`, new TextEncoder().encode(text)));
      const done = await Promise.all(acks);
      return Math.max(...done.map((a) => a.seq));
    },
    lastSeq,
    deleteBucket: (bucket) => jsm.streams.delete(`KV_spate_coordination_${job}_${bucket}`),
    close: () => nc.close(),
  };
}

/**
 * A followed job: NATS with the demo job `job` written (`options` as writeDemoJob's), its writer
 * and `serve --server` on it; `stop()` ends all three.
 */
export async function followedJob(job, options) {
  const nats = await startNats();
  await writeDemoJob(nats, job, options);
  const writer = await jobWriter(nats, job);
  const server = await startServer(['--server', nats.url]);
  return {
    nats, writer, server,
    async stop() {
      server.stop();
      await writer.close();
      await nats.stop();
    },
  };
}
