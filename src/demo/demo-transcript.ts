import type { Category } from './demo-data.js';
import type { DemoRandom } from './demo-random.js';
import type { DemoRouting } from './demo-routing.js';

export interface DemoTurn {
  speaker: string;
  speaker_name: string | null;
  segment: string;
  text: string;
  start_s: number | null;
}

export interface DemoBriefing {
  attempt: number;
  name: string;
  outcome: string;
  start_turn: number;
  turn_count: number;
}

export interface DemoTranscript {
  turns: DemoTurn[];
  briefings: DemoBriefing[];
  /** Part of the staff conversation was not transcribed. */
  partial: boolean;
  /** Seconds the call took, from the turns' pace. */
  seconds: number;
}

interface Scene {
  category: Category;
  caller: string;
  first: string;
  /** The caller's number as they said it. */
  callerNumberAsSaid: string;
  spanish: boolean;
  /** Calls from before timings were recorded carry no start_s. */
  untimed: boolean;
  reason: string;
  message: string;
  injuries: string;
}

class Script {
  readonly turns: DemoTurn[] = [];
  seconds = 0;
  constructor(private readonly untimed: boolean) {}
  say(speaker: string, segment: string, text: string, name: string | null = null): void {
    this.turns.push({ speaker, speaker_name: name, segment, text, start_s: this.untimed ? null : Math.round(this.seconds * 10) / 10 });
    this.seconds += 3 + text.length / 14;
  }
}

function intake(s: Script, c: Scene, transfer: boolean, rnd: DemoRandom): void {
  s.say(
    'receptionist',
    'intake',
    c.spanish ? 'Harper Injury Law, habla Ava. ¿En qué le puedo ayudar?' : 'Harper Injury Law, this is Ava. How can I help?',
  );
  s.say('caller', 'intake', `${c.spanish ? 'Hola, me llamo' : 'Hi, my name is'} ${c.caller}. ${c.reason}`);
  s.say(
    'receptionist',
    'intake',
    c.spanish
      ? 'Lo siento mucho. ¿Cuál es el mejor número para devolverle la llamada?'
      : 'Thank you. What is the best number to call you back?',
  );
  s.say('caller', 'intake', c.callerNumberAsSaid);
  if (c.category === 'new_injury_lead') {
    s.say('receptionist', 'intake', 'When did this happen, and were you hurt?');
    s.say('caller', 'intake', `It was ${rnd.int(20) + 1} days ago. I have ${c.injuries}.`);
  }
  s.say(
    'receptionist',
    'intake',
    transfer ? 'Please hold while I connect you.' : 'I will pass your message to the team; someone will call you back.',
  );
}

function briefings(s: Script, c: Scene, routing: DemoRouting): DemoBriefing[] {
  return routing.briefed.map((r, k) => {
    const startTurn = s.turns.length;
    s.say('receptionist', 'briefing', `${r.name.split(' ')[0]}, I have ${c.caller} on the line: ${c.reason}`);
    s.say('staff', 'briefing', r.outcome === 'declined' ? 'I am in a meeting, please take a message.' : 'Okay, put them through.', r.name);
    return {
      attempt: routing.rung.indexOf(r) + 1 || k + 1,
      name: r.name,
      outcome: r.outcome,
      start_turn: startTurn,
      turn_count: s.turns.length - startTurn,
    };
  });
}

function conversation(s: Script, c: Scene, staff: string): void {
  s.say('staff', 'conversation', `Hi ${c.first}, this is ${staff.split(' ')[0]}. I understand ${c.reason.toLowerCase()}`, staff);
  s.say('caller', 'conversation', c.message);
  s.say(
    'staff',
    'conversation',
    c.category === 'new_injury_lead' ? 'Let us set up a free consultation. Does tomorrow at 10 work?' : 'I will take care of that today.',
    staff,
  );
  s.say('caller', 'conversation', 'Yes, thank you.');
}

/** The transcript: intake, one briefing per person who picked up, then the staff conversation. */
export function demoTranscript(scene: Scene, routing: DemoRouting, rnd: DemoRandom): DemoTranscript {
  const s = new Script(scene.untimed);
  intake(s, scene, routing.outcome !== 'not_attempted', rnd);
  const briefed = briefings(s, scene, routing);
  const partial = routing.connectedTo !== null && rnd.chance(0.1);
  if (routing.connectedTo) conversation(s, scene, routing.connectedTo);
  return { turns: s.turns, briefings: briefed, partial, seconds: s.seconds };
}
