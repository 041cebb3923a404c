/** The demo firm's world: who calls Harper Injury Law (Chicago), about what, and who takes the call. */

import { type CATEGORIES } from '../calls/index.js';

export type Category = (typeof CATEGORIES)[number];

/** How often each category calls a small PI practice. */
export const WEIGHTS: Record<Category, number> = {
  new_injury_lead: 30,
  existing_client: 22,
  judge_court: 4,
  process_server: 3,
  opposing_counsel: 5,
  referring_attorney: 4,
  insurance_adjuster: 8,
  medical_provider: 6,
  litigation_funding: 2,
  out_of_practice: 4,
  sales: 5,
  wrong_number: 3,
  other: 4,
};

export const TRANSFERS: Partial<Record<Category, string[]>> = {
  new_injury_lead: ['Maya Chen', 'Dana Harper'],
  existing_client: ['Maya Chen'],
  judge_court: ['Dana Harper'],
  opposing_counsel: ['Dana Harper'],
  referring_attorney: ['Dana Harper', 'Maya Chen'],
  insurance_adjuster: ['Maya Chen'],
  medical_provider: ['Maya Chen'],
  other: ['Maya Chen'],
};

export const URGENCY: Record<Category, 'high' | 'normal' | 'low'> = {
  new_injury_lead: 'high',
  existing_client: 'normal',
  judge_court: 'high',
  process_server: 'normal',
  opposing_counsel: 'normal',
  referring_attorney: 'high',
  insurance_adjuster: 'normal',
  medical_provider: 'normal',
  litigation_funding: 'low',
  out_of_practice: 'low',
  sales: 'low',
  wrong_number: 'low',
  other: 'normal',
};

export const FIRST = [
  'Jordan',
  'Maria',
  'Kevin',
  'Aisha',
  'Tom',
  'Lucia',
  'Derek',
  'Priya',
  'Marcus',
  'Elena',
  'Brian',
  'Rosa',
  'Tyrone',
  'Hannah',
  'Jorge',
  'Mei',
  'Patrick',
  'Fatima',
  'Greg',
  'Sofia',
];
export const LAST = [
  'Reyes',
  'Kowalski',
  'Johnson',
  'Nguyen',
  'Okafor',
  'Garcia',
  'Schmidt',
  'Patel',
  'Brooks',
  'Romero',
  'Walsh',
  'Hernandez',
  'Kim',
  'Murphy',
  'Torres',
  'Lee',
];
export const RELATIVES = ['wife', 'husband', 'son', 'daughter', 'mother', 'father', 'brother'];
export const PLACES = [
  'I-90 near the Ohio St exit',
  'Western Ave and Belmont',
  'the Jewel on Clark St',
  'Lake Shore Drive by Fullerton',
  'a CTA bus on Ashland',
  'the parking garage at Water Tower',
  'I-55 near Pulaski',
];
export const INCIDENTS = [
  ['rear-ended at a red light', 'neck and lower back pain', 'physical therapy twice a week'],
  ['hit by a driver turning left', 'broken wrist', 'cast and follow-up with orthopedics'],
  ['slipped on a wet floor with no sign', 'knee injury', 'MRI scheduled'],
  ['T-boned by a delivery truck', 'concussion and bruised ribs', 'ER visit, then primary care'],
  ['struck while riding a bike', 'fractured collarbone', 'surgery last week'],
  ['fell on a broken stair in a rental building', 'ankle sprain', 'urgent care and a brace'],
];
export const CARRIERS = ['State Farm', 'Allstate', 'Progressive', 'GEICO', 'Country Financial', 'Travelers'];
export const COURTS = ['Cook County Circuit Court', 'the Daley Center', 'DuPage County Circuit Court'];
