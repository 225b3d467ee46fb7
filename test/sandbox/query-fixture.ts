/**
 * Records of the query tests, created through the API in a fresh sandbox, so
 * the tests never depend on the seeded business data: every query is scoped to
 * IDs from the first record created here.
 */
import { expect } from 'vitest';
import type { Answer, TestSandbox } from '../helpers/sandbox.js';

export interface QueryFixture {
  /** Contact IDs by city. */
  readonly contacts: Readonly<Record<'berlin' | 'munich' | 'bonn' | 'nowhere', number>>;
  /** Account IDs by short name, in creation (ID) order. */
  readonly accounts: Readonly<Record<'alpha' | 'beta' | 'gamma' | 'delta' | 'epsilon' | 'zeta', number>>;
  /** Contract IDs by exchange rate label. */
  readonly contracts: Readonly<Record<'low' | 'mid' | 'high', number>>;
  /** The picture of the `berlin` contact (Base64). */
  readonly picture: string;
}

async function put(s: TestSandbox, family: string, body: Record<string, unknown>): Promise<number> {
  const r = await s.call('PUT', `api/v1/${family}`, { json: body });
  expect(r.status, r.text).toBe(201);
  return r.json<{ ID: number }>().ID;
}

/** Creates the contacts, accounts (with extension data) and contracts the query tests use. */
export async function createQueryFixture(s: TestSandbox): Promise<QueryFixture> {
  const picture = Buffer.from('not really a picture').toString('base64');
  const contacts = {
    berlin: await put(s, 'contacts', { lastname: 'Berger', city: 'Berlin', picbinfile: { content: picture } }),
    munich: await put(s, 'contacts', { lastname: 'Müller', city: 'München' }),
    bonn: await put(s, 'contacts', { lastname: 'Bauer', city: 'Bonn' }),
    nowhere: await put(s, 'contacts', { lastname: 'Zorn', city: '' }),
  };
  const account = (body: Record<string, unknown>): Promise<number> => put(s, 'accounts', { currency: 'EUR', ...body });
  const accounts = {
    alpha: await account({ lastname: 'Alpha GmbH', contact: contacts.berlin, type: 1, customernum: 'K-100', taxid: 'QT-1', extdata: { score: 5, tier: 'gold' } }),
    beta: await account({ lastname: 'Beta AG', contact: contacts.munich, type: 1, customernum: 'K-200', taxid: 'QT-2', extdata: { score: 12, tier: 'silver' } }),
    gamma: await account({ lastname: 'Gamma_50%', contact: contacts.bonn, type: 2, suppliernum: 'S-1', taxid: 'QT-3', extdata: { score: 7 } }),
    delta: await account({ lastname: 'MÜNCHEN Delta', type: 0, taxid: 'QT-4', description: 'says "hi"; then\nleaves', currency: 'USD' }),
    epsilon: await account({ firstname: 'Émile', lastname: 'Epsilon', contact: contacts.berlin, type: 4, taxid: 'QT-5', locked: 1 }),
    zeta: await account({ lastname: 'zeta kg', contact: contacts.nowhere, type: 1, customernum: 'K-300', taxid: '' }),
  };
  const contract = (name: string, exchangerate: number, account: number): Promise<number> =>
    put(s, 'contracts', { name, currency: 'EUR', exchangerate, account, contractitems: [{ type: 'text', text: name }] });
  const contracts = {
    low: await contract('Low rate', 0.5, accounts.alpha),
    mid: await contract('Mid rate', 1.25, accounts.beta),
    high: await contract('High rate', 2, accounts.gamma),
  };
  return { contacts, accounts, contracts, picture };
}

/** A query on a family; the JSON body is sent as is. */
export function query(s: TestSandbox, family: string, body: unknown, token?: string): Promise<Answer> {
  return s.call('POST', `api/v1/${family}`, { json: body, ...(token ? { token } : {}) });
}

/** A form-encoded query. */
export function queryForm(s: TestSandbox, family: string, form: string, token?: string): Promise<Answer> {
  return s.call('POST', `api/v1/${family}`, { form, ...(token ? { token } : {}) });
}

/** Runs a query that must succeed and returns its records. */
export async function rows(s: TestSandbox, family: string, body: unknown): Promise<Record<string, unknown>[]> {
  const r = await query(s, family, body);
  expect(r.status, r.text).toBe(200);
  return r.json<Record<string, unknown>[]>();
}

/** Runs a query that must fail with 400 and returns the message. */
export async function rejected(s: TestSandbox, family: string, body: unknown): Promise<string> {
  const r = await query(s, family, body);
  expect(r.status, r.text).toBe(400);
  return r.text;
}
