/** One measured operation, with an optional reference tool measured on the same input in the same run. */
export interface BenchRow {
  name: string;
  /** Median wall time in milliseconds. */
  ms: number;
  reference?: { name: string; ms: number };
}
