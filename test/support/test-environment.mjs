/**
 * Jest's node environment, with the worker's fetch keeping an idle connection for 4 s instead of the server's hint.
 *
 * The service keeps an idle connection for 72 s and says so (`Keep-Alive: timeout=72`); fetch takes that hint less
 * one second. A test process runs the app and its client on one event loop, so when synchronous work (Spectral over
 * the served document, a busy worker) holds the loop across the 71st and 72nd second of a pooled connection's idle
 * time, both timers are due at once: the client sends on the connection, then the server's keep-alive timer destroys
 * it with the request unread, and the request fails with ECONNRESET. With a 4 s client bound the loop would have to
 * be held for over a minute in one piece. This module runs in the worker's own realm (not the test's sandbox), where
 * Node's fetch reads its dispatcher; undici's public `setGlobalDispatcher` sets it. The server is unchanged.
 */
import { TestEnvironment } from 'jest-environment-node';
import { Agent, setGlobalDispatcher } from 'undici';

setGlobalDispatcher(new Agent({ keepAliveTimeout: 4_000, keepAliveMaxTimeout: 4_000 }));

export default TestEnvironment;
