export interface BatchedDeletion {
  deleted: number;
  /** DELETE statements issued, each limited to the batch size. */
  batches: number;
}

/**
 * Runs one bounded DELETE after another (each its own short statement, so
 * no long locks) until a batch comes back short.
 */
export async function deleteInBatches(deleteBatch: (batchSize: number) => Promise<number>, batchSize: number): Promise<BatchedDeletion> {
  const run = { deleted: 0, batches: 0 };
  for (;;) {
    const n = await deleteBatch(batchSize);
    run.deleted += n;
    run.batches++;
    if (n < batchSize) return run;
  }
}
