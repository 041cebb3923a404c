import { AccountService } from '../../../src/account';
import { DEMO_SETTINGS } from '../../../src/demo';
import { ReceptionistService } from '../../../src/receptionist';
import { createFirm } from '../../support/factories';
import { sharedMediumService, type SharedMediumService } from '../../support/shared-medium';

const DAY = 86_400_000;

/** AccountService (the dashboard's firm commands, GET /v1/account) against the real database, without HTTP. */
describe('AccountService', () => {
  let m: SharedMediumService<AccountService>;
  let n = 0;

  beforeAll(async () => {
    m = await sharedMediumService(AccountService);
  });
  afterEach(() => m.clock.reset());

  const unique = () => `${process.pid}-${++n}-${Math.random().toString(36).slice(2, 8)}`;

  it('createOrg: a slug from the name, the default timezone, the number as E.164; onboarding, law', async () => {
    const tag = unique();
    const org = await m.sut.createOrg({ name: `  Harper & Co. Injury Law ${tag} `, number: '(312) 555-0199' });
    expect(org).toMatchObject({
      slug: `harper-co-injury-law-${tag}`,
      displayName: `Harper & Co. Injury Law ${tag}`,
      timezone: 'America/Chicago',
      number: '+13125550199',
      status: 'onboarding',
      vertical: 'law',
      paymentMethodOnFile: false,
    });
    expect(await m.sut.resolveOrg(org.slug)).toMatchObject({ id: org.id });
    expect(await m.sut.resolveOrg(org.id)).toMatchObject({ slug: org.slug });
  });

  it('createOrg refuses a taken slug, a bad slug, an unknown timezone, a bad number and no name, naming the field', async () => {
    const taken = (await m.sut.createOrg({ name: 'Taken', slug: `taken-${unique()}` })).slug;
    const refusals: [Parameters<AccountService['createOrg']>[0], RegExp][] = [
      [{ name: 'Again', slug: taken }, /already taken/],
      [{ name: 'Bad', slug: 'Not A Slug' }, /lowercase letters/],
      [{ name: 'Tz', slug: `tz-${unique()}`, timezone: 'Mars/Olympus' }, /not an IANA timezone/],
      [{ name: 'Number', slug: `number-${unique()}`, number: '12' }, /not a valid phone number/],
      [{ name: '   ' }, /required/],
    ];
    for (const [input, message] of refusals) await expect(m.sut.createOrg(input)).rejects.toThrow(message);
    expect(await m.sut.slugTaken(taken)).toBe(true);
  });

  it('updateOrg changes what it is given; a taken slug is refused; an unknown or malformed firm is not found', async () => {
    const a = await m.sut.createOrg({ name: 'A', slug: `a-${unique()}` });
    const b = await m.sut.createOrg({ name: 'B', slug: `b-${unique()}` });
    const updated = await m.sut.updateOrg(a.id, { timezone: 'Europe/Paris', number: '+1 312 555 0142', ownerEmail: 'o@firm.example' });
    expect(updated).toMatchObject({ slug: a.slug, timezone: 'Europe/Paris', number: '+13125550142', ownerEmail: 'o@firm.example' });
    expect(await m.sut.timezoneOf(a.id)).toBe('Europe/Paris');
    await expect(m.sut.updateOrg(a.id, { slug: b.slug })).rejects.toThrow(/already taken/);
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      await expect(m.sut.getOrg(id)).rejects.toMatchObject({ code: 'not_found' });
    }
    await expect(m.sut.updateOrg('00000000-0000-4000-8000-000000000000', { name: 'x' })).rejects.toMatchObject({ code: 'not_found' });
    await expect(m.sut.resolveOrg('no-such-firm')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('describe: setup and next_step follow the firm’s real state', async () => {
    const fresh = await createFirm(m.module, { publish: false });
    const principal = await m.principal(fresh.keys.read);
    const get = () => m.sut.describe(principal);
    let a = await get();
    expect(a.setup).toEqual({
      receptionist_configured: false,
      config_valid: false,
      published: false,
      team_added: false,
      number_provisioned: false,
      org_live: false,
      first_call_received: false,
      payment_method_on_file: false,
    });
    expect(a.next_step).toEqual({ code: 'start_setup', message: expect.any(String), dashboard_url: null });

    await m.module.get(ReceptionistService).saveDraft(fresh.orgId, DEMO_SETTINGS);
    a = await get();
    expect(a.setup).toMatchObject({ receptionist_configured: true, config_valid: true, published: false });
    expect(a.next_step.code).toBe('finish_setup');

    await m.module.get(ReceptionistService).publish(fresh.orgId, DEMO_SETTINGS);
    a = await get();
    expect(a.setup).toMatchObject({ published: true, team_added: true, number_provisioned: false });
    expect(a.next_step.code).toBe('get_number');

    await m.sut.updateOrg(fresh.orgId, { number: '(312) 555-0199', status: 'live' });
    a = await get();
    expect(a.number).toBe('+13125550199');
    expect(a.setup).toMatchObject({ number_provisioned: true, org_live: true, first_call_received: false });
    expect(a.next_step.code).toBe('make_test_call');

    await m.sql('UPDATE orgs SET first_call_at = now() WHERE id = $1', [fresh.orgId]);
    const trialEnds = new Date(m.clock.now().getTime() + 3.5 * DAY);
    await m.sut.updateOrg(fresh.orgId, { trialEndsAt: trialEnds, plan: 'trial', billingStatus: 'trialing' });
    a = await get();
    expect(a.setup?.first_call_received).toBe(true);
    expect(a.next_step.code).toBe('add_payment_method');
    expect(a.trial_days_left).toBe(4);
    expect(a.trial_ends_at).toBe(trialEnds.toISOString());

    m.clock.advance(4 * DAY);
    a = await get();
    expect(a.trial_days_left).toBe(0);
    expect(a.next_step.code).toBe('upgrade');
    m.clock.reset();

    await m.sut.updateOrg(fresh.orgId, { paymentMethodOnFile: true, billingStatus: 'active' });
    a = await get();
    expect(a.setup?.payment_method_on_file).toBe(true);
    expect(a.next_step.code).toBe('none');
  });
});
