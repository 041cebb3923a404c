// A hostile client in a process of its own, so its work does not slow the test's own measurements (the reads it
// times run in the Jest process): `writers` loops, each sending its request `each` times one after another.
// argv[2]: { baseUrl, each, rampMs, writers: [{ method, path, key, body? }] }: the i-th writer starts i x rampMs after
// the first; `{n}` in a body becomes the request's number.
// stdout: one JSON array of { status, ms }.
const plan = JSON.parse(process.argv[2]);
let sent = 0;
const answers = await Promise.all(
  plan.writers.map(async ({ method, path, key, body }, writer) => {
    const mine = [];
    await new Promise((resolve) => setTimeout(resolve, writer * plan.rampMs));
    for (let i = 0; i < plan.each; i++) {
      const text = body === undefined ? undefined : JSON.stringify(body).replaceAll('{n}', String(++sent));
      const started = performance.now();
      const res = await fetch(new URL(path, plan.baseUrl), {
        method,
        headers: { authorization: `Bearer ${key}`, ...(text === undefined ? {} : { 'content-type': 'application/json' }) },
        body: text,
      });
      await res.arrayBuffer();
      mine.push({ status: res.status, ms: performance.now() - started });
    }
    return mine;
  }),
);
process.stdout.write(JSON.stringify(answers.flat()));
