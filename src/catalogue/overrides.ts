/**
 * Hand-written additions to the generated catalogue: what the vendor documents
 * cannot say. Default table columns per family, short notes on fields where the
 * product brief explains them, operations the brief lists beyond the OpenAPI
 * document, and families the brief reserves for admin users. A test checks
 * that every name here exists in the catalogue.
 */
import type { Operation } from './types.js';

/** Columns `query` shows in a table when the user gives no `--fields`. */
export const defaultColumns: Readonly<Record<string, readonly string[]>> = {
  accounts: ['ID', 'lastname', 'firstname', 'type', 'customernum', 'currency'],
  actionsteps: ['ID', 'name', 'status', 'date', 'duedate', 'effort'],
  addresses: ['ID', 'account', 'contact', 'type', 'default'],
  applicationassets: ['ID', 'application', 'filename', 'mimetype'],
  applications: ['ID', 'name', 'identifier', 'vendor', 'activity'],
  appointments: ['ID', 'name', 'location', 'datefrom', 'dateto'],
  associations: ['ID', 'entity1', 'index1', 'entity2', 'index2', 'relation'],
  binfiles: ['ID', 'size', 'hash'],
  campaigns: ['ID', 'name', 'status', 'datefrom', 'dateto'],
  categories: ['ID', 'entity', 'name'],
  channels: ['ID', 'name', 'activity'],
  comments: ['ID', 'record', 'date', 'sender'],
  components: ['ID', 'item', 'component', 'amount', 'price'],
  contacts: ['ID', 'lastname', 'firstname', 'company', 'city', 'country', 'email'],
  contacts2contacts: ['ID', 'contact1', 'contact2'],
  contracts: ['ID', 'contractnum', 'name', 'account', 'status', 'datefrom', 'dateto'],
  couponcodes: ['ID', 'coupon', 'code', 'value', 'datefrom', 'dateto'],
  coupons: ['ID', 'name', 'type', 'code', 'value', 'activity'],
  customfields: ['ID', 'name', 'identifier', 'entity', 'type'],
  davservers: ['ID', 'name', 'type', 'url', 'activity'],
  devices: ['ID', 'item', 'serialnum', 'chargenum', 'expdate'],
  documents: ['ID', 'documentnum', 'name', 'status', 'filename'],
  dunning: ['ID', 'dunningnum', 'account', 'type', 'date', 'status'],
  dunning2transactions: ['ID', 'dunning', 'transaction'],
  entities2channels: ['ID', 'entity', 'index', 'channel'],
  events: ['ID', 'name', 'entity', 'index', 'datefrom', 'dateto'],
  feedservers: ['ID', 'name', 'url', 'channel', 'activity'],
  files: ['ID', 'filename', 'mimetype', 'record', 'comment'],
  follows: ['ID', 'entity', 'index', 'creator'],
  forks: ['ID', 'name', 'identifier', 'module', 'activity'],
  groups: ['ID', 'name', 'leader', 'activity'],
  groups2users: ['ID', 'group', 'user', 'writable'],
  invitations: ['ID', 'appointment', 'name', 'email', 'flag'],
  items: ['ID', 'itemnum', 'name', 'type', 'sellingprice', 'unit'],
  ledgers: ['ID', 'name', 'description'],
  likes: ['ID', 'record', 'creator'],
  links: ['ID', 'name', 'url', 'visits', 'expdate'],
  mailinglists: ['ID', 'name', 'sender', 'campaign'],
  mailingrecipients: ['ID', 'message', 'participant', 'email'],
  mailservers: ['ID', 'name', 'sender', 'serverin', 'serverout', 'activity'],
  messagereads: ['ID', 'message', 'creator'],
  messages: ['ID', 'date', 'sender_email', 'to_email', 'subject', 'mailbox'],
  notes: ['ID', 'name', 'status', 'contenttype'],
  objects: ['ID', 'name', 'entity', 'date'],
  opportunities: ['ID', 'opportunitynum', 'name', 'status', 'probability', 'mostlikely'],
  participants: ['ID', 'name', 'email', 'mailinglist', 'campaign'],
  payments: ['ID', 'date', 'subject', 'amount', 'status', 'account'],
  permissions: ['ID', 'group', 'identifier', 'application', 'writable'],
  pricelists: ['ID', 'name', 'type', 'currency', 'discount', 'activity'],
  pricelists2accounts: ['ID', 'pricelist', 'account'],
  prices: ['ID', 'item', 'pricelist', 'price', 'minamount'],
  projects: ['ID', 'projectnum', 'name', 'status', 'account'],
  records: ['ID', 'entity', 'index', 'date', 'sender'],
  relateditems: ['ID', 'item', 'relateditem', 'relation'],
  resources: ['ID', 'name', 'identifier', 'mimetype', 'activity'],
  services: ['ID', 'name', 'identifier', 'type', 'activity'],
  stocktransactions: ['ID', 'item', 'storage', 'date', 'amount', 'flag'],
  storages: ['ID', 'name', 'description'],
  suppliers: ['ID', 'item', 'account', 'itemnum', 'price', 'stock'],
  tasks: ['ID', 'tasknum', 'name', 'status', 'priority', 'duedate'],
  tickets: ['ID', 'ticketnum', 'name', 'status', 'priority', 'duedate'],
  transactions: ['ID', 'transactionnum', 'type', 'date', 'status', 'netamount', 'currency'],
  users: ['ID', 'name', 'email', 'activity'],
  weblets: ['ID', 'name', 'identifier', 'view', 'activity'],
};

/** Short notes on fields, in our words, where the product brief explains them. */
export const fieldNotes: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  accounts: {
    lastname: 'surname, or the company name; give it or firstname',
    firstname: 'given name; give it or lastname',
    customernum: 'customer number; allowed for PROSPECT, CUSTOMER, CUSTOMERANDSUPPLIER, EMPLOYEE',
    suppliernum: 'supplier number; allowed for SUPPLIER, CUSTOMERANDSUPPLIER',
    taxid: 'VAT number or similar tax identifier',
    currency: 'ISO 4217 code, e.g. EUR',
    locked: '1 blocks booking billing and procurement transactions',
    excludetax: '1 exempts the account from tax',
  },
  actionsteps: {
    task: 'task ID; set at most one of task, ticket, account',
    ticket: 'ticket ID; set at most one of task, ticket, account',
    account: 'account ID; set at most one of task, ticket, account',
    date: 'when the step is planned; now if omitted',
    effort: 'minutes spent',
  },
  addresses: {
    account: 'the account this address belongs to',
    default: '1 marks the default address of its type',
  },
  appointments: {
    color: 'hex colour without #, e.g. F80 or FF8800',
    datefrom: 'start; not after dateto',
    dateto: 'end; not before datefrom',
    interval: 'repeat every N recurrence units',
    maxoccurrences: 'number of occurrences including the first; 0 for no limit',
    daterecurrence: 'last date of the recurrence',
  },
  associations: {
    index1: 'ID of the record in entity1',
    index2: 'ID of the record in entity2',
  },
  binfiles: {
    size: 'content length in bytes',
    hash: 'MD5 of the content',
  },
  categories: { name: 'category path; a slash separates levels' },
  channels: { name: 'unique channel name' },
  comments: { record: 'the record commented on', text: 'Markdown text' },
  components: {
    item: 'the assembled item',
    component: 'the part item; differs from item',
    amount: 'quantity of the part',
    price: 'imputed price per unit',
    fixed: '1 keeps the quantity fixed',
  },
  contacts: {
    country: 'ISO 3166-1 alpha-2 code, e.g. DE',
    title: 'for persons only',
    company: 'for persons only',
    birthdate: 'for persons only',
  },
  contracts: {
    datecancel: 'date the contract was cancelled',
    exchangerate: 'units of this currency per unit of the system currency',
    billingcycle: 'months between automatic bills',
    autobilling: 'automatic billing settings; needs billingcycle',
  },
};

/**
 * Operations the product brief (the contract) lists but the OpenAPI document
 * omits: the brief gives bin files get and exists beside list.
 */
export const extraOperations: Readonly<Record<string, readonly Operation[]>> = {
  binfiles: ['get', 'exists'],
};

/**
 * Families whose reads the product brief reserves for admin users ("read-only,
 * admin users only"), beyond the permission the OpenAPI document names.
 */
export const adminOnlyReads: readonly string[] = ['applications'];
