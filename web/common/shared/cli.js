// The command line that does what the page shows: file names for the files the page offers
// (a scenario, a Timeline script) and the `spate-planner` command that reads them, each word
// quoted for a POSIX shell when it must be. No DOM here.

/** A word for a POSIX shell: as it is when it is plain, else in single quotes. */
export function shellWord(s) {
  const text = String(s);
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}

/** A file name's safe stem from a job's name (`orders`, `fleet` when there is none). */
export function stemOf(job) {
  return String(job || 'fleet').replace(/[^\w.-]+/g, '_');
}

/**
 * The snapshot file a command names: the file the page shows when it came from one (a served
 * or opened `*.json`), else a stand-in the person replaces (`SNAPSHOT.json`).
 */
export function snapshotArg(source) {
  const label = source?.label ?? '';
  const fromFile = (source?.kind === 'file' || source?.kind === 'url') && /\.json$/i.test(label) && !label.includes('/');
  return fromFile ? label : 'SNAPSHOT.json';
}

/** `spate-planner ARGS…` with each argument quoted as it must be. */
export function command(...args) {
  return ['spate-planner', ...args].map(shellWord).join(' ');
}
