/**
 * The sales side of a tenant: campaigns, opportunities, contracts,
 * transactions (quotes to invoices, procurement, one production order) with
 * item lines as JSON, and payments against invoices.
 */
import type { SeededItem } from './catalog.js';
import { CAMPAIGN_NAMES, DESCRIPTIONS } from './names.js';
import { DAY, docnum, inserter, partiesOf, someUser, stamps, type Party, type Tenant } from './tenant.js';

const SELLER = ['DE811907980', 'Sandbox Kaffee GmbH', 'Industriestraße 12', '50667', 'Köln', 'Nordrhein-Westfalen', 'DE'] as const;

/** Item lines for a transaction or contract, with their net and tax totals. */
export function itemLines(t: Tenant, items: readonly SeededItem[], count: number): { lines: unknown[]; net: number; tax: number } {
  const lines: unknown[] = [];
  let net = 0;
  let tax = 0;
  for (let k = 0; k < count; k++) {
    const item = t.random.pick(items);
    const amount = item.unit === 'HUR' ? t.random.int(1, 8) : t.random.int(1, 12);
    const discount = t.random.chance(0.2) ? 5 : 0;
    const line = Math.round(amount * item.sellingprice * (100 - discount)) / 100;
    net += line;
    tax += (line * item.taxrate) / 100;
    lines.push({
      type: 0, subindex: lines.length, item: item.id, name: item.name, itemnum: item.itemnum, manufacturer: item.manufacturer,
      itemtype: item.type, unit: item.unit, amount, sellingprice: item.sellingprice, purchaseprice: item.purchaseprice,
      discount, taxrate: item.taxrate, description: '',
    });
  }
  if (t.random.chance(0.3)) lines.push({ type: 1, subindex: lines.length, variant: 0, text: 'Delivery "free house"; payable within 14 days, net.\nThank you for your order!' });
  return { lines, net: Math.round(net * 100) / 100, tax: Math.round(tax * 100) / 100 };
}

/** Seeds campaigns and opportunities; returns the campaign IDs. */
export function seedCampaigns(t: Tenant, count: number): number[] {
  const { random } = t;
  const campaign = inserter(t, 'campaigns', ['name', 'datefrom', 'dateto', 'status', 'description', 'assigneduser', 'creator', 'creationdate', 'lastmodified']);
  const campaigns = CAMPAIGN_NAMES.map((name, i) => {
    const from = t.now + (i - 1) * 60 * DAY;
    return campaign([name, from, i === 2 ? null : from + 30 * DAY, [9, 5, 1][i], i === 1 ? 'Booth 4, hall "B"; bring samples.' : '', someUser(t), someUser(t), from - 40 * DAY, from - 40 * DAY]);
  });
  const opportunity = inserter(t, 'opportunities', [
    'name', 'opportunitynum', 'account', 'contact', 'campaign', 'date', 'duedate', 'status', 'priority', 'probability',
    'worstcase', 'mostlikely', 'upside', 'description', 'assigneduser', 'creator', 'creationdate', 'lastmodified',
  ]);
  const prospects = partiesOf(t, [0, 1, 3]);
  for (let i = 0; i < count; i++) {
    const p = random.pick(prospects);
    const status = random.pick([0, 1, 2, 3, 4, 4, 5, 6]);
    const probability = status === 5 ? 100 : status === 6 ? 0 : random.pick([10, 25, 50, 75, 90]);
    const likely = random.int(10, 400) * 100;
    const [created, modified] = stamps(t, 300);
    opportunity([
      `${random.pick(['Equipment', 'Service contract', 'Coffee supply', 'Barista training'])} for ${p.name}`, docnum('O', i + 1),
      p.account, p.contact, random.chance(0.4) ? random.pick(campaigns) : null, created, created + random.int(20, 120) * DAY, status,
      random.int(0, 4), probability, Math.round(likely * 0.6), likely, Math.round(likely * 1.5), random.pick(DESCRIPTIONS),
      someUser(t), someUser(t), created, modified,
    ]);
  }
  return campaigns;
}

/** Seeds service contracts with contract items and automatic billing for some. */
export function seedContracts(t: Tenant, items: readonly SeededItem[], count: number): void {
  const { random } = t;
  const contract = inserter(t, 'contracts', [
    'name', 'contractnum', 'account', 'date', 'datefrom', 'dateto', 'datecancel', 'status', 'currency', 'billingcycle', 'lastbilling',
    'description', 'contractitems', 'autobilling', 'assigneduser', 'creator', 'creationdate', 'lastmodified',
  ]);
  const customers = partiesOf(t, [1, 3]);
  for (let i = 0; i < count; i++) {
    const p = random.pick(customers);
    const from = t.now - random.int(30, 700) * DAY;
    const to = random.chance(0.6) ? from + 365 * DAY * random.int(1, 3) : null;
    const status = to !== null && to < t.now ? 6 : random.pick([0, 2, 4, 4, 4]);
    const cycle = random.chance(0.6) ? random.pick([1, 3, 12]) : null;
    const cancelled = status === 4 && random.chance(0.15) ? t.now + 30 * DAY : null;
    const { lines } = itemLines(t, items, random.int(1, 3));
    contract([
      `Service agreement ${p.name}`, docnum('V', i + 1), p.account, from - 10 * DAY, from, to, cancelled, status, p.currency, cycle,
      cycle === null ? null : t.now - random.int(1, 28) * DAY, i % 3 === 0 ? 'Includes two maintenance visits per year;\nresponse time 48 h.' : '',
      JSON.stringify(lines), cycle === null ? null : JSON.stringify({ type: 3, book: false, assigneduser: null }), someUser(t), someUser(t),
      from - 10 * DAY, from - 10 * DAY,
    ]);
  }
}

/** Billing (0–4) and procurement (5–9) types with statuses that the service allows for them. */
const FLOWS: readonly (readonly [number, readonly number[]])[] = [
  [0, [0, 1, 4, 8]], [1, [1, 12, 16]], [2, [1, 16]], [3, [0, 1, 17, 20, 20]], [4, [1]],
  [6, [1, 12]], [8, [1, 20]],
];

/** Seeds transactions and payments; returns the transaction IDs. */
export function seedTransactions(t: Tenant, items: readonly SeededItem[], count: number): number[] {
  const { random } = t;
  const columns = [
    'transactionnum', 'type', 'status', 'account', 'date', 'duedate', 'currency', 'taxid', 'billingrecipient', 'billingaddress',
    'billingpostalcode', 'billingcity', 'billingcountry', 'sellertaxid', 'sellername', 'selleraddress', 'sellerpostalcode',
    'sellercity', 'sellerregion', 'sellercountry', 'netamount', 'tax', 'items', 'assigneduser', 'creator', 'creationdate', 'lastmodified',
  ];
  const insert = inserter(t, 'transactions', columns);
  const payment = inserter(t, 'payments', ['transaction', 'account', 'date', 'subject', 'status', 'amount', 'description', 'creator', 'creationdate', 'lastmodified']);
  const customers = partiesOf(t, [1, 3, 5]);
  const suppliers = partiesOf(t, [2, 3]);
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    const [type, statuses] = random.pick(FLOWS);
    const p: Party = random.pick(type >= 5 ? suppliers : customers);
    const status = random.pick(statuses);
    const { lines, net, tax } = itemLines(t, items, random.int(1, 5));
    const [created, modified] = stamps(t, 500);
    const seller = type < 5 ? SELLER : ['', '', '', '', '', '', ''];
    const id = insert([
      docnum(['AN', 'AU', 'LI', 'RE', 'GU', '', 'BE', '', 'ER'][type] ?? 'T', 10000 + i + 1), type, status, p.account, created,
      type === 3 ? created + 14 * DAY : null, p.currency, '', p.name, p.address, p.postalcode, p.city.name, p.city.country,
      ...seller, net, tax, JSON.stringify(lines), someUser(t), someUser(t), created, modified,
    ]);
    ids.push(id);
    const gross = Math.round((net + tax) * 100) / 100;
    if (type === 3 && status >= 17) {
      const amount = status === 17 ? Math.round(gross * 50) / 100 : gross;
      const paid = Math.min(created + random.int(3, 20) * DAY, t.now);
      payment([id, null, paid, `Zahlung RE-${10000 + i + 1}`, 3, amount, '', someUser(t), paid, paid]);
    }
  }
  const p = random.pick(customers);
  payment([null, p.account, t.now - 3 * DAY, 'Prepayment, order "Barista Pro"', 1, 500, 'Bank transfer; reference unclear,\nassign manually.', someUser(t), t.now - 3 * DAY, t.now - 3 * DAY]);
  const made = items.find((x) => x.type === 0);
  if (made) {
    const when = t.now - 5 * DAY;
    ids.push(
      inserter(t, 'transactions', ['transactionnum', 'type', 'status', 'item', 'productionfactor', 'currency', 'date', 'creator', 'creationdate', 'lastmodified'])([
        'FA-00001', 10, 0, made.id, 10, 'EUR', when, someUser(t), when, when,
      ]),
    );
  }
  return ids;
}
