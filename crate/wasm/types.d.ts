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

/** `Planner.analyse`: the plan, its baseline, and the baseline's figures as `watch` and `/metrics` give them (the live chart's point). */
export interface Analysed { view: PlanView; baseline: PlanView | null; moment: MomentFigures; }

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
  /** What the chart draws of each metric: the members one by one and the rest folded (`Series::chart_of`). */
  charts: { load: SimChart; lanes: SimChart };
  /** The idle work's name in the legend. */
  idleLabel: string;
}

/** What the Timeline's chart draws of one metric of a run. */
export interface SimChart {
  /** The members drawn one by one (indices into `SimSeries.members`, in the order of their colours) and their names. */
  shown: number[]; names: string[];
  /** The other members folded into one, or null when every member is drawn. */
  rest: SimFolded | null;
}

/** The members a chart folds: their sum per bucket (a stacked area), their 10th and 90th percentiles and mean per bucket (lines). */
export interface SimFolded {
  count: number;
  /** `9 other members`; the band's `9 other members: middle 80% and mean`. */
  label: string; bandLabel: string;
  sum: Float64Array; lo: Float64Array; hi: Float64Array; mean: Float64Array;
}
