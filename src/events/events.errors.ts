import { errorsOf, type ErrorCodes } from '../common/errors/domain-error.js';
import { problemExample } from '../common/http/problem.schema.js';

/** The events context's problem codes (never renamed: integrators branch on them), with their titles and HTTP answers. */
export const EVENTS_ERRORS = {
  after_lost: { title: 'The event named by after is no longer in the log.', status: 400 },
} as const satisfies ErrorCodes;

const EventsError = errorsOf(EVENTS_ERRORS);

/**
 * `after` names an event the log no longer has, though its id is one the service made within the 30 days: a database
 * promotion lost it (or it was never this firm's). `restart_after` is the kept event to resume after (null: from the
 * oldest kept); a reader that resumes there and skips the ids it already handled misses nothing the log has.
 */
export class AfterLostError extends EventsError {
  readonly code = 'after_lost';
  constructor(restartAfter: string | null) {
    super(
      'after names an event this log no longer has (a database failover can lose the last events written before it). ' +
        (restartAfter === null
          ? 'Start again without after (from the oldest kept event) and skip the event ids you have already handled.'
          : 'Ask again with after set to restart_after and skip the event ids you have already handled.'),
      { param: 'after', restart_after: restartAfter },
    );
  }
}

/** An example answer, for the document. */
export const AFTER_LOST_EXAMPLE = problemExample(
  EVENTS_ERRORS,
  'after_lost',
  new AfterLostError('evt_01kqhxrjbg000100000003a7k6b4rx9t').detail,
  {
    param: 'after',
    restart_after: 'evt_01kqhxrjbg000100000003a7k6b4rx9t',
  },
);
