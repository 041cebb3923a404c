/**
 * A pause that is part of a test's scenario (a poller's interval, a
 * transaction held open to commit late, a lock held for a while), never a
 * wait for something to happen: for that, poll with `waitFor`.
 */
export const hold = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
