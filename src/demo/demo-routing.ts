import { TRANSFERS, type Category } from './demo-data.js';
import type { DemoRandom } from './demo-random.js';

export type DemoOutcome = 'connected' | 'declined' | 'caller_gone' | 'no_answer' | 'not_attempted';

export interface Rung {
  name: string;
  outcome: string;
}

export interface DemoRouting {
  /** Who the firm's rules would transfer to (Spanish callers go to Luis); null when the category is not transferred. */
  chain: string[] | null;
  outcome: DemoOutcome;
  rung: Rung[];
  connectedTo: string | null;
  /** The people who picked up and were briefed. */
  briefed: Rung[];
}

function drawOutcome(rnd: DemoRandom): DemoOutcome {
  const r = rnd.float();
  return r < 0.55 ? 'connected' : r < 0.72 ? 'no_answer' : r < 0.86 ? 'declined' : 'caller_gone';
}

function ladder(chain: string[], outcome: DemoOutcome, rnd: DemoRandom): Rung[] {
  switch (outcome) {
    case 'connected':
      return chain.length > 1 && rnd.chance(0.3)
        ? [
            { name: chain[0], outcome: 'no_answer' },
            { name: chain[1], outcome: 'connected' },
          ]
        : [{ name: chain[0], outcome: 'connected' }];
    case 'no_answer':
      return chain.map((name) => ({ name, outcome: rnd.chance(0.3) ? 'voicemail' : 'no_answer' }));
    case 'declined':
    case 'caller_gone':
      return [{ name: chain[0], outcome }];
    default:
      return [];
  }
}

function routing(chain: string[] | null, outcome: DemoOutcome, rung: Rung[]): DemoRouting {
  return {
    chain,
    outcome,
    rung,
    connectedTo: rung.find((r) => r.outcome === 'connected')?.name ?? null,
    briefed: rung.filter((r) => r.outcome === 'connected' || r.outcome === 'declined' || r.outcome === 'caller_gone'),
  };
}

/** Transfers in office hours for routed categories; a share of the attempts ends otherwise than connected. */
export function routeCall(category: Category, language: string, afterHours: boolean, rnd: DemoRandom): DemoRouting {
  const base = TRANSFERS[category];
  const chain = base ? (language === 'es' ? ['Luis Ortega'] : base) : null;
  const outcome: DemoOutcome = chain && !afterHours ? drawOutcome(rnd) : 'not_attempted';
  return routing(chain, outcome, chain ? ladder(chain, outcome, rnd) : []);
}

/** Who takes a call whose category the firm's rules do not route (a test call can still be put through). */
const FALLBACK_CHAIN = ['Maya Chen'];

/** The routing of a call whose outcome is chosen, not drawn (a simulated call), in office hours. */
export function routeAs(category: Category, outcome: DemoOutcome, rnd: DemoRandom): DemoRouting {
  const chain = outcome === 'not_attempted' ? null : (TRANSFERS[category] ?? FALLBACK_CHAIN);
  return routing(chain, outcome, chain ? ladder(chain, outcome, rnd) : []);
}
