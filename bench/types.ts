/** One measured operation; `reference` is the same work done natively in the same run. */
export interface BenchRow {
  name: string;
  ms: number;
  reference?: { name: string; ms: number };
  note?: string;
}
