import { durationAdjective, durationText } from '../common/duration-text.js';

/** The recordings context's rules that integrators are told, each named once: the service and the document read them here. */

/** A playback link works this long after it was made (sooner gone when its key is revoked or the recording removed). */
export const LINK_LIFETIME_MS = 60 * 60 * 1000;
/** The lifetime as the document words it: "one hour", "a one-hour link". */
export const LINK_LIFETIME_TEXT = durationText(LINK_LIFETIME_MS, 'hour');
export const LINK_LIFETIME_ADJECTIVE = durationAdjective(LINK_LIFETIME_MS, 'hour');
