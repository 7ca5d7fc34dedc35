import { passwordKey } from '../../src/events/event-password';
import { dayNumber, SECONDS_PER_DAY } from './time';

/** What to generate. Same plan → same rows. */
export interface SeedPlan {
  seed: number;
  events: number;
  /** Recurring series (docs/api.md §16), each with its occurrences up to the horizon. */
  series: number;
  /** RECURRENCE_HORIZON_MONTHS: how far ahead occurrences are materialized. */
  horizonMonths: number;
  venues: number;
  organizers: number;
  categories: number;
  tags: number;
  /** Days since 1970-01-01 of "today": events lie five years either side of it. */
  today: number;
  /** Latest publication or modification time: 00:00 UTC of today. */
  now: number;
  /** Key of the event password hashes (the service's, from AUTH_JWT_SECRET). */
  passwordKey: Buffer;
  /** Password of the protected events. */
  password: string;
}

export interface PlanInput {
  seed?: number;
  events?: number;
  series?: number;
  horizonMonths?: number;
  venues?: number;
  organizers?: number;
  categories?: number;
  tags?: number;
  /** `YYYY-MM-DD`; default the current UTC date. */
  today?: string;
  jwtSecret?: string;
  password?: string;
}

export const DEFAULTS = {
  seed: 42,
  events: 1000,
  series: 0,
  horizonMonths: 24,
  venues: 100,
  organizers: 100,
  categories: 20,
  tags: 50,
  password: 'secret',
} as const;

export function makePlan(input: PlanInput = {}): SeedPlan {
  const today = dayNumber(input.today ?? new Date().toISOString().slice(0, 10));
  return {
    seed: (input.seed ?? DEFAULTS.seed) >>> 0,
    events: input.events ?? DEFAULTS.events,
    series: input.series ?? DEFAULTS.series,
    horizonMonths: input.horizonMonths ?? DEFAULTS.horizonMonths,
    venues: input.venues ?? DEFAULTS.venues,
    organizers: input.organizers ?? DEFAULTS.organizers,
    categories: input.categories ?? DEFAULTS.categories,
    tags: input.tags ?? DEFAULTS.tags,
    today,
    now: today * SECONDS_PER_DAY,
    passwordKey: passwordKey(input.jwtSecret || undefined),
    password: input.password ?? DEFAULTS.password,
  };
}

/** ID of the first tag: categories come first. */
export function firstTagId(plan: SeedPlan): number {
  return plan.categories + 1;
}
