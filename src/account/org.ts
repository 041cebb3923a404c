/** A firm as the account context holds it: the `orgs` row, named in camelCase. */
export interface OrgRecord {
  id: string;
  slug: string;
  displayName: string | null;
  status: string;
  timezone: string;
  vertical: string;
  plan: string | null;
  billingStatus: string | null;
  trialEndsAt: Date | null;
  number: string | null;
  paymentMethodOnFile: boolean;
  ownerEmail: string | null;
  firstCallAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A firm as other contexts and the CLI see it: read-only; only AccountService changes firms. */
export type Org = Readonly<OrgRecord>;
