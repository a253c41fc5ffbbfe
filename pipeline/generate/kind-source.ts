import type { KindName } from '../../shared/records/kinds.ts';

/**
 * How one kind's file is produced: `units` independent pieces of work (usually one per
 * profile), each yielding its records from its own random stream. Units are small, so
 * nothing proportional to the number of rows is ever held in memory.
 */
export interface KindSource {
  readonly kind: KindName;
  readonly units: number;
  recordsOf(unit: number): Iterable<object>;
}
