/**
 * The product side of a tenant: storages, items (with one MODEL and its
 * variants), stock bookings, price lists with prices, and the accounts a
 * wholesale price list applies to.
 */
import { PRODUCTS } from './names.js';
import { docnum, inserter, someUser, stamps, partiesOf, DAY, type Tenant } from './tenant.js';

/** An item as transactions and contracts need it for their item lines. */
export interface SeededItem {
  readonly id: number;
  readonly name: string;
  readonly itemnum: string;
  readonly unit: string;
  readonly type: number;
  readonly sellingprice: number;
  readonly purchaseprice: number;
  readonly taxrate: number;
  readonly manufacturer: string;
}

const ITEM_COLUMNS = [
  'name', 'manufacturer', 'itemnum', 'barcode', 'type', 'model', 'unit', 'sellingprice', 'purchaseprice', 'taxrate',
  'weight', 'origin', 'description', 'foreigntaxrates', 'visibility', 'creator', 'creationdate', 'lastmodified',
];

/** EAN-13 with a valid check digit from 12 digits. */
function ean13(body: string): string {
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(body[i]) * (i % 2 === 0 ? 1 : 3);
  return `${body}${(10 - (sum % 10)) % 10}`;
}

/** Seeds the items: one per product, plus a MODEL with two variants. */
export function seedItems(t: Tenant): SeededItem[] {
  const { random } = t;
  const insert = inserter(t, 'items', ITEM_COLUMNS);
  const items: SeededItem[] = [];
  const add = (name: string, unit: string, price: number, taxrate: number, manufacturer: string, type: number, model: number | null): number => {
    const n = items.length + 1;
    const itemnum = docnum('I', 1000 + n, 4);
    const purchaseprice = Math.round(price * random.int(45, 70)) / 100;
    const service = unit === 'HUR' || manufacturer === '';
    const [created, modified] = stamps(t);
    const id = insert([
      name, manufacturer, itemnum, service ? '' : ean13(`40${String(random.int(1e9, 9999999999))}`), type, model, unit, price,
      purchaseprice, taxrate, service ? 0 : random.money(0.1, 12), service ? '' : random.pick(['DE', 'CH', 'IT', 'FR', '']),
      n % 4 === 0 ? `${name}.\nDelivered with manual (DE/FR/IT); "spare parts" on request.` : '',
      n % 5 === 0 ? JSON.stringify({ CH: 8.1, AT: 20 }) : null, n === 12 ? 1 : 0, someUser(t), created, modified,
    ]);
    if (type !== 7) items.push({ id, name, itemnum, unit, type, sellingprice: price, purchaseprice, taxrate, manufacturer });
    return id;
  };
  PRODUCTS.forEach(([name, unit, price, taxrate, manufacturer], i) => {
    const type = unit === 'HUR' || manufacturer === '' ? 6 : i === 0 ? 1 : i === 1 ? 2 : 0;
    add(name, unit, price, taxrate, manufacturer, type, null);
  });
  const model = add('Travel mug (model)', 'C62', 14.9, 19, 'Glaswerk Jena', 7, null);
  add('Travel mug, blue', 'C62', 14.9, 19, 'Glaswerk Jena', 0, model);
  add('Travel mug, grün', 'C62', 14.9, 19, 'Glaswerk Jena', 0, model);
  return items;
}

/** Seeds storages and stock: an initial booking per stocked item and storage, then some withdrawals. */
export function seedStock(t: Tenant, items: readonly SeededItem[]): number[] {
  const { random } = t;
  const storage = inserter(t, 'storages', ['name', 'description', 'creator', 'creationdate', 'lastmodified']);
  const storages = [
    storage(['Main warehouse', 'Industriestraße 12, Köln\nGate 2 for deliveries', someUser(t), t.now - 900 * DAY, t.now - 900 * DAY]),
    storage(['Shop Zürich', '', someUser(t), t.now - 700 * DAY, t.now - 700 * DAY]),
    storage(['Service van "K-SV 101"', 'Spare parts only', someUser(t), t.now - 400 * DAY, t.now - 30 * DAY]),
  ];
  const stock = inserter(t, 'stocktransactions', [
    'item', 'storage', 'flag', 'date', 'chargenum', 'location', 'reference', 'amount', 'sellingprice', 'purchaseprice', 'serials',
    'creator', 'creationdate', 'lastmodified',
  ]);
  for (const item of items) {
    if (item.type === 6) continue; // NOSTOCK
    for (const s of storages) {
      if (s !== storages[0] && !random.chance(0.5)) continue;
      const date = t.now - random.int(200, 600) * DAY;
      const amount = item.type === 1 ? 3 : random.int(5, 120);
      const serials = item.type === 1 ? JSON.stringify(Array.from({ length: amount }, (_, k) => `SN-${item.id}-${s}-${k + 1}`)) : null;
      const charge = item.type === 2 ? `CH-${2024}-${random.int(100, 999)}` : '';
      const location = s === storages[0] ? `R${random.int(1, 9)}-S${random.int(1, 5)}` : '';
      stock([item.id, s, 0, date, charge, location, 'Initial stock', amount, item.sellingprice, item.purchaseprice, serials, someUser(t), date, date]);
      if (item.type === 0 && random.chance(0.6)) {
        const out = t.now - random.int(1, 190) * DAY;
        const flag = random.chance(0.15) ? 1 : 0;
        stock([item.id, s, flag, out, '', location, flag === 1 ? 'Reserved for order' : 'Sale', -random.int(1, 4), item.sellingprice, item.purchaseprice, null, someUser(t), out, out]);
      }
    }
  }
  return storages;
}

/** Seeds price lists, their prices, and the accounts the wholesale list applies to. */
export function seedPrices(t: Tenant, items: readonly SeededItem[]): number[] {
  const { random } = t;
  const list = inserter(t, 'pricelists', ['name', 'type', 'currency', 'discount', 'datefrom', 'dateto', 'applytoall', 'activity', 'description', 'creator', 'creationdate', 'lastmodified']);
  const year = new Date(t.now * 1000).getUTCFullYear();
  const from = Date.UTC(year, 0, 1) / 1000;
  const to = Date.UTC(year, 11, 31, 23, 59, 59) / 1000;
  const lists = [
    list([`Retail ${year}`, 0, 'EUR', 0, from, to, 1, 0, '', someUser(t), from - 30 * DAY, from - 30 * DAY]),
    list(['Wholesale; resellers only', 0, 'EUR', 10, null, null, 0, 0, 'Resellers with a signed agreement.\nReviewed yearly.', someUser(t), from - 400 * DAY, from - 20 * DAY]),
    list(['Schweiz (CHF)', 0, 'CHF', 0, from, null, 0, 0, '', someUser(t), from - 10 * DAY, from - 10 * DAY]),
    list(['Procurement, preferred suppliers', 2, 'EUR', -3, null, null, 1, 0, '', someUser(t), from - 500 * DAY, from - 500 * DAY]),
    list([`Retail ${year - 1}`, 0, 'EUR', 0, from - 365 * DAY, from - 1, 1, 1, 'Superseded.', someUser(t), from - 395 * DAY, from]),
  ];
  const price = inserter(t, 'prices', ['item', 'pricelist', 'price', 'rebate', 'discount', 'minamount', 'costprice', 'creator', 'creationdate', 'lastmodified']);
  for (const item of items) {
    const when = from - random.int(1, 30) * DAY;
    price([item.id, lists[0], item.sellingprice, 0, null, 0, item.purchaseprice, someUser(t), when, when]);
    if (random.chance(0.6)) price([item.id, lists[1], null, 0, random.int(5, 25), random.pick([1, 5, 10]), null, someUser(t), when, when]);
    price([item.id, lists[2], Math.round(item.sellingprice * 105) / 100, 0, null, 0, null, someUser(t), when, when]);
    if (item.purchaseprice > 0) price([item.id, lists[3], item.purchaseprice, 0, null, 0, null, someUser(t), when, when]);
  }
  const link = inserter(t, 'pricelists2accounts', ['pricelist', 'account', 'creator', 'creationdate', 'lastmodified']);
  for (const p of partiesOf(t, [1, 3])) {
    if (random.chance(0.2)) link([lists[1], p.account, someUser(t), t.now - 100 * DAY, t.now - 100 * DAY]);
  }
  return lists;
}
