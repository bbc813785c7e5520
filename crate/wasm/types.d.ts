// What no Rust type declares; everything else is generated from the Rust types into
// types.generated.d.ts (scripts/types). Both are in the package's spate_planner.d.ts.

/** Decimal string of a 64- or 128-bit integer (exact; never a JS number); signed (`-1024`, ms before the epoch) where the value may be negative. */
export type U64 = string;
/** Decimal string of a signed 64-bit integer (ms since the Unix epoch, or a signed duration); the generated declarations write every wide integer as `U64`. */
export type I64 = string;

/**
 * A change whose `op` this planner does not know, or that it cannot read (a bad field), kept as
 * written; it is refused (`unknown_op`, `invalid_change`).
 */
export interface UnknownChange { op: string; [field: string]: unknown; }

/** `Planner.analyse()`: the plan and its baseline (null when the scenario has no change). */
export interface Analysed { view: PlanView; baseline: PlanView | null; }

/** Errors thrown by this module: an Error with a stable code and where it applies. */
export interface PlannerError extends Error { code: string; bucket?: string; key?: string; path?: string; }

/** A quarantine of the simulation document (`split` always present). */
export type SimQuarantine = SimMemberRow;
/** An election of the simulation document (no `split`). */
export type SimElection = SimMemberRow;

/** `SimRun.series()`: the Timeline chart's series of a kept simulation (docs/simulator.md, "The chart's series"). */
export interface SimSeries {
  /** Every instance the run knows, in the order of `FleetAt.members`. */
  members: string[]; stepMs: number; buckets: number; endMs: number;
  /** Bucket means, members × buckets row by row: the weight and the number of splits each member reads. */
  load: Float64Array; lanes: Float64Array;
  /** Bucket means of the idle splits' weight and number. */
  idleLoad: Float64Array; idleCount: Float64Array;
  /** Where the scrubber starts: the most idle moment from the first event on (ms, whole seconds). */
  mostIdleMs: number;
}
