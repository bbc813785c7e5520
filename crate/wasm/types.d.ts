/** Decimal string of an unsigned 64- or 128-bit integer (exact; never a JS number). */
export type U64 = string;
/** Decimal string of a signed 64-bit integer (ms since the Unix epoch, or a signed duration). */
export type I64 = string;

export interface Warning { code: string; bucket: string; key: string; message: string; }
export interface Source { kind: string; server?: string; note?: string; }
export type CapSource = "user" | "leader_presence" | "spate_default";
export type CapUnknown = "no_leader_record" | "leader_not_present" | "presence_unreadable" | "no_cap";
export interface DefaultCap { value: number; source: CapSource; leader: string | null; unknown: CapUnknown | null; }
/** The release whose decision rules apply ("0.1" covers 0.2) and where that comes from. */
export type Rules = "0.1" | "0.3";
export type RulesSource = "user" | "elector" | "no_elector" | "store_names_no_version";
export interface RulesChoice { rules: Rules; source: RulesSource; }
export interface MemberLine { name: string; max_in_flight: number | null; readable: boolean; left_ms: I64; }

/** What a snapshot holds, before any plan (`Planner.info()`). */
export interface FleetInfo {
  job: string; source: Source; taken_at_ms: I64; seed: U64;
  seed_source: "plan" | "split_records" | "none"; fingerprint: string | null;
  plan_generation: U64 | null; finality: "open" | "final" | null; leader: string | null;
  lease_ttl_ms: U64; store_default_cap: DefaultCap; store_rules: RulesChoice; probes_0_3: string[];
  members: MemberLine[]; splits: number;
  departed_owners: string[]; recent_departures: string[]; published: number; foreign: string[];
  warnings: Warning[];
}

export type Departure = "crash" | "crash_after_delay" | "graceful";
/** A what-if change (docs/scenario-format.md). u64 fields may be numbers or decimal strings. */
export type Change =
  | { op: "add_member"; member: string; cap?: number }
  | { op: "remove_member"; member: string; departure?: Departure; within_rebalance_delay?: boolean }
  | { op: "release_departed"; member: string }
  | { op: "set_cap"; member: string; cap: number }
  | { op: "set_default_cap"; cap: number }
  | { op: "reserve"; splits: string[] }
  | { op: "release"; splits: string[] }
  | { op: "set_weight"; split: string; weight: U64 | number }
  | { op: "add_splits"; count: U64 | number; weight: U64 | number; prefix: string; owner?: string }
  | UnknownChange;
/**
 * A change whose `op` this planner does not know, or that it cannot read (a bad field), kept as
 * written; it is refused (`unknown_op`, `invalid_change`).
 */
export interface UnknownChange { op: string; [field: string]: unknown; }
export interface Scenario {
  format: string; default_cap?: number; rebalance_delay_ms?: U64 | number; rules?: Rules | "0.2";
  /** The workers' max_attempts (absent: Spate's 4; the store does not record it). */
  max_attempts?: number; changes: Change[];
}

export interface Departed {
  instance: string; origin: "store" | "scenario";
  state: "withheld" | "released" | "returned" | "no_delay";
  /** How it left, as a what-if change says (null: a departure the store shows). */
  departure: "crash" | "crash_after_delay" | "graceful" | null;
  /** Assignable splits still in its name, which the plan withholds; splits a graceful stop released. */
  withheld: number; released: number;
}
export interface Finding { level: "fatal" | "warning" | "notice"; code: string; message: string; }
export interface MemberReport {
  name: string; cap: number; default_cap: boolean; lanes: number; lanes_now: number;
  load_now: U64; load_planned: U64;
  /** `load_planned - load_now`, a signed decimal string ("-1024"). */
  load_change: string; gained: number; lost: number;
}
export type Reason =
  | "unowned" | "owner_gone" | "over_cap" | "improve" | "queued"
  | "lease_not_current" | "previous" | "record_owner";
export interface MoveReport {
  split: string; weight: U64; from: string | null; to: string | null; reason: Reason; gain: U64 | null;
  /** What the improving move took off the heavier of its two members: min(weight, gain / weight). */
  relief: U64 | null;
}
/** A reason in the words the report and the dashboard use, and in a sentence. */
export interface ReasonWords { reason: Reason; words: string; help: string; }
/** A figure of the Details table: counts as numbers, bytes as decimal strings, ratios with four decimals. */
export type FigureValue = { count: number } | { bytes: U64 } | { ratio: string } | { text: string };
export interface Figure { label: string; value: FigureValue; unit?: string; note?: string; }
export interface Counts {
  splits: number; assigned: number; queued: number; reserved: number; completed: number;
  quarantined: number; waiting_for_spec: number;
}
export interface Balance {
  total: U64; max_load: U64; min_load: U64; mean_load: number; lower_bound: U64;
  max_over_bound: number; max_over_mean: number;
}
export interface Churn { moves: number; weight_moved: U64; from_live_members: number; }
export interface Report {
  members: MemberReport[]; moves: MoveReport[]; queue: string[]; counts: Counts; balance: Balance;
  churn: Churn; improving_moves: number; bound_hit: boolean; improvable: boolean;
}
export interface PublishedDistance { records: number; changes: number; stale: string[]; conflicts: Record<string, string[]>; }
/** A change of the scenario left out of the plan, and why (`index` in `scenario.changes`). */
export interface Refused { index: number; code: string; path: string; message: string; }
/** One side of the summary, measured against the mean it names. */
export interface SummarySide {
  measured_against: "mean_now" | "mean_planned"; total: U64; mean_load: number; max_load: U64;
  max_over_mean: string; over_mean: number; at_cap: number;
}
export interface Heaviest { name: string; load_now: U64; load_planned: U64; now_over_mean: string; planned_over_mean: string; }
export interface Marks {
  name: string; over_now: boolean; over_planned: boolean; at_cap_now: boolean; at_cap_planned: boolean;
  now_over_mean: string; planned_over_mean: string;
}
/** Who is over the mean and at the cap, now and planned (`report.members` order in `marks`). */
export interface Summary {
  members: number; over_mean_percent: number; now: SummarySide; planned: SummarySide;
  heaviest_now: Heaviest | null; heaviest_planned: Heaviest | null; marks: Marks[];
  moves: number; weight_moved: U64;
}

/** The plan document (`spate-planner plan --json`); `Planner.plan()` omits `assignment`. */
export interface PlanView {
  format: string; job: string; taken_at_ms: I64; seed: U64;
  leader_publishes: boolean; no_publish_reason: "no_plan" | "no_members" | null;
  default_cap: number; default_cap_source: CapSource; default_cap_note: string;
  rules: Rules; rules_source: RulesSource; rules_note: string;
  rebalance_delay_ms: U64; departed: Departed[]; reserved: string[]; findings: Finding[];
  scenario: Scenario; refused: Refused[]; assignment?: Record<string, string[]>; report: Report;
  summary: Summary; figures: Figure[]; reasons: ReasonWords[]; published: PublishedDistance | null;
  at_risk: Exposure; warnings: Warning[];
}
/** A runnable split at (or past) the last attempt. */
export interface RiskySplit {
  id: string; attempts: number; epoch: U64; weight: U64 | null; owner: string | null;
  lease_owner: string | null;
  /** The live member holding it now (the lease's owner, else the record's), if any. */
  held_by: string | null;
}
/** A quarantined split with the claim race's signature (timing.md §6.7 A12). */
export interface RaceParked {
  id: string; member: string; epoch: U64; lease_epoch: U64; attempts: number; weight: U64 | null;
  lease_left_ms: I64 | null;
}
/**
 * The splits one attempt from quarantine (runnable at `max_attempts − 1`), past it, and parked by
 * the claim race; the lists only in `plan --json` and the claims document, not `Planner.plan()`.
 */
export interface Exposure {
  max_attempts: number; max_attempts_source: "user" | "spate_default"; max_attempts_note: string;
  count: number; weight: U64; by_member: Record<string, number>; unheld: number;
  past_cap_count: number; race_parked_count: number; headline: string;
  past_cap_note: string | null; race_parked_note: string | null;
  splits?: RiskySplit[]; past_cap?: RiskySplit[]; race_parked?: RaceParked[];
}
/** `Planner.analyse()`: the plan and its baseline (null when the scenario has no change). */
export interface Analysed { view: PlanView; baseline: PlanView | null; }

export interface ActionView { order: number; split: string; action: "claim" | "quarantine"; kind: "create" | "released" | "reclaim" | "expired"; }
export interface WorkerLine {
  cap: number; held: number; has_assignment: boolean; actions: number; acts: boolean; skipped: number;
  /** Why it skipped candidates, in words (null: it skipped none). */
  skipped_why: string | null;
}
export interface ClaimsTotals { members: number; actions: number; acting: number; idle: number; }
/** The workers' next actions (`spate-planner claims --json`). */
export interface ClaimsDocument {
  format: string; job: string; taken_at_ms: I64; assignment_source: "published" | "plan";
  max_attempts: number; rules: Rules; rules_source: RulesSource; rules_note: string;
  claims: Record<string, ActionView[]>; drains: Record<string, string[]>;
  fenced: Record<string, string[]>; workers: Record<string, WorkerLine>; totals: ClaimsTotals;
  at_risk: Exposure;
}

export interface SplitLine {
  id: string; status: "runnable" | "completed" | "quarantined"; completed: boolean;
  owner: string | null; lease_owner: string | null; lease_left_ms: I64 | null; epoch: U64;
  attempts: number; weight: U64 | null; reserved: boolean; planned: string | null;
}
/** One timeline row of a live frame: what happened since the frame before (at most 8 names). */
export interface LiveEvent {
  kind: "joined" | "left" | "cap" | "leader" | "plan" | "resync" | "claimed" | "completed" | "quarantined" | "published";
  text: string; names: string[];
}
/** Planner.nextFrame: the frame's events, and the revisions ("S-L") it stands at. */
export interface LiveFrame { rows: LiveEvent[]; revisions: string; }
/** Planner.incidents(): one membership or leadership change of a live job, as the person on call reads it. */
export interface IncidentView {
  id: U64; kind: "crashed" | "stopped" | "joined" | "restarted" | "cap" | "leader"; member: string;
  at_ms: I64; at_text: string; ago_text: string;
  phase: "withheld" | "due" | "released" | "settled" | "informational";
  title: string; happened: string; leader: string;
  window_ends_ms: I64 | null; window_ends_by_ms: I64 | null;
  withheld: { splits: U64; bytes: U64 };
  receivers: { member: string | null; splits: U64; bytes: U64; text: string }[];
  risk: string[]; verdict: string[];
  /** The simulator's prediction of when every withheld split runs again, and its range. */
  recovery: string[]; recovery_from_ms: I64 | null; recovery_to_ms: I64 | null;
}
/** Replay.info(): what a recording holds (docs/recording-format.md). */
export interface ReplayInfo {
  job: string; source: Source; segments: number; moments: number; start_ms: I64; end_ms: I64;
  first_revisions: string; last_revisions: string; warnings: string[];
}
/** Replay.outline(): the moments the replay bar steps to, and the stretches of moments that cannot be planned (a value the leader would refuse). */
export interface ReplayOutline {
  steps: number[];
  refused: { first: number; last: number; first_ms: I64; last_ms: I64; code: string; message: string; bucket: string | null; key: string | null; path: string | null }[];
}
/** Replay.seek(): the moment (its line and what the line holds), what happened since the moment shown before. */
export interface ReplayFrame {
  moment: number; at_ms: I64; revisions: string; line: number; kind: "state" | "change" | "status";
  rows: LiveEvent[]; statuses: [I64, string, string | null][];
}
export interface Round {
  round: number; moves: number; weight_moved: U64; improving_moves: number; bound_hit: boolean;
  /** Four decimals. */
  max_over_mean: string; max_over_bound: string;
}
/** `Planner.converge()`: the document of `spate-planner converge --json`. */
export interface Convergence { format: string; rounds: Round[]; converged: boolean; verdict: string; }
/** When a followed job is stale (no change for longer than the lease TTL): `Planner.freshness()`. */
export interface Freshness { last_change_ms: I64; lease_ttl_ms: U64; stale_after_ms: I64 | null; }
export interface SweepStep {
  value: number; members: number; max_load: U64; mean_load: number; max_over_mean: string;
  max_over_bound: string; queued: number; moves: number; bytes_moved: U64; at_cap: number;
  bound_hit: boolean;
  /** This step plans today's fleet (the scenario as it is). */
  today: boolean;
  /** The members a sweep of `members` removes at this step, in order (absent: none). */
  removed?: string[];
  /** With a crash script: its heaviest member crashed, simulated (`sweep --crash-heaviest`). */
  crash?: CrashFigures;
}
/** `Planner.sweepVerdict()`: per step whether it meets the targets, and the smallest value that does. */
export interface SweepVerdict { meets: boolean[]; smallest: number | null; /** The verdict in the core's words (`sweep --json`'s `verdict`). */ text: string; }
/** `Planner.reviewReport()`'s sweep: as `Planner.sweep()`'s arguments; `crash` the crash steps' script text ("" for none); the targets give the verdict. */
export interface ReviewSweep { axis: string; from: number; to: number; cap?: number; crash?: string; max_over_mean?: number | null; max_queued?: number; }
/** `Planner.reviewReport()`, `timelineSection()`: the Markdown and the charts it links by file name (`spate-planner report -o`'s files). */
export interface ReviewFiles { markdown: string; images: { name: string; svg: string }[]; }
/** `Planner.sweepToday()`: the value that is today's fleet (null: none is), in words too. */
export interface SweepToday { value: number | null; note: string; }
/** `Planner.simDefaults()`: what a Timeline script leaves unset takes, for this snapshot. */
export interface SimDefaults {
  /** The release whose timing and decisions the fleet follows: the one the store names. */
  rules: Rules;
  /** Where the fleet starts: the snapshot as it is, or settled on its plan. */
  start: "snapshot" | "planned";
  rebalance_delay_ms: U64; lease_duration_ms: U64; reconcile_interval_ms: U64; drain_deadline_ms: U64;
  max_attempts: number; detection_ms: U64; drain_ms: U64; seed: U64; until_ms: U64;
}
/** A sweep step's crash of its heaviest member, from the fleet settled on the step's plan. */
export interface CrashFigures {
  member: string; recovery_ms: U64 | null; idle_split_ms: U64; idle_weighted: string;
  /** `recovery_ms` in seconds, one decimal (null: never); `idle_split_ms` in whole seconds, rounded. */
  recovery_s: string | null; idle_split_s: U64;
}
export interface Identity {
  job: string; taken_at_ms: I64; plan_generation: U64 | null; members: number; splits: number; rules: RulesChoice;
}
export interface MemberChange {
  name: string; load_before: U64 | null; load_after: U64 | null; cap_before: number | null; cap_after: number | null;
  /** `load_after - load_before` (a side where it is not a member counts 0), a signed decimal string. */
  load_change: string;
}
export interface CapChange { name: string; before: number; after: number; }
export interface OwnerChange { split: string; before: string | null; after: string | null; }
export interface DiffFigures {
  max_load_now: U64; max_load_planned: U64; max_over_mean_planned: string; queued: number;
  moves: number; bytes_moved: U64; completed: number; quarantined: number;
}
/** `Planner.compare(before, scenario)`: the document of `spate-planner diff --json` (`--rules` the scenario's). */
export interface Diff {
  before: Identity; after: Identity; joined: string[]; left: string[]; members: MemberChange[];
  cap_changes: CapChange[]; owner_changed: number; owner_changes: OwnerChange[];
  figures_before: DiffFigures; figures_after: DiffFigures;
  decision: {
    published: boolean; matches: boolean; differing: number;
    differences: Record<string, [string | null, string | null]>; verdict: string;
  };
  /** Whether "before" was taken before "after"; the warning when it was not. */
  chronology: "forward" | "same_instant" | "backwards"; chronology_warning: string | null;
  /** Every warning of the comparison in the core's words (the Compare tab and the review document show them). */
  warnings: string[];
}
/** One rule set's plan in figures (`RulesDiff`). */
export interface RulesSide {
  rules: Rules; churn: Churn; reassigned: number; weight_reassigned: U64; queued: number; max_load: U64;
  max_over_mean: string; improving_moves: number; bound_hit: boolean; loads: Record<string, U64>;
}
export interface PlacedApart { split: string; published: string | null; by_0_1: string | null; by_0_3: string | null; }
/** `Planner.diffRules(scenario)`: the document of `spate-planner diff-rules --json`. */
export interface RulesDiff {
  format: string; job: string; taken_at_ms: I64; today: RulesChoice; today_note: string; v0_1: RulesSide; v0_3: RulesSide;
  kept_only_by_0_3: string[]; kept_only_by_0_1: string[]; placed_apart: PlacedApart[];
}
/** Errors thrown by this module: an Error with a stable code and where it applies. */
export interface PlannerError extends Error { code: string; bucket?: string; key?: string; path?: string; }

/** How a split was claimed (docs/script-format.md). */
export type ClaimKind = "create" | "released" | "reclaim" | "expired";
/** The simulation's headline figures (docs/simulator.md, "Figures"); times in ms. */
/** Why a split the events took does not run at the end (docs/simulator.md). */
export type Stuck = "parked_by_race" | "quarantined" | "leased_by_gone" | "no_leader" | "withheld" | "no_spec" | "no_free_lane" | "member_full" | "pending";
export interface NotRecovered { split: string; reason: Stuck; member?: string; }
export interface SimFigures {
  recovery_ms: number | null; splits_taken: number; not_recovered: NotRecovered[]; others_not_running: number;
  idle_before: number; quarantined_before: number; idle_split_ms: number; idle_weighted: U64; attempts_burned: number;
  splits_quarantined: number; splits_parked_by_race: number; moves: number; forced_drains: number; replayed_ms: number;
  leadership_gap_ms: number; longest_leadership_gap_ms: number; elections: number; publishes: number;
  claims: number; end_ms: number;
}
/** `figuresTable(a, b, hasEvents)`: one headline figure of A (and B, and B − A); values exact as decimal strings. */
export interface FigureRow {
  key: string; label: string; kind: "ms" | "split_ms" | "byte_ms" | "count"; help: string;
  /** null: no value (`recovery_ms` not recovered, or no events); `a_text` then says which. */
  a: string | null; a_text: string;
  /** Without B: null (as b_text, diff, diff_text). */
  b: string | null; b_text: string | null;
  /** B − A exact and signed (`+1000`, `-32300`, `0`); null when either has no value. */
  diff: string | null;
  /** B − A in words with its sign (`−32.3 s`), `same`, or `—`. */
  diff_text: string | null;
  changed: boolean;
}
/** `timelineSection(input)`: what the review document's Timeline section is written from. */
export interface TimelineSectionInput {
  /** A's script as JSON text, and B's overrides as JSON text (null: no comparison). */
  script: string; b: string | null;
  names: { A: string; B: string | null };
  run: { status: "not_run" }
    | { status: "error"; error: { which: "A" | "B"; message: string; code: string; path: string | null } }
    | { status: "done"; a: TimelineSectionSide; b: TimelineSectionSide | null };
  /** The charts as SVG text; range: [from, to] ms shown (null: the whole run). */
  images: { which: "A" | "B"; svg: string; range: [number, number] | null }[];
}
export interface TimelineSectionSide {
  figures: SimFigures; rules_note: string | null;
  marks: SimMark[];
}
export type SimMarkKind = "crash" | "stop" | "start" | "cap" | "election" | "splits" | "fail" | "ignored" | "parked" | "recovered";
/** A mark on the Timeline's time axis: a scripted happening or an election (one kind at one instant folded into one), splits parked by the claim race (`who`: the splits), or the recovery. */
export interface SimMark { t_ms: number; kind: SimMarkKind; who: string[]; }
/** `SimRun.summary()`: what the Timeline shows of a kept simulation besides its series. */
export interface SimSummary {
  /** As the document of `spate-planner simulate --json` has them. */
  rules: Rules; rules_source: RulesSource; rules_note: string; figures: SimFigures;
  /** In time order, each with its sentence (`0:45 crashed: worker-03`). */
  marks: (SimMark & { text: string })[];
  counts: { claims: number; quarantines: number; parked_by_race: number; elections: number; events: number };
  /** The first scripted event's time; null without events. */
  first_event_ms: number | null;
}
/** `SimRun.fleetAt(t, idleLimit?)`: the fleet at an instant of a kept simulation (docs/simulator.md); `idle` at most `idleLimit` long, the counts whole. */
export interface FleetAt {
  t_ms: U64; leader: string | null;
  counts: { running: U64; draining: U64; idle: U64; completed: U64; quarantined: U64 };
  idle_weight: string;
  idle: { id: string; weight: string; since_ms: U64; last: string | null }[];
  members: { name: string; state: "running" | "crashed" | "stopped" | "not_started"; leader: boolean; load: string; lanes: U64; draining: U64 }[];
}
/** `SimRun.series()`: the Timeline chart's series of a kept simulation (docs/simulator.md, "The chart's series"). */
export interface SimSeries {
  /** Every instance the run knows, in the order of `FleetAt.members`. */
  members: string[]; stepMs: number; buckets: number; endMs: number;
  /** Bucket means, members × buckets row by row: the weight and the number of splits each member reads. */
  load: Float64Array; lanes: Float64Array;
  /** Bucket means of the idle splits' weight and number. */
  idleLoad: Float64Array; idleCount: Float64Array;
}
export interface SimClaim { t_ms: number; member: string; split: string; kind: ClaimKind; attempt: number; }
export interface SimQuarantine { t_ms: number; member: string; split: string; }
export interface SimElection { t_ms: number; member: string; }
/** One happening of the timeline: `t_ms` and its `event` with that event's fields. */
export type SimEvent = { t_ms: number } & (
  | { event: "ignored"; index: number; reason: string }
  | { event: "crashed" | "stopped" | "presence_expired" | "presence_deleted" | "leader_resigned"; member: string }
  | { event: "started"; member: string; nonce: string; cap: number }
  | { event: "cap_set"; member: string; cap: number }
  | { event: "presence_written"; member: string; cap: number | null }
  | { event: "leader_elected" | "plan_written"; member: string; generation: U64 }
  | { event: "leader_key_expired"; owner: string }
  | { event: "published"; leader: string; generation: U64; records: { member: string; splits: string[] }[] }
  | { event: "assign_deleted"; leader: string; member: string }
  | { event: "claim"; member: string; split: string; kind: ClaimKind; attempt: number }
  | { event: "quarantine"; member: string; split: string; attempt: number }
  /** The claim race (timing.md §6.7): `by` parked `member`'s fresh claim of `split`, which never runs again. */
  | { event: "parked_by_race"; member: string; by: string; split: string; attempt: number }
  | { event: "revoke_requested" | "revoke_cancelled" | "decline_forgotten" | "lease_renewed" | "lost" | "completed"; member: string; split: string }
  | { event: "reconciled" | "replan_tick"; member: string }
  | { event: "released"; member: string; split: string; reason: "drained" | "forced" | "declined" | "departure"; replayed_ms: number }
  | { event: "lease_expired"; split: string; owner: string }
  | { event: "failed"; member: string; split: string; attempt: number; quarantined: boolean }
  | { event: "splits_added"; count: number; prefix: string }
  | { event: "job_finished" }
);
/** A split's state over [from_ms, to_ms); `member` for running and draining. */
export interface SplitInterval { from_ms: number; to_ms: number; phase: "running" | "draining" | "idle" | "completed" | "quarantined"; member?: string; }
/** `JSON.parse(Planner.simulate(script))`: the document of `spate-planner simulate --json`. */
export interface SimulationDocument {
  format: string;
  /** The release whose timing and decisions the fleet followed, where that came from, in words. */
  rules: Rules; rules_source: RulesSource; rules_note: string;
  figures: SimFigures; claims: SimClaim[]; quarantines: SimQuarantine[]; elections: SimElection[];
  timeline: SimEvent[]; splits: Record<string, SplitInterval[]>;
}
