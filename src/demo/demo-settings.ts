/** Published receptionist settings of the demo firm: a small personal-injury practice in Chicago. */
export const DEMO_SETTINGS = {
  agent_name: 'Ava',
  profile: {
    city: 'Chicago',
    state: 'IL',
    address: '120 N LaSalle St, Suite 2000, Chicago, IL 60602',
    phone: '+13125550100',
    fax: '+13125550101',
    contact_email: 'intake@harperlegal.example',
  },
  hours: { timezone: 'America/Chicago', days: [1, 2, 3, 4, 5], start: '08:30', end: '17:30' },
  team: [
    { key: 'dana', name: 'Dana Harper', role: 'Managing attorney', phone: '+13125550111', language: 'en', email: 'dana@harperlegal.example', live_transfers: true, after_hours: false },
    { key: 'luis', name: 'Luis Ortega', role: 'Attorney', phone: '+13125550112', language: 'es', email: 'luis@harperlegal.example', live_transfers: true, after_hours: true },
    { key: 'maya', name: 'Maya Chen', role: 'Intake specialist', phone: '+13125550113', language: 'en', email: 'maya@harperlegal.example', live_transfers: true, after_hours: false },
    { key: 'sam', name: 'Sam Brooks', role: 'Paralegal', phone: '+13125550114', language: 'en', email: null, live_transfers: false, after_hours: false },
  ],
  routing: {
    new_injury_lead: {
      in_hours_chain: ['maya', 'dana'],
      after_hours: 'take_message',
      urgency: 'high',
      always_transfer: true,
      language_overrides: { en: null, es: { in_hours_chain: ['luis'] } },
    },
    existing_client: {
      in_hours_chain: ['sam', 'maya'],
      after_hours: 'take_message',
      urgency: 'normal',
      always_transfer: false,
      language_overrides: { en: null, es: { in_hours_chain: ['luis'] } },
    },
    judge_court: {
      in_hours_chain: ['dana'],
      after_hours: 'take_message',
      urgency: 'high',
      always_transfer: true,
      language_overrides: { en: null, es: null },
    },
    other: {
      in_hours_chain: ['maya'],
      after_hours: 'take_message',
      urgency: 'low',
      always_transfer: false,
      language_overrides: { en: null, es: null },
    },
  },
  alert_emails: ['dana@harperlegal.example', 'maya@harperlegal.example'],
  capture_email: 'leads@harperlegal.example',
  facts: [
    { key: 'fees', label: 'Fees', value: 'No fee unless we win; free consultation.' },
    { key: 'parking', label: 'Parking', value: 'Validated parking at 130 N LaSalle.' },
  ],
  house_rules: ['Never quote settlement values.', 'Offer a callback within one business day.'],
};
