import { describe, expect, it } from 'vitest';
import { findFamily, type ResourceFamily } from '../../src/catalogue/index.js';
import { compileFilter, renderFilterError } from '../../src/filter/index.js';

/** Wednesday 18 November 2026, 15:30 in Berlin (CET, UTC+1). */
const NOW = Date.UTC(2026, 10, 18, 14, 30, 0);
const ZONE = 'Europe/Berlin';
/** Unix seconds of an ISO instant, computed independently of the compiler. */
const at = (iso: string): number => Date.parse(iso) / 1000;

function family(name: string): ResourceFamily {
  const f = findFamily(name);
  if (!f) throw new Error(`no family ${name}`);
  return f;
}

const GOLDEN: readonly (readonly [string, string, Record<string, unknown>])[] = [
  // enum names, operators, plain members
  ['accounts', 'type = CUSTOMER', { type: 1 }],
  ['accounts', 'TYPE = customer', { type: 1 }],
  ['accounts', 'type = CUSTOMER and lastname ~* "^ber"', { type: 1, lastname: { '~*': '^ber' } }],
  ['accounts', 'lastname like "%GmbH"', { lastname: { '~~': '%GmbH' } }],
  ['accounts', "lastname not ilike '%ag'", { lastname: { '!~~*': '%ag' } }],
  ['accounts', 'lastname matches "\\d+" and firstname imatches "^é"', { lastname: { '~': '\\d+' }, firstname: { '~*': '^é' } }],
  ['accounts', 'lastname not matches a and firstname not imatches b', { lastname: { '!~': 'a' }, firstname: { '!~*': 'b' } }],
  ['accounts', 'lastname !~ a and firstname !~* b and taxid ~~ c and description !~~ d and currency !~~* e and suppliernum ~~* f',
    { lastname: { '!~': 'a' }, firstname: { '!~*': 'b' }, taxid: { '~~': 'c' }, description: { '!~~': 'd' }, currency: { '!~~*': 'e' }, suppliernum: { '~~*': 'f' } }],
  ['accounts', 'ID != 1 and creator <> 2 and ownergroup < 3 and assigneduser <= 4 and fork > 5 and contact >= 6',
    { ID: { '!=': 1 }, creator: { '!=': 2 }, ownergroup: { '<': 3 }, assigneduser: { '<=': 4 }, fork: { '>': 5 }, contact: { '>=': 6 } }],
  ['accounts', 'type in (PROSPECT, customer, 2)', { type: { IN: [0, 1, 2] } }],
  ['accounts', 'type NOT IN (COMPETITOR)', { type: { '!IN': [4] } }],
  ['accounts', 'lastname in ("Beta AG", Zeta)', { lastname: { IN: ['Beta AG', 'Zeta'] } }],
  ['accounts', 'contact is null', { contact: null }],
  ['accounts', 'contact IS NOT NULL', { contact: { '!=': null } }],
  ['accounts', 'contact = null and fork <> NULL', { contact: null, fork: { '!=': null } }],
  ['accounts', 'locked = true and excludetax = FALSE', { locked: 1, excludetax: 0 }],
  ['accounts', 'ID >= 10 and ID < 20', { ID: { '>=': 10, '<': 20 } }],
  ['accounts', 'id = 5 and type = 1 and ID <= 9', { ID: { '=': 5, '<=': 9 }, type: 1 }],
  ['accounts', 'customernum = 01067 and taxid = "DE 1"', { customernum: '01067', taxid: 'DE 1' }],
  ['accounts', "lastname = 'it\\'s' and firstname = \"say \\\"hi\\\"\"", { lastname: "it's", firstname: 'say "hi"' }],
  // precedence, parentheses, not
  ['accounts', 'type = 1 or type = 2', { 0: ['OR', { type: 1 }, { type: 2 }] }],
  ['accounts', 'type = 1 or type = 2 and locked = 1', { 0: ['OR', { type: 1 }, { type: 2, locked: 1 }] }],
  ['accounts', '(type = 1 or type = 2) and locked = 1', { 0: ['OR', { type: 1 }, { type: 2 }], locked: 1 }],
  ['accounts', 'type = 1 or (type = 2 or type = 3)', { 0: ['OR', { type: 1 }, { type: 2 }, { type: 3 }] }],
  ['accounts', 'not type = 1', { 0: ['NOT', { type: 1 }] }],
  ['accounts', 'not not type = 1', { 0: ['NOT', { 0: ['NOT', { type: 1 }] }] }],
  ['accounts', 'not type = 1 and locked = 1', { 0: ['NOT', { type: 1 }], locked: 1 }],
  ['accounts', 'not (type = 1 and locked = 1) or lastname = x', { 0: ['OR', { 0: ['NOT', { type: 1, locked: 1 }] }, { lastname: 'x' }] }],
  ['accounts', 'TYPE = Customer AND Locked = TRUE OR NOT lastname IS NULL', { 0: ['OR', { type: 1, locked: 1 }, { 0: ['NOT', { lastname: null }] }] }],
  ['accounts', 'type != 1 and type != 2', { 0: ['AND', { type: { '!=': 2 } }], type: { '!=': 1 } }],
  ['accounts', '((type = 1))', { type: 1 }],
  // dotted paths and extension fields
  ['accounts', 'contact.city = Berlin', { 'contact.city': 'Berlin' }],
  ['accounts', "contact.city ~* '^m' and contact.lastname != Zorn", { 'contact.city': { '~*': '^m' }, 'contact.lastname': { '!=': 'Zorn' } }],
  ['accounts', 'contact.type = person', { 'contact.type': 1 }],
  ['accounts', 'extdata.score > 10 and extdata.tier = gold and extdata.code = "10" and extdata.vip = true',
    { 'extdata.score': { '>': 10 }, 'extdata.tier': 'gold', 'extdata.code': '10', 'extdata.vip': true }],
  // dates in Europe/Berlin with a fixed now
  ['accounts', 'creationdate >= 2026-11-01 and creationdate < 2026-11-02', { creationdate: { '>=': at('2026-10-31T23:00:00Z'), '<': at('2026-11-01T23:00:00Z') } }],
  ['accounts', 'creationdate >= 2026-07-01', { creationdate: { '>=': at('2026-06-30T22:00:00Z') } }],
  ['accounts', 'lastmodified > -7d and creationdate < +2h', { lastmodified: { '>': at('2026-11-11T14:30:00Z') }, creationdate: { '<': at('2026-11-18T16:30:00Z') } }],
  ['accounts', 'creationdate > -30m and lastmodified = now', { creationdate: { '>': at('2026-11-18T14:00:00Z') }, lastmodified: at('2026-11-18T14:30:00Z') }],
  ['accounts', 'creationdate >= yesterday and creationdate < today', { creationdate: { '>=': at('2026-11-16T23:00:00Z'), '<': at('2026-11-17T23:00:00Z') } }],
  ['accounts', 'creationdate >= startofweek and lastmodified >= StartOfMonth and ID = 1', { creationdate: { '>=': at('2026-11-15T23:00:00Z') }, lastmodified: { '>=': at('2026-10-31T23:00:00Z') }, ID: 1 }],
  ['accounts', 'creationdate < 2026-11-01T08:30', { creationdate: { '<': at('2026-11-01T07:30:00Z') } }],
  ['accounts', 'creationdate < 2026-11-01T08:30Z and lastmodified < "2026-11-01 08:30:15+05:30"', { creationdate: { '<': at('2026-11-01T08:30:00Z') }, lastmodified: { '<': at('2026-11-01T03:00:15Z') } }],
  ['accounts', 'creationdate = 1793491200', { creationdate: 1793491200 }],
  // contacts
  ['contacts', 'type = PERSON and city in (Berlin, "Bad Homburg")', { type: 1, city: { IN: ['Berlin', 'Bad Homburg'] } }],
  ['contacts', 'birthdate is null or birthdate < 2000-01-01', { 0: ['OR', { birthdate: null }, { birthdate: { '<': at('1999-12-31T23:00:00Z') } }] }],
  ['contacts', 'picbinfile is not null and visibility = archived', { picbinfile: { '!=': null }, visibility: 1 }],
  // actionsteps
  ['actionsteps', 'status in (DRAFT, BOOKED) and date >= startofmonth', { status: { IN: [0, 3] }, date: { '>=': at('2026-10-31T23:00:00Z') } }],
  ['actionsteps', 'account.type = CUSTOMER and account.lastname ilike "%gmbh%"', { 'account.type': 1, 'account.lastname': { '~~*': '%gmbh%' } }],
  ['actionsteps', 'duedate < tomorrow and status != cancelled', { duedate: { '<': at('2026-11-18T23:00:00Z') }, status: { '!=': 2 } }],
  ['contracts', 'exchangerate >= 1.25 and exchangerate < 2e1', { exchangerate: { '>=': 1.25, '<': 20 } }],
  // appointments
  ['appointments', 'datefrom >= 2026-11-01 and dateto < 2026-12-01 and recurrence is null',
    { datefrom: { '>=': at('2026-10-31T23:00:00Z') }, dateto: { '<': at('2026-11-30T23:00:00Z') }, recurrence: null }],
  ['appointments', 'recurrence in (week, MONTH) or location ~~* "%raum%"', { 0: ['OR', { recurrence: { IN: [2, 3] } }, { location: { '~~*': '%raum%' } }] }],
  ['appointments', 'datefrom >= startofyear', { datefrom: { '>=': at('2025-12-31T23:00:00Z') } }],
];

describe('compileFilter: golden expressions', () => {
  it.each(GOLDEN)('%s: %s', (fam, text, expected) => {
    const r = compileFilter(text, family(fam), { now: NOW, timeZone: ZONE });
    if (!r.ok) throw new Error(renderFilterError(text, r.error));
    expect(r.filter).toEqual(expected);
    // The order of members carries no meaning, but the JSON must survive a round trip unchanged.
    expect(JSON.parse(JSON.stringify(r.filter))).toEqual(expected);
  });

  it('uses the zone passed in, and a zone offset in the value wins', () => {
    const tokyo = compileFilter('creationdate >= today', family('accounts'), { now: NOW, timeZone: 'Asia/Tokyo' });
    expect(tokyo).toEqual({ ok: true, filter: { creationdate: { '>=': at('2026-11-17T15:00:00Z') } } });
    const ny = compileFilter('creationdate >= 2026-11-01T00:00Z', family('accounts'), { now: NOW, timeZone: 'America/New_York' });
    expect(ny).toEqual({ ok: true, filter: { creationdate: { '>=': at('2026-11-01T00:00:00Z') } } });
  });

  it('places a wall-clock time on either side of a daylight-saving change', () => {
    const before = compileFilter('creationdate >= "2026-10-25 01:30"', family('accounts'), { now: NOW, timeZone: ZONE });
    const after = compileFilter('creationdate >= "2026-10-25 04:30"', family('accounts'), { now: NOW, timeZone: ZONE });
    expect(before).toEqual({ ok: true, filter: { creationdate: { '>=': at('2026-10-24T23:30:00Z') } } });
    expect(after).toEqual({ ok: true, filter: { creationdate: { '>=': at('2026-10-25T03:30:00Z') } } });
  });
});
