/**
 * How many times JSON.parse ran on a text longer than `minLength` while `fn`
 * ran: the app under test runs in this process and shares the global, so a
 * test can prove a body was refused without ever being parsed.
 */
export async function bigParsesDuring(fn: () => Promise<unknown>, minLength = 10_000): Promise<number> {
  const parse = JSON.parse;
  let count = 0;
  JSON.parse = ((text: string, reviver?: Parameters<typeof parse>[1]) => {
    if (typeof text === 'string' && text.length > minLength) count++;
    return parse(text, reviver);
  }) as typeof JSON.parse;
  try {
    await fn();
  } finally {
    JSON.parse = parse;
  }
  return count;
}
