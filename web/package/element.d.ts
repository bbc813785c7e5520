// Types of `spate-planner-dashboard/element`: the <spate-planner> custom element.
// Importing the module defines the element. The planner's own types (PlanView, FleetInfo, …)
// are in `spate-planner-dashboard/pkg`.
import type { Counts, Finding } from './pkg/spate_planner.js';

/** `detail` of the `plan-change` event, sent after every plan the element shows. */
export interface PlanChangeDetail {
  /** The scenario planned, as JSON text (docs/scenario-format.md). */
  scenario: string;
  /** Changes of the scenario the core refused (left out of the plan). */
  failures: { index: number; code: string; message: string; path: string }[];
  job: string;
  moves: number;
  boundHit: boolean;
  counts: Counts;
  maxOverMean: number;
  /** Today's heaviest member, loads as decimal strings of bytes. */
  worst: { name: string; now: string; planned: string } | null;
  planMs: number;
  roundTripMs: number;
  /** Following a live job (the `live` attribute): the revisions "S-L" of the state planned; else null. */
  revisions: string | null;
}

export declare class SpatePlannerElement extends HTMLElement {
  /** Resolves once the first snapshot is shown (or refused). */
  readonly ready: Promise<void>;
  /** The what-if scenario as JSON text; assign to replace it. */
  scenario: string;
}

declare global {
  interface HTMLElementTagNameMap { 'spate-planner': SpatePlannerElement; }
  interface HTMLElementEventMap { 'plan-change': CustomEvent<PlanChangeDetail>; }
}

export type { Finding };
